"""A state database damaged inside (issue 22, items 6 and 12): pages overwritten in the
middle of a real state.db, found only when a command reads or writes them, are handled
like a file that cannot be opened (moved aside with one warning, and the command or the
batch goes on); a database that cannot be used at all (locked, newer, read-only) makes
`d20 log` and `fortune` say that the state could not be read, not that it is empty; a
full disk is reported as such."""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.run import run as run_tokens
from d20cli.present.output import Output
from d20cli.store import database
from d20cli.store.schema import MIGRATIONS, SCHEMA_VERSION
from d20cli.store.state import State

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120
ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def env(state: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k != "D20_NO_LOG"}
    return {**base, "XDG_STATE_HOME": str(state), "COLUMNS": "100"}


def d20(*args: str, state: Path, stdin: bytes | None = None) -> tuple[int, str, list[str]]:
    """(status, stdout, warnings) of a d20 run; no traceback, ever."""
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=env(state),
        timeout=TIMEOUT,
    )
    err = run.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "sqlite3." not in err, err
    said = [line for line in err.splitlines() if line.startswith("d20: warning:")]
    return run.returncode, run.stdout.decode("utf-8", "replace"), said


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real state.db: 3,000 logged rolls, a character's rolls, a fortune die, a last
    roll and a setting."""
    state = tmp_path_factory.mktemp("healthy")
    batch = b"roll 3d20 # a few words\ncheck +5 vs 15 adv\n" * 1500
    assert d20("-q", state=state, stdin=batch)[0] == 0
    pd = b"attempt adept fortune -s pd --dice 20\nattempt adept -s pd --dice 7\n"
    assert d20("-q", state=state, stdin=pd)[0] == 0
    assert d20("fortune", "--boon", "-s", "pd", state=state)[0] == 0
    return state / "d20cli" / "state.db"


def damage(healthy: Path, tmp_path: Path, where: str) -> Path:
    """A copy of `healthy` in a state directory of its own, with pages overwritten: the
    root page of a table (`fortune`, `last_roll`, `settings`), or four pages in the middle
    of the file (`middle`: rows of the roll log)."""
    state = tmp_path / "state"
    (state / "d20cli").mkdir(parents=True)
    db = state / "d20cli" / "state.db"
    shutil.copy(healthy, db)
    conn = sqlite3.connect(db)
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    roots = dict(conn.execute("SELECT name, rootpage FROM sqlite_master WHERE rootpage > 1"))
    conn.close()
    assert pages > 100  # a real file: the damage is inside it
    hit = range(pages // 2, pages // 2 + 4) if where == "middle" else [roots[where]]
    with db.open("r+b") as f:
        for page in hit:
            f.seek((page - 1) * size)
            f.write(b"\xa5" * size)
    return state


def moved_aside(state: Path) -> list[Path]:
    return list((state / "d20cli").glob("state.db.corrupt-*"))


COMMANDS = [
    ("fortune", "-s", "pd"),
    ("attempt", "adept", "fortune", "-s", "pd", "--dice", "20"),
    ("fortune", "spend", "hint", "-s", "pd"),
    ("log",),
    ("log", "--stats"),
    ("log", "--export", "json"),
    ("log", "--export", "csv"),
]


@pytest.mark.parametrize("where", ["fortune", "last_roll", "settings", "middle"])
def test_a_database_damaged_inside_never_gives_a_traceback(
    healthy: Path, tmp_path: Path, where: str
) -> None:
    for i, args in enumerate(COMMANDS):
        state = damage(healthy, tmp_path / str(i), where)
        status, out, said = d20(*args, state=state)
        assert status in (0, 2), (args, status)  # 2: `fortune spend` with no die left
        assert len(said) <= 1, (args, said)
        if said:
            assert "is damaged" in said[0] and "moved to" in said[0], said
            assert len(moved_aside(state)) == 1
        if args[-1] == "json":
            json.loads(out)  # whole, if cut short


@pytest.mark.parametrize(
    ("where", "args"),
    [
        ("fortune", ("fortune", "-s", "pd")),
        ("fortune", ("attempt", "adept", "fortune", "-s", "pd", "--dice", "20")),
        ("settings", ("fortune", "-s", "pd")),
        ("middle", ("log", "--stats")),
        ("middle", ("log", "--export", "json")),
        ("middle", ("log", "--export", "csv")),
    ],
)
def test_the_damage_a_command_meets_moves_the_file_aside_once(
    healthy: Path, tmp_path: Path, where: str, args: tuple[str, ...]
) -> None:
    state = damage(healthy, tmp_path, where)
    status, _, said = d20(*args, state=state)
    assert status == 0
    assert len(said) == 1 and "is damaged" in said[0], said
    (aside,) = moved_aside(state)
    assert str(aside) in said[0]
    again = d20(*args, state=state)  # the new database works, quietly
    assert again[0] == 0 and again[2] == []


@pytest.mark.parametrize("where", ["fortune", "last_roll", "middle"])
def test_a_batch_goes_on_past_the_damage(healthy: Path, tmp_path: Path, where: str) -> None:
    state = damage(healthy, tmp_path, where)
    lines = [
        "roll 1d20",
        "attempt adept fortune -s pd --dice 20",
        "fortune -s pd",
        "check +5 vs 15 --dice 12",
        "fortune spend hint -s pd",
        "luck -s pd --dice 9",
        "roll 2d6",
    ] * 50
    status, out, said = d20("-q", state=state, stdin="\n".join(lines).encode())
    assert status == 0
    assert len(out.splitlines()) == len(lines)  # every line answered
    assert len(said) <= 1, said
    status, out, _ = d20("log", "--export", "json", state=state)
    assert status == 0 and len(json.loads(out)) >= 1


# -- a database that cannot be used: say so ----------------------------------------------


def d20_text(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        capture_output=True,
        cwd=ROOT,
        env=env(state),
        timeout=TIMEOUT,
        text=True,
    )


def _unusable_newer(state: Path) -> None:
    folder = state / "d20cli"
    folder.mkdir(parents=True)
    conn = sqlite3.connect(folder / "state.db")
    conn.executescript(MIGRATIONS[0] + MIGRATIONS[1])
    conn.execute("INSERT INTO fortune VALUES ('player', 2)")
    conn.execute(
        "INSERT INTO rolls (at, system, verb, request, dice, total) "
        "VALUES ('2024-01-01T00:00:00.000+00:00', 'levelup', 'roll', 'roll 1d6', '[]', 3)"
    )
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()


def _unusable_read_only(state: Path) -> None:
    d20("attempt", "adept", "fortune", "-s", "pd", "--dice", "20", state=state)
    (state / "d20cli" / "state.db").chmod(0o444)
    (state / "d20cli").chmod(0o555)


@pytest.mark.parametrize("kind", ["newer", "read-only"])
def test_an_unusable_database_is_not_shown_as_empty(tmp_path: Path, kind: str) -> None:
    if kind == "read-only" and ROOT_USER:
        pytest.skip("root writes into read-only files")
    state = tmp_path / "state"
    {"newer": _unusable_newer, "read-only": _unusable_read_only}[kind](state)
    try:
        for args in (("log",), ("log", "--stats"), ("log", "--export", "csv")):
            run = d20_text(state, *args)
            assert run.returncode == 2 and "Traceback" not in run.stderr
            assert "no rolls logged yet" not in run.stdout and "no d20s" not in run.stdout
            assert "d20: error: the roll log could not be read" in run.stderr, run.stderr
        run = d20_text(state, "fortune", "-s", "pd")
        assert run.returncode == 2 and "of 2" not in run.stdout
        assert "the fortune dice could not be read" in run.stderr, run.stderr
    finally:
        (state / "d20cli").chmod(0o700)


LOCKER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode = DELETE")
conn.execute("BEGIN EXCLUSIVE")
print("holding", flush=True)
time.sleep(600)
"""


