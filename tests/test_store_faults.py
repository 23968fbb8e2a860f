"""Faults survived (issue 21, item 4): an unusable state, config or cache directory, a
full disk, a database another process holds past the busy timeout, many writers at once,
a database from a newer d20cli, private permissions, and symbolic links where d20 writes.
In every case the roll happens and is printed, at most one warning says what was not
saved, and nothing half-written is left behind."""

from __future__ import annotations

import io
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.run import run as run_tokens
from d20cli.errors import NotSaved
from d20cli.present.output import Output
from d20cli.store import database
from d20cli.store.schema import MIGRATIONS, SCHEMA_VERSION
from d20cli.store.state import State, db_path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120
ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def env(**dirs: Path) -> dict[str, str]:
    """The environment of a d20 with the roll log on, and these XDG directories."""
    base = {k: v for k, v in os.environ.items() if k != "D20_NO_LOG"}
    return {**base, "PYTHONUNBUFFERED": "0", **{k: str(v) for k, v in dirs.items()}}


def d20(
    *args: str, environ: dict[str, str], stdin: bytes | None = None, fsize: int | None = None
) -> subprocess.CompletedProcess[bytes]:
    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=environ,
        timeout=TIMEOUT,
        preexec_fn=limit,
    )


def warnings(stderr: bytes) -> list[str]:
    text = stderr.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    return [line for line in text.splitlines() if line.startswith("d20: warning:")]


