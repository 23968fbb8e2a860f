"""The roll log's size is bounded (issue 22 item 2): a row's dice are summarised past
MAX_ROW_DICE characters (each label once), the buffer is written by bytes as well as by
rows, and one run adds at most MAX_RUN_BYTES to the log."""

from __future__ import annotations

import json
from typing import Any

import pytest
from state_helpers import logging_on, opened, output  # noqa: F401 (logging_on: a fixture)

from d20cli.app.options import Options
from d20cli.app.run import results_of
from d20cli.store import rolllog
from d20cli.store.log_stats import fairness
from d20cli.store.rolllog import RollLog, Rolls, dice_text

LABEL = "x" * 9_000

pytestmark = pytest.mark.usefixtures("logging_on")


def results(text: str, **opts: Any) -> list[Any]:
    return list(results_of(text, Options(seed=1, **opts)))


def test_a_big_labelled_roll_is_one_small_summary() -> None:
    (result,) = results(f"roll 1000d6[{LABEL}]")
    full = dice_text(result)
    assert len(full) > 9_000_000  # the label on every die
    row = rolllog.row_dice(result, dice_text)
    assert len(row) < 2_000
    (entry,) = json.loads(row)
    summary = entry["summary"]
    assert summary["count"] == 1000 and summary["kept"] == 1000
    assert summary["sides"] == {"6": 1000}
    assert sum(summary["faces"]["6"].values()) == 1000
    assert summary["labels"] == ["x" * rolllog.LABEL_CHARACTERS]


def test_ordinary_rows_keep_every_die() -> None:
    for text in ("check +5 vs 15 adv", "roll 2d6[fire]+1d8[slashing]", "attack +5 vs 10 dmg 8d6"):
        for result in results(text):
            assert rolllog.row_dice(result, dice_text) == dice_text(result)
    group = "group " + ",".join(["+1"] * 200) + " vs 12"
    (result,) = results(group)
    assert rolllog.row_dice(result, dice_text) == dice_text(result)


def test_stats_count_the_d20s_of_a_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    out, _ = output()
    log = RollLog(None, "random", out)
    group = "group " + ",".join(["+1 adv"] * 300) + " vs 12"
    for result in results(group):
        log.add(result)
    log.close()
    (row,) = opened().rolls.recent()
    assert "summary" in row.dice[0]
    (fair,) = fairness(opened().rolls)
    assert sum(fair.counts) == 600
    # an SQLite without JSON functions counts them the same
    store = opened()

    class NoJson:
        def __init__(self, conn: Any) -> None:
            self.conn = conn

        def execute(self, query: str, args: Any = ()) -> Any:
            if "json_" in query:
                import sqlite3

                raise sqlite3.OperationalError("no such function: json_extract")
            return self.conn.execute(query, args)

    monkeypatch.setattr(store.db, "conn", NoJson(store.db.conn))
    assert fairness(store.rolls) == [fair]
    monkeypatch.undo()


def test_the_buffer_is_written_by_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    add_rolls = Rolls.add

    def counting(self: Rolls, rows: Any) -> None:
        calls.append(len(rows))
        add_rolls(self, rows)

    monkeypatch.setattr(Rolls, "add", counting)
    monkeypatch.setattr(rolllog, "FLUSH_BYTES", 50_000)
    out, _ = output()
    log = RollLog(None, "random", out)
    group = "group " + ",".join(["+1"] * 200) + " vs 12"  # about 13 KB a row
    for result in results(group, repeat=12):
        log.add(result)
    assert 2 <= len(calls) <= 4  # written before the run ends, not only at 10,000 rows
    log.close()
    assert sum(calls) == 12


def test_one_run_adds_at_most_max_run_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rolllog, "MAX_RUN_BYTES", 10_000)
    out, err = output()
    log = RollLog(None, "random", out)
    for result in results("roll 1d20", repeat=500):
        log.add(result)
    log.close()
    logged = opened().rolls.count()
    assert 10 < logged < 500
    assert err.getvalue().count("the roll log takes at most 10,000 bytes") == 1


@pytest.mark.parametrize(
    "faces",
    [None, "nonsense", {"1": -3}, {"²": 5}, {"21": 4}, {"5": True}, {"5": 10**30}, [1, 2]],
)
def test_hostile_summaries_count_nothing(faces: object) -> None:
    assert rolllog.summary_d20(faces) is None
