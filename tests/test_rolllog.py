"""The roll log: rows as written, batching, warnings, the `d20 log` sub-app (table, stats,
exports), two writers at once, a killed writer, a corrupt database, the schema migration."""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from typing import Any

import pytest
from state_helpers import close_opened, logging_on, opened, output  # noqa: F401 (a fixture)
from typer.testing import CliRunner

from d20cli.app.commands import log as log_cli
from d20cli.app.commands.log import app as log_app
from d20cli.app.context import open_log
from d20cli.app.options import Options
from d20cli.app.run import results_of
from d20cli.errors import NotSaved
from d20cli.present.output import Output
from d20cli.results import Result
from d20cli.store import rolllog, state
from d20cli.store.log_stats import Fairness, chi_square_p, fairness, regularized_gamma_q
from d20cli.store.rolllog import RollLog, Rolls
from d20cli.store.schema import MIGRATIONS
from d20cli.store.sealing import EXPORT_FIELDS
from d20cli.store.state import SCHEMA_VERSION, State

runner = CliRunner()

pytestmark = pytest.mark.usefixtures("logging_on")


def roll(log: RollLog, text: str, **opts: Any) -> None:
    for result in results_of(text, Options(**opts)):
        log.add(result)


def test_open_log_is_off_with_no_log_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    out, _ = output()
    assert open_log(Options(no_log=True), out) is None
    monkeypatch.setenv("D20_NO_LOG", "1")
    assert open_log(Options(), out) is None
    monkeypatch.setenv("D20_NO_LOG", "")
    log = open_log(Options(as_="aria", seed=3), out)
    assert log is not None and log.character == "aria" and log.source == "seed"
    assert not state.db_path().exists()  # nothing opened until something is written


def test_rows_hold_what_was_rolled() -> None:
    out, err = output()
    log = open_log(Options(as_="aria", dice=(18, 4, 6)), out)
    assert log is not None
    roll(log, "attack longsword +5 dmg 1d8+3 vs 15 adv", dice=(18, 4, 6))
    log.close()
    (row,) = opened().rolls.recent()
    assert (row.character, row.system, row.verb, row.total, row.outcome, row.source) == (
        "aria",
        "levelup",
        "attack",
        23,
        "success",
        "dice",
    )
    assert row.request == "attack longsword +5 dmg 1d8+3 vs 15 adv"
    assert [(d["sides"], d["face"], d["kept"], d["role"]) for d in row.dice] == [
        (20, 18, True, "d20"),
        (20, 4, False, "d20"),
        (8, 6, True, "damage"),
    ]
    assert row.at.endswith("+00:00") and "T" in row.at
    assert err.getvalue() == ""


@pytest.mark.parametrize(
    ("system", "text"),
    [
        ("levelup", "check +5 vs 15 adv expertise=d6"),
        ("levelup", "attack +7 vs 15 dmg 2d6+1d4+3"),
        ("levelup", "group +3, +4, -1 vs 12"),
        ("levelup", "roll 4d6kh3 + 1d8 [fire]"),
        ("reglamento", "contest +5 vs +3"),
        ("reglamento", "attack +5 vs 14 dmg 1d8+2"),
        ("mm", "opposed +5 vs +3"),
        ("pendagger", "scores 4"),
        ("pendagger", "attempt adept"),
    ],
)
def test_logged_dice_are_every_die_of_the_result(system: str, text: str) -> None:
    def every_die(result: Result) -> list[dict[str, Any]]:
        dice = list(result.dice)
        if not dice:
            for part in (*(result.members or ()), *(result.sides or ())):
                dice += [*part.dice, *(part.damage.dice if part.damage else ())]
        dice += result.damage.dice if result.damage else ()
        return [d.to_json() for d in dice]

    for seed in range(30):
        for result in results_of(text, Options(system=system, seed=seed)):
            assert json.loads(rolllog.dice_text(result)) == every_die(result)


def test_a_log_writes_each_time_as_stamp_does() -> None:
    """A log writes the date and time of day once a second (`Stamps`): the same text."""
    stamps = rolllog.Stamps()
    times = [0, 1, 999, 1000, 1001, 59_999, 60_000, 1_700_000_000_999, 1_700_000_001_000]
    times += [1_700_000_000_000 + 7 * k for k in range(400)]  # (a batch: one second to the next)
    for ms in times:
        assert stamps.of(ms) == rolllog.stamp(ms)


