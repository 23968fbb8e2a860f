"""A Foundry VTT actor of Mutants & Masterminds 3e (`Zakarik/foundry-mm3`, actor type
`personnage`), as Foundry's "Export Data" writes it, read as an `mm` character.

The sheet stores its totals, so each is an entry as it stands:

- `system.caracteristique.<ability>.total`: the ability checks (strength, agility,
  fighting, awareness, stamina, dexterity, intellect, presence);
- `system.competence.<skill>.total`, and for the skills with a list (close combat, ranged
  combat, expertise, and skills of the player's own) each `list.<id>.total`: the skill
  checks (`close-combat-unarmed`, `expertise-science`, ...);
- `system.defense.<esquive|parade|vigueur|robustesse|volonte>.total`: the defenses, as
  entries of resistance checks (`resists.dodge`, ... `resists.will`: `resist toughness vs
  rank 8`); a dodge or parry of N is also the DC 10+N of attacks against the character
  (`vs dodge N`);
- `system.initiative.total`: `init`;
- `system.attaque.<id>`: an attack's bonus (`attaque`) is `attacks.<name> = +N` (with
  `crit N` for a `critique` under 20; none for an attack that makes no attack roll,
  `settings.noatk`), and its effect rank (`effet`) a macro `<name>-effect` = `resist vs
  rank N`, the target's resistance check (`d20 blast-effect +9 --as hero`).

Known schema version (`system.version`): 2 (an actor of version 1 is migrated when the
system opens it: open it once in Foundry and export it again).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from d20cli.errors import ParseError
from d20cli.importers.sheet import Entry, Fields, NotMapped, Sheet, label_key, signed

ABILITIES = {
    "force": "strength",
    "agilite": "agility",
    "combativite": "fighting",
    "sensibilite": "awareness",
    "endurance": "stamina",
    "dexterite": "dexterity",
    "intelligence": "intellect",
    "presence": "presence",
}
SKILLS = {
    "acrobaties": "acrobatics",
    "athletisme": "athletics",
    "duperie": "deception",
    "perspicacite": "insight",
    "intimidation": "intimidation",
    "investigation": "investigation",
    "perception": "perception",
    "persuasion": "persuasion",
    "habilete": "sleight-of-hand",
    "discretion": "stealth",
    "technologie": "technology",
    "soins": "treatment",
    "vehicules": "vehicles",
}
#: The skills that are lists of specialities: the key -> the entry names' start.
LISTS = {
    "combatcontact": "close-combat",
    "combatdistance": "ranged-combat",
    "expertise": "expertise",
    "new": "",
}
DEFENSES = {
    "esquive": "dodge",
    "parade": "parry",
    "vigueur": "fortitude",
    "robustesse": "toughness",
    "volonte": "will",
}
KNOWN_VERSIONS = (2,)
WHAT = "a Foundry VTT Mutants & Masterminds 3e actor"
_F = Fields(WHAT)
_RANK = 60  # a rank or bonus beyond this is not a sheet's


def looks_like(data: Mapping[str, Any]) -> bool:
    """An M&M 3e actor: Foundry's `_stats.systemId`, the actor types of the system, or its
    data's `caracteristique` and `defense`."""
    stats = data.get("_stats")
    if isinstance(stats, Mapping) and stats.get("systemId") == "mutants-and-masterminds-3e":
        return True
    system = data.get("system")
    return isinstance(system, Mapping) and "caracteristique" in system and "defense" in system


