"""The odds of one request (`Odds`): exact fractions per outcome, the distribution of its
totals, degrees, damage and winners, and the accumulation of walked paths into them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

from d20cli.frozen import FrozenDict, field, frozen_error, sealable
from d20cli.number_format import STR_BITS, decimal, exact_fraction, exact_ratio
from d20cli.results import Result, Shown, json_encoder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@sealable
class Odds(Shown):
    """The exact odds of one request.

    The engine builds them, then seals them (`sealed`): from then on they are read-only,
    their tables FrozenDicts (d20cli.frozen) and their lists tuples, and a field cannot be
    set. So the odds remembered (d20cli.probability.memo) are the very object every caller
    gets, the Python API's too, without a copy: `dict(odds.outcomes)` is one to change.
    (`@sealable`: `dataclasses` reads it as a dataclass, and is not imported to make it.)"""

    __hash__ = None  # type: ignore[assignment]  # (a table of odds is compared, not hashed)

    request: str
    system: str
    verb: str
    outcomes: dict[str, Fraction] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    order: Sequence[str] = field(default_factory=list)  # outcome ids, worst to best
    degrees: dict[int, Fraction] | None = None
    distribution: dict[int, Fraction] | None = None
    damage_mean: Fraction | None = None
    damage_distribution: dict[int, Fraction] | None = None
    estimate: int | None = None  # --simulate N: the number of rolls behind an estimate
    success: Fraction | None = None  # the chance of any success, where results have one
    winners: dict[int, Fraction] | None = None  # a contest of 3+ sides: side -> P(it wins)
    side_names: Sequence[str] = field(default_factory=list)  # those sides' names, in order
    notes: Sequence[str] = field(default_factory=list)
    # more of the odds, as JSON gives them (one of DECIMAL_FIELDS: a Fraction, or a map of them)
    extra: dict[str, Any] = field(default_factory=dict)
    # what `chance_words` said of each outcome, remembered with the odds (no part of them)
    said: dict[Any, tuple[str, dict[str, str | float]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def __setattr__(self, name: str, value: Any) -> None:
        if "_sealed" in self.__dict__:
            raise frozen_error(f"the odds are sealed (shared, read-only): {name}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if "_sealed" in self.__dict__:
            raise frozen_error(f"the odds are sealed (shared, read-only): {name}")
        object.__delattr__(self, name)

    def sealed(self) -> Odds:
        """These odds made read-only, in place, and returned: each table a FrozenDict of
        its items (a map of `extra` too), each list a tuple, and no field to be set again.
        `said` stays a memo of the words read from them (d20cli.probability.chances)."""
        own = self.__dict__
        if "_sealed" in own:
            return self
        for name in _TABLES:
            table = own[name]
            if table is not None and type(table) is not FrozenDict:
                own[name] = FrozenDict(table)
        for name in ("order", "side_names", "notes"):
            own[name] = tuple(own[name])
        own["extra"] = FrozenDict(
            {k: FrozenDict(v) if isinstance(v, Mapping) else v for k, v in self.extra.items()}
        )
        own["_sealed"] = True
        return self

    @property
    def mean(self) -> Fraction | None:
        if not self.distribution:
            return None
        den, counts = over_one_denominator(self.distribution)
        return Fraction(sum(t * n for t, n in counts.items()), den)

    def to_json(self) -> dict[str, Any]:
        """The odds as JSON: every probability an exact fraction ("11/20"), and beside
        each field of them the same values as numbers under the name with `_decimal`
        (`"success": "11/20", "success_decimal": 0.55`; DECIMAL_FIELDS)."""
        out: dict[str, Any] = {
            "request": self.request,
            "system": self.system,
            "verb": self.verb,
        }
        _both(out, "odds", dict(self.ordered_outcomes()))
        if self.degrees is not None:
            _both(out, "degrees", {f"{d:+d}": p for d, p in sorted(self.degrees.items())})
        if self.distribution is not None:
            _both(out, "distribution", {str(t): p for t, p in sorted(self.distribution.items())})
            # in whole numbers over one denominator: a Fraction's sum reduces at each step
            den, counts = over_one_denominator(self.distribution)
            below = 0
            at_least: dict[str, str] = {}
            at_least_decimal: dict[str, float] = {}
            at_most: dict[str, str] = {}
            at_most_decimal: dict[str, float] = {}
            for t, n in sorted(counts.items()):  # (written from the integers: no Fraction)
                key = str(t)
                at_least[key], at_least_decimal[key] = exact_ratio(den - below, den)
                below += n
                at_most[key], at_most_decimal[key] = exact_ratio(below, den)
            out["at_least"], out["at_least_decimal"] = at_least, at_least_decimal
            out["at_most"], out["at_most_decimal"] = at_most, at_most_decimal
            mean = Fraction(sum(t * n for t, n in counts.items()), den) if counts else None
            out["mean"] = float(mean) if mean is not None else None  # a number
            out["mean_exact"] = exact_number(mean) if mean is not None else None
        if self.damage_mean is not None:
            _both(out, "damage_mean", self.damage_mean)
        if self.damage_distribution is not None:
            _both(
                out,
                "damage_distribution",
                {str(t): p for t, p in sorted(self.damage_distribution.items())},
            )
        if self.success is not None:
            _both(out, "success", self.success)
        if self.winners is not None:
            _both(out, "winners", {str(n): p for n, p in sorted(self.winners.items())})
        if self.estimate is not None:
            out["estimate"] = {"rolls": self.estimate}
        for key, value in self.extra.items():
            if key in DECIMAL_FIELDS:  # a Fraction, or a map of them (engine.py)
                _both(out, key, value)
            else:
                out[key] = dict(value) if isinstance(value, Mapping) else value
        return out

    def json_text(self) -> str:
        """`to_json()` as one JSON text, written once for sealed odds and kept with them
        (an odds line of a batch asked again prints the text written the first time)."""
        own = self.__dict__
        text: str | None = own.get("_json_text")
        if text is None:
            text = json_encoder().encode(self.to_json())
            if "_sealed" in own:
                own["_json_text"] = text
        return text

    def ordered_outcomes(self) -> list[tuple[str, Fraction]]:
        rank = {oid: i for i, oid in enumerate(self.order)}
        return sorted(self.outcomes.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0]))


#: The tables of `Odds` (each None, or a map), sealed into FrozenDicts.
_TABLES = ("outcomes", "labels", "degrees", "distribution", "damage_distribution", "winners")

#: The odds' JSON fields whose values are exact fractions (or maps of them), each written
#: again beside itself as numbers, under the name with `_decimal`: a program reads the
#: exact value, or does arithmetic on the number (`jq '.odds_decimal.success * 100'`).
DECIMAL_FIELDS = frozenset(
    {
        "odds",
        "degrees",
        "distribution",
        "at_least",
        "at_most",
        "damage_mean",
        "damage_distribution",
        "success",
        "winners",
        "successes",
        "ranks",
        "damage_mean_by_crit_dmg",
        "truncated",
    }
)


def _both(out: dict[str, Any], key: str, value: Fraction | Mapping[str, Fraction]) -> None:
    """`out[key]`: the exact fraction(s); `out[key_decimal]`: the same as numbers."""
    if isinstance(value, Fraction):
        out[key], out[f"{key}_decimal"] = ratio(value), decimal(value)
        return
    exact: dict[str, str] = {}
    decimals: dict[str, float] = {}
    for k, p in value.items():  # (one pass, each fraction's integers read once)
        n, d = p.as_integer_ratio()
        short = n.bit_length() < STR_BITS and d.bit_length() < STR_BITS
        exact[k] = f"{n}/{d}" if short else ratio(p)
        decimals[k] = n / d  # (as `decimal` gives it)
    out[key], out[f"{key}_decimal"] = exact, decimals


def over_one_denominator(table: Mapping[int, Fraction]) -> tuple[int, dict[int, int]]:
    """The table's fractions as whole numbers over their least common denominator:
    (denominator, {key: numerator})."""
    den = math.lcm(*{p.denominator for p in table.values()})
    return den, {k: p.numerator * (den // p.denominator) for k, p in table.items()}


def fractions_over(counts: dict[int, int], den: int) -> dict[int, Fraction]:
    """{total: count / den} for the counts that are not 0, lowest total first. Equal
    counts share one Fraction (a sum of dice is symmetric: half of them are equal), so
    `roll 100d20` reduces 951 fractions, not 1,901."""
    made: dict[int, Fraction] = {}
    out: dict[int, Fraction] = {}
    for t, w in sorted(counts.items()):
        if w:
            p = made.get(w)
            if p is None:
                p = made[w] = Fraction(w, den)
            out[t] = p
    return out


def exact_number(x: Fraction) -> str:
    """A mean for JSON, exactly: `21/2`, or `7` when it is whole (not `7/1`)."""
    return str(x.numerator) if x.denominator == 1 else exact_fraction(x)


def ratio(p: Fraction) -> str:
    """A probability for JSON: the exact fraction, every digit."""
    return exact_fraction(p)


NO_OUTCOME = "none"


class Accumulator:
    """Adds up weighted results over a common denominator (exact integers)."""

    def __init__(self) -> None:
        self.den = 1
        self.outcomes: dict[str, int] = {}
        self.degrees: dict[int, int] = {}
        self.totals: dict[int, int] = {}
        self.damage: dict[int, int] = {}
        self.winners: dict[int, int] = {}  # side (1-based) -> weight of its wins
        self.sides = 0  # the most sides a result had
        self.labels: dict[str, str] = {}
        self.success = 0
        self.has_success = False
        self.has_degree = False
        self.has_total = True
        self.has_damage = False

    def _rescale(self, den: int) -> int:
        """Bring the accumulator to a denominator that `den` divides; return the factor
        for a weight over `den`."""
        if self.den % den == 0:
            return self.den // den
        from math import lcm

        new = lcm(self.den, den)
        k = new // self.den
        for named in (self.outcomes,):
            for name in named:
                named[name] *= k
        for table in (self.degrees, self.totals, self.damage, self.winners):
            for key in table:
                table[key] *= k
        self.success *= k
        self.den = new
        return new // den

    def add(
        self, weight: int, den: int, r: Result, damage: tuple[tuple[int, int], ...] | None = None
    ) -> None:
        """Count the result `r` with probability weight / den. `damage`: the distribution
        of its damage as (total, weight) pairs, when the walk kept it aside (r's damage
        total is then a placeholder): the path's weight is spread over it."""
        spread = sum(w for _, w in damage) if damage else 1
        factor = self._rescale(den * spread)
        w = weight * factor * spread
        key = r.outcome or NO_OUTCOME
        if r.outcome is not None or r.verb != "roll":  # a roll has no outcome to count
            self.outcomes[key] = self.outcomes.get(key, 0) + w
        if r.label and key not in self.labels:
            self.labels[key] = _generic_label(r)
        if r.success is not None:
            self.has_success = True
            if r.success:
                self.success += w
        if r.sides is not None:
            self.sides = max(self.sides, len(r.sides))
            if r.winner is not None:
                self.winners[r.winner] = self.winners.get(r.winner, 0) + w
        if r.degree is not None:
            self.has_degree = True
            self.degrees[r.degree] = self.degrees.get(r.degree, 0) + w
        if r.total is None:
            self.has_total = False
        else:
            self.totals[r.total] = self.totals.get(r.total, 0) + w
        if r.damage is not None or r.verb == "attack":
            dmg = r.damage.total if r.damage is not None else 0
            if r.damage is not None:
                self.has_damage = True
            if damage and r.damage is not None:
                for total, part in damage:
                    self.damage[total] = self.damage.get(total, 0) + weight * factor * part
            else:
                self.damage[dmg] = self.damage.get(dmg, 0) + w

    def odds(self, request: str, system: str, verb: str, order: list[str]) -> Odds:
        def fr(table: dict[int, int]) -> dict[int, Fraction]:
            return fractions_over(table, self.den)

        out = Odds(request, system, verb, order=order)
        out.outcomes = {k: Fraction(v, self.den) for k, v in self.outcomes.items() if v}
        out.labels = dict(self.labels)
        if self.has_success:
            out.success = Fraction(self.success, self.den)
        if self.sides > 2:  # of two sides, first_wins and second_wins say it
            out.winners = {
                n: Fraction(self.winners.get(n, 0), self.den) for n in range(1, self.sides + 1)
            }
        if self.has_degree:
            out.degrees = fr(self.degrees)
        if self.has_total and self.totals:
            out.distribution = fr(self.totals)
        if self.has_damage:
            dist = fr(self.damage)
            out.damage_distribution = dist
            out.damage_mean = sum((t * p for t, p in dist.items()), Fraction(0))
        return out


def _generic_label(r: Result) -> str:
    """The outcome's label without per-roll details ("Success (2 of 3 succeed)" -> "Success",
    "2 degrees of success" stays: the degree table carries the detail)."""
    label = r.label or ""
    return label.split(" (", 1)[0]


#: (outcome, total, winning side of a contest of three or more sides) -> its probability
#: (`engine.joint_outcomes`).
Case = tuple[str | None, int | None, int | None]
Joint = dict[Case, Fraction]
#: A distribution of damage: (total, weight) pairs, the weights integers.
Spread = tuple[tuple[int, int], ...]
