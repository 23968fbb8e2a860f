"""The Level Up A5E reader (d20cli.importers.a5e): the entries of a Foundry actor equal the
totals its sheet shows, worked out here from the fixture's own fields as the system's
actor code does (not read back from the program), and what it does not map is said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from d20cli.errors import ParseError
from d20cli.importers import detect, read_sheet

FIXTURES = Path(__file__).parent / "fixtures" / "import"
DIE = {0: None, 1: "d4", 2: "d6", 3: "d8", 4: "d10", 5: "d12"}


def _actor() -> Any:
    return json.loads((FIXTURES / "a5e_aria.json").read_text())


def _mod(actor: Any, ability: str) -> int:
    return int((actor["system"]["abilities"][ability]["value"] - 10) // 2)


def _prof(actor: Any) -> int:
    level = sum(i["system"]["classLevels"] for i in actor["items"] if i["type"] == "class")
    return max(2, (level + 7) // 4)


def _number(text: str) -> int:
    return int(text) if text.strip() else 0


def test_the_fixture_is_detected_as_a5e() -> None:
    assert detect(_actor()) == "a5e"


def test_the_totals_are_the_sheets() -> None:
    actor = _actor()
    sheet = read_sheet(actor)
    got = {e.key: e for e in sheet.entries}
    prof = _prof(actor)
    assert prof == 3  # Rogue 3, Fighter 2
    for ability, data in actor["system"]["abilities"].items():
        check = _mod(actor, ability) + _number(data["check"]["bonus"])
        assert got[f"checks.{ability}"].total == check
        save = _mod(actor, ability) + _number(data["save"]["bonus"])
        save += prof if data["save"]["proficient"] else 0
        assert got[f"saves.{ability}"].total == save
        die = DIE[data["save"]["expertiseDice"]]
        assert (f"expertise={die}" in got[f"saves.{ability}"].words) == (die is not None)
    names = {"ste": "stealth", "slt": "sleight-of-hand", "ath": "athletics", "acr": "acrobatics"}
    for key, name in names.items():
        skill = actor["system"]["skills"][key]
        ability = skill["ability"]
        total = _mod(actor, ability) + prof * skill["proficient"]
        total += _number(skill["bonuses"]["check"])
        total += _number(actor["system"]["abilities"][ability]["check"]["bonus"])
        entry = got[f"checks.{name}"]
        assert entry.total == total, key
        assert entry.words.split()[0] == f"{total:+d}"
        die = DIE[skill["expertiseDice"]]
        assert (f"expertise={die}" in entry.words) == (die is not None)
        assert (f"min {skill['minRoll']}" in entry.words) == (skill["minRoll"] > 1)
    assert got["checks.stealth"].words == "+7 expertise=d6"
    assert got["checks.sleight-of-hand"].words == "+7 expertise=d4 min 10"
    assert got["checks.athletics"].words == "+8"  # double proficiency and +2
    assert got["checks.perception"].words == "+5+1d4"  # wis +1, check bonus +1, prof, 1d4
    assert got["init"].words == "+4 expertise=d4"


def test_weapons_attack_with_the_right_ability() -> None:
    actor = _actor()
    got = read_sheet(actor).words()
    prof, dex, strength = _prof(actor), _mod(actor, "dex"), _mod(actor, "str")
    assert got["attacks.rapier"] == f"{max(dex, strength) + prof:+d} dmg 1d8+{dex}"  # finesse
    assert got["attacks.longbow"] == f"{dex + prof:+d} dmg 1d8+{dex}"
    # +1 Longsword: its bonus 1, critThreshold 19, damage 1d8 + @mod + 1
    assert got["attacks.longsword"] == f"{strength + prof + 1:+d} crit 19 dmg 1d8+{strength + 1}"


def test_what_is_not_mapped_is_said() -> None:
    fields = {n.field: n.reason for n in read_sheet(_actor()).not_mapped}
    assert "homebrew" in fields["system.skills.smi"]
    assert "system.bonuses.skills.Kx93hEJ2" in fields
    assert "items (spell)" in fields
    assert "specialty" in fields["system.skills.prc.specialties"]


def test_a_bonus_formula_it_cannot_read_is_not_mapped() -> None:
    actor = _actor()
    actor["system"]["skills"]["ste"]["bonuses"]["check"] = "max(@dex.mod, 2)"
    sheet = read_sheet(actor)
    assert sheet.words()["checks.stealth"] == "+7 expertise=d6"
    assert any(n.field == "system.skills.ste.bonuses.check" for n in sheet.not_mapped)


def test_jack_of_all_trades_adds_half_the_proficiency_bonus() -> None:
    actor = _actor()
    actor["flags"]["a5e"]["jackOfAllTrades"] = True
    assert read_sheet(actor).words()["checks.history"] == f"{_mod(actor, 'int') + 1:+d}"


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("system.migrationData.version", 0.031, "newer than the versions d20 knows"),
        ("system.migrationData.version", 0.002, "older than the versions d20 knows"),
        ("system.abilities.dex.value", "18", "is text, not a number"),
        ("system.abilities.dex.value", 1e9, "outside 0..99"),
        ("system.skills.ste.proficient", 7, "not 0, 1 or 2"),
        ("type", "npc", "imports characters"),
    ],
)
def test_a_bad_field_is_an_error_that_names_it(path: str, value: Any, message: str) -> None:
    actor = _actor()
    *parents, last = path.split(".")
    here = actor
    for step in parents:
        here = here[step]
    here[last] = value
    with pytest.raises(ParseError, match=message):
        read_sheet(actor)


def test_the_known_versions_are_named() -> None:
    actor = _actor()
    actor["system"]["migrationData"]["version"] = 0.031
    with pytest.raises(ParseError, match=r"0\.014 to 0\.022"):
        read_sheet(actor)
