"""Level Up Advanced 5th Edition: every rule of this system (docs/rules.md, "levelup").

Verbs: check, save, attack, group, roll. Each verb rolls its dice, then a pure grading
function (`grade_check`, `grade_save`, `grade_attack`, `grade_group`) decides the outcome;
an odds module can call the grading functions over every face.

Decisions where the texts are silent (also in docs/rules-decisions.md):
- A roll with no target has outcome null (convention for all systems), attacks included; a
  natural 20 or 1 is then only noted. Damage given without a target is still rolled
  (critical, doubled, on a natural 20; not at all on a natural 1, which always misses).
- Damage that comes out below 0 is shown as rolled (the text names no minimum).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from d20cli.bounded import Bounded, declare
from d20cli.dice.tree import Expr
from d20cli.errors import RulesError
from d20cli.language.requests import CheckRequest, GroupRequest, Request, Target
from d20cli.language.vocabulary import word_rows
from d20cli.records import NamedTuple
from d20cli.results import Damage, Result
from d20cli.rules import roll
from d20cli.rules.common import (
    UNGRADED,
    CheckPlan,
    Grade,
    System,
    advantage_notes,
    crit_natural,
    crit_note,
    critical_damage,
    evaluate,
    house_detail,
    house_plan,
    house_roll,
    house_words_of,
    lifted_notes,
    located,
    reject_words,
    resolver,
)
from d20cli.rules.offers import offer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller

ID = "levelup"
TITLE = "Level Up Advanced 5th Edition"

VERBS: dict[str, tuple[str, str]] = {
    "check": (
        "Ability, skill or tool check; a natural 20 or 1 is critical only if the total agrees",
        "check +5 vs 15 adv expertise=d6",
    ),
    "save": (
        "Saving throw; natural 20 always succeeds (critical save), natural 1 always fails",
        "save -1 vs 12 dis",
    ),
    "attack": (
        "Attack roll vs AC; natural 20 critical hit (damage dice doubled), natural 1 fumble",
        "attack +7 vs 15 dmg 1d8+4",
    ),
    "group": (
        "Group check: more than half succeed (house: at-least-half); all succeed: critical; "
        "all fail: critical failure",
        "group +3, +5 adv, -1 vs 12",
    ),
    "roll": ("Roll a dice expression", "roll 2d6+3"),
}

OUTCOMES: tuple[tuple[str, str], ...] = (
    ("critical_failure", "Critical failure"),
    ("failure", "Failure"),
    ("success", "Success"),
    ("critical_success", "Critical success"),
)

#: The tiers of a verb that names them its own way (a save's critical, an attack's hit
#: and miss), worst to best.
VERB_OUTCOMES: dict[str, dict[str, str]] = {
    "save": {"failure": "Failure", "success": "Success", "critical_success": "Critical save"},
    "attack": {
        "critical_failure": "Fumble",
        "failure": "Miss",
        "success": "Hit",
        "critical_success": "Critical hit",
    },
}

#: Expertise die sizes in stepping order; a grant past the last changes nothing.
EXPERTISE_STEPS: tuple[int, ...] = (4, 6, 8)

_CHECK = frozenset({"adv", "dis", "expertise", "modifier", "target", "crit", "lucky", "min"})

#: The words each verb takes (kinds of `vocabulary.CHECK_WORDS`), the one list its rules
#: check a request against, help and `d20 systems` list and completion offers.
TAKES: dict[str, frozenset[str]] = {
    "check": _CHECK,
    "save": _CHECK,
    "attack": _CHECK | {"dmg", "crit-dmg"},
    "group": _CHECK,
}

#: What levelup says of a word a verb lacks, before the derived hint (d20cli.rules.hints).
LACKS = {
    f"{verb} crit-dmg": "crit-dmg (what a critical hit does to damage) is for attacks with dmg"
    for verb in ("check", "save", "group")
}

#: What levelup offers in place of a word it lacks, by the word's role (d20cli.rules.hints).
INSTEAD = {
    "roll": "use adv or dis, or an expertise die (or a modifier)",
    "base": "a levelup roll takes a signed modifier: check +5 vs 15",
}


# --- pure rules -----------------------------------------------------------------------


def expertise_size(grants: Sequence[int]) -> int | None:
    """The expertise die for these grants: the largest grant's size, stepped up one size
    (d4 -> d6 -> d8) for each further grant; past d8 nothing changes, and word order never
    matters ((d4, d8) and (d8, d4) are both d8; (d4, d6) is d8). None for no grants."""
    if not grants:
        return None
    for size in grants:
        if size not in EXPERTISE_STEPS:
            raise RulesError(f"an expertise die is a d4, d6 or d8, not a d{size}")
    step = EXPERTISE_STEPS.index(max(grants)) + len(grants) - 1
    return EXPERTISE_STEPS[min(step, len(EXPERTISE_STEPS) - 1)]


# The grades of a single roll (graders return these, so a roll builds no new Grade),
# each labelled with its outcome's name for the verb (VERB_OUTCOMES).
_NAMES = dict(OUTCOMES)
CRITICAL_SUCCESS = Grade("critical_success", _NAMES["critical_success"], True)
SUCCESS = Grade("success", _NAMES["success"], True)
CRITICAL_FAILURE = Grade("critical_failure", _NAMES["critical_failure"], False)
FAILURE = Grade("failure", _NAMES["failure"], False)
CRITICAL_SAVE = Grade("critical_success", VERB_OUTCOMES["save"]["critical_success"], True)
_ATTACK = VERB_OUTCOMES["attack"]
CRITICAL_HIT = Grade("critical_success", _ATTACK["critical_success"], True)
FUMBLE = Grade("critical_failure", _ATTACK["critical_failure"], False)
HIT = Grade("success", _ATTACK["success"], True)
MISS = Grade("failure", _ATTACK["failure"], False)


def grade_check(natural: int, total: int, target: int | None) -> Grade:
    """An ability, skill or tool check: success when total >= target. A natural 20 is a
    critical success only if the total succeeds (else a plain failure); a natural 1 is a
    critical failure only if the total fails (else a plain success)."""
    if target is None:
        return UNGRADED
    if total >= target:
        if natural == 20:
            return CRITICAL_SUCCESS
        return SUCCESS
    if natural == 1:
        return CRITICAL_FAILURE
    return FAILURE


def grade_save(natural: int, total: int, target: int | None) -> Grade:
    """A saving throw: natural 20 is a critical save and always succeeds; natural 1 always
    fails (a plain failure: the text names no critical); otherwise total >= target."""
    if target is None:
        return UNGRADED
    if natural == 20:
        return CRITICAL_SAVE
    if natural == 1:
        return FAILURE
    if total >= target:
        return SUCCESS
    return FAILURE


def grade_attack(natural: int, total: int, target: int | None) -> Grade:
    """An attack roll: natural 20 is a critical hit and always hits; natural 1 is a fumble
    and always misses; otherwise a hit when total >= target (the AC)."""
    if target is None:
        return UNGRADED
    if natural == 20:
        return CRITICAL_HIT
    if natural == 1:
        return FUMBLE
    if total >= target:
        return HIT
    return MISS


GRADERS = {"check": grade_check, "save": grade_save, "attack": grade_attack}


def grade_group(successes: Sequence[bool | None], rule: str | None = None) -> Grade:
    """A group check from its members' successes: all succeed -> critical success; more
    than half -> success; all fail -> critical failure; otherwise failure. Ungraded when a
    member is ungraded (no target). rule "at-least-half" (a house rule): half is enough."""
    if not successes or any(s is None for s in successes):
        return UNGRADED
    n = len(successes)
    k = sum(1 for s in successes if s)
    tail = f" ({k} of {n} succeed)"
    if k == n:
        return Grade("critical_success", "Critical success" + tail, True)
    if k == 0:
        return Grade("critical_failure", "Critical failure" + tail, False)
    if 2 * k > n or (rule == "at-least-half" and 2 * k == n):
        return Grade("success", "Success" + tail, True)
    return Grade("failure", "Failure" + tail, False)


_NAT20_NOTES = {
    "attack": ("natural 20: a critical hit whatever the AC",),
    "save": ("natural 20: a critical save, a success whatever the DC",),
}
_NAT1_NOTES = {
    "attack": ("natural 1: a fumble, always a miss",),
    "save": ("natural 1: a save always fails",),
}


def check_notes(verb: str, natural: int, total: int, target: int | None) -> tuple[str, ...]:
    """Human notes on how a natural face was read: said whenever the natural decided
    something the total alone would not have."""
    if natural != 20 and natural != 1:
        return ()
    if verb == "check":
        if target is not None and natural == 20 and total < target:
            return ("natural 20 below the DC: a plain failure",)
        if target is not None and natural == 1 and total >= target:
            return ("natural 1 meeting the DC: a plain success",)
        return ()
    if natural == 20 and (target is None or total < target):
        return _NAT20_NOTES[verb]
    if natural == 1 and (target is None or total >= target):
        return _NAT1_NOTES[verb]
    return ()


# --- resolution -----------------------------------------------------------------------


def _target_number(request: CheckRequest | GroupRequest, target: Target | None) -> int | None:
    if target is None:
        return None
    if target.kind != "number":
        raise located(
            request,
            f"levelup targets are numbers (a DC or an AC), not {target}: e.g. vs 15",
            "target",
        )
    return target.value


def _checked(request: CheckRequest, lazy: bool = False) -> tuple[int | None, Expr | None]:
    """A check's words checked before any die: its expertise die and critical damage
    (`lazy`: None where working it out cannot fail, for `damage_roll` to work out on a
    critical hit only)."""
    reject_words(request, TAKES[request.verb], ID)
    return expertise_size(request.expertise), _critical_expr(request, lazy)


class _Words(NamedTuple):
    """What a check's words decide before any die (`_words`)."""

    size: int | None  # the expertise die
    critical_expr: Expr | None  # the damage a critical hit rolls
    before: tuple[str, ...]  # the notes that come before the roll's own
    grants: tuple[str, ...]  # the note on several expertise grants
    detail: dict[str, object]  # the result's JSON extras


