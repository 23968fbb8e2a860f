"""Level Up's encounter rules: damage, healing and 0 HP (`HARM`: death saves), what a
condition does to a roll, and how a combatant rolls initiative (`INITIATIVE`: a Dexterity
check). Only the encounter commands read them (`System.harm`, `System.initiative`), so a
plain roll, check or odds never imports this module, nor d20cli.rules.encounter and
d20cli.rules.initiative (docs/performance.md, "Start-up")."""

from __future__ import annotations

from d20cli.frozen import replace
from d20cli.rules.encounter import (
    FAILS,
    CheckRule,
    Harm,
    Said,
    Vitals,
    hp_text,
    plain_heal,
    take_damage,
)
from d20cli.rules.initiative import InitiativeRule, from_check
from d20cli.rules.levelup import resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller

# Level Up's 0 HP (docs/systems/levelup.md, "0 hit points"; the seed is silent, so this
# is the reading of the 5e rules Level Up builds on, a documented decision):
#
# - a monster at 0 HP is dead; a character at 0 HP is dying (unconscious);
# - damage past 0 HP of at least the character's max HP kills outright;
# - damage to a dying character is a failed death save (two for a critical hit);
# - a dying character's turn starts with a death save: a d20, 10 or higher a success, a 1
#   two failures, a 20 one HP back; three successes: stable; three failures: dead;
# - any healing brings a character at 0 HP back up.

DEATH_SAVES = 3  # successes to be stable, failures to die


def harm_hurt(v: Vitals, amount: int, kind: str, critical: bool, roller: Roller) -> Said:
    """Damage, and what 0 HP makes of it (the rule above)."""
    if v.hp is None:
        return Said(v, ("no HP kept: give them with `init add NAME ... hp N`",))
    if v.state == "dead":
        return Said(v, ("is dead already",))
    after, past = take_damage(v, amount)
    if v.hp == 0 and v.state in ("dying", "stable"):
        if v.max_hp is not None and amount >= v.max_hp:
            return Said(replace(after, state="dead"), ("dead: the damage is at least its max HP",))
        fails = v.saves[1] + (2 if critical else 1)
        if fails >= DEATH_SAVES:
            return Said(replace(after, state="dead", saves=(v.saves[0], fails)), ("dead",))
        dying = replace(after, state="dying", saves=(v.saves[0], fails))
        return Said(dying, (f"dying: damage at 0 HP is a failed death save ({fails} of 3)",))
    if after.hp is None or after.hp > 0:
        return Said(after, (hp_text(after),))
    if v.max_hp is not None and past >= v.max_hp:
        return Said(
            replace(after, state="dead"), ("dead: the damage past 0 HP is at least its max HP",)
        )
    if kind == "monster":
        return Said(replace(after, state="dead"), ("0 HP: dead",))
    down = replace(after, state="dying", saves=(0, 0))
    return Said(down, ("0 HP: dying (unconscious): a death save at the start of each turn",))


def harm_turn_start(v: Vitals, kind: str, roller: Roller | None) -> Said:
    """A dying character's death save (the rule above)."""
    if v.state != "dying":
        return Said(v)
    if roller is None:
        return Said(v, ("dying: roll a death save (a d20: 10 or higher succeeds)",))
    face = roller.roll(1, 20)
    good, bad = v.saves
    if face == 20:
        up = replace(v, hp=1, state="", saves=(0, 0))
        return Said(up, ("death save: 20: back up with 1 HP",))
    if face == 1:
        bad += 2
    elif face >= 10:
        good += 1
    else:
        bad += 1
    said = f"death save: {face}: {good} of 3 successes, {bad} of 3 failures"
    if bad >= DEATH_SAVES:
        return Said(replace(v, state="dead", saves=(good, bad)), (said, "dead"))
    if good >= DEATH_SAVES:
        return Said(replace(v, state="stable", saves=(good, bad)), (said, "stable (unconscious)"))
    return Said(replace(v, saves=(good, bad)), (said,))


#: The conditions of Level Up (5e's, and its own), for completion.
CONDITIONS = (
    "blinded",
    "bloodied",
    "charmed",
    "confused",
    "deafened",
    "doomed",
    "fatigued",
    "frightened",
    "grappled",
    "incapacitated",
    "invisible",
    "paralyzed",
    "petrified",
    "poisoned",
    "prone",
    "rattled",
    "restrained",
    "slowed",
    "stunned",
    "unconscious",
)

#: What a target's condition adds to an attack against it (the rule text of each
#: condition: attack rolls against a blinded, paralyzed, petrified, restrained, stunned or
#: unconscious creature have advantage; against an invisible one, disadvantage).
AGAINST = {
    "blinded": "adv",
    "paralyzed": "adv",
    "petrified": "adv",
    "restrained": "adv",
    "stunned": "adv",
    "unconscious": "adv",
    "invisible": "dis",
}

#: The label words of a save of each ability a condition names (`save dex vs 15`, or a
#: character's `dex` entry in her `saves`).
STRENGTH = ("str", "strength")
DEXTERITY = ("dex", "dexterity")
_CHECKS = CheckRule(("check",), (), "dis", "ability checks")
_ATTACKS = CheckRule(("attack",), (), "dis", "attack rolls")
_STR_DEX_FAIL = CheckRule(
    ("save",), STRENGTH + DEXTERITY, FAILS, "a Strength or Dexterity save fails automatically"
)

#: What a condition does to a roll its holder makes (the rule text of each condition,
#: where the seed is silent: docs/systems/levelup.md): a poisoned or frightened creature
#: has disadvantage on ability checks; a blinded, poisoned, prone or restrained one on
#: attack rolls; a restrained one on Dexterity saves; a paralyzed, petrified, stunned or
#: unconscious one fails Strength and Dexterity saves automatically. A save is of an
#: ability by its label (`save dex vs 15`); one with no label is of none of them.
CHECKING = {
    "blinded": (_ATTACKS,),
    "poisoned": (_CHECKS, _ATTACKS),
    "frightened": (_CHECKS,),
    "prone": (_ATTACKS,),
    "restrained": (CheckRule(("save",), DEXTERITY, "dis", "Dexterity saves"), _ATTACKS),
    "paralyzed": (_STR_DEX_FAIL,),
    "petrified": (_STR_DEX_FAIL,),
    "stunned": (_STR_DEX_FAIL,),
    "unconscious": (_STR_DEX_FAIL,),
}

HARM = Harm(
    True,
    harm_hurt,
    plain_heal,
    harm_turn_start,
    CONDITIONS,
    AGAINST,
    "0 HP: a monster is dead, a character dying (death saves at the start of its turn)",
    CHECKING,
    # the dead take no turns; a dying character's turn is her death save, and a stable
    # one keeps her place (damage makes her dying again)
    frozenset({"dead"}),
)

INITIATIVE = InitiativeRule(
    ("dex", "dexterity"),
    from_check(resolve),
    "a Dexterity check: d20 + the init entry, else the dex entry (expertise, adv, dis)",
)
