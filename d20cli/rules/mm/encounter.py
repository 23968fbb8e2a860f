"""Mutants & Masterminds' encounter rules: damage (`HARM`, the damage track of
d20cli.rules.mm.harm) and how a combatant rolls initiative (`INITIATIVE`: an initiative
check). Only the encounter commands read them (`System.harm`, `System.initiative`), so a
plain roll, check or odds never imports this module, nor d20cli.rules.encounter and
d20cli.rules.initiative (docs/performance.md, "Start-up")."""

from __future__ import annotations

from d20cli.rules.initiative import InitiativeRule, from_check
from d20cli.rules.mm import resolve
from d20cli.rules.mm.harm import HARM

INITIATIVE = InitiativeRule(
    ("agility", "agl"),
    from_check(resolve),
    "an initiative check: d20 + the init entry, else the agility rank (circumstances)",
)

__all__ = ["HARM", "INITIATIVE"]
