"""Exact odds: the probability of every outcome of a request, from the same resolver code
that rolls it.

How: the request is resolved again and again with a `ReplayRoller`, which answers every
question a resolver asks of its roller ("a face from 1 to 20", "the kept d20 with
advantage", "the total of 1d4+2") with one branch of the answer, and remembers the
branches it did not take. A depth-first walk replays each untaken branch until every path
has run. Each path's probability is the product of its branches' weights, kept as exact
integers; the outcomes, totals and degrees of the paths add up to the odds. No rule is
written twice: the resolver decides each path's outcome exactly as it does at the table.

To keep the walk short, a roller may answer coarse questions in one branch each: the kept
d20 of an advantage roll is one question with 20 weighted answers (not 400 pairs), a
whole modifier expression is one question answered from its exact distribution (see
`d20cli.dice.distribution`), and a tie-break round of k d20s (`Roller.d20_rounds`, rolled again
while all show one face) is one question whose answers are the sets of dice that share
the highest face (so the walk ends: a round that decides nothing is never replayed).
Verbs whose walks would be too long (large group checks, ability scores) are computed
from their members' odds and the system's own grading function.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from d20cli.dice.roller import Roller
from d20cli.errors import D20Error
from d20cli.figures import exact_fraction, percent
from d20cli.results import Result, Shown

if TYPE_CHECKING:
    from d20cli.language.requests import Request

MAX_PATHS = 50_000  # resolver runs one odds request may take before it gives up

Branches = tuple[tuple[int, int], ...]  # (value, weight) pairs

# The kept face of 2d20 keep-highest: P(k) = (2k - 1) / 400; keep-lowest: (41 - 2k) / 400.
_D20_ADV: Branches = tuple((k, 2 * k - 1) for k in range(1, 21))
_D20_DIS: Branches = tuple((k, 41 - 2 * k) for k in range(1, 21))
_D20_PAIRS = 400  # the summed weight of either
MAX_ROUND_DICE = 12  # dice of one tie-break round the walk answers (2**12 - 2 branches)


class WalkTables:
    """What the rollers of one walk share, made once per walk rather than on every path
    (the engine keeps nothing between walks): the branch table of each die size, and the
    summed weight of each table."""

    def __init__(self) -> None:
        self._dice: dict[tuple[int, int], Branches] = {}
        self._sums: dict[int, tuple[Branches, int]] = {}
        self._rounds: dict[int, tuple[Branches, tuple[tuple[int, ...], ...]]] = {}

    def die(self, lo: int, hi: int) -> Branches:
        """Each face from lo to hi, weight 1."""
        found = self._dice.get((lo, hi))
        if found is None:
            found = self._dice[lo, hi] = tuple((v, 1) for v in range(lo, hi + 1))
        return found

    def round(self, count: int) -> tuple[Branches, tuple[tuple[int, ...], ...]]:
        """The last round of `count` d20s rolled until they do not all show one face: one
        branch per set of dice (0-based positions, never all of them) that share the
        highest face, smallest sets first. The set S of s dice shows the highest face f
        with weight (f - 1) ** (count - s) summed over f; the weights sum to 20 ** count
        - 20 (every round but the 20 that show one face)."""
        found = self._rounds.get(count)
        if found is None:
            if count > MAX_ROUND_DICE:
                from d20cli.dice.weights import TooCostly

                raise TooCostly(  # the walk of so many sides' d20s is longer still
                    f"the exact odds need more than {MAX_PATHS:,} cases; "
                    "estimate them with --simulate N"
                )
            sets = tuple(
                top
                for size in range(1, count)
                for top in itertools.combinations(range(count), size)
            )
            weights = {
                size: sum((f - 1) ** (count - size) for f in range(1, 21))
                for size in range(1, count)
            }
            branches = tuple((i, weights[len(top)]) for i, top in enumerate(sets))
            found = self._rounds[count] = (branches, sets)
        return found

    def weight(self, branches: Branches) -> int:
        """The summed weight of a table (tables are compared by identity: the same table
        comes back on every path)."""
        hit = self._sums.get(id(branches))
        if hit is None or hit[0] is not branches:
            hit = self._sums[id(branches)] = (branches, sum(w for _, w in branches) or 1)
        return hit[1]


class ReplayRoller(Roller):
    """Answers a roller's questions along one path of branch choices (see module doc)."""

    def __init__(
        self,
        path: list[int],
        totals: Callable[[object], Branches | None] | None = None,
        tables: WalkTables | None = None,
        stride: int = 0,
    ) -> None:
        """`tables`: shared by the rollers of one walk. Past the end of `path`, the roller
        takes the first branch of each question, or with a `stride` the branch `stride`
        times the question's position (wrapped): a probe path whose d20s differ."""
        super().__init__(budget=10**9)
        self.stride = stride
        self.path = path
        self.totals = totals
        self.tables = tables if tables is not None else WalkTables()
        self.trace: list[Branches] = []
        self.taken: list[int] = []
        self.weight = 1
        self.denominator = 1

    def _choose(self, branches: Branches, total: int) -> int:
        """The value of the branch this path takes; `total` is the table's summed weight."""
        pos = len(self.taken)
        if pos < len(self.path):
            index = self.path[pos]
        else:
            index = pos * self.stride % len(branches) if self.stride else 0
        self.trace.append(branches)
        self.taken.append(index)
        value, weight = branches[index]
        self.weight *= weight
        self.denominator *= total
        return value

    def _draw(self, lo: int, hi: int) -> int:
        return self._choose(self.tables.die(lo, hi), hi - lo + 1)

    def d20s(self, net: int) -> tuple[int, ...]:
        if net == 0:
            return (self._choose(self.tables.die(1, 20), 20),)
        kept = self._choose(_D20_ADV if net > 0 else _D20_DIS, _D20_PAIRS)
        return (kept, kept)

    def d20_rounds(self, count: int) -> tuple[tuple[int, ...], ...]:
        if count < 2:
            return super().d20_rounds(count)
        branches, sets = self.tables.round(count)
        top = sets[self._choose(branches, 20**count - 20)]
        # Any faces with this set on top: the dice of the set show 2, the others 1.
        return (tuple(2 if i in top else 1 for i in range(count)),)

    def preset_total(self, expr: object) -> int | None:
        if self.totals is None:
            return None
        branches = self.totals(expr)
        if branches is None:
            return None
        return self._choose(branches, self.tables.weight(branches))


