"""A D&D Beyond character, as its character service gives it (`{"success": true, "data":
{...}}`, or the character object alone), read as a `levelup` character (Level Up is
5e-compatible). Only a file the user saved is read: d20 never fetches a character.

The sheet's numbers are derived, as D&D Beyond derives them (and Avrae and Beyond20 read
them):

- an ability score is its `stats` value, plus `bonusStats`, plus the `bonus` modifiers of
  subtype `<ability>-score`, at least any `set` modifier of that subtype; an
  `overrideStats` value replaces it all; its modifier is floor((score - 10) / 2);
- the proficiency bonus is max(2, floor((level + 7) / 4)), the level the sum of the
  classes' levels;
- a skill or save adds the proficiency bonus times its proficiency (`proficiency` 1,
  `expertise` 2, `half-proficiency` a half, rounded down; `ability-checks` and
  `saving-throws` apply to every skill and save), and the `bonus` modifiers of its subtype
  (a modifier's `statId` gives that ability's modifier instead of its value); a skill's
  `characterValues` override it (type 23), add to it (24, 25) or set its proficiency (26);
- initiative is the Dexterity modifier, the `initiative` bonuses, half the proficiency
  bonus with Jack of All Trades (`half-proficiency` on ability checks), and `adv` with an
  unconditional advantage on initiative;
- an equipped weapon attacks with Strength (melee), Dexterity (ranged), or the better of
  the two (finesse), the proficiency bonus when the character is proficient with it
  (`simple-weapons`, `martial-weapons` or the weapon's own type) and its magic bonus; its
  damage is its dice, the same modifier and the magic bonus (a versatile weapon also has a
  two-handed entry).

Modifiers of items count only for an item that is equipped (and attuned, when it must
be). A bonus with a `restriction` (only when ...) is not mapped; nor are spells, class
actions, custom actions and feats without a number. Known: the character service's v5
JSON (it carries no schema version of its own).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from d20cli.errors import ParseError
from d20cli.importers.sheet import (
    Entry,
    Fields,
    NotMapped,
    Sheet,
    check_words,
    label_key,
    prof_by_level,
)

ABILITIES = ("str", "dex", "con", "int", "wis", "cha")
NAMES = ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma")
#: The skills: D&D Beyond's subtype -> (its ability, the `characterValues` id of its
#: house rules).
SKILLS = {
    "acrobatics": ("dex", 3),
    "animal-handling": ("wis", 11),
    "arcana": ("int", 6),
    "athletics": ("str", 2),
    "deception": ("cha", 16),
    "history": ("int", 7),
    "insight": ("wis", 12),
    "intimidation": ("cha", 17),
    "investigation": ("int", 8),
    "medicine": ("wis", 13),
    "nature": ("int", 9),
    "perception": ("wis", 14),
    "performance": ("cha", 18),
    "persuasion": ("cha", 19),
    "religion": ("int", 10),
    "sleight-of-hand": ("dex", 4),
    "stealth": ("dex", 5),
    "survival": ("wis", 15),
}
KNOWN = "the character service's v5 JSON"
WHAT = "a D&D Beyond character"
_F = Fields(WHAT)
_DICE = re.compile(r"[0-9]{1,2}(d[0-9]{1,3})?")
_RESTRICTED = ("bonus", "proficiency", "expertise", "advantage", "disadvantage")
_SOURCES = ("race", "class", "background", "item", "feat", "condition")


def _character(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    inner = data.get("data")
    found = inner if isinstance(inner, Mapping) else data
    return found if "stats" in found and "classes" in found else None


def looks_like(data: Mapping[str, Any]) -> bool:
    """The character service's JSON: a character with `stats` and `classes`, alone or as
    the `data` of the service's answer."""
    return _character(data) is not None


