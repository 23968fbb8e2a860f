"""Mutants & Masterminds: every rule of this system (docs/rules.md, "mm").

Verbs: check, attack, resist, routine, opposed, compare, percent, roll. Every check is
graded in signed degrees (`degree`); pure functions (`degree`, `raise_degree`,
`grade_check`, `grade_attack`, `grade_routine`, `grade_opposed`, `opposed_leaders`,
`tiebreak_pair`, `tiebreak_round`, `grade_compare`, `grade_percent`) decide outcomes so
odds can reuse them.

Decisions where the texts are silent:
- `vs defense N` and `vs rank N` both mean DC 10 + N and are accepted on check, attack,
  resist and routine; `vs routine +N` (routine opposition) likewise means DC 10 + N. The
  named defenses (`vs parry 6`, `dodge`, `fortitude`, `toughness`, `will`) mean
  `defense N`. Ranks and defenses may be negative (`vs rank -1` is DC 9).
- `minor-bonus` / `minor-penalty` are `bonus` / `penalty` (+2 / -2) by another name.
- Degrees: the text's prose ("every five full points adds a degree") and its table (a
  result of DC-5 is still one degree of failure) disagree exactly at DC-5, DC-10, ...;
  this module follows the table.
- `opposed` compares totals only: a natural 20 or 1 has no effect on who wins. "Bonus"
  for the tie-break is each side's modifier as rolled (circumstance words included).
- `opposed` of three or more sides: the highest total wins; equal: the higher bonus;
  equal again: while three or more are still tied, each of them rolls a d20 and those
  with the highest face stay tied (a round where all show one face is rolled again);
  when exactly two are still tied, at the start or after a round, one d20 decides
  (1-10 the earlier side, 11-20 the later), as between two sides.
- `percent` accepts 0..100; 0 never succeeds, 100 always does.
- `compare` ranks are whole numbers (signed allowed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from d20cli.errors import RulesError
from d20cli.language.requests import (
    CheckRequest,
    CompareRequest,
    ContestRequest,
    PercentRequest,
    Request,
)
from d20cli.results import Die, Result
from d20cli.rules.common import (
    SIDE_WINS,
    UNGRADED,
    Grade,
    System,
    evaluate,
    located,
    reject_words,
    resolve_roll,
    roll_check,
    side_list,
    side_won,
    unknown_verb,
)

if TYPE_CHECKING:
    from d20cli.dice.roller import Roller

ID = "mm"
TITLE = "Mutants & Masterminds"

VERBS: dict[str, tuple[str, str]] = {
    "check": (
        "Graded check vs a DC (number or name); natural 20 raises the degree one step",
        "check +4 vs tough bonus",
    ),
    "attack": (
        "Attack vs a DC or `defense N` (DC 10+N); natural 20 critical hit, natural 1 misses",
        "attack +8 vs defense 6",
    ),
    "resist": ("Resistance check vs `rank N` (DC 10+N) or a DC", "resist +6 vs rank 8"),
    "routine": ("Routine check: no die, the result is 10 + modifier, graded", "routine +10 vs 20"),
    "opposed": (
        "Two or more roll; higher total wins; tie: higher bonus, then d20s (two: 1-10 first)",
        "opposed +8 vs +6",
    ),
    "compare": ("No roll: higher rank wins; equal: a d20 (1-10 first)", "compare 8 vs 6"),
    "percent": ("Percent chance on a d20: succeeds when face x 5 <= percent", "percent 45"),
    "roll": ("Roll a dice expression", "roll 2d6+3"),
}

OUTCOMES: tuple[tuple[str, str], ...] = (
    ("failure", "Failure"),
    ("success", "Success"),
    ("critical_success", "Critical success"),
    ("first_wins", "First side wins"),
    ("second_wins", "Second side wins"),
    SIDE_WINS,
)

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

_ADV_HINT = (
    "mm has no advantage or disadvantage; use circumstance words: "
    "bonus (+2), penalty (-2), major-bonus (+5), major-penalty (-5)"
)
_HINTS = {
    "adv": _ADV_HINT,
    "dis": _ADV_HINT,
    "expertise": "mm has no expertise die; use circumstance words: bonus, major-bonus",
    "reliable": "reliable is a pendagger word; mm has circumstance words (bonus, penalty, ...)",
    "unreliable": "unreliable is a pendagger word; mm has circumstance words",
    "fortune": "fortune dice are pendagger's",
    "rank": "rank words are pendagger's; an mm check takes a signed modifier: check +5 vs 15",
    "score": "an mm modifier needs its sign (+8 or -1); bare numbers are pendagger ability scores",
    "adjust": "rank adjustments are pendagger's",
    "dmg": "mm attacks have no damage roll (damage is a resistance check: resist +6 vs rank 8)",
    "target": "a side of opposed has no target: opposed +8 vs +6",
}

# The words a check may carry, and a side of opposed.
_OFFERED = frozenset({"modifier", "target", "circumstance"})
_OFFERED_SIDE = frozenset({"modifier", "circumstance"})

_OTHER_VERBS = {
    "save": "mm saves are resistance checks: resist +6 vs rank 8",
    "group": "group checks are levelup's",
    "contest": "use opposed (rolled) or compare (no roll)",
    "luck": "luck rolls are reglamento's and pendagger's; try percent 50",
    "attempt": "attempt is pendagger's; use check",
    "defend": "defend is pendagger's; use resist",
    "scores": "scores is pendagger's",
    "fortune": "fortune dice are pendagger's",
}


# --- pure rules -----------------------------------------------------------------------


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
    no effect. natural None: no die (routine)."""
    if dc is None:
        return UNGRADED
    deg = degree(total, dc)
    if natural == 20:
        deg = raise_degree(deg)
        if deg > 0:
            return Grade("critical_success", f"Critical success — {degree_label(deg)}", True, deg)
        return Grade("failure", degree_label(deg).capitalize(), False, deg)
    if deg > 0:
        return Grade("success", degree_label(deg).capitalize(), True, deg)
    return Grade("failure", degree_label(deg).capitalize(), False, deg)


