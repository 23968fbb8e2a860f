"""The README is page one: at most 12 KB, a first roll and a first check on its first
screen, and its two set-up commands are the ones CI runs. (Its examples run with every
other page's: tests/test_docs.py.)"""

from __future__ import annotations

from pathlib import Path

from tests.docs_pages import code_blocks, examples

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_two_commands_are_what_ci_runs() -> None:
    blocks = code_blocks(README, "sh")
    assert len(blocks) == 2, "the README holds exactly two set-up commands"
    install, tests = blocks
    assert install.strip().endswith("&& pip install . && d20 roll 4d6kh3")
    assert install.strip().startswith("python3 -m venv ")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install_cmd, test_cmd = (part.strip() for part in tests.strip().split("&&"))
    assert install_cmd == "pip install '.[test]'"
    assert test_cmd == "python -m pytest -n auto"
    assert f"\n{install_cmd}\n" in ci.replace("--quiet ", "")
    assert "\nNO_MKDOCS_2_WARNING=1 mkdocs build --strict\n" in ci
    assert f"\n{test_cmd}\n" in ci


def test_the_readme_is_one_page() -> None:
    assert len(README.encode("utf-8")) <= 12 * 1024
    assert "pipx install ." in README


def test_a_first_roll_and_a_first_check_come_on_the_first_screen() -> None:
    first_screen = "\n".join(README.splitlines()[:40])
    assert "d20 roll 4d6kh3" in first_screen
    assert any(command.startswith("d20 check ") for command, _ in examples(first_screen))
