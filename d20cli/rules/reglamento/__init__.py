"""Reglamento, the six-attribute d20 rules: every rule of this system (docs/rules.md,
"reglamento").

Verbs: check, save, attack (all resolve the same way), contest, luck, roll. The attribute
value is the modifier; difficulties are numbers only (the seed's table is missing).
Grading functions (`grade_check`, `grade_contest`, `grade_contest_sides`,
`contest_leaders`, `grade_luck`) are pure.

Decisions where the texts are silent:
- `attack ... dmg EXPR` rolls the damage on a success; the seed names no critical damage,
  so a natural 20 does not double it (Damage.critical is false).
- A contest side's natural and total are shown on its side result; the side results have
  no outcome of their own, and `success` marks the winner (null on every side on a tie).
- A contest of three or more sides ranks them all at once, by the same order as two
  (natural 20, then no natural 1, then the higher total); when two or more share the best
  place it is a tie, whatever the others rolled.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from d20cli.frozen import replace
from d20cli.language.requests import CheckRequest, ContestRequest, LuckRequest, Request
from d20cli.language.vocabulary import word_rows
from d20cli.results import Damage, Result
from d20cli.rules import roll
from d20cli.rules.common import (
    SIDE_WINS,
    UNGRADED,
    CheckPlan,
    ContestPlan,
    Grade,
    System,
    advantage_notes,
    crit_natural,
    crit_note,
    evaluate,
    house_detail,
    house_plan,
    house_roll,
    house_words_of,
    lifted_notes,
    located,
    luck_detail,
    reject_words,
    resolver,
    roll_d20,
    side_list,
    side_result,
    side_won,
)
from d20cli.rules.offers import offer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.dice.tree import Expr

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
        "Two or more sides roll; a natural 20 beats, a natural 1 loses, else the higher "
        "total; equal best: a tie",
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
    SIDE_WINS,
    ("unfavorable", "Unfavorable outcome"),
    ("favorable", "Favorable outcome"),
)

CHECK_VERBS = ("check", "save", "attack")

#: What reglamento offers in place of a word it lacks, by the word's role, and its own
#: word on what its rules lack (d20cli.rules.hints).
INSTEAD = {
    "roll": "use adv or dis (or a modifier)",
    "base": "a reglamento roll takes the attribute as a signed modifier: check +3 vs 15",
}
LACKS = {
    "contest target": "a contest side has no target: contest +3 vs +1",
    "crit-dmg": "reglamento never doubles damage on a critical, so it has no crit-dmg",
}

_CHECK = frozenset({"adv", "dis", "modifier", "target", "crit", "lucky", "min"})

#: The words each verb takes (kinds of `vocabulary.CHECK_WORDS`; a contest's: each side's),
#: the one list its rules check a request against, completion offers and the house
#: defaults read.
TAKES: dict[str, frozenset[str]] = {
    "check": _CHECK,
    "save": _CHECK,
    "attack": _CHECK | {"dmg"},
    "contest": _CHECK - {"target"},
    "luck": frozenset({"adv", "dis", "lucky"}),  # a luck roll's d20 may be lucky
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


def contest_rank(natural: int, total: int) -> tuple[bool, bool, int]:
    """A contest side's place (higher is better): a natural 20 beats any side without
    one; a natural 1 loses to any side without one; then the higher total."""
    return (natural == 20, natural != 1, total)


def contest_leaders(rolls: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """The sides (1-based) sharing the best place among (natural, total) rolls."""
    ranks = [contest_rank(natural, total) for natural, total in rolls]
    best = max(ranks)
    return tuple(n for n, rank in enumerate(ranks, start=1) if rank == best)


TIE = Grade("tie", "Tie — the situation stays unchanged", None)


def grade_contest_sides(
    rolls: Sequence[tuple[int, int]], names: Sequence[str | None] = ()
) -> Grade:
    """A contest of two or more sides, each a (natural, total) roll: the one side in the
    best place wins (`first_wins` / `second_wins` of two, `side_wins` of more, with
    `winner`); when several share it, a tie: the situation stays unchanged.
    names: the sides' label words, for the label of `side_wins`."""
    leaders = contest_leaders(rolls)
    if len(leaders) > 1:
        return TIE
    winner = leaders[0]
    return side_won(winner, len(rolls), names[winner - 1] if winner <= len(names) else None)


