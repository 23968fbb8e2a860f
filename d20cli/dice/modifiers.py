"""The modifiers of a dice term (`r1`, `!`, `mi2`, `kh3`, `>=7`, `u`, `cs>19`, `sa`): the one
home of each.

Each modifier is a `Rule` class (`Reroll`, `Explode`, `Minimum`, `Maximum`, `Keep`, `Pool`,
`Unique`, `Crit`, `Sort`) holding its steps: its spellings and what the grammar reads
after them (d20cli.language.dice_modifiers builds the grammar of the modifiers from them),
its text form, its step of a term's bounds, why it could never stop, how many dice it
rolls on average (the budget), its steps in rolling (d20cli.dice.evaluate: rolled die by
die, a face rolled again, the dice kept, the pool's count, the dice shown and marked) and
in exact odds (d20cli.dice.distribution: one roll's weights, a counted unit's cost, the
weights of the whole term), and how a test draws one. Each step is a no-op unless the
class overrides it, and `Dice.rules` holds the term's rules in the order of `MODIFIERS`,
so bounds, the stop check, the budget, rolling and exact odds loop over them. A row of
`MODIFIERS` (a `Modifier`) names the `Dice` field that holds a kind of modifier (the rule
itself, or the plain value its `held` gives: `mi`'s number, `u`'s flag, a sort's order),
how messages name it and its rule class; a variant of a kind is a subclass of its class.

How far an explosion chains is `Explode.chain_limit`. Re-exported by d20cli.dice.tree.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence

from d20cli.errors import DiceError
from d20cli.frozen import frozen
from d20cli.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any, ClassVar, Literal, Protocol, TypeVar

    T = TypeVar("T")
    CompareOp = Literal["=", ">", "<", ">=", "<=", "!="]
    KeepKind = Literal["kh", "kl", "dh", "dl"]
    SortOrder = Literal["a", "d"]

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
        @property
        def custom(self) -> tuple[int, ...] | None: ...
        @property
        def explode(self) -> Explode | None: ...
        @property
        def keep(self) -> Keep | None: ...
        @property
        def pool(self) -> Pool | None: ...
        def clamp(self, face: int) -> int: ...
        def value(self, face: int, extra: bool) -> int: ...
        def explode_point(self) -> Compare: ...
        def face_values(self) -> list[int]: ...
        def unique_faces(self) -> int: ...

    class Odds(Protocol):
        """What a modifier's exact-odds step asks of the calculator (d20cli.dice.distribution,
        which holds the weight arithmetic this module may not import). `e` is the term
        whose step asks (a d20cli.dice.tree.Dice)."""

        @property
        def depth(self) -> int: ...
        def units(self, e: Any, n: int, unit: Weights, score: Score, highest: bool) -> Weights: ...
        def power(self, unit: Weights, n: int) -> Weights: ...
        def chain(
            self, depth: int, link: Weights, point: Compare, value: Score, extra_value: Score
        ) -> Weights: ...
        def exploded_keep(
            self,
            depth: int,
            e: Any,
            n: int,
            link: Weights,
            point: Compare,
            score: Score,
            highest: bool,
        ) -> Weights: ...
        def exploded_keep_cost(self, e: Any, n: int, d: int, bits: int) -> int: ...
        def unique(self, e: Any, n: int, link: Weights, score: Score, highest: bool) -> Weights: ...


Weights = dict[int, int]  # value -> weight (d20cli.dice.weights)
Score = Callable[[int], int]


#: How a term rolled one by one rolls a die again (`Rule.rolls_again`): `test`, is a
#: die showing this face rolled again (the face left visible as "rerolled")? at most
#: `most` times (None: until the test says no); `settled` (or None), told the face a die
#: settles on. Made once per term rolled (it may remember the faces shown).
class Again(NamedTuple):
    test: Callable[[int], bool]
    most: int | None
    settled: Callable[[int], object] | None


#: One counted unit of a term (a die, a compound chain, a pool's score) as exact odds
#: cost it (`distribution._term_estimate`): the work so far, the span of its values, how
#: many values it has, the bits of its weights, whether its faces are still the uniform
#: 1..sides (so `power` takes its recurrence), and the faces of one die.
class Unit(NamedTuple):
    work: int
    span: int
    values: int
    bits: int
    uniform: bool
    faces: int


#: What a term's bounds are made of, step by step (`Dice.bounds`): the natural faces one
#: die may settle on, the least and most one counted unit (a die, a compound chain, a
#: pool's score) is worth, and the fewest and most units counted.
class TermBounds(NamedTuple):
    faces: list[int]
    lo: float
    hi: float
    fewest: float
    most: float


#: About num/den dice rolled on average, because of `what` ("explosions"); `reach`:
#: refused when the average reaches what the budget has left, not only when it passes.
class Expected(NamedTuple):
    num: int
    den: int
    what: str
    reach: bool


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

    # -- its spelling (the grammar, d20cli.language.dice_modifiers, and the text form) --

    #: Its spellings, each with the fields it sets: the grammar is built from them
    #: (each kind's longest first, any case) and the text form is the first whose fields
    #: match. A variant (a subclass) states its own.
    spellings: ClassVar[dict[str, dict[str, Any]]] = {}

    #: What the grammar reads after a spelling: "point" (a compare point, a bare number
    #: meaning `=`; no letter may follow the spelling), "number" (a signed number; no
    #: letter may follow), "count" (a count, 1 if none; no letter may follow a one-letter
    #: spelling), "comparison" (a compare point or nothing), "target" (a pool: a comparison
    #: with no word, then the first spelling and a compare point, or nothing), "" (nothing).
    reads: ClassVar[str] = ""

    @classmethod
    def spelt(cls, word: str, arg: Any) -> Rule:
        """The modifier written `word` (a spelling, lower case) and `arg` (what `reads`
        read: None when nothing followed)."""
        fields = cls.spellings[word]
        return cls(**fields) if cls.reads == "" else cls(arg, **fields)  # type: ignore[call-arg]

    def spelling(self) -> str:
        """Its spelling in the text form (without what follows it)."""
        for word, values in self.spellings.items():
            if all(getattr(self, name) == v for name, v in values.items()):
                return word
        raise ValueError(f"no spelling of {type(self).__name__} for {self!r}")

    def held(self) -> Any:
        """What its field of `Dice` holds: the rule itself, unless the field holds a plain
        value (`mi`'s number, `u`'s flag, a sort's order)."""
        return self

    @classmethod
    def of(cls, value: Any) -> Rule:
        """The rule of a value its field holds (`held` read back)."""
        return value  # type: ignore[no-any-return]

    def joined(self, later: Rule) -> Rule | str | None:
        """This modifier written again on one term (`2d6r1r2`): the two as one, or why
        not; None: it is written once only ("the dice already have ...")."""
        return None

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

    # -- rolling (d20cli.dice.evaluate) ----------------------------------------------

    #: Are the term's dice rolled one by one, each with its own chain of faces?
    one_by_one: ClassVar[bool] = False

    def rolls_again(self, e: Dice) -> Again | None:
        """For a term rolled one by one: when a die is rolled again; None: never."""
        return None

    #: Does it take part in the steps after the dice are rolled (`select`, `tally`,
    #: `shown`)? (A term loops over those of its rules only: `Dice.finishing`.)
    finishes: ClassVar[bool] = False

    def select(self, values: list[int]) -> tuple[list[bool] | None, int] | None:
        """Which units (one value each) count (None: all of them), and the sum of those;
        None: all, and their sum."""
        return None

    def tally(
        self,
        units: list[list[int]],
        values: list[int],
        unit_kept: list[bool],
        flags: list[tuple[str, ...]] | None,
        dice: int,
    ) -> tuple[int, list[tuple[str, ...]]] | None:
        """The total of the counted units and the flags of the term's `dice` dice, marked
        (`flags` may be marked in place); None: the sum of the kept units."""
        return None

    def shown(
        self,
        faces: list[int],
        kept: list[bool],
        flags: list[tuple[str, ...]] | None,
        units: list[list[int]],
    ) -> tuple[list[int], list[bool], list[tuple[str, ...]] | None, list[tuple[int, ...]]] | None:
        """The dice as a table sees them (faces, kept, flags and each die's parts), when
        they are not the faces rolled; None: as rolled."""
        return None

    #: Does it mark the dice once they are rolled and kept (`mark`)? (A term loops over
    #: those of its rules only: `Dice.marking`.)
    marks: ClassVar[bool] = False

    def mark(
        self,
        faces: list[int],
        kept: list[bool],
        flags: list[tuple[str, ...]],
        parts: list[tuple[int, ...]] | None,
    ) -> tuple[list[int], list[bool], list[tuple[str, ...]], list[tuple[int, ...]] | None]:
        """The dice as shown once rolled and kept (d20cli.dice.evaluated.marked): flags
        added, an order; the total is unchanged."""
        return faces, kept, flags, parts

    # -- exact odds (d20cli.dice.distribution) ----------------------------------------

    def link(self, counts: Weights) -> Weights:
        """One roll's natural face after this modifier, from the die's faces weighted by
        how many show each value."""
        return counts

    def unit(self, e: Dice, depth: int, u: Unit) -> Unit:
        """A counted unit's cost after this modifier (`depth`: the odds' chain cap)."""
        return u

    def whole_cost(self, odds: Odds, e: Dice, n: int, u: Unit) -> tuple[int, int, int] | None:
        """When this modifier computes the term's weights itself (`weights`): their cost
        (work, about how many values, how many bits), from `u`, the unit's cost so far."""
        return None

    def weights(
        self, odds: Odds, e: Dice, n: int, link: Weights, score: Score, highest: bool
    ) -> tuple[Weights, Fraction | None] | None:
        """The weights of `n` dice of `e` and the chance a chain was cut at the cap (None:
        0), when this modifier computes them (`link`: one roll's face, `score`: what a
        kept value counts, `highest`: keep the highest); None: n independent clamped dice."""
        return None

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Rule | None:
        """One such modifier for `e`'s dice, drawn by `choose`, for the property tests."""
        raise NotImplementedError


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

    spellings: ClassVar[dict[str, dict[str, Any]]] = {"ro": {"once": True}, "r": {"once": False}}
    reads: ClassVar[str] = "point"

    def joined(self, later: Rule) -> Rule | str:
        """Chained rerolls (`2d6r1r2`, Roll20's way) reroll on any of their points."""
        assert isinstance(later, Reroll)
        if later.once != self.once:
            return "a chain of rerolls cannot mix 'r' and 'ro'"
        return Reroll(self.point, self.once, (*self.more, later.point))

    @property
    def points(self) -> tuple[Compare, ...]:
        return (self.point, *self.more)

    def matches(self, face: int) -> bool:
        """Does `face` call for a reroll?"""
        if self.point.matches(face):
            return True
        return any(p.matches(face) for p in self.more)

    def __str__(self) -> str:
        word = self.spelling()
        return "".join(word + p.text(bare_equals=True) for p in self.points)

    def endless(self) -> bool:
        return not self.once

    def compare_points(self, e: Dice) -> tuple[Compare, ...]:
        return () if self.once else self.points

    one_by_one: ClassVar[bool] = True

    def rolls_again(self, e: Dice) -> Again:
        test = self.matches if self.more else self.point.matches
        return Again(test, 1 if self.once else None, None)

    def link(self, counts: Weights) -> Weights:
        if not self.once:
            return {f: c for f, c in counts.items() if not self.matches(f)}
        n = sum(counts.values())  # once: a matching face is replaced by a fresh roll
        m = sum(c for f, c in counts.items() if self.matches(f))
        return {f: c * (m + (0 if self.matches(f) else n)) for f, c in counts.items()}

    def unit(self, e: Dice, depth: int, u: Unit) -> Unit:
        # once: each face's weight is a product of two rolls'
        return Unit(u.work, u.span, u.values, u.bits * (2 if self.once else 1), False, u.faces)

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

    spellings: ClassVar[dict[str, dict[str, Any]]] = {
        "!!p": {"compound": True, "penetrate": True},
        "!!": {"compound": True, "penetrate": False},
        "!p": {"compound": False, "penetrate": True},
        "!": {"compound": False, "penetrate": False},
    }
    reads: ClassVar[str] = "comparison"

    def __post_init__(self) -> None:
        self.spelling()  # a variant that has no spelling could not be read back

    def __str__(self) -> str:
        return self.spelling() + ("" if self.point is None else str(self.point))

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
        limit = self.chain_limit
        if limit is not None:  # at most `limit` extra dice, each worth xlo..xhi
            less = 1 if self.penetrate else 0
            xlo, xhi = lo - less, hi - less
            if self.compound:
                return b._replace(lo=lo + limit * min(xlo, 0), hi=hi + limit * max(xhi, 0))
            return b._replace(lo=min(lo, xlo), most=most * (limit + 1))
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
        point = e.explode_point()
        custom = e.custom
        if custom is None:  # the faces lo..hi
            lo, hi = e._range
            faces, exploding = hi - lo + 1, point.count_in(lo, hi)
        else:
            faces, exploding = len(custom), sum(1 for v in custom if point.matches(v))
        # (fewer exploding than faces: `never_ends` checked it)
        if self.chain_limit is not None:  # at most chain_limit extra dice each
            return Expected(n * (1 + self.chain_limit), 1, "explosions", True)
        # each chain rolls 1/(1-p) dice on average, p = exploding/faces: in all, num/den
        return Expected(n * faces, faces - exploding, "explosions", True)

    one_by_one: ClassVar[bool] = True
    finishes: ClassVar[bool] = True

    def shown(
        self,
        faces: list[int],
        kept: list[bool],
        flags: list[tuple[str, ...]] | None,
        units: list[list[int]],
    ) -> tuple[list[int], list[bool], list[tuple[str, ...]] | None, list[tuple[int, ...]]] | None:
        """Compounding: each chain of `!!` is one die whose face is the sum of its parts
        (flagged "compounded", its parts kept), marked once for a pool, kept or dropped as
        one. Rerolled-away faces stay as they are."""
        if not self.compound:
            return None
        first = {unit[0]: unit for unit in units}
        inside = {i for unit in units for i in unit[1:]}
        out_faces: list[int] = []
        out_kept: list[bool] = []
        out_flags: list[tuple[str, ...]] = []
        out_parts: list[tuple[int, ...]] = []
        for i, face in enumerate(faces):
            if i in inside:
                continue
            fl = () if flags is None else flags[i]
            unit = first.get(i)
            if unit is not None and len(unit) > 1:
                parts = tuple(faces[j] for j in unit)
                marks = tuple(f for f in fl if f not in ("exploded",))
                out_faces.append(sum(parts))
                out_flags.append(("compounded", *marks))
                out_parts.append(parts)
            else:
                out_faces.append(face)
                out_flags.append(fl)
                out_parts.append(())
            out_kept.append(kept[i])
        return out_faces, out_kept, out_flags if any(out_flags) else None, out_parts

    def unit(self, e: Dice, depth: int, u: Unit) -> Unit:
        d = self.depth(depth)  # the chain, level by level
        span = u.span * (d + 1)
        work = u.work + d * u.faces * (span + 1)
        return Unit(work, span, span + 1, u.bits * (d + 1), False, u.faces)

    def whole_cost(self, odds: Odds, e: Dice, n: int, u: Unit) -> tuple[int, int, int] | None:
        if e.keep is None or self.compound:
            return None
        d = self.depth(odds.depth)  # kept over every die of every chain
        work = u.work + odds.exploded_keep_cost(e, n, d, u.bits)
        return work, e.keep.kept_count(n) * u.span * (d + 1) + 1, n * u.bits * (d + 1)

    def weights(
        self, odds: Odds, e: Dice, n: int, link: Weights, score: Score, highest: bool
    ) -> tuple[Weights, Fraction]:
        from fractions import Fraction

        point = e.explode_point()
        depth = self.depth(odds.depth)
        if self.endless() and (
            all(point.matches(f) for f in e.face_values()) or all(point.matches(f) for f in link)
        ):
            raise DiceError(f"'{e}' would explode forever: every face matches '{self}'")
        p = Fraction(sum(w for f, w in link.items() if point.matches(f)), sum(link.values()))
        cut = self.cut_at(odds.depth)  # else the explosion itself stops first
        truncated = 1 - (1 - p ** (depth + 1)) ** n if n and cut else Fraction(0)
        if self.compound:
            unit = odds.chain(
                depth, link, point, lambda f: e.value(f, False), lambda f: e.value(f, True)
            )
            return odds.units(e, n, unit, score, highest), truncated
        if e.keep is None:  # every extra die counts (or scores) on its own
            per_die = odds.chain(
                depth,
                link,
                point,
                lambda f: score(e.value(f, False)),
                lambda f: score(e.value(f, True)),
            )
            return odds.power(per_die, n), truncated
        return odds.exploded_keep(depth, e, n, link, point, score, highest), truncated

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Explode:
        lo, hi = e._range
        point = None if choose.flag() else Compare.example(lo, hi, choose)
        return cls(point, **choose.one_of(list(cls.spellings.values())))


@frozen(slots=True)
class Keep(Rule):
    """`khN`, `klN` keep the N highest/lowest dice; `dhN`, `dlN` drop them."""

    kind: KeepKind
    n: int

    #: `k` is Roll20's, Foundry's and rpg-dice-roller's keep-highest, `d` Roll20's drop-lowest.
    spellings: ClassVar[dict[str, dict[str, Any]]] = {
        **{kind: {"kind": kind} for kind in KEEP_KINDS},
        "k": {"kind": "kh"},
        "d": {"kind": "dl"},
    }
    reads: ClassVar[str] = "count"

    @classmethod
    def spelt(cls, word: str, arg: Any) -> Keep:
        return cls(cls.spellings[word]["kind"], arg)

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

    finishes: ClassVar[bool] = True

    @property
    def highest(self) -> bool:
        """Are the highest kept (`kh`, `dl`)?"""
        return self.kind in ("kh", "dl")

    def select(self, values: list[int]) -> tuple[list[bool] | None, int]:
        """The units kept (None: every one), highest first for kh/dl (ties keep the
        earlier unit: a stable sort, also in reverse), and their sum."""
        n = len(values)
        kind = self.kind  # (kept_count, written out: this is every roll's path)
        k = min(self.n, n) if kind in ("kh", "kl") else max(n - self.n, 0)
        if k == n:
            return None, sum(values)
        order = sorted(range(n), key=values.__getitem__, reverse=kind in ("kh", "dl"))
        kept = [False] * n
        total = 0
        for i in order[:k]:
            kept[i] = True
            total += values[i]
        return kept, total

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

    #: The spelling of its failure point (`>=7f1`); its success point is a comparison
    #: with no word.
    spellings: ClassVar[dict[str, dict[str, Any]]] = {"f": {}}
    reads: ClassVar[str] = "target"

    @classmethod
    def spelt(cls, word: str, arg: Any) -> Pool:
        return cls(*arg)

    def score(self, face: int) -> int:
        """What one kept die counts in the pool: 1 a success, -1 a failure, else 0."""
        if self.success.matches(face):
            return 1
        if self.failure is not None and self.failure.matches(face):
            return -1
        return 0

    def __str__(self) -> str:
        f = "" if self.failure is None else self.spelling() + self.failure.text(bare_equals=True)
        return f"{self.success}{f}"

    def bounds(self, e: Dice, b: TermBounds) -> TermBounds:
        """Each kept unit scores 1, 0 or (with a failure point) -1."""
        return b._replace(lo=-1.0 if self.failure is not None else 0.0, hi=1.0)

    finishes: ClassVar[bool] = True

    def tally(
        self,
        units: list[list[int]],
        values: list[int],
        unit_kept: list[bool],
        flags: list[tuple[str, ...]] | None,
        dice: int,
    ) -> tuple[int, list[tuple[str, ...]]]:
        """Successes minus failures among the kept units, their dice marked."""
        if flags is None:
            flags = [()] * dice
        total = 0
        for u, idxs in enumerate(units):
            if not unit_kept[u]:
                continue
            score = self.score(values[u])
            total += score
            mark = POOL_MARKS[score]
            if mark:
                for i in idxs:
                    flags[i] = (*flags[i], mark)
        return total, flags

    def unit(self, e: Dice, depth: int, u: Unit) -> Unit:
        return Unit(u.work, min(u.span, 2), u.values, u.bits, False, u.faces)

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

    #: Its spellings: the success point's, then the failure point's.
    spellings: ClassVar[dict[str, dict[str, Any]]] = {"cs": {}, "cf": {}}
    reads: ClassVar[str] = "point"

    @classmethod
    def spelt(cls, word: str, arg: Any) -> Crit:
        return cls(arg) if word == next(iter(cls.spellings)) else cls(None, arg)

    def joined(self, later: Rule) -> Rule | str:
        """`cs` and `cf` are one marker each: `cs>19cf<2` sets both."""
        assert isinstance(later, Crit)
        for word, mine, theirs in zip(
            self.spellings,
            (self.success, self.failure),
            (later.success, later.failure),
            strict=True,
        ):
            if mine is not None and theirs is not None:
                return f"the dice already have a '{word}' marker"
        return Crit(self.success or later.success, self.failure or later.failure)

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
        points = (self.success, self.failure)
        return "".join(
            w + p.text(bare_equals=True)
            for w, p in zip(self.spellings, points, strict=True)
            if p is not None
        )

    marks: ClassVar[bool] = True

    def mark(
        self,
        faces: list[int],
        kept: list[bool],
        flags: list[tuple[str, ...]],
        parts: list[tuple[int, ...]] | None,
    ) -> tuple[list[int], list[bool], list[tuple[str, ...]], list[tuple[int, ...]] | None]:
        """The kept dice (not a rerolled-away face) flagged by their face."""
        flags = [
            (*fl, *self.flags(f)) if k and "rerolled" not in fl else fl
            for f, k, fl in zip(faces, kept, flags, strict=True)
        ]
        return faces, kept, flags, parts

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Crit:
        lo, hi = e._range
        success = None if choose.flag() else Compare.example(lo, hi, choose)
        return cls(success, Compare.example(lo, hi, choose))


@frozen(slots=True)
class Unique(Rule):
    """`u`: the dice of a term show different faces (a face another die already shows is
    rolled again); held in `Dice.unique` as a flag, this rule is its steps."""

    spellings: ClassVar[dict[str, dict[str, Any]]] = {"u": {}}

    @classmethod
    def spelt(cls, word: str, arg: Any) -> Unique:
        return UNIQUE

    def held(self) -> bool:
        return True

    @classmethod
    def of(cls, value: Any) -> Unique:
        return UNIQUE

    def __str__(self) -> str:
        return self.spelling()

    def endless(self) -> bool:
        return True  # a repeated face is rolled again until the faces differ

    one_by_one: ClassVar[bool] = True

    def rolls_again(self, e: Dice) -> Again:
        seen: set[int] = set()  # the faces the term's dice settled on
        return Again(seen.__contains__, None, seen.add)

    def whole_cost(self, odds: Odds, e: Dice, n: int, u: Unit) -> tuple[int, int, int]:
        faces = u.faces
        custom = e.custom
        span = faces - 1 if custom is None else max(custom) - min(custom)
        k = n if e.keep is None else e.keep.kept_count(n)
        width = 2 if e.pool is not None else faces
        work = faces * (n + 1) * (k * width + 1)
        return work, k * span + 1, n * faces.bit_length()

    def weights(
        self, odds: Odds, e: Dice, n: int, link: Weights, score: Score, highest: bool
    ) -> tuple[Weights, None]:
        return odds.unique(e, n, link, score, highest), None

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Unique:
        return UNIQUE


UNIQUE = Unique()
POOL_MARKS = {1: "success", -1: "failure", 0: ""}  # a pool's marks on its dice, by score


class Clamp(Rule):
    """`mi` / `ma` (`Minimum`, `Maximum`): the face every lower / higher face counts as;
    held in `Dice.minimum` / `Dice.maximum` as the number, which `Dice.clamp` applies
    (explosions and rerolls look at the natural face; the total and keep/drop at the
    clamped one)."""

    __slots__ = ()
    reads: ClassVar[str] = "number"
    value: int

    def held(self) -> int:
        return self.value

    @classmethod
    def of(cls, value: Any) -> Rule:
        return cls(value)  # type: ignore[call-arg]

    def __str__(self) -> str:
        return f"{self.spelling()}{self.value}"

    def unit(self, e: Dice, depth: int, u: Unit) -> Unit:
        return u._replace(uniform=False)  # the faces are no longer 1..sides alike

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Rule:
        lo, hi = e._range
        return cls(choose.integer(lo, hi))  # type: ignore[call-arg]


@frozen(slots=True)
class Minimum(Clamp):
    """`miN`: every face below N counts as N."""

    value: int
    spellings: ClassVar[dict[str, dict[str, Any]]] = {"mi": {}}


@frozen(slots=True)
class Maximum(Clamp):
    """`maN`: every face above N counts as N."""

    value: int
    spellings: ClassVar[dict[str, dict[str, Any]]] = {"ma": {}}


SORT_ORDERS: tuple[str, ...] = ("a", "d")


@frozen(slots=True)
class Sort(Rule):
    """`sa` / `s`, `sd`: the dice shown in ascending / descending order of face (a stable
    sort: kept marks, flags and a compound die's parts move along); held in `Dice.sort`
    as the order, "a" or "d"; nothing else changes."""

    order: SortOrder
    spellings: ClassVar[dict[str, dict[str, Any]]] = {
        "sa": {"order": "a"},
        "sd": {"order": "d"},
        "s": {"order": "a"},
    }

    def held(self) -> str:
        return self.order

    @classmethod
    def of(cls, value: Any) -> Sort:
        return cls(value)

    def __str__(self) -> str:
        return self.spelling()

    marks: ClassVar[bool] = True

    def mark(
        self,
        faces: list[int],
        kept: list[bool],
        flags: list[tuple[str, ...]],
        parts: list[tuple[int, ...]] | None,
    ) -> tuple[list[int], list[bool], list[tuple[str, ...]], list[tuple[int, ...]] | None]:
        order = sorted(range(len(faces)), key=faces.__getitem__, reverse=self.order == "d")
        return (
            [faces[i] for i in order],
            [kept[i] for i in order],
            [flags[i] for i in order],
            None if parts is None else [parts[i] for i in order],
        )

    @classmethod
    def example(cls, e: Dice, choose: Choose) -> Sort:
        return cls(choose.one_of(("a", "d")))


def rule_classes() -> tuple[type[Rule], ...]:
    """Every modifier class (a `Rule` and its variants, subclasses included; a class with
    no spelling, such as `Clamp`, is a base of some): the request codec
    (d20cli.language.parse_cache) reads them by name."""
    out: list[type[Rule]] = []
    stack = list(reversed(Rule.__subclasses__()))
    while stack:
        cls = stack.pop()
        # (a slotted frozen class is made anew: the first class made stays a subclass)
        if cls.spellings and getattr(sys.modules[cls.__module__], cls.__name__, None) is cls:
            out.append(cls)
        stack.extend(reversed(cls.__subclasses__()))
    return tuple(out)


class Modifier:
    """A row of MODIFIERS: the field of `Dice` that holds one kind of modifier, how
    messages name it, and its rule class (the value the field holds is the rule, or
    what its `held` gives: `Dice.minimum` an int, `Dice.unique` a flag)."""

    __slots__ = ("field", "rule", "what")

    def __init__(self, field: str, what: str, rule: type[Rule]) -> None:
        self.field = field
        self.what = what
        self.rule = rule

    def rule_of(self, value: Any) -> Rule | None:
        """The rule that carries the steps of the field's value (None when unset)."""
        if value is None or value is False:
            return None
        return value if isinstance(value, Rule) else self.rule.of(value)

    def endless(self, value: Any) -> bool:
        """Could the field's value roll without end (`Rule.endless`)?"""
        rule = self.rule_of(value)
        return rule is not None and rule.endless()

    def variants(self) -> list[type[Rule]]:
        """Its rule class and the variants (subclasses) of it."""
        return [c for c in rule_classes() if issubclass(c, self.rule)]

    def example(self, e: Dice, choose: Choose) -> Any:
        """A value of the field for `e`'s dice, drawn by `choose` (the property tests):
        of its class or of a variant (a subclass) of it."""
        rule = choose.one_of(self.variants()).example(e, choose)
        assert rule is not None
        return rule.held()


#: Every modifier, in the order of its text form (`2d6r1!mi2ma5kh1>=4ucs6sa`); steps run
#: in this order, and the grammar tries their spellings in this order.
MODIFIERS: tuple[Modifier, ...] = (
    Modifier("reroll", "a reroll", Reroll),
    Modifier("explode", "an explosion", Explode),
    Modifier("minimum", "'mi'", Minimum),
    Modifier("maximum", "'ma'", Maximum),
    Modifier("keep", "keep/drop", Keep),
    Modifier("pool", "a pool target", Pool),
    Modifier("unique", "'u'", Unique),  # after a pool: `u>=4` is rpg-dice-roller's
    Modifier("crit", "a critical marker", Crit),
    Modifier("sort", "a sort", Sort),
)
