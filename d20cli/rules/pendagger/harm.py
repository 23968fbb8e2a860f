"""Pen & Dagger's 0 HP (docs/systems/pendagger.md, "0 hit points"). The seed has hit
points (Constitution adds to them) but says nothing of 0 HP, so this is a documented
decision in the seed's own terms: at 0 HP a combatant is defeated (out of the fight); a
hero's fate then "comes down to luck": the DM calls for a luck roll (`d20 luck`: lucky,
the hero lives), which this program does not roll for them. Healing brings a defeated
combatant back up."""

from __future__ import annotations

from d20cli.frozen import replace
from d20cli.rules.encounter import (
    Harm,
    Said,
    Vitals,
    hp_text,
    nothing_at_start,
    plain_heal,
    take_damage,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller


def hurt(v: Vitals, amount: int, kind: str, critical: bool, roller: Roller) -> Said:
    """Damage; at 0 HP, defeated (module doc)."""
    if v.hp is None:
        return Said(v, ("no HP kept: give them with `init add NAME ... hp N`",))
    after, _ = take_damage(v, amount)
    if after.hp != 0:
        return Said(after, (hp_text(after),))
    said = "0 HP: defeated"
    if kind == "character":
        said += " (the DM may call for a luck roll: d20 luck; lucky, the hero lives)"
    return Said(replace(after, state="defeated"), (said,))


HARM = Harm(
    True,
    hurt,
    plain_heal,
    nothing_at_start,
    ("blinded", "frightened", "prone", "stunned", "unconscious"),
    {},
    "0 HP: defeated (a hero's fate: a luck roll the DM calls for)",
    no_turn=frozenset({"defeated"}),  # out of the fight: its turn is passed over
)

__all__ = ["HARM", "hurt"]
