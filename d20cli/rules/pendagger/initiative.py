"""Pen & Dagger initiative. The text has no initiative, and its attempts roll under a
rank, which gives no total to order by; so, as a decision (docs/rules-decisions.md),
initiative here is a roll high: d20 + a modifier, with advantage or disadvantage. The
modifier is the `init` entry's (`+2`), else the Dexterity score's modifier, as the text
gives it for every ability: floor((score - 10) / 2) (`dex = "14"` gives +2)."""

from __future__ import annotations

from d20cli.errors import RulesError
from d20cli.rules.common import house_roll
from d20cli.rules.initiative import InitiativeRoll, refuse_target
from d20cli.rules.pendagger.scores import score_modifier

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.language.requests import CheckRequest


def roll_initiative(request: CheckRequest, roller: Roller) -> InitiativeRoll:
    """d20 (two with adv or dis) + the modifier, or + the score's modifier."""
    refuse_target(request)
    if request.rank is not None:
        raise RulesError(
            f"Pen & Dagger initiative needs a Dexterity score or a modifier, not the rank "
            f'{request.rank!r} (e.g. dex = "14", or init = "+2")',
            request.text,
            1,
        )
    if request.reliable or request.unreliable or request.fortune:
        raise RulesError(
            "reliable, unreliable and fortune are for attempts, not initiative",
            request.text,
            1,
        )
    flat = score_modifier(request.score) if request.score is not None else 0
    flat += request.adjust or 0
    roll = house_roll(roller, request, flat=flat)
    return InitiativeRoll(roll.total, roll.modifier, roll.dice)