def walk(
    run: Callable[[Roller], Result],
    totals: Callable[[object], Branches | None] | None = None,
    max_paths: int = MAX_PATHS,
) -> Iterator[tuple[int, int, Result]]:
    """Every path of `run` as (weight, denominator, result); the weights over the
    denominators sum to 1."""
    stack: list[list[int]] = [[]]
    tables = WalkTables()
    paths = 0
    while stack:
        path = stack.pop()
        roller = ReplayRoller(path, totals, tables)
        result = run(roller)
        paths += 1
        if paths > max_paths or (
            paths == 1 and _estimate(run, roller, totals, max_paths) > max_paths
        ):
            from d20cli.dice.weights import TooCostly

            raise TooCostly(
                f"the exact odds need more than {max_paths:,} cases; "
                "estimate them with --simulate N"
            )
        taken = roller.taken
        for pos in range(len(path), len(roller.trace)):
            for alt in range(1, len(roller.trace[pos])):
                stack.append([*taken[:pos], alt])
        yield roller.weight, roller.denominator, result


PROBE_STRIDE = 7  # a probe path's d20s show 1, 8, 15, 2, 9, ...


def _estimate(
    run: Callable[[Roller], Result],
    first: ReplayRoller,
    totals: Callable[[object], Branches | None] | None,
    max_paths: int,
) -> int:
    """How many paths a walk will take, from its first path: the product of the branch
    counts of the questions asked along it. The first path takes the first branch of every
    question; where that makes sides tie (every d20 a 1), it asks tie-break questions most
    paths never ask, so a second path whose d20s differ is tried too, and the smaller
    product counts (only when the first is over `max_paths`)."""
    estimate = math.prod(len(b) for b in first.trace)
    if estimate > max_paths:
        probe = ReplayRoller([], totals, first.tables, stride=PROBE_STRIDE)
        run(probe)
        estimate = min(estimate, math.prod(len(b) for b in probe.trace))
    return estimate


