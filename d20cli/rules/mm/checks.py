"""Mutants & Masterminds checks: degrees of success and failure, named DCs, defenses and
ranks, circumstance words, attacks, resistance, routine checks and percent chances."""

from __future__ import annotations

from functools import partial

from d20cli.errors import RulesError
from d20cli.language.requests import (
    CheckRequest,
    PercentRequest,
    Request,
)
from d20cli.results import Die, Result
from d20cli.rules import roll
from d20cli.rules.common import (
    UNGRADED,
    CheckPlan,
    Grade,
    evaluate,
    house_detail,
    house_plan,
    house_roll,
    house_words_of,
    located,
    reject_words,
)
from d20cli.rules.offers import offer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller


ID = "mm"


#: Named DCs (the words are requests.DC_WORDS).
NAMED_DCS: dict[str, int] = {
    "very-easy": 0,
    "easy": 5,
    "average": 10,
    "tough": 15,
    "challenging": 20,
    "formidable": 25,
    "heroic": 30,
    "super-heroic": 35,
    "nigh-impossible": 40,
}


#: Circumstance modifiers (the words are requests.CIRCUMSTANCE_WORDS).
CIRCUMSTANCES: dict[str, int] = {
    "bonus": 2,
    "penalty": -2,
    "minor-bonus": 2,
    "minor-penalty": -2,
    "major-bonus": 5,
    "major-penalty": -5,
}


#: The routine result: "as if you had rolled a 10"; also the base of defense/rank DCs.
ROUTINE_BASE = 10


CHECK_VERBS = ("check", "attack", "resist", "routine")


#: What mm offers in place of a word it lacks, by the word's role, and its own word on what
#: its rules lack (d20cli.rules.hints).
INSTEAD = {
    "roll": "use circumstance words: "
    "bonus (+2), penalty (-2), major-bonus (+5), major-penalty (-5)",
    "base": "an mm check takes a signed modifier: check +5 vs 15",
    "damage": "damage is a resistance check: resist +6 vs rank 8",
}
LACKS = {
    "crit": "mm's crit N is Improved Critical, a threat range for attacks only",
    "crit-dmg": "mm attacks have no damage roll, so no crit-dmg",
    "opposed target": "a side of opposed has no target: opposed +8 vs +6",
    **{f"routine {k}": f"a routine check rolls no die: no {k}" for k in ("crit", "lucky", "min")},
}


_ROUTINE = frozenset({"modifier", "target", "circumstance"})  # no die: no house word
_ROLLED = _ROUTINE | {"lucky", "min"}  # a check or resist: its d20 may be lucky

#: The words each verb takes (kinds of `vocabulary.CHECK_WORDS`; opposed: each side's),
#: the one list its rules check a request against, completion offers and the house
#: defaults read (`System.house_words`).
TAKES: dict[str, frozenset[str]] = {
    "check": _ROLLED,
    "resist": _ROLLED,
    "attack": _ROLLED | {"crit"},  # Improved Critical's threat range
    "routine": _ROUTINE,
    "opposed": _ROLLED - {"target"},
}

HOUSE_WORDS = house_words_of(TAKES)

#: What may follow `vs` in a check (kinds of `vocabulary.TARGET_FORMS`): a number or DC
#: name, defense N (or a named defense), rank N, routine +N (`_dc`).
TARGETS = ("dc", "named-dc", "defense", "rank-target", "routine-target")

#: What completion offers after each verb: the words it takes (`TAKES`).
OFFERS = {
    "check": offer(TAKES["check"], vs=TARGETS),
    "attack": offer(TAKES["attack"], vs=TARGETS),
    "resist": offer(TAKES["resist"], vs=TARGETS),
    "routine": offer(TAKES["routine"], vs=TARGETS),
    "opposed": offer(TAKES["opposed"] | {"side"}, vs=()),
    "compare": offer(("side",), vs=()),
    "percent": offer(()),
    "roll": roll.OFFER,
}