def rows(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return int(conn.execute("SELECT count(*) FROM rolls").fetchone()[0])
    finally:
        conn.close()


def leftovers(folder: Path) -> list[Path]:
    """Temporary files a write left behind."""
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")] if folder.exists() else []


# -- unusable directories ----------------------------------------------------------------


def _blocker(tmp_path: Path) -> Path:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a directory should be")
    return blocker


def _read_only(tmp_path: Path) -> Path:
    folder = tmp_path / "read-only"
    (folder / "d20cli").mkdir(parents=True)
    for f in (folder / "d20cli", folder):
        f.chmod(0o555)
    return folder


def _too_long(tmp_path: Path) -> Path:
    return tmp_path / ("x" * 300)  # ENAMETOOLONG: no file system takes a name this long


UNUSABLE = {
    "a file": _blocker,
    "read-only": _read_only,
    "missing": lambda p: p / "not" / "there",
    "a name too long": _too_long,
}


@pytest.mark.parametrize("kind", list(UNUSABLE))
@pytest.mark.parametrize("which", ["XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"])
def test_an_unusable_directory_still_rolls(tmp_path: Path, kind: str, which: str) -> None:
    if kind == "read-only" and ROOT_USER:
        pytest.skip("root writes into read-only directories")
    place = UNUSABLE[kind](tmp_path)
    environ = env(
        XDG_STATE_HOME=tmp_path / "state",
        XDG_CONFIG_HOME=tmp_path / "config",
        XDG_CACHE_HOME=tmp_path / "cache",
    )
    environ[which] = str(place)
    batch = b"roll 1d20\nattempt adept fortune --dice 20 -s pd\ncheck +5 vs 15\n" * 50
    for args, stdin in ((["check", "+5", "vs", "15", "--seed", "3"], None), (["-q"], batch)):
        run = d20(*args, environ=environ, stdin=stdin)
        assert run.returncode == 0, run.stderr
        assert run.stdout.count(b"\n") >= (150 if stdin else 2)
        said = warnings(run.stderr)
        assert len(said) <= 1, said
        if which == "XDG_STATE_HOME" and kind != "missing":
            assert said and "not saved" in said[0]
    assert not leftovers(tmp_path)


COMMANDS_THAT_EDIT = [
    ("char", "add", "bob"),
    ("char", "set", "bob", "dex", "+1"),
    ("config", "set", "system", "mm"),
    ("party", "add", "p", "bob"),
]
COMMANDS_THAT_READ = [("char", "list"), ("char", "show", "bob"), ("config", "show")]


@pytest.mark.parametrize("kind", ["a name too long", "a file", "not enterable"])
def test_a_config_directory_that_cannot_be_used_is_one_line(tmp_path: Path, kind: str) -> None:
    """Issue 40 item 10: an XDG_CONFIG_HOME over 255 bytes (ENAMETOOLONG) or in a folder
    d20 may not enter (EACCES) ended `char list`, `char add`, `config set` and `party add`
    in an OSError traceback. What reads finds no file there (a name too long cannot be
    one) or says it cannot read it; what edits says it cannot write it: one line."""
    if kind == "not enterable" and ROOT_USER:
        pytest.skip("root enters any directory")
    if kind == "not enterable":
        locked = tmp_path / "locked"
        (locked / "config").mkdir(parents=True)
        locked.chmod(0)
        place = locked / "config"
    else:
        place = UNUSABLE[kind](tmp_path)
    environ = env(XDG_CONFIG_HOME=place, XDG_STATE_HOME=tmp_path / "state")
    for args in COMMANDS_THAT_EDIT + COMMANDS_THAT_READ:
        run = d20(*args, environ=environ)
        err = run.stderr.decode("utf-8", "replace")
        assert "Traceback" not in err and err.count("\n") <= 1, (args, err)
        if args in COMMANDS_THAT_EDIT:
            assert run.returncode == 2 and err.startswith("d20: error: cannot write "), err
        elif kind == "not enterable":
            assert run.returncode == 2 and err.startswith("d20: error: cannot read "), err
        else:  # nothing can be there: nothing is read
            assert run.returncode in (0, 2) and "cannot" not in err, (args, err)
    if kind == "not enterable":
        (tmp_path / "locked").chmod(0o700)


# -- a full disk -------------------------------------------------------------------------


def test_a_full_disk_before_the_database_exists(tmp_path: Path) -> None:
    environ = env(XDG_STATE_HOME=tmp_path / "state", XDG_CACHE_HOME=tmp_path / "cache")
    run = d20("roll", "1d20", "--seed", "1", environ=environ, fsize=2048)
    assert run.returncode == 0 and b"1d20" in run.stdout
    said = warnings(run.stderr)
    assert len(said) == 1 and "not saved" in said[0], said
    assert not leftovers(tmp_path)
    again = d20("roll", "1d20", environ=environ)  # room again: the database works
    assert again.returncode == 0 and not warnings(again.stderr)
    assert rows(tmp_path / "state" / "d20cli" / "state.db") == 1


def test_a_disk_that_fills_during_a_batch(tmp_path: Path) -> None:
    environ = env(XDG_STATE_HOME=tmp_path / "state", XDG_CACHE_HOME=tmp_path / "cache")
    first = d20("roll", "1d20", environ=environ)
    assert first.returncode == 0 and not warnings(first.stderr)
    db = tmp_path / "state" / "d20cli" / "state.db"
    size = db.stat().st_size
    batch = b"roll 1d20\ncheck +5 vs 15 adv\n" * 10_000
    run = d20("-q", environ=environ, stdin=batch, fsize=size + 64 * 1024)
    # the run stops where the log could not be written: what it lacks is not shown
    assert run.returncode == 3
    assert not warnings(run.stderr)
    said = run.stderr.decode().splitlines()
    assert len(said) == 1 and said[0].startswith("d20: error: cannot write the roll log ("), said
    assert "results were not shown; try again, or roll with --no-log" in said[0]
    assert not leftovers(tmp_path)
    logged = rows(db)  # whole transactions only, and the database still opens
    shown = run.stdout.count(b"\n")
    assert 1 <= logged < 20_001 and logged - 1 >= shown


# -- a database held by another process ---------------------------------------------------

HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("holding", flush=True)
time.sleep(600)
"""


def test_a_database_locked_past_the_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A roll whose row cannot be logged is not shown (NotSaved); the run stops there."""
    monkeypatch.delenv("D20_NO_LOG")
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 1.0)
    monkeypatch.setattr(database, "NOTE_AFTER", 0.2)
    State.open().close()  # the database exists, in WAL mode
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db_path())], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        stdout, stderr = io.StringIO(), io.StringIO()
        out = Output(stdout, stderr, color=False)
        context = Context()  # one run, as one `d20 < batch` is
        with pytest.raises(NotSaved) as failed:
            run_tokens(["roll", "1d20", "-q"], Options(), out, context)
        context.close()  # without waiting again
    finally:
        holder.kill()
        holder.wait()
    assert stdout.getvalue() == ""  # the roll is not shown
    said = stderr.getvalue().splitlines()
    assert len(said) == 1 and "in use by another program; waiting up to 1 seconds" in said[0]
    assert str(failed.value).startswith("cannot write the roll log (database is locked)")
    assert rows(db_path()) == 0


# -- many writers at once ----------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 8])  # a pair, and four writers a core
def test_many_processes_writing_at_once_lose_nothing(tmp_path: Path, n: int) -> None:
    environ = env(XDG_STATE_HOME=tmp_path / "state", XDG_CONFIG_HOME=tmp_path / "config")
    for i in range(n):
        assert d20("char", "add", f"c{i}", "-s", "pd", environ=environ).returncode == 0
    procs = []
    for i in range(n):
        batch = b"roll 1d20\n" * 100 + f"attempt adept fortune --dice 20 --as c{i}\n".encode()
        for args, stdin in (
            (["-q"], batch),
            (["char", "set", f"c{i}", "stealth", f"+{i}"], None),
            (["roll", "1d6", "--as", f"c{i}"], None),
        ):
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "d20cli", *args],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    cwd=ROOT,
                    env=environ,
                )
            )
            assert procs[-1].stdin is not None
            procs[-1].stdin.write(stdin or b"")
            procs[-1].stdin.close()
    for proc in procs:
        assert proc.wait(timeout=TIMEOUT) == 0
        assert proc.stderr is not None
        assert not warnings(proc.stderr.read())
        proc.stderr.close()
    db = tmp_path / "state" / "d20cli" / "state.db"
    assert rows(db) == n * 102
    conn = sqlite3.connect(db)
    held = dict(conn.execute("SELECT holder, count FROM fortune").fetchall())
    conn.close()
    assert held == {f"c{i}": 1 for i in range(n)}
    shown = d20("char", "list", "--json", environ=environ)
    assert shown.returncode == 0
    text = shown.stdout.decode()
    for i in range(n):
        assert f'"c{i}"' in text
        show = d20("char", "show", f"c{i}", "--json", environ=environ).stdout.decode()
        assert f'"stealth": "+{i}"' in show


