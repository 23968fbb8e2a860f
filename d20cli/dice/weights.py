"""Weight tables: the integer arithmetic behind exact distributions (d20cli.dice.distribution).

A weight table maps a value to an integer weight. Sums convolve tables (big-integer
products when large: Kronecker substitution packs a table into one integer); N identical
dice are one big-integer power; keep/drop is an order-statistics DP. Every step estimates
its cost first and charges a `Budget`, which raises TooCostly past its limit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction

from d20cli.errors import D20Error

Weights = dict[int, int]  # value -> integer weight

#: The exact distributions' limits (d20cli.dice.distribution's defaults): explosions are
#: counted to this depth, and a distribution may take this many steps. Kept here, where
#: the odds engine reads them on every request (its memo's key), without importing the
#: distributions' module before a request needs one.
DEFAULT_EXPLODE_DEPTH = 10
DEFAULT_MAX_STATES = 2_000_000

_SMALL_CONVOLUTION = 4096  # below this many pairs a dict loop beats packing big integers


class TooCostly(D20Error):
    """The exact distribution would take too long to compute."""


class Budget:
    """Counts estimated steps (about 0.5 µs each) and stops before an expensive one.

    `within`: a budget this one's steps are charged to as well (the odds of one request
    within all the odds of one command: `odds compare`, `odds table`); a charge that would
    take either past its limit is refused. What is refused depends on the counted steps
    alone, so a request gets the same answer on a busy machine as on a quiet one.
    `deadline` (a `time.monotonic()` value): a far safety net should an estimate be
    wrong, which no accepted request comes near; every charge past it raises TooCostly."""

    def __init__(
        self, limit: int, text: str, deadline: float | None = None, within: Budget | None = None
    ) -> None:
        self.limit = limit
        self.text = text
        self.spent = 0
        self.within = within
        self.deadline: float | None = (
            within.deadline if deadline is None and within is not None else deadline
        )

    @property
    def left(self) -> int:
        own = max(self.limit - self.spent, 0)
        return own if self.within is None else min(own, self.within.left)

    def charge(self, steps: int, what: str) -> None:
        self.check(steps, what)
        self.spent += steps
        if self.within is not None:
            self.within.charge(steps, what)
        self.on_time()

    def on_time(self) -> None:
        """Raise TooCostly once the deadline has passed (the loops of the arithmetic call
        it as they go, so a wrong estimate still stops there)."""
        if self.within is not None:
            self.within.on_time()
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TooCostly(
                f"the exact odds of '{self.text}' took too long to compute (stopped at "
                "the deadline); estimate them with --simulate N"
            )

    def check(self, steps: int, what: str) -> None:
        """Raise TooCostly if `steps` more would go over the limit (charges nothing)."""
        if self.within is not None:
            self.within.check(steps, what)
        if self.spent + steps > self.limit:
            before = f" after the {self.spent:,} spent" if self.spent else ""
            raise TooCostly(
                f"the exact odds of '{self.text}' are too costly to compute "
                f"('{what}' needs about {steps:,} steps{before}, the limit is {self.limit:,}); "
                "estimate them with --simulate N"
            )


def bigint_cost(bits: int) -> int:
    """Steps for one product of two `bits`-bit integers (Karatsuba, measured)."""
    return int((bits / 30) ** 1.585 / 130)


def digits_cost(values: int, bits: int) -> int:
    """Steps for `values` exact weights of `bits` bits in all made into fractions and
    shown: each reduced, compared and printed (about linear in its length), and the sums
    of the mean and spread over them (products and gcds of `bits`-bit integers, a power
    1.8 of it). Measured: `2d{300 faces}`, 45,150 values of 17 bits, 0.9 s; `2000d6`,
    10,001 of 5,170 bits, 3.3 s; `20000d20kh1`, 20 of 86,439 bits, 7.5 s."""
    return values * (40 + bits // 8) + 40 * int(bits**1.8) // 1000


def mixing_cost(values: int, bits: int) -> int:
    """Steps for weighing `values` weights of `bits` bits into a mixture (`(1d6)d6`)."""
    return values * (2 + bits // 500)


def uniform_power_cost(faces: int, n: int) -> int:
    """Steps for `uniform_power(faces, n)`: half the totals, each a few products of
    integers of n * log2(faces) bits (measured)."""
    return n * (faces - 1) // 2 * (4 + n * faces.bit_length() // 500) + 1


def power_cost(span: int, unit_bits: int, n: int) -> int:
    """Steps for the n-th power of a die with values spanning `span` and weights of
    `unit_bits` bits in total."""
    if n <= 1 or span == 0:
        return span + 1
    slots = n * span + 1
    bits = slots * (n * unit_bits + 8)
    return slots + 2 * bigint_cost(bits // 2)


def product_cost(bits_a: int, bits_b: int) -> int:
    """Steps for one product of integers of these sizes: CPython cuts the longer into
    pieces the size of the shorter and multiplies each, so a long table times a short one
    (`300d20+1d4`) costs about their ratio times one short product, not a long one."""
    short, long = sorted((max(bits_a, 1), max(bits_b, 1)))
    return -(-long // short) * bigint_cost(short) + long // 3000


def convolution_cost(a: Weights, b: Weights) -> int:
    """Steps for `convolve(a, b)`: the pairs, or packing, one product and unpacking."""
    pairs = len(a) * len(b)
    if pairs <= _SMALL_CONVOLUTION or min(len(a), len(b)) == 1:  # (one value: a shift)
        return pairs
    span_a, span_b = max(a) - min(a), max(b) - min(b)
    width = sum(a.values()).bit_length() + sum(b.values()).bit_length() + 8  # a slot's bits
    return 2 * (span_a + span_b + 1) + product_cost((span_a + 1) * width, (span_b + 1) * width)


def keep_cost(values: int, sizes: Sequence[int], keep: int, span: int, unit_bits: int) -> int:
    """Steps for `keep` over `values` distinct values, groups of `sizes` dice (measured)."""
    k = min(keep, sum(sizes))
    if k <= 0:
        return 1
    freedom = math.prod(min(n, k) + 1 for n in sizes) // (k + 1)  # 1 for one group
    per_value = (span * k**3 // 18 + k * k + 1) * max(freedom, 1)
    return values * per_value * (1 + sum(sizes) * unit_bits // 2000)


# ---------------------------------------------------------------------------------------
# Weight-table arithmetic
# ---------------------------------------------------------------------------------------


def add_into(out: Weights, value: int, weight: int) -> None:
    out[value] = out.get(value, 0) + weight


def pack(a: Weights, lo: int, size: int, width: int) -> int:
    """The polynomial sum(w * x**(v - lo)) evaluated at x = 2**(8*width)."""
    coeffs = [0] * size
    for v, w in a.items():
        coeffs[v - lo] = w
    return int.from_bytes(b"".join(c.to_bytes(width, "little") for c in coeffs), "little")


def unpack(packed: int, lo: int, size: int, width: int) -> Weights:
    raw = packed.to_bytes(size * width, "little")
    out: Weights = {}
    for i in range(size):
        w = int.from_bytes(raw[i * width : (i + 1) * width], "little")
        if w:
            out[lo + i] = w
    return out


def convolve(a: Weights, b: Weights) -> Weights:
    """The weights of X + Y for independent X ~ a, Y ~ b."""
    if len(b) == 1:  # a constant (`957d6+8`): a shift, as cheap as the table
        ((y, wy),) = b.items()
        return {x + y: wx * wy for x, wx in a.items()}
    if len(a) == 1:
        return convolve(b, a)
    if len(a) * len(b) <= _SMALL_CONVOLUTION:
        out: Weights = {}
        for x, wx in a.items():
            for y, wy in b.items():
                add_into(out, x + y, wx * wy)
        return out
    alo, blo = min(a), min(b)
    size = (max(a) - alo) + (max(b) - blo) + 1
    width = ((sum(a.values()) * sum(b.values())).bit_length() + 8) // 8
    product = pack(a, alo, size, width) * pack(b, blo, size, width)
    return unpack(product, alo + blo, size, width)


def power(unit: Weights, n: int) -> Weights:
    """The weights of the sum of n independent copies of `unit` (total: total(unit)**n)."""
    if n == 0:
        return {0: 1}
    if n == 1:
        return dict(unit)
    if len(unit) == 1:
        ((v, w),) = unit.items()
        return {v * n: w**n}
    lo = min(unit)
    span = max(unit) - lo
    weight = unit[lo]
    if len(unit) == span + 1 and all(w == weight for w in unit.values()):
        return {lo * n + t: c * weight**n for t, c in enumerate(uniform_power(span + 1, n)) if c}
    size = n * span + 1
    width = ((sum(unit.values()) ** n).bit_length() + 8) // 8
    return unpack(pack(unit, lo, size, width) ** n, lo * n, size, width)


def uniform_power(m: int, n: int) -> list[int]:
    """The coefficients of (1 + x + ... + x**(m-1)) ** n: the ways n dice of faces 0 to
    m-1 make each total 0 to n*(m-1) (NdS shifted down by N).

    A three-term recurrence instead of a big-integer power (`100d20`: about 0.5 ms, not
    20). With P the polynomial and u = (1 - x**m) / (1 - x), u P' = n u' P becomes
    (1 - x)(1 - x**m) P' = n (1 - m x**(m-1) + (m-1) x**m) P, which reads, coefficient
    by coefficient, (t+1) c[t+1] = (t+n) c[t] + (t-m+1-n*m) c[t-m+1] + (n*(m-1)-t+m) c[t-m]
    (the division exact: every c is a whole number). The coefficients are symmetric, so
    only the first half is computed."""
    top = n * (m - 1)
    c = [0] * (top + 1)
    c[0] = 1
    half = top // 2
    back = m - 1
    for t in range(half):
        acc = (t + n) * c[t]
        j = t - back
        if j >= 0:
            acc += (j - n * m) * c[j]
            if j >= 1:
                acc += (n * back - t + m) * c[j - 1]
        c[t + 1] = acc // (t + 1)
    for t in range(half + 1, top + 1):
        c[t] = c[top - t]
    return c


def mapped(a: Weights, f: Callable[[int], int]) -> Weights:
    out: Weights = {}
    for v, w in a.items():
        add_into(out, f(v), w)
    return out


def union(t1: Fraction, t2: Fraction) -> Fraction:
    """P(A or B) for independent events of probabilities t1, t2."""
    return 1 - (1 - t1) * (1 - t2)


# ---------------------------------------------------------------------------------------
# Keep / drop: order statistics over faces
# ---------------------------------------------------------------------------------------


def combos(rem: Sequence[int], allowed: Sequence[bool], limit: int) -> Iterator[tuple[int, ...]]:
    """Tuples a with 0 <= a[i] <= rem[i] (0 where not allowed) and sum(a) <= limit."""
    if not rem:
        yield ()
        return
    top = min(rem[0], limit) if allowed[0] else 0
    for a in range(top + 1):
        for tail in combos(rem[1:], allowed[1:], limit - a):
            yield (a, *tail)


def keep(
    groups: Sequence[tuple[int, Weights]],
    keep: int,
    highest: bool,
    score: Callable[[int], int],
    budget: Budget | None = None,
) -> Weights:
    """The sum of `score(value)` over the `keep` highest (or lowest) of a multiset of dice.

    `groups` are (how many dice, the weights of one die's value); every die is independent.
    The result's weights total prod(total(weights) ** n). The DP walks the distinct values
    from best to worst; a state is (dice of each group placed so far, kept score so far).
    Placing a[i] dice of group i on value v weighs C(r[i], a[i]) * w_i(v) ** a[i]; when the
    kept count is reached, the other dice can be anywhere worse, which is one closed-form
    term: prod((w_i(v) + below_i) ** r_i) minus the placements that do not reach it.
    `budget`: its deadline is watched at every state.
    """
    ns = tuple(n for n, _ in groups)
    totals = [sum(d.values()) for _, d in groups]
    if keep <= 0:
        return {0: math.prod(t**n for t, n in zip(totals, ns, strict=True))}
    values = sorted({v for _, d in groups for v in d}, reverse=highest)
    below = list(totals)  # per group: the weight of the values not reached yet
    states: dict[tuple[int, ...], Weights] = {tuple(0 for _ in ns): {0: 1}}
    out: Weights = {}
    for v in values:
        ws = [d.get(v, 0) for _, d in groups]
        below = [b - w for b, w in zip(below, ws, strict=True)]
        allowed = [w > 0 for w in ws]
        g = score(v)
        new: dict[tuple[int, ...], Weights] = {}
        for placed, sums in states.items():
            if budget is not None:
                budget.on_time()
            need = keep - sum(placed)
            rem = [n - p for n, p in zip(ns, placed, strict=True)]
            full = math.prod((w + b) ** r for w, b, r in zip(ws, below, rem, strict=True))
            partial = 0
            for a in combos(rem, allowed, need - 1):
                term = math.prod(
                    math.comb(r, ai) * w**ai for r, ai, w in zip(rem, a, ws, strict=True)
                )
                rest = math.prod(b ** (r - ai) for b, r, ai in zip(below, rem, a, strict=True))
                partial += term * rest
                if rest == 0:
                    continue  # the other dice would have nowhere left to go
                key = tuple(p + ai for p, ai in zip(placed, a, strict=True))
                target = new.setdefault(key, {})
                shift = sum(a) * g
                for s, w in sums.items():
                    add_into(target, s + shift, w * term)
            done = full - partial
            if done:
                shift = need * g
                for s, w in sums.items():
                    add_into(out, s + shift, w * done)
        states = new
    return out


# ---------------------------------------------------------------------------------------
# The calculator
# ---------------------------------------------------------------------------------------


def reduced(weights: Weights) -> Weights:
    """The same distribution with the weights divided by their gcd."""
    g = math.gcd(*weights.values())
    return weights if g == 1 else {v: w // g for v, w in weights.items()}