def read(data: Mapping[str, Any]) -> Sheet:
    kind = _F.get(data, "type", str)
    if kind != "personnage":
        raise ParseError(f"{WHAT} of type {kind[:20]!r}: d20 imports characters (type personnage)")
    found = _F.number(data, "system.version", None, 0, 999)
    if found is None or found not in KNOWN_VERSIONS:
        known = ", ".join(str(v) for v in KNOWN_VERSIONS)
        said = "no schema version" if found is None else f"schema version {found}"
        hint = (
            "open it once in Foundry (which migrates it) and export it again"
            if found is None or found < min(KNOWN_VERSIONS)
            else "update d20 to read it"
        )
        raise ParseError(f"{WHAT} with {said}; d20 knows version {known}: {hint}")
    name = _F.get(data, "name", str)
    system = _F.get(data, "system", Mapping)
    entries: list[Entry] = []
    skipped: list[NotMapped] = []
    taken: set[str] = set()

    def total(path: str) -> int:
        return int(_F.number(system, path, low=-_RANK, high=_RANK))

    for key, word in ABILITIES.items():
        value = total(f"caracteristique.{key}.total")
        taken.add(word)
        entries.append(
            Entry(f"checks.{word}", signed(value), f"caracteristique.{key}.total", value)
        )
    for key, word in SKILLS.items():
        if _F.get(system, f"competence.{key}", Mapping, None) is None:
            continue
        value = total(f"competence.{key}.total")
        taken.add(word)
        entries.append(Entry(f"checks.{word}", signed(value), f"competence.{key}.total", value))
    for key, start in LISTS.items():
        listed = _F.get(system, f"competence.{key}.list", Mapping, {})
        for item_id, item in listed.items():
            at = f"competence.{key}.list.{item_id}"
            label = _F.get(item, "label", str, "")
            listed_key = label_key(f"{start} {label}" if start else label, taken, "skill")
            if listed_key is None:
                skipped.append(
                    NotMapped(f"system.{at}.label", "its name makes no word a request can name")
                )
                continue
            value = total(f"{at}.total")
            entries.append(
                Entry(f"checks.{listed_key}", signed(value), f"{at}.total ({label[:40]})", value)
            )
    for key, word in DEFENSES.items():
        value = total(f"defense.{key}.total")
        said = f"defense.{key}.total"
        if word in ("dodge", "parry"):
            said += f"; attacks against it: vs {word} {value}"
        entries.append(Entry(f"resists.{word}", signed(value), said, value))
    value = total("initiative.total")
    entries.append(Entry("init", signed(value), "initiative.total", value))
    attacks = _F.get(system, "attaque", Mapping, {})
    for attack_id, attack in attacks.items():
        at = f"attaque.{attack_id}"
        if not isinstance(attack, Mapping):
            raise ParseError(f"{WHAT}: system.{at} is not an object")
        label = _F.get(attack, "label", str, "")
        attack_key = label_key(label, taken, "attack")
        if attack_key is None:
            skipped.append(
                NotMapped(f"system.{at}.label", "its name makes no word a request can name")
            )
            continue
        no_roll = _F.get(attack, "settings.noatk", bool, False)
        bonus = _F.number(attack, "attaque", 0, -_RANK, _RANK)
        crit = _F.number(attack, "critique", 20, 1, 20)
        rank = _F.number(attack, "effet", 0, -_RANK, _RANK)
        resist = _defense_name(_F.get(attack, "save.dmg.type", str, "robustesse"))
        if no_roll:
            skipped.append(
                NotMapped(
                    f"system.{at}.attaque ({label[:40]})",
                    "an attack with no attack roll (area, perception)",
                )
            )
        else:
            words = signed(bonus) + (f" crit {crit}" if crit < 20 else "")
            entries.append(
                Entry(f"attacks.{attack_key}", words, f"{at}.attaque ({label[:40]})", bonus)
            )
        entries.append(
            Entry(
                f"macros.{attack_key}-effect",
                f"resist vs rank {rank}",
                f"{at}.effet ({label[:40]}): the target resists with {resist}",
                rank,
            )
        )
    for group, why in (
        ("pwr", "powers: their effects are in the attacks that use them"),
        ("complications", "complications: no roll"),
    ):
        if _F.get(system, group, Mapping, {}):
            skipped.append(NotMapped(f"system.{group}", why))
    items = _F.get(data, "items", list, [])
    counts: dict[str, int] = {}
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ParseError(f"{WHAT}: items.{i} is not an object")
        kind = _F.get(item, "type", str)
        counts[kind] = counts.get(kind, 0) + 1
    for kind, n in counts.items():
        skipped.append(
            NotMapped(
                f"items ({kind})",
                f"{n} {kind} item{'s' if n != 1 else ''}: their ranks are in the totals",
            )
        )
    skipped.append(
        NotMapped("system.strategie", "attack strategies (power attack, ...): add them as words")
    )
    facts = {"power_level": _F.number(system, "puissance", 0, 0, 99)}
    return Sheet("mm3", str(found), name, "mm", tuple(entries), tuple(skipped), facts)


def _defense_name(key: str) -> str:
    return DEFENSES.get(key, key[:20])