def grade_attack(natural: int, total: int, dc: int | None) -> Grade:
    """An attack check: a natural 20 always hits and is a critical hit (degree raised as for
    any check, and at least +1); a natural 1 always misses (a failure, degree at most -1);
    otherwise graded like a check."""
    if dc is None:
        return UNGRADED
    deg = degree(total, dc)
    if natural == 20:
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


def opposed_leaders(rolls: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """The sides (1-based) of an opposed check still in the lead, from each side's (total,
    bonus): those with the highest total, and among them those with the highest bonus.
    More than one: the dice decide (`tiebreak_pair`, `tiebreak_round`)."""
    best = max(rolls)  # the highest total, then the highest bonus
    return tuple(n for n, roll in enumerate(rolls, start=1) if roll == best)


def grade_opposed(total1: int, bonus1: int, total2: int, bonus2: int) -> Grade | None:
    """An opposed check of two sides: the higher total wins; equal totals: the higher bonus
    wins. None when bonuses are equal too (a d20 decides: `grade_tiebreak`)."""
    leaders = opposed_leaders(((total1, bonus1), (total2, bonus2)))
    return side_won(leaders[0], 2) if len(leaders) == 1 else None


def tiebreak_pair(face: int, earlier: int, later: int) -> int:
    """Two sides still tied: one d20, 1-10 the earlier side wins, 11-20 the later."""
    return earlier if face <= 10 else later


def tiebreak_round(tied: Sequence[int], faces: Sequence[int]) -> tuple[int, ...]:
    """Three or more sides still tied each rolled a d20 (`faces`, in the order of `tied`):
    the sides with the highest face, still tied if more than one."""
    top = max(faces)
    return tuple(n for n, face in zip(tied, faces, strict=True) if face == top)


def grade_compare(rank1: int, rank2: int) -> Grade | None:
    """A comparison: the higher rank wins. None when equal (a d20 decides)."""
    if rank1 != rank2:
        return _winner(rank1 > rank2)
    return None


def grade_tiebreak(face: int) -> Grade:
    """The tie-break d20 of two sides: 1-10 the first side wins, 11-20 the second."""
    return side_won(tiebreak_pair(face, 1, 2), 2)


def _winner(first: bool) -> Grade:
    return side_won(1 if first else 2, 2)


def grade_percent(face: int, percent: int) -> Grade:
    """A percent roll on a d20: success when face x 5 <= percent (face <= percent // 5)."""
    if face * 5 <= percent:
        return Grade("success", "Success", True)
    return Grade("failure", "Failure", False)


# --- resolution -----------------------------------------------------------------------


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


def _resolve_check(request: CheckRequest, roller: Roller) -> Result:
    reject_words(request, _OFFERED, _HINTS, ID)
    dc, detail = _dc(request)
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
        roll = roll_check(roller, 0, 0, request.modifier, flat=flat)
        natural, modifier, total, dice = roll.natural, roll.modifier, roll.total, roll.dice
        if request.verb == "attack":
            grade = grade_attack(natural, total, dc)
        else:
            grade = grade_check(natural, total, dc)
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
        detail=detail,
        notes=tuple(notes),
    )


def _tiebreak(roller: Roller) -> tuple[Grade, Die]:
    face = roller.roll(1, 20)
    return grade_tiebreak(face), Die(20, face, True, "tiebreak")


