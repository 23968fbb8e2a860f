"""The D&D Beyond reader (d20cli.importers.beyond): derived values as the sheet derives
them, worked out here from the fixture's fields: scores with their modifiers, the
proficiency bonus from the class levels, proficiency, expertise and Jack of All Trades,
equipped items only, and weapons with their magic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from d20cli.errors import ParseError
from d20cli.importers import detect, read_sheet

FIXTURES = Path(__file__).parent / "fixtures" / "import"


def _answer() -> Any:
    return json.loads((FIXTURES / "beyond_merric.json").read_text())


def _scores(data: Any) -> dict[str, int]:
    base = {s["id"]: s["value"] for s in data["stats"]}
    names = ["strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"]
    short = ["str", "dex", "con", "int", "wis", "cha"]
    out = {}
    for i, name in enumerate(names):
        bonus = sum(
            m["value"]
            for m in data["modifiers"]["race"]
            if m["type"] == "bonus" and m["subType"] == f"{name}-score"
        )
        out[short[i]] = (base[i + 1] + bonus - 10) // 2
    return out


def test_the_fixture_is_detected_as_beyond_alone_or_in_the_answer() -> None:
    assert detect(_answer()) == "beyond"
    assert detect(_answer()["data"]) == "beyond"
    assert read_sheet(_answer()["data"]).words() == read_sheet(_answer()).words()


def test_the_totals_are_the_sheets() -> None:
    data = _answer()["data"]
    mod = _scores(data)
    level = sum(c["level"] for c in data["classes"])
    prof = max(2, (level + 7) // 4)
    jack = prof // 2  # the bard's half proficiency on ability checks
    cloak = 1  # Cloak of Protection (equipped, attuned): +1 to saves
    got = {e.key: e.total for e in read_sheet(_answer()).entries}
    assert got["saves.dex"] == mod["dex"] + prof + cloak
    assert got["saves.wis"] == mod["wis"] + cloak
    assert got["checks.stealth"] == mod["dex"] + 2 * prof  # expertise
    assert got["checks.acrobatics"] == mod["dex"] + prof
    assert got["checks.history"] == mod["int"] + jack
    assert got["checks.perception"] == mod["wis"] + prof  # the hearing-only +2 is left out
    assert got["checks.survival"] == mod["wis"] + jack + 2  # characterValues: +2
    assert got["checks.con"] == mod["con"] + jack
    assert got["init"] == mod["dex"] + jack + 5  # Alert
    assert got["attacks.rapier"] == mod["dex"] + prof  # finesse, proficient
    assert got["attacks.shortbow"] == mod["dex"] + prof + 1  # simple weapon, +1 magic
    assert got["attacks.longsword"] == mod["str"] + prof
    words = read_sheet(_answer()).words()
    assert words["attacks.rapier"] == f"+{mod['dex'] + prof} dmg 1d8+{mod['dex']}"
    assert words["attacks.shortbow"] == f"+{mod['dex'] + prof + 1} dmg 1d6+{mod['dex'] + 1}"
    assert words["attacks.longsword-two-handed"] == f"+{mod['str'] + prof} dmg 1d10-1"
    assert "attacks.dagger" not in words  # not equipped


def test_an_unequipped_items_bonus_does_not_count() -> None:
    data = _answer()
    with_stone = json.loads(json.dumps(data))
    for item in with_stone["data"]["inventory"]:
        if item["definition"]["id"] == 502:
            item["equipped"] = True
            item["isAttuned"] = True
    before = read_sheet(data).words()["checks.history"]
    after = read_sheet(with_stone).words()["checks.history"]
    assert int(after) == int(before) + 1


def test_what_is_not_mapped_is_said() -> None:
    fields = {n.field: n.reason for n in read_sheet(_answer()).not_mapped}
    assert "hearing" in fields["modifiers.feat.1 (Perception)"]
    assert "frightened" in fields["modifiers.race.2 (Saving Throws)"]
    assert "type 38" in fields["characterValues.1"]
    assert "data.classSpells" in fields


def test_an_override_replaces_the_score() -> None:
    data = _answer()
    data["data"]["overrideStats"][1]["value"] = 20  # dexterity 20
    got = {e.key: e.total for e in read_sheet(data).entries}
    assert got["checks.stealth"] == 5 + 2 * 3


def test_a_stat_of_the_wrong_type_names_the_field() -> None:
    data = _answer()
    data["data"]["stats"][0]["value"] = "8"
    with pytest.raises(ParseError, match=r"stats\.0\.value is text, not a number"):
        read_sheet(data)


def test_a_failed_answer_is_said() -> None:
    data = _answer()
    data["success"] = False
    with pytest.raises(ParseError, match="success false"):
        read_sheet(data)
