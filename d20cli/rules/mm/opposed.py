"""Mutants & Masterminds opposed checks and rank comparisons: the highest total, then the
higher bonus, then tie-break d20s (two sides: one d20; three or more: rounds)."""

from __future__ import annotations

from collections.abc import Sequence

from d20cli.frozen import replace
from d20cli.language.requests import (
    CompareRequest,
    ContestRequest,
)
from d20cli.results import Die, Result
from d20cli.rules.common import (
    Grade,
    house_roll,
    lifted_notes,
    reject_words,
    side_list,
    side_result,
    side_won,
)
from d20cli.rules.mm.checks import (
    ID,
    TAKES,
    circumstance_note,
    circumstance_total,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller


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
        reject_words(side, TAKES["opposed"], ID, "opposed")
    for side in request.sides:
        flat = circumstance_total(side.circumstances)
        roll = house_roll(roller, side, flat=flat)
        rolls.append((roll.total, roll.modifier))
        said: tuple[str, ...] = ()
        detail: dict[str, object] = {}
        if side.circumstances:  # as a check says them: `bonus +2`, `"circumstance": 2`
            said = (circumstance_note(side.circumstances),)
            detail["circumstance"] = flat
        sides.append(side_result(side, roll, ID, before=said, detail=detail))
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
        winner = grade.winner or 1  # (opposed is never a tie)
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
        notes=lifted_notes("side", sides) + notes,
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
