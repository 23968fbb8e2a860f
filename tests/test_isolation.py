"""The tests never touch the user's real home: not in a test, and not in a module-scoped
fixture, which runs before the per-test isolation (tests/conftest.py)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from d20cli.store import characters, state
from d20cli.store import request_cache as parse_cache

_SEEN: dict[str, str] = {}


@pytest.fixture(scope="module", autouse=True)
def _module_fixture_environment() -> None:
    """What a module-scoped fixture sees (before any function-scoped fixture has run)."""
    for name in ("HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "D20_NO_LOG"):
        _SEEN[name] = os.environ.get(name, "")
    _SEEN["state_dir"] = str(state.state_dir())
    _SEEN["config_dir"] = str(characters.config_dir())
    _SEEN["cache"] = str(parse_cache.cache_path())


def _real_home() -> Path:
    return Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()


def test_module_fixtures_see_a_home_of_the_sessions_own(_isolated_session: Path) -> None:
    home = _isolated_session.resolve()
    assert Path(_SEEN["HOME"]).resolve() == home
    assert _SEEN["D20_NO_LOG"] == "1"
    for key in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        assert Path(_SEEN[key]).resolve().is_relative_to(home)
    for key in ("state_dir", "config_dir", "cache"):
        assert Path(_SEEN[key]).resolve().is_relative_to(home), _SEEN[key]
    if home != _real_home():
        assert not home.is_relative_to(_real_home() / ".local")


def test_each_test_gets_its_own_directories(tmp_path: Path) -> None:
    assert state.state_dir() == tmp_path / "state" / "d20cli"
    assert characters.config_dir() == tmp_path / "config" / "d20cli"
    assert parse_cache.cache_path() == str(tmp_path / "cache" / "d20cli" / "requests.cache")
    assert Path.home() != _real_home()