def grade_contest(natural1: int, total1: int, natural2: int, total2: int) -> Grade:
    """A contest of two sides (`grade_contest_sides`): a side with a natural 20 beats a
    side without one; a side with a natural 1 loses to a side without one; otherwise the
    higher total wins; equal totals (with the same special natural on both sides) are a
    tie: the situation stays unchanged."""
    return grade_contest_sides(((natural1, total1), (natural2, total2)))


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


def _checked(request: CheckRequest) -> int | None:
    """A check's words checked before any die; its target."""
    reject_words(request, TAKES[request.verb], ID)
    return _target(request)


def grade_roll(request: CheckRequest, target: int | None, face: int, total: int) -> Grade:
    """The grade of a check, save or attack whose d20 showed `face` (`crit N`: N or more
    is a critical success)."""
    return grade_check(crit_natural(face, request.crit), total, target)


def damage_roll(request: CheckRequest, face: int, grade: Grade) -> tuple[Expr, bool] | None:
    """An attack's damage, rolled on a success (without a target, unless the face is 1);
    never critical."""
    if request.damage is None:
        return None
    if grade.success or (grade.success is None and face != 1):
        return request.damage, False
    return None


def check_plan(request: Request) -> CheckPlan | None:
    """How a check, save or attack is rolled and graded (`System.check_plan`)."""
    if not (isinstance(request, CheckRequest) and request.verb in CHECK_VERBS):
        return None
    target = _checked(request)
    damage = None if request.damage is None else partial(damage_roll, request)
    return house_plan(request, partial(grade_roll, request, target), damage=damage)


def _resolve_check(request: CheckRequest, roller: Roller) -> Result:
    target = _checked(request)
    roll = house_roll(roller, request)
    natural = crit_natural(roll.natural, request.crit)  # `crit N`: a critical success
    grade = grade_roll(request, target, roll.natural, roll.total)
    notes = [*advantage_notes(request.adv, request.dis), *roll.notes]
    said = crit_note(roll.natural, request.crit)
    if said is not None:
        notes.append(said)
    if target is not None and natural == 20 and roll.total < target:
        notes.append(
            f"{'natural 20' if said is None else 'crit'}: succeeds regardless of difficulty"
        )
    if target is not None and roll.natural == 1 and roll.total >= target:
        notes.append("natural 1: always fails")
    damage = None
    if request.damage is not None:
        rolled = damage_roll(request, roll.natural, grade)
        if rolled is not None:
            ev = evaluate(rolled[0], roller, "damage")
            damage = Damage(ev.total, ev.dice, rolled[1], ev.text, ev.labels, ev.untyped)
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
        detail=house_detail(request),
        notes=tuple(notes),
    )


def grade_sides(request: ContestRequest, rolls: Sequence[tuple[int, int]]) -> Grade:
    """The grade of a contest whose sides rolled these (face, total) pairs (`crit N`: a
    face of N or more reads as a natural 20)."""
    sides = request.sides
    read = [
        (crit_natural(face, side.crit), total)
        for side, (face, total) in zip(sides, rolls, strict=True)
    ]
    return grade_contest_sides(read, [side.name for side in sides])


def contest_plan(request: Request) -> ContestPlan | None:
    """How a contest is rolled and graded (`System.contest_plan`)."""
    if not (isinstance(request, ContestRequest) and request.verb == "contest"):
        return None
    for side in request.sides:  # every side's words before any die
        reject_words(side, TAKES["contest"], ID, "contest")
    sides = tuple(house_plan(side, _no_grade) for side in request.sides)
    return ContestPlan(sides, partial(grade_sides, request))


