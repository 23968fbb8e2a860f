"""Reglamento, the six-attribute d20 rules: every rule of this system (docs/rules.md,
"reglamento").

Verbs: check, save, attack (all resolve the same way), contest, luck, roll. The attribute
value is the modifier; difficulties are numbers only (the seed's table is missing).
Grading functions (`grade_check`, `grade_contest`, `grade_luck`) are pure.

Decisions where the texts are silent:
- `attack ... dmg EXPR` rolls the damage on a success; the seed names no critical damage,
  so a natural 20 does not double it (Damage.critical is false).
- A contest side's natural and total are shown on its side result; the side results have
  no outcome of their own, and `success` marks the winner (null on a tie).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from d20cli.requests import CheckRequest, ContestRequest, LuckRequest, Request
from d20cli.results import Damage, Result
from d20cli.systems.common import (
    UNGRADED,
    Grade,
    System,
    advantage_notes,
    evaluate,
    located,
    reject_words,
    resolve_roll,
    roll_check,
    roll_d20,
    unknown_verb,
)

if TYPE_CHECKING:
    from d20cli.roller import Roller

ID = "reglamento"
TITLE = "Reglamento (six attributes, d20)"

VERBS: dict[str, tuple[str, str]] = {
    "check": (
        "Attribute check vs a difficulty; natural 20 always succeeds, natural 1 always fails",
        "check +3 vs 15 adv",
    ),
    "save": ("Save: an attribute roll against a threat (resolved like check)", "save +1 vs 12"),
    "attack": ("Attack: an attribute roll (resolved like check)", "attack +4 vs 13"),
    "contest": (
        "Both sides roll; a natural 20 beats, a natural 1 loses, else the higher total; tie",
        "contest +3 vs +1 adv",
    ),
    "luck": ("Luck roll: 1d20, 1-10 unfavorable, 11-20 favorable", "luck"),
    "roll": ("Roll a dice expression", "roll 2d6+3"),
}

OUTCOMES: tuple[tuple[str, str], ...] = (
    ("critical_failure", "Critical failure"),
    ("failure", "Failure"),
    ("success", "Success"),
    ("critical_success", "Critical success"),
    ("first_wins", "First side wins"),
    ("tie", "Tie"),
    ("second_wins", "Second side wins"),
    ("unfavorable", "Unfavorable"),
    ("favorable", "Favorable"),
)

CHECK_VERBS = ("check", "save", "attack")

_HINTS = {
    "expertise": "reglamento has no expertise die; use adv or dis (or a modifier)",
    "circumstance": "reglamento has no circumstance words; use adv or dis (or a modifier)",
    "reliable": "reliable is a pendagger word; reglamento has adv and dis",
    "unreliable": "unreliable is a pendagger word; reglamento has adv and dis",
    "fortune": "fortune dice are pendagger's; reglamento has adv and dis",
    "rank": "ranks are pendagger's; a reglamento roll takes the attribute as a signed "
    "modifier: check +3 vs 15",
    "score": "a reglamento attribute needs its sign (+3 or -1); bare numbers are pendagger "
    "ability scores",
    "adjust": "rank adjustments are pendagger's",
    "dmg": "only attack takes dmg",
    "target": "a contest side has no target: contest +3 vs +1",
}

# The words a check or save may carry (an attack may also carry damage), and a contest side.
_OFFERED = frozenset({"adv", "dis", "modifier", "target"})
_OFFERED_ATTACK = _OFFERED | {"dmg"}
_OFFERED_SIDE = frozenset({"adv", "dis", "modifier"})

_OTHER_VERBS = {
    "group": "group checks are levelup's; roll each check",
    "percent": "percent is mm's; use roll 1d100",
    "attempt": "attempt is pendagger's; use check",
    "defend": "defend is pendagger's; use save",
    "resist": "resist is mm's; use save",
    "opposed": "use contest",
    "compare": "compare is mm's",
    "routine": "routine checks are mm's",
    "scores": "scores is pendagger's",
    "fortune": "fortune dice are pendagger's",
}


# --- pure rules -----------------------------------------------------------------------


def grade_check(natural: int, total: int, target: int | None) -> Grade:
    """check, save and attack: natural 1 is a critical failure and always fails; natural 20
    is a critical success and always succeeds; otherwise success when total >= target."""
    if target is None:
        return UNGRADED
    if natural == 1:
        return Grade("critical_failure", "Critical failure", False)
    if natural == 20:
        return Grade("critical_success", "Critical success", True)
    if total >= target:
        return Grade("success", "Success", True)
    return Grade("failure", "Failure", False)


def grade_contest(natural1: int, total1: int, natural2: int, total2: int) -> Grade:
    """A contest: a side with a natural 20 beats a side without one; a side with a natural
    1 loses to a side without one; otherwise the higher total wins; equal totals (with the
    same special natural on both sides) are a tie: the situation stays unchanged."""
    first: bool | None
    if (natural1 == 20) != (natural2 == 20):
        first = natural1 == 20
    elif (natural1 == 1) != (natural2 == 1):
        first = natural2 == 1
    elif total1 != total2:
        first = total1 > total2
    else:
        return Grade("tie", "Tie — the situation stays unchanged", None)
    if first:
        return Grade("first_wins", "First side wins", None)
    return Grade("second_wins", "Second side wins", None)


def grade_luck(face: int) -> Grade:
    """A luck roll: 1-10 unfavorable, 11-20 favorable."""
    if face >= 11:
        return Grade("favorable", "Favorable outcome", True)
    return Grade("unfavorable", "Unfavorable outcome", False)


# --- resolution -----------------------------------------------------------------------


def _target(request: CheckRequest) -> int | None:
    target = request.target
    if target is None:
        return None
    if target.kind != "number":
        raise located(
            request, f"reglamento difficulties are numbers, not {target}: e.g. vs 15", "target"
        )
    return target.value


def _resolve_check(request: CheckRequest, roller: Roller) -> Result:
    offered = _OFFERED_ATTACK if request.verb == "attack" else _OFFERED
    reject_words(request, offered, _HINTS, ID)
    target = _target(request)
    roll = roll_check(roller, request.adv, request.dis, request.modifier)
    grade = grade_check(roll.natural, roll.total, target)
    notes = [*advantage_notes(request.adv, request.dis)]
    if target is not None and roll.natural == 20 and roll.total < target:
        notes.append("natural 20: succeeds regardless of difficulty")
    if target is not None and roll.natural == 1 and roll.total >= target:
        notes.append("natural 1: always fails")
    damage = None
    if request.damage is not None:
        if grade.success or (grade.success is None and roll.natural != 1):
            ev = evaluate(request.damage, roller, "damage")
            damage = Damage(ev.total, ev.dice, False, ev.text)
        else:
            notes.append("a failure: no damage")
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=roll.dice,
        natural=roll.natural,
        modifier=roll.modifier,
        total=roll.total,
        target=target,
        outcome=grade.outcome,
        label=grade.label,
        success=grade.success,
        name=request.name,
        damage=damage,
        notes=tuple(notes),
    )


def _resolve_contest(request: ContestRequest, roller: Roller) -> Result:
    sides: list[Result] = []
    for side in (request.first, request.second):
        reject_words(side, _OFFERED_SIDE, _HINTS, ID)
        roll = roll_check(roller, side.adv, side.dis, side.modifier)
        sides.append(
            Result(
                request=side.text,
                system=ID,
                verb="check",
                dice=roll.dice,
                natural=roll.natural,
                modifier=roll.modifier,
                total=roll.total,
                name=side.name,
            )
        )
    a, b = sides
    assert a.natural is not None and a.total is not None
    assert b.natural is not None and b.total is not None
    grade = grade_contest(a.natural, a.total, b.natural, b.total)
    won = {"first_wins": (True, False), "second_wins": (False, True)}.get(
        str(grade.outcome), (None, None)
    )
    from dataclasses import replace

    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=a.dice + b.dice,
        outcome=grade.outcome,
        label=grade.label,
        sides=(replace(a, success=won[0]), replace(b, success=won[1])),
    )


def _resolve_luck(request: LuckRequest, roller: Roller) -> Result:
    if request.fortune:
        raise located(request, "fortune dice are pendagger's", "fortune")
    d20 = roll_d20(roller, request.adv, request.dis, role="luck")
    grade = grade_luck(d20.natural)
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=d20.dice,
        natural=d20.natural,
        total=d20.natural,
        outcome=grade.outcome,
        label=grade.label,
        success=grade.success,
        notes=advantage_notes(request.adv, request.dis),
    )


def resolve(request: Request, roller: Roller) -> Result:
    """Resolve a request with the reglamento rules."""
    if isinstance(request, CheckRequest) and request.verb in CHECK_VERBS:
        return _resolve_check(request, roller)
    if isinstance(request, ContestRequest) and request.verb == "contest":
        return _resolve_contest(request, roller)
    if isinstance(request, LuckRequest):
        return _resolve_luck(request, roller)
    rolled = resolve_roll(request, roller, ID)
    if rolled is not None:
        return rolled
    raise unknown_verb(request, ID, VERBS, _OTHER_VERBS.get(request.verb))


SYSTEM = System(ID, TITLE, VERBS, OUTCOMES, resolve, aliases=("reg",))