def degree(result: int, dc: int) -> int:
    """The signed degree of a result against a DC: success 1 + floor((R - D) / 5); failure
    -(1 + floor((D - R - 1) / 5)). Never 0."""
    if result >= dc:
        return 1 + (result - dc) // 5
    return -(1 + (dc - result - 1) // 5)


def raise_degree(deg: int) -> int:
    """One step up the scale ... -2, -1, +1, +2 ... (-1 becomes +1)."""
    return 1 if deg == -1 else deg + 1


def degree_label(deg: int) -> str:
    """`2 degrees of success`, `1 degree of failure`."""
    n = abs(deg)
    return f"{n} degree{'s' if n != 1 else ''} of {'success' if deg > 0 else 'failure'}"


def grade_check(natural: int | None, total: int, dc: int | None) -> Grade:
    """A check (or resist): graded in degrees; a natural 20 raises the degree one step and
    is then a critical success if the degree is a success, else a failure. A natural 1 has
    no effect. natural None: no die (routine). The label is the outcome's name and the
    degree: "Failure — 2 degrees of failure"."""
    if dc is None:
        return UNGRADED
    deg = degree(total, dc)
    if natural == 20:
        deg = raise_degree(deg)
        if deg > 0:
            return Grade("critical_success", f"Critical success — {degree_label(deg)}", True, deg)
        return Grade("failure", f"Failure — {degree_label(deg)}", False, deg)
    if deg > 0:
        return Grade("success", f"Success — {degree_label(deg)}", True, deg)
    return Grade("failure", f"Failure — {degree_label(deg)}", False, deg)


def grade_attack(natural: int, total: int, dc: int | None, threat: int = 20) -> Grade:
    """An attack check: a natural 20 always hits and is a critical hit (degree raised as for
    any check, and at least +1); a natural 1 always misses (a failure, degree at most -1);
    otherwise graded like a check. threat (Improved Critical, `crit N`): a face from
    `threat` to 19 that hits is a critical hit too (its degree raised as a 20's)."""
    if dc is None:
        return UNGRADED
    deg = degree(total, dc)
    if natural == 20 or (threat <= natural and deg > 0):
        deg = max(raise_degree(deg), 1)
        return Grade("critical_success", f"Critical hit — {degree_label(deg)}", True, deg)
    if natural == 1:
        deg = min(deg, -1)
        return Grade("failure", f"Miss — {degree_label(deg)}", False, deg)
    if deg > 0:
        return Grade("success", f"Hit — {degree_label(deg)}", True, deg)
    return Grade("failure", f"Miss — {degree_label(deg)}", False, deg)


def grade_routine(modifier: int, dc: int | None) -> Grade:
    """A routine check: no die; the result is 10 + modifier, graded (no natural applies)."""
    return grade_check(None, ROUTINE_BASE + modifier, dc)


def grade_percent(face: int, percent: int) -> Grade:
    """A percent roll on a d20: success when face x 5 <= percent (face <= percent // 5)."""
    if face * 5 <= percent:
        return Grade("success", "Success", True)
    return Grade("failure", "Failure", False)


def _dc(request: CheckRequest) -> tuple[int | None, dict[str, object]]:
    target = request.target
    if target is None:
        return None, {}
    if target.kind == "number":
        return target.value, {}
    if target.kind == "named":
        name = str(target.name)
        if name not in NAMED_DCS:
            raise located(request, f"unknown DC name {name!r}", "target")
        return NAMED_DCS[name], {"dc_name": name}
    if target.kind == "defense":
        detail: dict[str, object] = {"defense": target.value}
        if target.name is not None:
            detail["defense_name"] = target.name
        return ROUTINE_BASE + target.value, detail
    if target.kind == "rank":
        return ROUTINE_BASE + target.value, {"effect_rank": target.value}
    if target.kind == "routine":
        return ROUTINE_BASE + target.value, {"routine_opposition": target.value}
    raise located(request, f"mm has no target {target}", "target")


def circumstance_total(words: tuple[str, ...]) -> int:
    """The sum of the circumstance words' modifiers."""
    return sum(CIRCUMSTANCES[w] for w in words)


def circumstance_note(words: tuple[str, ...]) -> str:
    """What each circumstance word added: `bonus +2, major-penalty -5`."""
    return ", ".join(f"{w} {CIRCUMSTANCES[w]:+d}" for w in words)


def _checked(request: CheckRequest) -> tuple[int | None, dict[str, object]]:
    """A check's words checked before any die; its DC and what the DC was named."""
    verb = request.verb
    reject_words(request, TAKES[verb], ID)
    return _dc(request)


def grade_roll(request: CheckRequest, dc: int | None, face: int, total: int) -> Grade:
    """The grade of a rolled check, resistance check or attack whose d20 showed `face`."""
    if request.verb == "attack":
        return grade_attack(face, total, dc, request.crit or 20)
    return grade_check(face, total, dc)


def check_plan(request: Request) -> CheckPlan | None:
    """How a rolled check, resistance check or attack is rolled and graded
    (`System.check_plan`); a routine check rolls no die: None."""
    if not isinstance(request, CheckRequest) or request.verb not in _ROLLED_VERBS:
        return None
    dc, _ = _checked(request)
    flat = circumstance_total(request.circumstances)
    return house_plan(request, partial(grade_roll, request, dc), flat=flat)


_ROLLED_VERBS = ("check", "attack", "resist")


def _resolve_check(request: CheckRequest, roller: Roller) -> Result:
    dc, detail = _checked(request)
    flat = circumstance_total(request.circumstances)
    notes: list[str] = []
    if request.circumstances:
        detail["circumstance"] = flat
        notes.append(circumstance_note(request.circumstances))
    if request.verb == "routine":
        ev = evaluate(request.modifier, roller, "modifier")
        modifier = ev.total + flat
        grade = grade_routine(modifier, dc)
        total = ROUTINE_BASE + modifier
        dice: tuple[Die, ...] = ev.dice
        natural = None
        notes.append("routine: no die, the result is 10 + modifier")
    else:
        roll = house_roll(roller, request, flat=flat)
        natural, modifier, total, dice = roll.natural, roll.modifier, roll.total, roll.dice
        notes += roll.notes
        grade = grade_roll(request, dc, natural, total)
        if request.verb == "attack" and natural < 20 and grade.outcome == "critical_success":
            notes.append(f"{natural}: critical (crit {request.crit}-20)")
        if dc is not None and natural == 20:
            notes.append("natural 20: the degree is raised one step")
        if dc is not None and natural == 1 and request.verb == "attack":
            notes.append("natural 1: an attack always misses")
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=dice,
        natural=natural,
        modifier=modifier,
        total=total,
        target=dc,
        outcome=grade.outcome,
        label=grade.label,
        success=grade.success,
        degree=grade.degree,
        name=request.name,
        detail={**detail, **house_detail(request)},
        notes=tuple(notes),
    )


#: Why `lucky` is refused on a percent roll (docs/rules-decisions.md, "House rules").
PERCENT_NOT_LUCKY = (
    "lucky does not apply to percent: its d20 is read low (face x 5 <= the chance), so a 1 "
    "is its best face and rolling it again could never help"
)


def _resolve_percent(request: PercentRequest, roller: Roller) -> Result:
    if request.lucky:
        raise located(request, PERCENT_NOT_LUCKY, "lucky")
    if not 0 <= request.percent <= 100:
        raise RulesError(
            f"a percent chance is 0 to 100, not {request.percent}",
            request.text,
            request.column("percent"),
        )
    face = roller.roll(1, 20)
    grade = grade_percent(face, request.percent)
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=(Die(20, face, True, "d20"),),
        natural=face,
        total=face * 5,
        target=request.percent,
        outcome=grade.outcome,
        label=grade.label,
        success=grade.success,
        detail={"percent": request.percent, "max_face": request.percent // 5},
    )
