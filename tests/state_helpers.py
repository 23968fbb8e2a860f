"""The state database as tests of the roll log open it: `opened()` gives the database at
its usual place (the test's own, see conftest.py), opened once per test; the test file's
fixture calls `close_opened()` when the test ends."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.stdin import run_lines
from d20cli.present.output import Output
from d20cli.store.state import State

#: The state databases a test opened (`opened`), closed when it ends.
OPENED: list[State] = []


def opened() -> State:
    """The state database at its usual place, opened once per test."""
    if not OPENED:
        OPENED.append(State.open())
    return OPENED[0]


def close_opened() -> None:
    for store in OPENED:
        store.close()
    OPENED.clear()


@pytest.fixture
def logging_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The roll log on for the test (the isolation turns it off), and what it opened
    closed at its end. A test file makes it autouse with `pytest.mark.usefixtures`."""
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    yield
    close_opened()


def output() -> tuple[Output, io.StringIO]:
    """An Output that writes into memory, and its standard error."""
    err = io.StringIO()
    return Output(io.StringIO(), err, color=False), err


def logged_rows(path: Path) -> int:
    """How many rows the roll log at `path` holds (0 when there is no file or no table
    yet), read as another process would."""
    if not path.exists():
        return 0
    conn = sqlite3.connect(path, timeout=30)
    try:
        return int(conn.execute("SELECT count(*) FROM rolls").fetchone()[0])
    except sqlite3.OperationalError:  # no table yet
        return 0
    finally:
        conn.close()


def logged_columns(path: Path) -> list[tuple[object, ...]]:
    """The roll log's rows at `path`, oldest first, without their id and time."""
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT character, system, verb, request, dice, total, outcome, source, house"
            " FROM rolls ORDER BY id"
        ).fetchall()


def run_batch(lines: list[str], context: Context) -> tuple[int, str, str]:
    """The lines as one standard-input run with --json, in `context` (closed at the end):
    (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    output = Output(out, err, color=False, flush_lines=False)
    try:
        status = run_lines(lines, context.line_options(Options(json=True)), output, context)
    finally:
        output.flush()
        context.close()
    return status, out.getvalue(), err.getvalue()
