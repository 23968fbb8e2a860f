"""The `roll` verb, the same in every system: a dice expression rolled as it is, with
`adv`/`dis` turning its one d20 into `2d20kh1`/`2d20kl1`.

A result's dice have role "roll" (the two d20s of adv/dis: "d20") and the label of their
term; a roll of more than LIST_LIMIT (1,000) dice carries a DiceSummary instead of its dice.
"""

from __future__ import annotations

from d20cli.dice.advantage import adv_problem, plain_d20s
from d20cli.dice.evaluate import EvalDice, EvalGroup, evaluate, summarise
from d20cli.dice.roller import Roller
from d20cli.dice.tree import (
    LIST_LIMIT,
    Arithmetic,
    Call,
    Dice,
    Expr,
    Group,
    Keep,
    Neg,
    children,
)
from d20cli.errors import DiceError
from d20cli.frozen import replace
from d20cli.language.requests import RollRequest
from d20cli.results import Die, Result
from d20cli.rules.offers import offer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: What completion offers after `roll` (its expression, then adv, dis, vs N).
OFFER = offer(("adv", "dis", "target"), vs=())


def with_advantage(e: Expr, adv: int) -> tuple[Expr, Dice | None]:
    """`e` with its one 1d20 replaced by 2d20kh1 (adv > 0) or 2d20kl1 (adv < 0)."""
    if adv == 0:
        return e, None
    problem = adv_problem(e)
    if problem is not None:
        raise DiceError(problem)
    old = plain_d20s(e)[0]
    new = Dice(2, 20, keep=Keep("kh" if adv > 0 else "kl", 1), label=old.label)

    def swap(x: Expr) -> Expr:
        if x is old:
            return new
        if isinstance(x, Neg):
            return Neg(swap(x.operand))
        if isinstance(x, Arithmetic):
            return Arithmetic(swap(x.first), tuple((op, swap(y)) for op, y in x.rest))
        if isinstance(x, Call):
            return Call(x.name, tuple(swap(y) for y in x.args))
        if isinstance(x, Group):
            return Group(tuple(swap(y) for y in x.items), x.keep, x.pool)
        return x

    return swap(e), new


def critical_counts(terms: list[EvalDice]) -> dict[str, int]:
    """How many dice the `cs` / `cf` markers flagged: {"critical_successes": n,
    "critical_failures": m} (the JSON's counts; the dice carry the flags)."""
    hits = {"critical_successes": 0, "critical_failures": 0}
    for t in terms:
        for fl in t.flags or ():
            hits["critical_successes"] += "critical_success" in fl
            hits["critical_failures"] += "critical_failure" in fl
    return hits


def _read(expr: Expr) -> tuple[str, bool]:
    """An expression's text, and whether any of its terms has a label: only a term's label
    is written in brackets (`3[fire]`, `1d6[cold]`; tree._label_text), so its text says.
    (A dice term's and a sum's text are made with them: nothing is walked.)"""
    text = str(expr)
    return text, "[" in text