def test_times_are_iso_utc_to_the_millisecond() -> None:
    assert rolllog.stamp(0) == "1970-01-01T00:00:00.000+00:00"
    assert rolllog.stamp(1_700_000_000_999) == "2023-11-14T22:13:20.999+00:00"
    out, _ = output()
    log = RollLog(None, "random", out)
    before = time.time_ns() // 1_000_000
    log.add(Result(request="roll 1d6", system="levelup", verb="roll", total=3))
    after = time.time_ns() // 1_000_000
    log.flush()
    (row,) = log._table().recent(1)
    assert rolllog.stamp(before) <= row.at <= rolllog.stamp(after)
    log.close()


def test_a_long_repeat_writes_in_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    add_rolls = Rolls.add

    def counting(self: Rolls, rows: Any, wait: bool = True) -> None:
        calls.append(len(rows))
        add_rolls(self, rows, wait)

    monkeypatch.setattr(Rolls, "add", counting)
    out, _ = output()
    log = open_log(Options(), out)
    assert log is not None
    roll(log, "roll 1d20", repeat=25_000, seed=1)
    log.close()
    assert calls == [10_000, 10_000, 5_000]
    assert opened().rolls.count() == 25_000


def test_rolls_of_text_that_is_not_utf8_are_logged() -> None:
    bad = "caf\udce9"  # a command line's byte that was not UTF-8
    out, err = output()
    log = RollLog(bad, "random", out, store=opened().rolls)
    roll(log, f"roll 1d1 [{bad}] # {bad}")
    log.close()
    (row,) = opened().rolls.recent()
    assert row.character == "caf\ufffd" and row.request == "roll 1d1 [caf\ufffd] # caf\ufffd"
    assert row.dice[0]["label"] == "caf\ufffd" and err.getvalue() == ""


class Broken:
    def __init__(self) -> None:
        self.waits: list[bool] = []

    def add(self, rows: Any, wait: bool = True) -> None:
        self.waits.append(wait)
        raise sqlite3.OperationalError("disk I/O error")


class Interrupted:
    """A table whose first write is interrupted (Ctrl-C), and whose next ones succeed."""

    def __init__(self) -> None:
        self.waits: list[bool] = []
        self.rows: list[Any] = []

    def add(self, rows: Any, wait: bool = True) -> None:
        self.waits.append(wait)
        if len(self.waits) == 1:
            raise KeyboardInterrupt
        self.rows += rows


@pytest.mark.parametrize("n", [1, 99, 100, 250])
def test_rows_are_written_in_order_whatever_their_number(n: int) -> None:
    store = opened()
    at = "2024-01-01T00:00:00.000+00:00"
    store.rolls.add(
        [(at, None, "levelup", "roll", f"roll {i}", "[]", i, None, "seed") for i in range(n)]
    )
    rows = store.rolls.recent(limit=1000)
    assert [(r.request, r.total, r.source) for r in rows] == [
        (f"roll {i}", i, "seed") for i in range(n)
    ]


def test_text_that_is_not_utf8_and_huge_totals_are_stored_safely() -> None:
    store = opened()
    bad = "caf\udce9"  # a command line's byte that was not UTF-8
    row = ("2024-01-01T00:00:00.000+00:00", bad, "levelup", "roll", f"roll 1d1 # {bad}")
    store.rolls.add([(*row, f'[{{"label": "{bad}"}}]', 2**70, None, "random")])
    (logged,) = store.rolls.recent()
    assert logged.character == "caf\ufffd" and logged.request == "roll 1d1 # caf\ufffd"
    assert logged.dice == [{"label": "caf\ufffd"}] and logged.total is None


def test_a_failing_write_keeps_its_rows_and_stops_the_rolls() -> None:
    """A write that fails puts its rows back and raises NotSaved, so the output that would
    show them is never written (tests/test_log_interrupt_matrix.py); the rolls do not go on
    unlogged. `close` tries once more without waiting, and drops what it cannot write."""
    out, err = output()
    store = Broken()
    log = RollLog(None, "random", out, store=store, flush_rows=2)  # type: ignore[arg-type]
    with pytest.raises(NotSaved) as failed:
        roll(log, "roll 1d20", repeat=7)
    assert str(failed.value) == (
        "cannot write the roll log (disk I/O error): the last 2 results were not shown; "
        "try again, or roll with --no-log"
    )
    assert failed.value.count == 2 and log.pending == 2 and log.troubled
    log.close()
    assert store.waits == [True, False] and log.pending == 0 and err.getvalue() == ""


