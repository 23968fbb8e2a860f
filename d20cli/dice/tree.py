"""The dice-expression syntax tree (`2d6+3`, `4d6kh3`, `1d10!`): frozen dataclasses whose
`str(e)` is the normalised text and parses back to `e`. The grammar that builds it is
`d20cli.language.dice_grammar`; `d20cli.dice.evaluate` rolls it.

- `Number(value, label)`: a non-negative integer (`3`, `3[bonus]`).
- `Dice(count, sides, reroll, explode, minimum, maximum, keep, pool, label, unique, crit,
  sort)`: a dice term.
  `count` is an int or a parenthesised expression (`(1+1)d6`); `sides` is an int, `"%"`
  (d%, 1..100) or `"F"` (Fudge, -1..+1).
- `Neg(operand)`: unary minus.
- `Arithmetic(first, rest)`: a left-associative chain of operators of one precedence
  level (`+ -` or `* /`). Chains instead of binary nodes keep the tree shallow for long
  sums such as `1+1+1+...`, so nothing recurses thousands of levels deep.

Each node knows its bounds (`min_total`, `max_total`), which the budget and the odds use
before anything is rolled. Sides must be 1..MAX_SIDES (1,000,000).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from d20cli.dice.modifiers import COMPARE_OPS as COMPARE_OPS
from d20cli.dice.modifiers import KEEP_KINDS as KEEP_KINDS
from d20cli.dice.modifiers import Compare as Compare
from d20cli.dice.modifiers import CompareOp as CompareOp
from d20cli.dice.modifiers import Crit as Crit
from d20cli.dice.modifiers import Explode as Explode
from d20cli.dice.modifiers import Keep as Keep
from d20cli.dice.modifiers import KeepKind as KeepKind
from d20cli.dice.modifiers import Pool as Pool
from d20cli.dice.modifiers import Reroll as Reroll
from d20cli.dice.modifiers import SortOrder as SortOrder

MAX_SIDES = 1_000_000
MAX_TOTAL = 10**18 - 1  # the largest total any part of an expression may reach
LIST_LIMIT = 1000

# ---------------------------------------------------------------------------------------
# Syntax tree
# ---------------------------------------------------------------------------------------


# Precedence used by __str__ to parenthesise: atoms 4, unary minus 3, * / 2, + - 1.
_ATOM, _UNARY, _MUL, _ADD = 4, 3, 2, 1


@dataclass(frozen=True, slots=True)
class Number:
    value: int
    label: str | None = None

    precedence: ClassVar[int] = _ATOM

    def __str__(self) -> str:
        return str(self.value) + _label_text(self.label)

    def bounds(self) -> tuple[float, float]:
        return (self.value, self.value)

    def min_total(self) -> int | float:
        return self.bounds()[0]

    def max_total(self) -> int | float:
        return self.bounds()[1]


@dataclass(frozen=True, slots=True)
class Dice:
    count: int | Expr
    sides: int | Literal["%", "F"]
    reroll: Reroll | None = None
    explode: Explode | None = None
    minimum: int | None = None
    maximum: int | None = None
    keep: Keep | None = None
    pool: Pool | None = None
    label: str | None = None
    unique: bool = False  # `u`: reroll a face another die of the term already shows
    crit: Crit | None = None  # `cs>19` / `cf<2`: markers only
    sort: SortOrder | None = None  # `sa` / `sd`: the dice shown in order
    # Cached at construction for the hot path: the text, its quoted form for budget
    # messages, and whether the term has no modifiers at all.
    _text: str = field(init=False, repr=False, compare=False, hash=False, default="")
    _what: str = field(init=False, repr=False, compare=False, hash=False, default="")
    _plain: bool = field(init=False, repr=False, compare=False, hash=False, default=False)
    _range: tuple[int, int] = field(
        init=False, repr=False, compare=False, hash=False, default=(1, 1)
    )

    precedence: ClassVar[int] = _ATOM

    def __post_init__(self) -> None:
        problem = self.unique_conflict()
        if problem is not None:
            raise ValueError(problem)
        text = self._render()
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_what", f"'{text}'")
        plain = (
            self.reroll is None
            and self.explode is None
            and self.minimum is None
            and self.maximum is None
            and self.keep is None
            and self.pool is None
            and not self.unique
            and self.crit is None
            and self.sort is None
        )
        object.__setattr__(self, "_plain", plain)
        sides = self.sides
        lo, hi = (-1, 1) if sides == "F" else (1, 100) if sides == "%" else (1, int(sides))
        object.__setattr__(self, "_range", (lo, hi))

    def _render(self) -> str:
        c = self.count
        count = str(c) if isinstance(c, int) else f"({c})"
        mods = "".join(
            s
            for s in (
                "" if self.reroll is None else str(self.reroll),
                "u" if self.unique else "",
                "" if self.explode is None else str(self.explode),
                "" if self.minimum is None else f"mi{self.minimum}",
                "" if self.maximum is None else f"ma{self.maximum}",
                "" if self.keep is None else str(self.keep),
                "" if self.pool is None else str(self.pool),
                "" if self.crit is None else str(self.crit),
                "" if self.sort is None else f"s{self.sort}",
            )
        )
        return f"{count}d{self.sides}{mods}{_label_text(self.label)}"

    def __str__(self) -> str:
        return self._text

    @property
    def lo(self) -> int:
        """The lowest face of one die."""
        return self._range[0]

    @property
    def hi(self) -> int:
        """The highest face of one die."""
        return self._range[1]

    @property
    def die_sides(self) -> int:
        """The die size as results.Die reports it (Fudge: 3, d%: 100)."""
        s = self.sides
        return 3 if s == "F" else 100 if s == "%" else int(s)

    @property
    def plain(self) -> bool:
        """No modifiers at all: the fast path."""
        return self._plain

    def bounds(self) -> tuple[float, float]:
        if isinstance(self.count, int):
            cmin = cmax = float(self.count)
        else:
            cmin, cmax = self.count.bounds()
            cmin, cmax = max(cmin, 0.0), max(cmax, 0.0)
        lo, hi = self.lo, self.hi
        if not isinstance(self.sides, str) and (lo > hi or hi > MAX_SIDES):
            return (0.0, 0.0)  # cannot be rolled (an error), so no bounds worth computing
        faces = list(range(lo, hi + 1))
        if self.reroll is not None and not self.reroll.once:
            faces = [f for f in faces if not self.reroll.matches(f)] or faces
        natural = faces
        clamped = [self.clamp(f) for f in faces]
        ulo, uhi = float(min(clamped)), float(max(clamped))
        kmin, kmax = cmin, cmax
        if self.explode is not None:
            point = self.explode_point()
            exploding = [self.clamp(f) for f in natural if point.matches(f)]
            if exploding and self.explode.penetrate:
                ulo = ulo - 1  # an extra die counts one less
                if self.explode.compound:
                    ulo = ulo + 1 if ulo >= 0 else -math.inf
                    uhi = math.inf
                else:
                    kmax = math.inf
            elif exploding:
                if self.explode.compound:
                    if any(v > 0 for v in exploding):
                        uhi = math.inf
                    if any(v < 0 for v in exploding):
                        ulo = -math.inf
                else:
                    kmax = math.inf
        if self.keep is not None:
            if self.keep.kind in ("kh", "kl"):
                kmin, kmax = min(kmin, self.keep.n), min(kmax, self.keep.n)
            else:
                kmin = max(kmin - self.keep.n, 0.0)
                kmax = max(kmax - self.keep.n, 0.0)
        if self.pool is not None:
            return (-kmax if self.pool.failure is not None else 0.0, kmax)
        cands = [_mul(k, u) for k in (kmin, kmax) for u in (ulo, uhi)]
        return (min(cands), max(cands))

    def clamp(self, face: int) -> int:
        """A face raised to `mi` and lowered to `ma` (explosions and rerolls look at the
        natural face; the total and keep/drop at this one)."""
        if self.minimum is not None and face < self.minimum:
            face = self.minimum
        if self.maximum is not None and face > self.maximum:
            face = self.maximum
        return face

    def value(self, face: int, extra: bool) -> int:
        """What a natural face counts: clamped, and one less on an extra die of a
        penetrating explosion."""
        v = self.clamp(face)
        if extra and self.explode is not None and self.explode.penetrate:
            return v - 1
        return v

    def unique_conflict(self) -> str | None:
        """Why `u` cannot go with this term's other modifiers, or None."""
        if not self.unique:
            return None
        if self.explode is not None:
            return "'u' (unique faces) cannot combine with an explosion"
        if self.reroll is not None and self.reroll.once:
            return "'u' (unique faces) cannot combine with 'ro' (use 'r')"
        return None

    def unique_faces(self) -> int:
        """How many faces a die may show (those an `r` reroll does not reroll away)."""
        lo, hi = self._range
        if self.reroll is None or self.reroll.once:
            return hi - lo + 1
        return sum(1 for f in range(lo, hi + 1) if not self.reroll.matches(f))

    def explode_point(self) -> Compare:
        """The faces that explode: the explosion's compare point, else the highest face."""
        assert self.explode is not None
        return self.explode.point or Compare("=", self.hi)

    def min_total(self) -> int | float:
        return _as_int(self.bounds()[0])

    def max_total(self) -> int | float:
        return _as_int(self.bounds()[1])


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Expr

    precedence: ClassVar[int] = _UNARY

    def __str__(self) -> str:
        return "-" + _wrap(self.operand, self.operand.precedence < _UNARY)

    def bounds(self) -> tuple[float, float]:
        lo, hi = self.operand.bounds()
        return (-hi, -lo)

    def min_total(self) -> int | float:
        return _as_int(self.bounds()[0])

    def max_total(self) -> int | float:
        return _as_int(self.bounds()[1])


