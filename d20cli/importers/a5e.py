"""A Foundry VTT actor of the official Level Up A5E system (`Pjb518/FoundryVTT-Level-Up-Official`,
system id `a5e`), as Foundry's "Export Data" writes it, read as a `levelup` character.

The sheet's numbers, as its data models and actor code compute them:

- an ability's modifier is floor((value - 10) / 2); its check adds `check.bonus` and its
  `check.expertiseDice`; its save adds the proficiency bonus when `save.proficient`,
  `save.bonus` and `save.expertiseDice`;
- a skill adds to its ability's modifier the proficiency bonus times `proficient` (0, 1,
  or 2), or half of it (rounded down) with Jack of All Trades (`flags.a5e.jackOfAllTrades`)
  when not proficient, its `bonuses.check`, its ability's `check.bonus`, its
  `expertiseDice` and its `minRoll` (a d20 below it counts as it);
- initiative is its ability's (`attributes.initiative.ability`, dex) modifier, the
  ability's `check.bonus`, `initiative.bonus` and `initiative.expertiseDice`;
- the proficiency bonus is max(2, floor((level + 7) / 4)), the level the sum of the class
  items' `classLevels` (else `details.level`);
- a weapon (an `object` item of `objectType` weapon) attacks with each of its actions'
  attack rolls: the ability (`default`: str for melee, dex for ranged, the better of the
  two for finesse or thrown) modifier, the proficiency bonus when the roll is
  `proficient`, the roll's `bonus`, `crit N` for a `critThreshold` under 20; its damage
  the action's damage rolls, `@mod` (and `@str.mod`, `@prof`, ...) put in.

Expertise dice are a count: 1 is d4, 2 d6, 3 d8, 4 d10, 5 d12. Known schema versions
(`system.migrationData.version`, once `system.schemaVersion.version`): 0.014 to 0.022.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from d20cli.errors import ParseError
from d20cli.importers.sheet import (
    Entry,
    Fields,
    NotMapped,
    Sheet,
    bonus_terms,
    check_words,
    label_key,
    prof_by_level,
)

ABILITIES = ("str", "dex", "con", "int", "wis", "cha")
#: The system's skill keys -> the entry names (its English names).
SKILLS = {
    "acr": "acrobatics",
    "ani": "animal-handling",
    "arc": "arcana",
    "ath": "athletics",
    "cul": "culture",
    "dec": "deception",
    "eng": "engineering",
    "his": "history",
    "ins": "insight",
    "itm": "intimidation",
    "inv": "investigation",
    "med": "medicine",
    "nat": "nature",
    "prc": "perception",
    "prf": "performance",
    "per": "persuasion",
    "rel": "religion",
    "sci": "science",
    "slt": "sleight-of-hand",
    "ste": "stealth",
    "sur": "survival",
}
#: The schema versions (migrations) this reader knows: the oldest and the newest.
OLDEST, NEWEST = 0.014, 0.022
KNOWN = f"{OLDEST:.3f} to {NEWEST:.3f}"
WHAT = "a Foundry VTT Level Up A5E actor"
_F = Fields(WHAT)


def looks_like(data: Mapping[str, Any]) -> bool:
    """An A5E actor: Foundry's `_stats.systemId` says a5e, or the system data has A5E's
    abilities (`check.expertiseDice`)."""
    stats = data.get("_stats")
    if isinstance(stats, Mapping) and stats.get("systemId") == "a5e":
        return True
    system = data.get("system")
    if not isinstance(system, Mapping):
        return False
    abilities = system.get("abilities")
    strength = abilities.get("str") if isinstance(abilities, Mapping) else None
    check = strength.get("check") if isinstance(strength, Mapping) else None
    return isinstance(check, Mapping) and "expertiseDice" in check


def version(data: Mapping[str, Any]) -> str:
    """The actor's schema version, checked: a newer one than NEWEST is an error."""
    found = _F.get(data, "system.migrationData.version", (int, float), None)
    if found is None:
        found = _F.get(data, "system.schemaVersion.version", (int, float), None)
    if found is None:
        return "unknown"
    if found > NEWEST + 1e-9 or found < OLDEST - 1e-9:
        which = "newer" if found > NEWEST else "older"
        raise ParseError(
            f"{WHAT} of schema version {found:.3f}, {which} than the versions d20 knows "
            f"({KNOWN}); export it again from Foundry"
            + (" after updating d20" if which == "newer" else " with the system up to date")
        )
    return f"{found:.3f}"


