"""Whose roll it is (issue 33): with a character in force (`--as`, `d20 char use`,
`D20_CHARACTER`) the header names the character and the entries used, and the note line
names the house rules that came from the character or the config. JSON only adds
`entry` and `house_from`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import d20, write_sheet

SHEET = (
    '[aria]\nsystem = "levelup"\nstealth = "+7"\nathletics = "+3 expertise=d6"\nlucky = true\n'
    '[aria.macros]\nsneak = "check stealth vs 15"\n'
)


@pytest.fixture(autouse=True)
def sheet() -> Path:
    return write_sheet(SHEET)


def _config(text: str) -> None:
    path = write_sheet(SHEET).parent / "config.toml"
    path.write_text(text, encoding="utf-8")


def out(capsys: pytest.CaptureFixture[str], *words: str) -> list[str]:
    status, text, err = d20([*words, "--no-log"], capsys)
    assert (status, err) == (0, ""), err
    return text.splitlines()


def test_the_header_names_the_character_and_the_entry(capsys: pytest.CaptureFixture[str]) -> None:
    lines = out(capsys, "check", "stealth", "vs", "15", "--as", "aria", "--dice", "12")
    assert lines[0] == "check stealth (+7, aria) vs 15  [levelup]"
    group = out(
        capsys, "group", "stealth,", "athletics", "vs", "12", "--as", "aria", "--dice", "5,6,2"
    )
    assert group[0].startswith("group stealth (+7, aria), athletics (+3 expertise=d6, aria) vs 12")


def test_a_roll_through_a_character_without_entries_names_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert out(capsys, "check", "+3", "vs", "15", "--as", "aria", "--dice", "12")[0] == (
        "check +3 vs 15  [levelup, aria]"
    )
    assert out(capsys, "check", "+3", "vs", "15", "--dice", "12")[0] == "check +3 vs 15  [levelup]"


def test_the_character_in_use_and_the_environment_count_as_as(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("D20_CHARACTER", "aria")
    assert out(capsys, "check", "stealth", "vs", "15", "--dice", "12")[0].startswith(
        "check stealth (+7, aria) vs 15"
    )
    monkeypatch.delenv("D20_CHARACTER")
    _config('character = "aria"\n')
    assert out(capsys, "save", "stealth", "vs", "15", "--dice", "12")[0].startswith(
        "save stealth (+7, aria) vs 15"
    )
    assert out(capsys, "sneak", "--as", "aria", "--dice", "12")[0].startswith(
        "check stealth (+7, aria) vs 15"
    )


def test_the_note_names_the_house_rules_from_the_character_and_the_config(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _config("[levelup]\ncrit = 19\n")
    lines = out(capsys, "check", "+3", "vs", "15", "--as", "aria", "--dice", "12")
    assert lines[-1] == "  house rules: crit 19 (from the config), lucky (from aria)"
    typed = out(capsys, "check", "+3", "vs", "15", "crit", "18", "--as", "aria", "--dice", "12")
    assert typed[-1] == "  house rules: lucky (from aria)"  # a typed word is no default
    assert out(capsys, "check", "+3", "vs", "15", "--dice", "12")[-1] == (
        "  house rules: crit 19 (from the config)"
    )
    assert not any("house rules" in line for line in out(capsys, "roll", "1d20", "--dice", "4"))


def test_json_only_adds_fields(capsys: pytest.CaptureFixture[str]) -> None:
    _config("[levelup]\ncrit = 19\n")
    words = ["check", "stealth", "vs", "15", "--as", "aria", "--dice", "12", "--json"]
    data = json.loads(out(capsys, *words)[0])
    assert data["request"] == "check stealth +7 vs 15"
    assert data["character"] == "aria" and data["name"] == "stealth"
    assert data["house"] == {"crit": 19, "lucky": True}
    assert data["entry"] == "+7"
    assert data["house_from"] == {"crit": "config", "lucky": "aria"}


def test_a_macro_of_the_character_in_use_is_a_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Completion offers the macros of the character in force as commands (`d20 sn<TAB>`:
    sneak): `d20 sneak` then rolls the macro, without --as; a word that is no macro is
    still an unknown command."""
    from d20cli.store import characters

    characters.set_entry("aria", "macros.sneak", "check +7 vs 15")
    monkeypatch.setenv("D20_CHARACTER", "aria")
    status, out, err = d20(["sneak", "--seed", "1", "--no-log"], capsys)
    assert status == 0, err
    assert out.startswith("check +7 vs 15")
    status, _, err = d20(["sneek", "--no-log"], capsys)
    assert status == 2 and "unknown command 'sneek'" in err
