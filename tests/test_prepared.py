"""A batch's repeated line goes straight to its dice (`Context.prepared_line`,
d20cli.rolling.prepared.PreparedLine): what it prints, logs and exits with is exactly what
working the request out again gives. Each batch runs twice in-process with the same run
seed, once with prepared lines and once with `Context.prepared_line` answering None, and
the two must agree line for line."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from state_helpers import logged_columns, run_batch

from d20cli.__main__ import main
from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.stdin import run_lines
from d20cli.errors import ExitStatus
from d20cli.present.output import Output
from d20cli.store.state import db_path

# Lines that take a lane (plain requests) mixed with lines that never do (--repeat,
# --summary, --dice, a fortune system, `odds`, a bad line, a per-line --seed), each
# several times, so later rounds run through the lanes the first made.
ROUND = [
    "check +5 vs 15 adv",
    "roll 4d6kh3",
    "attack +7 vs 15 dmg 1d8+4",
    "save -1 vs 12 dis --exit-status",
    "check +3 vs 12 crit 19 lucky",
    "roll 1d20+5; 2d6+3",
    "roll 3x 1d6",
    "roll 2d6 --odds",
    "check +2 vs 14 -s reglamento",
    "check +4 vs 10 --system mm",
    "attempt adept -s pendagger",
    "check +5 vs 15 --repeat 3",
    "check +5 vs 15 --repeat 50 --summary",
    "check +5 vs 15 --dice 12",
    "roll 2d6 --seed 9",
    "odds check +5 vs 15",
    "roll 1000d1000000 --budget 10",
    "roll 100d6 --work 10",  # refused before a die, naming the request
    "check +5 vs wibble",
    "roll 1d6!",
]


def batch(
    lines: list[str], lanes: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str, int]:
    """The lines as one standard-input run seeded with 7: (status, stdout, stderr, how many
    lanes the plain lines made)."""
    with monkeypatch.context() as patch:
        if not lanes:
            patch.setattr(Context, "prepared_line", lambda self, text, opts: None)
        context = Context(seed=7)
        status, out, err = run_batch(lines, context)
    return status, out, err, len(context.prepared.all())  # (made either way; used only with lanes)


def test_a_lane_prints_logs_and_exits_as_the_full_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = ROUND * 4
    runs = []
    for lanes in (True, False):
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / f"state-{lanes}"))
        monkeypatch.delenv("D20_NO_LOG", raising=False)
        status, stdout, stderr, made = batch(lines, lanes, monkeypatch)
        assert made >= 8
        runs.append((status, stdout.splitlines(), stderr.splitlines(), logged_columns(db_path())))
    fast, full = runs
    assert fast[0] == full[0] == ExitStatus.BAD_INPUT  # the bad lines
    assert fast[1] == full[1]  # the JSON lines
    assert fast[2] == full[2]  # the error messages
    assert fast[3] == full[3]  # the roll log
    answered = [json.loads(line) for line in fast[1]]
    # every roll was logged: each result line with its dice (not the odds, not a tally)
    rolled = [a for a in answered if "dice" in a]
    assert len(fast[3]) == len(rolled) > len(lines) // 2
    assert sum(1 for a in answered if a.get("request") == "check +5 vs 15 adv") == 4
    assert sum(1 for a in answered if "error" in a) == 12  # three bad lines, four rounds


def test_a_lane_keeps_the_per_line_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--seed` on a line restarts the dice for that line alone, each time it is read."""
    monkeypatch.setenv("D20_NO_LOG", "1")
    _, out, _, made = batch(["roll 4d6 --seed 3"] * 3, True, monkeypatch)
    assert made == 1
    first, *others = out.splitlines()
    assert others == [first, first]


def test_a_seal_opened_since_leaves_the_lane(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sealed session opened after a lane was made (`d20 seal` in the same process, as
    the shell runs it): the next line is worked out again, so it is rolled from the
    session's stream and logged in it."""
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    context = Context()
    opts = context.line_options(Options(json=True))
    out = Output(io.StringIO(), io.StringIO(), color=False, flush_lines=False)
    run_lines(["check +5 vs 15"], opts, out, context)
    kept = context.lines["check +5 vs 15"][1]
    assert context.prepared_line("check +5 vs 15", kept) is not None
    assert context.prepared_line("check +5 vs 15", Options(json=True)) is None  # other options
    assert main(["seal"]) == 0
    capsys.readouterr()
    assert context.prepared_line("check +5 vs 15", kept) is None
    run_lines(["check +5 vs 15"], opts, out, context)
    context.close()
    with sqlite3.connect(db_path()) as conn:
        rows = conn.execute("SELECT session, position FROM rolls ORDER BY id").fetchall()
    assert rows[0] == (None, None)  # before the seal
    assert rows[1][0] is not None and rows[1][1] is not None  # rolled in the session
