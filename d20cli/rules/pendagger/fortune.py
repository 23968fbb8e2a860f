"""Pen & Dagger fortune dice, the pure parts: the result that shows the count, and the
reroll a spent die buys. The count itself is the session state's (d20cli.app.fortune)."""

from __future__ import annotations

from collections.abc import Callable

from d20cli.errors import D20Error, RulesError
from d20cli.language.requests import CheckRequest, FortuneRequest, LuckRequest
from d20cli.results import Die, Result
from d20cli.rules.common import (
    roll_d20,
)
from d20cli.rules.pendagger.attempts import (
    attempt_level,
    attempt_rank,
    attempt_result,
    grade_luck,
    luck_result,
)
from d20cli.rules.pendagger.ladder import ID, LEVEL_LABELS, LEVELS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller


FORTUNE_MAX = 2  # fortune dice held at most


FORTUNE_MAX_BOON = 4  # with the boon option


MAX_REROLLS = 100_000


def fortune_result(request: FortuneRequest, held: int, limit: int = FORTUNE_MAX) -> Result:
    """The Result that shows how many fortune dice are held (the count comes from the
    session state). detail: {"fortune": held, "fortune_max": limit}."""
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        label=f"{held} of {limit} fortune dice",
        detail={"fortune": held, "fortune_max": limit},
    )


def spend_fortune(request: CheckRequest | LuckRequest, previous: Result, roller: Roller) -> Result:
    """Spend a fortune die on `previous` (the result of `request`, an attempt or luck roll):
    reroll until the level is better (luck: until lucky).

    RulesError when `previous` is not a pendagger attempt or luck roll, when its face was 1,
    or when no better level can be reached. The caller checks and lowers the held count.
    The new result's detail adds {"fortune_spent": 1, "rerolls": n, "previous": outcome};
    its dice are every reroll's dice, the replaced ones not kept and flagged "rerolled"."""
    if previous.system != ID or previous.natural is None or previous.outcome is None:
        raise RulesError("a fortune die rerolls a pendagger attempt or luck roll")
    if previous.natural == 1:
        raise RulesError("a fortune die cannot reroll a roll of 1")
    before = previous.outcome
    if isinstance(request, LuckRequest):
        if before == "lucky":
            raise RulesError("the luck roll is already lucky: there is nothing better")

        def better_luck(face: int) -> bool:
            return grade_luck(face).outcome == "lucky"

        face, dice, n = _reroll(roller, request.adv, request.dis, "luck", better_luck)
        result = luck_result(request, face, dice, False)
    else:
        rank, detail = attempt_rank(request)
        reliable, unreliable = request.reliable > 0, request.unreliable > 0
        floor = LEVELS.index(before)

        def better(face: int) -> bool:
            return LEVELS.index(attempt_level(face, rank, reliable, unreliable)) > floor

        if not any(better(f) for f in range(1, 21)):
            raise RulesError(
                f"no better level than {LEVEL_LABELS[before].lower()} at {rank}: "
                "a fortune die cannot help"
            )
        face, dice, n = _reroll(roller, request.adv, request.dis, "d20", better)
        result = attempt_result(request, face, dice, rank, detail, False)
    from d20cli.frozen import replace

    detail = {**result.detail, "fortune_spent": 1, "rerolls": n, "previous": before}
    return replace(result, detail=detail, notes=(*result.notes, f"fortune die: {n} reroll(s)"))


def _reroll(
    roller: Roller,
    adv: int,
    dis: int,
    role: str,
    good: Callable[[int], bool],
) -> tuple[int, tuple[Die, ...], int]:
    dice: list[Die] = []
    for n in range(1, MAX_REROLLS + 1):
        d20 = roll_d20(roller, adv, dis, role)
        if good(d20.natural):
            return d20.natural, (*dice, *d20.dice), n
        dice.extend(Die(d.sides, d.face, False, role, flags=("rerolled",)) for d in d20.dice)
    raise D20Error("the fortune reroll did not reach a better level")
