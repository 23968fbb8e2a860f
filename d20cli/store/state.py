"""What persists between runs: fortune dice, the last pendagger roll, settings, the roll
log, history.

One SQLite database at `$XDG_STATE_HOME/d20cli/state.db` (default
`~/.local/state/d20cli/state.db`); the shell's history file sits beside it. Only the edge
(run, shell, fortune) imports this module; the rules never do.

- WAL journal and a busy timeout: two processes writing at once wait for each other
  instead of failing or losing a write. Every change runs in one `BEGIN IMMEDIATE`
  transaction, so a read-modify-write (add a fortune die up to the most) is atomic.
- The schema is versioned with `PRAGMA user_version` (d20cli.store.schema).
- A database that cannot be read (corrupt, not a database) is moved aside as
  `state.db.corrupt-<time>` with a warning, never silently replaced, and a new one begins.
- A directory that cannot be written (read-only, full, missing permissions) or a database
  from a newer d20cli gives a warning, and the state lives in memory for this run: the roll
  still happens.
"""

from __future__ import annotations

import atexit
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from d20cli.errors import StateError
from d20cli.store.files import move_aside, no_link, private_file, xdg_dir
from d20cli.store.schema import MIGRATIONS as MIGRATIONS
from d20cli.store.schema import SCHEMA_VERSION as SCHEMA_VERSION

Warn = Callable[[str], None]

BUSY_TIMEOUT = 10.0  # seconds a writer waits for another process's transaction
NOTE_AFTER = 1.0  # seconds of that wait after which it says so on stderr

# SQLite result codes that mean "this file is not a readable database".
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26


def state_dir() -> Path:
    """The directory for d20cli's state (created by `State.open` when needed)."""
    return Path(xdg_dir("XDG_STATE_HOME", os.path.join(".local", "state"))) / "d20cli"


def db_path() -> Path:
    return state_dir() / "state.db"


def history_path() -> Path:
    """The interactive shell's history file."""
    return state_dir() / "history"


