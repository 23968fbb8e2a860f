"""The exact odds of one d20 check from its plan (`System.check_plan`), without replaying
the resolver: the kept d20's distribution (advantage and disadvantage as the higher or
lower of two, `lucky` as its one reroll of a 1) and the distribution of the rest of the
total (the extra die, the modifier expression, a flat bonus) convolved, and each
(face, total) pair graded once by the system's own grading function, the one its
resolver calls on what it rolled. Damage is the distribution of the expression each
pair's grade rolls. The figures are the ones the walk over the resolver gives (the
tests compare the two, and both with brute force).

Bounded like the walk: the pairs graded count as its cases (at most `max_paths`), each
costing GRADE_STEPS of the budget, estimated and charged before any is graded; a pair
costs far less than a replayed case, and there are never more pairs than cases, so
every check the walk accepts is accepted here. A modifier or damage expression whose
distribution cannot be listed (a possible division by zero) is left to the walk.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import product
from math import lcm, prod

from d20cli.dice import tree
from d20cli.dice.weights import Budget
from d20cli.language.requests import Request
from d20cli.probability.model import NO_OUTCOME, Odds, fractions_over
from d20cli.probability.walk import (
    _D20_ADV,
    _D20_DIS,
    _LUCKY,
    _LUCKY_ADV,
    _LUCKY_DIS,
    Branches,
    refuse_cases,
)
from d20cli.records import NamedTuple
from d20cli.rules.common import CheckPlan, ContestPlan, Grade, net_advantage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GRADE_STEPS = 2  # budget steps (about 0.5 µs each) one graded pair costs

_D20: Branches = tuple((k, 1) for k in range(1, 21))

Totals = Callable[[object], Branches | None]


def d20_table(plan: CheckPlan) -> Branches:
    """The kept d20 face and its weight (the weights sum to 20, 400 or 160,000)."""
    net = net_advantage(plan.adv, plan.dis)
    if plan.lucky:
        return _LUCKY if net == 0 else _LUCKY_ADV if net > 0 else _LUCKY_DIS
    return _D20 if net == 0 else _D20_ADV if net > 0 else _D20_DIS


def _fixed(expr: object) -> int | None:
    """The value of an expression that rolls nothing (as `rules.common.evaluate` reads
    it), else None."""
    if type(expr) is tree.Number:
        return expr.value
    if type(expr) is tree.Neg and type(expr.operand) is tree.Number:
        return -expr.operand.value
    return None


def _branches(expr: object, totals: Totals) -> Branches | None:
    fixed = _fixed(expr)
    return ((fixed, 1),) if fixed is not None else totals(expr)


def bonus_table(plan: CheckPlan, totals: Totals) -> dict[int, int] | None:
    """What is added to the counted face (extra die + modifier + flat) and its weight;
    None when the modifier's distribution cannot be listed."""
    out = {plan.flat: 1}
    if plan.extra_die is not None:
        out = {b + f: w for b, w in out.items() for f in range(1, plan.extra_die + 1)}
    if plan.modifier is not None:
        parts = _branches(plan.modifier, totals)
        if parts is None:
            return None
        summed: dict[int, int] = {}
        for b, w in out.items():
            for v, u in parts:
                summed[b + v] = summed.get(b + v, 0) + w * u
        out = summed
    return out


class Graded(NamedTuple):
    """A check's odds, the chances of a normal and of a critical damage roll, and the
    number of (face, total) pairs graded."""

    odds: Odds
    normal: Fraction
    critical: Fraction
    cases: int


def check_odds(
    request: Request,
    system_id: str,
    verb: str,
    plan: CheckPlan,
    order: list[str],
    labels: dict[str, str],
    totals: Totals,
    budget: Budget,
    max_paths: int,
) -> Graded | None:
    """The odds of the check `plan` describes (`Graded`); None when the walk must do it
    (an expression that can fail)."""
    faces = d20_table(plan)
    bonus = bonus_table(plan, totals)
    if bonus is None:
        return None
    cases = len(faces) * len(bonus)
    _bound(cases, budget, max_paths)
    tally = _Tally(plan, totals, verb == "attack")
    bonus_items = sorted(bonus.items())
    floor = plan.floor
    for face, weight in faces:
        counted = floor if floor is not None and face < floor else face
        tally.face(face, counted, weight, bonus_items)
    if tally.failed:
        return None
    den = sum(w for _, w in faces) * sum(bonus.values())
    odds, hits = tally.odds(request, system_id, verb, order, labels, den)
    return Graded(odds, hits[0], hits[1], cases)


