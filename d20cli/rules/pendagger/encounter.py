"""Pen & Dagger's encounter rules: damage, healing and 0 HP (`HARM`, d20cli.rules.pendagger.harm)
and how a combatant rolls initiative (`INITIATIVE`, d20cli.rules.pendagger.initiative). Only
the encounter commands read them (`System.harm`, `System.initiative`), so a plain roll,
attempt or odds never imports this module, nor d20cli.rules.encounter and
d20cli.rules.initiative (docs/performance.md, "Start-up")."""

from __future__ import annotations

from d20cli.rules.initiative import InitiativeRule
from d20cli.rules.pendagger.harm import HARM
from d20cli.rules.pendagger.initiative import roll_initiative

INITIATIVE = InitiativeRule(
    ("dex", "dexterity"),
    roll_initiative,
    "d20 + the init entry, else the Dexterity modifier: floor((dex score - 10) / 2)",
)

__all__ = ["HARM", "INITIATIVE"]
