"""Pen & Dagger attempts and luck rolls: the rank, the Success Table, the natural-1 rule,
reliable and unreliable, in that order."""

from __future__ import annotations

from functools import partial

from d20cli.errors import RulesError
from d20cli.frozen import replace
from d20cli.language.requests import CheckRequest, LuckRequest, Request
from d20cli.results import Die, Result
from d20cli.rules import get_system
from d20cli.rules.common import (
    CheckPlan,
    Grade,
    advantage_notes,
    house_detail,
    located,
    luck_detail,
    reject_words,
    roll_d20,
)
from d20cli.rules.hints import word_hint
from d20cli.rules.pendagger.ladder import (
    ID,
    LEVEL_LABELS,
    LEVELS,
    NAT1_EXEMPT,
    RANKS,
    adjust_rank,
    level_name,
    row_text,
    step,
    table_level,
)
from d20cli.rules.pendagger.scores import rank_for_score
from d20cli.visible import visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller


FORTUNE_LUCK_FACE = 10  # a luck roll's 20 taken for a fortune die counts as this
FORTUNE_GAINED = ": +1 fortune die"  # how the note of a roll that gains a die ends


ATTEMPT_VERBS = ("attempt", "check", "attack", "defend")


LUCKY_FROM = 10  # a luck roll of 10 or higher is lucky


#: The words of an attempt (each of ATTEMPT_VERBS) and of a luck roll (kinds of
#: `vocabulary.CHECK_WORDS`), the one list its rules check a request against, completion
#: offers and the house defaults read.
_ATTEMPT = frozenset(
    {"adv", "dis", "reliable", "unreliable", "fortune", "rank", "score", "adjust", "lucky"}
)
TAKES: dict[str, frozenset[str]] = {
    **dict.fromkeys(ATTEMPT_VERBS, _ATTEMPT),
    "luck": frozenset({"adv", "dis", "fortune", "lucky"}),
}

#: What pendagger offers in place of a word it lacks, by the word's role, and its own word
#: on what its rules lack (d20cli.rules.hints).
INSTEAD = {
    "roll": "use adv, reliable or a rank adjustment (+1)",
    "base": "a pendagger attempt takes a rank or an ability score: "
    "attempt adept, attempt 14, attempt trained +1",
    "target": "the rank's row on the Success Table decides (attempt adept)",
    "damage": "roll the damage: roll 1d8+2",
}
#: Pendagger's own word on the house rules its Success Table has no place for.
LACKS = {
    "crit-dmg": "pendagger attempts have no damage roll, so no crit-dmg",
    "crit": "pendagger has no critical range: a natural 20 reads the Success Table; use "
    "reliable or a rank adjustment (+1)",
    "min": "pendagger reads the face on the Success Table, so it has no minimum face; use "
    "reliable or a rank adjustment (+1)",
}


def attempt_level(face: int, rank: str, reliable: bool = False, unreliable: bool = False) -> str:
    """The level of an attempt with the rank already adjusted: look the face up, apply the
    natural-1 rule (critical failure except at legendary and godlike), then reliability.
    reliable: unless the face is 1, one step up (critical stays); unreliable: unless the
    face is 20, one step down (critical failure stays). Both together: each keeps its own
    exception, so they cancel on 2-19, only reliable applies on a 20, only unreliable on
    a 1."""
    level = table_level(rank, face)
    if face == 1 and rank not in NAT1_EXEMPT:
        level = "critical_failure"
    return step(level, reliability_step(face, reliable, unreliable))


def reliability_step(face: int, reliable: bool, unreliable: bool) -> int:
    """The steps reliable and unreliable move a level on this face: +1, -1 or 0."""
    return int(reliable and face != 1) - int(unreliable and face != 20)


