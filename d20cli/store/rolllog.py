"""The roll log: the `rolls` table of the state database (d20cli.store.database), written
and read here (`Rolls`), and the buffer that writes a run's rows (`RollLog`).

A row holds the time (UTC, ISO 8601), the character (`--as`, else null), the system, the
verb, the request text as rolled (label words resolved), the dice (a JSON list of
{sides, face, kept, role, ...}: the request's dice, then its damage dice), the total, the
outcome id, and where the faces came from: `random`, `seed` (--seed) or `dice` (--dice).

Rows are buffered and written in one transaction before the output that shows them is
written (group commit: `Context.save`, called by `Output` before every write on stdout),
when the run ends (`RollLog.close`), or every `FLUSH_ROWS` rows: a batch on standard input
costs a transaction per piece of output, not one per line, and a roll that was shown is
a roll that was logged, even after a kill -9. `--no-log` or `D20_NO_LOG=1` (`true`,
`yes`) turns the log off.

A write that fails (the database locked past the busy timeout, an I/O error) or is
interrupted (Ctrl-C while it waits for a lock) puts its rows back in the buffer; a failure
raises NotSaved, so the output that would show them is never written (d20cli.errors).
`close` tries once more, without waiting when a write failed before. A state database
that could not be opened at all is warned about before anything is shown, and the rolls
are then kept in memory.

How big the log may grow (issue 22): a row lists every die of its result, each with its
term's label, as the JSON line does; a 9,000-character label on `1000d6` made that 9 MB a
row. A row whose dice would pass MAX_ROW_DICE characters holds a summary instead, as the
output summarises a roll of more than 1,000 dice: `[{"summary": {"count", "kept",
"sides": {sides: count}, "faces": {sides: {face: count}} (dice of up to 100 sides, not
clamped by mi/ma), "labels": [...]}}]`, each label once and cut to LABEL_CHARACTERS. The
fairness test (`d20 log --stats`) counts the d20 faces of a summary (`summary_d20`) as it
counts listed d20s. The buffer is written when its rows reach FLUSH_BYTES (as well as
every FLUSH_ROWS rows), and one run adds at most MAX_RUN_BYTES to the log: the rolls after
that are not logged, with one warning.

What `d20 log --stats` computes from the rows is in d20cli.store.log_stats.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from d20cli.errors import D20Error, NotSaved
from d20cli.frozen import frozen
from d20cli.store.database import (
    clean,
    clean_json,
    stored_int,
    stored_json,
    stored_text,
    stored_text_or_none,
)
from d20cli.store.row_fields import (  # (their home before; imported from here)
    LABEL_CHARACTERS as LABEL_CHARACTERS,
)
from d20cli.store.row_fields import (
    MAX_ROW_DEPTH as MAX_ROW_DEPTH,
)
from d20cli.store.row_fields import (
    dice_text as dice_text,
)
from d20cli.store.row_fields import (
    house_text,
    int64,
    row_dice,
)

if TYPE_CHECKING:
    from d20cli.present.output import Output
    from d20cli.results import Result
    from d20cli.store.database import Database
    from d20cli.store.post_queue import PostPlan

FLUSH_ROWS = 10_000
COLUMNS = (
    "id",
    "at",
    "character",
    "system",
    "verb",
    "request",
    "dice",
    "total",
    "outcome",
    "source",
    "house",
)
#: The columns of a roll of a sealed session (d20cli.store.sealing; NULL for any other
#: roll): the session's id, the roll's position in its stream, and the request as rolled
#: (the JSON of d20cli.language.parse_cache) that `d20 verify` rolls again, and its
#: receipt (d20cli.dice.sealed). Read with the others; `log --export json` writes them
#: (CSV keeps COLUMNS).
SEALED_COLUMNS = ("session", "position", "replay", "receipt", "secret")
#: What the log shows of a secret roll not yet revealed (`secret` 1: `--secret`,
#: d20cli.app.sealed): its session, position and receipt, and no request or result.
SECRET_REQUEST = "secret roll"
SECRET_VERB = "secret"


#: Columns that hold whole numbers: written to CSV as they are (`-1` is a total, not a
#: formula). Every other column is text.
NUMBER_COLUMNS = frozenset({"id", "total"})
#: What a spreadsheet reads as the start of a formula in a CSV cell (OWASP, CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(column: str, value: Any) -> Any:
    """One CSV cell of a row. A text cell that starts like a formula (`=HYPERLINK(...)` as
    a hand-edited character name) gets a single quote in front, as OWASP recommends, so a
    spreadsheet shows it as text instead of running it; whole numbers stay numbers."""
    if value is None:
        return ""
    if column in NUMBER_COLUMNS and isinstance(value, int):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_row(row: Row) -> list[Any]:
    """A row as CSV cells, in COLUMNS order (the dice as compact JSON text)."""
    values = row.to_json()
    values["dice"] = json.dumps(row.dice, separators=(",", ":"))
    if row.house is not None:
        values["house"] = json.dumps(row.house, separators=(",", ":"), sort_keys=True)
    return [csv_cell(c, values[c]) for c in COLUMNS]


def stamp(ms: int) -> str:
    """The log's time text for a time in milliseconds since the epoch (ISO 8601, UTC)."""
    at = datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000)
    return at.isoformat(timespec="milliseconds")


