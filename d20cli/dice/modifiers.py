"""The modifiers of a dice term (`r1`, `!`, `kh3`, `>=7`, `cs>19`): the one home of each.

A modifier's value class (`Reroll`, `Explode`, `Keep`, `Pool`, `Crit`) holds its per-die
rules, which rolling (d20cli.dice.evaluate) and exact distributions
(d20cli.dice.distribution) share; its row in `MODIFIERS` (a `Modifier`: the `Dice` field
that holds it) says how messages name it, its text form, its step of a term's bounds, why
it could never stop, how many dice it rolls on average (the budget), and how a test draws
one. `Dice`'s text, bounds, "plain" test, the grammar's messages, the check before rolling
and the property tests' strategies loop over `MODIFIERS`.

How far an explosion chains is `Explode.depth`. Re-exported by d20cli.dice.tree.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, TypeVar

from d20cli.frozen import frozen

T = TypeVar("T")


class Dice(Protocol):
    """What a modifier's steps read of its dice term (d20cli.dice.tree.Dice, which
    imports this module)."""

    @property
    def _range(self) -> tuple[int, int]: ...
    @property
    def _what(self) -> str: ...
    @property
    def hi(self) -> int: ...
    @property
    def reroll(self) -> Reroll | None: ...
    def clamp(self, face: int) -> int: ...
    def explode_point(self) -> Compare: ...
    def face_values(self) -> list[int]: ...


# The two NamedTuples are written as calls, their types as values: a NamedTuple's string
# annotations cost a compile() each at start-up (docs/performance.md, "Start-up").

#: What a term's bounds are made of, step by step (`Dice.bounds`): the natural faces one
#: die may settle on, the least and most one counted unit (a die, a compound chain, a
#: pool's score) is worth, and the fewest and most units counted.
TermBounds = NamedTuple(  # noqa: UP014 (a call: its types are values, see above)
    "TermBounds",
    [("faces", list[int]), ("lo", float), ("hi", float), ("fewest", float), ("most", float)],
)

#: About num/den dice rolled on average, because of `what` ("explosions"); `reach`:
#: refused when the average reaches what the budget has left, not only when it passes.
Expected = NamedTuple(  # noqa: UP014 (a call: its types are values, see above)
    "Expected", [("num", int), ("den", int), ("what", str), ("reach", bool)]
)


class Choose:
    """How a test draws a modifier (`Modifier.example`): a choice of a flag, a number or
    one of some options. The property tests answer it from hypothesis."""

    def flag(self) -> bool:
        raise NotImplementedError

    def integer(self, lo: int, hi: int) -> int:
        raise NotImplementedError

    def one_of(self, options: Sequence[T]) -> T:
        raise NotImplementedError


class Rule:
    """The steps a modifier's value class takes part in, each a no-op unless it
    overrides it (a `Reroll`, `Explode`, ... is held in its own field of `Dice`)."""

    __slots__ = ()

    def endless(self) -> bool:
        """Could it roll without end, stopped only by the dice budget (so that a brute
        force cannot enumerate its rolls)?"""
        return False

    def compare_points(self, e: Dice) -> tuple[Compare, ...]:
        """The compare points that decide whether it stops (`never_ends` tries the faces
        next to them)."""
        return ()

    def bounds(self, e: Dice, b: TermBounds) -> TermBounds:
        """`b` with this modifier applied (see TermBounds)."""
        return b

    def never_ends(self, e: Dice, faces: list[int]) -> tuple[list[int], str | None]:
        """The faces a die may settle on after this modifier, and why it could never stop
        (None if it always can)."""
        return faces, None

    def expected_dice(self, e: Dice, n: int) -> Expected | None:
        """The dice that rolling `n` dice of `e` rolls on average (the budget is checked
        against it before rolling); None: just n."""
        return None

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Rule | None:
        """One such modifier for `e`'s dice, drawn by `choose`, for the property tests."""
        raise NotImplementedError


CompareOp = Literal["=", ">", "<", ">=", "<=", "!="]
KeepKind = Literal["kh", "kl", "dh", "dl"]
COMPARE_OPS: tuple[str, ...] = (">=", "<=", ">", "<", "=", "!=")
KEEP_KINDS: tuple[str, ...] = ("kh", "kl", "dh", "dl")