def resolve_roll(request: RollRequest, roller: Roller, system: str) -> Result:
    """One repetition of a `roll` request (the caller repeats `request.repeat` times).

    Dice have role "roll" (the two d20s of adv/dis: "d20") and the label of their term.
    detail: "expression" (as rolled, `2d20kh1+5` for `1d20+5 adv`), "labels" {label:
    subtotal} when any term has a label, and "untyped" (the rest of the total, when the
    labelled terms are added into it and do not make all of it: Evaluated.untyped),
    "comment" when the line had one, "compare" (the target's comparison) with a target,
    which also fills target, outcome, label, success.
    A roll of more than LIST_LIMIT dice has dice=() and a DiceSummary (count, kept, face
    histogram, sides) instead, which is what its JSON then carries.
    """
    if request.template is not None:
        return _inline(request, roller, system)
    expr, adv_term = with_advantage(request.expr, request.adv)
    roles = {} if adv_term is None else {id(adv_term): "d20"}
    tree = evaluate(expr, roller, "roll", roles)
    if type(expr) is Dice and not children(expr):  # one term: its text is kept
        text, labelled = expr._text, expr.label is not None
    else:
        text, labelled = _read(expr)
    detail: dict[str, Any] = {"expression": text}
    tree_is_term = isinstance(tree, EvalDice) and tree.count is None and tree.sides is None
    if tree_is_term:  # one term: no walk needed
        assert isinstance(tree, EvalDice)
        terms = [tree]
        labels = {} if tree.expr.label is None else {tree.expr.label: tree.total}
    else:
        terms = list(tree.terms())
        labels = tree.labels() if labelled else {}
    if labels:
        detail["labels"] = labels
        untyped = tree.untyped(labels)
        if untyped is not None:
            detail["untyped"] = untyped
    if request.comment:
        detail["comment"] = request.comment
    goal = {} if request.target is None else _target_fields(request, tree.total, detail)
    braces = not tree_is_term and "{" in detail["expression"]  # no walk for most rolls
    groups = [g for g in tree.walk() if isinstance(g, EvalGroup)] if braces else []
    if groups:  # `{4d6,3d8}kh1`: each expression's total, which are kept, pool marks
        detail["groups"] = [_group_json(g) for g in groups]
    count = 0
    critical = False
    for t in terms:
        count += len(t.faces)
        critical = critical or t.expr.crit is not None
    if critical:
        detail.update(critical_counts(terms))
    if count > LIST_LIMIT:
        return Result(
            request=request.text,
            system=system,
            verb="roll",
            total=tree.total,
            dice_summary=summarise(tree),
            detail=detail,
            tree=tree,
            **goal,
        )
    dice: list[Die] = []
    if not groups:
        for t in terms:
            dice.extend(t.term_dice())
    else:
        dropped = {id(t) for g in groups for t in g.dropped_terms()}
        for t in terms:
            if id(t) in dropped:  # in an expression a group's keep/drop dropped
                dice.extend(replace(d, kept=False) for d in t.term_dice())
            else:
                dice.extend(t.term_dice())
    return Result(
        request=request.text,
        system=system,
        verb="roll",
        dice=tuple(dice),
        total=tree.total,
        detail=detail,
        tree=tree,
        **goal,
    )


def _inline(request: RollRequest, roller: Roller, system: str) -> Result:
    """`roll I hit for [[1d8+3]] and [[1d6]] fire`: each inline roll resolved as a roll,
    one result: detail "text" (the text with each total filled in) and "parts" (each
    roll's expression, total and dice); dice: all of them; tree: the parts' trees."""
    rolled = [resolve_roll(part, roller, system) for part in request.parts]
    assert request.template is not None
    text = request.template[0]
    for r, piece in zip(rolled, request.template[1:], strict=True):
        text += f"{r.total}{piece}"
    parts = [
        {
            "expression": r.detail["expression"],
            "total": r.total,
            "dice": [d.to_json() for d in r.dice],
        }
        for r in rolled
    ]
    return Result(
        request=request.text,
        system=system,
        verb="roll",
        dice=tuple(d for r in rolled for d in r.dice),
        detail={"text": text.strip(), "parts": parts},
        tree=tuple(r.tree for r in rolled),
    )


def _group_json(g: EvalGroup) -> dict[str, Any]:
    out: dict[str, Any] = {
        "expression": str(g.expr),
        "totals": [x.total for x in g.items],
        "kept": [True] * len(g.items) if g.kept is None else list(g.kept),
    }
    if g.marks is not None:
        out["marks"] = list(g.marks)
    return out


def _target_fields(request: RollRequest, total: int, detail: dict[str, Any]) -> dict[str, Any]:
    """The Result fields of a roll with a target (`3d6 vs 12`, `1d100 <= 45`): target,
    outcome "success"/"failure", its label and `success`; detail "compare" holds the
    comparison (`vs` is ">="). Nothing for a plain roll."""
    goal = request.target
    if goal is None:
        return {}
    detail["compare"] = goal.op
    won = goal.matches(total)
    return {
        "target": goal.value,
        "outcome": "success" if won else "failure",
        "label": "Success" if won else "Failure",
        "success": won,
    }
