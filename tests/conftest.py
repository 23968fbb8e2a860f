"""Shared test set-up: every test gets its own empty state and config directories, and no
colour or system from the developer's environment leaks in."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("D20_NO_LOG", "1")
    for name in ("D20_SYSTEM", "D20_BUDGET", "FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