def test_a_locked_database_is_not_shown_as_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from d20cli.app.commands.log import app as log_app

    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.5)
    monkeypatch.setattr(database, "NOTE_AFTER", 0.1)
    store = State.open()
    store.fortune.set("player", 2)
    path = store.db.path
    store.close()
    assert path is not None
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        result = CliRunner().invoke(log_app, [])
        assert result.exit_code == 2 and "no rolls logged yet" not in result.stdout
        assert "the roll log could not be read" in result.stderr
        assert "locked" in result.stderr
        stdout, stderr = io.StringIO(), io.StringIO()
        context = Context()
        out = Output(stdout, stderr, color=False)
        outcome = run_tokens(["fortune", "-s", "pd"], Options(), out, context)
        context.close()
        assert outcome.status == 2 and "of 2" not in stdout.getvalue()
        assert "the fortune dice could not be read" in stderr.getvalue()
    finally:
        holder.kill()
        holder.wait()


def test_a_full_disk_is_reported_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    said: list[str] = []
    store = State.open(warn=said.append)
    store.fortune.set("player", 1)
    conn = store.db.conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # the next growth fails: SQLITE_FULL

    class Full:  # what os.statvfs says of a full device
        f_bavail = 0
        f_frsize = 4096

    monkeypatch.setattr(database.os, "statvfs", lambda path: Full())
    store.last_rolls.set("player", "attempt adept", "pendagger", {"big": "x" * 100_000})
    assert len(said) == 1, said
    assert "cannot rollback" not in said[0]
    assert "disk is full" in said[0] and "no space left on its device (0 bytes free)" in said[0]
    assert store.fortune.held("player") == 1  # what the file held was carried over
    store.close()


