"""Hypothesis strategies that mirror the dice grammar (small counts, small sides)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from d20cli.dice.evaluate import never_ends
from d20cli.dice.tree import (
    Arithmetic,
    Call,
    Compare,
    Crit,
    Dice,
    Explode,
    Expr,
    Group,
    Keep,
    Neg,
    Number,
    Pool,
    Reroll,
)
from d20cli.errors import ParseError
from d20cli.language.dice_grammar import parse_expression

OPS = (">=", "<=", ">", "<", "=", "!=")

labels = st.none() | st.text(alphabet="abcdefghijklmnopqrstuvwxyz _-", min_size=1, max_size=8).map(
    str.strip
).filter(bool)


def compare_points(lo: int, hi: int) -> st.SearchStrategy[Compare]:
    return st.builds(Compare, st.sampled_from(OPS), st.integers(lo - 1, hi + 1))


@st.composite
def dice(draw: st.DrawFn, counts: st.SearchStrategy[int | Expr] | None = None) -> Dice:
    custom = st.lists(st.integers(-3, 6), min_size=1, max_size=5).map(tuple)
    sides: Any = draw(st.integers(1, 20) | st.sampled_from([100, "F"]) | custom)
    if isinstance(sides, tuple):  # custom faces `d{0,0,1,2}`
        lo, hi = min(sides), max(sides)
    else:
        lo, hi = (-1, 1) if sides == "F" else (1, int(sides))
    count = draw(counts if counts is not None else st.integers(0, 4))
    mods: dict[str, Any] = {}
    if draw(st.booleans()):
        point = draw(compare_points(lo, hi))
        once = draw(st.booleans())
        more = tuple(draw(st.lists(compare_points(lo, hi), max_size=2)))  # `r1r2`
        reroll = Reroll(point, once, more)
        if once or not all(reroll.matches(f) for f in range(lo, hi + 1)):
            mods["reroll"] = reroll
    if draw(st.booleans()):
        point = draw(st.none() | compare_points(lo, hi))
        if point is None or not point.matches_all(lo, hi):
            if point is None and lo == hi:
                pass  # a d1 always shows its highest face: it would explode forever
            else:
                mods["explode"] = Explode(point, draw(st.booleans()), draw(st.booleans()))
    if draw(st.booleans()):
        a, b = sorted(draw(st.lists(st.integers(lo, hi), min_size=2, max_size=2)))
        which = draw(st.sampled_from(["min", "max", "both"]))
        if which in ("min", "both"):
            mods["minimum"] = a
        if which in ("max", "both"):
            mods["maximum"] = b
    if draw(st.booleans()):
        mods["keep"] = Keep(
            draw(st.sampled_from(["kh", "kl", "dh", "dl"])), draw(st.integers(0, 4))
        )
    if draw(st.integers(0, 3)) == 0:
        success = draw(st.builds(Compare, st.sampled_from(OPS), st.integers(lo, hi)))
        failure = draw(st.none() | compare_points(lo, hi))
        mods["pool"] = Pool(success, failure)
        explode = mods.get("explode")
        if explode is not None and explode.point is None:
            # `!` directly followed by a comparison reads as the explosion's point, so a
            # pool of exploding dice spells the point out: `6d10!=10>=7`.
            mods["explode"] = Explode(Compare("=", hi), explode.compound, explode.penetrate)
    if draw(st.integers(0, 3)) == 0:
        mods["crit"] = Crit(draw(st.none() | compare_points(lo, hi)), draw(compare_points(lo, hi)))
    mods["sort"] = draw(st.sampled_from([None, None, "a", "d"]))
    if {"reroll", "minimum", "maximum"} & set(mods):  # not with an explosion (peers differ)
        mods.pop("explode", None)
    term = Dice(count, sides, label=draw(labels), **mods)  # type: ignore[arg-type]
    if never_ends(term) is not None:  # rerolls and explosions that never stop are errors
        mods.pop("explode", None)
        term = Dice(count, sides, label=term.label, **mods)  # type: ignore[arg-type]
    if (
        "explode" not in mods
        and isinstance(count, int)
        and draw(st.integers(0, 3)) == 0
        and not (term.reroll is not None and term.reroll.once)
        and count <= term.unique_faces()
        and not (isinstance(sides, tuple) and len(set(sides)) < len(sides))
    ):
        term = Dice(count, sides, label=term.label, unique=True, **mods)  # type: ignore[arg-type]
    return term


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
    keeps = st.none() | st.builds(
        Keep, st.sampled_from(["kh", "kl", "dh", "dl"]), st.integers(0, 3)
    )
    pools = st.none() | st.builds(Pool, compare_points(0, 12), st.none() | compare_points(0, 12))
    groups = st.builds(Group, st.lists(children, min_size=2, max_size=3).map(tuple), keeps, pools)
    return chain | st.builds(Neg, children) | calls | groups


expressions: st.SearchStrategy[Expr] = st.recursive(atoms, _extend, max_leaves=8)
