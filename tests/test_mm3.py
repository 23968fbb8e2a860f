"""The Mutants & Masterminds 3e reader (d20cli.importers.mm3): the stored totals, checked
here against the fields they are made of (as foundry-mm3's data model adds them), become
checks, resistance checks, `init`, attacks and effect macros."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from d20cli.errors import ParseError
from d20cli.importers import detect, read_sheet

FIXTURES = Path(__file__).parent / "fixtures" / "import"
ABBR = {
    "for": "force",
    "agi": "agilite",
    "cbt": "combativite",
    "sns": "sensibilite",
    "end": "endurance",
    "dex": "dexterite",
    "int": "intelligence",
    "prs": "presence",
}


def _actor() -> Any:
    return json.loads((FIXTURES / "mm3_volt.json").read_text())


def _ability(actor: Any, key: str) -> int:
    c = actor["system"]["caracteristique"][key]
    return int(c["base"] + c["divers"] + c["bonuses"])


def test_the_fixture_is_detected_as_mm3() -> None:
    assert detect(_actor()) == "mm3"


def test_the_totals_are_the_sheets() -> None:
    actor = _actor()
    system = actor["system"]
    got = {e.key: e.total for e in read_sheet(actor).entries}
    english = {"force": "strength", "agilite": "agility", "presence": "presence"}
    for key, name in english.items():
        assert got[f"checks.{name}"] == _ability(actor, key)
    skill = system["competence"]["discretion"]
    assert got["checks.stealth"] == _ability(actor, ABBR[skill["car"]]) + skill["rang"]
    perception = system["competence"]["perception"]
    total = _ability(actor, ABBR[perception["car"]]) + perception["rang"] + perception["autre"]
    assert got["checks.perception"] == total
    science = system["competence"]["expertise"]["list"]["sk0"]
    assert got["checks.expertise-science"] == _ability(actor, "intelligence") + science["rang"]
    names = {"esquive": "dodge", "parade": "parry", "robustesse": "toughness", "volonte": "will"}
    for key, name in names.items():
        d = system["defense"][key]
        assert got[f"resists.{name}"] == _ability(actor, ABBR[d["car"]]) + d["base"] + d["divers"]
    assert got["init"] == _ability(actor, "agilite") + system["initiative"]["base"]
    blast = system["competence"]["combatdistance"]["list"]["sk0"]
    to_hit = _ability(actor, "dexterite") + blast["rang"] + blast["autre"]
    assert got["attacks.lightning-blast"] == to_hit


def test_attacks_and_their_effect_ranks() -> None:
    words = read_sheet(_actor()).words()
    assert words["attacks.lightning-blast"] == "+10 crit 19"
    assert words["macros.lightning-blast-effect"] == "resist vs rank 10"
    assert words["attacks.unarmed"] == "+11"
    assert "attacks.thunderclap" not in words  # an area: no attack roll
    assert words["macros.thunderclap-effect"] == "resist vs rank 8"


def test_what_is_not_mapped_is_said() -> None:
    fields = {n.field for n in read_sheet(_actor()).not_mapped}
    assert {"system.pwr", "system.complications", "items (talent)"} <= fields
    assert "system.attaque.a3.attaque (Thunderclap)" in fields


def test_a_version_it_does_not_know_names_the_one_it_knows() -> None:
    actor = _actor()
    actor["system"]["version"] = 1
    with pytest.raises(ParseError, match="schema version 1; d20 knows version 2: open it once"):
        read_sheet(actor)
    actor["system"]["version"] = 3
    with pytest.raises(ParseError, match="update d20"):
        read_sheet(actor)


def test_a_missing_total_names_the_field() -> None:
    actor = _actor()
    del actor["system"]["defense"]["robustesse"]["total"]
    with pytest.raises(ParseError, match=r"defense\.robustesse\.total is missing"):
        read_sheet(actor)
