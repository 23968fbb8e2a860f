"""Completion: the shipped scripts in completions/ are current, real bash completes from
them, every word comes from the program's own tables, and --install writes only inside the
user's home."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from d20cli.app import completion
from d20cli.app.cli import completion_script
from d20cli.app.options import OPTIONS
from d20cli.app.shell import Words, completions
from d20cli.language.grammar import COMPLETION_WORDS, VERBS
from d20cli.rules import SYSTEM_IDS

ROOT = Path(__file__).resolve().parent.parent
COMPLETIONS = ROOT / "completions"
BASH = shutil.which("bash") or "/bin/bash"


@pytest.mark.parametrize("shell", completion.SHELLS)
def test_shipped_scripts_are_current(shell: str) -> None:
    path = COMPLETIONS / completion.FILE_NAMES[shell]
    assert path.read_text(encoding="utf-8") == completion_script(shell), (
        f"{path} is out of date: run `d20 completion {shell} > {path.relative_to(ROOT)}`"
    )


@pytest.mark.parametrize("shell", completion.SHELLS)
def test_scripts_hold_every_verb_option_and_system(shell: str) -> None:
    text = completion_script(shell)
    for word in (*VERBS, *SYSTEM_IDS, "adv", "expertise=d6"):
        assert word in text
    for spec in OPTIONS:
        for name in spec.names:
            assert (name.lstrip("-") if shell == "fish" else name) in text
    assert "m&m" not in text  # an alias a shell would take for a background job


def test_completion_command_prints_the_script() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "completion", "bash"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == (COMPLETIONS / "d20.bash").read_text(encoding="utf-8")


def bash_complete(*words: str) -> list[str]:
    """Load completions/d20.bash into a bare bash, set COMP_WORDS and COMP_CWORD as bash
    does for `d20 WORDS...` (the last word is the one being completed), call the function
    and return COMPREPLY."""
    script = (
        f"source {COMPLETIONS / 'd20.bash'}\n"
        'COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))\n'
        'COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}\n'
        "_d20 d20\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    run = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", script, "bash", "d20", *words],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0 and not run.stderr, run.stderr
    return [line for line in run.stdout.splitlines() if line]


def test_bash_completes_a_verb() -> None:
    assert bash_complete("che") == ["check"]
    assert set(bash_complete("")) >= {*VERBS, "systems", "shell", "completion"}


def test_bash_completes_keywords_after_a_verb() -> None:
    offered = bash_complete("check", "+5", "vs", "15", "a")
    assert "adv" in offered and "advantage" in offered
    assert all(w.startswith("a") for w in offered)
    assert "dis" in bash_complete("attack", "+7", "vs", "15", "d")


def test_bash_completes_system_values() -> None:
    offered = bash_complete("--system", "")
    assert offered[: len(SYSTEM_IDS)] == list(SYSTEM_IDS)
    assert "a5e" in offered and "pd" in offered
    assert bash_complete("check", "+5", "-s", "m") == [
        w for w in completion.system_names(shell_safe=True) if w.startswith("m")
    ]


def test_bash_completes_options_and_commands() -> None:
    assert bash_complete("check", "+5", "--sy") == ["--system"]
    assert bash_complete("--exit") == ["--exit-status"]
    assert bash_complete("completion", "") == ["bash", "zsh", "fish"]
    assert bash_complete("-s", "mm", "che") == ["check"]  # an option before the verb
    assert bash_complete("check", "--seed", "") == []  # a number goes there
    assert bash_complete("odds", "chec") == ["check"]
    assert "adv" in bash_complete("odds", "check", "+5", "vs", "15", "a")


def test_shell_completes_from_the_same_tables() -> None:
    words = Words.load()
    assert completions("chec", words) == ("chec", ["check"])
    cur, found = completions("check +5 vs 15 a", words)
    assert cur == "a" and "adv" in found
    assert completions("system m", words)[1][:1] == ["mm"]
    assert "m&m" in completions("system m", words)[1]  # no shell to confuse here
    assert completions("check --sy", words) == ("--sy", ["--system"])
    assert completions("check +1 --system ", words)[1][: len(SYSTEM_IDS)] == list(SYSTEM_IDS)
    assert completions("check --seed ", words) == ("", [])
    assert completions("help att", words) == ("att", ["attack", "attempt"])
    assert set(words.keywords["check"]) <= set(COMPLETION_WORDS)


def test_unknown_shell_is_an_error() -> None:
    from d20cli.errors import ParseError

    with pytest.raises(ParseError, match="bash, zsh, fish"):
        completion_script("tcsh")


def test_install_writes_to_the_users_completion_dirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    expected = {
        "bash": home / ".local/share/bash-completion/completions/d20",
        "zsh": home / ".local/share/zsh/site-functions/_d20",
        "fish": home / ".config/fish/completions/d20.fish",
    }
    for shell, path in expected.items():
        message = completion_script(shell, install=True)
        assert str(path) in message
        assert path.read_text(encoding="utf-8") == completion_script(shell)
    assert "fpath=" in completion_script("zsh", install=True)
    # An XDG directory inside home is honoured; one outside home is not written to.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "cfg"))
    assert completion.install_path("fish") == home / "cfg/fish/completions/d20.fish"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "elsewhere"))
    assert completion.install_path("bash") == expected["bash"]
    assert not (tmp_path / "elsewhere").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
