"""The exact odds of a roll table (`d20 odds table NAME`): the chance of each entry, and
for each roll in an entry's text the distribution of what it gives.

An entry's chance is its weight over the weights' sum, or, for a table with a die, the
die's exact distribution (d20cli.dice.distribution) summed over the entry's totals.
Within an entry: a dice expression's distribution of totals; a nested table's own odds;
a request's odds of each outcome (d20cli.probability.engine). Every chance is given
twice: `chance`, given what encloses it (the entry, the nested table), and `overall`,
from the top of the roll, so `{1d4+2} goblins` says how likely 6 goblins are in all.

Bounded: the odds of one table list at most MAX_LINES rolls and entries in all (nested
tables are repeated where they are reached), and every distribution has the odds'
usual step budget (TooCostly suggests nothing better: tables are not simulated), all of
them together MAX_STEPS, and everything, requests included, the steps of one command's
odds (`walk.command_budget`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from fractions import Fraction

from d20cli.dice.distribution import distribution
from d20cli.dice.tree import Expr
from d20cli.dice.weights import Budget, TooCostly
from d20cli.errors import D20Error
from d20cli.frozen import field, frozen
from d20cli.language.table_parts import Part, parsed
from d20cli.language.tables import Entry, Table
from d20cli.language.vocabulary import DEFAULT_SYSTEM
from d20cli.number_format import decimal
from d20cli.probability import walk
from d20cli.probability.model import ratio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_LINES = 5000  # entries and rolls listed in one table's odds
MAX_STEPS = 4_000_000  # the distributions of one table's odds together


@frozen
class RollOdds:
    """One roll in an entry's text. kind "dice": `totals` (total -> chance); "table":
    `table`, that table's odds; "request": `outcomes` (id -> chance) and their `labels`."""

    kind: str
    body: str
    totals: dict[int, Fraction] = field(default_factory=dict)
    table: TableOdds | None = None
    outcomes: dict[str, Fraction] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


@frozen
class EntryOdds:
    key: str
    text: str
    chance: Fraction  # given the table
    overall: Fraction  # from the top of the roll
    rolls: tuple[RollOdds, ...]


@frozen
class TableOdds:
    name: str
    die: str
    system: str
    overall: Fraction  # the chance this table is rolled at all
    entries: tuple[EntryOdds, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.name,
            "die": self.die,
            "system": self.system,
            "entries": [_entry_json(e) for e in self.entries],
        }


def _entry_json(entry: EntryOdds) -> dict[str, Any]:
    return {
        "entry": entry.key,
        "text": entry.text,
        **_chances(entry.chance, entry.overall),
        "nested": [_roll_json(r, entry.overall) for r in entry.rolls],
    }


def _chances(chance: Fraction, overall: Fraction) -> dict[str, Any]:
    """`chance` and `overall` as exact fractions, each with its number beside it."""
    return {
        "chance": ratio(chance),
        "chance_decimal": decimal(chance),
        "overall": ratio(overall),
        "overall_decimal": decimal(overall),
    }


def _roll_json(roll: RollOdds, overall: Fraction) -> dict[str, Any]:
    if roll.kind == "table" and roll.table is not None:
        return {"kind": "table", **roll.table.to_json()}
    if roll.kind == "dice":
        totals = [{"total": t, **_chances(p, p * overall)} for t, p in sorted(roll.totals.items())]
        return {"kind": "dice", "expression": roll.body, "totals": totals}
    outcomes = [
        {
            "outcome": o,
            "label": roll.labels.get(o, o),
            **_chances(p, p * overall),
        }
        for o, p in roll.outcomes.items()
    ]
    return {"kind": "request", "request": roll.body, "outcomes": outcomes}


RequestOdds = Callable[[Part, str | None], tuple[dict[str, Fraction], dict[str, str]]]


