"""Exact probability distributions of dice expressions (`d20 odds roll EXPR`, the odds engine).

Pure Python and exact: integer weights, `Fraction` probabilities, no floats.

    distribution(parse_expression("4d6dl1"))   # Dist: {3: 1, 4: 4, ..., 18: 21} / 1296
    branches(expr)                             # ((3, 1), (4, 4), ...) for the replay roller

How each part is computed (never by enumerating every roll):

- One die is a weight table over its faces: uniform; `r` (reroll while it matches) is
  uniform over the faces that do not match; `ro` (once) gives a face weight
  `n*[face does not match] + m` over `n*n` (m = faces that match); `mi`/`ma` clamp faces.
- Sums of N identical dice: the N-th power of the die's generating polynomial, computed
  with Python's big-integer `**` on the polynomial packed into one integer (Kronecker
  substitution), so `100d20` is one big-integer power.
- Keep/drop (`kh kl dh dl`): an order-statistics DP over the faces from best to worst, with
  states (dice placed so far, sum of the kept ones); once the kept count is reached the
  remaining dice are accounted for in one closed-form term, so `30d6kh10` is a few thousand
  steps. Pools (`>=7 f1`) are the same DP with each kept die scoring +1/-1/0.
- Explosions (`!`, compound `!!`) follow each die's chain up to `explode_depth` extra dice.
  Non-compound explosions with keep/drop split the dice into "exploding faces" and "the
  face that stopped a chain" and run the keep DP on that two-kind multiset.
- Computed counts (`(1d4)d6`) and sides (`1d(1d4+2)`) are mixtures over their values;
  custom faces (`d{0,0,1,2}`) weigh each value by how many faces show it; `+ -` convolve
  (big-integer products again when large), `* /` combine every pair of values (`/` floors,
  as the roller does).

Decisions:

- Explosion depth: `explode_depth` is the most extra dice one die may add (icepool's
  `depth`). A die at the cap keeps its last face and does not explode again (icepool's
  default `end`). So the counts always sum exactly to `denominator` (every probability is
  that of the capped roll), and `Dist.truncated` is the probability that at least one chain
  reached the cap on an exploding face: the mass whose true total would have been higher.
  It is exact for independent terms (combined as 1 - prod(1 - t)); when a dice count itself
  explodes (`(1d6!)d6`) it is an upper bound (union bound). 0 when nothing can explode.
- An explosion or `r` reroll that could never stop (`1d1!`, `1d2r<3`) is a DiceError, as
  when rolling; so is a possible division by zero (`10/(1d4-1)`) or a possibly negative dice
  count (`(1d4-2)d6`): the odds of a request that can fail are not a distribution.
- Cost: every step estimates its work before doing it and charges a budget of `max_states`
  (about a second of work); going over raises `TooCostly`, which suggests `--simulate N`.
  The work includes what the weights cost once made (`weights.digits_cost`: how many
  totals x how many digits; `1000000d6kh1` is six totals of 2.6 million bits, whose
  fractions would take minutes), checked for each term before it is computed and charged
  for the whole distribution at the end. A custom die is costed by the span of its
  values (`d{1,1000000}` packs a million slots), not by its number of faces.
- `branches(expr)` is `distribution(expr)` as (total, weight) pairs with the weights reduced
  by their gcd, the same cap; None when the exact distribution is too costly (the caller
  then rolls die by die or simulates) and for objects that are not dice expressions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from d20cli.dice.combined import call_weights, group_weights, mixture
from d20cli.dice.evaluate import too_large
from d20cli.dice.exploding import chain, exploded_keep, exploded_keep_cost, unique
from d20cli.dice.modifiers import Compare, Score, Unit
from d20cli.dice.tree import (
    MAX_SIDES,
    MAX_TOTAL,
    Arithmetic,
    Call,
    Dice,
    Expr,
    Group,
    Neg,
    Number,
    Ref,
)

# (the defaults, kept in weights: the odds engine reads them without importing this module)
from d20cli.dice.weights import DEFAULT_EXPLODE_DEPTH as DEFAULT_EXPLODE_DEPTH
from d20cli.dice.weights import DEFAULT_MAX_STATES as DEFAULT_MAX_STATES
from d20cli.dice.weights import (
    Budget,
    TooCostly,
    Weights,
    add_into,
    convolution_cost,
    convolve,
    digits_cost,
    keep,
    keep_cost,
    mapped,
    mixing_cost,
    power,
    power_cost,
    reduced,
    uniform_power_cost,
    union,
)
from d20cli.errors import DiceError
from d20cli.frozen import field, frozen
from d20cli.number_format import short_fraction

# ---------------------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------------------


@frozen
class Dist:
    """An exact distribution: P(total) = counts[total] / denominator.

    The counts are positive integers that sum exactly to `denominator` (reduced by their
    common gcd). `truncated` is the probability that an explosion chain was cut at the
    depth cap (see the module docstring): that mass is already inside `counts`, on the
    capped totals, so the probabilities always sum to 1.
    """

    counts: dict[int, int]
    denominator: int
    truncated: Fraction = field(default=Fraction(0))

    def probability(self, total: int) -> Fraction:
        return Fraction(self.counts.get(total, 0), self.denominator)

    def mean(self) -> Fraction:
        return Fraction(sum(t * w for t, w in self.counts.items()), self.denominator)

    def variance(self) -> Fraction:
        square = Fraction(sum(t * t * w for t, w in self.counts.items()), self.denominator)
        return square - self.mean() ** 2

    @property
    def min(self) -> int:
        return min(self.counts)

    @property
    def max(self) -> int:
        return max(self.counts)

    def items(self) -> list[tuple[int, Fraction]]:
        """(total, probability) pairs, lowest total first."""
        return [(t, Fraction(w, self.denominator)) for t, w in sorted(self.counts.items())]

    def fractions(self) -> dict[int, Fraction]:
        """{total: probability}, lowest total first."""
        return dict(self.items())

    def branches(self) -> tuple[tuple[int, int], ...]:
        """(total, weight) pairs, lowest total first; the weights sum to `denominator`."""
        return tuple(sorted(self.counts.items()))


def distribution(
    expr: Expr,
    explode_depth: int = DEFAULT_EXPLODE_DEPTH,
    max_states: int = DEFAULT_MAX_STATES,
    budget: Budget | None = None,
) -> Dist:
    """The exact distribution of `expr`'s total.

    Raises TooCostly when it would take more than about `max_states` steps (or more than
    `budget`, a budget the caller shares between several computations, has left),
    DiceError for expressions that cannot always be rolled (see the module docstring).
    """
    if explode_depth < 0:
        raise ValueError("explode_depth must be >= 0")
    calc = _Calculator(explode_depth, budget or Budget(max_states, str(expr)))
    weights, truncated = calc.eval(expr)
    bits = sum(weights.values()).bit_length()
    calc.budget.charge(digits_cost(len(weights), bits), str(expr))  # the caller's fractions
    return _make_dist(weights, truncated)


def branches(
    expr: object, explode_depth: int = DEFAULT_EXPLODE_DEPTH, budget: Budget | None = None
) -> tuple[tuple[int, int], ...] | None:
    """`expr`'s totals as (total, weight) pairs for the odds engine's replay roller.

    None if `expr` is not a dice expression or (without a `budget`) its exact distribution
    is too costly; with a `budget`, TooCostly propagates. DiceError (a possible division
    by zero, ...) propagates: the request can fail.
    """
    if not isinstance(expr, Number | Dice | Neg | Arithmetic | Call | Group | Ref):
        return None
    try:
        return distribution(expr, explode_depth, budget=budget).branches()
    except TooCostly:
        if budget is not None:
            raise
        return None


def _make_dist(weights: Weights, truncated: Fraction) -> Dist:
    counts = {t: w for t, w in sorted(weights.items()) if w}
    total = sum(counts.values())
    g = math.gcd(*counts.values()) if counts else 1
    return Dist({t: w // g for t, w in counts.items()}, total // g, truncated)


# ---------------------------------------------------------------------------------------
# Cost
# ---------------------------------------------------------------------------------------


def _faces(e: Dice) -> list[int]:
    """Every face of one die by value (a custom die's repeated values repeated)."""
    if isinstance(e.sides, int) and not 1 <= e.sides <= MAX_SIDES:
        raise DiceError(f"'{e}': a die needs 1 to {MAX_SIDES:,} sides, not {e.sides}")
    return e.face_values()


def _pool_score(e: Dice) -> Callable[[int], int]:
    pool = e.pool
    if pool is None:
        return lambda v: v

    return pool.score


def _link(e: Dice) -> Weights:
    """The natural face of one roll of one die, after its rules' steps (`Rule.link`: a
    reroll; weighted by how many faces show the value, for custom dice)."""
    faces = _faces(e)
    counts: Weights = {}
    for f in faces:
        add_into(counts, f, 1)
    for rule in e.rules:
        counts = rule.link(counts)
        if not counts:
            raise DiceError(f"'{e}' would reroll forever: every face matches '{rule}'")
    return counts


class _Calculator:
    """The calculator; a modifier's exact-odds step (`Rule.weights`, `Rule.whole_cost`)
    asks it for the weight arithmetic (`modifiers.Odds`)."""

    def __init__(self, depth: int, budget: Budget) -> None:
        self.depth = depth
        self.budget = budget

    def eval(self, e: Expr) -> tuple[Weights, Fraction]:
        """(weights, truncated) of `e`."""
        if isinstance(e, Number):
            return {e.value: 1}, Fraction(0)
        if isinstance(e, Neg):
            weights, truncated = self.eval(e.operand)
            return {-v: w for v, w in weights.items()}, truncated
        if isinstance(e, Dice):
            return self.dice(e)
        if isinstance(e, Arithmetic):
            return self.arithmetic(e)
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, Group):
            return self.group(e)
        raise e.unresolved() if isinstance(e, Ref) else TypeError(f"not a dice expression: {e!r}")

    # -- arithmetic -----------------------------------------------------------------

    def arithmetic(self, e: Arithmetic) -> tuple[Weights, Fraction]:
        acc, truncated = self.eval(e.first)
        for op, x in e.rest:
            other, t = self.eval(x)
            truncated = union(truncated, t)
            if op in "+-":
                if op == "-":
                    other = {-v: w for v, w in other.items()}
                self.budget.charge(convolution_cost(acc, other), str(e))
                acc = convolve(acc, other)
                continue
            self.budget.charge(2 * len(acc) * len(other), str(e))  # a dict update per pair
            if op in "/%" and 0 in other:
                raise DiceError(
                    f"division by zero in '{e}': '{x}' can be 0 "
                    f"(probability {short_fraction(Fraction(other[0], sum(other.values())))})"
                )
            out: Weights = {}
            for a, wa in acc.items():
                for b, wb in other.items():
                    add_into(out, a * b if op == "*" else a % b if op == "%" else a // b, wa * wb)
            if op == "*" and max(abs(min(out)), abs(max(out))) > MAX_TOTAL:
                raise DiceError(too_large(e))
            acc = reduced(out)
        return acc, truncated

    def call(self, e: Call) -> tuple[Weights, Fraction]:
        return call_weights(self, e)

    def group(self, e: Group) -> tuple[Weights, Fraction]:
        return group_weights(self, e)

    # -- dice -----------------------------------------------------------------------

    def dice(self, e: Dice) -> tuple[Weights, Fraction]:
        if e.computed:
            return self.computed_sides(e)
        if isinstance(e.count, int):
            return self.term(e, e.count)
        most = e.count.bounds()[1]  # the largest count alone may already be too much
        if math.isfinite(most) and most > 0:
            self.budget.check(self.term_cost(e, int(most)), str(e))
        counts, count_truncated = self.eval(e.count)
        if min(counts) < 0:
            raise DiceError(f"'{e}' can roll {min(counts)} dice: the count must not be negative")
        if len(counts) == 1:
            weights, truncated = self.term(e, next(iter(counts)))
            return weights, union(count_truncated, truncated)
        # the whole mixture's cost, before any of it is done
        estimates = [self._term_estimate(e, n) for n in counts]
        self.budget.charge(sum(w + mixing_cost(v, b) for w, v, b in estimates), str(e))
        parts = {n: self.compute_term(e, n) for n in counts}
        return mixture(counts, parts, count_truncated)

    def computed_sides(self, e: Dice) -> tuple[Weights, Fraction]:
        """`1d(1d4+2)`: a mixture over the sides' values, as rolling makes the die."""
        sides, truncated = self.eval(e.sides)  # type: ignore[arg-type]
        bad = [s for s in (min(sides), max(sides)) if not 1 <= s <= MAX_SIDES]
        if bad:
            raise DiceError(f"'{e}' can roll a d{bad[0]}: a die needs 1 to {MAX_SIDES:,} sides")
        parts = {}
        for s in sides:
            term = e.with_sides(s)
            problem = term.limit_problem()
            if problem is not None:
                raise DiceError(problem)
            parts[s] = self.dice(term)
        return mixture(sides, parts, truncated)

    def term_cost(self, e: Dice, n: int) -> int:
        """Estimated steps of `self.term(e, n)`, from the sizes alone (no tables built).

        For non-compound explosions with keep/drop it includes the splits' DP and the keep
        DP of each split (`exploding.exploded_keep_cost`).
        """
        return self._term_estimate(e, n)[0]

    def _term_estimate(self, e: Dice, n: int) -> tuple[int, int, int]:
        """(`term_cost`, about how many values its weights have, how many bits they
        total): what the weights cost to carry on (as fractions, in `distribution`;
        into a mixture, in `dice`) is measured from the last two. A counted unit's cost
        goes through each rule's step (`Rule.unit`), unless a rule computes the whole
        term itself (`Rule.whole_cost`)."""
        faces = len(_faces(e))
        custom = e.custom
        # the values' span (not the faces': `d{1,1000}` packs 1,000 slots) and how many differ
        span = faces - 1 if custom is None else max(custom) - min(custom)
        values = span + 1 if custom is None else len(set(custom))
        # building, clamping and sorting the face table (`mi`/`ma` make it not uniform)
        u = Unit(3 * faces, span, values, faces.bit_length(), custom is None, faces)
        for rule in e.rules:
            whole = rule.whole_cost(self, e, n, u)
            if whole is not None:
                return whole
            u = rule.unit(e, self.depth, u)
        work, span, values, unit_bits = u.work, u.span, u.values, u.bits
        kept = n if e.keep is None else e.keep.kept_count(n)
        shape = kept * span + 1, n * unit_bits
        if kept < n:
            return work + keep_cost(values, [n], kept, span, unit_bits), *shape
        if u.uniform:
            return work + uniform_power_cost(faces, n), *shape  # `power` takes the recurrence
        return work + power_cost(span, unit_bits, n), *shape

    def term(self, e: Dice, n: int) -> tuple[Weights, Fraction]:
        """(weights, truncated) of `e` rolled with `n` dice; refused before any work
        when its weights alone would cost too much as fractions."""
        work, values, bits = self._term_estimate(e, n)
        self.budget.charge(work, str(e))
        self.budget.check(digits_cost(values, bits), str(e))
        return self.compute_term(e, n)

    def compute_term(self, e: Dice, n: int) -> tuple[Weights, Fraction]:
        """`term` without charging the budget (the caller has): by the first rule that
        computes the term's weights itself (`Rule.weights`: an explosion, `u`), else as
        n independent clamped dice."""
        link = _link(e)
        score = _pool_score(e)
        highest = e.keep is not None and e.keep.highest
        for rule in e.rules:
            out = rule.weights(self, e, n, link, score, highest)
            if out is not None:
                weights, truncated = out
                return weights, Fraction(0) if truncated is None else truncated
        unit = mapped(link, lambda f: e.clamp(f))
        return self.units(e, n, unit, score, highest), Fraction(0)

    # -- the weight arithmetic a modifier's step asks for (`modifiers.Odds`) ------------

    def power(self, unit: Weights, n: int) -> Weights:
        return power(unit, n)

    def chain(
        self, depth: int, link: Weights, point: Compare, value: Score, extra_value: Score
    ) -> Weights:
        return chain(depth, link, point, value, extra_value)

    def exploded_keep(
        self,
        depth: int,
        e: Dice,
        n: int,
        link: Weights,
        point: Compare,
        score: Score,
        highest: bool,
    ) -> Weights:
        return exploded_keep(self.budget, depth, e, n, link, point, score, highest)

    def exploded_keep_cost(self, e: Dice, n: int, d: int, bits: int) -> int:
        return exploded_keep_cost(e, n, d, _faces(e), bits)

    def unique(self, e: Dice, n: int, link: Weights, score: Score, highest: bool) -> Weights:
        return unique(e, n, link, score, highest)

    def units(self, e: Dice, n: int, unit: Weights, score: Score, highest: bool) -> Weights:
        """n independent dice of value weights `unit`, kept and scored per `e`."""
        if e.keep is None or e.keep.kept_count(n) >= n:
            return power(mapped(unit, score), n)
        return keep([(n, unit)], e.keep.kept_count(n), highest, score, self.budget)
