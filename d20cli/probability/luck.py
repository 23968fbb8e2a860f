"""How lucky were the dice: logged outcomes against their exact odds (`d20 log --luck`,
d20cli.store.log_luck reads the rolls). Pure arithmetic, no I/O.

- Successes: each roll i succeeds with its own chance p_i, so the number of successes is
  Poisson-binomial. Its distribution is computed exactly (in floating point, one roll at
  a time) up to EXACT_ROLLS rolls; past that, a normal approximation with a continuity
  correction (the count's mean and variance are still exact), and the report says so.
- The percentile of what happened is the mid-p rank: P(X < x) + P(X = x) / 2, "luckier
  than 91% of possible evenings" (a tie with the observed count counts half); the
  p-value is two-sided: 2 min(P(X <= x), P(X >= x)), at most 1.
- Damage: the sum of each attack's damage (0 on a miss) against the sum of its expected
  damage, its variance the sum of each attack's; the percentile from the normal
  approximation (said).
- Streaks: the longest runs of successes and of failures, in the order rolled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from d20cli.frozen import FrozenDict
from d20cli.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXACT_ROLLS = 1_500  # past this many rolls, the count of successes is approximated


def poisson_binomial(chances: Sequence[float]) -> list[float]:
    """P(exactly k successes) for k = 0..n, each trial succeeding with its own chance."""
    dist = [1.0]
    for p in chances:
        q = 1.0 - p
        nxt = [0.0] * (len(dist) + 1)
        for k, w in enumerate(dist):
            nxt[k] += w * q
            nxt[k + 1] += w * p
        dist = nxt
    return dist


def normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2))


class Standing(NamedTuple):
    """Where an observed count (or sum) stands among all that could have happened."""

    observed: float
    expected: float
    percentile: float  # mid-p: P(X < x) + P(X = x) / 2
    p_value: float  # two-sided
    exact: bool  # False: from the normal approximation

    @property
    def difference(self) -> float:
        return self.observed - self.expected


def successes(chances: Sequence[float], observed: int) -> Standing:
    """The standing of `observed` successes among rolls of these chances."""
    n = len(chances)
    expected = math.fsum(chances)
    if n <= EXACT_ROLLS:
        dist = poisson_binomial(chances)
        below = math.fsum(dist[:observed])
        at = dist[observed] if 0 <= observed <= n else 0.0
        above = math.fsum(dist[observed + 1 :])
        p = min(1.0, 2 * min(below + at, above + at))
        return Standing(observed, expected, below + at / 2, p, True)
    var = math.fsum(p * (1 - p) for p in chances)
    return _normal(observed, expected, var, continuity=0.5)


def damage(observed: float, expected: float, variance: float) -> Standing:
    """The standing of damage dealt among what the same attacks could have dealt
    (normal approximation)."""
    return _normal(observed, expected, variance, continuity=0.0)


def _normal(observed: float, expected: float, variance: float, continuity: float) -> Standing:
    if variance <= 0:
        same = observed == expected
        return Standing(observed, expected, 0.5 if same else float(observed > expected), 1.0, False)
    sd = math.sqrt(variance)
    low = normal_cdf((observed + continuity - expected) / sd)  # P(X <= x)
    high = 1 - normal_cdf((observed - continuity - expected) / sd)  # P(X >= x)
    below = normal_cdf((observed - continuity - expected) / sd)
    percentile = (below + low) / 2
    return Standing(observed, expected, percentile, min(1.0, 2 * min(low, high)), False)


def in_words(percentile: float, what: str = "possible evenings") -> str:
    """The percentile said plainly: "luckier than 91% of possible evenings", or for a
    low one "unluckier than 88% of ...", or "about as lucky as expected" near the middle."""
    share = round(percentile * 100)
    if 40 <= share <= 60:
        return "about as lucky as expected"
    if percentile > 0.5:
        return f"luckier than {min(share, 99)}% of {what}"
    return f"unluckier than {min(100 - share, 99)}% of {what}"


class Streak(NamedTuple):
    length: int
    start: int  # index of its first roll (-1: no streak)


def longest_streaks(outcomes: Sequence[bool]) -> tuple[Streak, Streak]:
    """The longest run of successes and the longest run of failures (the first of equal
    length), as (length, index of the first roll)."""
    best = {True: Streak(0, -1), False: Streak(0, -1)}
    run_start, run_value, run = 0, None, 0
    for i, ok in enumerate(outcomes):
        if ok == run_value:
            run += 1
        else:
            run_start, run_value, run = i, ok, 1
        if run > best[ok].length:
            best[ok] = Streak(run, run_start)
    return best[True], best[False]


# --- the ledger: logged rolls priced (d20cli.probability.pricing makes it) -----------


@dataclass(frozen=True)
class Priced:
    """One logged roll with the odds of what it got (immutable). `simulated`: its odds are
    an estimate from rolls of its request (its exact odds were too costly to compute)."""

    id: int
    at: str | None  # the time it was logged (None: a result priced through the API)
    character: str | None
    system: str
    verb: str
    request: str
    outcome: str | None
    chance: Fraction | None  # the chance of the outcome it got
    success: bool | None
    success_chance: Fraction | None  # the chance it had of succeeding
    tiers: Mapping[str, Fraction]  # the chance of each outcome
    damage: int | None  # dealt (0 on a miss), on an attack with damage
    damage_mean: Fraction | None
    damage_variance: Fraction | None
    sealed: bool
    simulated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": self.at,
            "character": self.character,
            "system": self.system,
            "verb": self.verb,
            "request": self.request,
            "outcome": self.outcome,
            "chance": None if self.chance is None else float(self.chance),
            "success": self.success,
            "success_chance": None if self.success_chance is None else float(self.success_chance),
            "damage": self.damage,
            "damage_mean": None if self.damage_mean is None else float(self.damage_mean),
            "sealed": self.sealed,
            "simulated": self.simulated,
        }


@dataclass(frozen=True)
class Group:
    """The rolls of one character, one verb, or all of them: successes and tiers against
    their expected numbers, damage against expected damage (immutable)."""

    name: str | None
    rolls: tuple[Priced, ...] = ()

    def graded(self) -> list[Priced]:
        return [r for r in self.rolls if r.success is not None and r.success_chance is not None]

    def successes(self) -> Standing | None:
        graded = self.graded()
        if not graded:
            return None
        chances = [float(r.success_chance or 0) for r in graded]
        return successes(chances, sum(1 for r in graded if r.success))

    def tiers(self) -> dict[str, tuple[int, float]]:
        """Each outcome: how many rolls got it, and how many were expected to."""
        out: dict[str, tuple[int, float]] = {}
        for r in self.rolls:
            for tier, p in r.tiers.items():
                seen, expected = out.get(tier, (0, 0.0))
                out[tier] = (seen, expected + float(p))
            if r.outcome is not None:
                seen, expected = out.get(r.outcome, (0, 0.0))
                out[r.outcome] = (seen + 1, expected)
        return out

    def damage(self) -> Standing | None:
        hits = [r for r in self.rolls if r.damage is not None and r.damage_mean is not None]
        if not hits:
            return None
        dealt = sum(r.damage or 0 for r in hits)
        expected = math.fsum(float(r.damage_mean or 0) for r in hits)
        variance = math.fsum(float(r.damage_variance or 0) for r in hits)
        return damage(dealt, expected, variance)

    def streaks(self) -> tuple[Streak, Streak]:
        return longest_streaks([bool(r.success) for r in self.graded()])

    def least_likely(self) -> Priced | None:
        """The roll whose outcome had the smallest chance, among those priced by their
        exact odds (an estimate of a rare chance is no measure of it)."""
        chanced = [r for r in self.rolls if r.chance is not None and not r.simulated]
        return min(chanced, key=lambda r: r.chance or 0, default=None)

    def to_json(self) -> dict[str, Any]:
        s, d = self.successes(), self.damage()
        wins, losses = self.streaks()
        graded = self.graded()
        return {
            "rolls": len(self.rolls),
            "graded": len(graded),
            "successes": None if s is None else _standing(s),
            "tiers": {k: {"seen": n, "expected": e} for k, (n, e) in self.tiers().items()},
            "damage": None if d is None else _standing(d),
            "streaks": {
                "successes": _streak(wins, graded),
                "failures": _streak(losses, graded),
            },
        }


def _standing(s: Standing) -> dict[str, Any]:
    return {
        "observed": s.observed,
        "expected": s.expected,
        "percentile": s.percentile,
        "p_value": s.p_value,
        "exact": s.exact,
        "said": in_words(s.percentile),
    }


def _streak(streak: Streak, graded: list[Priced]) -> dict[str, Any] | None:
    if streak.length == 0:
        return None
    first, last = graded[streak.start], graded[streak.start + streak.length - 1]
    return {"length": streak.length, "from": first.at, "to": last.at, "from_id": first.id}


@dataclass(frozen=True)
class Ledger:
    """The luck report (immutable): the rolls priced, in the order rolled, and those left
    out, by reason. `to_json()` is `d20 log --luck --json`."""

    priced: tuple[Priced, ...] = ()
    forced: int = 0  # --dice
    left_out: Mapping[str, int] = field(default_factory=FrozenDict)  # reason -> rolls

    @property
    def sealed(self) -> int:
        """How many of the rolls priced were rolled in a sealed session (verified luck)."""
        return sum(1 for r in self.priced if r.sealed)

    @property
    def simulated(self) -> int:
        """How many of the rolls priced were priced by simulation."""
        return sum(1 for r in self.priced if r.simulated)

    def whole(self) -> Group:
        return Group(None, self.priced)

    def by(self, key: str) -> list[Group]:
        """The rolls by `key` ("character" or "verb"), a group each, sorted by name."""
        groups: dict[Any, list[Priced]] = {}
        for r in self.priced:
            groups.setdefault(getattr(r, key), []).append(r)
        order = sorted(groups, key=lambda k: (k is not None, k or ""))
        return [Group(k, tuple(groups[k])) for k in order]

    def to_json(self) -> dict[str, Any]:
        least = self.whole().least_likely()
        return {
            "priced": len(self.priced),
            "forced_left_out": self.forced,
            "left_out": dict(self.left_out),
            "sealed": self.sealed,
            "simulated": self.simulated,
            "all": self.whole().to_json(),
            "least_likely": None if least is None else least.to_json(),
            "characters": {g.name or "": g.to_json() for g in self.by("character")},
            "verbs": {g.name or "": g.to_json() for g in self.by("verb")},
        }
