"""The dice-expression tree (`2d6+3`, `4d6kh3`, `1d10!`) and its evaluation.

Pure: no I/O, no global state, no global random. Faces come from a `Roller` that the
caller passes in; the grammar lives in `d20cli.language.dice_grammar`.

Syntax tree (frozen dataclasses, `str(e)` is the normalised text and parses back to `e`):

- `Number(value, label)`: a non-negative integer (`3`, `3[bonus]`).
- `Dice(count, sides, reroll, explode, minimum, maximum, keep, pool, label)`: a dice term.
  `count` is an int or a parenthesised expression (`(1+1)d6`); `sides` is an int, `"%"`
  (d%, 1..100) or `"F"` (Fudge, -1..+1).
- `Neg(operand)`: unary minus.
- `Arithmetic(first, rest)`: a left-associative chain of operators of one precedence
  level (`+ -` or `* /`). Chains instead of binary nodes keep the tree shallow for long
  sums such as `1+1+1+...`, so nothing recurses thousands of levels deep.

Evaluation, per die of a term, in this order: roll; reroll (`r`: again while the face
matches, `ro`: once; the replaced face stays visible, dropped, flagged "rerolled");
explode (`!`: a matching face adds another die, which gets the same treatment; `!!`
compound: the extra faces add to the same die, which keep/drop and pools treat as one);
clamp each face with `mi`/`ma` (explosions and rerolls look at the natural face); then
keep/drop (`kh kl dh dl`, ties keep the earlier die); then a pool (`>=7`, `f1`) counts
successes minus failures among the kept dice instead of summing them.

Decisions:

- `0d6` rolls no dice and totals 0; keep/drop on it is fine (`0d6kh1` = 0).
- Fudge dice (`dF`) are `Die(sides=3, face=-1..1)` with the flag "fudge"; `d%` is a d100.
- Sides must be 1..MAX_SIDES (1,000,000); larger or smaller is an error naming the term.
- Every die counts against the roller's budget; the known count of a term is charged
  before it is rolled, so the error names the term (`'2000000d6' needs more than ...`).
  Explosions and rerolls charge each extra die, so a long chain stops at the budget.
- An explosion or `r` reroll whose compare point every face matches (`1d1!`, `1d6!>=1`,
  `1d2r<3`) could never stop: a DiceError before anything is rolled.
- `/` is floor division (rounds down, also for negatives); dividing by zero is a DiceError
  naming the division.
- A total (of any part) stays within +-MAX_TOTAL (10**18 - 1, fits a 64-bit integer):
  products such as `999999999999*999999999999` are a DiceError naming the product, so
  no number grows past what the roll log, JSON consumers and floats hold.
- Huge rolls: a `roll` result with more than LIST_LIMIT (1,000) dice carries no dice list
  but a `DiceSummary` (count, kept, face histogram, sides); its JSON then has
  "dice": [] and "dice_summary": {"count", "kept", "sides", "faces"}.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from d20cli.dice.roller import Roller
from d20cli.errors import DiceError
from d20cli.frozen import quick_init
from d20cli.results import DiceSummary, Die, Result

MAX_SIDES = 1_000_000
MAX_TOTAL = 10**18 - 1  # the largest total any part of an expression may reach
LIST_LIMIT = 1000

CompareOp = Literal["=", ">", "<", ">=", "<="]
KeepKind = Literal["kh", "kl", "dh", "dl"]
COMPARE_OPS: tuple[str, ...] = (">=", "<=", ">", "<", "=")
KEEP_KINDS: tuple[str, ...] = ("kh", "kl", "dh", "dl")

# ---------------------------------------------------------------------------------------
# Syntax tree
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Compare:
    """A compare point: `>=5`, `<2`, `=1`."""

    op: CompareOp
    value: int

    def __post_init__(self) -> None:
        if self.op not in COMPARE_OPS:
            raise ValueError(f"bad compare operator {self.op!r}")

    def matches(self, face: int) -> bool:
        op, v = self.op, self.value
        if op == "=":
            return face == v
        if op == ">=":
            return face >= v
        if op == "<=":
            return face <= v
        if op == ">":
            return face > v
        return face < v

    def matches_all(self, lo: int, hi: int) -> bool:
        """Does every face in lo..hi match?"""
        op, v = self.op, self.value
        if op == "=":
            return lo == hi == v
        if op == ">=":
            return lo >= v
        if op == "<=":
            return hi <= v
        if op == ">":
            return lo > v
        return hi < v

    def text(self, bare_equals: bool = False) -> str:
        if bare_equals and self.op == "=":
            return str(self.value)
        return f"{self.op}{self.value}"

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True, slots=True)
class Reroll:
    """`r<point>`: reroll while the face matches; `ro<point>`: reroll once."""

    point: Compare
    once: bool = False

    def __str__(self) -> str:
        return ("ro" if self.once else "r") + self.point.text(bare_equals=True)


@dataclass(frozen=True, slots=True)
class Explode:
    """`!` (on the highest face, or on a compare point) and compound `!!`."""

    point: Compare | None = None
    compound: bool = False

    def __str__(self) -> str:
        return ("!!" if self.compound else "!") + ("" if self.point is None else str(self.point))


@dataclass(frozen=True, slots=True)
class Keep:
    """`khN`, `klN` keep the N highest/lowest dice; `dhN`, `dlN` drop them."""

    kind: KeepKind
    n: int

    def __post_init__(self) -> None:
        if self.kind not in KEEP_KINDS:
            raise ValueError(f"bad keep kind {self.kind!r}")
        if self.n < 0:
            raise ValueError("keep/drop count must be >= 0")

    def __str__(self) -> str:
        return f"{self.kind}{self.n}"

    def kept_count(self, units: int) -> int:
        """How many of `units` dice are kept."""
        if self.kind in ("kh", "kl"):
            return min(self.n, units)
        return max(units - self.n, 0)


@dataclass(frozen=True, slots=True)
class Pool:
    """A dice pool: count the dice meeting `success`, minus those meeting `failure`."""

    success: Compare
    failure: Compare | None = None

    def __str__(self) -> str:
        f = "" if self.failure is None else "f" + self.failure.text(bare_equals=True)
        return f"{self.success}{f}"


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
                "" if self.explode is None else str(self.explode),
                "" if self.minimum is None else f"mi{self.minimum}",
                "" if self.maximum is None else f"ma{self.maximum}",
                "" if self.keep is None else str(self.keep),
                "" if self.pool is None else str(self.pool),
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
            faces = [f for f in faces if not self.reroll.point.matches(f)] or faces
        natural = faces
        clamped = [self._clamp(f) for f in faces]
        ulo, uhi = float(min(clamped)), float(max(clamped))
        kmin, kmax = cmin, cmax
        if self.explode is not None:
            point = self._explode_point()
            exploding = [self._clamp(f) for f in natural if point.matches(f)]
            if exploding:
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

    def _clamp(self, face: int) -> int:
        if self.minimum is not None and face < self.minimum:
            face = self.minimum
        if self.maximum is not None and face > self.maximum:
            face = self.maximum
        return face

    def _explode_point(self) -> Compare:
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


# ---------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RollRequest:
    """`roll [Nx] EXPR [adv|dis] [# comment]` as parsed by `dice_grammar.parse_roll`."""

    text: str
    expr: Expr
    repeat: int = 1
    adv: int = 0  # +1 advantage, -1 disadvantage, 0 neither (or both, which cancel)
    comment: str | None = None
    verb: ClassVar[str] = "roll"


# ---------------------------------------------------------------------------------------
# Evaluated tree
# ---------------------------------------------------------------------------------------


class Evaluated:
    """An evaluated node: `.total`, `.expr` (the syntax node) and its evaluated children.

    Renderers walk it: `EvalNumber`, `EvalDice` (faces, kept, flags per die), `EvalNeg`,
    `EvalArithmetic` (`first`, `rest` as (op, node) pairs).
    """

    __slots__ = ()
    total: int

    def children(self) -> list[Evaluated]:
        return []

    def walk(self) -> Iterator[Evaluated]:
        """Every node in evaluation (roll) order, parents before children."""
        stack: list[Evaluated] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))

    def terms(self) -> Iterator[EvalDice]:
        """The dice terms, in roll order (a computed count's dice before its term's)."""
        for child in self.children():
            yield from child.terms()

    @property
    def die_count(self) -> int:
        return sum(len(t.faces) for t in self.terms())

    def dice(self) -> list[Die]:
        """Every physical die as a results.Die, in roll order."""
        out: list[Die] = []
        for t in self.terms():
            out.extend(t.term_dice())
        return out

    def labels(self) -> dict[str, int]:
        """{label: subtotal} for labelled terms (the same label twice adds up)."""
        out: dict[str, int] = {}
        for node in self.walk():
            if isinstance(node, EvalNumber | EvalDice) and node.expr.label is not None:
                out[node.expr.label] = out.get(node.expr.label, 0) + node.total
        return out


@quick_init
@dataclass(frozen=True, slots=True)
class EvalNumber(Evaluated):
    expr: Number
    total: int


@quick_init
@dataclass(frozen=True, slots=True)
class EvalDice(Evaluated):
    """One dice term as rolled.

    faces: every physical die in roll order (after mi/ma), including rerolled-away faces.
    kept: None if every die is kept, else a parallel list.
    flags: None if no die has a flag, else a parallel list of flag tuples.
    count: the evaluated count expression of `(1+1)d6`, else None.
    """

    expr: Dice
    total: int
    faces: list[int]
    kept: list[bool] | None = None
    flags: list[tuple[str, ...]] | None = None
    count: Evaluated | None = None
    role: str = "roll"

    def children(self) -> list[Evaluated]:
        return [] if self.count is None else [self.count]

    def terms(self) -> Iterator[EvalDice]:
        if self.count is not None:  # `(1d4)d6`: the d4 was rolled first
            yield from self.count.terms()
        yield self

    def term_dice(self) -> list[Die]:
        sides = self.expr.die_sides
        role, label = self.role, self.expr.label
        fudge = self.expr.sides == "F"
        kept, flags = self.kept, self.flags
        if kept is None and flags is None and not fudge:
            return [Die(sides, f, True, role, label) for f in self.faces]
        out = []
        for i, f in enumerate(self.faces):
            fl = () if flags is None else flags[i]
            if fudge:
                fl = (*fl, "fudge")
            out.append(Die(sides, f, True if kept is None else kept[i], role, label, fl))
        return out

    @property
    def kept_count(self) -> int:
        return len(self.faces) if self.kept is None else sum(self.kept)


@quick_init
@dataclass(frozen=True, slots=True)
class EvalNeg(Evaluated):
    expr: Neg
    total: int
    operand: Evaluated

    def children(self) -> list[Evaluated]:
        return [self.operand]


@quick_init
@dataclass(frozen=True, slots=True)
class EvalArithmetic(Evaluated):
    expr: Arithmetic
    total: int
    first: Evaluated
    rest: tuple[tuple[str, Evaluated], ...]

    def children(self) -> list[Evaluated]:
        return [self.first, *(x for _, x in self.rest)]


# ---------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------


def fewest_dice(expr: Expr) -> int:
    """The dice an expression rolls at the least: the sum of its terms' fixed counts (a
    computed count, an explosion or a reroll can only add to it). Lets a caller refuse
    `1000x 1001d6` before rolling any of it."""
    total = 0
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Dice):
            if isinstance(node.count, int):
                total += node.count
            else:
                stack.append(node.count)
        elif isinstance(node, Neg):
            stack.append(node.operand)
        elif isinstance(node, Arithmetic):
            stack.append(node.first)
            stack.extend(x for _, x in node.rest)
    return total


def evaluate(expr: Expr, roller: Roller, role: str = "roll") -> Evaluated:
    """Roll `expr` with faces from `roller`; every die gets `role`."""
    return _Evaluator(roller, role, {}).eval(expr)


def never_ends(e: Dice) -> str | None:
    """Why rerolling or exploding `e` could never stop, or None if it always can."""
    lo, hi = e._range
    sticky = e.reroll.point if e.reroll is not None and not e.reroll.once else None
    boom = e._explode_point() if e.explode is not None else None
    points = [p for p in (sticky, boom) if p is not None]
    # Each point's non-matching faces are one or two intervals whose ends lie next to its
    # value, so if some face stops both, one of these candidates does.
    candidates = {lo, hi} | {p.value + d for p in points for d in (-1, 0, 1)}
    faces = [f for f in candidates if lo <= f <= hi]
    if sticky is not None and all(sticky.matches(f) for f in faces):
        return f"{e._what} would reroll forever: every face matches '{e.reroll}'"
    survivors = [f for f in faces if sticky is None or not sticky.matches(f)]
    if boom is not None and all(boom.matches(f) for f in survivors):
        if sticky is None:
            return f"{e._what} would explode forever: every face matches '{e.explode}'"
        return (
            f"{e._what} would explode forever: every face left after '{e.reroll}' "
            f"matches '{e.explode}'"
        )
    return None


def too_large(e: Expr) -> str:
    """The message for an expression whose total leaves +-MAX_TOTAL."""
    text = str(e)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"'{text}' is too large: a total must stay within \u00b1{MAX_TOTAL:,}"


class _Evaluator:
    __slots__ = ("role", "roles", "roller")

    def __init__(self, roller: Roller, role: str, roles: dict[int, str]) -> None:
        self.roller = roller
        self.role = role
        self.roles = roles  # id(Dice node) -> role, for the d20s of adv/dis

    def eval(self, e: Expr) -> Evaluated:
        kind = type(e)
        if kind is Dice:
            return self.dice(e)  # type: ignore[arg-type]
        if kind is Arithmetic:
            return self.arithmetic(e)  # type: ignore[arg-type]
        if kind is Number:
            return EvalNumber(e, e.value)  # type: ignore[arg-type,union-attr]
        if kind is Neg:
            ev = self.eval(e.operand)  # type: ignore[union-attr]
            return EvalNeg(e, -ev.total, ev)  # type: ignore[arg-type]
        raise TypeError(f"not a dice expression: {e!r}")

    def arithmetic(self, e: Arithmetic) -> EvalArithmetic:
        first = self.eval(e.first)
        total = first.total
        rest = []
        for op, x in e.rest:
            ev = self.eval(x)
            rest.append((op, ev))
            v = ev.total
            if op == "+":
                total += v
            elif op == "-":
                total -= v
            elif op == "*":
                total *= v
            else:
                if v == 0:
                    raise DiceError(f"division by zero in '{e}' ('{x}' is 0)")
                total //= v  # floor division: rounds down, also for negatives
            if not -MAX_TOTAL <= total <= MAX_TOTAL:
                raise DiceError(too_large(e))
        return EvalArithmetic(e, total, first, tuple(rest))

    def dice(self, e: Dice) -> EvalDice:
        roller = self.roller
        role = self.roles.get(id(e), self.role) if self.roles else self.role
        count_ev: Evaluated | None = None
        n = e.count
        if type(n) is not int:
            count_ev = self.eval(n)  # type: ignore[arg-type]
            n = count_ev.total
            if n < 0:
                raise DiceError(f"'{e}' would roll {n} dice: the count must not be negative")
        lo, hi = e._range
        if not 1 <= hi <= MAX_SIDES:
            raise DiceError(f"'{e}': a die needs 1 to {MAX_SIDES:,} sides, not {e.sides}")
        roller.charge(n, e._what)
        if e._plain:
            faces = roller.roll_many(lo, hi, n) if n != 1 else [roller.roll(lo, hi)]
            return EvalDice(e, sum(faces), faces, None, None, count_ev, role)
        if e.reroll is None and e.explode is None:
            faces = roller.roll_many(lo, hi, n)
            flags: list[tuple[str, ...]] | None = None
            if e.minimum is not None or e.maximum is not None:
                flags = [()] * n
                faces = faces[:]
                for i, f in enumerate(faces):
                    c = e._clamp(f)
                    if c != f:
                        faces[i] = c
                        flags[i] = ("min",) if c > f else ("max",)
            keep = e.keep
            if e.pool is None and keep is not None:  # fast path: keep/drop single dice
                k = keep.kept_count(n)
                # Highest first for kh/dl; ties keep the earlier die (a stable sort, also
                # in reverse).
                highest = keep.kind in ("kh", "dl")
                order = sorted(range(n), key=faces.__getitem__, reverse=highest)
                kept = [False] * n
                total = 0
                for i in order[:k]:
                    kept[i] = True
                    total += faces[i]
                all_kept = k == n
                return EvalDice(e, total, faces, None if all_kept else kept, flags, count_ev, role)
            units = [[i] for i in range(n)]
            values = faces
        else:
            faces, flags, units, values = self._chains(e, n, lo, hi)
        return self._finish(e, faces, flags, units, values, count_ev, role)

    def _chains(
        self, e: Dice, n: int, lo: int, hi: int
    ) -> tuple[list[int], list[tuple[str, ...]], list[list[int]], list[int]]:
        """Roll n dice one by one with rerolls and explosions."""
        roller = self.roller
        what = e._what
        reroll = e.reroll
        explode = e.explode
        point = e._explode_point() if explode is not None else None
        problem = never_ends(e)
        if problem is not None:
            raise DiceError(problem)
        compound = explode is not None and explode.compound
        clamps = e.minimum is not None or e.maximum is not None
        faces: list[int] = []
        flags: list[tuple[str, ...]] = []
        units: list[list[int]] = []
        values: list[int] = []
        for _ in range(n):
            roller.charge(1, what)  # explosions may have used up what the count reserved
            face = roller.roll(lo, hi)
            unit: list[int] = []
            while True:  # one chain link: a die, its rerolls, then maybe an explosion
                if reroll is not None:
                    times = 0
                    while reroll.point.matches(face) and not (reroll.once and times):
                        faces.append(face)
                        flags.append(("rerolled",))
                        roller.charge(1, what)
                        face = roller.roll(lo, hi)
                        times += 1
                fl: tuple[str, ...] = ()
                value = face
                if clamps:
                    value = e._clamp(face)
                    if value != face:
                        fl = ("min",) if value > face else ("max",)
                again = point is not None and point.matches(face)
                if again:
                    fl = ("exploded", *fl)
                if compound:
                    unit.append(len(faces))
                else:
                    units.append([len(faces)])
                    values.append(value)
                faces.append(value)
                flags.append(fl)
                if not again:
                    break
                roller.charge(1, what)
                face = roller.roll(lo, hi)
            if compound:
                units.append(unit)
                values.append(sum(faces[i] for i in unit))
        return faces, flags, units, values

    def _finish(
        self,
        e: Dice,
        faces: list[int],
        flags: list[tuple[str, ...]] | None,
        units: list[list[int]],
        values: list[int],
        count_ev: Evaluated | None,
        role: str,
    ) -> EvalDice:
        nunits = len(units)
        unit_kept = [True] * nunits
        if e.keep is not None:
            k = e.keep.kept_count(nunits)
            if e.keep.kind in ("kh", "dl"):  # keep the highest; ties keep the earlier die
                order = sorted(range(nunits), key=lambda i: (-values[i], i))
            else:
                order = sorted(range(nunits), key=lambda i: (values[i], i))
            unit_kept = [False] * nunits
            for i in order[:k]:
                unit_kept[i] = True
        kept = [False] * len(faces)
        for u, idxs in enumerate(units):
            if unit_kept[u]:
                for i in idxs:
                    kept[i] = True
        pool = e.pool
        if pool is not None:
            if flags is None:
                flags = [()] * len(faces)
            total = 0
            for u, idxs in enumerate(units):
                if not unit_kept[u]:
                    continue
                v = values[u]
                mark = ""
                if pool.success.matches(v):
                    total += 1
                    mark = "success"
                elif pool.failure is not None and pool.failure.matches(v):
                    total -= 1
                    mark = "failure"
                if mark:
                    for i in idxs:
                        flags[i] = (*flags[i], mark)
        else:
            total = sum(v for u, v in enumerate(values) if unit_kept[u])
        all_kept = all(kept)
        return EvalDice(
            e,
            total,
            faces,
            None if all_kept else kept,
            None if flags is None or not any(flags) else flags,
            count_ev,
            role,
        )


# ---------------------------------------------------------------------------------------
# The `roll` verb
# ---------------------------------------------------------------------------------------


def _plain_d20s(e: Expr) -> list[Dice]:
    """The terms of e that roll d20s, for the adv/dis check (not inside counts)."""
    out: list[Dice] = []
    stack: list[Expr] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Dice):
            if x.sides == 20:
                out.append(x)
            if not isinstance(x.count, int):
                stack.append(x.count)
        elif isinstance(x, Neg):
            stack.append(x.operand)
        elif isinstance(x, Arithmetic):
            stack.append(x.first)
            stack.extend(y for _, y in x.rest)
    return out


def adv_problem(e: Expr) -> str | None:
    """Why adv/dis cannot apply to `e` (None if it can: exactly one plain 1d20)."""
    d20s = _plain_d20s(e)
    if not d20s:
        return "adv/dis needs a d20 in the expression, e.g. 'roll 1d20+5 adv'"
    if len(d20s) > 1 or d20s[0].count != 1:
        return "adv/dis needs exactly one d20 in the expression (found more)"
    if not d20s[0].plain:
        return f"adv/dis cannot combine with the modifiers of '{d20s[0]}'"
    return None


def with_advantage(e: Expr, adv: int) -> tuple[Expr, Dice | None]:
    """`e` with its one 1d20 replaced by 2d20kh1 (adv > 0) or 2d20kl1 (adv < 0)."""
    if adv == 0:
        return e, None
    problem = adv_problem(e)
    if problem is not None:
        raise DiceError(problem)
    old = _plain_d20s(e)[0]
    new = Dice(2, 20, keep=Keep("kh" if adv > 0 else "kl", 1), label=old.label)

    def swap(x: Expr) -> Expr:
        if x is old:
            return new
        if isinstance(x, Neg):
            return Neg(swap(x.operand))
        if isinstance(x, Arithmetic):
            return Arithmetic(swap(x.first), tuple((op, swap(y)) for op, y in x.rest))
        return x

    return swap(e), new


def resolve_roll(request: RollRequest, roller: Roller, system: str) -> Result:
    """One repetition of a `roll` request (the caller repeats `request.repeat` times).

    Dice have role "roll" (the two d20s of adv/dis: "d20") and the label of their term.
    detail: "expression" (as rolled, `2d20kh1+5` for `1d20+5 adv`), "labels" {label:
    subtotal} when any term has a label, "comment" when the line had one. A roll of more
    than LIST_LIMIT dice has dice=() and a DiceSummary (count, kept, face histogram,
    sides) instead, which is what its JSON then carries.
    """
    expr, adv_term = with_advantage(request.expr, request.adv)
    roles = {} if adv_term is None else {id(adv_term): "d20"}
    tree = _Evaluator(roller, "roll", roles).eval(expr)
    detail: dict[str, Any] = {"expression": str(expr)}
    if isinstance(tree, EvalDice) and tree.count is None:  # one term: no walk needed
        terms = [tree]
        labels = {} if tree.expr.label is None else {tree.expr.label: tree.total}
    else:
        terms = list(tree.terms())
        labels = tree.labels()
    if labels:
        detail["labels"] = labels
    if request.comment:
        detail["comment"] = request.comment
    count = sum(len(t.faces) for t in terms)
    if count > LIST_LIMIT:
        return Result(
            request=request.text,
            system=system,
            verb="roll",
            total=tree.total,
            dice_summary=summarise(tree),
            detail=detail,
            tree=tree,
        )
    dice: list[Die] = []
    for t in terms:
        dice.extend(t.term_dice())
    return Result(
        request=request.text,
        system=system,
        verb="roll",
        dice=tuple(dice),
        total=tree.total,
        detail=detail,
        tree=tree,
    )


def summarise(tree: Evaluated) -> DiceSummary:
    """Count, kept count, face histogram and sizes of every die in the tree."""
    faces: Counter[int] = Counter()
    count = kept = 0
    sides: set[int] = set()
    for t in tree.terms():
        faces.update(t.faces)
        count += len(t.faces)
        kept += t.kept_count
        if t.faces:
            sides.add(t.expr.die_sides)
    return DiceSummary(count=count, kept=kept, faces=dict(faces), sides=tuple(sorted(sides)))
