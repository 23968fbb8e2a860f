"""The walk: a resolver replayed with a `ReplayRoller` until every path has run.

The roller answers every question a resolver asks ("a face from 1 to 20", "the kept d20
with advantage", "the total of 1d4+2", "a tie-break round of k d20s") with one branch of
the answer, and remembers the branches it did not take; `walk` replays each untaken branch,
depth first. Each path's probability is the product of its branches' weights, kept as
exact integers. Coarse questions keep the walk short: the kept d20 of an advantage roll is
one question with 20 weighted answers (not 400 pairs), and a whole modifier expression is
one question answered from its exact distribution. Before the walk, its size is estimated
from the first path (and a spread second path) and refused past MAX_PATHS.
Damage, which no outcome depends on, asks no question at all: its whole distribution is
kept beside the path and convolved into the odds (`paths(..., convolve_damage=True)`).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator

from d20cli.dice.roller import Roller
from d20cli.dice.weights import Budget, TooCostly
from d20cli.results import Result

MAX_PATHS = 50_000  # resolver runs one odds request may take before it gives up

# The whole cost of one odds request, in the steps of `d20cli.dice.weights.Budget` (about
# 0.5 µs each): the exact distributions of its modifiers and damage, and the walk, whose
# every path costs PATH_STEPS (one resolver run: 15-70 µs measured) plus two steps for
# each question it asks and each die it rolls. The walk's cost is estimated from its
# first path before it goes on (cases x work per case); past the limit the request is
# refused. All the odds one command computes (`odds compare`, `odds table`) share
# COMMAND_STEPS. Which requests are refused is decided by the counted steps alone;
# ODDS_DEADLINE is a far safety net should an estimate be wrong (an accepted request
# takes about 3 s at most on the development machine), never what decides a refusal.
ODDS_STEPS = 6_000_000
COMMAND_STEPS = 20_000_000  # three requests at ODDS_STEPS in one `odds compare`
PATH_STEPS = 100
ODDS_DEADLINE = 120.0  # seconds
MAX_PATH_DICE = 10_000  # dice one replayed case may roll (a reroll walk never ends)


def odds_budget(text: str, within: Budget | None = None) -> Budget:
    """The budget one odds request shares between its distributions and its walk, charged
    to `within` as well when the request is one of a command's many (`command_budget`)."""
    return Budget(ODDS_STEPS, text, time.monotonic() + ODDS_DEADLINE, within)


def command_budget(text: str) -> Budget:
    """The budget all the odds of one command share (`odds compare`, `odds table`)."""
    return Budget(COMMAND_STEPS, text, time.monotonic() + ODDS_DEADLINE)


def _too_costly(detail: str) -> TooCostly:
    return TooCostly(f"the exact odds need {detail}; estimate them with --simulate N")


def refuse_cases(cases: int, steps: int, budget: Budget, max_paths: int) -> None:
    """TooCostly for `cases` cases of `steps` budget steps each when they are more than
    `max_paths` or than what `budget` has left (nothing is charged here)."""
    if cases > max_paths:
        raise _too_costly(f"more than {max_paths:,} cases")
    if cases * steps > budget.left:
        binding = budget  # the budget whose steps run out: the request's or its command's
        while binding.within is not None and binding.within.left < binding.limit - binding.spent:
            binding = binding.within
        whose = "" if binding is budget else f" for all the odds of '{binding.text}'"
        raise _too_costly(
            f"about {cases:,} cases of {steps:,} steps each, more than the "
            f"{budget.left:,} steps left of {binding.limit:,}{whose}"
        )


Branches = tuple[tuple[int, int], ...]  # (value, weight) pairs


_D20_ADV: Branches = tuple((k, 2 * k - 1) for k in range(1, 21))


_D20_DIS: Branches = tuple((k, 41 - 2 * k) for k in range(1, 21))


_D20_PAIRS = 400  # the summed weight of either


# `lucky` (a 1 rolled once more): one die shows 1 with weight 1 and any other face with
# weight 21 (of 400). Kept of two such dice: the higher (lowest) face is k with weight
# c(k)^2 - c(k-1)^2 (s(k)^2 - s(k+1)^2), c(k) the weight of k or less, s(k) of k or more.
def _lucky_tables() -> tuple[Branches, Branches, Branches]:
    at_most = [0] + [1 + 21 * (k - 1) for k in range(1, 21)]
    one = tuple((k, 1 if k == 1 else 21) for k in range(1, 21))
    adv = tuple((k, at_most[k] ** 2 - at_most[k - 1] ** 2) for k in range(1, 21))
    dis = tuple((k, (400 - at_most[k - 1]) ** 2 - (400 - at_most[k]) ** 2) for k in range(1, 21))
    return one, adv, dis


