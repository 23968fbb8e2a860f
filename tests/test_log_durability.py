"""A roll that was shown is a roll that was logged (issue 21, item 1): group commit.

In-process, a stdout that counts the roll log's rows at every write checks the order
itself (the rows a piece of output shows are committed before the piece is written) on
standard input, the command line and the shell; on the real program, a batch on standard
input killed with SIGKILL at random moments never shows more lines than the log holds,
and a fortune die gained in a shown result is held afterwards.
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from state_helpers import logged_rows

from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.run import run as run_tokens
from d20cli.app.shell import Session
from d20cli.app.stdin import run_lines
from d20cli.present.output import Output
from d20cli.store.state import db_path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120


_rows = logged_rows


class Checking(io.StringIO):
    """A stdout that, at every write, checks that the log holds a row per line shown."""

    def __init__(self, headers: int = 0) -> None:
        super().__init__()
        self.headers = headers  # lines that show no roll (a request's header)
        self.lines = 0
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        self.lines += text.count("\n")
        held = _rows(db_path())
        assert held >= self.lines - self.headers, f"{self.lines} lines shown, {held} rows logged"
        return super().write(text)


@pytest.fixture
def logging_on(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    return


@pytest.mark.usefixtures("logging_on")
def test_a_batch_commits_before_each_piece_of_output() -> None:
    stdout = Checking()
    out = Output(stdout, io.StringIO(), color=False, flush_lines=False)
    context = Context()
    lines = ["roll 1d6 -q\n", "check +5 vs 15 -q\n"] * 1500  # several HOLD_LINES pieces
    try:
        run_lines(iter(lines), Options(), out, context)
    finally:
        out.flush()
        context.close()
    assert stdout.lines == 3000 and stdout.writes >= 3
    assert _rows(db_path()) == 3000


@pytest.mark.usefixtures("logging_on")
@pytest.mark.parametrize("extra", [[], ["--json"], ["-q"]])
def test_the_command_line_commits_before_it_prints(extra: list[str]) -> None:
    stdout = Checking(headers=0 if extra else 2)
    out = Output(stdout, io.StringIO(), color=False)
    run_tokens(["roll", "1d20", "--repeat", "600", *extra], Options(), out)
    run_tokens(["check", "+5", "vs", "15", *extra], Options(), out)
    assert _rows(db_path()) == 601
    assert stdout.lines >= 601


@pytest.mark.usefixtures("logging_on")
def test_the_shell_commits_before_it_prints() -> None:
    stdout = Checking(headers=4)
    session = Session(Options(), Output(stdout, io.StringIO(), color=False))
    for line in ("roll 1d6", "check +2 vs 10", "again", "roll 2d6 --repeat 3"):
        session.handle(line)
    session.context.close()
    assert _rows(db_path()) == 6


@pytest.mark.usefixtures("logging_on")
def test_the_last_roll_is_saved_before_it_is_shown() -> None:
    """A pendagger attempt becomes the last roll (what `fortune spend` rerolls) before the
    attempt is shown, also in a batch that defers it."""
    seen: list[int] = []

    class LastRollChecking(io.StringIO):
        def write(self, text: str) -> int:
            if text.strip():
                conn = sqlite3.connect(db_path())
                seen.append(conn.execute("SELECT count(*) FROM last_roll").fetchone()[0])
                conn.close()
            return super().write(text)

    out = Output(LastRollChecking(), io.StringIO(), color=False, flush_lines=False)
    context = Context()
    try:
        run_lines(iter(["attempt adept -s pd -q\n"] * 3), Options(), out, context)
    finally:
        out.flush()
        context.close()
    assert seen and all(n == 1 for n in seen)


def _env(state: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "D20_NO_LOG"}
    return {**env, "XDG_STATE_HOME": str(state), "PYTHONUNBUFFERED": "0"}


def _kill_after(args: list[str], batch: Path, lines: int, state: Path) -> bytes:
    """Run d20 on the batch, kill -9 it once `lines` lines came out; everything it wrote."""
    with batch.open("rb") as stdin:
        proc = subprocess.Popen(
            [sys.executable, "-m", "d20cli", *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            env=_env(state),
        )
    assert proc.stdout is not None
    shown = b""
    while shown.count(b"\n") < lines:
        chunk = os.read(proc.stdout.fileno(), 1 << 16)
        if not chunk:
            break
        shown += chunk
    proc.send_signal(signal.SIGKILL)
    shown += proc.stdout.read()  # what it wrote before it died
    proc.wait(timeout=TIMEOUT)
    proc.stdout.close()
    return shown


def test_kill_9_a_batch_never_shows_more_than_it_logged(tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    batch.write_bytes(b"roll 1d20\ncheck +5 vs 15 adv\nattack +7 vs 15 dmg 1d8+4\n" * 60_000)
    rng = random.Random()
    seed = rng.randrange(1 << 32)
    rng.seed(seed)
    for kill in range(4):
        target = rng.choice((1, rng.randrange(2, 3000), rng.randrange(3000, 60_000)))
        state = tmp_path / f"state{kill}"
        shown = _kill_after(["-q"], batch, target, state).count(b"\n")
        logged = _rows(state / "d20cli" / "state.db")
        assert logged >= shown, f"seed {seed}, kill {kill}: {shown} shown, {logged} logged"
        assert shown >= min(target, 1)


def test_kill_9_keeps_every_fortune_die_a_shown_result_gained(tmp_path: Path) -> None:
    """Natural 20s (--dice 20) on pendagger attempts that say `fortune` each gain a die (up
    to 4 with the boon); the count the last shown result reports is held after the kill,
    and so is the last roll."""
    batch = tmp_path / "batch"
    pair = b"attempt adept fortune --dice 20 --boon -s pd --json\nroll 1d6 --json\n"
    batch.write_bytes(pair * 20_000)
    for kill, target in enumerate((1, 3, 5, 7, 2000)):
        state = tmp_path / f"state{kill}"
        shown = _kill_after([], batch, target, state)
        results = [json.loads(line) for line in shown.splitlines() if line.endswith(b"}")]
        gained = [r["fortune"] for r in results if "fortune" in r]
        assert gained, shown[:200]
        conn = sqlite3.connect(state / "d20cli" / "state.db")
        held = conn.execute("SELECT count FROM fortune WHERE holder = 'player'").fetchone()
        last = conn.execute("SELECT count(*) FROM last_roll").fetchone()[0]
        conn.close()
        assert held is not None and held[0] >= gained[-1]
        assert last == 1