@dataclass
class Odds(Shown):
    """The exact odds of one request."""

    request: str
    system: str
    verb: str
    outcomes: dict[str, Fraction] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # outcome ids, worst to best
    degrees: dict[int, Fraction] | None = None
    distribution: dict[int, Fraction] | None = None
    damage_mean: Fraction | None = None
    damage_distribution: dict[int, Fraction] | None = None
    estimate: int | None = None  # --simulate N: the number of rolls behind an estimate
    success: Fraction | None = None  # the chance of any success, where results have one
    winners: dict[int, Fraction] | None = None  # a contest of 3+ sides: side -> P(it wins)
    side_names: list[str] = field(default_factory=list)  # those sides' names, in order
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def mean(self) -> Fraction | None:
        if not self.distribution:
            return None
        return sum((t * p for t, p in self.distribution.items()), Fraction(0))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "request": self.request,
            "system": self.system,
            "verb": self.verb,
            "odds": {k: ratio(v) for k, v in self.ordered_outcomes()},
        }
        if self.degrees is not None:
            out["degrees"] = {f"{d:+d}": ratio(p) for d, p in sorted(self.degrees.items())}
        if self.distribution is not None:
            out["distribution"] = {str(t): ratio(p) for t, p in sorted(self.distribution.items())}
            mean = self.mean
            out["mean"] = ratio(mean) if mean is not None else None
        if self.damage_mean is not None:
            out["damage_mean"] = ratio(self.damage_mean)
        if self.damage_distribution is not None:
            out["damage_distribution"] = {
                str(t): ratio(p) for t, p in sorted(self.damage_distribution.items())
            }
        if self.success is not None:
            out["success"] = ratio(self.success)
        if self.winners is not None:
            out["winners"] = {str(n): ratio(p) for n, p in sorted(self.winners.items())}
        if self.estimate is not None:
            out["estimate"] = {"rolls": self.estimate}
        out.update(self.extra)
        return out

    def ordered_outcomes(self) -> list[tuple[str, Fraction]]:
        rank = {oid: i for i, oid in enumerate(self.order)}
        return sorted(self.outcomes.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0]))


def ratio(p: Fraction) -> str:
    """A probability for JSON: the exact fraction, every digit."""
    return exact_fraction(p)


NO_OUTCOME = "none"


class _Acc:
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

    def add(self, weight: int, den: int, r: Result) -> None:
        factor = self._rescale(den)
        w = weight * factor
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
            self.damage[dmg] = self.damage.get(dmg, 0) + w

    def odds(self, request: str, system: str, verb: str, order: list[str]) -> Odds:
        def fr(table: dict[int, int]) -> dict[int, Fraction]:
            return {k: Fraction(v, self.den) for k, v in sorted(table.items()) if v}

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


# --- computing the odds of a request ----------------------------------------------------


def _totals_provider() -> Callable[[object], Branches | None]:
    """Whole-expression answers for the replay roller, from d20cli.dice.distribution, cached
    per expression for one odds request."""
    from d20cli.dice import distribution

    cache: dict[object, Branches | None] = {}

    def totals(expr: object) -> Branches | None:
        if expr not in cache:
            try:
                cache[expr] = distribution.branches(expr)
            except D20Error:
                cache[expr] = None
        return cache[expr]

    return totals


def _outcome_order(system: Any) -> tuple[list[str], dict[str, str]]:
    order = [oid for oid, _ in system.outcomes]
    labels = {oid: label for oid, label in system.outcomes}
    return order, labels