def table_odds(
    name: str,
    tables: Mapping[str, Table],
    system_for: Callable[[str | None], str],
    request_odds: RequestOdds | None = None,
) -> TableOdds:
    """The odds of table `name` (checked: `tables` holds every table it reaches).
    system_for(table's system key) is the id of the system its requests use;
    request_odds(part, system id) the outcomes of a request (default: the odds engine)."""
    size = _size(name, tables, {})
    if size > MAX_LINES:
        raise TooCostly(
            f"the odds of table {name!r} would list {size:,} entries and rolls "
            f"(at most {MAX_LINES:,})"
        )
    command = walk.command_budget(f"table {name}")
    budget = Budget(MAX_STEPS, f"table {name}", within=command)
    if request_odds is None:
        request_odds = functools.partial(_engine_odds, within=command)
    return _Odds(tables, system_for, request_odds, budget).table(name, Fraction(1))


def _size(name: str, tables: Mapping[str, Table], seen: dict[str, int]) -> int:
    if name not in seen:
        seen[name] = sum(
            1 + sum(_size(p.body, tables, seen) if p.kind == "table" else 1 for p in e.parts)
            for e in tables[name].entries
        )
    return seen[name]


def _engine_odds(
    part: Part, system: str | None, within: Budget | None = None
) -> tuple[dict[str, Fraction], dict[str, str]]:
    from d20cli.probability.engine import odds_of

    request = parsed(part)
    odds = odds_of(
        part.body,
        system or DEFAULT_SYSTEM,
        parse=lambda _text: request,  # type: ignore[arg-type,return-value]
        within=within,
    )
    return dict(odds.ordered_outcomes()), dict(odds.labels)


class _Odds:
    def __init__(
        self,
        tables: Mapping[str, Table],
        system_for: Callable[[str | None], str],
        request_odds: RequestOdds,
        budget: Budget,
    ) -> None:
        self.tables = tables
        self.system_for = system_for
        self.request_odds = request_odds
        self.budget = budget
        self.dists: dict[str, dict[int, Fraction]] = {}

    def table(self, name: str, overall: Fraction) -> TableOdds:
        table = self.tables[name]
        if table.weighted:
            sides = sum(e.weight or 0 for e in table.entries)
            chances = [Fraction(e.weight or 0, sides) for e in table.entries]
        else:
            dist = self.totals(table.die, table.expr)
            chances = [
                sum((p for t, p in dist.items() if e.lo <= t <= e.hi), Fraction(0))
                for e in table.entries
            ]
        entries = []
        for entry, chance in zip(table.entries, chances, strict=True):
            here = overall * chance
            rolls = tuple(self.roll(p, table, entry, here) for p in entry.parts if p.kind != "text")
            entries.append(EntryOdds(entry.key, entry.text, chance, here, rolls))
        return TableOdds(name, table.die, self.system_for(table.system), overall, tuple(entries))

    def roll(self, part: Part, table: Table, entry: Entry, overall: Fraction) -> RollOdds:
        self.budget.on_time()
        try:
            if part.kind == "table":
                return RollOdds("table", part.body, table=self.table(part.body, overall))
            if part.kind == "dice":
                expr: Any = parsed(part)
                return RollOdds("dice", part.body, totals=self.totals(part.body, expr))
            outcomes, labels = self.request_odds(part, self.system_for(table.system))
            return RollOdds("request", part.body, outcomes=outcomes, labels=labels)
        except D20Error as err:
            if part.kind == "table" or getattr(err, "placed", False):
                raise
            message = err.message
            if not message.startswith("{"):
                message = f"{{{part.body[:60]}}}: {message}"
            line = "" if entry.line is None else f" line {entry.line}"
            placed = type(err)(f"{table.source}{line}: entry {entry.key!r}: {message}")
            placed.placed = True  # type: ignore[attr-defined]
            raise placed from None

    def totals(self, text: str, expr: Expr) -> dict[int, Fraction]:
        if text not in self.dists:
            dist = distribution(expr, budget=self.budget)
            if dist.truncated:
                raise TooCostly(
                    f"{{{text}}} may explode without end: its exact odds cannot be listed"
                )
            self.dists[text] = dist.fractions()
        return self.dists[text]
