"""The fast paths of exact odds (issue 20 item 3) against brute force: sums of uniform dice
by recurrence, keep/drop of small pools, odds remembered by value, `--odds` words made once
per odds. Every figure must be the one a plain enumeration of the rolls gives."""

from __future__ import annotations

import copy
import itertools
import pickle
from dataclasses import FrozenInstanceError, replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d20cli.dice.distribution import distribution
from d20cli.dice.tree import Dice, Keep
from d20cli.dice.weights import TooCostly, Weights, convolve, power, uniform_power
from d20cli.probability import engine, walk
from d20cli.probability.memo import OddsMemo
from d20cli.probability.model import Odds, fractions_over
from d20cli.results import Result


def _enumerated_power(unit: Weights, n: int) -> Weights:
    """n copies of `unit` summed, by one convolution after another."""
    out: Weights = {0: 1}
    for _ in range(n):
        out = convolve(out, unit)
    return out


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 9), st.integers(0, 7))
def test_uniform_power_is_the_enumeration(m: int, n: int) -> None:
    expected: dict[int, int] = {}
    for faces in itertools.product(range(m), repeat=n):
        expected[sum(faces)] = expected.get(sum(faces), 0) + 1
    got = uniform_power(m, n)
    assert len(got) == n * (m - 1) + 1
    assert {t: c for t, c in enumerate(got) if c} == expected


@settings(max_examples=200, deadline=None)
@given(
    st.integers(-5, 5),
    st.integers(1, 12),
    st.integers(1, 4),
    st.integers(0, 40),
)
def test_power_of_a_uniform_unit_is_repeated_convolution(lo: int, m: int, w: int, n: int) -> None:
    unit = {lo + i: w for i in range(m)}
    assert power(unit, n) == _enumerated_power(unit, n)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.integers(-3, 6), st.integers(1, 5), min_size=1, max_size=6))
def test_power_of_any_unit_is_repeated_convolution(unit: Weights) -> None:
    for n in range(0, 6):
        assert power(unit, n) == _enumerated_power(unit, n)


def _pool_by_enumeration(n: int, sides: int, kind: str, k: int) -> dict[int, Fraction]:
    """NdS with kh/kl/dh/dl k, from every roll of the n dice."""
    out: dict[int, int] = {}
    for faces in itertools.product(range(1, sides + 1), repeat=n):
        ordered = sorted(faces, reverse=kind in ("kh", "dl"))
        kept = k if kind in ("kh", "kl") else max(n - k, 0)
        total = sum(ordered[:kept])
        out[total] = out.get(total, 0) + 1
    return {t: Fraction(c, sides**n) for t, c in sorted(out.items())}


@settings(max_examples=120, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(1, 6),
    st.sampled_from(["kh", "kl", "dh", "dl"]),
    st.integers(0, 5),
)
def test_keep_and_drop_of_small_pools_are_the_enumeration(
    n: int, sides: int, kind: str, k: int
) -> None:
    expr = Dice(n, sides, keep=Keep(kind, k))
    assert distribution(expr).fractions() == _pool_by_enumeration(n, sides, kind, k)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(2, 8))
def test_plain_sums_are_the_enumeration(n: int, sides: int) -> None:
    assert distribution(Dice(n, sides)).fractions() == _pool_by_enumeration(n, sides, "kh", n)


def test_large_sums_keep_their_symmetry_and_total() -> None:
    d = distribution(Dice(100, 20))
    assert d.denominator == 20**100
    assert sum(d.counts.values()) == d.denominator
    assert all(d.counts[t] == d.counts[2100 - t] for t in range(100, 2001))
    assert d.mean() == Fraction(2100, 2)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.integers(-5, 5), st.integers(0, 7), max_size=8), st.integers(1, 30))
def test_fractions_over_is_each_count_over_the_denominator(
    counts: dict[int, int], den: int
) -> None:
    expected = {t: Fraction(w, den) for t, w in sorted(counts.items()) if w}
    got = fractions_over(counts, den)
    assert got == expected
    assert list(got) == list(expected)


# --- odds remembered by value ------------------------------------------------------------

REQUESTS = st.builds(
    "{} {:+d} vs {}{}".format,
    st.sampled_from(["check", "save", "attack"]),
    st.integers(-3, 12),
    st.integers(2, 30),
    st.sampled_from(["", " adv", " dis", " adv expertise=d6", " expertise=d4", " crit 19"]),
)


