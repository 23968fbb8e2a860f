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
from d20cli.store.database import clean

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


class LastRolls:
    """The `last_roll` table, with the rows deferred until `flush`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._pending: dict[str, tuple[str, str, str, float]] = {}
        db.on_close.append(self.flush)

    def get(self, holder: str) -> LastRoll | None:
        holder = clean(holder)
        self.flush()
        row = self.db.read(
            "the last roll",
            lambda conn: conn.execute(
                "SELECT request, system, result, at FROM last_roll WHERE holder = ?", (holder,)
            ).fetchone(),
        )
        if row is None:
            return None
        try:
            result = json.loads(row[2])
        except ValueError:
            self.db.warn("the saved last roll could not be read; it was ignored")
            return None
        if not isinstance(result, dict):
            return None
        return LastRoll(str(row[0]), str(row[1]), result, float(row[3]))

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