def read(data: Mapping[str, Any]) -> Sheet:
    kind = _F.get(data, "type", str)
    if kind != "character":
        raise ParseError(f"{WHAT} of type {kind[:20]!r}: d20 imports characters (type character)")
    schema = version(data)
    name = _F.get(data, "name", str)
    system = _F.get(data, "system", Mapping)
    items = _F.get(data, "items", list, [])
    flags = _F.get(data, "flags.a5e", Mapping, {})
    entries: list[Entry] = []
    skipped: list[NotMapped] = []

    levels = [
        _F.number(item, "system.classLevels", 0, 0, 20)
        for i, item in enumerate(items)
        if isinstance(item, Mapping) and item.get("type") == "class"
    ]
    level = sum(levels) if levels else _F.number(data, "system.details.level", 1, 0, 30)
    prof = prof_by_level(level)
    scores = {a: _F.number(system, f"abilities.{a}.value", low=0, high=99) for a in ABILITIES}
    mods = {a: (v - 10) // 2 for a, v in scores.items()}
    values = {"prof": prof, "level": level, **{f"{a}.mod": m for a, m in mods.items()}}
    where = "system."

    def bonus(path: str, field: str) -> tuple[int, tuple[str, ...]]:
        text = _F.get(system, path, str, "")
        read_as = bonus_terms(text, values)
        if read_as is None:
            skipped.append(
                NotMapped(where + path, f"the bonus {text[:40]!r} is a formula d20 does not read")
            )
            return 0, ()
        return read_as

    check_bonus: dict[str, tuple[int, tuple[str, ...]]] = {}
    for a in ABILITIES:
        number, dice = check_bonus[a] = bonus(f"abilities.{a}.check.bonus", "check")
        count = _F.number(system, f"abilities.{a}.check.expertiseDice", 0, 0, 20)
        total = mods[a] + number
        entries.append(
            Entry(
                f"checks.{a}",
                check_words(total, dice, count),
                f"abilities.{a}: value {scores[a]}, check bonus, expertise dice {count}",
                total,
            )
        )
    for a in ABILITIES:
        proficient = _F.get(system, f"abilities.{a}.save.proficient", bool, False)
        number, dice = bonus(f"abilities.{a}.save.bonus", "save")
        count = _F.number(system, f"abilities.{a}.save.expertiseDice", 0, 0, 20)
        total = mods[a] + (prof if proficient else 0) + number
        said = "proficient" if proficient else "not proficient"
        entries.append(
            Entry(
                f"saves.{a}",
                check_words(total, dice, count),
                f"abilities.{a}.save: {said}, bonus, expertise dice {count}",
                total,
            )
        )
    jack = flags.get("jackOfAllTrades") is True
    skills = _F.get(system, "skills", Mapping, {})
    for key, skill in skills.items():
        if key not in SKILLS:
            skipped.append(
                NotMapped(f"system.skills.{key}", "a skill Level Up does not have (homebrew)")
            )
            continue
        ability = _F.get(skill, "ability", str, "int")
        if ability.startswith("@attributes.spellcasting"):
            ability = _F.get(system, "attributes.spellcasting", str, "int")
        if ability not in ABILITIES:
            skipped.append(
                NotMapped(f"system.skills.{key}.ability", f"{ability[:20]!r} is no ability")
            )
            continue
        level_of = _F.get(skill, "proficient", (int, bool), 0)
        level_of = int(level_of)
        if not 0 <= level_of <= 2:
            raise ParseError(f"{WHAT}: system.skills.{key}.proficient is {level_of}, not 0, 1 or 2")
        part = prof * level_of if level_of else (prof // 2 if jack else 0)
        number, dice = bonus(f"skills.{key}.bonuses.check", "skill")
        a_number, a_dice = check_bonus[ability]
        count = _F.number(skill, "expertiseDice", 0, 0, 20)
        minimum = _F.number(skill, "minRoll", 1, 1, 20)
        total = mods[ability] + part + number + a_number
        said = ("not proficient", "proficient", "double proficiency")[level_of]
        if jack and not level_of:
            said = "Jack of All Trades"
        entries.append(
            Entry(
                f"checks.{SKILLS[key]}",
                check_words(total, (*dice, *a_dice), count, minimum),
                f"skills.{key}: {ability}, {said}, bonus, expertise dice {count}, "
                f"min roll {minimum}",
                total,
            )
        )
        if _F.get(skill, "specialties", list, []):
            skipped.append(
                NotMapped(
                    f"system.skills.{key}.specialties",
                    "specialties: an expertise die only in that specialty",
                )
            )
    init_ability = _F.get(system, "attributes.initiative.ability", str, "dex")
    if init_ability not in ABILITIES:
        raise ParseError(
            f"{WHAT}: system.attributes.initiative.ability is {init_ability[:20]!r}, not an ability"
        )
    number, dice = bonus("attributes.initiative.bonus", "initiative")
    a_number, a_dice = check_bonus[init_ability]
    count = _F.number(system, "attributes.initiative.expertiseDice", 0, 0, 20)
    total = mods[init_ability] + a_number + number
    entries.append(
        Entry(
            "init",
            check_words(total, (*a_dice, *dice), count),
            f"attributes.initiative: {init_ability}, bonus, expertise dice {count}",
            total,
        )
    )
    taken: set[str] = set()
    counts: dict[str, int] = {}
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ParseError(f"{WHAT}: items.{i} is not an object")
        kind = _F.get(item, "type", str)
        if kind == "object" and _F.get(item, "system.objectType", str, "") == "weapon":
            entries += _weapon(item, i, mods, values, prof, taken, skipped)
        elif kind != "class":
            counts[kind] = counts.get(kind, 0) + 1
    for kind, n in counts.items():
        skipped.append(
            NotMapped(
                f"items ({kind})",
                f"{n} {kind} item{'s' if n != 1 else ''}: no roll of d20's stands for them",
            )
        )
    for group in ("abilities", "skills", "attacks", "damage", "initiative"):
        found = _F.get(system, f"bonuses.{group}", Mapping, {})
        for key in found:
            skipped.append(
                NotMapped(
                    f"system.bonuses.{group}.{key}",
                    "a bonus with conditions of its own (add it as a word when it applies)",
                )
            )
    ac = _F.number(system, "attributes.ac.value", 0, 0, 99)
    hp = _F.number(system, "attributes.hp.baseMax", 0, 0, 9999)
    skipped.append(
        NotMapped(
            "system.attributes.ac, system.attributes.hp", "no roll: kept in the import's record"
        )
    )
    facts = {"level": level, "prof": prof, "ac": ac, "hp": hp}
    return Sheet("a5e", schema, name, "levelup", tuple(entries), tuple(skipped), facts)


def _weapon(
    item: Mapping[str, Any],
    index: int,
    mods: dict[str, int],
    values: dict[str, int],
    prof: int,
    taken: set[str],
    skipped: list[NotMapped],
) -> list[Entry]:
    """A weapon's attack entries: one per action with an attack roll."""
    here = f"items.{index}"
    name = _F.get(item, "name", str)
    properties = _F.get(item, "system.weaponProperties", list, [])
    actions = _F.get(item, "system.actions", Mapping, {})
    found: list[Entry] = []
    for action_id, action in actions.items():
        at = f"{here}.system.actions.{action_id}"
        if not isinstance(action, Mapping):
            raise ParseError(f"{WHAT}: {at} is not an object")
        rolls = [r for r in _F.get(action, "rolls", Mapping, {}).values() if isinstance(r, Mapping)]
        attacks = [r for r in rolls if r.get("type") == "attack"]
        damage = [r for r in rolls if r.get("type") == "damage"]
        if not attacks:
            continue
        roll = attacks[0]
        kind = _F.get(roll, "attackType", str, "meleeWeaponAttack")
        ability = _F.get(roll, "ability", str, "default")
        if ability == "default":
            ability = "dex" if kind.startswith("ranged") else "str"
            if ("finesse" in properties and kind.startswith("melee")) or (
                "thrown" in properties and kind.startswith("ranged")
            ):
                ability = "dex" if mods["dex"] > mods["str"] else "str"
        if ability not in ABILITIES:
            skipped.append(
                NotMapped(
                    f"{at}: {name[:40]}", f"attacks with {ability[:20]!r}, no ability d20 knows"
                )
            )
            continue
        own = bonus_terms(_F.get(roll, "bonus", str, ""), values)
        if own is None:
            skipped.append(
                NotMapped(f"{at}: {name[:40]}", "its attack bonus is a formula d20 does not read")
            )
            continue
        proficient = _F.get(roll, "proficient", bool, True)
        total = mods[ability] + (prof if proficient else 0) + own[0]
        action_name = _F.get(action, "name", str, "")
        label = name if len(found) == 0 else f"{name} {action_name}"
        key = label_key(label, taken, "weapon")
        if key is None:
            skipped.append(NotMapped(f"{here}.name", "its name makes no word a request can name"))
            continue
        words = check_words(total, own[1])
        crit = _F.number(roll, "critThreshold", 20, 1, 20)
        if crit < 20:
            words += f" crit {crit}"
        parts = []
        for r in damage:
            formula = _F.get(r, "formula", str, "")
            read_as = _damage(formula, {**values, "mod": mods[ability]})
            if read_as is None:
                skipped.append(
                    NotMapped(
                        f"{at}: {name[:40]} damage",
                        f"the formula {formula[:40]!r} is one d20 does not read",
                    )
                )
            elif read_as:
                parts.append(read_as)
        if parts:
            words += " dmg " + "+".join(parts).replace("+-", "-")
        said = "proficient" if proficient else "not proficient"
        found.append(
            Entry(f"attacks.{key}", words, f"{here}: {name[:40]}, {ability}, {said}", total)
        )
    return found


def _damage(formula: str, values: dict[str, int]) -> str | None:
    """A damage formula as a dice expression (`1d8 + @mod` -> `1d8+3`); None when it is not
    one d20 reads, empty for an empty formula."""
    read_as = bonus_terms(formula, values)
    if read_as is None:
        return None
    number, dice = read_as
    text = "".join(dice).lstrip("+")
    if number:
        text += f"{number:+d}"
    return text.lstrip("+")
