"""Evaluated dice expressions: the nodes `d20cli.dice.evaluate` builds (a total, the syntax
node and the evaluated children), which renderers walk. Re-exported by evaluate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from d20cli.dice.tree import Arithmetic, Call, Dice, Group, Neg, Number
from d20cli.frozen import frozen
from d20cli.results import DiceSummary, Die, dice_maker


class Evaluated:
    """An evaluated node: `.total`, `.expr` (the syntax node) and its evaluated children.

    Renderers walk it: `EvalNumber`, `EvalDice` (faces, kept, flags per die), `EvalNeg`,
    `EvalArithmetic` (`first`, `rest` as (op, node) pairs), `EvalCall` (`args`),
    `EvalGroup` (`items`, which are kept, and the pool's marks).
    """

    __slots__ = ()
    total: int

    def children(self) -> list[Evaluated]:
        return []

    def walk(self) -> Iterator[Evaluated]:
        """Every node in evaluation (roll) order, parents before children."""
        stack: list[Evaluated] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))

    def terms(self) -> Iterator[EvalDice]:
        """The dice terms, in roll order (a computed count's dice before its term's)."""
        for child in self.children():
            yield from child.terms()

    @property
    def die_count(self) -> int:
        return sum(len(t.faces) for t in self.terms())

    def dice(self) -> list[Die]:
        """Every physical die as a results.Die, in roll order."""
        out: list[Die] = []
        for t in self.terms():
            out.extend(t.term_dice())
        return out

    def labels(self) -> dict[str, int]:
        """{label: subtotal} for labelled terms (the same label twice adds up)."""
        out: dict[str, int] = {}
        for node in self.walk():
            if isinstance(node, EvalNumber | EvalDice) and node.expr.label is not None:
                out[node.expr.label] = out.get(node.expr.label, 0) + node.total
        return out

    def untyped(self, labels: dict[str, int]) -> int | None:
        """The part of the total no label names, when the labelled terms are added into it:
        3 for `2d6[slashing]+3+1d6[fire]`, -1 for `2d6[fire]-1`, so that the labels'
        subtotals and it add up to the total. None when it is 0, or when a labelled term is
        subtracted, multiplied or inside a function, group or dice count (its share of the
        total cannot be told, and the labels then give the labelled terms' own totals), and
        when no labelled term rolls dice: labelled numbers alone are modifiers named
        (`1d20+3[dex]+2[prof]`, a character's references), not types of a total."""
        first_and_rest = (
            [("+", self.first), *self.rest]
            if isinstance(self, EvalArithmetic) and self.rest[0][0] in "+-"
            else [("+", self)]
        )
        for op, part in first_and_rest:
            whole = isinstance(part, EvalNumber | EvalDice) and part.expr.label is not None
            if whole and op == "-":
                return None
            inside = part.children() if whole else [part]
            if any(_labelled(node) for child in inside for node in child.walk()):
                return None
        if not any(isinstance(node, EvalDice) and _labelled(node) for node in self.walk()):
            return None
        rest = self.total - sum(labels.values())
        return rest or None


def _labelled(node: Evaluated) -> bool:
    return isinstance(node, EvalNumber | EvalDice) and node.expr.label is not None


@frozen(slots=True)
class EvalNumber(Evaluated):
    expr: Number
    total: int


@frozen
class EvalDice(Evaluated):
    """One dice term as rolled.

    faces: every physical die in roll order (after mi/ma), including rerolled-away faces;
    a custom die's by value (flagged "custom"; `sides` is its number of faces).
    kept: None if every die is kept, else a parallel list.
    flags: None if no die has a flag, else a parallel list of flag tuples.
    count: the evaluated count expression of `(1+1)d6`, else None.
    """

    expr: Dice
    total: int
    faces: list[int]
    kept: list[bool] | None = None
    flags: list[tuple[str, ...]] | None = None
    count: Evaluated | None = None
    role: str = "roll"
    sides: Evaluated | None = None  # computed sides `1d(1d4+2)`: their evaluation
    # compounded explosions (`!!`): each compounded die is one face (the sum), and `parts`
    # (parallel to `faces`) holds the faces it adds up, () for a die that did not compound
    parts: list[tuple[int, ...]] | None = None

    def children(self) -> list[Evaluated]:
        return [x for x in (self.count, self.sides) if x is not None]

    def terms(self) -> Iterator[EvalDice]:
        if self.count is not None:  # `(1d4)d6`: the d4 was rolled first
            yield from self.count.terms()
        if self.sides is not None:
            yield from self.sides.terms()
        yield self

    def term_dice(self) -> list[Die]:
        sides = self.expr.die_sides
        role, label = self.role, self.expr.label
        mark = "fudge" if self.expr.sides == "F" else "custom" if self.expr._custom else ""
        kept, flags, parts = self.kept, self.flags, self.parts
        die = dice_maker(label)
        if kept is None and flags is None and not mark and parts is None:
            return [die(sides, f, True, role, label, ()) for f in self.faces]
        out = []
        for i, f in enumerate(self.faces):
            fl = () if flags is None else flags[i]
            if mark:
                fl = (*fl, mark)
            keep = True if kept is None else kept[i]
            if parts is None:
                out.append(die(sides, f, keep, role, label, fl))
            else:  # a compounded die (`!!`): the faces it adds up
                out.append(Die(sides, f, keep, role, label, fl, None, parts[i]))
        return out

    @property
    def kept_count(self) -> int:
        return len(self.faces) if self.kept is None else sum(self.kept)


@frozen(slots=True)
class EvalNeg(Evaluated):
    expr: Neg
    total: int
    operand: Evaluated

    def children(self) -> list[Evaluated]:
        return [self.operand]


@frozen(slots=True)
class EvalArithmetic(Evaluated):
    expr: Arithmetic
    total: int
    first: Evaluated
    rest: tuple[tuple[str, Evaluated], ...]

    def children(self) -> list[Evaluated]:
        return [self.first, *(x for _, x in self.rest)]


@frozen(slots=True)
class EvalCall(Evaluated):
    expr: Call
    total: int
    args: tuple[Evaluated, ...]

    def children(self) -> list[Evaluated]:
        return list(self.args)


@frozen(slots=True)
class EvalGroup(Evaluated):
    """A group as rolled: each item's evaluation, which items are kept (None: all) and,
    with a pool target, each kept item's mark ("success", "failure" or "")."""

    expr: Group
    total: int
    items: tuple[Evaluated, ...]
    kept: tuple[bool, ...] | None = None
    marks: tuple[str, ...] | None = None

    def children(self) -> list[Evaluated]:
        return list(self.items)

    def dropped_terms(self) -> Iterator[EvalDice]:
        """The dice terms of the items keep/drop dropped."""
        if self.kept is None:
            return
        for item, kept in zip(self.items, self.kept, strict=True):
            if not kept:
                yield from item.terms()


def marked(ev: EvalDice) -> EvalDice:
    """`ev` with its dice marked by the term's rules that mark them (`Rule.mark`: the
    critical markers `cs>19`, `cf<2` flag the kept dice; `sa`, `sd` sort them)."""
    e = ev.expr
    n = len(ev.faces)
    faces = ev.faces
    kept = ev.kept if ev.kept is not None else [True] * n
    flags: list[tuple[str, ...]] = ev.flags if ev.flags is not None else [()] * n
    parts = ev.parts
    for rule in e._marking:
        faces, kept, flags, parts = rule.mark(faces, kept, flags, parts)
    return EvalDice(
        e,
        ev.total,
        faces,
        None if all(kept) else kept,
        flags if any(flags) else None,
        ev.count,
        ev.role,
        ev.sides,
        parts,
    )


def summarise(tree: Evaluated) -> DiceSummary:
    """Count, kept count, face histogram and sizes of every die in the tree."""
    faces: Counter[int] = Counter()
    count = kept = 0
    sides: set[int] = set()
    for t in tree.terms():
        faces.update(t.faces)
        count += len(t.faces)
        kept += t.kept_count
        if t.faces:
            sides.add(t.expr.die_sides)
    return DiceSummary(count=count, kept=kept, faces=dict(faces), sides=tuple(sorted(sides)))
