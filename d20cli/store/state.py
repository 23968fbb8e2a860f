"""What persists between runs, as one handle: the open state database
(d20cli.store.database) and one repository per table: the settings and fortune dice
(d20cli.store.settings), the last pendagger rolls (d20cli.store.last_roll) and the roll
log (d20cli.store.rolllog). Only the edge opens it, through the run's Context
(d20cli.app.context), which keeps one open for the run and closes it; the rules never
see it."""

from __future__ import annotations

from pathlib import Path

from d20cli.store.database import Database, Warn
from d20cli.store.database import db_path as db_path
from d20cli.store.database import history_path as history_path
from d20cli.store.database import state_dir as state_dir
from d20cli.store.last_roll import LastRoll as LastRoll
from d20cli.store.last_roll import LastRolls
from d20cli.store.rolllog import Rolls
from d20cli.store.schema import SCHEMA_VERSION as SCHEMA_VERSION
from d20cli.store.settings import FortuneDice, Settings


class State:
    """An open state database and its tables. `State.open()` (never raises for a bad file
    or directory: it warns and falls back, see d20cli.store.database); `State.memory()`
    for a throwaway one; `close` writes what was deferred and closes it."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.settings = Settings(db)
        self.fortune = FortuneDice(db)
        self.last_rolls = LastRolls(db)
        self.rolls = Rolls(db)

    @classmethod
    def open(cls, path: Path | None = None, warn: Warn | None = None) -> State:
        return cls(Database.open(path, warn))

    @classmethod
    def memory(cls, warn: Warn | None = None) -> State:
        return cls(Database.memory(warn))

    def close(self) -> None:
        self.db.close()