def test_an_interrupted_write_puts_its_rows_back() -> None:
    """Ctrl-C while a write waits (for another process's lock) leaves its rows in the
    buffer; the close writes them, without waiting for the lock again."""
    out, _ = output()
    store = Interrupted()
    log = RollLog(None, "random", out, store=store, flush_rows=3)  # type: ignore[arg-type]
    with pytest.raises(KeyboardInterrupt):
        roll(log, "roll 1d20", repeat=3)
    assert log.pending == 3 and not store.rows
    log.close()
    assert len(store.rows) == 3 and store.waits == [True, False] and log.pending == 0


# --- the fairness test ----------------------------------------------------------------------


def test_regularized_gamma_against_known_values() -> None:
    # chi-square critical values with 19 degrees of freedom
    assert chi_square_p(30.1435, 19) == pytest.approx(0.05, abs=1e-5)
    assert chi_square_p(36.1909, 19) == pytest.approx(0.01, abs=1e-5)
    assert chi_square_p(43.8202, 19) == pytest.approx(0.001, abs=1e-6)
    assert chi_square_p(18.3376, 19) == pytest.approx(0.5, abs=1e-4)
    assert regularized_gamma_q(1, 2.5) == pytest.approx(2.718281828**-2.5)  # Q(1, x) = e^-x
    assert chi_square_p(0, 19) == 1.0
    assert chi_square_p(1000, 19) == pytest.approx(0, abs=1e-100)


def test_verdicts() -> None:
    assert Fairness(None, (50,) * 20).verdict == "consistent with a fair die"
    assert Fairness(None, (50,) * 20).p_value == pytest.approx(1.0)
    skew = (30,) + (50,) * 18 + (70,)  # chi-square 16: fine
    assert Fairness(None, skew).chi_square == pytest.approx(16.0)
    assert Fairness(None, skew).verdict == "consistent with a fair die"
    loaded = (20,) + (50,) * 18 + (80,)  # chi-square 36: p ~ 0.01
    assert "somewhat unusual" in Fairness(None, loaded).verdict
    assert "unlikely" in Fairness(None, (10,) + (50,) * 18 + (90,)).verdict  # 64
    assert "too few" in Fairness(None, (1,) * 20).verdict


def _rows(character: str | None, faces: list[int], source: str = "random") -> list[Any]:
    def dice(face: int) -> str:
        return json.dumps([{"sides": 20, "face": face, "kept": True, "role": "d20"}])

    at = "2024-01-01T00:00:00.000+00:00"
    return [(at, character, "levelup", "check", "check +1", dice(f), f, "x", source) for f in faces]


def test_stats_count_the_d20s_per_character() -> None:
    store = opened()
    store.rolls.add(_rows("aria", [f for f in range(1, 21) for _ in range(10)]))
    store.rolls.add(_rows("bruno", [20] * 150 + [1] * 50))  # a loaded die
    store.rolls.add(_rows("bruno", [1] * 500, source="dice"))  # forced faces: not counted
    clamped = json.dumps([{"sides": 20, "face": 5, "kept": True, "role": "roll", "flags": ["min"]}])
    store.rolls.add([("t", None, "levelup", "roll", "roll 1d20mi5", clamped, 5, None, "random")])
    store.rolls.add([("t", None, "levelup", "roll", "roll 1d6", "[]", 3, None, "random")])
    found = {f.character: f for f in fairness(store.rolls)}
    assert set(found) == {"aria", "bruno"}
    assert found["aria"].counts == (10,) * 20 and found["aria"].p_value == pytest.approx(1)
    assert found["bruno"].counts[0] == 50 and found["bruno"].counts[19] == 150
    assert "unlikely" in found["bruno"].verdict

    r = runner.invoke(log_app, ["--stats", "--no-color", "--details"])
    assert r.exit_code == 0, r.output
    assert "aria: 200 d20s, chi-square 0.00 (19 df), p = 1.0000" in r.stdout
    assert "consistent with a fair die" in r.stdout and "unlikely to be a fair die" in r.stdout
    assert "█" * 30 in r.stdout
    r = runner.invoke(log_app, ["--stats", "--json", "--character", "bruno"])
    (only,) = json.loads(r.stdout)
    assert only["character"] == "bruno" and only["rolls"] == 200 and only["counts"]["20"] == 150