def _break_tie(
    tied: tuple[int, ...], roller: Roller
) -> tuple[int, tuple[Die, ...], tuple[str, ...]]:
    """Three or more sides, some tied on total and bonus (`tied`): the winner, the
    tie-break dice (each die of a round carries `by`: "side 2") and the notes."""
    dice: list[Die] = []
    notes: list[str] = []
    how = "tie on total and bonus"
    while len(tied) > 2:
        notes.append(f"{side_list(tied)} {how}: each rolls a d20, the highest wins")
        rounds = roller.d20_rounds(len(tied))
        for faces in rounds:
            for n, face in zip(tied, faces, strict=True):
                dice.append(Die(20, face, True, "tiebreak", by=f"side {n}"))
        tied = tiebreak_round(tied, rounds[-1])
        how = "still tie"
    if len(tied) == 1:
        return tied[0], tuple(dice), tuple(notes)
    earlier, later = tied
    notes.append(
        f"{side_list(tied)} {how}: a d20 decides (1-10 side {earlier}, 11-20 side {later})"
    )
    face = roller.roll(1, 20)
    dice.append(Die(20, face, True, "tiebreak"))
    return tiebreak_pair(face, earlier, later), tuple(dice), tuple(notes)


def _resolve_opposed(request: ContestRequest, roller: Roller) -> Result:
    sides: list[Result] = []
    rolls: list[tuple[int, int]] = []  # (total, bonus) of each side
    for side in request.sides:  # every side's words before any die
        reject_words(side, _OFFERED_SIDE, _HINTS, ID)
    for side in request.sides:
        flat = circumstance_total(side.circumstances)
        roll = roll_check(roller, 0, 0, side.modifier, flat=flat)
        rolls.append((roll.total, roll.modifier))
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
    dice = tuple(d for s in sides for d in s.dice)
    notes: tuple[str, ...] = ()
    if len(sides) == 2:
        (total1, bonus1), (total2, bonus2) = rolls
        grade = grade_opposed(total1, bonus1, total2, bonus2)
        if grade is None:
            grade, die = _tiebreak(roller)
            dice += (die,)
            notes = ("equal totals and bonuses: a d20 decides (1-10 first, 11-20 second)",)
        elif total1 == total2:
            notes = ("equal totals: the higher bonus wins",)
    else:
        leaders = opposed_leaders(rolls)
        top = max(total for total, _ in rolls)
        if len(leaders) == 1:
            winner = leaders[0]
            at_top = [n for n, (total, _) in enumerate(rolls, start=1) if total == top]
            if len(at_top) > 1:
                notes = (f"{side_list(at_top)} have the highest total: the higher bonus wins",)
        else:
            winner, tie_dice, notes = _break_tie(leaders, roller)
            dice += tie_dice
        grade = side_won(winner, len(sides), sides[winner - 1].name)
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=dice,
        outcome=grade.outcome,
        label=grade.label,
        sides=tuple(replace(s, success=n == grade.winner) for n, s in enumerate(sides, start=1)),
        winner=grade.winner,
        notes=notes,
    )


def _resolve_compare(request: CompareRequest, roller: Roller) -> Result:
    grade = grade_compare(request.first, request.second)
    dice: tuple[Die, ...] = ()
    notes: tuple[str, ...] = ()
    if grade is None:
        grade, die = _tiebreak(roller)
        dice = (die,)
        notes = ("equal ranks: a d20 decides (1-10 first, 11-20 second)",)
    first = grade.outcome == "first_wins"
    sides = tuple(
        Result(request=request.text, system=ID, verb="rank", total=rank, success=won)
        for rank, won in ((request.first, first), (request.second, not first))
    )
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=dice,
        outcome=grade.outcome,
        label=grade.label,
        sides=sides,
        winner=grade.winner,
        notes=notes,
    )


def _resolve_percent(request: PercentRequest, roller: Roller) -> Result:
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


def resolve(request: Request, roller: Roller) -> Result:
    """Resolve a request with the Mutants & Masterminds rules."""
    if isinstance(request, CheckRequest) and request.verb in CHECK_VERBS:
        return _resolve_check(request, roller)
    if isinstance(request, ContestRequest) and request.verb == "opposed":
        return _resolve_opposed(request, roller)
    if isinstance(request, CompareRequest):
        return _resolve_compare(request, roller)
    if isinstance(request, PercentRequest):
        return _resolve_percent(request, roller)
    rolled = resolve_roll(request, roller, ID)
    if rolled is not None:
        return rolled
    raise unknown_verb(request, ID, VERBS, _OTHER_VERBS.get(request.verb))


#: The words a request may carry in this system, for `d20 systems` and help.
WORDS: tuple[tuple[str, str], ...] = (
    ("+N / -N", "the bonus: +8, -1"),
    ("vs N", "a DC: vs 15, vs DC 15, or a name: vs tough, vs very easy"),
    ("vs defense N", "DC 10+N; also parry, dodge, fortitude, toughness, will N"),
    ("vs rank N", "DC 10+N (resistance); ranks and defenses may be negative"),
    ("vs routine +N", "routine opposition: DC 10+N"),
    ("bonus / penalty", "+2 / -2 (also minor-bonus, minor-penalty)"),
    ("major-bonus", "+5; major-penalty -5 (also with a space: major bonus)"),
)

SYSTEM = System(ID, TITLE, VERBS, OUTCOMES, resolve, aliases=("mutants", "m&m", "mnm"), words=WORDS)