@settings(max_examples=60, deadline=None)
@given(REQUESTS)
def test_remembered_odds_are_the_computed_ones(text: str) -> None:
    engine.MEMO.clear()
    first = engine.odds_of(text, "levelup")
    again = engine.odds_of(text, "levelup")
    engine.MEMO.clear()
    fresh = engine.odds_of(text, "levelup")
    assert again is first  # the remembered odds themselves, sealed: no copy
    assert again.to_json() == fresh.to_json() == first.to_json()
    assert again.outcomes == fresh.outcomes


def test_remembered_odds_cannot_be_changed() -> None:
    """The memo hands every caller the same odds (issue 43 item 3), so they are sealed:
    no table, list or field of them can be changed, and a copy of a table can."""
    engine.MEMO.clear()
    text = "roll 3d6"
    mine = engine.odds_of(text, "levelup")
    assert mine.distribution is not None
    with pytest.raises(TypeError, match="read-only"):
        mine.distribution.clear()
    with pytest.raises(TypeError, match="read-only"):
        mine.outcomes["x"] = Fraction(1)
    with pytest.raises(TypeError, match="read-only"):
        mine.extra["mine"] = 1
    with pytest.raises(FrozenInstanceError):
        mine.success = Fraction(1)
    with pytest.raises(AttributeError):
        mine.notes.append("mine")  # type: ignore[attr-defined]
    changed = dict(mine.distribution)
    changed[10] = Fraction(1)
    again = engine.odds_of(text, "levelup")
    assert again.distribution is not None and again.distribution[10] == Fraction(27, 216)
    assert "x" not in again.outcomes and "mine" not in again.extra and again.success is None
    assert copy.deepcopy(again) == again and pickle.loads(pickle.dumps(again)) == again


def test_the_limits_in_force_are_part_of_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    engine.MEMO.clear()
    text = "group +3, +5 adv, -1 vs 12"
    engine.odds_of(text, "levelup")  # remembered under the usual limits
    monkeypatch.setattr(walk, "ODDS_STEPS", 50)
    with pytest.raises(TooCostly):
        engine.odds_of(text, "levelup")
    monkeypatch.setattr(walk, "ODDS_STEPS", 6_000_000)
    monkeypatch.setattr(walk, "ODDS_DEADLINE", -1.0)
    with pytest.raises(TooCostly, match="took too long"):
        engine.odds_of(text, "levelup")


def test_a_refusal_is_not_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    engine.MEMO.clear()
    monkeypatch.setattr(walk, "ODDS_STEPS", 50)
    with pytest.raises(TooCostly):
        engine.odds_of("check +5 vs 15 adv expertise=d6", "levelup")
    assert len(engine.MEMO) == 0
    with pytest.raises(TooCostly):
        engine.odds_of("check +5 vs 15 adv expertise=d6", "levelup")


def test_the_memo_is_bounded() -> None:
    memo = OddsMemo(max_entries=3, max_values=80)
    for i in range(6):
        memo.get_or_compute(i, lambda i=i: Odds(f"roll {i}", "levelup", "roll"))
    assert len(memo) == 3
    big = Odds("roll 100d20", "levelup", "roll", distribution={t: Fraction(1) for t in range(11)})
    memo.get_or_compute("big", lambda: big)  # more than an eighth of max_values: not kept
    assert len(memo) == 3
    middle = Odds("roll 1", "levelup", "roll", distribution={t: Fraction(1) for t in range(9)})
    for key in "abcd":
        memo.get_or_compute(key, lambda: replace(middle))
    assert memo._values <= 80


def test_chance_words_are_made_once_and_read_as_before() -> None:
    engine.MEMO.clear()
    odds = engine.odds_of("check +5 vs 15", "levelup")
    result = Result(
        request="check +5 vs 15",
        system="levelup",
        verb="check",
        total=17,
        outcome="success",
        label="Success",
        success=True,
    )
    words = engine.chance_words(result, odds)
    assert words == (
        "Success \u2014 you had 50.0% (55.0% to succeed)",
        {
            "chance": "1/2",
            "chance_decimal": 0.5,
            "success_chance": "11/20",
            "success_chance_decimal": 0.55,
        },
    )
    assert engine.chance_words(result, odds) is words