def test_stats_in_python_match_sql(monkeypatch: pytest.MonkeyPatch) -> None:
    store = opened()
    store.rolls.add(_rows("aria", [3, 3, 20]) + _rows(None, [7]))
    sql = fairness(store.rolls)

    class NoJson:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def execute(self, query: str, args: Any = ()) -> Any:
            if "json_each" in query:
                raise sqlite3.OperationalError("no such table: json_each")
            return self.conn.execute(query, args)

    monkeypatch.setattr(store.db, "conn", NoJson(store.db.conn))
    assert fairness(store.rolls) == sql
    monkeypatch.undo()
    assert [f.character for f in sql] == [None, "aria"]


# --- d20 log ----------------------------------------------------------------------------------


def _logged() -> None:
    out, _ = output()
    for who, text, seed in (("aria", "check +5 vs 15", 1), (None, "roll 2d6[fire]+1", 2)):
        log = open_log(Options(as_=who, seed=seed), out)
        assert log is not None
        roll(log, text, seed=seed)
        log.close()


def test_log_table_and_filters() -> None:
    assert "no rolls logged yet" in runner.invoke(log_app, []).stdout
    _logged()
    r = runner.invoke(log_app, ["--no-color"])
    assert r.exit_code == 0
    assert "check +5 vs 15" in r.stdout and "roll 2d6[fire]+1" in r.stdout
    r = runner.invoke(log_app, ["--character", "aria", "--json"])
    (row,) = json.loads(r.stdout)
    assert row["character"] == "aria" and row["request"] == "check +5 vs 15"
    (last,) = json.loads(runner.invoke(log_app, ["--limit", "1", "--json"]).stdout)
    assert last["request"] == "roll 2d6[fire]+1"


def test_export_json_and_csv() -> None:
    _logged()
    r = runner.invoke(log_app, ["--export", "json"])
    data = json.loads(r.stdout)
    assert [d["request"] for d in data] == ["check +5 vs 15", "roll 2d6[fire]+1"]
    assert data[1]["character"] is None and data[1]["dice"][0]["label"] == "fire"
    # every column, then what a sealed session's rolls carry and the hash chain (issue 16)
    assert list(data[0]) == [*rolllog.COLUMNS, *EXPORT_FIELDS]
    r = runner.invoke(log_app, ["--export", "csv"])
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [t["request"] for t in table] == ["check +5 vs 15", "roll 2d6[fire]+1"]
    assert json.loads(table[1]["dice"]) == data[1]["dice"] and table[1]["character"] == ""
    assert int(table[0]["total"]) == data[0]["total"]
    assert json.loads(runner.invoke(log_app, ["--export", "json", "-c", "nobody"]).stdout) == []


def test_csv_export_neutralises_formulas_in_text_cells_only() -> None:
    """A cell that starts with =, +, -, @, a tab or a carriage return is a formula to a
    spreadsheet (OWASP: CSV injection): a text cell gets a ' in front; the whole numbers
    of `id` and `total` stay as they are, a negative total too."""
    out, _ = output()
    names = ['=HYPERLINK("http://example.com","x")', "+cmd", "-2+3", "@SUM(A1)", "\tx", "aria"]
    for name in names:
        log = open_log(Options(as_=name, seed=1), out)
        assert log is not None
        roll(log, "roll 1d1-5", seed=1)
        log.close()
    r = runner.invoke(log_app, ["--export", "csv"])
    assert r.exit_code == 0, r.stderr
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [t["character"] for t in table] == ["'" + n for n in names[:-1]] + ["aria"]
    assert {t["total"] for t in table} == {"-4"}
    assert [int(t["id"]) for t in table] == list(range(1, len(names) + 1))
    assert all(t["request"] == "roll 1d1-5" and t["dice"].startswith("[") for t in table)
    # JSON is no spreadsheet: it keeps the text as it is
    data = json.loads(runner.invoke(log_app, ["--export", "json"]).stdout)
    assert [d["character"] for d in data] == names


