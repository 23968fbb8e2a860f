"""The statistics of the luck ledger (issue 46 item 1, d20cli.probability.luck): the
count of successes among rolls of different chances, its percentile and p-value, damage
against expected damage, and streaks; against cases worked by hand and a simulation of
the same rolls."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

import d20cli
from d20cli.probability import luck


def test_the_count_of_successes_is_poisson_binomial_by_hand() -> None:
    # one roll at 1/2 and one at 1/4: P(0) = 1/2 * 3/4, P(1) = 1/2 * 3/4 + 1/2 * 1/4, P(2) = 1/8
    assert luck.poisson_binomial([0.5, 0.25]) == pytest.approx([0.375, 0.5, 0.125])


def test_percentile_and_p_value_by_hand() -> None:
    # four rolls at 1/2, three succeed: P(X < 3) = 11/16, P(X = 3) = 4/16, P(X > 3) = 1/16
    s = luck.successes([0.5] * 4, 3)
    assert s.expected == 2
    assert s.percentile == pytest.approx(11 / 16 + 2 / 16)
    assert s.p_value == pytest.approx(2 * 5 / 16)
    assert s.exact
    assert luck.in_words(s.percentile) == "luckier than 81% of possible evenings"
    # none of two sure failures (chance 0) and one sure success: as expected, p = 1
    sure = luck.successes([0.0, 0.0, 1.0], 1)
    assert sure.percentile == pytest.approx(0.5) and sure.p_value == pytest.approx(1.0)
    assert luck.in_words(0.5) == "about as lucky as expected"
    assert luck.in_words(0.03) == "unluckier than 97% of possible evenings"


def test_streaks_by_hand() -> None:
    wins, losses = luck.longest_streaks([True, True, False, True, False, False, False, True])
    assert wins == luck.Streak(2, 0)
    assert losses == luck.Streak(3, 4)
    assert luck.longest_streaks([]) == (luck.Streak(0, -1), luck.Streak(0, -1))


def _simulated_percentile(chances: list[float], observed: int, runs: int, seed: int) -> float:
    rng = random.Random(seed)
    below = at = 0
    for _ in range(runs):
        x = sum(1 for p in chances if rng.random() < p)
        below += x < observed
        at += x == observed
    return (below + at / 2) / runs


@pytest.mark.parametrize("seed", [1, 2])
def test_the_percentile_agrees_with_a_simulation_of_the_same_rolls(seed: int) -> None:
    rng = random.Random(seed)
    chances = [rng.choice([0.05, 0.3, 0.55, 0.7, 0.95]) for _ in range(40)]
    observed = round(sum(chances)) + 3
    exact = luck.successes(chances, observed)
    # 20,000 evenings: the standard error of a share is at most 0.0036; 0.015 is 4 of them
    assert exact.percentile == pytest.approx(
        _simulated_percentile(chances, observed, 20_000, seed), abs=0.015
    )


def test_the_normal_approximation_is_close_to_the_exact_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chances = [0.55, 0.3, 0.95, 0.05] * 150  # 600 rolls
    observed = round(sum(chances)) - 12
    exact = luck.successes(chances, observed)
    monkeypatch.setattr(luck, "EXACT_ROLLS", 10)
    approx = luck.successes(chances, observed)
    assert not approx.exact
    assert approx.percentile == pytest.approx(exact.percentile, abs=0.01)
    assert approx.p_value == pytest.approx(exact.p_value, abs=0.02)


def test_damage_against_expected_agrees_with_a_simulation() -> None:
    odds = d20cli.odds("attack +5 vs AC 14 dmg 1d8+3")
    dist = odds.damage_distribution
    assert dist is not None and odds.damage_mean is not None
    mean = float(odds.damage_mean)
    variance = float(sum(((t - odds.damage_mean) ** 2 * p for t, p in dist.items()), Fraction(0)))
    attacks = 40
    dealt = round(attacks * mean + 15)
    found = luck.damage(dealt, attacks * mean, attacks * variance)
    assert not found.exact
    rng = random.Random(7)
    totals, weights = list(dist), [float(p) for p in dist.values()]
    runs = 20_000
    below = at = 0
    for _ in range(runs):
        x = sum(rng.choices(totals, weights, k=attacks))
        below += x < dealt
        at += x == dealt
    # the normal approximation of a sum of 40 attacks: within 0.03 of the simulation
    assert found.percentile == pytest.approx((below + at / 2) / runs, abs=0.03)
    assert math.isclose(found.expected, attacks * mean)