def _read_words(request: CheckRequest) -> _Words:
    size, critical_expr = _checked(request, lazy=True)
    grants: tuple[str, ...] = ()
    if size is not None and len(request.expertise) > 1:
        grants = (f"{len(request.expertise)} expertise grants: one d{size}",)
    detail = {**({"expertise": f"d{size}"} if size is not None else {}), **house_detail(request)}
    before = advantage_notes(request.adv, request.dis)
    return _Words(size, critical_expr, before, grants, detail)


#: `_words`' memo, by the request's identity (the request is kept with its words, so its
#: id is not another's while they are kept).
_READ: Bounded[int, tuple[CheckRequest, _Words]] = declare(
    "levelup._READ",
    holds="id(request) → a levelup check's words (expertise, critical, notes)",
    buys="batch x1.12 to x1.24: a request's words are read once",
).new()


def _words(request: CheckRequest) -> _Words:
    """`_read_words(request)`, read once for each request object, so a request rolled
    again (a batch's repeated line, `--repeat`) skips the reading. It depends on the
    request's fields alone, which never change; an error is raised each time."""
    kept = _READ.get(id(request))
    if kept is not None and kept[0] is request:
        return kept[1]
    found = _read_words(request)
    _READ[id(request)] = (request, found)
    return found


def grade_roll(request: CheckRequest, target: int | None, face: int, total: int) -> Grade:
    """The grade of a check, save or attack whose kept d20 showed `face` (`crit N`: N or
    more reads as a natural 20)."""
    return GRADERS[request.verb](crit_natural(face, request.crit), total, target)