def read(data: Mapping[str, Any]) -> Sheet:
    if isinstance(data.get("data"), Mapping) and data.get("success") is False:
        raise ParseError(f"{WHAT}: the saved answer says the service failed (success false)")
    character = _character(data)
    if character is None:  # (detect sent it here: say what is missing)
        _F.get(data, "stats", list)
        raise ParseError(f"{WHAT}: classes is missing")
    where = "data." if character is not data else ""
    f = Fields(WHAT + (" (in data)" if where else ""))
    name = f.get(character, "name", str)
    skipped: list[NotMapped] = []
    classes = f.get(character, "classes", list)
    level = sum(f.number(c, "level", low=0, high=20) for c in classes)
    if not classes:
        raise ParseError(f"{WHAT}: classes is empty (a character has a class)")
    prof = prof_by_level(level)
    modifiers = _modifiers(character, f, skipped)

    def of(kind: str, subtype: str) -> list[Mapping[str, Any]]:
        return [m for m in modifiers if m["type"] == kind and m["subType"] == subtype]

    scores = {}
    for i, a in enumerate(ABILITIES):
        base = _stat(character, f, "stats", i)
        bonus = _stat(character, f, "bonusStats", i) or 0
        override = _stat(character, f, "overrideStats", i)
        score = (
            (base or 0) + bonus + sum(_value(m, {}, f) for m in of("bonus", f"{NAMES[i]}-score"))
        )
        for m in of("set", f"{NAMES[i]}-score"):
            score = max(score, _value(m, {}, f))
        scores[a] = override if override else score
    mods = {a: (s - 10) // 2 for a, s in scores.items()}

    def bonuses(subtype: str) -> int:
        return sum(_value(m, mods, f) for m in of("bonus", subtype))

    def proficiency(subtype: str) -> float:
        level_of = 0.0
        if of("half-proficiency", subtype):
            level_of = 0.5
        if of("proficiency", subtype):
            level_of = 1.0
        if of("expertise", subtype):
            level_of = 2.0
        return level_of

    entries: list[Entry] = []
    jack = proficiency("ability-checks")
    for i, a in enumerate(ABILITIES):
        total = (
            mods[a]
            + int(prof * jack)
            + bonuses("ability-checks")
            + bonuses(f"{NAMES[i]}-ability-checks")
        )
        entries.append(
            Entry(f"checks.{a}", check_words(total), f"stats {a}: score {scores[a]}", total)
        )
    for i, a in enumerate(ABILITIES):
        subtype = f"{NAMES[i]}-saving-throws"
        level_of = max(proficiency(subtype), proficiency("saving-throws"))
        total = mods[a] + int(prof * level_of) + bonuses(subtype) + bonuses("saving-throws")
        said = {0: "not proficient", 0.5: "half proficiency", 1: "proficient", 2: "expertise"}[
            level_of
        ]
        entries.append(Entry(f"saves.{a}", check_words(total), f"{subtype}: {said}", total))
    overrides = _skill_values(character, f, skipped)
    for skill, (a, value_id) in SKILLS.items():
        level_of = max(proficiency(skill), jack)
        bonus = bonuses(skill) + bonuses("ability-checks")
        said = {0: "not proficient", 0.5: "half proficiency", 1: "proficient", 2: "expertise"}[
            level_of
        ]
        own = overrides.get(value_id, {})
        if 26 in own:
            level_of = {0: 0.0, 1: 0.5, 2: 0.5, 3: 1.0, 4: 2.0}.get(own[26], level_of)
            said = f"proficiency set to {own[26]} (characterValues)"
        part = int(prof * level_of) if own.get(26) != 2 else -(-prof // 2)
        total = mods[a] + part + bonus + own.get(24, 0) + own.get(25, 0)
        if 23 in own:
            total, said = own[23], "overridden (characterValues)"
        entries.append(Entry(f"checks.{skill}", check_words(total), f"{skill}: {a}, {said}", total))
    total = mods["dex"] + int(prof * jack) + bonuses("initiative")
    adv = any(not m.get("restriction") for m in of("advantage", "initiative"))
    entries.append(
        Entry("init", check_words(total, extra="adv" if adv else ""), "initiative: dex", total)
    )
    entries += _weapons(character, f, mods, prof, modifiers, skipped)
    for group in ("actions", "spells"):
        found = f.get(character, group, Mapping, {})
        n = sum(len(v) for v in found.values() if isinstance(v, list))
        if n:
            skipped.append(
                NotMapped(f"{where}{group}", f"{n} {group}: no roll of d20's stands for them")
            )
    for group in ("customActions", "classSpells", "feats"):
        n = len(f.get(character, group, list, []))
        if n:
            skipped.append(NotMapped(f"{where}{group}", f"{n} of them: not mapped"))
    hp = f.number(character, "overrideHitPoints", None, 0, 9999) or (
        f.number(character, "baseHitPoints", 0, 0, 9999) + mods["con"] * level
    )
    skipped.append(
        NotMapped(f"{where}baseHitPoints, armor", "no roll: hit points kept in the import's record")
    )
    facts = {"level": level, "prof": prof, "hp": hp}
    return Sheet("beyond", "v5", name, "levelup", tuple(entries), tuple(skipped), facts)


def _stat(character: Mapping[str, Any], f: Fields, group: str, index: int) -> int | None:
    """The value of ability `index` (id index + 1) in `stats`, `bonusStats` or
    `overrideStats` (None: not set)."""
    rows = f.get(character, group, list, [] if group != "stats" else ...)
    for i, row in enumerate(rows):
        if f.get(row, "id", int) == index + 1:
            low = 1 if group == "stats" else -30
            value: int | None = f.number(
                character, f"{group}.{i}.value", None, low if group != "overrideStats" else 1, 30
            )
            return value
    if group == "stats":
        raise ParseError(f"{WHAT}: stats has no ability {index + 1} ({NAMES[index]})")
    return None


def _value(modifier: Mapping[str, Any], mods: Mapping[str, int], f: Fields) -> int:
    stat = modifier.get("statId")
    if isinstance(stat, int) and 1 <= stat <= 6 and mods:
        return mods[ABILITIES[stat - 1]]
    value = modifier.get("value")
    return (
        int(value)
        if isinstance(value, int) and not isinstance(value, bool) and -99 <= value <= 99
        else 0
    )


def _modifiers(
    character: Mapping[str, Any], f: Fields, skipped: list[NotMapped]
) -> list[Mapping[str, Any]]:
    """The modifiers that apply: every source's, an item's only when it is equipped (and
    attuned when it must be). A bonus with a restriction is not mapped (and left out)."""
    groups = f.get(character, "modifiers", Mapping)
    worn = set()
    for item in f.get(character, "inventory", list, []):
        if f.get(item, "equipped", bool, False):
            attuned = f.get(item, "isAttuned", bool, False)
            needs = f.get(item, "definition.canAttune", bool, False)
            if attuned or not needs:
                worn.add(f.get(item, "definition.id", (int, str), None))
    found = []
    for source in _SOURCES:
        for i, m in enumerate(f.get(groups, source, list, [])):
            at = f"modifiers.{source}.{i}"
            if not isinstance(m, Mapping):
                raise ParseError(f"{WHAT}: {at} is not an object")
            f.get(m, "type", str)
            f.get(m, "subType", str)
            if source == "item" and m.get("componentId") not in worn:
                continue
            if m.get("restriction") and m["type"] in _RESTRICTED:
                said = str(m.get("friendlySubtypeName") or m["subType"])[:40]
                skipped.append(
                    NotMapped(
                        f"{at} ({said})",
                        f"only {str(m['restriction'])[:60]}: add it as a word when it applies",
                    )
                )
                continue
            found.append(m)
    return found


def _skill_values(
    character: Mapping[str, Any], f: Fields, skipped: list[NotMapped]
) -> dict[int, dict[int, int]]:
    """The skills' `characterValues` (the sheet's overrides): value id -> type id -> value."""
    found: dict[int, dict[int, int]] = {}
    ids = {v for _, v in SKILLS.values()}
    for i, row in enumerate(f.get(character, "characterValues", list, [])):
        value = f.number(character, f"characterValues.{i}.value", None, -99, 99)
        type_id = f.number(character, f"characterValues.{i}.typeId", 0, 0, 999)
        value_id = row.get("valueId") if isinstance(row, Mapping) else None
        value_id = (
            int(value_id) if isinstance(value_id, (int, str)) and str(value_id).isdigit() else None
        )
        if value is None:
            continue
        if type_id in (23, 24, 25, 26) and value_id in ids:
            found.setdefault(value_id, {})[type_id] = value
        else:
            skipped.append(
                NotMapped(
                    f"characterValues.{i}",
                    f"a setting of the sheet (type {type_id}) d20 does not read",
                )
            )
    return found


def _weapons(
    character: Mapping[str, Any],
    f: Fields,
    mods: Mapping[str, int],
    prof: int,
    modifiers: list[Mapping[str, Any]],
    skipped: list[NotMapped],
) -> list[Entry]:
    """The equipped weapons' attack entries (and a versatile weapon's two-handed one)."""
    profs = {str(m["subType"]) for m in modifiers if m["type"] == "proficiency"}
    ranged_bonus = sum(
        _value(m, mods, f)
        for m in modifiers
        if m["type"] == "bonus" and m["subType"] == "ranged-weapon-attacks"
    )
    taken: set[str] = set()
    found = []
    for i, item in enumerate(f.get(character, "inventory", list, [])):
        at = f"inventory.{i}.definition"
        if (
            not f.get(item, "equipped", bool, False)
            or f.get(item, "definition.filterType", str, "") != "Weapon"
        ):
            continue
        name = f.get(item, "definition.name", str)
        kind = f.get(item, "definition.type", str, "")
        props = [
            str(p.get("name"))
            for p in f.get(item, "definition.properties", list, [])
            if isinstance(p, Mapping)
        ]
        ranged = f.get(item, "definition.attackType", int, 1) == 2
        ability = "dex" if ranged else "str"
        if "Finesse" in props:
            ability = "dex" if mods["dex"] > mods["str"] else "str"
        category = f.get(item, "definition.categoryId", int, 0)
        proficient = (
            (category == 1 and "simple-weapons" in profs)
            or (category == 2 and "martial-weapons" in profs)
            or kind.lower().replace(" ", "-").replace(",", "") in profs
        )
        magic = sum(
            _value(m, mods, f)
            for m in f.get(item, "definition.grantedModifiers", list, [])
            if isinstance(m, Mapping) and m.get("type") == "bonus" and m.get("subType") == "magic"
        )
        to_hit = (
            mods[ability] + (prof if proficient else 0) + magic + (ranged_bonus if ranged else 0)
        )
        dice = f.get(item, "definition.fixedDamage", (str, int), None) or f.get(
            item, "definition.damage.diceString", str, ""
        )
        bonus = mods[ability] + magic
        key = label_key(name, taken, "weapon")
        if key is None:
            skipped.append(NotMapped(f"{at}.name", "its name makes no word a request can name"))
            continue
        said = f"{name[:40]}: {ability}, " + ("proficient" if proficient else "not proficient")
        said += f", magic {magic:+d}"
        found.append(Entry(f"attacks.{key}", _attack_words(to_hit, str(dice), bonus), said, to_hit))
        versatile = next(
            (
                p
                for p in f.get(item, "definition.properties", list, [])
                if isinstance(p, Mapping) and p.get("name") == "Versatile"
            ),
            None,
        )
        two = versatile.get("notes") if versatile else None
        if isinstance(two, str) and two:
            key2 = label_key(f"{name} two-handed", taken)
            if key2 is not None:
                found.append(
                    Entry(
                        f"attacks.{key2}",
                        _attack_words(to_hit, two, bonus),
                        said + ", two-handed",
                        to_hit,
                    )
                )
    return found


def _attack_words(to_hit: int, dice: str, bonus: int) -> str:
    """`+N dmg XdY+M`; the damage left out when its dice are not plain dice (`2d6`, `5`)."""
    words = check_words(to_hit)
    dice = dice.strip().replace(" ", "")
    if _DICE.fullmatch(dice):
        words += f" dmg {dice}{bonus:+d}" if bonus else f" dmg {dice}"
    return words
