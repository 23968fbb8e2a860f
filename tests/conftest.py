"""Shared test set-up: no test reads or writes the user's real home, state, config or
cache, and no colour or system from the developer's environment leaks in.

Two layers: for the whole session, HOME and the XDG directories point into a temporary
directory and the roll log is off (so a module- or session-scoped fixture, which runs
before any function-scoped one, is isolated too); and every test gets its own empty
state, config and cache directories on top of that."""

from __future__ import annotations

import compileall
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# CI (CI=true, as .ci/run is run) gets the same examples on every run, so a red run is
# reproducible and a green one is not luck; a developer's run explores new examples, and
# HYPOTHESIS_PROFILE=long tries 1,000 examples in each property test that does not set its
# own count (a long run, by hand). No profile has a deadline: a test says what happened,
# never how long it took (a busy machine must not fail it).
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.register_profile("long", max_examples=1000, deadline=None)
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
settings.load_profile(_PROFILE)

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """The package byte-compiled once, before any test starts `python -m d20cli`: where
    Python is told not to write bytecode (PYTHONDONTWRITEBYTECODE, as on the machine CI
    runs on), every such process would otherwise compile the modules it imports anew, 80
    to 100 ms a process, over a minute of the suite. (Once, in the process that starts the
    xdist workers; a file already compiled is skipped.)"""
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(ROOT / "d20cli", quiet=1)


_ISOLATED = ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")
# COLUMNS and LINES: pytest-xdist's workers inherit the terminal's size, which a child on
# a pseudo-terminal of another size (pexpect) would then believe
_LEAKY = ("D20_SYSTEM", "D20_BUDGET", "FORCE_COLOR", "NO_COLOR", "COLUMNS", "LINES")


@pytest.fixture(scope="session", autouse=True)
def _isolated_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A home of the session's own, set before any module-scoped fixture runs."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        for name in _ISOLATED:
            patch.setenv(name, str(home / name.lower()))
        patch.setenv("D20_NO_LOG", "1")
        for name in _LEAKY:
            patch.delenv(name, raising=False)
        yield home


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("D20_NO_LOG", "1")
    for name in _LEAKY:
        monkeypatch.delenv(name, raising=False)