def odds_of(
    text: str,
    system_name: str,
    max_paths: int = MAX_PATHS,
    parse: Callable[[str], Request] | None = None,
) -> Odds:
    """The exact odds of the request `text` (verb first) under the named system.

    `parse`: how to turn the text into a request; the caller may pass one that remembers
    parsed requests (`d20cli.app.run.Context.parse`). By default the grammar parses it."""
    from d20cli.language.requests import GroupRequest
    from d20cli.rules import get_system

    if parse is None:
        from d20cli.language.grammar import parse_request

        parse = parse_request
    system = get_system(system_name)
    request = parse(text)
    order, labels = _outcome_order(system)
    verb = request.verb
    if verb == "roll":
        return _roll_odds(request, system.id)
    if verb == "fortune":
        raise D20Error("fortune has no odds: it shows or spends the fortune dice you hold")
    if verb == "scores":
        return _scores_odds(request, system)
    if isinstance(request, GroupRequest):
        grade_group = system.grade_group
        if grade_group is not None:  # else the walk below gets the system's own error
            return _group_odds(request, system, grade_group, order, labels, max_paths)
    acc = _Acc()
    for weight, den, result in walk(
        lambda roller: system.resolve(request, roller), _totals_provider(), max_paths
    ):
        acc.add(weight, den, result)
    odds = acc.odds(request.text, system.id, verb, order)
    odds.labels = {**odds.labels, **{k: v for k, v in labels.items() if k in odds.outcomes}}
    _name_sides(odds, request)
    return odds


def _name_sides(odds: Odds, request: Request) -> None:
    """Name the sides of a contest whose odds list each side's chance to win, by their
    words as typed (label, modifier, options): `+3`, `carol +2 adv`."""
    from d20cli.language.requests import ContestRequest

    if odds.winners is None or not isinstance(request, ContestRequest):
        return
    names = []
    for side in request.sides:
        words = [side.name] if side.name else []
        if side.modifier is not None:
            text = str(side.modifier)
            words.append(text if text.startswith("-") else f"+{text}")
        words += ["adv"] * side.adv + ["dis"] * side.dis + list(side.circumstances)
        names.append(" ".join(words))
    odds.side_names = names


def _roll_odds(request: Any, system_id: str) -> Odds:
    from d20cli.dice import distribution
    from d20cli.rules.roll import with_advantage

    expr, _ = with_advantage(request.expr, request.adv) if request.adv else (request.expr, None)
    dist = distribution.distribution(expr)
    den = dist.denominator
    odds = Odds(request.text, system_id, "roll")
    odds.distribution = {t: Fraction(w, den) for t, w in sorted(dist.counts.items()) if w}
    if dist.truncated:
        odds.notes.append(
            f"explosions counted to a depth of {distribution.DEFAULT_EXPLODE_DEPTH}; "
            f"the cap leaves out {percent(dist.truncated, 6)}"
        )
        odds.extra["truncated"] = ratio(dist.truncated)
    return odds


def _scores_odds(request: Any, system: Any) -> Odds:
    """The distribution of one ability score (4d6, lowest dropped) and of its rank."""
    from d20cli.dice import distribution
    from d20cli.language.dice_grammar import parse_expression

    rank_of = system.rank_for_score
    dist = distribution.distribution(parse_expression("4d6dl1"))
    den = dist.denominator
    odds = Odds(request.text, system.id, "scores")
    odds.distribution = {t: Fraction(w, den) for t, w in sorted(dist.counts.items()) if w}
    if rank_of is not None:
        ranks: dict[str, Fraction] = {}
        for total, p in odds.distribution.items():
            rank = str(rank_of(total))
            ranks[rank] = ranks.get(rank, Fraction(0)) + p
        odds.extra["ranks"] = {k: ratio(v) for k, v in ranks.items()}
    odds.notes.append("one ability score: 4d6 with the lowest die dropped")
    return odds


