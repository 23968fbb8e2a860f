"""The state database: where it lives, its schema, atomic writes, and what happens when the
file or its directory is bad (a warning, never a lost roll)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from d20cli.errors import StateError
from d20cli.store import state
from d20cli.store.state import SCHEMA_VERSION, State

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    yield home


class Warnings(list[str]):
    def __call__(self, message: str) -> None:
        self.append(message)


def test_state_dir_follows_xdg(state_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert state.state_dir() == state_home / "d20cli"
    assert state.db_path() == state_home / "d20cli" / "state.db"
    assert state.history_path() == state_home / "d20cli" / "history"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert state.state_dir() == Path.home() / ".local" / "state" / "d20cli"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/path")  # not absolute: ignored, as XDG says
    assert state.state_dir() == Path.home() / ".local" / "state" / "d20cli"


def test_new_database_is_versioned_and_in_wal_mode(state_home: Path) -> None:
    warn = Warnings()
    s = State.open(warn=warn)
    assert s.db.persistent and s.db.path == state.db_path() and s.db.path.exists()
    assert s.db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert s.db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert s.db.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert warn == []
    s.close()


def test_values_persist_between_opens() -> None:
    s = State.open()
    s.settings.set("boon", "on")
    assert s.fortune.add("player", 2) == (1, True)
    s.last_rolls.set("player", "attempt adept", "pendagger", {"natural": 7, "outcome": "x"})
    s.close()
    again = State.open()
    assert again.settings.get("boon") == "on"
    assert again.fortune.held("player") == 1
    last = again.last_rolls.get("player")
    assert last is not None
    assert (last.request, last.system, last.result) == (
        "attempt adept",
        "pendagger",
        {"natural": 7, "outcome": "x"},
    )
    assert again.db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    again.settings.set("boon", None)
    assert again.settings.get("boon") is None
    again.close()


def test_fortune_count_is_capped_and_spent_per_holder() -> None:
    s = State.memory()
    assert s.fortune.held("ana") == 0
    assert s.fortune.add("ana", 2) == (1, True)
    assert s.fortune.add("ana", 2) == (2, True)
    assert s.fortune.add("ana", 2) == (2, False)  # at the most: nothing added
    assert s.fortune.add("ana", 4) == (3, True)  # the boon raises the most
    assert s.fortune.held("bo") == 0  # another holder has their own count
    assert s.fortune.take("ana") == 2
    assert s.fortune.take("bo") is None  # none held: nothing to spend
    assert s.fortune.held("bo") == 0
    with pytest.raises(StateError):
        s.fortune.set("ana", -1)


def test_a_failed_change_is_rolled_back() -> None:
    s = State.memory()
    s.fortune.set("ana", 1)
    with pytest.raises(RuntimeError), s.db.transaction() as conn:
        conn.execute("UPDATE fortune SET count = 5 WHERE holder = 'ana'")
        raise RuntimeError("halfway")
    assert s.fortune.held("ana") == 1


def test_corrupt_database_is_moved_aside_with_a_warning() -> None:
    path = state.db_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not an SQLite database at all" * 100)
    warn = Warnings()
    s = State.open(warn=warn)
    assert s.db.persistent
    moved = list(path.parent.glob("state.db.corrupt-*"))
    assert len(moved) == 1
    assert moved[0].read_bytes().startswith(b"this is not an SQLite")  # kept, not deleted
    assert len(warn) == 1 and "could not be read" in warn[0] and str(moved[0]) in warn[0]
    assert s.fortune.add("player", 2) == (1, True)  # the new database works
    s.close()


def test_unwritable_state_directory_warns_and_keeps_state_in_memory(state_home: Path) -> None:
    # A file where the directory should be: it cannot be created, whoever runs the test.
    state_home.parent.mkdir(parents=True, exist_ok=True)
    state_home.write_text("a file, not a directory")
    warn = Warnings()
    s = State.open(warn=warn)
    assert not s.db.persistent
    assert len(warn) == 1 and "cannot create the state directory" in warn[0]
    assert s.fortune.add("player", 2) == (1, True)  # the run goes on
    assert s.fortune.held("player") == 1


def test_full_disk_warns_and_goes_on_in_memory() -> None:
    warn = Warnings()
    s = State.open(warn=warn)
    s.fortune.set("player", 1)
    pages = s.db.conn.execute("PRAGMA page_count").fetchone()[0]
    s.db.conn.execute(f"PRAGMA max_page_count = {pages}")  # the next growth fails: SQLITE_FULL
    s.last_rolls.set("player", "attempt adept", "pendagger", {"big": "x" * 100_000})
    assert len(warn) == 1 and "cannot save the last roll" in warn[0]
    assert not s.db.persistent
    assert s.fortune.held("player") == 1  # what the file held was carried over
    last = s.last_rolls.get("player")
    assert last is not None and last.result["big"] == "x" * 100_000


def test_database_from_a_newer_version_is_left_alone() -> None:
    path = state.db_path()
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    warn = Warnings()
    s = State.open(warn=warn)
    assert not s.db.persistent
    assert len(warn) == 1 and "newer d20cli" in warn[0]
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    check.close()


def test_a_runs_state_is_opened_once_and_closed_with_it(state_home: Path) -> None:
    import io

    from d20cli.app.context import Context
    from d20cli.present.output import Output

    out = Output(io.StringIO(), io.StringIO())
    context = Context()
    first = context.state(out)
    assert context.state(out) is first
    first.last_rolls.set("player", "luck", "pendagger", {"natural": 2}, defer=True)
    context.close()  # writes what was deferred
    again = Context()
    assert again.state(out) is not first
    last = again.state(out).last_rolls.get("player")
    assert last is not None and last.result == {"natural": 2}
    again.close()


def test_two_processes_writing_at_once_lose_nothing(state_home: Path) -> None:
    code = textwrap.dedent(
        """
        import sys
        from d20cli.store.state import State
        s = State.open()
        for _ in range(150):
            s.settings.update("counter", lambda v: str(int(v or 0) + 1))
            s.fortune.add(sys.argv[1], 1000)
        s.close()
        """
    )
    env = {"XDG_STATE_HOME": str(state_home), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    State.open().close()  # create the database first, so both processes open it
    procs = [
        subprocess.Popen([sys.executable, "-c", code, name], env=env, stderr=subprocess.PIPE)
        for name in ("ana", "bo", "ana")
    ]
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err.decode()
        assert not err, err.decode()  # no warning: every write went to the file
    s = State.open()
    assert s.settings.get("counter") == "450"
    assert s.fortune.held("ana") == 300 and s.fortune.held("bo") == 150
    s.close()


def test_deferred_last_roll_is_written_on_flush_read_and_close() -> None:
    s = State.open()
    other = State.open()  # another process's view of the same file
    s.last_rolls.set("player", "luck", "pendagger", {"natural": 3}, defer=True)
    assert other.last_rolls.get("player") is None  # not written yet
    s.last_rolls.set("player", "luck", "pendagger", {"natural": 4}, defer=True)
    s.last_rolls.flush()
    last = other.last_rolls.get("player")
    assert last is not None and last.result == {"natural": 4}
    s.last_rolls.set("player", "luck", "pendagger", {"natural": 5}, defer=True)
    mine = s.last_rolls.get("player")  # a read sees its own deferred write
    assert mine is not None and mine.result == {"natural": 5}
    s.last_rolls.set("player", "luck", "pendagger", {"natural": 6}, defer=True)
    s.close()
    last = other.last_rolls.get("player")
    assert last is not None and last.result == {"natural": 6}
    other.close()


def test_a_deferred_last_roll_is_saved_at_exit(state_home: Path) -> None:
    code = "from d20cli.__main__ import main\nmain(['luck', '-s', 'pd', '--dice', '9', '-q'])\n"
    env = {"XDG_STATE_HOME": str(state_home), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    last = State.open().last_rolls.get("player")
    assert last is not None and last.result["natural"] == 9