@dataclass(frozen=True, slots=True)
class Arithmetic:
    """`first op1 x1 op2 x2 ...`, left to right; all ops of one level (`+ -` or `* /`)."""

    first: Expr
    rest: tuple[tuple[str, Expr], ...]
    # The text, cached at construction as for Dice (a damage or roll result shows it).
    _text: str = field(init=False, repr=False, compare=False, hash=False, default="")

    def __post_init__(self) -> None:
        ops = {op for op, _ in self.rest}
        if not self.rest or not (ops <= {"+", "-"} or ops <= {"*", "/"}):
            raise ValueError(f"an Arithmetic chain needs ops of one level, got {ops}")
        object.__setattr__(self, "_text", self._render())

    @property
    def precedence(self) -> int:
        return _ADD if self.rest[0][0] in "+-" else _MUL

    def _render(self) -> str:
        p = self.precedence
        parts = [_wrap(self.first, self.first.precedence <= p)]
        for op, x in self.rest:
            parts.append(op)
            parts.append(_wrap(x, x.precedence <= p))
        return "".join(parts)

    def __str__(self) -> str:
        return self._text

    def bounds(self) -> tuple[float, float]:
        lo, hi = self.first.bounds()
        for op, x in self.rest:
            xlo, xhi = x.bounds()
            if op == "+":
                lo, hi = lo + xlo, hi + xhi
            elif op == "-":
                lo, hi = lo - xhi, hi - xlo
            elif op == "*":
                c = [_mul(a, b) for a in (lo, hi) for b in (xlo, xhi)]
                lo, hi = min(c), max(c)
            else:
                lo, hi = _floordiv_bounds(lo, hi, xlo, xhi)
        return (lo, hi)

    def min_total(self) -> int | float:
        return _as_int(self.bounds()[0])

    def max_total(self) -> int | float:
        return _as_int(self.bounds()[1])


