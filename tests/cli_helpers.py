"""What several test files need: a characters file written for a test (in the test's own
config directory, see conftest.py), and `d20` run in-process with its output."""

from __future__ import annotations

from pathlib import Path

import pytest

from d20cli.__main__ import main
from d20cli.store import characters


def write_sheet(text: str) -> Path:
    """The characters file holding `text` (the test's own XDG_CONFIG_HOME)."""
    path = characters.characters_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def d20(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`d20 ARGS` in-process: (exit status, standard output, standard error)."""
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err
