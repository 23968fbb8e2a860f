"""Whole-number arithmetic the dice tree shares: the functions over expressions (`max`,
`ceil`, ...) as one rule for rolling and exact odds, exact steps for the rounding
functions, and the interval arithmetic of bounds (`d20cli.dice.tree`)."""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction

#: The functions over expressions and how many arguments each takes (0: one or more).
FUNCTIONS: dict[str, int] = {"abs": 1, "ceil": 1, "floor": 1, "round": 1, "max": 0, "min": 0}
ROUNDING = ("ceil", "floor", "round")


def call_value(name: str, values: list[int] | list[Fraction]) -> int:
    """A function's value: the one rule rolling and the exact odds share."""
    from fractions import Fraction  # (exact arithmetic: imported where it is used)

    exact = [Fraction(v) for v in values]
    if name == "max":
        return math.floor(max(exact))
    if name == "min":
        return math.floor(min(exact))
    v = exact[0]
    if name == "abs":
        return math.floor(abs(v))
    if name == "ceil":
        return math.ceil(v)
    if name == "round":  # half up, as Roll20 and rpg-dice-roller (Math.round)
        return math.floor(v + Fraction(1, 2))
    return math.floor(v)


def exact_step(a: Fraction, op: str, b: Fraction) -> Fraction:
    """One step of exact arithmetic (`/` divides exactly; the caller rules out zero)."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "%":
        return a % b
    return a / b


def mul(a: float, b: float) -> float:
    """a * b for bounds, where 0 times an infinity is 0."""
    if a == 0 or b == 0:
        return 0.0
    return a * b


def as_int(x: float) -> int | float:
    return x if math.isinf(x) else int(x)


def floordiv_bounds(
    lo: float, hi: float, dlo: float, dhi: float, exact: bool = False
) -> tuple[float, float]:
    """The bounds of `x / d` for x in [lo, hi] and a whole d in [dlo, dhi], rounded down,
    or `exact` (inside ceil, floor and round): a whole divisor other than 0 is at least 1
    across, so the corners and +-1 bound it."""
    if any(math.isinf(v) for v in (lo, hi, dlo, dhi)):
        return (-math.inf, math.inf)
    divisors = [d for d in (dlo, dhi, -1.0, 1.0) if d != 0 and dlo <= d <= dhi]
    if not divisors:
        return (0.0, 0.0)  # always a division by zero: an error, never a total
    if exact:
        c = [a / d for a in (lo, hi) for d in divisors]
    else:
        c = [float(int(a) // int(d)) for a in (lo, hi) for d in divisors]
    return (min(c), max(c))


def mod_bounds(
    lo: float, hi: float, dlo: float, dhi: float, exact: bool = False
) -> tuple[float, float]:
    """The bounds of `x % d` (the remainder has the divisor's sign, as Python's); `exact`:
    x may be a fraction, whose remainder comes closer to d than a whole one."""
    if any(math.isinf(v) for v in (dlo, dhi)):
        return (-math.inf, math.inf)
    if dlo > 0 and lo >= 0 and hi < dlo:
        return (lo, hi)  # smaller than every divisor: itself
    top = max(abs(dlo), abs(dhi)) - (0 if exact else 1)
    return (-top if dlo < 0 else 0.0, top if dhi > 0 else 0.0)


class Bounded:
    """A node that knows the bounds of its total (`bounds()`, as floats: infinities for
    explosions) and gives them as whole numbers where finite."""

    __slots__ = ()

    def bounds(self) -> tuple[float, float]:
        raise NotImplementedError  # abstract: every node class (tree.py) gives its own bounds

    def min_total(self) -> int | float:
        return as_int(self.bounds()[0])

    def max_total(self) -> int | float:
        return as_int(self.bounds()[1])