def test_csv_cells() -> None:
    assert rolllog.csv_cell("total", -1) == -1
    assert rolllog.csv_cell("id", 7) == 7
    assert rolllog.csv_cell("total", None) == ""
    assert rolllog.csv_cell("request", "-1") == "'-1"  # text, whatever it looks like
    assert rolllog.csv_cell("outcome", "success") == "success"
    assert rolllog.csv_cell("character", "\rx") == "'\rx"


def test_log_errors_and_clear(monkeypatch: pytest.MonkeyPatch) -> None:
    r = runner.invoke(log_app, ["--export", "xml"])
    assert (
        r.exit_code == 2 and r.stderr.strip() == "d20: error: --export takes json or csv, not 'xml'"
    )
    _logged()
    monkeypatch.setattr(log_cli, "interactive", lambda: True)  # a terminal: it asks
    r = runner.invoke(log_app, ["--clear", "-c", "aria"], input="n\n")
    assert opened().rolls.count() == 2
    r = runner.invoke(log_app, ["--clear", "-c", "aria", "--yes"])
    assert "deleted 1 roll" in r.stdout and opened().rolls.count() == 1
    runner.invoke(log_app, ["--clear"], input="y\n")
    assert opened().rolls.count() == 0


# --- robustness ---------------------------------------------------------------------------------


def _writer(n: int) -> None:
    out = Output(io.StringIO(), sys.stderr, color=False)
    log = RollLog(f"p{os.getpid()}", "random", out, flush_rows=50)
    for result in results_of("roll 1d20", Options(repeat=n)):
        log.add(result)
    log.close()
    close_opened()


def test_two_processes_writing_at_once_lose_no_row() -> None:
    ctx = multiprocessing.get_context("spawn")  # each opens the database itself
    procs = [ctx.Process(target=_writer, args=(1000,)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    store = opened()
    assert store.rolls.count() == 2000
    per = store.db.conn.execute("SELECT count(*) FROM rolls GROUP BY character").fetchall()
    assert sorted(n for (n,) in per) == [1000, 1000]


KILLED_WRITER = textwrap.dedent(
    """
    import io, sys
    from d20cli.app.options import Options
    from d20cli.present.output import Output
    from d20cli.store.rolllog import RollLog
    from d20cli.app.run import results_of
    log = RollLog(None, "random", Output(io.StringIO(), sys.stderr, color=False), flush_rows=100)
    print("ready", flush=True)
    for result in results_of("roll 1d20", Options(repeat=1_000_000)):
        log.add(result)
    """
)


def test_a_killed_writer_leaves_a_sound_database() -> None:
    env = {**os.environ, "D20_NO_LOG": ""}
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER], env=env, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    path = state.db_path()
    deadline = time.monotonic() + 120  # a wait for the writer, never a time it must keep
    written = 0
    while written < 3000 and time.monotonic() < deadline:
        time.sleep(0.05)
        if path.exists():
            with sqlite3.connect(path, timeout=10) as conn:
                try:
                    written = conn.execute("SELECT count(*) FROM rolls").fetchone()[0]
                except sqlite3.OperationalError:
                    written = 0
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL and written >= 3000
    out, err = output()
    store = State.open(path, out.warn)
    assert store.db.persistent and err.getvalue() == ""
    assert store.db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    n = store.rolls.count()
    assert n >= written and n % 100 == 0  # whole transactions only
    store.rolls.add(_rows(None, [1]))  # and it takes new rows
    assert store.rolls.count() == n + 1
    store.close()


def test_a_corrupt_database_is_reported_kept_aside_and_replaced() -> None:
    path = state.db_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    out, err = output()
    log = open_log(Options(), out)
    assert log is not None
    roll(log, "roll 1d20", seed=5)
    log.close()
    assert "could not be read" in err.getvalue() and ".corrupt-" in err.getvalue()
    (aside,) = path.parent.glob("state.db.corrupt-*")
    assert aside.read_bytes() == b"this is not a database" * 100
    assert opened().rolls.count() == 1


def test_a_version_1_database_gains_the_log() -> None:
    path = state.db_path()
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0])
    conn.execute("INSERT INTO fortune (holder, count) VALUES ('player', 2)")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    store = State.open(path)
    assert store.db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert store.fortune.held("player") == 2 and store.rolls.count() == 0
    store.close()


