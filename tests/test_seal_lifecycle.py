"""A sealed session's lifecycle (issue 31): the positions a roll takes (a roll whose row
is lost or a request that fails after drawing keeps its position, and verify reports
it), seal and unseal one at a time, a batch that stops when its session is closed
elsewhere and seals when one is opened, the seed shown again after unseal, and the
marker every sealed roll carries in its output.

Every test runs in the isolated home of tests/conftest.py, with the roll log on."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from d20cli.app.cli import app
from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.stdin import run_lines
from d20cli.dice.sealed import dice_key, position_random, read_secret
from d20cli.errors import NotSaved, StateError
from d20cli.present.output import Output
from d20cli.store import database, seal_marker, sealing
from d20cli.store.database import Database, db_path
from tests.state_helpers import close_opened, output
from tests.test_seal import rechain

runner = CliRunner()


@pytest.fixture(autouse=True)
def _logging(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    yield
    close_opened()


def d20(args: list[str], stdin: str | None = None) -> Any:
    return runner.invoke(app, args, input=stdin)


def ok(args: list[str]) -> Any:
    result = d20(args)
    assert result.exit_code == 0, (args, result.output)
    return result


def unseal() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(ok(["unseal", "--json"]).stdout)
    return found


def sealed_rows() -> list[dict[str, Any]]:
    rows = json.loads(ok(["log", "--export", "json"]).stdout)
    return [r for r in rows if r["session"] is not None]


def verify_lines(tmp_path: Path, seed: str) -> tuple[int, list[str]]:
    path = tmp_path / "rolls.json"
    path.write_text(ok(["log", "--export", "json"]).stdout, encoding="utf-8")
    result = d20(["verify", str(path), seed])
    return result.exit_code, result.stdout.splitlines()


def verify_rechained(rows: list[dict[str, Any]], seed: str, tmp_path: Path) -> Any:
    """`d20 verify` of edited rows whose hash chain was made again (as a forger would)."""
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(rechain(rows)), encoding="utf-8")
    return d20(["verify", str(path), seed])


def first_d20(seed: str, position: int) -> int:
    found = read_secret(seed)
    assert found is not None
    key = dice_key(found[0], 2, None)  # a session of scheme 2 with no salt
    return 1 + int(position_random(key, position)._randbelow(20))  # as RandomRoller


# --- item 2: a roll that cannot be made durable ----------------------------------------


def test_a_sealed_roll_in_a_locked_database_is_refused_and_takes_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Another program holds the state database's write lock: the roll is refused with
    one line before a die is drawn (nothing shown), and the next roll gets position 0."""
    ok(["seal"])
    close_opened()
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.2)
    monkeypatch.setattr(database, "NOTE_AFTER", 0.1)
    holder = sqlite3.connect(db_path(), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        refused = d20(["roll", "1d20", "--json"])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert refused.exit_code == 2, refused.output
    assert "no roll is made" in refused.stderr
    assert '"total"' not in refused.stdout  # nothing was shown
    shown = json.loads(ok(["roll", "1d20", "--json"]).stdout)
    done = unseal()
    assert shown["sealed"] == {"session": 1, "position": 0}
    assert done["rolls"] == done["logged"] == 1
    status, lines = verify_lines(tmp_path, done["seed"])
    assert status == 0 and lines[-1].startswith("verified: 1 roll of session 1")


def test_a_sealed_roll_whose_row_is_lost_keeps_its_position(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The row cannot be written (after the position was taken): the next roll does not
    get that position and its die again, and verify reports the roll missing."""
    from d20cli.store.rolllog import Rolls

    ok(["seal"])
    real = Rolls.add

    def failing(self: Rolls, rows: Any, wait: bool = True) -> None:
        raise StateError("cannot save the roll log: database is locked")

    monkeypatch.setattr(Rolls, "add", failing)
    lost = d20(["roll", "1d20"])
    assert isinstance(lost.exception, NotSaved) and lost.stdout == ""  # so never shown
    monkeypatch.setattr(Rolls, "add", real)
    ok(["roll", "1d20"])
    done = unseal()
    rows = sealed_rows()
    assert [r["position"] for r in rows] == [1]
    assert rows[0]["dice"][0]["face"] == first_d20(done["seed"], 1)
    assert done["rolls"] == 2 and done["logged"] == 1
    assert "1 of its positions has no roll in the log" in ok(["unseal", "--show", "1"]).stdout
    status, lines = verify_lines(tmp_path, done["seed"])
    assert status == 1 and "position 0: MISSING from the log" in lines


# --- item 4: a request that fails after drawing --------------------------------------------


def test_a_request_that_fails_after_drawing_keeps_its_position(tmp_path: Path) -> None:
    ok(["seal"])
    failed = d20(["roll", "1d(1d20-20)"])  # the inner d20 is drawn, then the die is refused
    assert failed.exit_code == 2 and "sides" in failed.stderr
    shown = json.loads(ok(["roll", "1d20", "--json"]).stdout)
    assert d20(["check", "+5", "vs"]).exit_code == 2  # bad words: nothing drawn, none taken
    ok(["roll", "1d6"])
    done = unseal()
    assert shown["sealed"]["position"] == 1
    assert shown["dice"][0]["face"] == first_d20(done["seed"], 1)
    assert [r["position"] for r in sealed_rows()] == [1, 2]
    assert done["rolls"] == 3 and done["logged"] == 2
    status, lines = verify_lines(tmp_path, done["seed"])
    assert status == 1 and "position 0: MISSING from the log" in lines


# --- item 7: seal and unseal, and the runs rolling in a session ---------------------------


def test_seal_and_unseal_racing_keep_the_marker_and_the_session_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An unseal that starts while a seal is between its marker and its row waits for it
    (before: it found no session, took the marker away, and the seal then left a session
    open with no marker, whose rolls were made unsealed)."""
    real = sealing.mark
    done: list[Any] = []

    def unseal_elsewhere() -> None:
        db = Database.open()
        try:
            done.append(sealing.Sessions(db).close())
        finally:
            db.close()

    def mark(sealed: bool) -> None:
        real(sealed)
        if sealed and not done:
            other = threading.Thread(target=unseal_elsewhere)
            other.start()
            other.join(0.3)  # it waits for this seal to end
            done.append(other)

    monkeypatch.setattr(sealing, "mark", mark)
    ok(["seal"])
    other = done[0]
    assert isinstance(other, threading.Thread)
    other.join(10)
    assert not other.is_alive()
    closed = done[1]  # the unseal closed the session the seal opened
    assert closed is not None and closed.id == 1
    open_now = json.loads(ok(["seal", "--status", "--json"]).stdout)["sealed"]
    assert seal_marker.marked() is (open_now is not None)
    assert open_now is None


def test_unseal_waits_for_a_run_rolling_in_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    ok(["seal"])
    monkeypatch.setattr(seal_marker, "WAIT", 0.2)
    lease = seal_marker.Lease()
    lease.hold()
    try:
        busy = d20(["unseal"])
    finally:
        lease.release()
    assert busy.exit_code == 2
    assert busy.stderr.startswith("d20: error: a run is rolling in the sealed session")
    assert json.loads(ok(["seal", "--status", "--json"]).stdout)["sealed"] is not None
    assert unseal()["session"] == 1


def batch(lines: list[str | None], between: Any) -> tuple[int, str]:
    """A batch on standard input (--json) in a run of its own; at each None, its output so
    far is written (a group commit, as when it waits for input) and `between()` runs, as
    another terminal would."""
    context = Context()
    out, err = output()

    def feed() -> Iterator[str]:
        for line in lines:
            if line is None:
                out.flush()
                between()
                seal_marker.CHANGES[0] -= 1  # as if it ran in another process
            else:
                yield line

    try:
        status = run_lines(feed(), Options(json=True), out, context)
        out.flush()
    finally:
        context.close()
    return int(status), err.getvalue()


def test_a_batch_stops_when_its_session_is_closed_elsewhere() -> None:
    ok(["seal"])
    status, err = batch(["roll 1d20", "roll 1d20", None, *["roll 1d20"] * 5], unseal)
    assert status == 2
    assert "the sealed session 1 was closed (d20 unseal) while this run was rolling" in err
    assert "line 3: the sealed session has ended: the rest of standard input is not read" in err
    assert [r["position"] for r in sealed_rows()] == [0, 1]  # none into the closed session
    assert json.loads(ok(["unseal", "--show", "1", "--json"]).stdout)["rolls"] == 2


def test_a_batch_seals_when_a_session_is_opened_elsewhere() -> None:
    status, err = batch(["roll 1d6", None, "roll 1d6", "roll 1d6"], lambda: ok(["seal"]))
    assert status == 0, err
    rows = json.loads(ok(["log", "--export", "json"]).stdout)
    assert [r["position"] for r in rows] == [None, 0, 1]
    assert unseal()["rolls"] == 2


def test_rolls_of_two_runs_between_each_others_commits_verify(tmp_path: Path) -> None:
    """A batch and another terminal's rolls take turns in one session: the receipts chain
    in the order the rows are written, so the session verifies, receipts and all."""
    ok(["seal"])
    seen = [ok(["roll", "1d20", "--json"]).stdout]
    status, err = batch(
        ["roll 1d6", "roll 2d6", None, "roll 1d8", None, "roll 1d10"],
        lambda: seen.append(ok(["check", "+1", "vs", "10", "--json"]).stdout),
    )
    assert status == 0, err
    done = unseal()
    assert done["rolls"] == 7
    (tmp_path / "seen.txt").write_text("".join(seen), encoding="utf-8")
    (tmp_path / "rolls.json").write_text(ok(["log", "--export", "json"]).stdout, "utf-8")
    rolls, receipts = str(tmp_path / "rolls.json"), str(tmp_path / "seen.txt")
    result = d20(["verify", rolls, done["seed"], "--receipts", receipts])
    assert result.exit_code == 0, result.stdout
    assert "3 receipts seen at the table match" in result.stdout


# --- item 3: the seed after unseal ------------------------------------------------------


def test_the_seed_stays_retrievable_after_unseal() -> None:
    """`d20 unseal | head -1` drops the seed line: `unseal --show N` and `seal --status
    --json` show it again."""
    ok(["seal"])
    refused = d20(["unseal", "--show", "1"])
    assert refused.exit_code == 2 and "its seed is secret until d20 unseal" in refused.stderr
    ok(["roll", "1d20"])
    first = ok(["unseal"]).stdout.splitlines()[0]
    assert first == "unsealed session 1 after 1 roll"  # all `head -1` showed
    shown = ok(["unseal", "--show", "1"]).stdout.splitlines()
    assert shown[0].startswith("session 1, closed ") and shown[0].endswith(", after 1 roll")
    again = json.loads(ok(["unseal", "--show", "1", "--json"]).stdout)
    assert shown[2] == f"seed: {again['seed']}" and read_secret(again["seed"]) is not None
    status = json.loads(ok(["seal", "--status", "--json"]).stdout)
    assert status["sealed"] is None and status["last"]["seed"] == again["seed"]
    assert "d20 unseal --show 1 prints its seed" in ok(["seal", "--status"]).stdout
    missing = d20(["unseal", "--show", "7"])
    assert missing.exit_code == 2 and "there is no sealed session 7" in missing.stderr
    assert "--show" in ok(["unseal", "--help"]).stdout


# --- item 8: every sealed roll says so ---------------------------------------------------


def test_every_sealed_roll_says_so_and_keeps_its_json_fields() -> None:
    plain = json.loads(ok(["check", "+5", "vs", "15", "--json"]).stdout)
    ok(["seal"])
    text = ok(["check", "+5", "vs", "15"]).stdout.splitlines()
    assert re.fullmatch(r"  sealed #0 \(session 1\) receipt [0-9a-f]{16}", text[-1])
    sealed = json.loads(ok(["check", "+5", "vs", "15", "--json"]).stdout)
    assert sealed["sealed"] == {"session": 1, "position": 1}
    assert list(sealed)[: len(plain)] == list(plain)  # the same fields, in order, then more
    assert set(sealed) - set(plain) == {"sealed", "receipt"}
    lines = ok(["roll", "1d6", "-n", "2"]).stdout.splitlines()
    assert [line[:32] for line in lines if "sealed #" in line] == [
        "  sealed #2 (session 1) receipt ",
        "  sealed #3 (session 1) receipt ",
    ]
    unseal()
    assert "sealed" not in ok(["check", "+5", "vs", "15"]).stdout


def test_a_table_roll_is_sealed_and_verify_rolls_it_again(tmp_path: Path) -> None:
    """`d20 table road` (which reaches `satchel`) in a sealed session: it rolls from the
    session's stream, says so, and verify rolls it again from the tables' text its row
    keeps, with no table file; an edited table text is caught."""
    import copy
    import shutil

    from d20cli.store.tables import tables_dir

    examples = Path(__file__).parent.parent / "examples" / "tables"
    Path(tables_dir()).mkdir(parents=True)
    for name in ("road.toml", "satchel.toml"):
        shutil.copy(examples / name, Path(tables_dir()) / name)
    ok(["seal"])
    text = ok(["table", "road"]).stdout.splitlines()
    assert re.fullmatch(r"  sealed #0 \(session 1\) receipt [0-9a-f]{16}", text[-1])
    rolled = [
        json.loads(line) for line in ok(["table", "road", "-n", "5", "--json"]).stdout.splitlines()
    ]
    assert [r["sealed"]["position"] for r in rolled] == [1, 2, 3, 4, 5]
    assert d20(["table", "road", "--dice", "6,6"]).exit_code == 2  # still refused
    done = unseal()
    shutil.rmtree(tables_dir())  # the verifier has no table files
    status, lines = verify_lines(tmp_path, done["seed"])
    assert status == 0, lines
    assert lines[-1].startswith("verified: 6 rolls of session 1")
    rows = json.loads(ok(["log", "--export", "json"]).stdout)
    assert rows[0]["replay"]["files"]["satchel"].startswith("#")
    edited = copy.deepcopy(rows)
    files = edited[0]["replay"]["files"]
    files["road"] = 'system = "mm"\n' + files["road"]  # its requests rolled elsewhere
    result = verify_rechained(edited, done["seed"], tmp_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("row 1 (id 1, position 0): FAILED: edited")


def test_a_run_keeps_a_bounded_amount_of_table_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each sealed table roll keeps its tables' text in the log: a run that would keep
    more than MAX_TABLE_BYTES is refused before the roll over it draws a die."""
    import shutil

    from d20cli.app import sealed
    from d20cli.store.tables import tables_dir

    examples = Path(__file__).parent.parent / "examples" / "tables"
    Path(tables_dir()).mkdir(parents=True)
    shutil.copy(examples / "satchel.toml", Path(tables_dir()) / "satchel.toml")
    size = len((examples / "satchel.toml").read_text(encoding="utf-8"))
    monkeypatch.setattr(sealed, "MAX_TABLE_BYTES", 2 * size + 500)
    ok(["seal"])
    result = d20(["table", "satchel", "-n", "3", "--json"])
    assert result.exit_code == 2
    assert "a sealed run keeps at most" in result.stderr
    shown = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r.get("sealed") for r in shown[:2]] == [
        {"session": 1, "position": 0},
        {"session": 1, "position": 1},
    ]
    assert "a sealed run keeps at most" in shown[2]["error"]
    assert unseal()["rolls"] == 2  # the refused roll took no position


def test_initiative_is_sealed_and_verify_rolls_it_again(tmp_path: Path) -> None:
    """`init add` and `init roll` in a sealed session: each is one roll of the stream,
    roll-offs included (40 goblins on a d20 must tie), logged and verified without the
    characters file or the order in the state database."""
    import copy

    from tests.cli_helpers import write_sheet

    write_sheet('[aria]\nsystem = "levelup"\ninit = "+2"\n\n[bob]\nsystem = "levelup"\n')
    plain = json.loads(ok(["init", "add", "troll", "+1", "--json"]).stdout)
    ok(["init", "clear"])
    ok(["seal"])
    text = ok(["init", "add", "goblin", "+3", "x40"]).stdout.splitlines()
    assert re.fullmatch(r"  sealed #0 \(session 1\) receipt [0-9a-f]{16}", text[-1])
    ok(["init", "roll"])  # against the 40 goblins kept
    shown = json.loads(ok(["init", "add", "orc", "+3", "x21", "--json"]).stdout)
    assert shown["sealed"] == {"session": 1, "position": 2}
    assert list(shown)[: len(plain)] == list(plain) and len(shown["order"]) == 63
    assert d20(["init", "add", "ogre", "--dice", "4"]).exit_code == 2  # still refused
    done = unseal()
    rows = sealed_rows()
    assert [r["verb"] for r in rows] == ["init"] * 3
    assert any(d["role"] == "rolloff" for d in rows[0]["dice"])
    assert [r["request"] for r in rows] == [
        "init add goblin +3 x40",
        "init roll",
        "init add orc +3 x21",
    ]
    write_sheet("")  # the verifier knows no characters
    ok(["init", "clear"])
    status, lines = verify_lines(tmp_path, done["seed"])
    assert status == 0, lines
    assert lines[-1].startswith("verified: 3 rolls of session 1")
    edited = json.loads(ok(["log", "--export", "json"]).stdout)
    edited = copy.deepcopy(edited)
    edited[1]["dice"][0]["face"] = 21 - edited[1]["dice"][0]["face"]
    result = verify_rechained(edited, done["seed"], tmp_path)
    assert result.exit_code == 1
    assert any(  # (verify names the rows that fail, then its summary)
        line.startswith("row 2 (id 2, position 1): FAILED: edited")
        for line in result.stdout.splitlines()
    )


def test_a_reported_initiative_joins_a_sealed_session_without_a_roll() -> None:
    """`init add cleo =17` in a sealed session: the total the player rolled at the table
    joins the order marked reported; it is no roll of the stream (it takes no position
    and is not refused as forced dice are), and a tie it would make is settled by its
    modifier, never by a roll-off outside the stream."""
    ok(["seal"])
    text = ok(["init", "add", "cleo", "=17"]).stdout
    assert text.startswith("cleo: 17 reported (rolled at the table)\n")
    assert "sealed #" not in text
    cleo = json.loads(ok(["init", "--json"]).stdout)["order"][0]
    assert (cleo["name"], cleo["total"], cleo["reported"], cleo["dice"]) == ("cleo", 17, True, [])
    tie = d20(["init", "add", "dana", "=17"])
    assert tie.exit_code == 2 and "a roll-off needs dice" in tie.stderr
    ok(["init", "add", "dana", "=17", "+3"])  # the higher modifier goes first
    shown = json.loads(ok(["init", "add", "goblin", "+2", "--json"]).stdout)
    assert shown["sealed"] == {"session": 1, "position": 0}  # the first roll of the stream
    assert [c["name"] for c in shown["order"] if c["name"] != "goblin"] == ["dana", "cleo"]
    assert d20(["init", "add", "ogre", "--dice", "17"]).exit_code == 2  # forced: refused
    assert unseal()["rolls"] == 1
    assert [r["request"] for r in sealed_rows()] == ["init add goblin +2"]


# --- issue 40, item 4: a run killed while rolling leaves at most one block unlogged -------


def _unlogged() -> int:
    """Positions of the open session taken and without a row, as another process sees."""
    conn = sqlite3.connect(db_path(), timeout=30)
    try:
        (taken,) = conn.execute("SELECT next FROM sessions WHERE closed IS NULL").fetchone()
        (logged,) = conn.execute(
            "SELECT count(*) FROM rolls WHERE session = (SELECT id FROM sessions "
            "WHERE closed IS NULL)"
        ).fetchone()
    finally:
        conn.close()
    return int(taken) - int(logged)


@pytest.mark.parametrize("lines", [["check +5 vs 15"] * 700, ["roll 1d6 --repeat 700"]])
def test_a_sealed_run_writes_its_rows_before_it_takes_another_block(
    lines: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch holds its output (1,024 lines) and wrote its rows only before showing them:
    killed (SIGTERM, kill -9) before that, every position it had taken was without a row
    (191 of 191). Now, whenever it takes a block, the rows of those before are in the
    file, so whenever it is killed at most MAX_BLOCK positions have none."""
    from d20cli.app.sealed import MAX_BLOCK

    ok(["seal"])
    takes: list[int] = []
    take = sealing.Sessions.take

    def checked(self: sealing.Sessions, sid: int, count: int) -> Any:
        takes.append(_unlogged())
        return take(self, sid, count)

    monkeypatch.setattr(sealing.Sessions, "take", checked)
    context = Context()
    out = Output(io.StringIO(), io.StringIO(), color=False, flush_lines=False)

    def feed() -> Iterator[str]:
        for line in lines:
            assert _unlogged() <= MAX_BLOCK
            yield line

    try:
        assert run_lines(feed(), Options(), out, context) == 0
        assert out.stdout.getvalue() == ""  # (all of it held: no group commit came)
        assert _unlogged() <= MAX_BLOCK
    finally:
        context.close()
    assert takes == [0] * len(takes) and len(takes) > 700 // MAX_BLOCK
    assert unseal()["logged"] == 700