# -- a database from a newer d20cli --------------------------------------------------------


def test_a_newer_schema_is_never_written_or_downgraded(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "d20cli"
    folder.mkdir(parents=True)
    db = folder / "state.db"
    conn = sqlite3.connect(db)
    for script in MIGRATIONS:
        conn.executescript(script)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = db.read_bytes()
    environ = env(XDG_STATE_HOME=tmp_path / "state")
    run = d20("attempt", "adept", "fortune", "--dice", "20", "-s", "pd", environ=environ)
    assert run.returncode == 0 and b"success" in run.stdout.lower()
    said = warnings(run.stderr)
    assert len(said) == 1 and "newer d20cli" in said[0] and "not saved" in said[0], said
    assert db.read_bytes() == before
    check = sqlite3.connect(db)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    assert check.execute("SELECT count(*) FROM rolls").fetchone()[0] == 0
    check.close()


# -- permissions and symbolic links ---------------------------------------------------------


def test_state_and_history_are_private(monkeypatch: pytest.MonkeyPatch) -> None:
    from d20cli.app.shell import _history
    from d20cli.store.state import history_path

    monkeypatch.delenv("D20_NO_LOG")
    old = os.umask(0o022)
    try:
        run_tokens(["roll", "1d6"], Options(), Output(io.StringIO(), io.StringIO()))
        _history(Output(io.StringIO(), io.StringIO()))
    finally:
        os.umask(old)
    for path in (db_path(), history_path()):
        assert path.stat().st_mode & 0o777 == 0o600, path
    for side in db_path().parent.glob("state.db-*"):
        assert side.stat().st_mode & 0o077 == 0, side
    assert db_path().parent.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("name", ["state.db", "state.db-wal", "state.db-shm"])
def test_a_symbolic_link_at_the_database_is_not_followed(tmp_path: Path, name: str) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    folder = tmp_path / "state" / "d20cli"
    folder.mkdir(parents=True)
    (folder / name).symlink_to(victim)
    run = d20("roll", "1d20", environ=env(XDG_STATE_HOME=tmp_path / "state"))
    assert run.returncode == 0 and b"1d20" in run.stdout
    said = warnings(run.stderr)
    assert len(said) == 1 and "symbolic link" in said[0], said
    assert victim.read_text() == "precious"
    assert (folder / name).is_symlink()


def test_a_symbolic_link_at_the_history_or_the_cache_is_not_followed(tmp_path: Path) -> None:
    from prompt_toolkit.history import InMemoryHistory

    from d20cli.app.shell import _history
    from d20cli.store.request_cache import cache_path
    from d20cli.store.state import history_path

    victim = tmp_path / "victim"
    victim.write_text("precious")
    history_path().parent.mkdir(parents=True)
    history_path().symlink_to(victim)
    err = io.StringIO()
    assert isinstance(_history(Output(io.StringIO(), err)), InMemoryHistory)
    assert "symbolic link" in err.getvalue()
    cache = cache_path()
    Path(cache).parent.mkdir(parents=True, exist_ok=True)
    Path(cache).symlink_to(victim)
    run = d20(
        "roll",
        "1d20",
        environ=env(XDG_CACHE_HOME=Path(cache).parent.parent, XDG_STATE_HOME=tmp_path / "s"),
    )
    # the link's target is not a parse cache: dropped without a word, the link replaced
    assert run.returncode == 0 and not warnings(run.stderr)
    assert Path(cache).is_file() and not Path(cache).is_symlink()
    assert victim.read_text() == "precious"


def test_a_config_file_behind_a_folder_d20_may_not_enter_is_one_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """EACCES as root cannot be made with permissions (root enters every folder), so the
    stat that meets it is made to raise it: `cannot read`, a ParseError (one line)."""
    import errno

    from d20cli.errors import ParseError
    from d20cli.store import characters, config

    def denied(path: object, *args: object, **kwargs: object) -> os.stat_result:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(os, "stat", denied)
    with pytest.raises(ParseError, match=r"cannot read .*config.toml: Permission denied"):
        config.load_config(str(tmp_path / "config.toml"))
    with pytest.raises(ParseError, match=r"cannot read .*characters.toml: Permission denied"):
        characters._read_text(tmp_path / "characters.toml")