def test_a_version_2_database_keeps_its_rolls_and_finds_them_by_character() -> None:
    path = state.db_path()
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:2]:
        conn.executescript(script)
    conn.executemany(
        "INSERT INTO rolls (at, character, system, verb, request, dice, total, outcome, source) "
        "VALUES (?, ?, 'levelup', 'roll', 'roll 1d20', '[]', ?, NULL, 'random')",
        [("2024-01-01T00:00:00.000+00:00", who, n) for n, who in enumerate(["aria", None, "bo"])],
    )
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    store = State.open(path)
    assert store.db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert store.rolls.count() == 3
    assert [r.total for r in store.rolls.recent(character="aria")] == [0]
    plan = store.db.conn.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM rolls WHERE character = ? ORDER BY id", ("bo",)
    ).fetchall()
    assert "rolls_by_character" in str(plan)
    store.close()


def test_a_label_outside_the_bmp_is_logged_as_typed() -> None:
    """The dice column is JSON in ASCII: a character outside the BMP is a pair of `\\u`
    escapes, which the log keeps (only a lone surrogate becomes U+FFFD)."""
    out, err = output()
    log = RollLog(None, "random", out, store=opened().rolls)
    roll(log, "roll 1d1 [\U0001f600 café]")
    log.close()
    (row,) = opened().rolls.recent()
    assert row.dice[0]["label"] == "\U0001f600 café" and err.getvalue() == ""


def test_nulls_and_the_text_zero_are_stored_as_they_are() -> None:
    """A NULL of a text column is bound as the integer 0 (`NULLIF(?, 0)`, see
    rolllog.NULL_TEXT): a character, outcome, house or replay of the text "0" stays "0",
    and a missing one reads back None, in plain rows and in full ones."""
    store = opened()
    at = "2024-01-01T00:00:00.000+00:00"
    store.rolls.add(
        [
            (at, None, "levelup", "roll", "roll 1", "[]", 1, None, "seed"),
            (at, "0", "levelup", "check", "check 2", "[]", 0, "0", "seed"),
            (at, None, "levelup", "roll", "roll 3", "[]", 3, None, "seed", None, 4, 5, None),
            (at, "0", "levelup", "roll", "roll 4", "[]", 4, "0", "seed", "0", 6, 7, "0"),
            (at, None, "levelup", "roll", "roll 5", "[]", 5, None, "seed", '{"crit": 19}'),
        ]
    )
    with sqlite3.connect(state.db_path()) as conn:
        rows = conn.execute(
            "SELECT character, total, outcome, house, session, position, replay FROM rolls"
            " ORDER BY id"
        ).fetchall()
    assert rows == [
        (None, 1, None, None, None, None, None),
        ("0", 0, "0", None, None, None, None),
        (None, 3, None, None, 4, 5, None),
        ("0", 4, "0", "0", 6, 7, "0"),
        (None, 5, None, '{"crit": 19}', None, None, None),
    ]


def test_a_result_logged_again_makes_the_same_row() -> None:
    """A batch's dice memo hands out the same Result for the same faces: its row's columns
    are made once (`Result.derived`), and every row is what a new result would make."""
    out, _ = output()
    log = RollLog(None, "random", out, store=opened().rolls)
    same = next(iter(results_of("roll 1d1", Options())))
    check = next(iter(results_of("check +1 vs 10 crit 19", Options(dice=(7,)))))
    for result in (same, same, check, same, *results_of("roll 2d1", Options()), same, check):
        log.add(result)
    assert same.derived("log_row", lambda r: pytest.fail("made again")) == (
        same.dice_text(),
        rolllog.ROW_OVERHEAD + len("roll 1d1") + len(same.dice_text()),
        None,
    )
    log.close()
    rows = [(r.request, r.dice, r.total, r.outcome, r.house) for r in opened().rolls.recent()]
    one = ("roll 1d1", [{"sides": 1, "face": 1, "kept": True, "role": "roll"}], 1, None, None)
    assert rows[:2] == [one, one] and rows[3] == rows[5] == one
    assert rows[2] == rows[6] and rows[2][0] == "check +1 vs 10 crit 19" and rows[2][4]
    assert rows[4][0] == "roll 2d1" and rows[4][2] == 2
