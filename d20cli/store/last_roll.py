"""The `last_roll` table of the state database (d20cli.store.database): each holder's
last pendagger attempt or luck roll, what `fortune spend` rerolls. A roll's result is
stored as its JSON line (`Result.to_json`, read back by `Result.from_json`).

Many rolls in a row (`--repeat 1000000`) are written once: `set(..., defer=True)` keeps
the row until `flush`, which runs before any read of a last roll, before any output is
written (group commit, d20cli.app.context), and when the database closes."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from d20cli.frozen import frozen
from d20cli.store.database import BadValue, clean, stored_json, stored_text

if TYPE_CHECKING:
    import sqlite3

    from d20cli.store.database import Database


@frozen
class LastRoll:
    """The last pendagger attempt or luck roll of a holder (what `fortune spend` rerolls)."""

    request: str
    system: str
    result: dict[str, Any]
    at: float


def _last_roll(row: tuple[Any, ...]) -> LastRoll:
    """A row of the table, each value checked: BadValue (the file is then moved aside,
    d20cli.store.database) for one that d20 does not write, such as a result that is not
    one (`fortune spend` rolls it again)."""
    from d20cli.results import Result

    result = stored_json(row[2], "last_roll.result", dict)
    try:
        Result.from_json(result)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise BadValue(f"last_roll.result holds a result d20 does not write ({err})") from None
    at = row[3]
    if isinstance(at, int):
        at = float(at)
    if not isinstance(at, float):
        raise BadValue(f"last_roll.at holds {str(at)[:40]!r}, not a time")
    request = stored_text(row[0], "last_roll.request")
    return LastRoll(request, stored_text(row[1], "last_roll.system"), result, at)


class LastRolls:
    """The `last_roll` table, with the rows deferred until `flush`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._pending: dict[str, tuple[str, str, str, float]] = {}
        db.on_close.append(self.flush)

    def get(self, holder: str) -> LastRoll | None:
        holder = clean(holder)
        self.flush()

        def query(conn: sqlite3.Connection) -> LastRoll | None:
            row = conn.execute(
                "SELECT request, system, result, at FROM last_roll WHERE holder = ?", (holder,)
            ).fetchone()
            return None if row is None else _last_roll(row)

        return self.db.read("the last roll", query)

    def set(
        self,
        holder: str,
        request: str,
        system: str,
        result: dict[str, Any],
        defer: bool = False,
    ) -> None:
        """Remember `holder`'s last roll. defer: keep it in memory until `flush` (the next
        read, the next output, or the close), so many rolls in a row cost one write."""
        data = clean(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
        self._pending[clean(holder)] = (clean(request), clean(system), data, time.time())
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

        self.db.write("the last roll", change)
