"""What `d20 log --luck` computes from the roll log (d20cli.store.rolllog): its rows, oldest
first, priced by the exact odds of their requests (d20cli.probability.pricing, which says
how a roll is read, priced or left out), and how lucky the dice were
(d20cli.probability.luck).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from d20cli.probability.luck import Ledger
from d20cli.probability.pricing import LUCK_STEPS as LUCK_STEPS
from d20cli.probability.pricing import MAX_REQUESTS as MAX_REQUESTS
from d20cli.probability.pricing import Logged, price_rolls

if TYPE_CHECKING:
    from d20cli.store.rolllog import LogFilter, Rolls, Row


def ledger(rolls: Rolls, only: LogFilter | None = None) -> Ledger:
    """The rows `only` keeps, oldest first, priced (d20cli.probability.pricing)."""
    rows = sorted(rolls.rows(only=only), key=lambda r: (r.at, r.id))
    return price_rolls(logged(r) for r in rows)


def logged(row: Row) -> Logged:
    """What pricing reads of a row."""
    return Logged(
        row.id,
        row.at,
        row.character,
        row.system,
        row.verb,
        row.request,
        row.dice,
        row.total,
        row.outcome,
        row.source == "dice",
        row.house,
        row.session is not None,
    )
