"""The party (`d20 party`, `--as party`, `--as aria,bob`): kept in the characters file,
each member rolls their own entry in a group check, side i of a contest is member i, and
every result says whose it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import d20, write_sheet

from d20cli.store import characters

SHEET = """\
[aria]
system = "levelup"
stealth = "+7"
athletics = "+2"

[bob]
system = "levelup"
stealth = "-1"
acrobatics = "+4"
"""


@pytest.fixture
def sheet() -> Path:
    return write_sheet(SHEET)


def test_party_commands_keep_the_party_in_the_file(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert d20(["party"], capsys)[1] == "no party yet (d20 party add aria bob)\n"
    assert d20(["party", "add", "ARIA", "bob", "aria"], capsys)[1] == "party: aria, bob\n"
    assert 'members = ["aria", "bob"]' in sheet.read_text()
    assert characters.party() == ("aria", "bob")
    assert [c.name for c in characters.list_characters()] == ["aria", "bob"]  # not a character
    assert json.loads(d20(["party", "--json"], capsys)[1]) == {"party": ["aria", "bob"]}
    assert d20(["party", "rm", "bob"], capsys)[1] == "party: aria\n"
    status, _, err = d20(["party", "rm", "cleo"], capsys)
    assert status == 2 and "'cleo' is not in the party" in err
    status, _, err = d20(["party", "add", "cleo"], capsys)
    assert status == 2 and "no character 'cleo'" in err
    status, _, err = d20(["party", "add", "nobody"], capsys)  # the real characters only
    assert status == 2 and err.endswith("no character 'nobody' (there are: aria, bob)\n")
    status, _, err = d20(["char", "set", "party", "stealth", "+1"], capsys)
    assert status == 2 and "no character 'party' (there are: aria, bob)" in err
    d20(["party", "add", "bob"], capsys)
    characters.remove("bob")  # a character removed leaves the party too
    assert characters.party() == ("aria",)
    assert d20(["party", "clear"], capsys)[1] == "no party yet (d20 party add aria bob)\n"
    assert "[party]" not in sheet.read_text()
    status, _, err = d20(["char", "add", "party"], capsys)
    assert status == 2 and "not a character's name" in err


def test_a_group_through_the_party_rolls_each_members_entry(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    characters.party_edit(add=["aria", "bob"])
    status, out, _ = d20(
        ["group", "stealth", "vs", "12", "--as", "party", "--json", "--dice", "10,10"], capsys
    )
    data = json.loads(out)
    assert status == 0 and data["party"] == ["aria", "bob"] and data["system"] == "levelup"
    members = [(m["character"], m["name"], m["total"]) for m in data["members"]]
    assert members == [("aria", "stealth", 17), ("bob", "stealth", 9)]
    status, out, _ = d20(
        ["group", "stealth", "vs", "12", "--as", "aria,bob", "--dice", "10,10", "--no-color"],
        capsys,
    )
    assert "1. aria stealth" in out and "2. bob stealth" in out
    # member i through character i; an entry a character lacks is an error, not +0
    status, out, _ = d20(
        ["group", "athletics, acrobatics vs 12", "--as", "party", "--json", "--dice", "3,4"], capsys
    )
    assert [m["total"] for m in json.loads(out)["members"]] == [5, 8]
    status, _, err = d20(["group", "athletics", "vs", "12", "--as", "party"], capsys)
    assert status == 2 and "bob has no entry 'athletics'" in err


def test_a_contest_through_a_party_gives_side_i_to_member_i(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["contest", "athletics", "vs", "acrobatics", "--as", "aria,bob", "--json", "-s", "reg"]
    status, out, _ = d20([*args, "--dice", "10,9"], capsys)
    data = json.loads(out)
    assert status == 0 and data["party"] == ["aria", "bob"]
    assert [(s["character"], s["total"]) for s in data["sides"]] == [("aria", 12), ("bob", 13)]


def test_what_a_party_cannot_roll(sheet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = d20(["check", "stealth", "vs", "12", "--as", "aria,bob"], capsys)
    assert status == 2 and "a party rolls group checks and contests, not a check" in err
    status, _, err = d20(["group", "stealth, stealth, stealth vs 9", "--as", "aria,bob"], capsys)
    assert status == 2 and "give one member per character" in err
    status, _, err = d20(["group", "stealth", "vs", "9", "--as", "party"], capsys)
    assert status == 2 and "there is no party yet" in err
    characters.characters_path().write_text(SHEET + '\n[cleo]\nsystem = "mm"\nstealth = "+1"\n')
    status, _, err = d20(["group", "stealth", "vs", "9", "--as", "aria,cleo"], capsys)
    assert status == 2 and "the party plays levelup, mm: say which system" in err
    assert (
        d20(
            ["group", "stealth", "vs", "9", "--as", "aria,cleo", "-s", "levelup", "--dice", "5,5"],
            capsys,
        )[0]
        == 0
    )


def test_a_contest_against_a_character_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    """`contest athletics --as aria vs bob`: bob rolls his own athletics; a side that is
    no character stays a label with its modifier."""
    write_sheet(
        '[aria]\nsystem = "reglamento"\nathletics = "+2"\n'
        '[bob]\nsystem = "reglamento"\nathletics = "+4"\n'
    )
    args = ["contest", "athletics", "--as", "aria", "vs", "bob", "--json", "--dice", "10,9"]
    status, out, _ = d20(args, capsys)
    data = json.loads(out)
    assert status == 0 and data["party"] == ["aria", "bob"]
    sides = [(s["character"], s["name"], s["total"]) for s in data["sides"]]
    assert sides == [("aria", "athletics", 12), ("bob", "athletics", 13)]
    args = ["contest", "athletics", "vs", "goblin", "+3", "--as", "aria", "--json"]
    status, out, _ = d20([*args, "--dice", "10,9"], capsys)
    assert status == 0 and [s["total"] for s in json.loads(out)["sides"]] == [12, 12]
