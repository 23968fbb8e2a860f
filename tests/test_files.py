"""Where d20 keeps its files (d20cli.files): one rule for every XDG base directory."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

from d20cli import characters, completion, parse_cache, state
from d20cli.files import home_dir, xdg_dir

ROOT = Path(__file__).resolve().parent.parent


def _lookups() -> dict[str, str]:
    """Every place d20 looks up an XDG directory, by variable."""
    return {
        "XDG_CACHE_HOME": str(Path(str(parse_cache.cache_path())).parent.parent),
        "XDG_STATE_HOME": str(state.state_dir().parent),
        "XDG_CONFIG_HOME": str(characters.config_dir().parent),
        "XDG_DATA_HOME": str(completion.install_path("bash").parents[2]),
    }


DEFAULTS = {
    "XDG_CACHE_HOME": ".cache",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
}


@pytest.mark.parametrize("value", ["relative", "relative/path", "./x", "~/x", "", "   "])
def test_a_relative_or_empty_xdg_directory_is_ignored_by_every_lookup(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in DEFAULTS:
        monkeypatch.setenv(name, value)
    assert _lookups() == {name: str(home / default) for name, default in DEFAULTS.items()}


def test_an_absolute_xdg_directory_is_used_by_every_lookup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in DEFAULTS:
        monkeypatch.setenv(name, str(home / name.lower()))
    assert _lookups() == {name: str(home / name.lower()) for name in DEFAULTS}
    assert xdg_dir("XDG_CACHE_HOME", ".cache") == str(home / "xdg_cache_home")


def test_a_home_that_is_not_absolute_is_taken_from_the_password_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = pwd.getpwuid(os.getuid()).pw_dir
    for value in ("", "relative/home"):
        monkeypatch.setenv("HOME", value)
        assert home_dir() == real
    monkeypatch.delenv("HOME")
    assert home_dir() == real


def test_the_program_writes_nothing_in_the_current_directory(tmp_path: Path) -> None:
    """Issue 22: XDG_CACHE_HOME=cache put the parse cache in ./cache/d20cli/."""
    here, home = tmp_path / "here", tmp_path / "home"
    here.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "XDG_CACHE_HOME": "cache",
        "XDG_STATE_HOME": "state",
        "XDG_CONFIG_HOME": "config",
    }
    env.pop("D20_NO_LOG", None)  # the roll log on: the state directory is written too
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "check", "+5", "vs", "15"],
        capture_output=True,
        text=True,
        cwd=here,
        env=env,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert list(here.iterdir()) == []
    assert (home / ".cache" / "d20cli" / "requests.json").is_file()
    assert (home / ".local" / "state" / "d20cli" / "state.db").is_file()