class _Tally:
    """Integer weights of each outcome, total, degree and damage over one denominator."""

    def __init__(self, plan: CheckPlan, totals: Totals, attack: bool) -> None:
        self.grade = plan.grade
        self.damage_of = plan.damage
        self.totals = totals
        self.attack = attack
        self.outcomes: dict[str, int] = {}
        self.labels: dict[str, str] = {}
        self.by_total: dict[int, int] = {}
        self.degrees: dict[int, int] = {}
        self.success = 0
        self.has_success = False
        self.has_degree = False
        self.missed = 0  # an attack's weight that rolls no damage (a damage of 0)
        self.damage: dict[Any, list[Any]] = {}  # (expr, critical) -> [weight, critical, branches]
        self.failed = False

    def face(self, face: int, counted: int, weight: int, bonus: list[tuple[int, int]]) -> None:
        grade = self.grade
        for b, w in bonus:
            total = counted + b
            g = grade(face, total)
            w *= weight
            self.add(g, total, w)
            if self.damage_of is not None:
                rolled = self.damage_of(face, g)
                if rolled is not None:
                    self.add_damage(rolled[0], rolled[1], w)
                    continue
            if self.attack:
                self.missed += w

    def add(self, g: Grade, total: int, w: int) -> None:
        key = g.outcome or NO_OUTCOME
        self.outcomes[key] = self.outcomes.get(key, 0) + w
        if g.label and key not in self.labels:
            self.labels[key] = g.label.split(" (", 1)[0]
        if g.success is not None:
            self.has_success = True
            if g.success:
                self.success += w
        if g.degree is not None:
            self.has_degree = True
            self.degrees[g.degree] = self.degrees.get(g.degree, 0) + w
        self.by_total[total] = self.by_total.get(total, 0) + w

    def add_damage(self, expr: Any, critical: bool, w: int) -> None:
        entry = self.damage.get((expr, critical))
        if entry is None:
            parts = _branches(expr, self.totals)
            if parts is None:
                self.failed = True
                parts = ()
            entry = self.damage[expr, critical] = [0, critical, parts]
        entry[0] += w

    def odds(
        self,
        request: Request,
        system_id: str,
        verb: str,
        order: list[str],
        labels: dict[str, str],
        den: int,
    ) -> tuple[Odds, tuple[Fraction, Fraction]]:
        out = Odds(request.text, system_id, verb, order=list(order))
        rank = {oid: i for i, oid in enumerate(order)}
        keys = sorted(self.outcomes, key=lambda k: (rank.get(k, len(rank)), k))
        out.outcomes = {k: Fraction(self.outcomes[k], den) for k in keys if self.outcomes[k]}
        out.labels = {**self.labels, **{k: v for k, v in labels.items() if k in out.outcomes}}
        if self.has_success:
            out.success = Fraction(self.success, den)
        if self.has_degree:
            out.degrees = fractions_over(self.degrees, den)
        out.distribution = fractions_over(self.by_total, den)
        hits = [Fraction(0), Fraction(0)]
        if self.damage:
            scale = lcm(*(sum(u for _, u in e[2]) for e in self.damage.values()))
            table: dict[int, int] = {0: self.missed * scale} if self.missed else {}
            for weight, critical, parts in self.damage.values():
                hits[critical] += Fraction(weight, den)
                k = scale // sum(u for _, u in parts)
                for t, u in parts:
                    table[t] = table.get(t, 0) + weight * u * k
            dist = fractions_over(table, den * scale)
            out.damage_distribution = dist
            out.damage_mean = sum((t * p for t, p in dist.items()), Fraction(0))
        return out, (hits[0], hits[1])


def contest_odds(
    request: Request,
    system_id: str,
    verb: str,
    plan: ContestPlan,
    order: list[str],
    labels: dict[str, str],
    totals: Totals,
    budget: Budget,
    max_paths: int,
) -> Odds | None:
    """The odds of the contest `plan` describes: every side's (face, total) rolls, each
    combination graded once by the system's contest grading (None when the walk must do
    it: a modifier that can fail)."""
    sides: list[list[tuple[tuple[int, int], int]]] = []
    den = 1
    for side in plan.sides:
        faces = d20_table(side)
        bonus = bonus_table(side, totals)
        if bonus is None:
            return None
        floor = side.floor
        sides.append(
            [
                ((face, (floor if floor is not None and face < floor else face) + b), fw * bw)
                for face, fw in faces
                for b, bw in sorted(bonus.items())
            ]
        )
        den *= sum(w for _, w in faces) * sum(bonus.values())
    cases = prod(len(rolls) for rolls in sides)
    _bound(cases, budget, max_paths)
    grade = plan.grade
    outcomes: dict[str, int] = {}
    seen: dict[str, str] = {}
    winners: dict[int, int] = {}
    for combo in product(*sides):
        w = 1
        for _, weight in combo:
            w *= weight
        g = grade([roll for roll, _ in combo])
        key = g.outcome or NO_OUTCOME
        outcomes[key] = outcomes.get(key, 0) + w
        if g.label and key not in seen:
            seen[key] = g.label.split(" (", 1)[0]
        if g.winner is not None:
            winners[g.winner] = winners.get(g.winner, 0) + w
    out = Odds(request.text, system_id, verb, order=list(order))
    rank = {oid: i for i, oid in enumerate(order)}
    keys = sorted(outcomes, key=lambda k: (rank.get(k, len(rank)), k))
    out.outcomes = {k: Fraction(outcomes[k], den) for k in keys if outcomes[k]}
    out.labels = {**seen, **{k: v for k, v in labels.items() if k in out.outcomes}}
    if len(sides) > 2:  # of two sides, first_wins and second_wins say it
        out.winners = {n: Fraction(winners.get(n, 0), den) for n in range(1, len(sides) + 1)}
    return out


def _bound(cases: int, budget: Budget, max_paths: int) -> None:
    """Refuse `cases` pairs over `max_paths` or over what `budget` has left; else charge
    them (the deadline is checked then too)."""
    refuse_cases(cases, GRADE_STEPS, budget, max_paths)
    budget.charge(cases * GRADE_STEPS, "grading each case")