def _no_grade(face: int, total: int) -> Grade:
    return UNGRADED  # a contest side has no grade of its own


def _resolve_contest(request: ContestRequest, roller: Roller) -> Result:
    sides: list[Result] = []
    rolls: list[tuple[int, int]] = []  # (natural, total) of each side
    rolled: list[tuple[int, int]] = []  # (face, total) of each side
    for side in request.sides:  # every side's words before any die
        reject_words(side, TAKES["contest"], ID, "contest")
    for side in request.sides:
        roll = house_roll(roller, side)
        rolls.append((crit_natural(roll.natural, side.crit), roll.total))
        rolled.append((roll.natural, roll.total))
        said = crit_note(roll.natural, side.crit)
        sides.append(side_result(side, roll, ID, (said,) if said else ()))
    grade = grade_sides(request, rolled)
    notes: tuple[str, ...] = ()
    if grade.winner is None and len(sides) > 2:
        notes = (f"{side_list(contest_leaders(rolls))} share the best roll",)
    notes = lifted_notes("side", sides) + notes
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=tuple(d for s in sides for d in s.dice),
        outcome=grade.outcome,
        label=grade.label,
        sides=tuple(
            replace(s, success=None if grade.winner is None else n == grade.winner)
            for n, s in enumerate(sides, start=1)
        ),
        winner=grade.winner,
        notes=notes,
    )


def _resolve_luck(request: LuckRequest, roller: Roller) -> Result:
    if request.fortune:
        raise located(request, "fortune dice are pendagger's", "fortune")
    d20 = roll_d20(roller, request.adv, request.dis, role="luck", lucky=request.lucky)
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
        detail=luck_detail(request),
        notes=advantage_notes(request.adv, request.dis) + d20.notes,
    )


#: Resolve a request with the reglamento rules.
resolve = resolver(
    ID,
    VERBS,
    (CheckRequest, CHECK_VERBS, _resolve_check),
    (ContestRequest, ("contest",), _resolve_contest),
    (LuckRequest, None, _resolve_luck),
)


#: How reglamento writes and means its words, for `d20 systems` and help (`word_rows`).
FORMS = {"adv": ("ADV / DISADV",), "dis": ("ADV / DISADV",)}
_MEANINGS = {
    "modifier": "the attribute as a modifier: +3, -1",
    "target": "the difficulty: vs 15, vs DC 15",
    "adv": "advantage, disadvantage (any case; also adv, dis, advantage)",
    "dmg": "attack damage, rolled on a success: dmg 1d6+2",
    "crit": "house: a face of N or more is a critical success (crit 19)",
}
#: A contest's sides: (form, meaning), as `word_rows` gives a word's.
SIDES = ("A vs B vs C", "contest sides, two or more, each with its own ADV/DISADV")

#: The words a request may carry in this system, for `d20 systems` and help.
WORDS: tuple[tuple[str, str], ...] = (
    *word_rows(frozenset().union(*TAKES.values()), _MEANINGS, FORMS),
    SIDES,
)

#: What completion offers after each verb: the words it takes (`TAKES`).
OFFERS = {
    "check": offer(TAKES["check"], vs=("dc",)),
    "save": offer(TAKES["save"], vs=("dc",)),
    "attack": offer(TAKES["attack"], vs=("ac", "dc")),
    "contest": offer(TAKES["contest"] | {"side"}, vs=()),
    "luck": offer(TAKES["luck"]),
    "roll": roll.OFFER,
}

SYSTEM = System(
    ID,
    TITLE,
    VERBS,
    OUTCOMES,
    resolve,
    aliases=("reg",),
    words=WORDS,
    offers=OFFERS,
    check_plan=check_plan,
    contest_plan=contest_plan,
    house_words=house_words_of(TAKES),
    takes=TAKES,
    instead=INSTEAD,
    lacks=LACKS,
    forms=FORMS,
    encounter="d20cli.rules.reglamento.encounter",
)
