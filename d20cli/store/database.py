"""The state database: where it is, opening it (WAL, the busy timeout, migrations), one
transaction per change, and what happens when the file cannot be used.

One SQLite database at `$XDG_STATE_HOME/d20cli/state.db` (default
`~/.local/state/d20cli/state.db`); the shell's history file sits beside it. Its tables are
read and written by one repository each (d20cli.store.settings, d20cli.store.last_roll,
d20cli.store.rolllog); `d20cli.store.state.State` holds one open database with them.

- WAL journal and a busy timeout: two processes writing at once wait for each other
  instead of failing or losing a write. Every change runs in one `BEGIN IMMEDIATE`
  transaction, so a read-modify-write (add a fortune die up to the most) is atomic.
- The schema is versioned with `PRAGMA user_version` (d20cli.store.schema).
- A database that cannot be read (corrupt, not a database), at open or at any later read
  or write (a damaged page in the middle of the file), is moved aside as
  `state.db.corrupt-<time>` with one warning, never silently replaced, and a new one begins.
  So is one that holds a value d20 does not write (text for a number, a seed that is not
  hex, JSON nested too deeply: `BadValue`), found when it is read.
- A directory that cannot be written (read-only, full, missing permissions), a database
  another process holds past the timeout, or one from a newer d20cli gives a warning, and
  the state lives in memory for this run: the roll still happens. What the file held is
  then unknown (`unusable` says why), and the commands that show it say so rather than
  show an empty log or no fortune dice. The roll log's writes are durable instead
  (`write(durable=True)`): once the file was opened they never go on in memory, and
  fail (d20cli.store.rolllog).
- A lock is waited for in slices of SLICE seconds, so Ctrl-C stops the wait at once.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

from d20cli.errors import StateError
from d20cli.store.files import deeper_than, move_aside, no_link, private_file, xdg_dir
from d20cli.store.row_fields import INT64
from d20cli.store.row_fields import clean as clean  # (its home before; imported from here)
from d20cli.store.schema import MIGRATIONS, SCHEMA_VERSION

Warn = Callable[[str], None]
T = TypeVar("T")

BUSY_TIMEOUT = 10.0  # seconds a writer waits for another process's transaction
NOTE_AFTER = 1.0  # seconds of that wait after which it says so on stderr
#: The longest SQLite waits for a lock at a time before Python runs again: a signal
#: (Ctrl-C) met during a long wait is acted on within this time.
SLICE = 0.05
NOT_SAVED = "fortune dice and the roll log are not saved this time"

# SQLite result codes that mean "this file is not a readable database".
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
_SQLITE_IOERR = 10
_SQLITE_FULL = 13
LOW_SPACE = 1 << 20  # bytes free on a device below which a failed write blames it


def state_dir() -> Path:
    """The directory for d20cli's state (created by `Database.open` when needed)."""
    return Path(xdg_dir("XDG_STATE_HOME", os.path.join(".local", "state"))) / "d20cli"


def db_path() -> Path:
    return state_dir() / "state.db"


def history_path() -> Path:
    """The interactive shell's history file."""
    return state_dir() / "history"


class BadValue(sqlite3.DatabaseError):
    """A value in the database that d20 does not write (by hand, by another program, a
    file of another tool): it is handled as a damaged page is (the file moved aside with
    one warning, and a new one started), never a traceback on every run. Raised by the
    checks below, which each reader applies to every value it reads."""


