"""Exact distributions (d20cli.dice.distribution) against icepool and against brute force."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Literal

import icepool
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from d20cli.dice.distribution import Dist, branches, distribution
from d20cli.dice.evaluate import evaluate
from d20cli.dice.roller import Roller
from d20cli.dice.tree import (
    Arithmetic,
    Dice,
    Expr,
    Neg,
    Number,
)
from d20cli.dice.weights import TooCostly
from d20cli.errors import D20Error, DiceError
from d20cli.language.dice_grammar import parse_expression
from tests.dice_strategies import draw_modifiers

DEPTH = 10  # the explosion depth used for the icepool comparisons


def _fudge() -> Any:
    return icepool.Die([-1, 0, 1])


def _pool(success: Callable[[int], bool], failure: Callable[[int], bool] | None) -> Any:
    def score(x: int) -> int:
        if success(x):
            return 1
        return -1 if failure is not None and failure(x) else 0

    return score


d4, d6, d10, d20 = icepool.d4, icepool.d6, icepool.d10, icepool.d20

# expression text -> the same thing in icepool
ICEPOOL: dict[str, Callable[[], Any]] = {
    "1d20": lambda: d20,
    "2d6+3": lambda: 2 @ d6 + 3,
    "4d6dl1": lambda: d6.highest(4, 3),
    "4d6kh3": lambda: d6.highest(4, 3),
    "8d6kh3": lambda: d6.highest(8, 3),
    "30d6kh10": lambda: d6.highest(30, 10),
    "5d8kl2": lambda: icepool.d8.lowest(5, 2),
    "5d8dh2": lambda: icepool.d8.lowest(5, 3),
    "2d20kl1": lambda: d20.lowest(2, 1),
    "2d20kh1": lambda: d20.highest(2, 1),
    "3d6kh5": lambda: 3 @ d6,
    "3d6kh0": lambda: icepool.Die([0]),
    "3d6!": lambda: 3 @ d6.explode(depth=DEPTH),
    "1d6!!": lambda: d6.explode(depth=DEPTH),
    "2d6!>=5": lambda: 2 @ d6.explode([5, 6], depth=DEPTH),
    "1d6!!>=5": lambda: d6.explode([5, 6], depth=DEPTH),
    "2dF!": lambda: 2 @ _fudge().explode([1], depth=DEPTH),
    "2d6r1": lambda: 2 @ d6.reroll([1], depth="inf"),
    "2d6ro<3": lambda: 2 @ d6.reroll([1, 2], depth=1),
    "3d8r>6": lambda: 3 @ icepool.d8.reroll([7, 8], depth="inf"),
    "4d6mi2": lambda: 4 @ d6.map(lambda x: max(x, 2)),
    "3d6ma4": lambda: 3 @ d6.map(lambda x: min(x, 4)),
    "6d10>=7": lambda: 6 @ d10.map(_pool(lambda x: x >= 7, None)),
    "6d10>=7f1": lambda: 6 @ d10.map(_pool(lambda x: x >= 7, lambda x: x == 1)),
    "8d10>7f<3": lambda: 8 @ d10.map(_pool(lambda x: x > 7, lambda x: x < 3)),
    "d100": lambda: icepool.d100,
    "dF.1": lambda: icepool.Die([-1, 0, 0, 0, 0, 1]),
    "1d20%3": lambda: d20 % 3,
    "2d6%5": lambda: (2 @ d6) % 5,
    "4d6<>5": lambda: 4 @ d6.map(lambda x: 1 if x != 5 else 0),
    "(1d4,1d6)kh1": lambda: icepool.highest(d4, d6),
    "4dF": lambda: 4 @ _fudge(),
    "(1d4)d6": lambda: d4 @ d6,
    "(1d4-1)d6": lambda: (d4 - 1) @ d6,
    "1d6*2": lambda: d6 * 2,
    "10/1d4": lambda: 10 // d4,
    "-7/1d4": lambda: -7 // d4,
    "1d6*1d6-1d6": lambda: d6 * d6 - d6,
    "-1d6+3": lambda: -d6 + 3,
    "1d20+1d4-2": lambda: d20 + d4 - 2,
    "2d6ro1mi3": lambda: 2 @ d6.reroll([1], depth=1).map(lambda x: max(x, 3)),
    "100d20": lambda: 100 @ d20,
    "3d6-(1d4)d4": lambda: 3 @ d6 - (d4 @ d4),
    "0d6": lambda: icepool.Die([0]),
    "0d6kh1+2": lambda: icepool.Die([2]),
}


def _dist(text: str, **kw: Any) -> Dist:
    return distribution(parse_expression(text), **kw)


def _icepool_probs(die: Any) -> dict[int, Fraction]:
    den = die.denominator()
    return {int(k): Fraction(int(v), den) for k, v in die.items() if v}


@pytest.mark.parametrize("text", list(ICEPOOL))
def test_matches_icepool(text: str) -> None:
    d = _dist(text, explode_depth=DEPTH)
    assert d.fractions() == _icepool_probs(ICEPOOL[text]())
    assert sum(d.counts.values()) == d.denominator
    assert sum(p for _, p in d.items()) == 1
    assert all(isinstance(w, int) and w > 0 for w in d.counts.values())


def test_mean_and_variance_match_icepool() -> None:
    for text in ("2d6+3", "4d6dl1", "3d6!", "6d10>=7f1", "(1d4)d6", "1d6*1d6-1d6"):
        die = ICEPOOL[text]()
        d = _dist(text, explode_depth=DEPTH)
        assert d.mean() == die.mean()
        assert d.variance() == die.variance()


def test_helpers() -> None:
    d = _dist("2d6")
    assert (d.min, d.max, d.denominator) == (2, 12, 36)
    assert d.probability(7) == Fraction(1, 6)
    assert d.probability(13) == 0
    assert d.items()[0] == (2, Fraction(1, 36))
    assert d.branches()[5] == (7, 6)
    assert d.mean() == 7
    assert d.variance() == Fraction(35, 6)
    assert d.truncated == 0
    assert _dist("5").counts == {5: 1}


def test_reduced_weights() -> None:
    d = _dist("1d6*2")  # no common factor left over
    assert math.gcd(d.denominator, *d.counts.values()) == 1


# --- explosions and truncation ---------------------------------------------------------


def test_truncation_is_reported_and_mass_stays_on_the_cap() -> None:
    d = _dist("1d6!", explode_depth=2)
    assert d.truncated == Fraction(1, 6**3)
    assert sum(d.counts.values()) == d.denominator
    assert d.max == 18  # the third 6 stays on the total and does not explode again
    assert d.probability(18) == Fraction(1, 216)
    n = _dist("3d6!", explode_depth=2)
    assert n.truncated == 1 - (1 - Fraction(1, 216)) ** 3
    both = _dist("1d6!+1d6!", explode_depth=2)
    assert both.truncated == 1 - (1 - Fraction(1, 216)) ** 2
    assert _dist("3d6!", explode_depth=0).fractions() == _dist("3d6").fractions()


def _chains(
    sides: int, depth: int, explodes: Callable[[int], bool]
) -> list[tuple[list[int], Fraction]]:
    """Every explosion chain of one die, capped at `depth` extra dice, with its probability."""
    out: list[tuple[list[int], Fraction]] = []
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        links, p = stack.pop()
        for f in range(1, sides + 1):
            chain, q = [*links, f], p / sides
            if explodes(f) and len(chain) <= depth:
                stack.append((chain, q))
            else:
                out.append((chain, q))
    return out


@pytest.mark.parametrize(
    ("text", "n", "sides", "depth", "explodes", "keep"),
    [
        ("2d6!kh1", 2, 6, 1, lambda f: f == 6, lambda u: sorted(u)[-1:]),
        ("3d4!kh2", 3, 4, 2, lambda f: f == 4, lambda u: sorted(u)[-2:]),
        ("3d4!>=3dl2", 3, 4, 2, lambda f: f >= 3, lambda u: sorted(u)[2:]),
        ("2d4!kl2", 2, 4, 3, lambda f: f == 4, lambda u: sorted(u)[:2]),
        ("2d4!dh1", 2, 4, 2, lambda f: f == 4, lambda u: sorted(u)[:-1]),
    ],
)
def test_non_compound_explosions_keep_each_extra_die(
    text: str,
    n: int,
    sides: int,
    depth: int,
    explodes: Callable[[int], bool],
    keep: Callable[[list[int]], list[int]],
) -> None:
    chains = _chains(sides, depth, explodes)
    probs: dict[int, Fraction] = {}
    stack: list[tuple[list[int], Fraction, int]] = [([], Fraction(1), 0)]
    while stack:
        units, p, i = stack.pop()
        if i == n:
            total = sum(keep(units))
            probs[total] = probs.get(total, Fraction(0)) + p
            continue
        for links, q in chains:
            stack.append(([*units, *links], p * q, i + 1))
    d = _dist(text, explode_depth=depth)
    assert d.fractions() == probs
    cut = sum(q for links, q in chains if len(links) == depth + 1 and explodes(links[-1]))
    assert d.truncated == 1 - (1 - cut) ** n


def test_compound_explosion_is_one_die_for_keep_and_pools() -> None:
    d = _dist("2d6!!kh1", explode_depth=DEPTH)
    assert d.fractions() == _icepool_probs(d6.explode(depth=DEPTH).highest(2, 1))
    pool = _dist("3d6!!=6>=8", explode_depth=DEPTH)
    exploded = d6.explode(depth=DEPTH).map(lambda x: 1 if x >= 8 else 0)
    assert pool.fractions() == _icepool_probs(3 @ exploded)


def test_non_compound_pool_scores_every_die() -> None:
    # each die scores on its own; +1000 marks the exploding face so icepool can explode it
    marked = d10.map(lambda x: (1 if x >= 8 else 0) + (1000 if x == 10 else 0))
    chain = marked.explode([1001], depth=DEPTH).map(lambda t: t % 1000)
    assert _dist("2d10!=10>=8", explode_depth=DEPTH).fractions() == _icepool_probs(2 @ chain)
    assert _dist("1d10!=10>=8").probability(0) == Fraction(7, 10)


@pytest.mark.parametrize("text", ["1d1!", "2d6!>=1", "1d2r<3", "3d6r<=6", "1d6!<>0"])
def test_never_ending_chains_are_errors(text: str) -> None:
    with pytest.raises(DiceError, match="forever"):
        _dist(text)


# --- errors and cost -------------------------------------------------------------------


def test_division_by_a_possible_zero_names_it() -> None:
    with pytest.raises(DiceError, match=r"division by zero .*'1d4-1' can be 0"):
        _dist("10/(1d4-1)")
    with pytest.raises(D20Error):
        branches(parse_expression("1/(1d2-1)"))


def test_negative_count_is_an_error() -> None:
    with pytest.raises(DiceError, match="count must not be negative"):
        _dist("(1d4-2)d6")


@pytest.mark.parametrize(
    "text",
    [
        "1000d1000kh500",
        "1000d1000",
        "(100d100)d100",
        "1d1000000*1d1000000",
        "(10d10)d10*(10d10)d10*(10d10)d10",
        "100d100!",
        "50d6!kh20",
        "2000d6",
        "1d1000000",
        "(1d100)d100",
        "200d6kh100+200d6kh100",
    ],
)
def test_too_costly_is_refused(text: str) -> None:
    with pytest.raises(TooCostly, match="--simulate N"):
        _dist(text)
    assert branches(parse_expression(text)) is None


def test_max_states_is_the_limit() -> None:
    with pytest.raises(TooCostly):
        _dist("30d6kh10", max_states=100)
    assert _dist("30d6kh10").denominator == 6**30 // math.gcd(
        6**30, *_dist("30d6kh10").counts.values()
    )


def test_branches() -> None:
    assert branches(parse_expression("1d4+1")) == ((2, 1), (3, 1), (4, 1), (5, 1))
    assert branches("not an expression") is None
    assert branches(parse_expression("2d20kh1")) == tuple((k, 2 * k - 1) for k in range(1, 21))
    capped = branches(parse_expression("1d6!"))
    assert capped is not None
    assert sum(w for _, w in capped) == _dist("1d6!").denominator


# --- brute force over every face, with the project's own evaluator ---------------------


class _Replay(Roller):
    """Hands out faces along one path of choices; remembers how many faces each draw had."""

    def __init__(self, path: list[int]) -> None:
        super().__init__(budget=10**6)
        self.path = path
        self.sizes: list[int] = []

    def _draw(self, lo: int, hi: int) -> int:
        i = len(self.sizes)
        self.sizes.append(hi - lo + 1)
        return lo + (self.path[i] if i < len(self.path) else 0)


def _brute_force(expr: Expr, max_paths: int = 5_000) -> dict[int, Fraction] | None:
    """Every roll of `expr` by the real evaluator; None if some roll is a DiceError."""
    out: dict[int, Fraction] = {}
    stack: list[list[int]] = [[]]
    paths = 0
    while stack:
        path = stack.pop()
        roller = _Replay(path)
        try:
            total = evaluate(expr, roller).total
        except DiceError:
            return None
        paths += 1
        assume(paths <= max_paths)
        taken = path + [0] * (len(roller.sizes) - len(path))
        for pos in range(len(path), len(roller.sizes)):
            for alt in range(1, roller.sizes[pos]):
                stack.append([*taken[:pos], alt])
        out[total] = out.get(total, Fraction(0)) + Fraction(1, math.prod(roller.sizes))
    return out


_SIDES: list[int | Literal["F"]] = [1, 2, 3, 4, 6, "F"]


@st.composite
def _dice(draw: st.DrawFn, counts: st.SearchStrategy[int | Expr], rerolls: bool) -> Dice:
    """A dice term with modifiers from the registry; with `rerolls`, also those that may
    roll without end (`r`, explosions, `u`: brute force cannot end them)."""
    sides: int | Literal["F"] = draw(st.sampled_from(_SIDES))
    count = draw(counts)

    def valid(mods: dict[str, Any]) -> Dice | None:
        try:
            return Dice(count, sides, **mods)
        except ValueError:
            return None

    return draw_modifiers(draw, Dice(1, sides), valid, endless=rerolls)


def _exprs(rerolls: bool) -> st.SearchStrategy[Expr]:
    small_count = st.integers(0, 3)
    count_expr = st.builds(Dice, st.integers(1, 2), st.sampled_from([2, 3]))
    leaves = (
        st.builds(Number, st.integers(0, 5))
        | _dice(small_count, rerolls)
        | _dice(count_expr | small_count, rerolls)
    )

    def extend(inner: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        sums = st.builds(
            Arithmetic,
            inner,
            st.lists(st.tuples(st.sampled_from(["+", "-"]), inner), min_size=1, max_size=2).map(
                tuple
            ),
        )
        products = st.builds(
            Arithmetic,
            inner,
            st.lists(st.tuples(st.sampled_from(["*", "/"]), inner), min_size=1, max_size=1).map(
                tuple
            ),
        )
        return sums | products | st.builds(Neg, inner)

    return st.recursive(leaves, extend, max_leaves=3)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_exprs(rerolls=False))
def test_matches_brute_force(expr: Expr) -> None:
    expected = _brute_force(expr)
    if expected is None:
        with pytest.raises(DiceError):
            distribution(expr)
        return
    d = distribution(expr)
    assert d.fractions() == expected
    assert d.truncated == 0


@settings(max_examples=150, deadline=None)
@given(_exprs(rerolls=True))
def test_support_within_bounds(expr: Expr) -> None:
    try:
        d = distribution(expr)
    except (DiceError, TooCostly):
        return
    assert sum(d.counts.values()) == d.denominator
    assert expr.bounds()[0] <= d.min <= d.max <= expr.bounds()[1]
