"""The reglamento's encounter rules: damage, healing and 0 HP (`HARM`: down), and how a
combatant rolls initiative (`INITIATIVE`: a DEX roll). Only the encounter commands read
them (`System.harm`, `System.initiative`), so a plain roll, check or odds never imports
this module, nor d20cli.rules.encounter and d20cli.rules.initiative (docs/performance.md,
"Start-up")."""

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
from d20cli.rules.initiative import InitiativeRule, from_check
from d20cli.rules.reglamento import resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller

# The reglamento's 0 HP (docs/systems/reglamento.md, "0 hit points"): the seed says
# nothing of hit points, so this is a documented decision: at 0 HP a combatant is down (out
# of the fight; the referee says what happens next), and healing brings it back up.


def harm_hurt(v: Vitals, amount: int, kind: str, critical: bool, roller: Roller) -> Said:
    """Damage; at 0 HP, down."""
    if v.hp is None:
        return Said(v, ("no HP kept: give them with `init add NAME ... hp N`",))
    after, _ = take_damage(v, amount)
    if after.hp == 0:
        return Said(replace(after, state="down"), ("0 HP: down (out of the fight)",))
    return Said(after, (hp_text(after),))


HARM = Harm(
    True,
    harm_hurt,
    plain_heal,
    nothing_at_start,
    ("blinded", "prone", "stunned", "unconscious"),
    {},
    "0 HP: down (out of the fight)",
    no_turn=frozenset({"down"}),  # out of the fight: its turn is passed over
)

INITIATIVE = InitiativeRule(
    ("dex", "dexterity"),
    from_check(resolve),
    "a DEX roll: d20 + the init entry, else the dex attribute (ADV, DISADV)",
)