class Stamps:
    """`stamp` of one time after another, the date and time of day written once a second
    (a batch writes a row every few tenths of a millisecond: a datetime a row cost a
    tenth of the row's time)."""

    __slots__ = ("_second", "_text")

    def __init__(self) -> None:
        self._second = -1
        self._text = ""  # `stamp` of the second, to the seconds: `2023-11-14T22:13:20`

    def of(self, ms: int) -> str:
        second, within = divmod(ms, 1000)
        if second != self._second:
            self._second, self._text = second, stamp(second * 1000)[:19]
        return f"{self._text}.{within:03d}+00:00"


def row_columns(result: Result) -> tuple[str, int, str | None]:
    """What a row takes from the result besides its plain fields: the dice column, the
    row's size in bytes, and the house rules' JSON (None without house rules)."""
    dice = row_dice(result, dice_text)
    house = house_text(result) if "house" in result.detail else None
    return dice, row_bytes(result.request, dice), house


# --- the size of a row ----------------------------------------------------------------

FLUSH_BYTES = 8_000_000  # buffered row bytes that make the log write
MAX_RUN_BYTES = 256_000_000  # row bytes one run may add to the log
ROW_OVERHEAD = 100  # bytes of a row besides its request and dice (time, ids, columns)


def row_bytes(request: str, dice: str) -> int:
    """About how many bytes a row takes (to flush and cap the log by bytes)."""
    return ROW_OVERHEAD + len(request) + len(dice)


def summary_d20(faces: object) -> list[int] | None:
    """The 20 face counts of a summary's d20s, from its `faces["20"]` (None when there
    are none or they are not counts)."""
    if isinstance(faces, str):
        try:
            faces = json.loads(faces)
        except ValueError:
            return None
    if not isinstance(faces, dict):
        return None
    counts = [0] * 20
    for face, n in faces.items():
        good = isinstance(n, int) and not isinstance(n, bool) and 0 < n <= 10**15
        if (
            good
            and isinstance(face, str)
            and face.isascii()
            and face.isdigit()
            and 1 <= int(face) <= 20
        ):
            counts[int(face) - 1] += n
    return counts if any(counts) else None


# --- the table --------------------------------------------------------------------------


@frozen
class Row:
    id: int
    at: str
    character: str | None
    system: str
    verb: str
    request: str
    dice: list[dict[str, Any]]
    total: int | None
    outcome: str | None
    source: str
    house: dict[str, Any] | None = None  # the house rules it was rolled under
    session: int | None = None  # a sealed session's roll: SEALED_COLUMNS
    position: int | None = None
    replay: str | None = None
    receipt: str | None = None
    secret: int | None = None  # 1: a secret roll not yet revealed; 2: one revealed

    def to_json(self) -> dict[str, Any]:
        return {c: getattr(self, c) for c in COLUMNS}


