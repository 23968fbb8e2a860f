"""The modifiers of a dice term (`r1`, `!`, `kh3`, `>=7`, `cs>19`): the per-die rules that
rolling (d20cli.dice.evaluate) and exact distributions (d20cli.dice.distribution) share.
Re-exported by d20cli.dice.tree.
"""

from __future__ import annotations

from typing import Literal

from d20cli.frozen import frozen

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


@frozen(slots=True)
class Reroll:
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


@frozen(slots=True)
class Explode:
    """`!` (on the highest face, or on a compare point), compound `!!`, penetrating `!p`
    (Hackmaster's: every extra die counts one less; `!!p` compounds them)."""

    point: Compare | None = None
    compound: bool = False
    penetrate: bool = False

    def __str__(self) -> str:
        return (
            ("!!" if self.compound else "!")
            + ("p" if self.penetrate else "")
            + ("" if self.point is None else str(self.point))
        )


@frozen(slots=True)
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


@frozen(slots=True)
class Pool:
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


@frozen(slots=True)
class Crit:
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


SortOrder = Literal["a", "d"]
