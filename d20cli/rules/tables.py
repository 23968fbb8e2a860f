"""Rolling a roll table (d20cli.language.tables): its die picks an entry, and each `{...}`
in the entry's text is rolled in turn, left to right, a nested table's rolls (its die,
then its entry's rolls) before the next part. That is the order `--dice` gives faces in.

One roll is one `Result` (verb "table"): `dice` every die in roll order, `total` the
table's roll, and in `detail` the table's name, its die, the roll, the entry (the faces
that pick it: "1-3") and the text with every roll filled in, and `nested`: one object per
roll in the text, in order:

    {"kind": "dice", "expression": "1d4", "total": 3, "dice": [...]}
    {"kind": "table", "table": NAME, "die", "roll", "entry", "text", "roll_dice", "nested"}
    {"kind": "request", "request": "check +5 vs 15", "text": "17 (Success)", "result": {...}}

A request is resolved by the system its table names (`system = "mm"`), else by the
system the caller gives (`system_for(None)`). The tables a roll may reach are checked
beforehand (`graph_problem`): no cycle, a bounded depth and a bounded number of rolls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from d20cli.dice.evaluate import evaluate
from d20cli.dice.evaluated import Evaluated, summarise
from d20cli.dice.roller import Roller
from d20cli.dice.tree import LIST_LIMIT
from d20cli.errors import D20Error
from d20cli.language.table_parts import Part, parsed
from d20cli.language.tables import Entry, Table
from d20cli.results import DiceSummary, Die, Result
from d20cli.rules.common import System

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SystemFor = Callable[[str | None], System]


def roll_table(
    name: str,
    tables: Mapping[str, Table],
    roller: Roller,
    system_for: SystemFor,
    request: str,
) -> Result:
    """One roll of table `name` (which, with every table it reaches, is in `tables`)."""
    table = tables[name]
    dice = _Dice()
    detail = _roll(table, tables, roller, system_for, dice)
    many = dice.count > LIST_LIMIT  # as a `roll` of many dice: a summary instead
    return Result(
        request=request,
        system=system_for(table.system).id,
        verb="table",
        dice=() if many else tuple(dice.listed()),
        total=detail["roll"],
        dice_summary=dice.summary() if many else None,
        detail=detail,
    )


class _Dice:
    """The dice of one table roll, in roll order: a rolled expression's are kept as its
    evaluation (its faces), made into `Die`s only when the roll lists them (at most
    LIST_LIMIT), so a die of a million dice costs what a `roll` of it costs."""

    def __init__(self) -> None:
        self.parts: list[Evaluated | list[Die]] = []
        self.count = 0

    def add(self, part: Evaluated | list[Die]) -> None:
        self.parts.append(part)
        self.count += len(part) if isinstance(part, list) else part.die_count

    def listed(self) -> list[Die]:
        out: list[Die] = []
        for part in self.parts:
            out.extend(part if isinstance(part, list) else part.dice())
        return out

    def summary(self) -> DiceSummary:
        """Count, kept count, face histogram and sizes of every die."""
        faces: Counter[int] = Counter()
        kept = 0
        sides: set[int] = set()
        for part in self.parts:
            if isinstance(part, list):
                faces.update(d.face for d in part)
                kept += sum(d.kept for d in part)
                sides.update(d.sides for d in part)
                continue
            one = summarise(part)
            faces.update(one.faces)
            kept += one.kept
            sides.update(one.sides)
        return DiceSummary(self.count, kept, dict(faces), tuple(sorted(sides)))


def _dice_json(tree: Evaluated, key: str = "dice") -> dict[str, Any]:
    """The dice of one rolled expression: listed, or past LIST_LIMIT their summary under
    `{key}_summary` (and `key` empty)."""
    if tree.die_count > LIST_LIMIT:
        return {key: [], f"{key}_summary": summarise(tree).to_json()}
    return {key: [d.to_json() for d in tree.dice()]}


def _roll(
    table: Table,
    tables: Mapping[str, Table],
    roller: Roller,
    system_for: SystemFor,
    dice: _Dice,
) -> dict[str, Any]:
    evaluated = evaluate(table.expr, roller, role="table")
    dice.add(evaluated)
    entry = table.entry_for(evaluated.total)
    if entry is None:  # a checked table has no gap: only a hand-made Table gets here
        raise D20Error(f"{table.source}: no entry for {evaluated.total}")
    nested: list[dict[str, Any]] = []
    text: list[str] = []
    for part in entry.parts:
        if part.kind == "text":
            text.append(part.body)
            continue
        try:
            one = _part(part, table, tables, roller, system_for, dice)
        except D20Error as err:
            message = err.message
            if not message.startswith("{"):
                message = f"{{{part.body[:60]}}}: {message}"
            raise type(err)(_where(table, entry, message)) from None
        nested.append(one)
        text.append(str(one["text"]))
    return {
        "table": table.name,
        "die": table.die,
        "roll": evaluated.total,
        "entry": entry.key,
        "text": "".join(text).strip(),
        **_dice_json(evaluated, "roll_dice"),
        "nested": nested,
    }


def _where(table: Table, entry: Entry, message: str) -> str:
    line = "" if entry.line is None else f" line {entry.line}"
    return f"{table.source}{line}: entry {entry.key!r}: {message}"


def _part(
    part: Part,
    table: Table,
    tables: Mapping[str, Table],
    roller: Roller,
    system_for: SystemFor,
    dice: _Dice,
) -> dict[str, Any]:
    if part.kind == "table":
        inner = _roll(tables[part.body], tables, roller, system_for, dice)
        return {"kind": "table", **inner}
    what = parsed(part)
    if part.kind == "dice":
        evaluated = evaluate(what, roller)  # type: ignore[arg-type]
        dice.add(evaluated)
        return {
            "kind": "dice",
            "expression": part.body,
            "total": evaluated.total,
            "text": str(evaluated.total),
            **_dice_json(evaluated),
        }
    request: Any = what
    if getattr(request, "repeat", 1) != 1 or getattr(request, "parts", ()):
        raise D20Error(f"{{{part.body[:60]}}}: one roll in a pair of braces")
    result = system_for(table.system).resolve(request, roller)
    dice.add(result_dice(result))
    return {
        "kind": "request",
        "request": part.body,
        "text": request_fill(result),
        "result": result.to_json(),
    }


def result_dice(result: Result) -> list[Die]:
    """Every die of a request's result: its own (else its members' and sides'), then its
    damage dice."""
    out = list(result.dice)
    if not out:
        for member in (*(result.members or ()), *(result.sides or ())):
            out.extend(result_dice(member))
    if result.damage is not None:
        out.extend(result.damage.dice)
    return out


def request_fill(result: Result) -> str:
    """What a request puts into an entry's text: `17 (Success)`, or its label alone."""
    label = result.label or (result.outcome or "").replace("_", " ")
    text = label
    if result.total is not None:
        text = f"{result.total} ({label})" if label else str(result.total)
    if result.damage is not None:
        text += f", {result.damage.total} damage"
    return text
