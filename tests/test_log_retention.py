"""The roll log's retention (issue 31): `d20 log --prune --before DATE` and `--prune --keep
N` say how many rows they delete and never touch the rows of a sealed session that is
open; the config file's `log.keep` prunes as a run that logged rolls ends; a clear or a
prune vacuums the database, so that its file shrinks; `--stats` says the log's size."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from state_helpers import close_opened, logging_on, opened  # noqa: F401 (a fixture)
from typer.testing import CliRunner

from d20cli.__main__ import main
from d20cli.app.commands import log as log_cli
from d20cli.app.commands.log import app as log_app
from d20cli.store import config
from d20cli.store.log_retention import keep_newest
from d20cli.store.rolllog import stamp
from d20cli.store.sealing import Sessions
from d20cli.store.state import State, db_path

pytestmark = pytest.mark.usefixtures("logging_on")

runner = CliRunner()
NOW = datetime.now(UTC)


def row(days_ago: float, request: str = "roll 1d20") -> tuple[Any, ...]:
    """A row of the log (at, character, system, verb, request, dice, total, outcome, source)."""
    at = stamp(int((NOW - timedelta(days=days_ago)).timestamp() * 1000))
    return (at, None, "levelup", "roll", request, '[{"sides": 20, "face": 7}]', 7, None, "random")


def add(rows: list[tuple[Any, ...]]) -> None:
    store = State.open()
    store.rolls.add(rows)
    store.close()


def requests() -> list[str]:
    return [r.request for r in opened().rolls.rows()]


def log(*args: str, answer: str | None = None) -> Any:
    result = runner.invoke(log_app, list(args), input=answer)
    assert "Traceback" not in result.output
    return result


def test_prune_before_a_date_says_how_many_it_deleted() -> None:
    add([row(40, "roll a"), row(31, "roll b"), row(2, "roll c"), row(0, "roll d")])
    day = (NOW - timedelta(days=30)).date().isoformat()
    r = log("--prune", "--before", day, "--yes")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("deleted 2 rolls; 2 left, ")
    assert requests() == ["roll c", "roll d"]
    assert log("--prune", "--before", "1d", "--yes").stdout.startswith("deleted 1 roll; 1 left")
    assert requests() == ["roll d"]


def test_prune_keep_n_keeps_the_newest_n() -> None:
    add([row(10 - i, f"roll {i}") for i in range(10)])
    r = log("--prune", "--keep", "3", "--yes")
    assert r.exit_code == 0 and r.stdout.startswith("deleted 7 rolls; 3 left")
    assert requests() == ["roll 7", "roll 8", "roll 9"]
    assert log("--prune", "--keep", "3", "--yes").stdout.startswith("deleted 0 rolls; 3 left")
    # both: a row goes when either says so
    r = log("--prune", "--keep", "2", "--before", "36h", "--yes")
    assert r.stdout.startswith("deleted 2 rolls; 1 left") and requests() == ["roll 9"]


def test_prune_asks_first_as_clear_does(monkeypatch: pytest.MonkeyPatch) -> None:
    add([row(3), row(2), row(1)])
    r = log("--prune", "--keep", "1")
    assert r.exit_code == 2 and "--prune asks before it deletes; not on a terminal" in r.stderr
    assert opened().rolls.count() == 3
    monkeypatch.setattr(log_cli, "interactive", lambda: True)  # a terminal: it asks
    r = log("--prune", "--keep", "1", answer="n\n")
    assert "delete 2 logged rolls (older than the newest 1)?" in r.stdout
    assert r.exit_code == 0 and opened().rolls.count() == 3
    r = log("--prune", "--keep", "1", answer="y\n")
    assert "deleted 2 rolls; 1 left" in r.stdout and opened().rolls.count() == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--prune", "--yes"], "--prune takes --before DATE, --keep N or both"),
        (["--keep", "5"], "--before and --keep go with --prune"),
        (["--before", "2026-01-01"], "--before and --keep go with --prune"),
        (["--prune", "--keep", "0", "--yes"], "--keep must be a whole number of rows from 1"),
        (["--prune", "--keep", "-3", "--yes"], "--keep must be a whole number of rows from 1"),
        (["--prune", "--before", "soon", "--yes"], "--before takes a date"),
        (["--prune", "--keep", "5", "-c", "aria", "--yes"], "no filters"),
        (["--prune", "--keep", "5", "--since", "2h", "--yes"], "no filters"),
        (["--prune", "--keep", "5", "--clear", "--yes"], "use one of --stats, --luck, --export"),
    ],
)
def test_bad_prunes_are_one_line_errors(args: list[str], message: str) -> None:
    add([row(1)])
    r = log(*args)
    assert r.exit_code == 2 and r.stderr.startswith("d20: error: ") and message in r.stderr
    assert r.stderr.count("\n") == 1
    assert opened().rolls.count() == 1


def sealed_row(days_ago: float, session: int, position: int) -> tuple[Any, ...]:
    return (*row(days_ago, f"roll sealed {position}"), None, session, position, "{}")


def test_a_prune_never_deletes_the_open_sealed_sessions_rows() -> None:
    store = State.open()
    closed = Sessions(store.db).open().id
    Sessions(store.db).close()
    current = Sessions(store.db).open().id
    store.close()
    add([sealed_row(9, closed, 0), sealed_row(8, current, 0), row(7, "roll plain")])
    add([sealed_row(6, current, 1), row(5, "roll newest")])
    r = log("--prune", "--keep", "1", "--yes")
    assert r.exit_code == 0, r.stderr
    assert (
        "deleted 2 rolls; 3 left" in r.stdout and "open sealed session's rolls are kept" in r.stdout
    )
    assert requests() == ["roll sealed 0", "roll sealed 1", "roll newest"]
    r = log("--prune", "--before", "1d", "--yes")
    assert "deleted 1 roll; 2 left" in r.stdout
    assert requests() == ["roll sealed 0", "roll sealed 1"]


def file_bytes() -> int:
    path = db_path()
    return sum(os.stat(p).st_size for p in (path, Path(f"{path}-wal")) if p.exists())


@pytest.mark.parametrize("how", [["--clear", "--yes"], ["--prune", "--keep", "10", "--yes"]])
def test_a_clear_or_a_prune_shrinks_the_file(how: list[str]) -> None:
    add([row(1, "roll 1d20 " + "x" * 400)] * 5000)  # some 2.5 MB
    big = file_bytes()
    assert big > 2_000_000
    r = log(*how)
    assert r.exit_code == 0 and "deleted" in r.stdout and r.stderr == ""
    assert file_bytes() < big // 10


def test_stats_say_the_logs_rows_and_bytes_on_disk() -> None:
    add([row(1), row(0)])
    r = log("--stats")
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0] == f"roll log: 2 rows, {file_bytes():,} bytes on disk"
    log("--clear", "--yes")
    r = log("--stats")
    assert r.stdout.splitlines()[:2] == [
        f"roll log: 0 rows, {file_bytes():,} bytes on disk",
        "no d20s logged yet",
    ]


def write_config(text: str) -> None:
    path = Path(config.config_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_log_keep_prunes_as_a_run_that_logged_ends(capsys: pytest.CaptureFixture[str]) -> None:
    """`[log] keep = N`: once the log holds a tenth more than N, the run that ends prunes
    it back to the newest N and says so; a run below that deletes nothing."""
    write_config("[log]\nkeep = 10\n")
    add([row(1, f"roll old {i}") for i in range(10)])
    assert main(["roll", "1d6", "-q"]) == 0  # 11 rows: within the tenth (at least one) over
    assert capsys.readouterr().err == ""
    assert opened().rolls.count() == 11
    close_opened()
    assert main(["roll", "1d6", "-q"]) == 0  # 12: pruned back to 10
    err = capsys.readouterr().err
    assert (
        err == "d20: warning: the roll log keeps the newest 10 rolls (log.keep): 2 older deleted\n"
    )
    found = requests()
    assert len(found) == 10 and found[-2:] == ["roll 1d6", "roll 1d6"]
    add([row(0)] * 5)  # 15 rows, but a run that logs nothing prunes nothing
    assert main(["roll", "1d6", "-q", "--no-log"]) == 0
    assert opened().rolls.count() == 15


def test_keep_newest_is_a_no_op_below_the_slack() -> None:
    add([row(1)] * 110)
    said: list[str] = []
    assert keep_newest(opened().rolls, 100, said.append) == 0  # 110 is 100 and a tenth
    add([row(1)])
    assert keep_newest(opened().rolls, 100, said.append) == 11
    assert said == ["the roll log keeps the newest 100 rolls (log.keep): 11 older deleted"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[log]\nkeep = 0\n", "line 2: log.keep: must be a whole number of rows from 1"),
        ('[log]\nkeep = "many"\n', "line 2: log.keep: must be a whole number of rows, 1 or more"),
        ("[log]\nsize = 5\n", "log.size: unknown key (the [log] table has keep"),
        ("log = 5\n", "log: must be a table ([log]), not a number"),
    ],
)
def test_a_bad_log_keep_is_an_error_naming_the_line(text: str, problem: str) -> None:
    write_config(text)
    with pytest.raises(config.ParseError) as err:
        config.load_config()
    assert problem in err.value.message


def test_config_set_log_keep(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "set", "log.keep", "5000"]) == 0
    assert config.load_config().log_keep == 5000
    assert "[log]\nkeep = 5000" in Path(config.config_path()).read_text(encoding="utf-8")
    assert main(["config", "set", "log.keep", "none"]) == 2
    assert "log.keep: must be a whole number of rows" in capsys.readouterr().err
    assert main(["config", "unset", "log.keep"]) == 0
    assert config.load_config().log_keep is None
    assert "log.keep" in config.config_keys()
