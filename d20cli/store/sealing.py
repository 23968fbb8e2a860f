"""Sealed sessions (`d20 seal`, `d20 unseal`): the `sessions` table of the state database,
the marker file that says a session is open, and the hash chain of `log --export json`.

A session row keeps the secret seed and nonce (hex), the commitment shown before play,
when it was opened and closed (closed is NULL while it is open: one at a time), and the
next position of its stream: a run takes its positions here, durably, before it draws
their dice (`take`), and gives back at its group commit those it drew nothing from. A
position whose roll was never logged (a request that failed after drawing, a row that
could not be saved) stays taken: `d20 verify` reports it missing, `d20 unseal` counts it.
The seed stays in the table after the session is closed (`d20 unseal --show N`). The
rolls of a session keep its id, their position and the request as rolled in the roll
log (d20cli.store.rolllog.SEALED_COLUMNS).

The marker file (d20cli.store.seal_marker) is there while a session is open (put there
before the session is written, taken away after it is closed, both under the lock that
keeps seal and unseal one at a time and waits for the runs rolling in the session). A
marker with no open session behind it (a database moved aside) stops every roll until
`d20 unseal` takes it away: a session's rolls are never made unsealed.

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

from d20cli.dice.sealed import NONCE_BYTES, SCHEME, SEED_BYTES, commitment
from d20cli.errors import StateError
from d20cli.frozen import frozen, replace
from d20cli.store.seal_marker import changing, mark

if TYPE_CHECKING:
    import sqlite3

    from d20cli.store.database import Database
    from d20cli.store.rolllog import Row

GENESIS = "0" * 64  # the `prev_hash` of an export's first row
HASH = "hash"
PREV_HASH = "prev_hash"
#: What `log --export json` adds to each row after the roll log's columns.
EXPORT_FIELDS = ("session", "position", "replay", "commitment", "receipt", PREV_HASH, HASH)
#: What a sealed row of a session of scheme 2 also carries, before the hashes.
SCHEME_FIELDS = ("scheme", "salt", "secret")


@frozen
class Session:
    id: int
    seed: bytes
    nonce: bytes
    commitment: str
    opened: str
    closed: str | None
    next: int  # the position of the session's next roll
    head: str | None = None  # the receipt of its last roll (None: no roll yet)
    scheme: int = 1  # d20cli.dice.sealed: 1, opened before salts; 2, since
    salt: str | None = None  # the table's salt (`d20 seal --salt`; None: none given)
    salted: str | None = None  # when it was given


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


_COLUMNS = "id, seed, nonce, commitment, opened, closed, next, head, scheme, salt, salted"


def _head(conn: sqlite3.Connection, sid: int) -> str | None:
    """The receipt of session `sid`'s last roll: its last row's (the rows are written in
    the order of the chain), else what the session kept when its rows were cleared."""
    last = conn.execute(
        "SELECT receipt FROM rolls WHERE session = ? ORDER BY id DESC LIMIT 1", (sid,)
    ).fetchone()
    if last is None:
        last = conn.execute("SELECT head FROM sessions WHERE id = ?", (sid,)).fetchone()
    if last is None or last[0] is None:
        return None
    return _hex(last[0], "the last receipt", 32).hex()


#: The highest `next` a session keeps: a roll at it, and the `next` after that, still fit
#: in SQLite's 64 bits (one at 2**63 - 1 failed every roll with OverflowError).
MAX_SEAL_POSITION = 2**63 - 2


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
    nxt = stored_int(raw[6], "sessions.next", 0, MAX_SEAL_POSITION)
    head = None if raw[7] is None else _hex(raw[7], "sessions.head", 32).hex()
    opened = stored_text(raw[4], "sessions.opened")
    scheme = stored_int(raw[8], "sessions.scheme", 1, SCHEME)
    salt = None if raw[9] is None else stored_text(raw[9], "sessions.salt")
    salted = None if raw[10] is None else stored_text(raw[10], "sessions.salted")
    return Session(sid, seed, nonce, promise, opened, closed, nxt, head, scheme, salt, salted)


def stored_position(value: Any, where: str = "rolls.position") -> int:
    """A position kept in the state database, checked (BadValue when d20 did not write it)."""
    from d20cli.store.database import stored_int

    return stored_int(value, where, 0, MAX_SEAL_POSITION - 1)


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
        """The open session (None: none), with its next position (after every roll of it
        that the log holds, whatever the table says) and its last receipt."""

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
            return replace(session, head=_head(conn, session.id))

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
                "INSERT INTO sessions (seed, nonce, commitment, opened, scheme) "
                "VALUES (?, ?, ?, ?, ?)",
                (seed.hex(), nonce.hex(), promise, opened, SCHEME),
            )
            return int(cursor.lastrowid or 0)

        with changing():  # never half-way through an unseal (module doc)
            mark(True)  # first: a run that sees no marker never rolls in an open session
            try:
                sid = self.db.write(self.WHAT, change)
                self._persistent()  # a write that fell back to memory did not keep it
            except BaseException:
                mark(False)
                raise
        return Session(sid, seed, nonce, promise, opened, None, 0, scheme=SCHEME)

    def salt(self, text: str) -> Session:
        """Give the open session the table's salt (`d20 seal --salt`): StateError when no
        session is open (a salt comes after the commitment is posted), when it was opened
        before salts (scheme 1), when it has a salt already (it is never changed), or when
        a roll was made in it (its dice were drawn without the salt). Under the lock of
        seal and unseal, and waiting for the runs rolling in it, as they are."""
        with changing():
            session = self.current()
            if session is None:
                raise StateError(
                    "no sealed session is open: the salt comes after the commitment is "
                    "posted (d20 seal, post its commitment, then d20 seal --salt TEXT)"
                )
            if session.scheme < 2:
                raise StateError(
                    f"session {session.id} was opened by an older d20, which takes no salt: "
                    "d20 unseal it and d20 seal again"
                )
            if session.salt is not None:
                raise StateError(
                    f"session {session.id} has its salt already; a salt is never changed "
                    "(d20 seal --status shows it)"
                )
            if session.next > 0 or session.head is not None:
                raise StateError(
                    f"session {session.id} has rolled already: the salt is given before its "
                    "first roll (d20 unseal, then d20 seal again and take the salt first)"
                )
            salted = _now()

            def change(conn: sqlite3.Connection) -> int:
                return int(
                    conn.execute(
                        "UPDATE sessions SET salt = ?, salted = ? WHERE id = ? AND closed IS "
                        "NULL AND salt IS NULL AND next = 0 AND NOT EXISTS (SELECT 1 FROM rolls "
                        "WHERE session = ?)",
                        (text, salted, session.id, session.id),
                    ).rowcount
                )

            self._persistent()
            if self.db.write(self.WHAT, change) != 1:
                raise StateError(f"session {session.id} changed meanwhile: no salt was given")
            self._persistent()
        return replace(session, salt=text, salted=salted)

    def secret_rows(self, sid: int, position: int | None = None) -> list[Row]:
        """The secret rolls of session `sid` (one, at `position`), with their request and
        result (d20cli.store.rolllog hides them elsewhere until they are revealed)."""
        from d20cli.store.rolllog import Rolls

        return Rolls(self.db).secret(sid, position)

    def reveal(self, sid: int, position: int | None = None) -> int:
        """Mark session `sid`'s secret rolls (one, at `position`) revealed: the log shows
        them from now on. How many were hidden."""

        def change(conn: sqlite3.Connection) -> int:
            where, args = "session = ? AND secret = 1", [sid]
            if position is not None:
                where, args = where + " AND position = ?", [sid, position]
            return int(conn.execute(f"UPDATE rolls SET secret = 2 WHERE {where}", args).rowcount)

        return int(self.db.write(self.WHAT, change))

    def take(self, sid: int, count: int) -> tuple[int, str | None] | None:
        """Take the next `count` positions of session `sid` for a run's rolls, durably,
        before their dice are drawn: the first of them, and the receipt the next roll's
        chains on (`head`; None: the session is closed). A position taken is never given to
        another roll, whatever becomes of this one. The run holds the session's lease
        (d20cli.store.seal_marker.Lease) while it takes and logs, so no other run's rows
        come between: the receipts chain in the order the rows are written.
        StateError when the database cannot keep it (locked, in memory): no roll is made."""
        import sqlite3

        from d20cli.store.database import stored_int

        self._persistent()
        try:
            with self.db.transaction() as conn:
                raw = conn.execute("SELECT next, closed FROM sessions WHERE id = ?", (sid,))
                found = raw.fetchone()
                if found is None or found[1] is not None:
                    return None
                last = conn.execute(
                    "SELECT max(position) FROM rolls WHERE session = ?", (sid,)
                ).fetchone()[0]
                start = max(
                    stored_int(found[0], "sessions.next", 0, MAX_SEAL_POSITION),
                    -1 if last is None else stored_position(last) + 1,
                )
                conn.execute("UPDATE sessions SET next = ? WHERE id = ?", (start + count, sid))
                return start, _head(conn, sid)
        except sqlite3.Error as err:
            raise StateError(
                f"the sealed session's next position cannot be saved ({err})"
            ) from None

    def give_back(self, sid: int, end: int, to: int) -> None:
        """Give back the positions `to`..`end`-1 that a run took and drew no die from,
        unless another run took more since (StateError: they stay taken, as gaps)."""
        import sqlite3

        self._persistent()
        try:
            with self.db.transaction() as conn:
                conn.execute(
                    "UPDATE sessions SET next = ? WHERE id = ? AND next = ? AND closed IS NULL",
                    (to, sid, end),
                )
        except sqlite3.Error as err:
            raise StateError(f"cannot give back unused positions ({err})") from None

    def close(self) -> Session | None:
        """Close the open session (None: none was open); it comes back closed. It waits
        for the runs rolling in it (`changing`): their rolls are the session's."""
        with changing():
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

            self._persistent()
            self.db.write(self.WHAT, change)
            self._persistent()  # a close kept only in memory would leave it open
            mark(False)
        return replace(session, closed=closed)

    def get(self, sid: int) -> Session | None:
        """Session `sid` (None: there is none), open or closed."""
        raw = self.db.read(
            self.WHAT,
            lambda conn: conn.execute(
                f"SELECT {_COLUMNS} FROM sessions WHERE id = ?", (sid,)
            ).fetchone(),
        )
        return None if raw is None else _session(raw)

    def last_closed(self) -> Session | None:
        """The session closed last (None: none was)."""
        raw = self.db.read(
            self.WHAT,
            lambda conn: conn.execute(
                f"SELECT {_COLUMNS} FROM sessions WHERE closed IS NOT NULL ORDER BY id DESC LIMIT 1"
            ).fetchone(),
        )
        return None if raw is None else _session(raw)

    def logged(self, sid: int) -> int:
        """How many rolls of session `sid` the roll log holds."""
        return int(
            self.db.read(
                self.WHAT,
                lambda conn: conn.execute(
                    "SELECT count(*) FROM rolls WHERE session = ?", (sid,)
                ).fetchone()[0],
            )
        )

    def every(self) -> dict[int, Session]:
        """Every session, by id."""
        raws = self.db.read(
            self.WHAT, lambda conn: conn.execute(f"SELECT {_COLUMNS} FROM sessions").fetchall()
        )
        return {s.id: s for s in map(_session, raws)}

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
    request as rolled (`replay`), the session's commitment and the roll's receipt (null
    for any other roll); `chained` adds the hashes."""
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
    data["receipt"] = row.receipt
    return data


def export_sealed(data: dict[str, Any], session: Session | None, secret: int | None) -> None:
    """A sealed row of a session of scheme 2 also carries the scheme, the session's salt
    and whether it was a secret roll (rows of scheme 1 have none of them, as d20 wrote
    them before: their hashes and receipts are unchanged)."""
    if session is None or session.scheme < 2:
        return
    data["scheme"] = session.scheme
    data["salt"] = session.salt
    data["secret"] = secret is not None


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
