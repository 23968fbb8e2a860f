"""Odds what-ifs: a sweep is one request with a range in place of one of its numbers
(`check +5 vs 5..30`, `attack +7 vs AC 10..25 dmg 1d8+4`, `check +0..+10 vs 15`), whose
odds are those of the request typed at each point of the range (`check +5 vs 5`, ...,
`check +5 vs 30`): the range is expanded in the text before anything is parsed, so a
point's odds are exactly the odds of its request. Two sweeps over the same points
compared (`odds compare`) have break-even points: where one overtakes the other.

The points of one sweep are bounded (MAX_SWEEP_POINTS), and all their odds share one command's
budget (d20cli.probability.walk.command_budget): the cost of the first point times the
number of points is estimated before the rest are computed, and refused past it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from d20cli.dice.weights import Budget, TooCostly
from d20cli.errors import D20Error, ParseError
from d20cli.probability.model import NO_OUTCOME, Odds, exact_number, ratio
from d20cli.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_SWEEP_POINTS = 201  # points one sweep may have (DC 0..200; more is a typo)
#: A range word: `5..30`, `+0..+10`, `-2..3`: the whole word, a number each side.
RANGE = re.compile(r"(?<!\S)([+-]?)([0-9]{1,6})\.\.([+-]?)([0-9]{1,6})(?!\S)")
#: The number a sweep with no target sweeps (`odds check +5`): the DC.
DC = "DC"


class Span(NamedTuple):
    """Where a range stands in a request's text, and what it ranges over."""

    start: int  # 0-based index of the range word in the text
    end: int
    low: int
    high: int
    signed: bool  # written with a sign (`+0..+10`): each point is written with one too
    over: str  # what the numbers are: DC, AC, modifier or value

    @property
    def column(self) -> int:
        """The 1-based column of the range word (where an error's caret goes)."""
        return self.start + 1

    @property
    def word(self) -> str:
        return f"{self.low}..{self.high}" if not self.signed else f"{self.low:+d}..{self.high:+d}"

    def at(self, text: str, value: int) -> str:
        """The request typed at one point: the range word replaced by the number."""
        number = f"{value:+d}" if self.signed else str(value)
        return text[: self.start] + number + text[self.end :]

    def values(self) -> range:
        return range(self.low, self.high + 1)


def find_range(text: str) -> Span | None:
    """The range in a request's text (None: it has none). ParseError for a range that
    goes down, one of more than MAX_SWEEP_POINTS points, or a second range."""
    found = list(RANGE.finditer(text))
    if not found:
        return None
    if len(found) > 1:
        raise ParseError(
            "a sweep takes one range; sweep one number at a time", text, found[1].start() + 1
        )
    m = found[0]
    low = int(m.group(2)) * (-1 if m.group(1) == "-" else 1)
    high = int(m.group(4)) * (-1 if m.group(3) == "-" else 1)
    if high < low:
        raise ParseError(
            f"a range goes up: {m.group(0)} is empty (write {high}..{low})", text, m.start() + 1
        )
    if high - low + 1 > MAX_SWEEP_POINTS:
        raise ParseError(
            f"a sweep has at most {MAX_SWEEP_POINTS} points; {m.group(0)} has {high - low + 1:,}",
            text,
            m.start() + 1,
        )
    signed = bool(m.group(1) or m.group(3))
    return Span(m.start(), m.end(), low, high, signed, _over(text[: m.start()], signed))


def _over(before: str, signed: bool) -> str:
    """What the swept numbers are, from the word before them: AC after `ac`, DC after
    `vs` or `dc`, a modifier when signed, else a value."""
    words = before.lower().split()
    last = words[-1] if words else ""
    if last == "ac":
        return "AC"
    if last in ("vs", "dc"):
        return DC
    return "modifier" if signed else "value"


def no_target_span(text: str, odds: Odds) -> tuple[str, Span] | None:
    """A check with no target (`odds check +5`, whose only outcome is `none`) swept over
    the DCs of its totals: the text with `vs LOW..HIGH` added, from its lowest total to
    one past its highest (the tails less likely than 1 in 20,000 left out), and the span.
    None for any other odds."""
    if odds.verb == "roll" or set(odds.outcomes) != {NO_OUTCOME} or not odds.distribution:
        return None
    likely = [t for t, p in sorted(odds.distribution.items()) if p >= Fraction(1, 20_000)]
    low, high = likely[0], likely[-1] + 1
    if high - low + 1 > MAX_SWEEP_POINTS:
        return None
    swept = f"{text} vs {low}..{high}"
    span = find_range(swept)
    return (swept, span) if span is not None else None