@frozen
class LogFilter:
    """Which rows to read: all of these that are given (times are the log's time text,
    `stamp`: `since` inclusive, `until` exclusive)."""

    character: str | None = None
    since: str | None = None
    until: str | None = None
    system: str | None = None
    outcomes: tuple[str, ...] | None = None  # outcome ids
    session: int | None = None  # the rolls of this sealed session

    def where(self, prefix: str = "") -> tuple[str, tuple[Any, ...]]:
        """The SQL condition (columns named with `prefix`, "" when every row is kept) and
        its values."""
        parts: list[str] = []
        args: list[Any] = []
        for column, op, value in (
            ("character", "=", self.character),
            ("at", ">=", self.since),
            ("at", "<", self.until),
            ("system", "=", self.system),
            ("session", "=", self.session),
        ):
            if value is not None:
                parts.append(f"{prefix}{column} {op} ?")
                args.append(value)
        if self.outcomes is not None:
            marks = ", ".join("?" * len(self.outcomes)) or "NULL"
            parts.append(f"{prefix}outcome IN ({marks})")
            args += self.outcomes
        return " AND ".join(parts), tuple(args)


def combine(character: str | None, only: LogFilter | None) -> LogFilter:
    """`only`, narrowed to one character's rows when `character` is given."""
    if only is None:
        return LogFilter(character=character)
    if character is None:
        return only
    return LogFilter(character, only.since, only.until, only.system, only.outcomes, only.session)


def _row(raw: tuple[Any, ...], reveal: bool = False) -> Row:
    """A row of the table (`_SELECTED`), each value checked: BadValue (the file is then
    moved aside, d20cli.store.database) for one that d20 does not write. A secret roll
    not yet revealed shows no request or result (SECRET_REQUEST), unless `reveal`."""
    house = raw[10]
    secret = None if raw[15] is None else stored_int(raw[15], "rolls.secret", 1, 2)
    if secret == 1 and not reveal:
        return Row(
            stored_int(raw[0], "rolls.id"),
            stored_text(raw[1], "rolls.at"),
            None,
            stored_text(raw[3], "rolls.system"),
            SECRET_VERB,
            SECRET_REQUEST,
            [],
            None,
            None,
            stored_text(raw[9], "rolls.source"),
            None,
            None if raw[11] is None else stored_int(raw[11], "rolls.session"),
            None if raw[12] is None else stored_int(raw[12], "rolls.position", 0),
            None,
            stored_text_or_none(raw[14], "rolls.receipt"),
            secret,
        )
    return Row(
        stored_int(raw[0], "rolls.id"),
        stored_text(raw[1], "rolls.at"),
        stored_text_or_none(raw[2], "rolls.character"),
        stored_text(raw[3], "rolls.system"),
        stored_text(raw[4], "rolls.verb"),
        stored_text(raw[5], "rolls.request"),
        stored_json(raw[6], "rolls.dice", list, MAX_ROW_DEPTH),
        None if raw[7] is None else stored_int(raw[7], "rolls.total"),
        stored_text_or_none(raw[8], "rolls.outcome"),
        stored_text(raw[9], "rolls.source"),
        stored_json(house, "rolls.house", dict, MAX_ROW_DEPTH) if house else None,
        None if raw[11] is None else stored_int(raw[11], "rolls.session"),
        None if raw[12] is None else stored_int(raw[12], "rolls.position", 0),
        None if raw[13] is None else _replay(raw[13]),
        stored_text_or_none(raw[14], "rolls.receipt"),
        secret,
    )


def _replay(value: Any) -> str:
    """A sealed roll's request as rolled: JSON text of an object nested no deeper than
    the request cache's entries (d20cli.language.parse_cache.MAX_JSON_DEPTH)."""
    from d20cli.language.parse_cache import MAX_JSON_DEPTH

    stored_json(value, "rolls.replay", dict, MAX_JSON_DEPTH)
    return str(value)


