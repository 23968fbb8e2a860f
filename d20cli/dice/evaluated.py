"""Evaluated dice expressions: the nodes `d20cli.dice.evaluate` builds (a total, the syntax
node and the evaluated children), which renderers walk. Re-exported by evaluate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from d20cli.dice.tree import Arithmetic, Call, Dice, Group, Neg, Number
from d20cli.frozen import quick_init
from d20cli.results import Die


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


@quick_init
@dataclass(frozen=True, slots=True)
class EvalNumber(Evaluated):
    expr: Number
    total: int


@quick_init
@dataclass(frozen=True, slots=True)
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
        mark = "fudge" if self.expr.sides == "F" else "custom" if self.expr.custom else ""
        kept, flags = self.kept, self.flags
        if kept is None and flags is None and not mark:
            return [Die(sides, f, True, role, label) for f in self.faces]
        out = []
        for i, f in enumerate(self.faces):
            fl = () if flags is None else flags[i]
            if mark:
                fl = (*fl, mark)
            out.append(Die(sides, f, True if kept is None else kept[i], role, label, fl))
        return out

    @property
    def kept_count(self) -> int:
        return len(self.faces) if self.kept is None else sum(self.kept)


@quick_init
@dataclass(frozen=True, slots=True)
class EvalNeg(Evaluated):
    expr: Neg
    total: int
    operand: Evaluated

    def children(self) -> list[Evaluated]:
        return [self.operand]


@quick_init
@dataclass(frozen=True, slots=True)
class EvalArithmetic(Evaluated):
    expr: Arithmetic
    total: int
    first: Evaluated
    rest: tuple[tuple[str, Evaluated], ...]

    def children(self) -> list[Evaluated]:
        return [self.first, *(x for _, x in self.rest)]


@quick_init
@dataclass(frozen=True, slots=True)
class EvalCall(Evaluated):
    expr: Call
    total: int
    args: tuple[Evaluated, ...]

    def children(self) -> list[Evaluated]:
        return list(self.args)


@quick_init
@dataclass(frozen=True, slots=True)
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