# -- values d20 did not write (issue 31, items 16 and 17) ---------------------------------

DEEP = "[" * 5000 + "]" * 5000  # JSON that json.loads (or the export after it) recursed on
SESSION = ("seal", "roll 1d20")
SPEND = ("fortune", "spend", "-s", "pd")
ROLL = ("roll 1d20",)  # a roll that `log --stats` counts (not one of --dice)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], Path]:
    """A state directory d20 wrote for each setup below (an initiative, a fortune die, a
    boon, then the setup's own line), made once and copied by each case."""
    made = {}
    for setup in (SESSION, ROLL, ()):
        state = tmp_path_factory.mktemp("written") / "state"
        lines = (
            "init add goblin --dice 12",
            "attempt adept fortune -s pd --dice 20",
            "fortune --boon -s pd",
            *setup,
        )
        for line in lines:
            assert d20(*line.split(), state=state)[0] == 0, line
        made[setup] = state
    return made


@pytest.mark.parametrize(
    ("setup", "change", "args", "says"),
    [
        (SESSION, "UPDATE sessions SET seed = 'not hex'", ("roll", "d20"), "sessions.seed"),
        (SESSION, "UPDATE sessions SET nonce = 'ab'", ("roll", "d20"), "sessions.nonce"),
        (SESSION, "UPDATE sessions SET next = 'abc'", ("roll", "d20"), "sessions.next"),
        (SESSION, "UPDATE sessions SET next = 9223372036854775807", ("roll", "d20"), "sessions"),
        (SESSION, "UPDATE rolls SET position = 'x'", ("roll", "d20"), "rolls.position"),
        (SESSION, "UPDATE rolls SET replay = '[]'", ("log", "--export", "json"), "rolls.replay"),
        ((), "UPDATE initiative_turn SET round = 'x'", ("init",), "initiative_turn.round"),
        ((), "UPDATE initiative SET total = 'x'", ("init", "next"), "initiative.total"),
        ((), "UPDATE initiative SET kind = 'dragon'", ("init",), "initiative.kind"),
        ((), f"UPDATE initiative SET dice = '{DEEP}'", ("init",), "initiative.dice"),
        ((), "UPDATE initiative SET dice = '[[1]]'", ("init",), "initiative.dice"),
        ((), "UPDATE initiative SET rolloff = '[99]'", ("init",), "initiative.rolloff"),
        ((), f"UPDATE rolls SET dice = '{DEEP}'", ("log", "--export", "json"), "rolls.dice"),
        ((), f"UPDATE rolls SET house = '{DEEP}'", ("log",), "rolls.house"),
        ((), "UPDATE rolls SET dice = 'not json'", ("log", "--stats"), "rolls.dice"),
        ((), "UPDATE rolls SET total = 'x'", ("log", "--export", "csv"), "rolls.total"),
        ((), "UPDATE rolls SET character = x'ff'", ("log",), "rolls.character"),
        (ROLL, "UPDATE rolls SET character = x'ff'", ("log", "--stats", "--json"), "character"),
        (ROLL, "UPDATE rolls SET at = x'00'", ("log", "--stats"), "rolls.at"),
        ((), "UPDATE fortune SET count = 'x'", ("fortune", "-s", "pd"), "fortune.count"),
        ((), "UPDATE settings SET value = x'00'", ("fortune", "-s", "pd"), "settings.value"),
        ((), "UPDATE last_roll SET result = '{\"dice\": 5}'", SPEND, "last_roll"),
        ((), "UPDATE last_roll SET at = 'x'", SPEND, "last_roll.at"),
    ],
    ids=lambda v: v.split(" SET ")[1][:30] if isinstance(v, str) and " SET " in v else None,
)
def test_a_value_d20_did_not_write_moves_the_state_aside(
    tmp_path: Path,
    written: dict[tuple[str, ...], Path],
    setup: tuple[str, ...],
    change: str,
    args: tuple[str, ...],
    says: str,
) -> None:
    """A session seed that is not hex (ValueError on every roll), `next = 'abc'`, `next`
    at the 64-bit maximum (OverflowError on every roll), `round = 'x'`, dice nested 5,000
    deep (RecursionError): every value read from state.db is checked, and one that d20
    does not write moves the file aside with one warning naming the column, as a damaged
    page does; the next run starts afresh, quietly."""
    state = tmp_path / "state"
    shutil.copytree(written[setup], state)
    db = state / "d20cli" / "state.db"
    with sqlite3.connect(db) as conn:
        assert conn.execute(change).rowcount >= 1
    conn.close()
    status, out, said = d20(*args, state=state)
    assert len(said) == 1 and "is damaged" in said[0] and says in said[0], said
    (aside,) = moved_aside(state)
    assert str(aside) in said[0]
    if setup != SESSION:  # (a sealed session's marker stops rolls until `d20 unseal`)
        assert status in (0, 2)
        again = d20(*args, state=state)
        assert again[2] == [] and len(moved_aside(state)) == 1
    if args[-1] == "json":
        json.loads(out)


@pytest.mark.parametrize("version", [-1, -8, -(2**31)])
def test_a_schema_version_no_d20cli_writes_moves_the_state_aside(
    tmp_path: Path, version: int
) -> None:
    """Issue 40 item 9: a negative `PRAGMA user_version` (byte 60 of the header flipped)
    ended every command, `roll 1d20` included, in an IndexError traceback and the roll was
    not made. It is a damaged file: moved aside with one warning, and the roll goes on."""
    state = tmp_path / "state"
    assert d20("roll", "1d20", "--dice", "4", state=state)[0] == 0
    db = state / "d20cli" / "state.db"
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {version}")
    conn.close()
    status, out, said = d20("roll", "1d20", "--dice", "5", state=state)
    assert status == 0 and "= 5" in out
    assert len(said) == 1 and f"schema version {version}, which no d20cli writes" in said[0]
    (aside,) = moved_aside(state)
    assert str(aside) in said[0]
    status, out, said = d20("log", "--json", state=state)
    assert status == 0 and said == [] and [row["total"] for row in json.loads(out)] == [5]