def damage_roll(
    request: CheckRequest, critical_expr: Expr | None, face: int, grade: Grade
) -> tuple[Expr, bool] | None:
    """The damage a roll rolls and whether it is critical: on a hit (without a target,
    unless the face is 1); a critical (a natural 20, `crit N`) rolls `critical_expr`."""
    if request.damage is None:
        return None
    if not (grade.success if grade.success is not None else face != 1):
        return None
    if crit_natural(face, request.crit) != 20:
        return request.damage, False
    return (critical_expr or _critical_expr(request) or request.damage), True


def check_plan(request: Request) -> CheckPlan | None:
    """How a check, save or attack is rolled and graded (`System.check_plan`)."""
    if not (isinstance(request, CheckRequest) and request.verb in GRADERS):
        return None
    target = _target_number(request, request.target)
    size, critical_expr = _checked(request)
    damage = None if request.damage is None else partial(damage_roll, request, critical_expr)
    return house_plan(request, partial(grade_roll, request, target), size, damage=damage)


def _resolve_check(request: CheckRequest, roller: Roller, target: int | None) -> Result:
    verb = request.verb
    size, critical_expr, before, grants, detail = _words(request)  # errors before any die
    roll = house_roll(roller, request, size)
    natural = crit_natural(roll.natural, request.crit)  # `crit N`: N or more reads as 20
    grade = grade_roll(request, target, roll.natural, roll.total)
    notes = [*before, *roll.notes]
    read = check_notes(verb, natural, roll.total, target)
    if natural != roll.natural:
        critical = grade.outcome == "critical_success" or target is None
        said = crit_note(roll.natural, request.crit) if critical else None
        notes += [said] if said else []
        range_ = f"{roll.natural} (crit {request.crit}-20)"
        read = tuple(note.replace("natural 20", range_) for note in read)
    notes += read
    notes += grants
    damage = None
    if request.damage is not None:
        rolled = damage_roll(request, critical_expr, roll.natural, grade)
        if rolled is not None:
            ev = evaluate(rolled[0], roller, "damage")
            damage = Damage(ev.total, ev.dice, rolled[1], ev.text, ev.labels, ev.untyped)
        else:
            notes.append("a miss: no damage")
    return Result(
        request=request.text,
        system=ID,
        verb=verb,
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
        detail=dict(detail),
        notes=tuple(notes),
    )