Expr = Number | Dice | Neg | Arithmetic


def _label_text(label: str | None) -> str:
    return "" if label is None else f"[{label}]"


def _wrap(e: Expr, paren: bool) -> str:
    return f"({e})" if paren else str(e)


def _mul(a: float, b: float) -> float:
    """a * b for bounds, where 0 times an infinity is 0."""
    if a == 0 or b == 0:
        return 0.0
    return a * b


def _as_int(x: float) -> int | float:
    return x if math.isinf(x) else int(x)


def _floordiv_bounds(lo: float, hi: float, dlo: float, dhi: float) -> tuple[float, float]:
    if any(math.isinf(v) for v in (lo, hi, dlo, dhi)):
        return (-math.inf, math.inf)
    divisors = [d for d in (dlo, dhi, -1.0, 1.0) if d != 0 and dlo <= d <= dhi]
    if not divisors:
        return (0.0, 0.0)  # always a division by zero: an error, never a total
    c = [float(int(a) // int(d)) for a in (lo, hi) for d in divisors]
    return (min(c), max(c))


def children(e: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of a node: a negation's operand, a chain's terms, a computed
    dice count; none for a number or a plain dice term."""
    if isinstance(e, Neg):
        return (e.operand,)
    if isinstance(e, Arithmetic):
        return (e.first, *(x for _, x in e.rest))
    if isinstance(e, Dice) and not isinstance(e.count, int):
        return (e.count,)
    return ()


def walk(e: Expr) -> Iterator[tuple[Expr, int]]:
    """Every node of `e` with its depth (`e` itself is at 1), depth first. The one
    traversal of the syntax tree; it uses a stack, so no tree is too deep for it."""
    stack: list[tuple[Expr, int]] = [(e, 1)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in reversed(children(node)))


def plain_d20s(e: Expr) -> list[Dice]:
    """The terms of e that roll d20s, for the adv/dis check."""
    return [x for x, _ in walk(e) if isinstance(x, Dice) and x.sides == 20]


def adv_problem(e: Expr) -> str | None:
    """Why adv/dis cannot apply to `e` (None if it can: exactly one plain 1d20)."""
    d20s = plain_d20s(e)
    if not d20s:
        return "adv/dis needs a d20 in the expression, e.g. 'roll 1d20+5 adv'"
    if len(d20s) > 1 or d20s[0].count != 1:
        return "adv/dis needs exactly one d20 in the expression (found more)"
    if not d20s[0].plain:
        return f"adv/dis cannot combine with the modifiers of '{d20s[0]}'"
    return None
