"""What several test files need: a characters file written for a test (in the test's own
config directory, see conftest.py), and `d20` (or one line of it) run in-process with its
output."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest

from d20cli.__main__ import main
from d20cli.app.options import Options, split_line
from d20cli.app.run import run as run_tokens
from d20cli.errors import ExitStatus
from d20cli.present.output import Output
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


def run_line(line: str) -> tuple[int, str, str, float]:
    """One line as standard input or the shell reads it (`odds ...` too): (exit status,
    standard output, standard error, seconds it took)."""
    out, err = io.StringIO(), io.StringIO()
    output = Output(out, err, color=False)
    tokens = split_line(line)
    start = time.perf_counter()
    status = int(run_tokens(tokens, Options(), output).status)  # (`odds ...` too)
    return status, out.getvalue(), err.getvalue(), time.perf_counter() - start


def log(*args: str) -> Any:
    """`d20 log ARGS` through typer's CliRunner: its result (never a traceback)."""
    from typer.testing import CliRunner

    from d20cli.app.commands.log import app as log_app

    result = CliRunner().invoke(log_app, list(args))
    assert "Traceback" not in result.output
    return result


def log_in_terminal(env: dict[str, str], rows: int, columns: int, *args: str) -> str:
    """`d20 log ARGS` in a real terminal of this size (pexpect): what it showed, which
    must end with exit status 0 (the test is skipped without pexpect)."""
    import sys

    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d20cli", "log", *args],
        env=env,
        cwd=str(Path(__file__).resolve().parent.parent),
        dimensions=(rows, columns),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    shown: str = child.before.replace("\r", "")
    return shown


def run_odds(tokens: list[str], base: Options, out: Output) -> ExitStatus:
    """`odds TOKENS...` through the one request path (d20cli.app.run.run): its status."""
    return run_tokens(["odds", *tokens], base, out).status
