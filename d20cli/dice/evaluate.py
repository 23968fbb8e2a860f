"""The evaluation of a dice expression (d20cli.dice.tree) with faces from a roller.

Pure: no I/O, no global state, no global random. Faces come from a `Roller` that the
caller passes in; the grammar lives in `d20cli.language.dice_grammar`.

The syntax tree is `d20cli.dice.tree`'s (its docstring lists the nodes).

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
from collections.abc import Callable

from d20cli.dice.arith import ROUNDING
from d20cli.dice.arith import exact_step as exact_step
from d20cli.dice.evaluated import EvalArithmetic as EvalArithmetic
from d20cli.dice.evaluated import EvalCall as EvalCall
from d20cli.dice.evaluated import EvalDice as EvalDice
from d20cli.dice.evaluated import EvalGroup as EvalGroup
from d20cli.dice.evaluated import EvalNeg as EvalNeg
from d20cli.dice.evaluated import EvalNumber as EvalNumber
from d20cli.dice.evaluated import Evaluated as Evaluated
from d20cli.dice.evaluated import marked
from d20cli.dice.evaluated import summarise as summarise
from d20cli.dice.modifiers import POOL_MARKS
from d20cli.dice.roller import MAX_ONE_BY_ONE, Roller
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
    walk,
)
from d20cli.errors import BudgetError, DiceError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction

# ---------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------


def fewest_dice(expr: Expr) -> int:
    """The dice an expression rolls at the least: the sum of its terms' fixed counts (a
    computed count, an explosion or a reroll can only add to it). Lets a caller refuse
    `1000x 1001d6` before rolling any of it."""
    parts = (expr.first, *(x for _, x in expr.rest)) if type(expr) is Arithmetic else (expr,)
    least = 0
    for part in parts:  # (a sum of terms and numbers, most expressions: walked no further)
        if type(part) is Number:
            continue
        if type(part) is Dice and isinstance(part.count, int) and not part._computed:
            least += part.count
            continue
        least += sum(
            x.count for x, _ in walk(part) if isinstance(x, Dice) and isinstance(x.count, int)
        )
    return least


def evaluate(
    expr: Expr, roller: Roller, role: str = "roll", roles: dict[int, str] | None = None
) -> Evaluated:
    """Roll `expr` with faces from `roller`; every die gets `role`, or the role `roles`
    gives its term (by the term's id)."""
    return _Evaluator(roller, role, roles or {}).eval(expr)


def never_ends(e: Dice) -> str | None:
    """Why rerolling or exploding `e` could never stop, or None if it always can: each
    modifier in turn leaves the faces a die may settle on, or says why none is left."""
    rules = e._rules
    if not rules:
        return None
    lo, hi = e._range
    points = [p for rule in rules for p in rule.compare_points(e)]
    if not points:
        return None
    # Each point's non-matching faces are one or two intervals whose ends lie next to its
    # value, so if some face stops them all, one of these candidates does.
    candidates = {lo, hi} | {p.value + d for p in points for d in (-1, 0, 1)}
    faces = [f for f in candidates if lo <= f <= hi] if e.custom is None else list(e.custom)
    for rule in rules:
        faces, problem = rule.never_ends(e, faces)
        if problem is not None:
            return problem
    return None


def unique_problem(e: Dice, n: int) -> str | None:
    """Why `n` dice of `e` cannot all show different faces (`u`), or None."""
    if not e.unique:
        return None
    faces = e.unique_faces()
    if n > faces:
        return f"{e._what} cannot show {n} different faces: its die has only {faces}"
    return None


def _expect_within_budget(e: Dice, n: int, roller: Roller) -> None:
    """Refuse dice whose rerolls or explosions would, on average, roll past the budget
    (`500000d2!`) or past MAX_ONE_BY_ONE (`2000000d6r1`) before rolling any of them."""
    for rule in e._rules:
        expected = rule.expected_dice(e, n)
        if expected is None:
            continue
        num, den, what, reach = expected
        left = (roller.budget - roller.count) * den
        if num > left or (reach and num == left):
            raise roller.over_budget(
                e._what, f": with its {what} it rolls about {-(-num // den):,} on average"
            )
        if roller.count * den + num > MAX_ONE_BY_ONE * den:
            raise _one_by_one(e)


def _one_by_one(e: Dice) -> BudgetError:
    return BudgetError(
        f"{e._what} needs more than {MAX_ONE_BY_ONE:,} dice rolled one by one (keep or "
        "drop, pools, rerolls, explosions, unique, min/max): the most one request may "
        "roll that way, whatever --budget says"
    )


def too_large(e: Expr) -> str:
    """The message for an expression whose total leaves +-MAX_TOTAL."""
    text = str(e)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"'{text}' is too large: a total must stay within \u00b1{MAX_TOTAL:,}"


def group_kept(e: Group, totals: list[int]) -> list[bool]:
    """Which items of a group keep/drop keeps, by total (ties keep the earlier one)."""
    kept = None if e.keep is None else e.keep.select(totals)[0]
    return [True] * len(totals) if kept is None else kept


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
        if kind is Call:
            return self.call(e)  # type: ignore[arg-type]
        if kind is Group:
            return self.group(e)  # type: ignore[arg-type]
        if kind is Ref:
            raise e.unresolved()  # type: ignore[union-attr]
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
                if op == "%":
                    total %= v  # the remainder, with the divisor's sign (avrae, Python)
                else:
                    total //= v  # floor division: rounds down, also for negatives
            if not -MAX_TOTAL <= total <= MAX_TOTAL:
                raise DiceError(too_large(e))
        return EvalArithmetic(e, total, first, tuple(rest))

    def call(self, e: Call) -> EvalCall:
        if e.name in ROUNDING:  # the argument's arithmetic divides exactly
            arg, exact = self.exact(e.args[0])
            return EvalCall(e, e.apply([exact]), (arg,))
        args = tuple(self.eval(x) for x in e.args)
        return EvalCall(e, e.apply([a.total for a in args]), args)

    def exact(self, e: Expr) -> tuple[Evaluated, Fraction]:
        """`e` rolled, and its value with `/` as exact division (the `+ - * /` and unary
        minus of `e` itself; other nodes count their usual total)."""
        from fractions import Fraction  # (exact arithmetic: imported where it is used)

        if isinstance(e, Neg):
            ev, v = self.exact(e.operand)
            return EvalNeg(e, math.floor(-v), ev), -v
        if not isinstance(e, Arithmetic):
            ev = self.eval(e)
            return ev, Fraction(ev.total)
        first, value = self.exact(e.first)
        rest = []
        for op, x in e.rest:
            ev, v = self.exact(x)
            rest.append((op, ev))
            if op in "/%" and v == 0:
                raise DiceError(f"division by zero in '{e}' ('{x}' is 0)")
            value = exact_step(value, op, v)
            if abs(value) > MAX_TOTAL:
                raise DiceError(too_large(e))
        return EvalArithmetic(e, math.floor(value), first, tuple(rest)), value

    def group(self, e: Group) -> EvalGroup:
        items = tuple(self.eval(x) for x in e.items)
        totals = [x.total for x in items]
        kept = group_kept(e, totals)
        marks: tuple[str, ...] | None = None
        if e.pool is not None:
            scores = [e.pool.score(t) if k else 0 for t, k in zip(totals, kept, strict=True)]
            marks = tuple(POOL_MARKS[s] for s in scores)
            total = sum(scores)
        else:
            total = sum(t for t, k in zip(totals, kept, strict=True) if k)
        return EvalGroup(e, total, items, None if all(kept) else tuple(kept), marks)

    def dice(self, e: Dice) -> EvalDice:
        ev = self._term(e) if not e._computed else self._computed(e)
        if e._marking:
            ev = marked(ev)
        return ev

    def _computed(self, e: Dice) -> EvalDice:
        """`1d(1d4+2)`: the count (if computed), then the sides, then the die they make."""
        count_ev = None if isinstance(e.count, int) else self.eval(e.count)
        sides_ev = self.eval(e.sides)  # type: ignore[arg-type]
        s = sides_ev.total
        if not 1 <= s <= MAX_SIDES:
            raise DiceError(f"'{e}' would roll a d{s}: a die needs 1 to {MAX_SIDES:,} sides")
        term = e.with_sides(s)
        problem = term.limit_problem()
        if problem is not None:
            raise DiceError(problem)
        ev = self._term(term, count_ev)
        return EvalDice(
            term, ev.total, ev.faces, ev.kept, ev.flags, ev.count, ev.role, sides_ev, ev.parts
        )

    def _term(self, e: Dice, count_ev: Evaluated | None = None) -> EvalDice:
        roller = self.roller
        role = self.roles.get(id(e), self.role) if self.roles else self.role
        n = e.count
        if type(n) is not int:
            if count_ev is None:
                count_ev = self.eval(n)  # type: ignore[arg-type]
            n = count_ev.total
            if n < 0:
                raise DiceError(f"'{e}' would roll {n} dice: the count must not be negative")
        lo, hi = e._range
        custom = e._custom  # `d{0,0,1,2}`: a position, then its value
        if custom is not None:
            lo, hi = 1, len(custom)
        if not 1 <= hi <= MAX_SIDES:
            raise DiceError(f"'{e}': a die needs 1 to {MAX_SIDES:,} sides, not {e.sides}")
        roller.charge(n, e._what)
        if e._plain:
            faces = roller.roll_many(lo, hi, n) if n != 1 else [roller.roll(lo, hi)]
            return EvalDice(e, sum(faces), faces, None, None, count_ev, role)
        if roller.count + n > MAX_ONE_BY_ONE:
            raise _one_by_one(e)
        if not e._one_by_one:
            faces = roller.roll_many(lo, hi, n)
            if custom is not None:
                faces = [custom[i - 1] for i in faces]
            flags: list[tuple[str, ...]] | None = None
            if e.minimum is not None or e.maximum is not None:
                flags = [()] * n
                faces = faces[:]
                for i, f in enumerate(faces):
                    c = e.clamp(f)
                    if c != f:
                        faces[i] = c
                        flags[i] = ("min",) if c > f else ("max",)
            keep = e.keep
            if e.pool is None and keep is not None:  # fast path: keep/drop single dice
                kept, total = keep.select(faces)
                return EvalDice(e, total, faces, kept, flags, count_ev, role)
            units = [[i] for i in range(n)]
            values = faces
        else:
            faces, flags, units, values = self._chains(e, n, lo, hi, custom)
        return self._finish(e, faces, flags, units, values, count_ev, role)

    def _chains(
        self, e: Dice, n: int, lo: int, hi: int, custom: tuple[int, ...] | None
    ) -> tuple[list[int], list[tuple[str, ...]], list[list[int]], list[int]]:
        """Roll n dice one by one: each die rolled again while a rule of the term says so
        (`Rule.rolls_again`: a reroll, `u`), then exploded."""
        roller = self.roller

        def draw() -> int:
            face = roller.roll(lo, hi)
            return face if custom is None else custom[face - 1]

        what = e._what
        explode = e.explode
        point = e.explode_point() if explode is not None else None
        problem = never_ends(e) or unique_problem(e, n)
        if problem is not None:
            raise DiceError(problem)
        _expect_within_budget(e, n, roller)
        limit = None if explode is None else explode.chain_limit
        again_tests: list[Callable[[int], bool]] = []
        again_most: list[int | None] = []
        settled: list[Callable[[int], object]] = []
        for rule in e._rules:
            rolled_again = rule.rolls_again(e)
            if rolled_again is not None:
                again_tests.append(rolled_again.test)
                again_most.append(rolled_again.most)
                if rolled_again.settled is not None:
                    settled.append(rolled_again.settled)
        tests = len(again_tests)
        compound = explode is not None and explode.compound
        clamps = e.minimum is not None or e.maximum is not None
        faces: list[int] = []
        flags: list[tuple[str, ...]] = []
        units: list[list[int]] = []
        values: list[int] = []
        for _ in range(n):
            roller.charge(1, what)  # explosions may have used up what the count reserved
            if roller.count > MAX_ONE_BY_ONE:
                raise _one_by_one(e)
            face = draw()
            unit: list[int] = []
            extra = False  # the first die of a chain, not one an explosion added
            chained = 0  # the extra dice this chain has added
            while True:  # one chain link: a die, its rerolls, then maybe an explosion
                times = test = 0
                while test < tests:  # a face rolled again is asked every test again
                    most = again_most[test]
                    if (most is not None and times >= most) or not again_tests[test](face):
                        test += 1
                        continue
                    faces.append(face)
                    flags.append(("rerolled",))
                    roller.charge(1, what)
                    if roller.count > MAX_ONE_BY_ONE:
                        raise _one_by_one(e)
                    face = draw()
                    times += 1
                    test = 0
                for settle in settled:
                    settle(face)
                fl: tuple[str, ...] = ()
                value = e.value(face, extra)
                if clamps:
                    clamped = e.clamp(face)
                    if clamped != face:
                        fl = ("min",) if clamped > face else ("max",)
                if value != e.clamp(face):
                    fl = (*fl, "penetrated")
                again = point is not None and point.matches(face) and chained != limit
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
                extra = True
                chained += 1
                roller.charge(1, what)
                if roller.count > MAX_ONE_BY_ONE:
                    raise _one_by_one(e)
                face = draw()
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
        rules = e._finishing
        unit_kept: list[bool] | None = None
        total: int | None = None
        for rule in rules:  # keep/drop
            selected = rule.select(values)
            if selected is not None:
                unit_kept, total = selected
        if unit_kept is None:
            unit_kept = [True] * len(units)
        kept = [False] * len(faces)
        for u, idxs in enumerate(units):
            if unit_kept[u]:
                for i in idxs:
                    kept[i] = True
        for rule in rules:  # a pool's count
            tallied = rule.tally(units, values, unit_kept, flags, len(faces))
            if tallied is not None:
                total, flags = tallied
        if total is None:
            total = sum(values)
        parts: list[tuple[int, ...]] | None = None
        for rule in rules:  # the dice as shown (compounded)
            shown = rule.shown(faces, kept, flags, units)
            if shown is not None:
                faces, kept, flags, parts = shown
        all_kept = all(kept)
        return EvalDice(
            e,
            total,
            faces,
            None if all_kept else kept,
            None if flags is None or not any(flags) else flags,
            count_ev,
            role,
            None,
            parts,
        )