ROWS_PER_INSERT = 100
_ROW_COLUMNS = COLUMNS[1:-1]  # every row has these: at ... source (the table numbers id)
_FULL_COLUMNS = (*COLUMNS[1:], *SEALED_COLUMNS)  # a row with house rules or a seal


#: Text columns that are often NULL (no character, a roll's outcome, no house rules): the
#: INSERT writes them as `NULLIF(?, 0)` and the row binds the integer 0 for a NULL, which
#: no text equals. Binding None costs sqlite3 a search for an adapter each time: a
#: batch's writes took a third longer.
NULL_TEXT = frozenset({"character", "outcome", "house", "replay", "receipt"})


def _insert_rolls(columns: Sequence[str], n: int) -> str:
    """The INSERT of n rows of the roll log, each of `columns`."""
    row = f"({', '.join('NULLIF(?, 0)' if c in NULL_TEXT else '?' for c in columns)})"
    return f"INSERT INTO rolls ({', '.join(columns)}) VALUES {', '.join([row] * n)}"


#: The rows of the sealed session that is open are never deleted (`Rolls.clear`, and the
#: prunes of d20cli.store.log_retention): its rolls are still to be verified.
NOT_OPEN_SESSION = (
    "(session IS NULL OR session NOT IN (SELECT id FROM sessions WHERE closed IS NULL))"
)