def grade_attempt(
    face: int,
    rank: str,
    reliable: bool = False,
    unreliable: bool = False,
    fortune: bool = False,
) -> Grade:
    """Outcome, label and success of an attempt; with `fortune`, a natural 20 is taken as a
    normal success (the caller gains a fortune die)."""
    level = attempt_level(face, rank, reliable, unreliable)
    if fortune and face == 20:
        level = "normal_success"
    success = LEVELS.index(level) >= LEVELS.index("limited_success")
    return Grade(level, f"{LEVEL_LABELS[level]} — {rank}", success)


def grade_luck(face: int, fortune: bool = False) -> Grade:
    """A luck roll: 10 or higher is lucky. With `fortune`, a 20 counts as a 10 (still
    lucky) and gains a fortune die."""
    value = FORTUNE_LUCK_FACE if (fortune and face == 20) else face
    if value >= LUCKY_FROM:
        return Grade("lucky", "Lucky", True)
    return Grade("unlucky", "Unlucky", False)


def attempt_rank(request: CheckRequest) -> tuple[str, dict[str, object]]:
    """The rank an attempt uses (rank word or ability score, adjusted and clamped) and the
    detail entries that explain it: "score", "base_rank" and "rank_adjust" when they
    differ from the rank used."""
    detail: dict[str, object] = {}
    if request.rank is not None:
        base = request.rank
    elif request.score is not None:
        try:
            base = rank_for_score(request.score)
        except RulesError as err:
            raise located(request, err.message, "score") from None
        detail["score"] = request.score
    elif request.name is not None:  # a word that is not a rank: the ranks there are
        raise located(
            request,
            f"{visible(request.name[:30])!r} is not a rank; an attempt names a rank "
            f"({', '.join(RANKS)}) or an ability score: attempt adept, attempt 14",
            "label",
        )
    else:
        raise located(
            request,
            "an attempt names a rank or an ability score: attempt adept, attempt 14",
            "verb",
        )
    rank = base
    if request.adjust is not None:
        rank = adjust_rank(base, request.adjust)
        detail["base_rank"] = base
        detail["rank_adjust"] = request.adjust
    return rank, detail


def rank_path(detail: dict[str, object]) -> str:
    """How the rank was reached, for people: `score 14 -> adept, +1 -> master`, with the
    clamp at the ends of the ladder named; "" when a rank word was used as it is."""
    rank = str(detail.get("rank"))
    base = detail.get("base_rank", rank)
    parts = []
    if "score" in detail:
        parts.append(f"score {detail['score']} -> {base}")
    adjust = detail.get("rank_adjust")
    if isinstance(adjust, int):
        text = f"{adjust:+d} -> {rank}"
        if isinstance(base, str) and RANKS.index(base) + adjust != RANKS.index(rank):
            text += f" ({rank} is the {'top' if adjust > 0 else 'bottom'} of the ladder)"
        parts.append(text if parts else f"{base} {text}")
    return ", ".join(parts)


def _check_attempt_words(request: CheckRequest) -> None:
    if request.rank is None and request.score is None and request.modifier is not None:
        raise located(request, word_hint(get_system(ID), request.verb, "modifier"), "modifier")
    reject_words(request, TAKES[request.verb], ID)