@frozen(slots=True)
class Compare:
    """A compare point: `>=5`, `<2`, `=1`, `!=3` (every face but 3)."""

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
        if op == "!=":
            return face != v
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
        if op == "!=":
            return not lo <= v <= hi
        return hi < v

    def count_in(self, lo: int, hi: int) -> int:
        """How many faces in lo..hi match."""
        op, v = self.op, self.value
        if op == "!=":
            return max(0, hi - lo + 1) - (1 if lo <= v <= hi else 0)
        if op == "=":
            first, last = v, v
        elif op == ">=":
            first, last = v, hi
        elif op == ">":
            first, last = v + 1, hi
        elif op == "<=":
            first, last = lo, v
        else:
            first, last = lo, v - 1
        return max(0, min(last, hi) - max(first, lo) + 1)

    def text(self, bare_equals: bool = False) -> str:
        if bare_equals and self.op == "=":
            return str(self.value)
        # `!=` is written `<>`, which reads back alike after `!` (`1d6!<>5`) and alone
        return f"{'<>' if self.op == '!=' else self.op}{self.value}"

    def __str__(self) -> str:
        return self.text()

    @classmethod
    def example(cls, lo: int, hi: int, choose: Choose) -> Compare:
        """A compare point near the faces lo..hi, drawn by `choose`."""
        return cls(choose.one_of(COMPARE_OPS), choose.integer(lo - 1, hi + 1))  # type: ignore[arg-type]


@frozen(slots=True)
class Reroll(Rule):
    """`r<point>`: reroll while the face matches; `ro<point>`: reroll once. Chained points
    (`r1r2`, Roll20's way) reroll on any of them: `more` holds the points after the first."""

    point: Compare
    once: bool = False
    more: tuple[Compare, ...] = ()

    @property
    def points(self) -> tuple[Compare, ...]:
        return (self.point, *self.more)

    def matches(self, face: int) -> bool:
        """Does `face` call for a reroll?"""
        if self.point.matches(face):
            return True
        return any(p.matches(face) for p in self.more)

    def __str__(self) -> str:
        word = "ro" if self.once else "r"
        return "".join(word + p.text(bare_equals=True) for p in self.points)

    def endless(self) -> bool:
        return not self.once

    def compare_points(self, e: Dice) -> tuple[Compare, ...]:
        return () if self.once else self.points

    def weights(self, counts: dict[int, int]) -> dict[int, int]:
        """The exact odds' step: one roll's natural face after this reroll, from the
        die's faces weighted by how many show each value."""
        if not self.once:
            return {f: c for f, c in counts.items() if not self.matches(f)}
        n = sum(counts.values())  # once: a matching face is replaced by a fresh roll
        m = sum(c for f, c in counts.items() if self.matches(f))
        return {f: c * (m + (0 if self.matches(f) else n)) for f, c in counts.items()}

    def bounds(self, e: Dice, b: TermBounds) -> TermBounds:
        if self.once:
            return b
        faces = [f for f in b.faces if not self.matches(f)] or b.faces
        clamped = [e.clamp(f) for f in faces]
        return b._replace(faces=faces, lo=float(min(clamped)), hi=float(max(clamped)))

    def never_ends(self, e: Dice, faces: list[int]) -> tuple[list[int], str | None]:
        if self.once:
            return faces, None
        left = [f for f in faces if not self.matches(f)]
        if not left:
            return faces, f"{e._what} would reroll forever: every face matches '{self}'"
        return left, None

    def expected_dice(self, e: Dice, n: int) -> Expected:
        lo, hi = e._range
        faces = hi - lo + 1
        matching = min(sum(p.count_in(lo, hi) for p in self.points), faces - 1)
        # on average n(1+p) dice rolled once, n/(1-p) until none matches: num/den exactly
        if self.once:
            return Expected(n * (faces + matching), faces, "rerolls", False)
        return Expected(n * faces, faces - matching, "rerolls", False)

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Reroll:
        lo, hi = e._range
        more = tuple(Compare.example(lo, hi, choose) for _ in range(choose.integer(0, 2)))
        return cls(Compare.example(lo, hi, choose), choose.flag(), more)


