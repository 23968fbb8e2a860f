"""The dice-expression syntax tree (`2d6+3`, `4d6kh3`, `1d10!`): frozen dataclasses whose
`str(e)` is the normalised text and parses back to `e`. The grammar that builds it is
`d20cli.language.dice_grammar`; `d20cli.dice.evaluate` rolls it.

- `Number(value, label)`: a non-negative integer (`3`, `3[bonus]`).
- `Dice(count, sides, reroll, explode, minimum, maximum, keep, pool, label, unique, crit,
  sort)`: a dice term; `count` an int or an expression (`(1+1)d6`), `sides` below.
- `Neg(operand)`: unary minus.
- `Arithmetic(first, rest)`: a left-associative chain of operators of one precedence
  level (`+ -` or `* / %`). Chains instead of binary nodes keep the tree shallow for long
  sums such as `1+1+1+...`, so nothing recurses thousands of levels deep.
- `Call(name, args)`: `max(1d6,1d8)`, `floor(1d6/2)`; `Group(items, keep, pool)`:
  `{4d6,3d8}kh1`, `{3d6,2d10}>=10`.
- `Ref(name)`: a character's value by name (`1d20+dex`, `@dex`), see `d20cli.dice.refs`.

Each node knows its bounds (`min_total`, `max_total`), which the budget and the odds use
before anything is rolled. Sides must be 1..MAX_SIDES (1,000,000).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from operator import attrgetter

from d20cli.dice.arith import FUNCTIONS, Bounded, call_value, floordiv_bounds, mod_bounds, mul
from d20cli.dice.modifiers import COMPARE_OPS as COMPARE_OPS
from d20cli.dice.modifiers import KEEP_KINDS as KEEP_KINDS
from d20cli.dice.modifiers import MODIFIERS, Rule, TermBounds
from d20cli.dice.modifiers import Compare as Compare
from d20cli.dice.modifiers import Crit as Crit
from d20cli.dice.modifiers import Explode as Explode
from d20cli.dice.modifiers import Keep as Keep
from d20cli.dice.modifiers import Pool as Pool
from d20cli.dice.modifiers import Reroll as Reroll
from d20cli.dice.refs import REF_NAME as REF_NAME
from d20cli.dice.refs import Ref as Ref
from d20cli.frozen import field, frozen, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import ClassVar, Literal

    from d20cli.dice.modifiers import CompareOp as CompareOp
    from d20cli.dice.modifiers import KeepKind as KeepKind
    from d20cli.dice.modifiers import SortOrder as SortOrder

MAX_SIDES = 1_000_000
MAX_TOTAL = 10**18 - 1  # the largest total any part of an expression may reach
LIST_LIMIT = 1000
# What a die's `sides` may be besides an expression: a number or "F" / "%", or a custom
# die's faces. (Tuples, not `int | str`: a union is made anew at each isinstance.)
_PLAIN_SIDES = (int, str)
_SIDES = (int, str, tuple)

# ---------------------------------------------------------------------------------------
# Syntax tree
# ---------------------------------------------------------------------------------------


# Precedence used by __str__ to parenthesise: atoms 4, unary minus 3, * / 2, + - 1.
_ATOM, _UNARY, _MUL, _ADD = 4, 3, 2, 1


@frozen(slots=True)
class Number(Bounded):
    value: int
    label: str | None = None

    precedence: ClassVar[int] = _ATOM

    def __str__(self) -> str:
        return str(self.value) + _label_text(self.label)

    def bounds(self) -> tuple[float, float]:
        return (self.value, self.value)


@frozen(slots=True)
class Dice(Bounded):
    count: int | Expr
    # an int, `%` (1..100), `F` (Fudge), a tuple of custom faces `d{0,0,1,2}` (rolled by
    # position, counted by value) or an expression, computed sides `1d(1d4+2)`
    sides: int | Literal["%", "F"] | tuple[int, ...] | Expr
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
    # and what `custom` and `computed` answer (read on every roll of a term with modifiers)
    _custom: tuple[int, ...] | None = field(
        init=False, repr=False, compare=False, hash=False, default=None
    )
    _computed: bool = field(init=False, repr=False, compare=False, hash=False, default=False)
    # and the rules of its modifiers (`rules`), in the order of MODIFIERS, and whether
    # one of them rolls the dice one by one
    _rules: tuple[Rule, ...] = field(init=False, repr=False, compare=False, hash=False, default=())
    _one_by_one: bool = field(init=False, repr=False, compare=False, hash=False, default=False)
    _finishing: tuple[Rule, ...] = field(
        init=False, repr=False, compare=False, hash=False, default=()
    )
    _marking: tuple[Rule, ...] = field(
        init=False, repr=False, compare=False, hash=False, default=()
    )
    # and the faces that explode (`explode_point`), read on every roll of an explosion
    _point: Compare | None = field(init=False, repr=False, compare=False, hash=False, default=None)

    precedence: ClassVar[int] = _ATOM

    def __post_init__(self) -> None:
        sides = self.sides
        put = object.__setattr__
        plain_sides = isinstance(sides, _PLAIN_SIDES)
        if isinstance(sides, tuple):
            put(self, "_custom", sides)
        elif not plain_sides:
            put(self, "_computed", True)
        values = _MODIFIER_VALUES(self)
        mods = ""
        if values != _UNSET or self.unique is not False:  # (most terms have no modifier)
            problem = self.unique_conflict()
            if problem is not None:
                raise ValueError(problem)
            found: list[Rule] = []
            for m, v in zip(MODIFIERS, values, strict=True):
                if v is not None and v is not False:  # (as rule_of: else the field is unset)
                    rule = m.rule_of(v)
                    if rule is not None:
                        found.append(rule)
            rules_set = tuple(found)
            mods = "".join([str(r) for r in rules_set])
            put(self, "_rules", rules_set)
            put(self, "_one_by_one", any(r.one_by_one for r in rules_set))
            put(self, "_finishing", tuple(r for r in rules_set if r.finishes))
            put(self, "_marking", tuple(r for r in rules_set if r.marks))
        text = self._render(mods)
        put(self, "_text", text)
        put(self, "_what", f"'{text}'")
        put(self, "_plain", plain_sides and not mods)
        if isinstance(sides, int):
            lo, hi = 1, int(sides)
        elif isinstance(sides, tuple):
            if not sides:
                raise ValueError("custom faces need at least one value")
            lo, hi = min(sides), max(sides)
        elif isinstance(sides, str):
            lo, hi = (-1, 1) if sides == "F" else (1, 100) if sides == "%" else (1, int(sides))
        else:
            lo, hi = 1, 1  # computed sides: rolled as a concrete die (`with_sides`)
        put(self, "_range", (lo, hi))
        if self.explode is not None:
            put(self, "_point", self.explode.point or Compare("=", hi))

    def parts(self) -> tuple[str, str, str]:
        """The text of the count, of the sides and of the modifiers with the label."""
        c = self.count
        count = str(c) if isinstance(c, int) else f"({c})"
        sides = self._side_text()
        return count, sides, self._text[len(count) + 1 + len(sides) :]

    def _side_text(self) -> str:
        sides = self.sides
        if isinstance(sides, tuple):
            return "{" + ",".join(map(str, sides)) + "}"
        return str(sides) if isinstance(sides, _PLAIN_SIDES) else f"({sides})"

    @property
    def custom(self) -> tuple[int, ...] | None:
        """The faces of a custom die `d{0,0,1,2}`, else None."""
        return self._custom

    @property
    def computed(self) -> bool:
        """Sides given by an expression (`1d(1d4+2)`)."""
        return self._computed

    def with_sides(self, sides: int) -> Dice:
        """This term with computed sides replaced by the number rolled for them."""
        return replace(self, sides=sides)

    def face_values(self) -> list[int]:
        """Every face of one die, by value (a custom die's repeated values repeated)."""
        custom = self.custom
        return list(custom) if custom is not None else list(range(self.lo, self.hi + 1))

    def limit_problem(self) -> str | None:
        """Why `mi`/`ma` cannot apply to this die's faces (checked at parse time unless
        the sides are computed), or None."""
        lo, hi = self._range
        for word, v in (("mi", self.minimum), ("ma", self.maximum)):
            if v is not None and not lo <= v <= hi:
                return f"'{word}{v}' is outside the faces {lo}..{hi} of '{self}'"
        return None

    def _render(self, mods: str) -> str:
        c = self.count
        count = str(c) if isinstance(c, int) else f"({c})"
        return f"{count}d{self._side_text()}{mods}{_label_text(self.label)}"

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules of the modifiers set (`Reroll`, `Explode`, ..., `Unique` for `u`), in
        the order of MODIFIERS: bounds, `never_ends`, the budget, rolling and exact odds
        loop over them."""
        return self._rules

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
        """The die size as results.Die reports it (Fudge: 3, d%: 100, a custom die: its
        number of faces; computed sides: 0, never rolled as such)."""
        s = self.sides
        if isinstance(s, tuple):
            return len(s)
        if not isinstance(s, _PLAIN_SIDES):
            return 0
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
        if self.computed:  # as the largest die the sides can give (its faces hold all)
            top = self.sides.bounds()[1]  # type: ignore[union-attr]
            most = MAX_SIDES if not math.isfinite(top) else min(max(int(top), 1), MAX_SIDES)
            return self.with_sides(most).bounds()
        sides = self.sides
        if isinstance(sides, int) and not 1 <= sides <= MAX_SIDES:
            return (0.0, 0.0)  # cannot be rolled (an error), so no bounds worth computing
        faces = self.face_values()
        clamped = [self.clamp(f) for f in faces]
        b = TermBounds(faces, float(min(clamped)), float(max(clamped)), cmin, cmax)
        for rule in self._rules:
            b = rule.bounds(self, b)
        _, ulo, uhi, kmin, kmax = b
        cands = [mul(k, u) for k in (kmin, kmax) for u in (ulo, uhi)]
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
        if self.custom is not None and len(set(self.custom)) < len(self.custom):
            return "'u' (unique faces) needs custom faces that differ"
        return None

    def unique_faces(self) -> int:
        """How many faces a die may show (those an `r` reroll does not reroll away)."""
        faces = set(self.face_values())
        if self.reroll is None or self.reroll.once:
            return len(faces)
        return sum(1 for f in faces if not self.reroll.matches(f))

    def explode_point(self) -> Compare:
        """The faces that explode: the explosion's compare point, else the highest face."""
        assert self._point is not None
        return self._point


#: The modifier fields of a `Dice` (MODIFIERS' order), read at once, and their values when
#: none is set.
_MODIFIER_VALUES = attrgetter(*(m.field for m in MODIFIERS))
_UNSET = tuple(False if m.field == "unique" else None for m in MODIFIERS)


@frozen(slots=True)
class Neg(Bounded):
    operand: Expr

    precedence: ClassVar[int] = _UNARY

    def __str__(self) -> str:
        return "-" + _wrap(self.operand, self.operand.precedence < _UNARY)

    def bounds(self) -> tuple[float, float]:
        lo, hi = self.operand.bounds()
        return (-hi, -lo)


@frozen(slots=True)
class Arithmetic(Bounded):
    """`first op1 x1 op2 x2 ...`, left to right; all ops of one level (`+ -` or `* /`)."""

    first: Expr
    rest: tuple[tuple[str, Expr], ...]
    # The text, cached at construction as for Dice (a damage or roll result shows it).
    _text: str = field(init=False, repr=False, compare=False, hash=False, default="")

    def __post_init__(self) -> None:
        ops = {op for op, _ in self.rest}
        if not self.rest or not (ops <= {"+", "-"} or ops <= {"*", "/", "%"}):
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
        return arithmetic_bounds(self, exact=False)


@frozen(slots=True)
class Call(Bounded):
    """`max(1d6,1d8)`, `floor(1d6/2)`: a function over expressions (FUNCTIONS). Inside
    `ceil`, `floor` and `round`, the argument's `+ - * /` divide exactly (`ceil(1d6/2)`
    rounds 5/2 up to 3); everywhere else `/` rounds down."""

    name: str
    args: tuple[Expr, ...]

    precedence: ClassVar[int] = _ATOM

    def __post_init__(self) -> None:
        arity = FUNCTIONS.get(self.name)
        if arity is None:
            raise ValueError(f"unknown function {self.name!r}")
        if not self.args or (arity and len(self.args) != arity):
            raise ValueError(
                f"{self.name}() takes {'one' if arity else 'one or more'} "
                f"argument{'' if arity else 's'}, not {len(self.args)}"
            )

    def __str__(self) -> str:
        return f"{self.name}({','.join(map(str, self.args))})"

    def bounds(self) -> tuple[float, float]:
        if self.name in ("max", "min"):
            spans = [a.bounds() for a in self.args]
            pick = max if self.name == "max" else min
            return (pick(a for a, _ in spans), pick(b for _, b in spans))
        if self.name == "abs":
            lo, hi = self.args[0].bounds()
            return (lo, hi) if lo >= 0 else (-hi, -lo) if hi <= 0 else (0.0, max(-lo, hi))
        lo, hi = exact_bounds(self.args[0])  # ceil, floor, round: `/` divides exactly
        return (
            lo if math.isinf(lo) else float(math.floor(lo)),
            hi if math.isinf(hi) else float(math.ceil(hi)),
        )

    def apply(self, values: list[int] | list[Fraction]) -> int:
        """The function of its arguments' values (the exact ones for ceil/floor/round)."""
        return call_value(self.name, values)


@frozen(slots=True)
class Group(Bounded):
    """`{4d6,3d8}kh1`: expressions rolled side by side. Keep/drop keeps whole expressions
    (by total; ties keep the earlier one); a pool target (`{3d6,2d10}>=10`) counts the
    kept expressions whose total meets it, minus failures, as rpg-dice-roller does.
    Without either the total is the sum."""

    items: tuple[Expr, ...]
    keep: Keep | None = None
    pool: Pool | None = None

    precedence: ClassVar[int] = _ATOM

    def __post_init__(self) -> None:
        if not self.items:
            raise ValueError("a group needs at least one expression")

    def __str__(self) -> str:
        mods = ("" if self.keep is None else str(self.keep)) + (
            "" if self.pool is None else str(self.pool)
        )
        if len(self.items) == 1 and mods:  # avrae's set of one: `{3d6}kh1` is refused
            return f"({self.items[0]},){mods}"
        return "{" + ",".join(map(str, self.items)) + "}" + mods

    def kept_count(self) -> int:
        n = len(self.items)
        return n if self.keep is None else self.keep.kept_count(n)

    def bounds(self) -> tuple[float, float]:
        k = self.kept_count()
        if self.pool is not None:
            return (-float(k) if self.pool.failure is not None else 0.0, float(k))
        spans = [x.bounds() for x in self.items]
        los = sorted(a for a, _ in spans)[:k]
        his = sorted((b for _, b in spans), reverse=True)[:k]
        return (float(sum(los)), float(sum(his)))


Expr = Number | Dice | Neg | Arithmetic | Call | Group | Ref


def children(e: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of a node (a computed count included)."""
    if isinstance(e, Dice):  # the most common node first
        count = () if isinstance(e.count, int) else (e.count,)
        sides = e.sides
        return count if isinstance(sides, _SIDES) else (*count, sides)
    if isinstance(e, Arithmetic):
        return (e.first, *(x for _, x in e.rest))
    if isinstance(e, Neg):
        return (e.operand,)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Group):
        return e.items
    return ()


def walk(e: Expr) -> Iterator[tuple[Expr, int]]:
    """Every node of `e` with its depth (`e` itself is at 1), depth first. The one
    traversal of the syntax tree; it uses a stack, so no tree is too deep for it."""
    stack: list[tuple[Expr, int]] = [(e, 1)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in reversed(children(node)))


def _label_text(label: str | None) -> str:
    return "" if label is None else f"[{label}]"


def _wrap(e: Expr, paren: bool) -> str:
    return f"({e})" if paren else str(e)


def exact_bounds(expr: Expr) -> tuple[float, float]:
    """The bounds of `expr` with its `/` dividing exactly, as inside ceil, floor and round
    (`ceil(1/2*3)` is 2, where the floored bounds of `1/2*3` say 0)."""
    if isinstance(expr, Arithmetic):
        return arithmetic_bounds(expr, exact=True)
    if isinstance(expr, Neg):
        lo, hi = exact_bounds(expr.operand)
        return (-hi, -lo)
    return expr.bounds()


def arithmetic_bounds(expr: Arithmetic, exact: bool) -> tuple[float, float]:
    """`expr`'s bounds, its terms' folded left to right; `exact`: as `exact_bounds`."""
    of = exact_bounds if exact else (lambda x: x.bounds())
    lo, hi = of(expr.first)
    for op, x in expr.rest:
        xlo, xhi = of(x)
        if op == "+":
            lo, hi = lo + xlo, hi + xhi
        elif op == "-":
            lo, hi = lo - xhi, hi - xlo
        elif op == "*":
            c = [mul(a, b) for a in (lo, hi) for b in (xlo, xhi)]
            lo, hi = min(c), max(c)
        elif op == "%":
            lo, hi = mod_bounds(lo, hi, xlo, xhi, exact)
        else:
            lo, hi = floordiv_bounds(lo, hi, xlo, xhi, exact)
    return (lo, hi)
