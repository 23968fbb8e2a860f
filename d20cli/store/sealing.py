"""Sealed sessions (`d20 seal`, `d20 unseal`): the `sessions` table of the state database,
the marker file that says a session is open, and the hash chain of `log --export json`.

A session row keeps the secret seed and nonce (hex), the commitment shown before play,
when it was opened and closed (closed is NULL while it is open: one at a time), and the
next position of its stream. The rolls of a session keep its id, their position and the
request as rolled in the roll log (d20cli.store.rolllog.SEALED_COLUMNS).

The marker file (d20cli.store.seal_marker) is there while a session is open (put there
before the session is written, taken away after it is closed). A marker with no open
session behind it (a database moved aside) stops every roll until `d20 unseal` takes
it away: a session's rolls are never made unsealed.

The hash chain: each row of `log --export json` carries `prev_hash`, the `hash` of the
row before it (64 zeros for the first), and `hash`, the SHA-256 in hex of the row's
canonical bytes: its JSON without the `hash` field, keys sorted, separators `,` and `:`
with no spaces, every character outside ASCII written as a `\\uXXXX` escape (Python's
`json.dumps(row, sort_keys=True, separators=(",", ":"))`), as UTF-8.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from d20cli.dice.sealed import NONCE_BYTES, SEED_BYTES, commitment
from d20cli.errors import StateError
from d20cli.frozen import frozen, replace
from d20cli.store.seal_marker import mark

if TYPE_CHECKING:
    import sqlite3

    from d20cli.store.database import Database
    from d20cli.store.rolllog import Row

GENESIS = "0" * 64  # the `prev_hash` of an export's first row
HASH = "hash"
PREV_HASH = "prev_hash"
#: What `log --export json` adds to each row after the roll log's columns.
EXPORT_FIELDS = ("session", "position", "replay", "commitment", PREV_HASH, HASH)


@frozen
class Session:
    id: int
    seed: bytes
    nonce: bytes
    commitment: str
    opened: str
    closed: str | None
    next: int  # the position of the session's next roll


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


_COLUMNS = "id, seed, nonce, commitment, opened, closed, next"


#: The highest `next` a session keeps: a roll at it, and the `next` after that, still fit
#: in SQLite's 64 bits (one at 2**63 - 1 failed every roll with OverflowError).
MAX_POSITION = 2**63 - 2


def _session(raw: tuple[Any, ...]) -> Session:
    """A row of the table, each value checked (BadValue, d20cli.store.database, for one
    that d20 does not write: the file is then moved aside)."""
    from d20cli.store.database import stored_int, stored_text

    sid = stored_int(raw[0], "sessions.id")
    seed = _hex(raw[1], "sessions.seed", SEED_BYTES)
    nonce = _hex(raw[2], "sessions.nonce", NONCE_BYTES)
    promise = stored_text(raw[3], "sessions.commitment")
    _hex(promise, "sessions.commitment", 32)
    closed = None if raw[5] is None else stored_text(raw[5], "sessions.closed")
    nxt = stored_int(raw[6], "sessions.next", 0, MAX_POSITION)
    return Session(sid, seed, nonce, promise, stored_text(raw[4], "sessions.opened"), closed, nxt)


def stored_position(value: Any, where: str = "rolls.position") -> int:
    """A position kept in the state database, checked (BadValue when d20 did not write it)."""
    from d20cli.store.database import stored_int

    return stored_int(value, where, 0, MAX_POSITION - 1)


def _hex(value: Any, where: str, size: int) -> bytes:
    """The `size` bytes that the text `value` writes in lower-case hex (BadValue else)."""
    from d20cli.store.database import BadValue, stored_text

    text = stored_text(value, where)
    if len(text) == 2 * size and not text.strip("0123456789abcdef"):
        return bytes.fromhex(text)
    raise BadValue(f"{where} holds {text[:40]!r}, not {size} bytes in hex")


class Sessions:
    """The `sessions` table: opening, reading, advancing and closing a sealed session.
    A change the database cannot keep is a StateError: a session that only lives in
    memory would be lost, with its seed, when the run ends."""

    WHAT = "the sealed session"

    def __init__(self, db: Database) -> None:
        self.db = db

    def _persistent(self) -> None:
        if not self.db.persistent:
            why = self.db.unusable or "it lives in memory"
            raise StateError(f"the state database cannot keep a sealed session ({why})")

    def current(self) -> Session | None:
        """The open session (None: none), with its next position: after every roll of it
        that the log holds, whatever the table says."""

        def query(conn: sqlite3.Connection) -> Session | None:
            raw = conn.execute(f"SELECT {_COLUMNS} FROM sessions WHERE closed IS NULL").fetchone()
            if raw is None:
                return None
            session = _session(raw)
            last = conn.execute(
                "SELECT max(position) FROM rolls WHERE session = ?", (session.id,)
            ).fetchone()[0]
            if last is not None and stored_position(last) >= session.next:
                session = replace(session, next=stored_position(last) + 1)
            return session

        return self.db.read(self.WHAT, query)

    def open(self) -> Session:
        """A new session with a seed and a nonce from the operating system (StateError
        when one is open already)."""
        import secrets

        self._persistent()
        seed, nonce = secrets.token_bytes(SEED_BYTES), secrets.token_bytes(NONCE_BYTES)
        promise = commitment(seed, nonce)
        opened = _now()

        def change(conn: sqlite3.Connection) -> int:
            if conn.execute("SELECT 1 FROM sessions WHERE closed IS NULL").fetchone():
                raise StateError("a sealed session is open already")
            cursor = conn.execute(
                "INSERT INTO sessions (seed, nonce, commitment, opened) VALUES (?, ?, ?, ?)",
                (seed.hex(), nonce.hex(), promise, opened),
            )
            return int(cursor.lastrowid or 0)

        mark(True)  # first: a run that sees no marker never rolls in an open session
        try:
            sid = self.db.write(self.WHAT, change)
            self._persistent()  # a write that fell back to memory did not keep it
        except BaseException:
            mark(False)
            raise
        return Session(sid, seed, nonce, promise, opened, None, 0)

    def advance(self, sid: int, position: int) -> None:
        """The session's next roll is at `position` (never moved back)."""
        self.db.write(
            self.WHAT,
            lambda conn: conn.execute(
                "UPDATE sessions SET next = ? WHERE id = ? AND next < ?", (position, sid, position)
            ),
        )

    def close(self) -> Session | None:
        """Close the open session (None: none was open); it comes back closed."""
        session = self.current()
        if session is None:
            mark(False)
            return None
        closed = _now()

        def change(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE sessions SET closed = ?, next = max(next, ?) WHERE id = ?",
                (closed, session.next, session.id),
            )

        self.db.write(self.WHAT, change)
        mark(False)
        return replace(session, closed=closed)

    def commitments(self) -> dict[int, str]:
        """Every session's commitment, by id."""
        from d20cli.store.database import stored_int, stored_text

        def query(conn: sqlite3.Connection) -> dict[int, str]:
            raws = conn.execute("SELECT id, commitment FROM sessions").fetchall()
            return {
                stored_int(sid, "sessions.id"): stored_text(promise, "sessions.commitment")
                for sid, promise in raws
            }

        return self.db.read(self.WHAT, query)


# --- the hash chain of an export ---------------------------------------------------------


def export_row(row: Row, commitments: dict[int, str]) -> dict[str, Any]:
    """A row of `log --export json`: its fields, then a sealed roll's session, position,
    request as rolled (`replay`) and the session's commitment (null for any other roll);
    `chained` adds the hashes."""
    data = row.to_json()
    replay = None
    if row.replay is not None:
        try:
            replay = json.loads(row.replay)
        except ValueError:
            replay = None
    data["session"] = row.session
    data["position"] = row.position
    data["replay"] = replay
    data["commitment"] = None if row.session is None else commitments.get(row.session)
    return data


def canonical(row: dict[str, Any]) -> bytes:
    """The bytes a row's hash is taken of: its JSON without `hash` (module doc)."""
    body = {k: v for k, v in row.items() if k != HASH}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")


def row_hash(row: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(row)).hexdigest()


def chained(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Each row with `prev_hash` and `hash` added: the export's hash chain."""
    prev = GENESIS
    for row in rows:
        row[PREV_HASH] = prev
        row[HASH] = prev = row_hash(row)
        yield row
