"""Two small tables of the state database (d20cli.store.database): the settings (the
boon option, ...) and the fortune dice each holder holds. Every change is one
transaction, so a read-modify-write (add a die up to the most) is atomic between
processes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from d20cli.errors import StateError
from d20cli.store.database import clean, stored_int, stored_text

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable

    from d20cli.store.database import Database


class Settings:
    """The `settings` table: text values by key."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, key: str, default: str | None = None) -> str | None:
        found = self.db.read("the settings", lambda conn: _value(conn, key))
        return default if found is None else found

    def set(self, key: str, value: str | None) -> None:
        key, value = clean(key), None if value is None else clean(value)
        self.db.write(f"the setting {key!r}", lambda conn: _put(conn, key, value))

    def update(self, key: str, fn: Callable[[str | None], str | None]) -> str | None:
        """Read-modify-write one setting atomically; returns the new value."""

        def change(conn: sqlite3.Connection) -> str | None:
            new = fn(_value(conn, key))
            _put(conn, key, new)
            return new

        return self.db.write(f"the setting {key!r}", change)


def _value(conn: sqlite3.Connection, key: str) -> str | None:
    """The setting's value (None: none), checked (BadValue: not text)."""
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else stored_text(row[0], "settings.value")


def _put(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM settings WHERE key = ?", (key,))
    else:
        conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


class FortuneDice:
    """The `fortune` table: how many fortune dice each holder holds."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def held(self, holder: str) -> int:
        """How many fortune dice `holder` holds."""
        holder = clean(holder)
        return self.db.read("the fortune dice", lambda conn: _held(conn, holder))

    def add(self, holder: str, most: int) -> tuple[int, bool]:
        """Add one fortune die unless `holder` already holds `most`.
        Returns (count now held, whether a die was added), atomically."""
        holder = clean(holder)

        def change(conn: sqlite3.Connection) -> tuple[int, bool]:
            held = _held(conn, holder)
            if held >= most:
                return held, False
            _set(conn, holder, held + 1)
            return held + 1, True

        return self.db.write("the fortune dice", change)

    def take(self, holder: str) -> int | None:
        """Spend one fortune die: the count left, or None if `holder` held none."""
        holder = clean(holder)

        def change(conn: sqlite3.Connection) -> int | None:
            held = _held(conn, holder)
            if held <= 0:
                return None
            _set(conn, holder, held - 1)
            return held - 1

        return self.db.write("the fortune dice", change)

    def set(self, holder: str, count: int) -> None:
        holder = clean(holder)
        if count < 0:
            raise StateError("a fortune die count cannot be negative")
        self.db.write("the fortune dice", lambda conn: _set(conn, holder, count))


def _held(conn: sqlite3.Connection, holder: str) -> int:
    row = conn.execute("SELECT count FROM fortune WHERE holder = ?", (holder,)).fetchone()
    return 0 if row is None else stored_int(row[0], "fortune.count", 0)


def _set(conn: sqlite3.Connection, holder: str, count: int) -> None:
    conn.execute(
        "INSERT INTO fortune (holder, count) VALUES (?, ?) "
        "ON CONFLICT (holder) DO UPDATE SET count = excluded.count",
        (holder, count),
    )
