"""How long the roll log (d20cli.store.rolllog) keeps its rows: `d20 log --prune --before
DATE` and `--prune --keep N` (d20cli.app.commands.log), and the config file's `log.keep`,
applied as a run that logged rolls ends (`Context.close`).

A prune deletes the rows logged before a time and those older than the newest N, in one
transaction, and never a row of the sealed session that is open (d20cli.store.sealing):
its rolls are still to be verified. `log.keep` lets the log grow a tenth past N before a
run prunes it back to N, so that the prune (and the line that says so) comes once every
many rolls, not at every run; until then a run costs one look at the two ends of the
table's key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from d20cli.errors import D20Error
from d20cli.store.rolllog import NOT_OPEN_SESSION

if TYPE_CHECKING:
    import sqlite3

    from d20cli.store.rolllog import Rolls

KEEP_SLACK = 10  # percent: how far past `log.keep` the log grows before it is pruned


def _pruned(
    conn: sqlite3.Connection, before: str | None, keep: int | None
) -> tuple[str, tuple[Any, ...]] | None:
    """The condition of the rows a prune deletes (None: none)."""
    parts: list[str] = []
    args: list[Any] = []
    if before is not None:
        parts.append("at < ?")
        args.append(before)
    if keep is not None:
        query = "SELECT id FROM rolls ORDER BY id DESC LIMIT 1 OFFSET ?"
        last = conn.execute(query, (keep,)).fetchone()  # the newest row past the kept ones
        if last is not None:
            parts.append("id <= ?")
            args.append(int(last[0]))
    if not parts:
        return None
    return f"({' OR '.join(parts)}) AND {NOT_OPEN_SESSION}", tuple(args)


def prune(rolls: Rolls, before: str | None = None, keep: int | None = None) -> int:
    """Delete the rows logged before `before` (the log's time text, rolllog.stamp) and
    those older than the newest `keep`, but never a row of the sealed session that is
    open; returns how many."""

    def change(conn: sqlite3.Connection) -> int:
        where = _pruned(conn, before, keep)
        if where is None:
            return 0
        return int(conn.execute(f"DELETE FROM rolls WHERE {where[0]}", where[1]).rowcount)

    return rolls.db.write(rolls.WHAT, change)


def prunable(rolls: Rolls, before: str | None = None, keep: int | None = None) -> int:
    """How many rows `prune` would delete now."""

    def query(conn: sqlite3.Connection) -> int:
        where = _pruned(conn, before, keep)
        if where is None:
            return 0
        count = f"SELECT count(*) FROM rolls WHERE {where[0]}"
        return int(conn.execute(count, where[1]).fetchone()[0])

    return rolls.db.read(rolls.WHAT, query)


def keep_newest(rolls: Rolls, keep: int, warn: Callable[[str], None]) -> int:
    """`log.keep`: when the log holds more than `keep` rows and a tenth, delete all but
    the newest `keep` and say how many through `warn` (a failure too). Returns how many
    rows went."""
    most = keep + max(keep * KEEP_SLACK // 100, 1)

    def over(conn: sqlite3.Connection) -> bool:
        ends = "SELECT (SELECT min(id) FROM rolls), (SELECT max(id) FROM rolls)"  # two seeks
        low, high = conn.execute(ends).fetchone()
        if low is None or high - low + 1 <= most:  # (distinct ids: no more rows than this)
            return False
        past = "SELECT 1 FROM rolls ORDER BY id DESC LIMIT 1 OFFSET ?"
        return conn.execute(past, (most,)).fetchone() is not None

    try:
        if not rolls.db.read(rolls.WHAT, over):
            return 0
        gone = prune(rolls, keep=keep)
    except D20Error as err:
        warn(f"cannot prune the roll log to log.keep = {keep:,}: {err.message}")
        return 0
    if gone:
        warn(f"the roll log keeps the newest {keep:,} rolls (log.keep): {gone:,} older deleted")
    return gone


def keep_configured(rolls: Rolls, warn: Callable[[str], None]) -> int:
    """`keep_newest` with the config file's `log.keep`, when it gives one (a config file
    that cannot be read prunes nothing: the run's rolls have said what is wrong with it)."""
    from d20cli.store.config import load_config

    try:
        keep = load_config().log_keep
    except D20Error:
        return 0
    return 0 if keep is None else keep_newest(rolls, keep, warn)


__all__ = ["KEEP_SLACK", "keep_configured", "keep_newest", "prunable", "prune"]
