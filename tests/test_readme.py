"""The README's commands are true: the install and test commands are the ones CI runs,
and every `$ d20 ...` example runs (and prints what the README shows, where it shows it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def code_blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", README, flags=re.S)


def examples() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each `$ ` line in a console block."""
    found: list[tuple[str, list[str]]] = []
    for block in code_blocks("console"):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, *expected = chunk.rstrip("\n").split("\n")
            found.append((command, expected))
    return found


def test_the_two_commands_are_what_ci_runs() -> None:
    install, tests = code_blocks("sh")[:2]
    assert install.strip() == "pip install . && d20 roll 4d6kh3"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install_cmd, test_cmd = (part.strip() for part in tests.strip().split("&&"))
    assert install_cmd == "pip install '.[test]'"
    assert f"\n{install_cmd}\n" in ci.replace("--quiet ", "")
    assert f"\n{test_cmd}\n" in ci


@pytest.fixture(scope="module")
def readme_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One home for all the examples, run in order: later ones use what earlier ones made
    (a character, the roll log), as a reader following the README would."""
    return tmp_path_factory.mktemp("readme-home")


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[name] = str(home / name.lower())
    env["HOME"] = str(home)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["NO_COLOR"] = "1"
    env.pop("D20_SYSTEM", None)
    return env


@pytest.mark.parametrize(("command", "expected"), examples(), ids=lambda x: str(x)[:60])
def test_readme_example_runs(command: str, expected: list[str], readme_home: Path) -> None:
    if not (Path(sys.executable).parent / "d20").exists():
        command = re.sub(r"\bd20\b(?= )", f"{sys.executable} -m d20cli", command, count=0)
    proc = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        env=_env(readme_home),
        timeout=60,
        check=False,
    )
    wants_error = any(line.startswith("d20: error") for line in expected)
    if wants_error:
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.splitlines() == expected
    else:
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        if expected:
            assert proc.stdout.splitlines() == expected


def python_api_blocks() -> list[str]:
    """The ```python blocks of the README's "Python API" section."""
    section = README.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_python_api_section_has_examples() -> None:
    assert len(python_api_blocks()) >= 4


def test_the_python_api_examples_run() -> None:
    """The section's blocks, in order, as one doctest session (later blocks use what
    earlier ones made, as a reader in the interpreter would): every output as shown."""
    import doctest

    parser = doctest.DocTestParser()
    test = parser.get_doctest("\n".join(python_api_blocks()), {}, "README", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert len(test.examples) >= 20