def attempt_result(
    request: CheckRequest,
    face: int,
    dice: tuple[Die, ...],
    rank: str,
    detail: dict[str, object],
    fortune: bool,
) -> Result:
    reliable = request.reliable > 0
    unreliable = request.unreliable > 0
    grade = grade_roll(request, rank, fortune, face)
    detail = {**detail, "rank": rank, "row": row_text(rank)}
    notes = [*advantage_notes(request.adv, request.dis)]
    path = rank_path(detail)
    if path:
        notes.append(path)
    table = table_level(rank, face)
    if face == 1 and rank in NAT1_EXEMPT:
        notes.append(f"natural 1 at {rank}: the table's level, not a critical failure")
    elif face == 1:
        table = "critical_failure"
        notes.append("natural 1: a critical failure")
    moved = reliability_step(face, reliable, unreliable)
    words = " and ".join(w for w, on in (("reliable", reliable), ("unreliable", unreliable)) if on)
    if moved:
        after = step(table, moved)
        change = f"{level_name(table)} -> {level_name(after)}"
        if after == table:
            change = f"{level_name(table)} stays ({'top' if moved > 0 else 'bottom'} of the scale)"
        if reliable and unreliable:
            why = (
                "on a 20 only reliable applies" if face == 20 else "on a 1 only unreliable applies"
            )
            notes.append(f"{why}: {change}")
        else:
            notes.append(f"{words}: {change}")
    elif reliable and unreliable:
        notes.append("reliable and unreliable cancel")
    elif reliable:
        notes.append("reliable has no effect on a 1")
    elif unreliable:
        notes.append("unreliable has no effect on a 20")
    if fortune and face == 20:
        detail["fortune_gained"] = 1
        notes.append(f"natural 20 taken as a normal success{FORTUNE_GAINED}")
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=dice,
        natural=face,
        total=face,
        outcome=grade.outcome,
        label=grade.label,
        success=grade.success,
        name=request.name,
        detail=detail,
        notes=tuple(notes),
    )


def grade_roll(request: CheckRequest, rank: str, fortune: bool, face: int, total: int = 0) -> Grade:
    """The grade of an attempt at `rank` whose d20 showed `face` (the total is the face)."""
    return grade_attempt(face, rank, request.reliable > 0, request.unreliable > 0, fortune)


def check_plan(request: Request) -> CheckPlan | None:
    """How an attempt is rolled and graded (`System.check_plan`): the d20 alone (adv,
    dis, lucky), graded on the rank's row."""
    if not (isinstance(request, CheckRequest) and request.verb in ATTEMPT_VERBS):
        return None
    _check_attempt_words(request)
    rank, _ = attempt_rank(request)
    grade = partial(grade_roll, request, rank, request.fortune)
    return CheckPlan(request.adv, request.dis, request.lucky, None, None, None, 0, grade)


def resolve_attempt(request: CheckRequest, roller: Roller) -> Result:
    _check_attempt_words(request)
    rank, detail = attempt_rank(request)
    d20 = roll_d20(roller, request.adv, request.dis, lucky=request.lucky)
    result = attempt_result(request, d20.natural, d20.dice, rank, detail, request.fortune)
    if not request.lucky:
        return result
    house = {**result.detail, **house_detail(request)}
    return replace(result, detail=house, notes=d20.notes + result.notes)


def luck_result(request: LuckRequest, face: int, dice: tuple[Die, ...], fortune: bool) -> Result:
    grade = grade_luck(face, fortune)
    detail: dict[str, object] = {}
    notes = advantage_notes(request.adv, request.dis)
    total = face
    if fortune and face == 20:
        total = FORTUNE_LUCK_FACE
        detail["fortune_gained"] = 1
        notes += (f"20 taken as a 10{FORTUNE_GAINED}",)
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=dice,
        natural=face,
        total=total,
        target=LUCKY_FROM,
        outcome=grade.outcome,
        label=grade.label,
        success=grade.success,
        detail=detail,
        notes=notes,
    )


def resolve_luck(request: LuckRequest, roller: Roller) -> Result:
    """A luck roll; `lucky` rerolls a d20 showing 1 once, as on an attempt (a fortune
    reroll of it, `spend_fortune`, is a new roll of its own and is not lucky)."""
    d20 = roll_d20(roller, request.adv, request.dis, role="luck", lucky=request.lucky)
    result = luck_result(request, d20.natural, d20.dice, request.fortune)
    if not request.lucky:
        return result
    house = {**result.detail, **luck_detail(request)}
    before = advantage_notes(request.adv, request.dis)  # the cancel, then the reroll
    notes = before + d20.notes + result.notes[len(before) :]
    return replace(result, detail=house, notes=notes)
