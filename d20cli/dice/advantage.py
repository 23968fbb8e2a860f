"""Advantage on a dice expression: which d20 `adv`/`dis` turns into `2d20kh1`/`2d20kl1`,
and why it cannot when it cannot (`roll 1d20+5 adv`)."""

from __future__ import annotations

from d20cli.dice.tree import Dice, Expr, walk


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