def _is_corrupt(err: sqlite3.DatabaseError) -> bool:
    code = getattr(err, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    text = str(err).lower()
    return "not a database" in text or "malformed" in text


@dataclass(frozen=True)
class LastRoll:
    """The last pendagger attempt or luck roll of a holder (what `fortune spend` rerolls)."""

    request: str
    system: str
    result: dict[str, Any]
    at: float


class State:
    """An open state database. Use `State.open()`; `State.memory()` for a throwaway one."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None, warn: Warn) -> None:
        self.conn = conn
        self.path = path  # None: in memory (nothing persists)
        self.warn = warn
        # Last rolls written with defer=True, saved by `flush` (before any read of the last
        # roll, on close, at exit): `--repeat 1000000` does not pay a transaction per roll.
        self._pending: dict[str, tuple[str, str, str, float]] = {}

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def memory(cls, warn: Warn | None = None) -> State:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        state = cls(conn, None, warn if warn is not None else _ignore)
        state._migrate()
        return state

    @classmethod
    def open(cls, path: Path | None = None, warn: Warn | None = None) -> State:
        """Open (or create) the database at `path` (default: `db_path()`).

        Never raises for a bad file or directory: it warns through `warn` and falls back
        (a corrupt file is moved aside and a new one started; an unwritable place gives a
        state in memory)."""
        say = warn if warn is not None else _ignore
        target = path or db_path()
        try:
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as err:
            say(
                f"cannot create the state directory {target.parent} ({err.strerror or err}); "
                "fortune dice, the roll log and history are not saved this time"
            )
            return cls.memory(say)
        try:  # created 0600; a symbolic link planted there is not followed
            private_file(str(target))
            for side in ("-wal", "-shm"):
                no_link(str(target) + side)
        except OSError as err:
            say(
                f"cannot use the state database {err.filename or target} "
                f"({err.strerror or err}); fortune dice and the roll log are not saved this time"
            )
            return cls.memory(say)
        for attempt in range(2):
            try:
                return cls._connect_waiting(target, say)
            except sqlite3.DatabaseError as err:
                if attempt == 0 and _is_corrupt(err) and target.exists():
                    moved = move_aside(target, say)
                    if moved is not None:
                        say(
                            f"the state database {target} could not be read ({err}); "
                            f"it was moved to {moved} and a new one started"
                        )
                        continue
                say(
                    f"cannot use the state database {target} ({err}); "
                    "fortune dice and the roll log are not saved this time"
                )
                return cls.memory(say)
            except StateError as err:
                say(f"{err.message}; fortune dice and the roll log are not saved this time")
                return cls.memory(say)
        return cls.memory(say)  # pragma: no cover - the loop always returns

    @classmethod
    def _connect_waiting(cls, path: Path, warn: Warn) -> State:
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
    def _connect(cls, path: Path, warn: Warn) -> State:
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {_ms(min(NOTE_AFTER, BUSY_TIMEOUT))}")
            # Reading the schema fails here, not later, when the file is not a database.
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            _not_newer(path, int(conn.execute("PRAGMA user_version").fetchone()[0]))
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()  # (a write)
            if mode is None or str(mode[0]).lower() != "wal":
                warn(f"the state database {path} is not in WAL mode ({mode})")
            conn.execute("PRAGMA synchronous = NORMAL")
            state = cls(conn, path, warn)
            state._migrate()
            return state
        except BaseException:
            conn.close()
            raise

    def _migrate(self) -> None:
        version = int(self.conn.execute("PRAGMA user_version").fetchone()[0])
        _not_newer(self.path, version)
        while version < SCHEMA_VERSION:
            with self.transaction() as conn:
                # Re-read inside the lock: another process may have migrated meanwhile.
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
                if version >= SCHEMA_VERSION:
                    break
                for statement in MIGRATIONS[version].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                version += 1
                conn.execute(f"PRAGMA user_version = {version}")

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.conn.close()

    @property
    def persistent(self) -> bool:
        return self.path is not None

    # -- transactions --------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic change: `BEGIN IMMEDIATE` takes the write lock at once (waiting up to
        the busy timeout for another process), COMMIT on success, ROLLBACK on any error."""
        self._begin()
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def _begin(self) -> None:
        """BEGIN IMMEDIATE, waiting up to BUSY_TIMEOUT for another process's lock: after
        NOTE_AFTER seconds a note says so, and past the timeout "database is locked" is
        raised (the caller then goes on without saving, with a warning)."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) and "busy" not in str(err):
                raise
        self.warn(
            f"the state database {self.path} is in use by another program; "
            f"waiting up to {BUSY_TIMEOUT:g} seconds"
        )
        self.conn.execute(f"PRAGMA busy_timeout = {_ms(max(BUSY_TIMEOUT - NOTE_AFTER, 0))}")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {_ms(min(NOTE_AFTER, BUSY_TIMEOUT))}")

    def _write(self, what: str, change: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run `change` in a transaction. A full disk or a read-only file is a warning, and
        the state goes on in memory (with what it held copied over) so the run continues."""
        try:
            with self.transaction() as conn:
                return change(conn)
        except sqlite3.OperationalError as err:
            if not self.persistent:
                raise StateError(f"cannot save {what}: {err}") from err
            self.warn(
                f"cannot save {what} in {self.path} ({err}); "
                "it is kept only until this program ends"
            )
            self._to_memory()
            with self.transaction() as conn:
                return change(conn)

    def _to_memory(self) -> None:
        memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        try:
            self.conn.backup(memory)
        except sqlite3.DatabaseError:
            memory.close()
            fresh = State.memory(self.warn)
            memory = fresh.conn
        self.conn.close()
        self.conn = memory
        self.path = None

    # -- settings ------------------------------------------------------------------------

    def get(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row is not None else default

    def set(self, key: str, value: str | None) -> None:
        key, value = _clean(key), None if value is None else _clean(value)

        def change(conn: sqlite3.Connection) -> None:
            if value is None:
                conn.execute("DELETE FROM settings WHERE key = ?", (key,))
            else:
                conn.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

        self._write(f"the setting {key!r}", change)

    def update(self, key: str, fn: Callable[[str | None], str | None]) -> str | None:
        """Read-modify-write one setting atomically; returns the new value."""

        def change(conn: sqlite3.Connection) -> str | None:
            row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
            new = fn(str(row[0]) if row is not None else None)
            if new is None:
                conn.execute("DELETE FROM settings WHERE key = ?", (key,))
            else:
                conn.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, new),
                )
            return new

        result: str | None = self._write(f"the setting {key!r}", change)
        return result

    # -- fortune dice --------------------------------------------------------------------

    def fortune(self, holder: str) -> int:
        """How many fortune dice `holder` holds."""
        holder = _clean(holder)
        row = self.conn.execute("SELECT count FROM fortune WHERE holder = ?", (holder,)).fetchone()
        return int(row[0]) if row is not None else 0

    def add_fortune(self, holder: str, most: int) -> tuple[int, bool]:
        """Add one fortune die unless `holder` already holds `most`.
        Returns (count now held, whether a die was added), atomically."""
        holder = _clean(holder)

        def change(conn: sqlite3.Connection) -> tuple[int, bool]:
            row = conn.execute("SELECT count FROM fortune WHERE holder = ?", (holder,)).fetchone()
            held = int(row[0]) if row is not None else 0
            if held >= most:
                return held, False
            _set_fortune(conn, holder, held + 1)
            return held + 1, True

        added: tuple[int, bool] = self._write("the fortune dice", change)
        return added

    def take_fortune(self, holder: str) -> int | None:
        """Spend one fortune die: the count left, or None if `holder` held none."""
        holder = _clean(holder)

        def change(conn: sqlite3.Connection) -> int | None:
            row = conn.execute("SELECT count FROM fortune WHERE holder = ?", (holder,)).fetchone()
            held = int(row[0]) if row is not None else 0
            if held <= 0:
                return None
            _set_fortune(conn, holder, held - 1)
            return held - 1

        left: int | None = self._write("the fortune dice", change)
        return left

    def set_fortune(self, holder: str, count: int) -> None:
        holder = _clean(holder)
        if count < 0:
            raise StateError("a fortune die count cannot be negative")
        self._write("the fortune dice", lambda conn: _set_fortune(conn, holder, count))

    # -- the last pendagger roll ---------------------------------------------------------

    def last_roll(self, holder: str) -> LastRoll | None:
        holder = _clean(holder)
        self.flush()
        row = self.conn.execute(
            "SELECT request, system, result, at FROM last_roll WHERE holder = ?", (holder,)
        ).fetchone()
        if row is None:
            return None
        try:
            result = json.loads(row[2])
        except ValueError:
            self.warn("the saved last roll could not be read; it was ignored")
            return None
        if not isinstance(result, dict):
            return None
        return LastRoll(str(row[0]), str(row[1]), result, float(row[3]))

    def set_last_roll(
        self,
        holder: str,
        request: str,
        system: str,
        result: dict[str, Any],
        defer: bool = False,
    ) -> None:
        """Remember `holder`'s last roll. defer: keep it in memory until `flush` (the next
        read, close, or the end of the program), so many rolls in a row cost one write."""
        data = _clean(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
        self._pending[_clean(holder)] = (_clean(request), _clean(system), data, time.time())
        if not defer:
            self.flush()

    def flush(self) -> None:
        """Write the deferred last rolls, in one transaction."""
        if not self._pending:
            return
        rows = [(holder, *row) for holder, row in self._pending.items()]
        self._pending.clear()

        def change(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "INSERT INTO last_roll (holder, request, system, result, at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (holder) DO UPDATE SET "
                "request = excluded.request, system = excluded.system, "
                "result = excluded.result, at = excluded.at",
                rows,
            )

        self._write("the last roll", change)

    # -- the roll log (d20cli.store.rolllog) ---------------------------------------------------

    def add_rolls(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Append rows (at, character, system, verb, request, dice, total, outcome, source)
        to the roll log in one transaction."""
        if not rows:
            return
        # SQLite holds 64-bit integers; a larger total (which the dice never give, see
        # dice.MAX_TOTAL) is stored as NULL, and the text a user typed (a character's name,
        # the request, labels in the dice) is made valid UTF-8, rather than failing the
        # whole write. The other columns are the program's own ASCII words.
        values: list[Any] = []  # every row's values, one after another
        for at, who, sy, verb, text, dice, total, oc, src in rows:
            values += (at, _clean_or_none(who), sy, verb, _clean(text), _clean(dice))
            values += (_int64(total), oc, src)
        # A hundred rows per INSERT: a quarter faster than one statement per row.
        width = ROWS_PER_INSERT * _ROLL_COLUMNS
        whole = len(values) - len(values) % width
        batches = [values[i : i + width] for i in range(0, whole, width)]
        rest = values[whole:]

        def change(conn: sqlite3.Connection) -> None:
            if batches:
                conn.executemany(_insert_rolls(ROWS_PER_INSERT), batches)
            if rest:
                conn.execute(_insert_rolls(len(rest) // _ROLL_COLUMNS), rest)

        self._write("the roll log", change)

    def clear_rolls(self, character: str | None = None) -> int:
        """Delete the logged rolls (of one character, if given); returns how many."""

        def change(conn: sqlite3.Connection) -> int:
            if character is None:
                return int(conn.execute("DELETE FROM rolls").rowcount)
            return int(conn.execute("DELETE FROM rolls WHERE character = ?", (character,)).rowcount)

        deleted: int = self._write("the roll log", change)
        return deleted


ROWS_PER_INSERT = 100
_ROLL_COLUMNS = 9


def _insert_rolls(n: int) -> str:
    """The INSERT of n rows of the roll log."""
    row = f"({', '.join('?' * _ROLL_COLUMNS)})"
    return (
        "INSERT INTO rolls (at, character, system, verb, request, dice, total, outcome, "
        f"source) VALUES {', '.join([row] * n)}"
    )


def _set_fortune(conn: sqlite3.Connection, holder: str, count: int) -> None:
    conn.execute(
        "INSERT INTO fortune (holder, count) VALUES (?, ?) "
        "ON CONFLICT (holder) DO UPDATE SET count = excluded.count",
        (holder, count),
    )


_INT64 = 2**63


def _not_newer(path: Path | None, version: int) -> None:
    """StateError for a database of a newer schema: it is never written (not even its
    journal mode), so the newer d20cli finds it as it left it."""
    if version > SCHEMA_VERSION:
        raise StateError(
            f"the state database {path} was written by a newer d20cli "
            f"(schema {version}, this one knows {SCHEMA_VERSION}); it is left as it is"
        )


def _ms(seconds: float) -> int:
    return int(seconds * 1000)


def _int64(value: int | None) -> int | None:
    """`value` as SQLite can store it: an int outside 64 bits becomes NULL."""
    return value if value is None or -_INT64 <= value < _INT64 else None


def _clean_or_none(text: str | None) -> str | None:
    return None if text is None else _clean(text)


def _clean(text: str) -> str:
    """`text` encodable as UTF-8: each lone surrogate (bytes of a command line that were
    not UTF-8) becomes U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def _ignore(message: str) -> None:
    """The default warning sink: say nothing."""


# One open database per path for the life of the process (the shell keeps it open
# between lines; a one-shot command opens it once).
_OPEN: dict[Path, State] = {}


def shared(warn: Warn | None = None) -> State:
    """The state database at `db_path()`, opened once per process."""
    path = db_path()
    state = _OPEN.get(path)
    if state is None:
        # Warnings wait until the state is shared: saying one writes the output, which
        # first saves what it shows, through this same state (one warning, not two).
        said: list[str] = []
        state = State.open(path, said.append)
        state.warn = warn if warn is not None else _ignore
        if not _OPEN:
            atexit.register(close_shared)  # saves deferred writes
        _OPEN[path] = state
        for message in said:
            state.warn(message)
    elif warn is not None:
        state.warn = warn
    return state


def flush_shared() -> None:
    """Write what the open shared databases deferred (the last rolls), opening none."""
    for state in list(_OPEN.values()):
        try:
            state.flush()
        except (sqlite3.Error, StateError) as err:
            state.warn(f"cannot save the last roll: {err}")


def close_shared() -> None:
    """Close the shared databases (writing what was deferred)."""
    states = list(_OPEN.values())
    _OPEN.clear()
    for state in states:
        try:
            state.close()
        except (sqlite3.Error, StateError) as err:
            state.warn(f"cannot save the state: {err}")