@frozen(slots=True)
class Explode(Rule):
    """`!` (on the highest face, or on a compare point), compound `!!`, penetrating `!p`
    (Hackmaster's: every extra die counts one less; `!!p` compounds them)."""

    point: Compare | None = None
    compound: bool = False
    penetrate: bool = False

    #: How far one die's explosions chain: the most extra dice it adds (None: no end
    #: but the dice budget when rolling, and the odds' cap, `depth`, in exact odds).
    chain_limit: ClassVar[int | None] = None

    def __str__(self) -> str:
        return (
            ("!!" if self.compound else "!")
            + ("p" if self.penetrate else "")
            + ("" if self.point is None else str(self.point))
        )

    def depth(self, cap: int) -> int:
        """The most extra dice one die adds in exact odds, whose chains stop at `cap`."""
        return cap if self.chain_limit is None else min(cap, self.chain_limit)

    def cut_at(self, cap: int) -> bool:
        """Would its chains go further than exact odds' `cap` (`Dist.truncated`)?"""
        return self.chain_limit is None or self.chain_limit > cap

    def endless(self) -> bool:
        return self.chain_limit is None

    def compare_points(self, e: Dice) -> tuple[Compare, ...]:
        return (e.explode_point(),)

    def bounds(self, e: Dice, b: TermBounds) -> TermBounds:
        point = e.explode_point()
        exploding = [e.clamp(f) for f in b.faces if point.matches(f)]
        if not exploding:
            return b
        lo, hi, most = b.lo, b.hi, b.most
        if self.penetrate:
            lo = lo - 1  # an extra die counts one less
            if self.compound:
                lo = lo + 1 if lo >= 0 else -math.inf
                hi = math.inf
            else:
                most = math.inf
        elif self.compound:
            if any(v > 0 for v in exploding):
                hi = math.inf
            if any(v < 0 for v in exploding):
                lo = -math.inf
        else:
            most = math.inf
        return b._replace(lo=lo, hi=hi, most=most)

    def never_ends(self, e: Dice, faces: list[int]) -> tuple[list[int], str | None]:
        point = e.explode_point()
        if self.chain_limit is not None or not all(point.matches(f) for f in faces):
            return faces, None
        if e.reroll is None or e.reroll.once:
            return faces, f"{e._what} would explode forever: every face matches '{self}'"
        return faces, (
            f"{e._what} would explode forever: every face left after '{e.reroll}' matches '{self}'"
        )

    def expected_dice(self, e: Dice, n: int) -> Expected:
        values = e.face_values()
        faces = len(values)
        point = e.explode_point()
        exploding = sum(1 for v in values if point.matches(v))  # fewer than faces: checked
        if self.chain_limit is not None:  # at most chain_limit extra dice each
            return Expected(n * (1 + self.chain_limit), 1, "explosions", True)
        # each chain rolls 1/(1-p) dice on average, p = exploding/faces: in all, num/den
        return Expected(n * faces, faces - exploding, "explosions", True)

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Explode:
        lo, hi = e._range
        point = None if choose.flag() else Compare.example(lo, hi, choose)
        return cls(point, choose.flag(), choose.flag())


@frozen(slots=True)
class Keep(Rule):
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

    def bounds(self, e: Dice, b: TermBounds) -> TermBounds:
        if self.kind in ("kh", "kl"):
            return b._replace(fewest=min(b.fewest, self.n), most=min(b.most, self.n))
        return b._replace(fewest=max(b.fewest - self.n, 0.0), most=max(b.most - self.n, 0.0))

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Keep:
        return cls(choose.one_of(KEEP_KINDS), choose.integer(0, 4))  # type: ignore[arg-type]


@frozen(slots=True)
class Pool(Rule):
    """A dice pool: count the dice meeting `success`, minus those meeting `failure`."""

    success: Compare
    failure: Compare | None = None

    def score(self, face: int) -> int:
        """What one kept die counts in the pool: 1 a success, -1 a failure, else 0."""
        if self.success.matches(face):
            return 1
        if self.failure is not None and self.failure.matches(face):
            return -1
        return 0

    def __str__(self) -> str:
        f = "" if self.failure is None else "f" + self.failure.text(bare_equals=True)
        return f"{self.success}{f}"

    def bounds(self, e: Dice, b: TermBounds) -> TermBounds:
        """Each kept unit scores 1, 0 or (with a failure point) -1."""
        return b._replace(lo=-1.0 if self.failure is not None else 0.0, hi=1.0)

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Pool:
        lo, hi = e._range
        success = Compare(choose.one_of(COMPARE_OPS), choose.integer(lo, hi))  # type: ignore[arg-type]
        return cls(success, None if choose.flag() else Compare.example(lo, hi, choose))