def _critical_expr(request: CheckRequest, lazy: bool = False) -> Expr | None:
    """The damage a critical hit rolls under the request's crit-dmg mode (`dice` when not
    given: every dice term twice); None without damage, and with `lazy` for a mode that
    cannot fail (all but `max`, which needs a highest total): most rolls are no critical
    hit, and a line read once need not work it out."""
    if request.damage is None:
        if request.crit_dmg is not None:
            raise located(request, "crit-dmg needs damage to change: add dmg EXPR", "crit-dmg")
        return None
    if lazy and request.crit_dmg != "max":
        return None
    try:
        return critical_damage(request.damage, request.crit_dmg)
    except RulesError as exc:
        raise located(request, exc.message, "crit-dmg") from None


def _resolve_group(request: GroupRequest, roller: Roller) -> Result:
    target = _target_number(request, request.target)
    members = tuple(_resolve_check(m, roller, target) for m in request.members)
    grade = grade_group([m.success for m in members], request.rule)
    successes = sum(1 for m in members if m.success)
    house = {"house": {"group": request.rule}} if request.rule is not None else {}
    notes: tuple[str, ...] = ()
    if (
        request.rule == "at-least-half"
        and grade.outcome == "success"
        and 2 * successes == len(members)
    ):
        notes = (f"at-least-half: {successes} of {len(members)} is enough",)
    notes = lifted_notes("member", members) + notes
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=tuple(d for m in members for d in m.dice),
        target=target,
        outcome=grade.outcome,
        label=grade.label,
        success=grade.success,
        members=members,
        detail={"successes": successes, "size": len(members), **house},
        notes=notes,
    )


def _resolve_one(request: CheckRequest, roller: Roller) -> Result:
    return _resolve_check(request, roller, _target_number(request, request.target))


#: Resolve a request with the Level Up rules.
resolve = resolver(
    ID,
    VERBS,
    (CheckRequest, GRADERS, _resolve_one),
    (GroupRequest, None, _resolve_group),
)


#: The house rule word of a group check: (form, meaning), as `word_rows` gives a word's.
GROUP_RULE = (
    "at-least-half",
    "house: a group check succeeds when half succeed (default more-than-half)",
)

#: The words a request may carry in this system, for `d20 systems` and help.
WORDS: tuple[tuple[str, str], ...] = (*word_rows(frozenset().union(*TAKES.values())), GROUP_RULE)

#: What completion offers after each verb: the words it takes (`TAKES`).
OFFERS = {
    "check": offer(TAKES["check"], vs=("dc",)),
    "save": offer(TAKES["save"], vs=("dc",)),
    "attack": offer(TAKES["attack"], vs=("ac", "dc")),
    "group": offer(TAKES["group"] | {"group-rule"}, vs=("dc",)),
    "roll": roll.OFFER,
}

SYSTEM = System(
    ID,
    TITLE,
    VERBS,
    OUTCOMES,
    resolve,
    aliases=("a5e", "level-up"),
    words=WORDS,
    grade_group=grade_group,
    house_words=house_words_of(TAKES),
    encounter="d20cli.rules.levelup.encounter",
    offers=OFFERS,
    check_plan=check_plan,
    verb_outcomes=VERB_OUTCOMES,
    takes=TAKES,
    instead=INSTEAD,
    lacks=LACKS,
)