@dataclass
class Sweep:
    """The odds of a request at every point of its range."""

    request: str  # as typed, with its range
    system: str
    verb: str
    span: Span
    points: list[tuple[int, Odds]] = field(default_factory=list)

    def tiers(self) -> list[str]:
        """The outcome ids any point has, worst to best."""
        keys: list[str] = []
        for _, odds in self.points:
            keys += [k for k, _ in odds.ordered_outcomes() if k not in keys]
        rank = {k: i for i, k in enumerate(self.points[0][1].order)} if self.points else {}
        return sorted(keys, key=lambda k: (rank.get(k, len(rank)), keys.index(k)))

    def labels(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for _, odds in reversed(self.points):
            out.update(odds.labels)
        return out

    @property
    def has_damage(self) -> bool:
        return any(odds.damage_mean is not None for _, odds in self.points)

    @property
    def has_success(self) -> bool:
        return any(odds.success is not None for _, odds in self.points)

    def metric(self, odds: Odds) -> Fraction:
        """What a compare of sweeps weighs at a point: the expected damage of an attack
        with damage, else the chance of success."""
        if self.has_damage:
            return odds.damage_mean or Fraction(0)
        return odds.success or Fraction(0)

    @property
    def metric_name(self) -> str:
        return "expected damage" if self.has_damage else "chance of success"

    def to_json(self) -> dict[str, Any]:
        """{"request", "system", "verb", "sweep": {"over", "from", "to", "column"},
        "points": [{"value": N, ...the odds of the request typed at N (`d20 odds --json`)}]}."""
        return {
            "request": self.request,
            "system": self.system,
            "verb": self.verb,
            "sweep": {
                "over": self.span.over,
                "from": self.span.low,
                "to": self.span.high,
                "column": self.span.column,
            },
            "points": [{"value": v, **odds.to_json()} for v, odds in self.points],
        }


def sweep(
    text: str, span: Span, odds_at: Callable[[str], Odds], command: Budget | None = None
) -> Sweep:
    """The odds at every point of `span` in `text`, each from `odds_at` (the odds of a
    request, charged to `command`). After the first point, its cost times the number of
    points is checked against what `command` has left: TooCostly before the rest are
    computed. An error at a point is placed at the range's column and names the point."""
    values = list(span.values())
    found: list[tuple[int, Odds]] = []
    for i, value in enumerate(values):
        before = command.spent if command is not None else 0
        try:
            found.append((value, odds_at(span.at(text, value))))
        except TooCostly as err:
            raise TooCostly(f"{err.message} (at {span.over} {value})") from None
        except D20Error as err:
            raise type(err)(f"{err.message} (at {span.over} {value})", text, span.column) from None
        if i == 0 and command is not None and len(values) > 1:
            cost = command.spent - before
            rest = cost * (len(values) - 1)
            if rest > command.left:
                raise TooCostly(
                    f"a sweep of {len(values)} points needs about {cost * len(values):,} "
                    f"steps ({cost:,} a point), more than the {command.limit:,} of one "
                    "command; sweep a shorter range"
                )
    first = found[0][1]
    return Sweep(text, first.system, first.verb, span, found)


class Crossing(NamedTuple):
    """Where the lead changes in a compare of sweeps: from `value` on, `leader` (an index
    into the sweeps; None: they are even there) leads."""

    value: int
    leader: int | None


def break_even(sweeps: list[Sweep]) -> list[Crossing]:
    """The points where the leader of two or more sweeps (the highest `Sweep.metric`)
    changes, in order: the first point's leader, then each change. Ties name no leader."""
    out: list[Crossing] = []
    last: int | str | None = "start"
    for i, (value, _) in enumerate(sweeps[0].points):
        scores = [s.metric(s.points[i][1]) for s in sweeps]
        best = max(scores)
        leaders = [k for k, x in enumerate(scores) if x == best]
        leader = leaders[0] if len(leaders) == 1 else None
        if leader != last:
            out.append(Crossing(value, leader))
            last = leader
    return out


def compare_json(sweeps: list[Sweep]) -> dict[str, Any]:
    """`odds compare` of sweeps as JSON: each sweep, what is weighed, and the crossings."""
    return {
        "compare": [s.to_json() for s in sweeps],
        "weighed": sweeps[0].metric_name,
        "break_even": [{"from": c.value, "leader": c.leader} for c in break_even(sweeps)],
        "points": [
            {"value": v, "weighed": [_exact(s, s.points[i][1]) for s in sweeps]}
            for i, (v, _) in enumerate(sweeps[0].points)
        ],
    }


def _exact(s: Sweep, odds: Odds) -> str:
    """What a sweep weighs at a point, exactly: a chance as a fraction, a mean as a
    number or fraction."""
    x = s.metric(odds)
    return exact_number(x) if s.has_damage else ratio(x)