class Rolls:
    """The `rolls` table: appending rows, reading them back, deleting them. Reads take a
    `character` and a `LogFilter`; a read the database cannot answer is a StateError."""

    WHAT = "the roll log"

    def __init__(self, db: Database) -> None:
        self.db = db

    def add(
        self, rows: Sequence[tuple[Any, ...]], wait: bool = True, post: PostPlan | None = None
    ) -> int:
        """Append rows (at, character, system, verb, request, dice, total, outcome, source,
        and the house rules' JSON, which may be left out, then the session, position,
        replay and receipt of a sealed session's roll) in one transaction, in the file: a
        StateError when they cannot be (never kept in memory instead, see Database.write's
        `durable`); wait=False: without waiting for another process's lock. `post`: where
        the rows' rolls are posted (d20cli.store.post_queue): their posts are queued in the
        same transaction. Returns how many posts were queued."""
        if not rows:
            return 0
        # SQLite holds 64-bit integers; a larger total (which the dice never give, see
        # dice.MAX_TOTAL) is stored as NULL, and the text a user typed (a character's name,
        # the request, labels in the dice) is made valid UTF-8, rather than failing the
        # whole write. The other columns are the program's own ASCII words.
        # A row without house rules or a seal (most rows) binds only its first nine
        # columns: binding the four NULLs made a batch's writes half as slow again.
        runs: list[tuple[bool, list[Any]]] = []  # (full?, values) of consecutive rows
        values: list[Any] = []
        last: bool | None = None  # whether the run being filled is of full rows
        for row in rows:
            more = row[9:]  # () for the usual row of nine values
            full = bool(more) and (more[0] is not None or len(more) > 1)
            if full is not last:
                values = []
                runs.append((full, values))
                last = full
            at, who, sy, verb, text, dice, total, oc, src = row[:9] if more else row
            if not (text.isascii() and dice.isascii()):  # (the usual case reads two flags)
                text, dice = clean(text), clean(dice)
            dice = clean_json(dice)
            if who is None:
                who = 0  # (NULL: see NULL_TEXT)
            elif not who.isascii():
                who = clean(who)
            values += (at, who, sy, verb, text, dice, int64(total), 0 if oc is None else oc, src)
            if full:
                house, session, position, replay, receipt, secret = (*more, *[None] * 6)[:6]
                values += (
                    0 if house is None else house,
                    session,
                    position,
                    0 if replay is None else replay,
                    0 if receipt is None else receipt,
                    secret,
                )

        def change(conn: sqlite3.Connection) -> int:
            for full, values in runs:
                columns = _FULL_COLUMNS if full else _ROW_COLUMNS
                # A hundred rows per INSERT: a quarter faster than one statement per row.
                width = ROWS_PER_INSERT * len(columns)
                whole = len(values) - len(values) % width
                if whole:
                    batches = [values[i : i + width] for i in range(0, whole, width)]
                    conn.executemany(_insert_rolls(columns, ROWS_PER_INSERT), batches)
                if whole < len(values):
                    rest = values[whole:]
                    conn.execute(_insert_rolls(columns, len(rest) // len(columns)), rest)
            return 0 if post is None else post.queue(conn, rows)

        return self.db.write(self.WHAT, change, durable=True, wait=wait)

    def clear(self, character: str | None = None) -> int:
        """Delete the logged rolls (of one character, if given), but those of the sealed
        session that is open; returns how many."""

        def change(conn: sqlite3.Connection) -> int:
            if character is None:
                return int(conn.execute(f"DELETE FROM rolls WHERE {NOT_OPEN_SESSION}").rowcount)
            where = f"character = ? AND {NOT_OPEN_SESSION}"
            return int(conn.execute(f"DELETE FROM rolls WHERE {where}", (character,)).rowcount)

        return self.db.write(self.WHAT, change)

    def recent(
        self, limit: int = 20, character: str | None = None, only: LogFilter | None = None
    ) -> list[Row]:
        """The last `limit` rolls, oldest first."""
        where, args = _where(combine(character, only))
        select = f"SELECT {_SELECTED} FROM rolls{where} ORDER BY id DESC LIMIT ?"
        raws = self.db.read(
            self.WHAT,
            lambda conn: [_row(r) for r in conn.execute(select, (*args, limit)).fetchall()],
        )
        return raws[::-1]

    def rows(self, character: str | None = None, only: LogFilter | None = None) -> Iterator[Row]:
        """Every logged roll, oldest first (streamed; a damaged page ends the stream)."""
        where, args = _where(combine(character, only))

        def query(conn: sqlite3.Connection) -> Iterator[Row]:
            select = f"SELECT {_SELECTED} FROM rolls{where} ORDER BY id"
            for raw in conn.execute(select, args):
                yield _row(raw)

        return self.db.stream(self.WHAT, query)

    def secret(self, session: int, position: int | None = None) -> list[Row]:
        """The secret rolls of a sealed session (the one at `position`), oldest first,
        with their request and result whether revealed or not."""
        where, args = "session = ? AND secret IS NOT NULL", [session]
        if position is not None:
            where, args = where + " AND position = ?", [session, position]
        select = f"SELECT {_SELECTED} FROM rolls WHERE {where} ORDER BY id"
        return self.db.read(
            self.WHAT,
            lambda conn: [_row(r, reveal=True) for r in conn.execute(select, args).fetchall()],
        )

    def count(self, character: str | None = None, only: LogFilter | None = None) -> int:
        where, args = _where(combine(character, only))
        return int(
            self.db.read(
                self.WHAT,
                lambda conn: conn.execute(f"SELECT count(*) FROM rolls{where}", args).fetchone()[0],
            )
        )


_SELECTED = ", ".join((*COLUMNS, *SEALED_COLUMNS))


def _where(only: LogFilter) -> tuple[str, tuple[Any, ...]]:
    sql, args = only.where()
    return (f" WHERE {sql}" if sql else ""), args


# --- the buffer -------------------------------------------------------------------------


class RollLog:
    """Rows waiting to be written; `close` writes them. Their size is bounded as
    the module doc says: a row's dice (a summary past MAX_ROW_DICE characters),
    the buffer (written at FLUSH_BYTES) and one run's rows (MAX_RUN_BYTES).

    `store`: the table to write to, or what opens it when the first rows are written (the
    run's Context gives its state's); None: the log opens the state database itself at
    the first write and closes it in `close`."""

    def __init__(
        self,
        character: str | None,
        source: str,
        out: Output,
        store: Rolls | Callable[[], Rolls] | None = None,
        flush_rows: int = FLUSH_ROWS,
    ) -> None:
        self.character = character
        self.source = source
        self.out = out
        self.flush_rows = flush_rows
        self._store = store
        self._owned: Database | None = None  # opened here (store=None), closed here
        self._rows: list[tuple[Any, ...]] = []
        # a write failed or was interrupted: the rows stay buffered, and `close` does not
        # wait for a lock again
        self.troubled = False
        self._stamps = Stamps()  # the rows' times (a batch writes many a second)
        self._bytes = 0  # of the buffered rows, and of every row of the run
        self._run_bytes = 0
        self._full = False  # the run has added MAX_RUN_BYTES: the rest is not logged
        # a sealed session's rolls: the session, position, replay and receipt of each
        # result (given the row's time and character: d20cli.app.sealed.SealedStream.take)
        self.seal: (
            Callable[[Result, str, str | None], tuple[int, int, str, str, int | None] | None] | None
        ) = None
        # where the rolls are posted (`--post`, D20_POST, `post.url`; None: nowhere), and
        # how many posts this log queued (d20cli.app.posting sends them)
        self.post: PostPlan | None = None
        self.posted = 0

    def add(self, result: Result) -> None:
        if self._full:
            return
        dice, size, house = result.derived("log_row", row_columns)
        self._run_bytes += size
        if self._run_bytes > MAX_RUN_BYTES:
            self.flush()
            self._full = True
            self.out.warn(
                f"the roll log takes at most {MAX_RUN_BYTES:,} bytes of rolls per run; "
                "the rest of these rolls are not logged"
            )
            return
        self._bytes += size
        at = self._stamps.of(time.time_ns() // 1_000_000)
        row: tuple[Any, ...] = (
            at,
            self.character,
            result.system,
            result.verb,
            result.request,
            dice,
            result.total,
            result.outcome,
            self.source,
        )
        # then the house rules' JSON, and a sealed session's session, position, replay and
        # receipt: nothing for a row of neither (most rows, which the table writes in fewer
        # columns)
        sealed = None if self.seal is None else self.seal(result, at, self.character)
        if house is not None or sealed:
            row = (*row, house, *(sealed or ()))
        self._rows.append(row)
        if len(self._rows) >= self.flush_rows or self._bytes >= FLUSH_BYTES:
            self.flush()

    def _table(self) -> Rolls:
        store = self._store
        if store is None:
            from d20cli.store.database import Database

            self._owned = Database.open(None, self.out.warn)
            store = Rolls(self._owned)
        elif callable(store):
            store = store()
        self._store = store
        return store

    @property
    def pending(self) -> int:
        """The rows waiting to be written."""
        return len(self._rows)

    def flush(self, wait: bool = True) -> None:
        """Write the buffered rows in one transaction (`wait=False`: without waiting for
        another process's lock). They leave the buffer only once written: a failure puts
        them back and raises NotSaved, an interrupt puts them back and goes on."""
        rows, size = self._rows, self._bytes
        if not rows:
            return
        self._rows, self._bytes = [], 0
        try:
            if self.post is not None:
                self.posted += self._table().add(rows, wait, self.post)
            elif wait:
                self._table().add(rows)
            else:
                self._table().add(rows, wait=False)
        except BaseException as err:
            self._rows[:0] = rows
            self._bytes += size
            self.troubled = True
            if isinstance(err, (sqlite3.Error, D20Error, OSError)):
                why = err.message if isinstance(err, D20Error) else str(err)
                raise NotSaved(why, len(self._rows)) from err
            raise

    def drop(self) -> None:
        """Forget the buffered rows (shown nowhere: a run that stopped)."""
        self._rows, self._bytes = [], 0

    def close(self) -> None:
        """Write what is left; after a failed or interrupted write, once more without
        waiting, and what still cannot be written (never shown) is dropped quietly."""
        troubled = self.troubled
        try:
            self.flush(wait=not troubled)
        except NotSaved:
            if not troubled:
                raise
            self.drop()
        finally:
            if self._owned is not None:
                self._owned.close()
                self._owned = None
                self._store = None