def _group_odds(
    request: Any,
    system: Any,
    grade_group: Callable[[list[bool]], Any],
    order: list[str],
    labels: dict[str, str],
    max_paths: int,
) -> Odds:
    """A group check: each member's chance of success from its own resolver walk, the
    number of successes by convolution, and the system's own group grading on each count.

    Identical members (the same words anywhere in the line) are walked once, and the walks
    of all the members share the one limit of `max_paths` cases."""
    from d20cli.dice.weights import TooCostly

    chance: dict[Any, Fraction] = {}  # by member, its place in the line left out
    ways = [1]  # ways[k] / scale: the probability that k members succeed so far
    scale = 1
    left = max_paths
    for member in request.members:
        single = replace(member, target=request.target, text=request.text)
        key = replace(single, columns=()) if hasattr(single, "columns") else single
        p_success = chance.get(key)
        if p_success is None:
            p_success = Fraction(0)

            def run(roller: Roller, m: Any = single) -> Result:
                return system.resolve(m, roller)  # type: ignore[no-any-return]

            try:
                for weight, den, result in walk(run, _totals_provider(), left):
                    left -= 1
                    if result.success:
                        p_success += Fraction(weight, den)
            except TooCostly:
                raise TooCostly(
                    f"the exact odds need more than {max_paths:,} cases over the group's "
                    "members; estimate them with --simulate N"
                ) from None
            chance[key] = p_success
        hit, den = p_success.numerator, p_success.denominator
        nxt = [0] * (len(ways) + 1)
        for k, w in enumerate(ways):
            nxt[k] += w * (den - hit)
            nxt[k + 1] += w * hit
        ways, scale = nxt, scale * den
    count = [Fraction(w, scale) for w in ways]
    n = len(request.members)
    odds = Odds(request.text, system.id, request.verb, order=order)
    successes: dict[int, Fraction] = {}
    for k, p in enumerate(count):
        if not p:
            continue
        grade = grade_group([True] * k + [False] * (n - k))
        key = grade.outcome or NO_OUTCOME
        odds.outcomes[key] = odds.outcomes.get(key, Fraction(0)) + p
        odds.labels.setdefault(key, labels.get(key, key))
        successes[k] = p
    odds.extra["successes"] = {str(k): ratio(p) for k, p in successes.items()}
    return odds


Joint = dict[tuple[str | None, int | None, int | None], Fraction]


def joint_outcomes(request: Any, system: Any, max_paths: int = 20_000) -> Joint | None:
    """The exact probability of each (outcome, total, winning side) of a request, from a
    walk over its resolver (the side only of a contest of three or more sides, else None);
    None when the walk would be long (the caller then rolls instead)."""
    from d20cli.dice.weights import TooCostly

    joint: Joint = {}
    try:
        for weight, den, result in walk(
            lambda roller: system.resolve(request, roller), _totals_provider(), max_paths
        ):
            key = (result.outcome, result.total, _many_sides_winner(result))
            joint[key] = joint.get(key, Fraction(0)) + Fraction(weight, den)
    except TooCostly:
        return None
    return joint


def _many_sides_winner(result: Result) -> int | None:
    """The winning side of a contest of three or more sides (None for any other result)."""
    return result.winner if result.sides is not None and len(result.sides) > 2 else None


def simulate(text: str, system_name: str, rolls: int, seed: int | None) -> Odds:
    """An estimate from `rolls` random rolls (labelled as an estimate)."""
    from d20cli.dice.roller import make_roller
    from d20cli.language.grammar import parse_request
    from d20cli.rules import get_system

    system = get_system(system_name)
    request = parse_request(text)
    roller = make_roller(seed, None, budget=10**12)
    order, labels = _outcome_order(system)
    acc = _Acc()
    for _ in range(rolls):
        acc.add(1, rolls, system.resolve(request, roller))
    odds = acc.odds(request.text, system.id, request.verb, order)
    odds.labels = {**odds.labels, **{k: v for k, v in labels.items() if k in odds.outcomes}}
    odds.estimate = rolls
    _name_sides(odds, request)
    return odds


# --- showing the odds -----------------------------------------------------------------


def chance_of(result: Result, odds: Odds) -> Fraction | None:
    """The probability the odds gave to the outcome this result got (a side of a contest
    of three or more sides winning: that side's chance to win)."""
    if odds.winners is not None and result.winner is not None:
        return odds.winners.get(result.winner)
    key = result.outcome or NO_OUTCOME
    return odds.outcomes.get(key)