def is_corrupt(err: sqlite3.DatabaseError) -> bool:
    """Whether `err` says the file is damaged, is not a database, or holds a value d20
    does not write (`BadValue`)."""
    if isinstance(err, BadValue):
        return True
    code = getattr(err, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    text = str(err).lower()
    return "not a database" in text or "malformed" in text


class Database:
    """An open state database. Use `Database.open()`; `Database.memory()` for a throwaway
    one. Reads go through `read`/`stream` and changes through `write`: a database error
    there is handled (moved aside, or on in memory) and never reaches the caller as a
    sqlite3 exception."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None, warn: Warn) -> None:
        self.conn = conn
        self.path = path  # None: in memory (nothing persists)
        self.warn = warn
        # Why the database at its path could not be used (None: it could, or there was
        # none to read): the state in memory then knows nothing of what the file holds.
        self.unusable: str | None = None
        # Why the state went on in memory after the file was opened (a write that could
        # not be saved there): a durable write (`write(durable=True)`) then fails.
        self.moved: str | None = None
        self.on_close: list[Callable[[], None]] = []  # saves deferred writes first

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def memory(cls, warn: Warn | None = None, unusable: str | None = None) -> Database:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db = cls(conn, None, warn if warn is not None else _ignore)
        db.migrate()
        db.unusable = unusable
        return db

    @classmethod
    def open(cls, path: Path | None = None, warn: Warn | None = None) -> Database:
        """Open (or create) the database at `path` (default: `db_path()`).

        Never raises for a bad file or directory: it warns through `warn` and falls back
        (a corrupt file is moved aside and a new one started; an unwritable place gives a
        database in memory)."""
        say = warn if warn is not None else _ignore
        target = path or db_path()
        try:
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as err:
            why = f"cannot create the state directory {target.parent} ({err.strerror or err})"
            say(f"{why}; fortune dice, the roll log and history are not saved this time")
            return cls.memory(say, why)
        try:  # created 0600; a symbolic link planted there is not followed
            private_file(str(target))
            for side in ("-wal", "-shm"):
                no_link(str(target) + side)
        except OSError as err:
            why = f"cannot use the state database {err.filename or target} ({err.strerror or err})"
            say(f"{why}; {NOT_SAVED}")
            return cls.memory(say, why)
        for attempt in range(2):
            try:
                return cls._connect_waiting(target, say)
            except sqlite3.DatabaseError as err:
                if attempt == 0 and is_corrupt(err) and target.exists():
                    moved = move_aside(target, say)
                    if moved is not None:
                        say(
                            f"the state database {target} could not be read ({err}); "
                            f"it was moved to {moved} and a new one started"
                        )
                        continue
                why = f"cannot use the state database {target} ({err})"
                say(f"{why}; {NOT_SAVED}")
                return cls.memory(say, why)
            except StateError as err:
                say(f"{err.message}; {NOT_SAVED}")
                return cls.memory(say, err.message)
        return cls.memory(say)  # pragma: no cover - the loop always returns

    @classmethod
    def _connect_waiting(cls, path: Path, warn: Warn) -> Database:
        """`_connect`, tried again while another process holds the database. Setting up a
        new file (WAL mode, the schema) can meet a lock that SQLite reports at once rather
        than waiting for, to avoid a deadlock: two processes starting together both hit it."""
        deadline = time.monotonic() + BUSY_TIMEOUT
        pause = 0.01
        while True:
            try:
                return cls._connect(path, warn)
            except sqlite3.OperationalError as err:
                busy = "locked" in str(err) or "busy" in str(err)
                if not busy or time.monotonic() + pause > deadline:
                    raise
                time.sleep(pause)
                pause = min(pause * 2, 0.2)

    @classmethod
    def _connect(cls, path: Path, warn: Warn) -> Database:
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        try:
            # a lock met while setting up is waited for in slices (_connect_waiting)
            conn.execute(f"PRAGMA busy_timeout = {_ms(SLICE)}")
            # Reading the schema fails here, not later, when the file is not a database.
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            _not_newer(path, int(conn.execute("PRAGMA user_version").fetchone()[0]))
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()  # (a write)
            if mode is None or str(mode[0]).lower() != "wal":
                warn(f"the state database {path} is not in WAL mode ({mode})")
            conn.execute("PRAGMA synchronous = NORMAL")
            db = cls(conn, path, warn)
            db.migrate()
            conn.execute(f"PRAGMA busy_timeout = {_ms(min(NOTE_AFTER, BUSY_TIMEOUT))}")
            return db
        except BaseException:
            conn.close()
            raise

    def migrate(self) -> None:
        version = int(self.conn.execute("PRAGMA user_version").fetchone()[0])
        _not_newer(self.path, version)
        while version < SCHEMA_VERSION:
            with self.transaction() as conn:
                # Re-read inside the lock: another process may have migrated meanwhile.
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
                _not_newer(self.path, version)
                if version >= SCHEMA_VERSION:
                    break
                for statement in MIGRATIONS[version].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                version += 1
                conn.execute(f"PRAGMA user_version = {version}")

    def close(self) -> None:
        try:
            for save in self.on_close:
                save()
        finally:
            self.conn.close()

    @property
    def persistent(self) -> bool:
        return self.path is not None

    def vacuum(self) -> str | None:
        """Give the pages that deleted rows left free back to the file system (`d20 log
        --clear` and `--prune`): VACUUM, then a checkpoint that empties the write-ahead
        log. None when it is done (or the database is in memory); else why not (no room
        for the copy VACUUM writes, another program in the middle of a change): the rows
        stay deleted and the file keeps its size, its free pages used by later rows."""
        if not self.persistent:
            return None
        try:
            self.conn.execute("VACUUM")
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as err:
            return _cause(err, self.path)
        return None

    def disk_bytes(self) -> int:
        """The bytes of the database's files (the database and its write-ahead log); 0 in
        memory."""
        if self.path is None:
            return 0
        total = 0
        for name in (str(self.path), str(self.path) + "-wal"):
            with suppress(OSError):
                total += os.stat(name).st_size
        return total

    # -- transactions --------------------------------------------------------------------

    @contextmanager
    def transaction(self, wait: bool = True) -> Iterator[sqlite3.Connection]:
        """One atomic change: `BEGIN IMMEDIATE` takes the write lock at once (waiting up to
        the busy timeout for another process; `wait=False`: hardly at all), COMMIT on
        success, ROLLBACK on any error, an interrupt too, even one that comes just after
        the BEGIN. The error raised is the one that ended the change: SQLite rolls back by
        itself on some (a full disk), and the ROLLBACK that then fails is not what went
        wrong."""
        conn = self.conn
        try:
            self._begin(wait)
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise

    def _begin(self, wait: bool = True) -> None:
        """BEGIN IMMEDIATE, waiting up to BUSY_TIMEOUT (`wait=False`: one SLICE) for
        another process's lock: after NOTE_AFTER seconds a note says so, and past the
        timeout "database is locked" is raised (the caller then goes on without saving,
        with a warning). SQLite waits a SLICE at a time, so Ctrl-C stops the wait at once
        rather than at its end."""
        conn = self.conn
        conn.execute(f"PRAGMA busy_timeout = {_ms(SLICE)}")
        try:
            start = time.monotonic()
            noted = False
            while True:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as err:
                    waited = time.monotonic() - start
                    busy = "locked" in str(err) or "busy" in str(err)
                    if not busy or not wait or waited >= BUSY_TIMEOUT:
                        raise
                if not noted and waited >= min(NOTE_AFTER, BUSY_TIMEOUT) - SLICE:
                    noted = True
                    self.warn(
                        f"the state database {self.path} is in use by another program; "
                        f"waiting up to {BUSY_TIMEOUT:g} seconds"
                    )
        finally:
            conn.execute(f"PRAGMA busy_timeout = {_ms(min(NOTE_AFTER, BUSY_TIMEOUT))}")

    def write(
        self,
        what: str,
        change: Callable[[sqlite3.Connection], T],
        durable: bool = False,
        wait: bool = True,
    ) -> T:
        """Run `change` in a transaction. A damaged file is moved aside and the change made
        in a new one; a full disk, a read-only file or a lock held too long is a warning,
        and the state goes on in memory (with what it held copied over) so the run
        continues.

        durable: the change must reach the file (the roll log's rows, before the output
        that shows them): instead of going on in memory, a StateError whose message is the
        cause ("database is locked"), also when an earlier write already went on in
        memory; a database in memory from the start (warned about when it was opened)
        takes it. wait: False to wait for another process's lock only a moment."""
        failed: sqlite3.DatabaseError | None = None
        for _ in range(2):  # the file, then the new one that replaced a damaged file
            if durable and self.moved is not None:
                raise StateError(self.moved)
            try:
                with self.transaction(wait) as conn:
                    return change(conn)
            except sqlite3.DatabaseError as err:
                if not self.persistent:
                    raise StateError(f"cannot save {what}: {err}") from err
                failed = err
                if not is_corrupt(err):
                    break
                self.damaged(err)
        assert failed is not None
        cause = _cause(failed, self.path)
        if durable:
            raise StateError(cause) from failed
        # the state changes before the warning is written: writing it saves what the
        # output shows (group commit), through this database
        message = (
            f"cannot save {what} in {self.path} ({cause}); it is kept only until this program ends"
        )
        self.moved = cause
        self._to_memory()
        self.warn(message)
        with self.transaction() as conn:
            return change(conn)

    def read(self, what: str, query: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read. A damaged file is moved aside (one warning) and the read made in the
        new, empty one; any other database error is a StateError saying the state could
        not be read."""
        for _ in range(2):  # the file, then the new one that replaced a damaged file
            try:
                return query(self.conn)
            except sqlite3.DatabaseError as err:
                if not self.persistent or not is_corrupt(err):
                    why = _cause(err, self.path)
                    raise StateError(f"{what} could not be read ({why})") from err
                self.damaged(err)
        raise StateError(f"{what} could not be read")  # pragma: no cover - damaged twice

    def stream(self, what: str, query: Callable[[sqlite3.Connection], Iterator[T]]) -> Iterator[T]:
        """`read` for rows streamed one by one: a damaged page met half-way ends the stream
        (after the rows before it) with the file moved aside."""
        try:
            yield from query(self.conn)
        except sqlite3.DatabaseError as err:
            if not self.persistent or not is_corrupt(err):
                raise StateError(f"{what} could not be read ({_cause(err, self.path)})") from err
            self.damaged(err)

    def damaged(self, err: sqlite3.DatabaseError) -> None:
        """The file turned out damaged after it was opened: move it aside and start a new
        one (in memory when that fails), with one warning."""
        path = self.path
        assert path is not None
        self.conn.close()
        said: list[str] = []
        moved = move_aside(path, said.append)
        fresh: Database | None = None
        if moved is not None:
            try:
                fresh = Database._connect_waiting(path, said.append)
            except (sqlite3.Error, StateError):
                fresh = None
        if fresh is not None:  # (the new database in place before the warning is written)
            self.conn = fresh.conn
            self.warn(
                f"the state database {path} is damaged ({err}); "
                f"it was moved to {moved} and a new one started"
            )
            return
        why = f"the state database {path} is damaged ({err})"
        memory = Database.memory(self.warn)
        self.conn, self.path, self.unusable, self.moved = memory.conn, None, why, why
        self.warn(f"{why}; {NOT_SAVED}" + (f" ({said[0]})" if said else ""))

    def _to_memory(self) -> None:
        memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        try:
            self.conn.backup(memory)
        except sqlite3.DatabaseError as err:
            memory.close()
            memory = Database.memory(self.warn).conn
            self.unusable = f"the state database {self.path} could not be read ({err})"
        self.conn.close()
        self.conn = memory
        self.path = None


def _cause(err: sqlite3.Error, path: Path | None) -> str:
    """What went wrong, in words: SQLite's message, and when the device holding the
    database has (almost) no room left, that too (SQLite reports a full device as "disk
    is full" or "disk I/O error")."""
    text = str(err)
    code = getattr(err, "sqlite_errorcode", None)
    if code is not None and (code & 0xFF) in (_SQLITE_IOERR, _SQLITE_FULL) and path is not None:
        try:
            st = os.statvfs(path.parent)
        except OSError:
            return text
        free = st.f_bavail * st.f_frsize
        if free < LOW_SPACE:
            text += f": no space left on its device ({free:,} bytes free)"
    return text


def _not_newer(path: Path | None, version: int) -> None:
    """StateError for a database of a newer schema: it is never written (not even its
    journal mode), so the newer d20cli finds it as it left it. BadValue for a version no
    d20cli writes (below 0: a flipped header byte), a damaged file."""
    if version < 0:
        raise BadValue(f"schema version {version}, which no d20cli writes")
    if version > SCHEMA_VERSION:
        raise StateError(
            f"the state database {path} was written by a newer d20cli "
            f"(schema {version}, this one knows {SCHEMA_VERSION}); it is left as it is"
        )


def _ms(seconds: float) -> int:
    return int(seconds * 1000)


# --- the values read back: each is what d20 writes there, else BadValue ----------------

#: How deeply a JSON value d20 keeps in a column nests at most (a row's dice or house
#: rules: d20cli.store.row_fields.MAX_ROW_DEPTH; a last roll's result, a few more).
MAX_STORED_DEPTH = 32


def _bad(where: str, value: object, should: str) -> BadValue:
    shown = repr(value)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return BadValue(f"{where} holds {shown}, not {should}")


def stored_int(value: object, where: str, lo: int = -INT64, hi: int = INT64 - 1) -> int:
    """`value` (the column `where`, "sessions.next") when it is a whole number from `lo`
    to `hi`; else BadValue."""
    if isinstance(value, int) and lo <= value <= hi:
        return value
    raise _bad(where, value, f"a whole number from {lo:,} to {hi:,}")


def stored_text(value: object, where: str) -> str:
    """`value` when it is text; else BadValue."""
    if isinstance(value, str):
        return value
    raise _bad(where, value, "text")


def stored_text_or_none(value: object, where: str) -> str | None:
    """`value` when it is text or NULL; else BadValue."""
    return None if value is None else stored_text(value, where)


def stored_json(value: object, where: str, kind: type, most: int = MAX_STORED_DEPTH) -> Any:
    """The JSON text `value` decoded, when it is text, decodes to a `kind` (list, dict)
    and nests at most `most` levels; else BadValue."""
    if isinstance(value, str):
        try:
            data = json.loads(value)
        except (ValueError, RecursionError):
            data = None
        # (no more brackets than levels: it cannot nest deeper; the usual row, and cheap)
        shallow = value.count("[") + value.count("{") <= most
        if isinstance(data, kind) and (shallow or not deeper_than(data, most)):
            return data
    raise _bad(where, value, f"the JSON of a {kind.__name__} at most {most} levels deep")


def clean_or_none(text: str | None) -> str | None:
    return None if text is None else clean(text)


def clean_json(text: str) -> str:
    """JSON `text` whose strings hold no lone surrogate: the program writes JSON in ASCII
    (d20cli.results), so one comes as a `\\udcxx` escape; each becomes U+FFFD, as
    `clean` makes it in plain text."""
    if "\\ud" not in text:  # (the usual case: one search)
        return text
    return json.dumps(_clean_value(json.loads(text)))


def _clean_value(value: object) -> object:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [_clean_value(v) for v in value]
    if isinstance(value, dict):
        return {clean(k): _clean_value(v) for k, v in value.items()}
    return value


def _ignore(message: str) -> None:
    """The default warning sink: say nothing."""