@frozen(slots=True)
class Crit(Rule):
    """Critical markers `cs>19` / `cf<2` (Roll20, rpg-dice-roller): dice whose face
    matches are flagged "critical_success" / "critical_failure"; the total is unchanged."""

    success: Compare | None = None
    failure: Compare | None = None

    def __post_init__(self) -> None:
        if self.success is None and self.failure is None:
            raise ValueError("a Crit needs a success or a failure point")

    def flags(self, face: int) -> tuple[str, ...]:
        out: tuple[str, ...] = ()
        if self.success is not None and self.success.matches(face):
            out = ("critical_success",)
        if self.failure is not None and self.failure.matches(face):
            out = (*out, "critical_failure")
        return out

    def __str__(self) -> str:
        s = "" if self.success is None else "cs" + self.success.text(bare_equals=True)
        f = "" if self.failure is None else "cf" + self.failure.text(bare_equals=True)
        return s + f

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Crit:
        lo, hi = e._range
        success = None if choose.flag() else Compare.example(lo, hi, choose)
        return cls(success, Compare.example(lo, hi, choose))


SortOrder = Literal["a", "d"]


def rule_classes() -> tuple[type[Rule], ...]:
    """Every modifier class (a `Rule` and its variants, subclasses included): the request
    codec (d20cli.language.parse_cache) reads them by name."""
    out: list[type[Rule]] = []
    stack = list(reversed(Rule.__subclasses__()))
    while stack:
        cls = stack.pop()
        # (a slotted frozen class is made anew: the first class made stays a subclass)
        if getattr(sys.modules[cls.__module__], cls.__name__, None) is cls:
            out.append(cls)
        stack.extend(reversed(cls.__subclasses__()))
    return tuple(out)


class Modifier:
    """A row of MODIFIERS: the field of `Dice` that holds one kind of modifier, how
    messages name it, and (for a field whose value is a `Rule`) that class."""

    __slots__ = ("field", "rule", "what")

    def __init__(self, field: str, what: str, rule: type[Rule] | None = None) -> None:
        self.field = field
        self.what = what
        self.rule = rule

    def text(self, value: Any) -> str:
        """The text form of the field's value (`""` when unset)."""
        return "" if value is None else str(value)

    def endless(self, value: Any) -> bool:
        """Could the field's value roll without end (`Rule.endless`)?"""
        return isinstance(value, Rule) and value.endless()

    def example(self, e: Dice, choose: Choose) -> Any:
        """A value of the field for `e`'s dice, drawn by `choose` (the property tests):
        of its class or of a variant (a subclass) of it."""
        rule = self.rule
        assert rule is not None
        return choose.one_of([c for c in rule_classes() if issubclass(c, rule)]).example(e, choose)


class _Limit(Modifier):
    """`mi` / `ma`: an int, the face every lower / higher face counts as (`Dice.clamp`)."""

    __slots__ = ("word",)

    def __init__(self, field: str, word: str) -> None:
        super().__init__(field, f"'{word}'")
        self.word = word

    def text(self, value: Any) -> str:
        return "" if value is None else f"{self.word}{value}"

    def example(self, e: Dice, choose: Choose) -> int:
        lo, hi = e._range
        return choose.integer(lo, hi)


class _Flag(Modifier):
    """`u`: a bool, different faces on every die (`Dice.unique_conflict`, exploding.unique)."""

    __slots__ = ()

    def text(self, value: Any) -> str:
        return "u" if value else ""

    def endless(self, value: Any) -> bool:
        return bool(value)  # a repeated face is rolled again until the faces differ

    def example(self, e: Dice, choose: Choose) -> bool:
        return True


class _Sort(Modifier):
    """`sa` / `sd`: the dice shown in order ("a" or "d"); nothing else changes."""

    __slots__ = ()

    def text(self, value: Any) -> str:
        return "" if value is None else f"s{value}"

    def example(self, e: Dice, choose: Choose) -> str:
        return choose.one_of(("a", "d"))


#: Every modifier, in the order of its text form (`2d6r1!mi2ma5kh1>=4ucs6sa`); steps run
#: in this order.
MODIFIERS: tuple[Modifier, ...] = (
    Modifier("reroll", "a reroll", Reroll),
    Modifier("explode", "an explosion", Explode),
    _Limit("minimum", "mi"),
    _Limit("maximum", "ma"),
    Modifier("keep", "keep/drop", Keep),
    Modifier("pool", "a pool target", Pool),
    _Flag("unique", "'u'"),  # after a pool: `u>=4` is rpg-dice-roller's
    Modifier("crit", "a critical marker", Crit),
    _Sort("sort", "a sort"),
)
