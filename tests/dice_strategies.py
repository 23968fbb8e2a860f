"""Hypothesis strategies that mirror the dice grammar (small counts, small sides)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

from d20cli.dice.evaluate import never_ends, unique_problem
from d20cli.dice.modifiers import COMPARE_OPS, MODIFIERS, Choose
from d20cli.dice.tree import (
    Arithmetic,
    Call,
    Compare,
    Dice,
    Expr,
    Group,
    Neg,
    Number,
)
from d20cli.errors import ParseError
from d20cli.frozen import replace
from d20cli.language.dice_grammar import parse_expression

OPS = COMPARE_OPS
T = TypeVar("T")

labels = st.none() | st.text(alphabet="abcdefghijklmnopqrstuvwxyz _-", min_size=1, max_size=8).map(
    str.strip
).filter(bool)


def compare_points(lo: int, hi: int) -> st.SearchStrategy[Compare]:
    return st.builds(Compare, st.sampled_from(OPS), st.integers(lo - 1, hi + 1))


class _Draw(Choose):
    """A modifier's example choices (`Modifier.example`), drawn by hypothesis."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def flag(self) -> bool:
        return self.draw(st.booleans())

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def one_of(self, options: Sequence[T]) -> T:
        return self.draw(st.sampled_from(options))


def draw_modifiers(
    draw: st.DrawFn,
    bare: Dice,
    valid: Callable[[dict[str, Any]], Dice | None],
    endless: bool = True,
) -> Dice:
    """`bare` with modifiers drawn from the registry (d20cli.dice.modifiers.MODIFIERS),
    so a new modifier is covered without editing a strategy: each may be drawn, from its
    own `example`; without `endless`, none that could roll without end (a brute force
    cannot enumerate those). Combinations `valid` refuses (None) lose one modifier at a
    time, the last first, until it accepts one."""
    choose = _Draw(draw)
    mods: dict[str, Any] = {}
    for m in MODIFIERS:
        if draw(st.booleans()):
            value = m.example(bare, choose)
            if endless or not m.endless(value):
                mods[m.field] = value
    term = valid(mods)
    while term is None:
        for key in reversed(list(mods)):
            term = valid({k: v for k, v in mods.items() if k != key})
            if term is not None:
                break
        else:
            mods.popitem()
            term = valid(mods)
    return term


@st.composite
def dice(draw: st.DrawFn, counts: st.SearchStrategy[int | Expr] | None = None) -> Dice:
    custom = st.lists(st.integers(-3, 6), min_size=1, max_size=5).map(tuple)
    sides: Any = draw(st.integers(1, 20) | st.sampled_from([100, "F"]) | custom)
    count = draw(counts if counts is not None else st.integers(0, 4))
    label = draw(labels)

    def valid(mods: dict[str, Any]) -> Dice | None:
        """A term the grammar reads and that can always be rolled (rerolls and
        explosions that never stop, too many unique faces are errors)."""
        explode = mods.get("explode")
        if explode is not None and explode.point is None and "pool" in mods:
            # `!` directly followed by a comparison reads as the explosion's point, so a
            # pool of exploding dice spells the point out: `6d10!=10>=7`.
            hi = Dice(1, sides).hi
            mods = {**mods, "explode": replace(explode, point=Compare("=", hi))}
        try:
            term = Dice(count, sides, label=label, **mods)
            most = count if isinstance(count, int) else int(count.bounds()[1])
            if never_ends(term) is None and unique_problem(term, most) is None:
                parse_expression(str(term))
                return term
        except (ValueError, ParseError):
            pass
        return None

    return draw_modifiers(draw, Dice(1, sides), valid)


def group_modifier(name: str) -> st.SearchStrategy[Any]:
    """None, or the modifier of a group's field `name` (keep/drop, a pool target) drawn
    from its row of the registry, as for a term whose totals run 0..12."""
    row = next(m for m in MODIFIERS if m.field == name)

    @st.composite
    def drawn(draw: st.DrawFn) -> Any:
        return row.example(Dice(1, 12), _Draw(draw))

    return st.none() | drawn()


numbers = st.builds(Number, st.integers(0, 30), labels)

# A computed count: a small non-negative number, or a small die roll.
computed_counts = st.builds(Number, st.integers(0, 3)) | st.builds(
    Dice, st.integers(0, 2), st.integers(1, 3)
)

# Computed sides `1d(1d3+1)`: a small positive number, or a small roll plus one.
computed_sides = st.builds(
    Dice,
    st.integers(0, 3),
    st.builds(Number, st.integers(1, 6))
    | st.builds(
        Arithmetic, st.builds(Dice, st.just(1), st.integers(1, 3)), st.just((("+", Number(1)),))
    ),
)

atoms: st.SearchStrategy[Expr] = (
    numbers | dice() | dice(st.integers(0, 4) | computed_counts) | computed_sides
)


def _no_negative_half(call: Call) -> bool:
    """round() of what may be a negative half is refused (peers round it differently)."""
    try:
        parse_expression(str(call))
    except ParseError:
        return False
    return True


def _extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    chain = st.builds(
        Arithmetic,
        children,
        st.one_of(
            st.lists(st.tuples(st.sampled_from("+-"), children), min_size=1, max_size=3),
            st.lists(st.tuples(st.sampled_from("*/"), children), min_size=1, max_size=3),
        ).map(tuple),
    )
    calls = st.builds(
        Call,
        st.sampled_from(["max", "min"]),
        st.lists(children, min_size=1, max_size=3).map(tuple),
    ) | st.builds(
        Call, st.sampled_from(["abs", "ceil", "floor", "round"]), st.tuples(children)
    ).filter(_no_negative_half)
    groups = st.builds(
        Group,
        st.lists(children, min_size=2, max_size=3).map(tuple),
        group_modifier("keep"),
        group_modifier("pool"),
    )
    return chain | st.builds(Neg, children) | calls | groups


expressions: st.SearchStrategy[Expr] = st.recursive(atoms, _extend, max_leaves=8)
