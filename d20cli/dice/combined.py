"""Exact distributions of functions (`max(1d6,1d8)`, `ceil(1d6/2)`), groups
(`{4d6,3d8}kh1`, `{3d6,2d10}>=10`) and mixtures (computed counts and sides), for
`d20cli.dice.distribution`'s calculator: the same rules as rolling (`call_value`,
`exact_step`, the group's keep order and pool score), the same budget."""

from __future__ import annotations

import math
from fractions import Fraction

from d20cli.dice.arith import ROUNDING, call_value, exact_step
from d20cli.dice.evaluate import too_large
from d20cli.dice.tree import MAX_TOTAL, Arithmetic, Call, Expr, Group, Neg
from d20cli.dice.weights import (
    Budget,
    Weights,
    add_into,
    convolution_cost,
    convolve,
    keep,
    keep_cost,
    mapped,
    power,
    power_cost,
    reduced,
    union,
)
from d20cli.errors import DiceError
from d20cli.number_format import short_fraction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Calculator(Protocol):
        """What these need of the distribution calculator."""

        budget: Budget

        def eval(self, e: Expr) -> tuple[Weights, Fraction]: ...


def mixture(
    chances: Weights, parts: dict[int, tuple[Weights, Fraction]], before: Fraction
) -> tuple[Weights, Fraction]:
    """The distribution that is `parts[k]` with weight `chances[k]` (a computed count or
    computed sides); `before` is the truncated mass of what picked k."""
    common = math.lcm(*(sum(w.values()) for w, _ in parts.values()))
    out: Weights = {}
    truncated = Fraction(0)
    total = sum(chances.values())
    for k, (weights, t) in parts.items():
        factor = chances[k] * (common // sum(weights.values()))
        for v, w in weights.items():
            add_into(out, v, w * factor)
        truncated += Fraction(chances[k], total) * t
    return reduced(out), min(Fraction(1), before + truncated)


def call_weights(self: Calculator, e: Call) -> tuple[Weights, Fraction]:
    """`max(1d6,1d8)`: every combination of the arguments' values, one pair at a time;
    `ceil(1d6/2)`: the argument's exact values, rounded."""
    if e.name in ROUNDING:
        exact, truncated = exact_weights(self, e.args[0])
        out: Weights = {}
        for v, w in exact.items():
            add_into(out, call_value(e.name, [v]), w)
        return reduced(out), truncated
    acc, truncated = self.eval(e.args[0])
    if len(e.args) == 1:
        return reduced(mapped(acc, lambda v: call_value(e.name, [v]))), truncated
    for x in e.args[1:]:
        other, t = self.eval(x)
        truncated = union(truncated, t)
        self.budget.charge(2 * len(acc) * len(other), str(e))
        out = {}
        for a, wa in acc.items():
            for b, wb in other.items():
                add_into(out, call_value(e.name, [a, b]), wa * wb)
        acc = reduced(out)
    return acc, truncated


def exact_weights(self: Calculator, e: Expr) -> tuple[dict[Fraction, int], Fraction]:
    """The values of `e` with `/` dividing exactly (as the evaluator's `exact`)."""
    if isinstance(e, Neg):
        inner, truncated = exact_weights(self, e.operand)
        return {-v: w for v, w in inner.items()}, truncated
    if not isinstance(e, Arithmetic):
        weights, truncated = self.eval(e)
        return {Fraction(v): w for v, w in weights.items()}, truncated
    acc, truncated = exact_weights(self, e.first)
    for op, x in e.rest:
        other, t = exact_weights(self, x)
        truncated = union(truncated, t)
        self.budget.charge(2 * len(acc) * len(other), str(e))
        zero = other.get(Fraction(0), 0)
        if op in "/%" and zero:
            p = Fraction(zero, sum(other.values()))
            raise DiceError(
                f"division by zero in '{e}': '{x}' can be 0 (probability {short_fraction(p)})"
            )
        out: dict[Fraction, int] = {}
        for a, wa in acc.items():
            for b, wb in other.items():
                v = exact_step(a, op, b)
                out[v] = out.get(v, 0) + wa * wb
        if max(abs(v) for v in out) > MAX_TOTAL:
            raise DiceError(too_large(e))
        g = math.gcd(*out.values())
        acc = {v: w // g for v, w in out.items()}
    return acc, truncated


def group_weights(self: Calculator, e: Group) -> tuple[Weights, Fraction]:
    """`{4d6,3d8}kh1`: the keep DP over the items' totals (identical items merged);
    without keep/drop, the sum (or pool count) of independent items."""
    truncated = Fraction(0)
    parts: list[tuple[int, Weights]] = []
    for x in e.items:
        weights, t = self.eval(x)
        truncated = union(truncated, t)
        for i, (n, w) in enumerate(parts):
            if w == weights:
                parts[i] = (n + 1, w)
                break
        else:
            parts.append((1, weights))
    score = (lambda v: v) if e.pool is None else e.pool.score
    n = len(e.items)
    k = e.kept_count()
    if k >= n:
        acc: Weights = {0: 1}
        for count, w in parts:
            unit = mapped(w, score)
            self.budget.charge(power_cost(max(unit) - min(unit), 8, count), str(e))
            part = power(unit, count)
            self.budget.charge(convolution_cost(acc, part), str(e))
            acc = convolve(acc, part)
        return reduced(acc), truncated
    assert e.keep is not None
    values = {v for _, w in parts for v in w}
    span = max(values) - min(values) if e.pool is None else 2
    bits = max(sum(w.values()) for _, w in parts).bit_length()
    sizes = [count for count, _ in parts]
    self.budget.charge(keep_cost(len(values), sizes, k, span, bits), str(e))
    highest = e.keep.kind in ("kh", "dl")
    return reduced(keep(parts, k, highest, score, self.budget)), truncated
