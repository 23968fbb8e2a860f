"""The state database as tests of the roll log open it: `opened()` gives the database at
its usual place (the test's own, see conftest.py), opened once per test; the test file's
fixture calls `close_opened()` when the test ends."""

from __future__ import annotations

import io
import multiprocessing
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.stdin import run_lines
from d20cli.present.output import Output
from d20cli.store.state import State

ROOT = Path(__file__).resolve().parent.parent

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


#: The shell's prompt on a terminal (TERM=xterm, NO_COLOR), as pexpect sees it.
PROMPT = re.escape("d20 levelup>") + r"[^\n]*?\x1b\[\?25h"
ROLL = re.compile(r"^\s*(?:\x1b\[[0-9;?]*[A-Za-z])*\s*([0-9]{1,2})\s*$")


def totals(text: str) -> int:
    """How many roll totals (a `-q` line each) a piece of terminal output shows."""
    return sum(1 for line in text.replace("\r", "\n").split("\n") if ROLL.match(line))


def d20_waiting(busy: float, note: float = 0.1) -> list[str]:
    """The command line of `d20` (add its arguments) whose state database waits `busy`
    seconds for another process's lock, saying so after `note` seconds."""
    code = (
        "import d20cli.store.database as d\n"
        f"d.BUSY_TIMEOUT, d.NOTE_AFTER = {busy!r}, {note!r}\n"
        "from d20cli.__main__ import entry\n"
        "entry()\n"
    )
    return [sys.executable, "-c", code]


HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
conn.execute("BEGIN EXCLUSIVE")
print("holding", flush=True)
time.sleep(600)
"""


@contextmanager
def held(path: Path) -> Iterator[None]:
    """The database at `path` locked (BEGIN EXCLUSIVE) by another process for the block."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        yield
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def spawn_shell(state: Path, command: list[str] | None = None, timeout: float = 60) -> Any:
    """`d20 shell` on a terminal (pexpect), its state in `state`, the roll log on;
    `command`: the program to run instead of `python -m d20cli` (`d20_waiting`)."""
    import pexpect

    env = {k: v for k, v in os.environ.items() if k not in ("D20_NO_LOG", "D20_SYSTEM")}
    env.update(
        XDG_STATE_HOME=str(state),
        TERM="xterm",
        NO_COLOR="1",
        PROMPT_TOOLKIT_NO_CPR="1",
        PYTHONPATH=str(ROOT),
    )
    program, *args = command or [sys.executable, "-m", "d20cli"]
    return pexpect.spawn(
        program,
        [*args, "shell"],
        env=env,
        cwd=str(ROOT),
        dimensions=(30, 140),
        encoding="utf-8",
        timeout=timeout,
    )


LONG_ROLL = "roll 1d20 --repeat 1000000 -q"


def start_long_roll(child: Any) -> str:
    """Start a long roll in the shell and read a few screens of it: what was shown."""
    child.expect(PROMPT)
    child.sendline(LONG_ROLL)
    child.expect(r"\n\s*[0-9]{1,2}\s*\r?\n")  # it is rolling and showing
    seen = child.before + child.after
    for _ in range(3):  # a few screens more
        child.expect(r"\n\s*[0-9]{1,2}\s*\r?\n")
        seen += child.before + child.after
    return str(seen)


def run_forked(target: Callable[[str], object], args: tuple[str, ...]) -> None:
    """`target(arg)` in a forked process for each arg, all at once; each must end with 0."""
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=target, args=(arg,)) for arg in args]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
