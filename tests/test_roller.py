"""Where the dice come from, and whether they look fair.

- Without --seed, a run's generator is seeded from the operating system (`os.urandom`).
- With --seed N, the faces are Python's documented Mersenne Twister, `random.Random(N)`:
  the same seed gives the same rolls on every machine and Python version that keeps
  `randrange` and `choices` stable.
- 1,000,000 seeded d20s through the project's roller (one by one with `roll`, and in bulk
  with `roll_many`) pass a chi-square test of uniformity (19 degrees of freedom, critical
  value 43.82 for p = 0.001) and a lag-1 serial-correlation test (|r| < 0.005, about
  five standard deviations for a million rolls).
"""

from __future__ import annotations

import io
import json
import random
from collections import Counter

import pytest

from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.run import run as run_tokens
from d20cli.dice.roller import RandomRoller, make_roller
from d20cli.present.output import Output

N = 1_000_000
CHI2_CRITICAL_19_DOF = 43.82  # p = 0.001


def chi_square(faces: list[int], sides: int) -> float:
    counts = Counter(faces)
    assert set(counts) <= set(range(1, sides + 1))
    expected = len(faces) / sides
    return sum((counts.get(f, 0) - expected) ** 2 / expected for f in range(1, sides + 1))


def lag1_correlation(xs: list[int]) -> float:
    n = len(xs) - 1
    a, b = xs[:-1], xs[1:]
    mean_a, mean_b = sum(a) / n, sum(b) / n
    cov = sum(x * y for x, y in zip(a, b, strict=True)) / n - mean_a * mean_b
    var_a = sum(x * x for x in a) / n - mean_a**2
    var_b = sum(y * y for y in b) / n - mean_b**2
    return float(cov / (var_a * var_b) ** 0.5)


@pytest.mark.parametrize("how", ["roll", "roll_many"])
def test_a_million_seeded_d20s_are_uniform_and_serially_independent(how: str) -> None:
    roller = make_roller(seed=20240601, budget=N)
    if how == "roll":
        roll = roller.roll
        faces = [roll(1, 20) for _ in range(N)]
    else:
        faces = roller.roll_many(1, 20, N // 2) + roller.roll_many(1, 20, N // 2)
    assert roller.count == N
    chi2 = chi_square(faces, 20)
    assert chi2 < CHI2_CRITICAL_19_DOF, chi2
    r = lag1_correlation(faces)
    assert abs(r) < 0.005, r


def test_the_tests_catch_a_biased_or_correlated_source() -> None:
    """The two statistics are not vacuous: a loaded die and a sticky die fail them."""
    rng = random.Random(1)
    loaded = [20 if rng.random() < 0.06 else rng.randint(1, 20) for _ in range(100_000)]
    assert chi_square(loaded, 20) > CHI2_CRITICAL_19_DOF
    sticky = [rng.randint(1, 20)]
    for _ in range(100_000):
        sticky.append(sticky[-1] if rng.random() < 0.05 else rng.randint(1, 20))
    assert abs(lag1_correlation(sticky)) > 0.005


def test_seed_is_pythons_documented_mersenne_twister() -> None:
    for seed in (0, 1, 42, 2**70 + 3):
        roller = make_roller(seed=seed)
        reference = random.Random(seed)
        singles = [roller.roll(1, 20) for _ in range(50)]
        assert singles == [reference.randrange(1, 21) for _ in range(50)]
        assert roller.roll_many(1, 6, 200) == reference.choices(range(1, 7), k=200)
        assert isinstance(roller, RandomRoller)
        assert type(roller.rng) is random.Random


def test_seed_through_the_request_path() -> None:
    out = io.StringIO()
    opts = Options(seed=42, json=True)
    run_tokens(["roll", "3d20"], opts, Output(out, io.StringIO(), color=False))
    faces = [d["face"] for d in json.loads(out.getvalue())["dice"]]
    reference = random.Random(42)
    assert faces == reference.choices(range(1, 21), k=3)


def test_without_a_seed_the_generator_is_seeded_from_the_os(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def fake_urandom(n: int) -> bytes:
        calls.append(n)
        return bytes(range(n))

    monkeypatch.setattr("d20cli.dice.roller.os.urandom", fake_urandom)
    monkeypatch.setattr("d20cli.app.context.os.urandom", fake_urandom)
    expected = random.Random(int.from_bytes(bytes(range(16)), "big"))

    roller = make_roller()
    assert calls == [16]
    assert [roller.roll(1, 20) for _ in range(20)] == [expected.randrange(1, 21) for _ in range(20)]

    context_roller = Context().roller(Options())
    assert calls == [16, 16]
    again = random.Random(int.from_bytes(bytes(range(16)), "big"))
    assert [context_roller.roll(1, 20) for _ in range(20)] == [
        again.randrange(1, 21) for _ in range(20)
    ]


def test_unseeded_runs_differ() -> None:
    a = make_roller().roll_many(1, 1_000_000, 8)
    b = make_roller().roll_many(1, 1_000_000, 8)
    assert a != b  # 128 bits from the OS each: equal only by a 1e-48 chance
