"""What a critical hit does to damage, as expressions: every dice term twice (the rule,
`double_dice`), or a house rule (`crit-dmg=double|max`, `critical_damage`)."""

from __future__ import annotations

from d20cli.dice import tree as dice
from d20cli.errors import RulesError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.tree import Expr


def double_dice(expr: Expr) -> Expr:
    """The expression a critical hit rolls: every dice term rolled twice and both added,
    numbers left alone (a critical hit adds its modifiers once).

    A plain term doubles its count (`1d8+4` -> `2d8+4`, the same dice); any other term is
    written twice (`4d6kh3` -> `4d6kh3+4d6kh3`, `(1d4)d6` -> `(1d4)d6+(1d4)d6`), so keeping,
    dropping and computed counts apply to each roll on its own and a critical is never
    worse than a hit."""
    if isinstance(expr, dice.Dice):
        if isinstance(expr.count, int) and expr.plain:
            return dice.Dice(2 * expr.count, expr.sides, label=expr.label)
        return dice.Arithmetic(expr, (("+", expr),))
    if isinstance(expr, dice.Neg):
        return dice.Neg(double_dice(expr.operand))
    if isinstance(expr, dice.Arithmetic):
        if expr.rest[0][0] in "+-":
            return _double_sum(expr)
        rest = tuple((op, double_dice(x)) for op, x in expr.rest)
        return dice.Arithmetic(double_dice(expr.first), rest)
    if isinstance(expr, dice.Call):  # `max(1d6,1d8)` -> `max(2d6,2d8)`
        return dice.Call(expr.name, tuple(double_dice(x) for x in expr.args))
    if isinstance(expr, dice.Group):
        return dice.Group(tuple(double_dice(x) for x in expr.items), expr.keep, expr.pool)
    return expr


def _double_sum(expr: dice.Arithmetic) -> Expr:
    """A sum or difference with each non-plain dice term written twice in place
    (`4d6kh3+2` -> `4d6kh3+4d6kh3+2`, `1d8-1d4kh1` -> `1d8+1d8-1d4kh1-1d4kh1`)."""
    terms: list[tuple[str, Expr]] = []
    for op, x in (("+", expr.first), *expr.rest):
        doubled = double_dice(x)
        if isinstance(x, dice.Dice) and isinstance(doubled, dice.Arithmetic):
            terms += [(op, x), (op, x)]
        else:
            terms.append((op, doubled))
    return dice.Arithmetic(terms[0][1], tuple(terms[1:]))


#: `crit-dmg=MODE`: what a critical hit rolls for damage `expr`. dice (the default): every
#: dice term twice (`double_dice`); double: the whole total twice; max: every dice term at
#: its maximum plus a normal roll (`max_dice`).
def critical_damage(expr: Expr, mode: str | None = None) -> Expr:
    """The damage expression a critical hit rolls under a crit-dmg mode (None: dice)."""
    if mode == "double":
        return dice.Arithmetic(expr, (("*", dice.Number(2)),))
    if mode == "max":
        return max_dice(expr)
    return double_dice(expr)


def max_dice(expr: Expr) -> Expr:
    """`double_dice` with the second roll of each dice term at its maximum: `1d8+4` ->
    `1d8+8+4`, `2d6-1d4` -> `2d6+12-1d4-4`. RulesError for a term with no highest total
    (an explosion without end)."""
    if isinstance(expr, dice.Dice):
        return dice.Arithmetic(expr, (("+", _maximum(expr)),))
    if isinstance(expr, dice.Neg):
        return dice.Neg(max_dice(expr.operand))
    if isinstance(expr, dice.Arithmetic):
        if expr.rest[0][0] in "+-":
            terms: list[tuple[str, Expr]] = []
            for op, x in (("+", expr.first), *expr.rest):
                terms += (
                    [(op, x), (op, _maximum(x))]
                    if isinstance(x, dice.Dice)
                    else [(op, max_dice(x))]
                )
            return dice.Arithmetic(terms[0][1], tuple(terms[1:]))
        rest = tuple((op, max_dice(x)) for op, x in expr.rest)
        return dice.Arithmetic(max_dice(expr.first), rest)
    return expr


def _maximum(term: dice.Dice) -> dice.Number:
    top = term.bounds()[1]
    if top == float("inf"):
        raise RulesError(f"crit-dmg=max needs a highest total, and {term} has none")
    return dice.Number(int(top), term.label)