_LUCKY, _LUCKY_ADV, _LUCKY_DIS = _lucky_tables()


MAX_ROUND_DICE = 12  # dice of one tie-break round the walk answers (2**12 - 2 branches)


class WalkTables:
    """What the rollers of one walk share, made once per walk rather than on every path
    (a walk keeps none of them for the next; only whole answers are remembered, in
    memo.py): the branch table of each die size, and the summed weight of each table."""

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
            if count > MAX_ROUND_DICE:  # the walk of so many sides' d20s is longer still
                raise _too_costly(f"more than {MAX_PATHS:,} cases")
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
        convolve_damage: bool = False,
    ) -> None:
        """`tables`: shared by the rollers of one walk. Past the end of `path`, the roller
        takes the first branch of each question, or with a `stride` the branch `stride`
        times the question's position (wrapped): a probe path whose d20s differ.
        `convolve_damage`: a damage expression asks no question; its whole distribution is
        kept in `damage` (no outcome depends on it) and the caller weighs it in."""
        super().__init__(budget=MAX_PATH_DICE)
        self.stride = stride
        self.convolve_damage = convolve_damage
        self.damage: Branches | None = None
        self.path = path
        self.totals = totals
        self.tables = tables if tables is not None else WalkTables()
        self.trace: list[Branches] = []
        self.taken: list[int] = []
        self.weight = 1
        self.denominator = 1

    def charge(self, n: int, what: str = "this request") -> None:
        if self.count + n > self.budget:
            raise _too_costly(f"more than {MAX_PATH_DICE:,} dice in one case")

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

    def d20s(self, net: int, lucky: bool = False) -> tuple[int, ...]:
        if lucky:  # faces whose kept face is the chosen one (a 1 kept: every die a 1 twice)
            if net == 0:
                kept = self._choose(_LUCKY, 400)
                return (1, 1) if kept == 1 else (kept,)
            kept = self._choose(_LUCKY_ADV if net > 0 else _LUCKY_DIS, 160_000)
            return (1, 1, 1, 1) if kept == 1 else (kept, kept)
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

    def preset_total(self, expr: object, role: str = "modifier") -> int | None:
        if self.totals is None:
            return None
        branches = self.totals(expr)
        if branches is None:
            return None
        if role == "damage" and self.convolve_damage:
            self.damage = branches
            return branches[0][0]
        return self._choose(branches, self.tables.weight(branches))

    def cost(self) -> int:
        """This path's work in budget steps (see ODDS_STEPS)."""
        return PATH_STEPS + 2 * (len(self.trace) + self.count + len(self.damage or ()))


def walk(
    run: Callable[[Roller], Result],
    totals: Callable[[object], Branches | None] | None = None,
    max_paths: int = MAX_PATHS,
    budget: Budget | None = None,
) -> Iterator[tuple[int, int, Result]]:
    """Every path of `run` as (weight, denominator, result); the weights over the
    denominators sum to 1."""
    for weight, den, result, _ in paths(run, totals, max_paths, budget):
        yield weight, den, result


def paths(
    run: Callable[[Roller], Result],
    totals: Callable[[object], Branches | None] | None = None,
    max_paths: int = MAX_PATHS,
    budget: Budget | None = None,
    convolve_damage: bool = False,
) -> Iterator[tuple[int, int, Result, Branches | None]]:
    """Every path of `run` as (weight, denominator, result, damage): `damage` is the
    distribution of the path's damage when `convolve_damage` keeps it aside (the result's
    damage total is then a placeholder), else None.

    Before the walk goes past its first path, its whole cost is estimated (the number of
    paths times the first path's work) and the request refused when that is over
    `max_paths` cases or over what `budget` has left; every path is charged as it runs,
    so a wrong estimate stops at the budget or its deadline."""
    if budget is None:
        budget = odds_budget("this request")
    stack: list[list[int]] = [[]]
    tables = WalkTables()
    count = 0
    while stack:
        path = stack.pop()
        roller = ReplayRoller(path, totals, tables, convolve_damage=convolve_damage)
        result = run(roller)
        count += 1
        cost = roller.cost()
        if count > max_paths:
            raise _too_costly(f"more than {max_paths:,} cases")
        if count == 1:
            refuse_cases(_estimate(run, roller, totals, max_paths), cost, budget, max_paths)
        budget.charge(cost, "one case")
        taken = roller.taken
        for pos in range(len(path), len(roller.trace)):
            for alt in range(1, len(roller.trace[pos])):
                stack.append([*taken[:pos], alt])
        yield roller.weight, roller.denominator, result, roller.damage


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
        probe = ReplayRoller(
            [], totals, first.tables, stride=PROBE_STRIDE, convolve_damage=first.convolve_damage
        )
        run(probe)
        estimate = min(estimate, math.prod(len(b) for b in probe.trace))
    return estimate
