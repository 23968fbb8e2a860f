"""`d20 char import FILE [--as NAME] [--system ID] [--dry-run] [--json]` and `d20 char
export NAME [--format toml|json|md]` through the command line: each format imports and
its entries roll at once (check, save, attack, init), with the odds of the same words
typed by hand; a re-import replaces what the import made and keeps what the user wrote;
a bad file is one line, exit status 2, and the characters file untouched."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from cli_helpers import d20, write_sheet

import d20cli
from d20cli.store import characters

FIXTURES = Path(__file__).parent / "fixtures" / "import"
ARIA = str(FIXTURES / "a5e_aria.json")
VOLT = str(FIXTURES / "mm3_volt.json")
MERRIC = str(FIXTURES / "beyond_merric.json")


def test_an_a5e_actor_imports_and_its_entries_roll(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = d20(["char", "import", ARIA, "--as", "aria"], capsys)
    assert (status, err) == (0, "")
    assert out.startswith("found a Foundry VTT Level Up A5E actor (schema 0.022)")
    assert "made aria (levelup): 37 entries" in out
    assert "system.skills.smi: a skill Level Up does not have (homebrew)" in out
    status, out, _ = d20(["check", "stealth", "--as", "aria", "--dice", "10,3"], capsys)
    assert "check stealth (+7 expertise=d6, aria)" in out and "= 20" in out
    status, out, _ = d20(["save", "dex", "--as", "aria", "--dice", "10"], capsys)
    assert "save dex (+8, aria)" in out
    args = ["attack", "longsword", "--as", "aria", "vs", "AC", "15", "--dice", "19,5,3"]
    status, out, _ = d20(args, capsys)
    assert status == 0 and "+4 crit 19 dmg 1d8+1" in out and "Critical" in out
    status, out, _ = d20(["init", "add", "aria", "--dice", "7,2"], capsys)
    assert "aria  13  d20 7  expertise d4 2  +4" in out


def test_an_mm3_actor_imports_with_defenses_attacks_and_ranks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = d20(["char", "import", VOLT], capsys)
    assert status == 0 and "made captain-volt (mm): 36 entries" in out
    args = ["attack", "lightning-blast", "--as", "captain-volt", "vs", "dodge", "6"]
    status, out, _ = d20([*args, "--dice", "10"], capsys)
    assert "(+10 crit 19, captain-volt) vs dodge 6  [mm]" in out and "Hit" in out
    status, out, _ = d20(
        ["lightning-blast-effect", "+9", "--as", "captain-volt", "--dice", "10"], capsys
    )
    assert "resist vs rank 10 +9" in out and "= 19 vs 20" in out
    status, out, _ = d20(
        ["resist", "toughness", "--as", "captain-volt", "vs", "rank", "8", "--dice", "9"], capsys
    )
    assert "resist toughness (+10, captain-volt) vs rank 8" in out
    status, out, _ = d20(["init", "add", "captain-volt", "--dice", "5"], capsys)
    assert "captain-volt  13  d20 5  +8" in out


def test_a_beyond_character_imports_as_levelup(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = d20(["char", "import", MERRIC, "--as", "merric"], capsys)
    assert status == 0 and "found a D&D Beyond character JSON (schema v5)" in out
    status, out, _ = d20(["check", "stealth", "--as", "merric", "--dice", "11"], capsys)
    assert "check stealth (+9, merric)" in out
    status, out, _ = d20(
        ["attack", "rapier", "--as", "merric", "vs", "AC", "15", "--dice", "12,4"], capsys
    )
    assert "(+6 dmg 1d8+3, merric) vs AC 15" in out and "= 7" in out


@pytest.mark.parametrize(
    ("path", "request_", "typed"),
    [
        (ARIA, "check stealth vs 15", "check +7 expertise=d6 vs 15"),
        (ARIA, "check sleight-of-hand vs 17", "check +7 expertise=d4 min 10 vs 17"),
        (ARIA, "attack longsword vs AC 15", "attack +4 crit 19 dmg 1d8+1 vs AC 15"),
        (VOLT, "attack lightning-blast vs dodge 6", "attack +10 crit 19 vs dodge 6"),
        (MERRIC, "save dex vs 14", "save +7 vs 14"),
    ],
)
def test_the_odds_of_an_imported_entry_are_the_words_typed_by_hand(
    path: str, request_: str, typed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert d20(["char", "import", path, "--as", "who"], capsys)[0] == 0
    who = characters.load("who")
    system = who.system
    imported = d20cli.odds(request_, character=who)
    by_hand = d20cli.odds(typed, system=system)
    assert imported.outcomes == by_hand.outcomes
    assert imported.damage_distribution == by_hand.damage_distribution
    assert imported.distribution == by_hand.distribution


HAND = """\
# my party
[aria]
system = "levelup"
stealth = "+9"  # my own stealth, better than the sheet's
lucky = true

[aria.macros]
sneak = "check stealth vs 15 adv"
"""


def test_a_reimport_replaces_what_it_made_and_keeps_what_you_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_sheet(HAND)
    sheet = tmp_path / "aria.json"
    shutil.copy(ARIA, sheet)
    status, out, _ = d20(["char", "import", str(sheet), "--as", "aria"], capsys)
    assert status == 0
    assert "kept your stealth = +9 (the sheet: +7 expertise=d6)" in out
    text = path.read_text()
    assert "# my party" in text and "# my own stealth, better than the sheet's" in text
    assert 'sneak = "check stealth vs 15 adv"' in text and "lucky = true" in text
    aria = characters.load("aria")
    assert aria.imported["source"] == str(sheet.resolve())
    assert aria.imported["format"] == "a5e" and len(aria.imported["date"]) == 10
    d20(["char", "set", "aria", "checks.arcana", "+5"], capsys)  # an imported entry edited
    actor = json.loads(sheet.read_text())
    actor["system"]["skills"]["slt"]["expertiseDice"] = 3
    actor["system"]["skills"]["arc"]["proficient"] = 1
    actor["items"] = [i for i in actor["items"] if i["name"] != "Longbow"]
    sheet.write_text(json.dumps(actor))
    status, out, _ = d20(["char", "import", str(sheet), "--as", "aria"], capsys)
    assert status == 0
    assert "changed checks.sleight-of-hand: +7 expertise=d4 min 10 -> +7 expertise=d8 min 10" in out
    assert "removed attacks.longbow (no longer on the sheet; was +7 dmg 1d8+4)" in out
    assert "kept your checks.arcana = +5 (the sheet: +4)" in out
    assert "updated aria: 2 changed" in out
    aria = characters.load("aria")
    assert aria.lookup("sleight-of-hand", "check") == "+7 expertise=d8 min 10"
    assert aria.lookup("arcana", "check") == "+5"
    assert aria.lookup("longbow", "attack") is None
    assert aria.lookup("stealth", "check") == "+9" and aria.macro("sneak")
    assert "# my own stealth" in path.read_text()


def test_a_dry_run_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    path = write_sheet(HAND)
    before = path.read_bytes()
    status, out, _ = d20(["char", "import", ARIA, "--as", "aria", "--dry-run"], capsys)
    assert status == 0 and "dry run: aria not written (36 entries would be)" in out
    assert path.read_bytes() == before
    path.unlink()
    assert d20(["char", "import", VOLT, "--dry-run"], capsys)[0] == 0
    assert not path.exists()


def test_json_says_what_was_made(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = d20(["char", "import", VOLT, "--json"], capsys)
    data = json.loads(out)
    assert status == 0 and data["format"] == "mm3" and data["version"] == "2"
    assert data["character"] == "captain-volt" and data["system"] == "mm"
    assert data["changes"]["created"] is True and not data["dry_run"]
    entry = next(e for e in data["entries"] if e["key"] == "resists.toughness")
    assert entry == {
        "key": "resists.toughness",
        "words": "+10",
        "from": "defense.robustesse.total",
        "total": 10,
    }
    assert {
        "field": "system.pwr",
        "reason": "powers: their effects are in the attacks that use them",
    } in data["not_mapped"]


def _big(tmp_path: Path) -> str:
    path = tmp_path / "big.json"
    with open(path, "wb") as f:
        f.truncate(1 << 30)  # 1 GB, sparse: refused before a byte is read
    return str(path)


def _deep(tmp_path: Path) -> str:
    path = tmp_path / "deep.json"
    path.write_text('{"a": ' + "[" * 200_000 + "]" * 200_000 + "}")
    return str(path)


def _digits(tmp_path: Path) -> str:
    path = tmp_path / "digits.json"
    path.write_text('{"name": "x", "n": ' + "9" * 5000 + "}")
    return str(path)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda t: str(FIXTURES / "broken.json"), "line 1, column 1: not JSON"),
        (lambda t: str(FIXTURES / "a5e_truncated.json"), "not JSON"),
        (lambda t: str(FIXTURES / "other_kind.json"), "not a character sheet d20 reads"),
        (
            lambda t: str(FIXTURES / "a5e_newer.json"),
            r"schema version 0\.031.*\(0\.014 to 0\.022\)",
        ),
        (lambda t: str(FIXTURES / "mm3_version1.json"), "schema version 1; d20 knows version 2"),
        (
            lambda t: str(FIXTURES / "mm3_missing_field.json"),
            r"defense\.robustesse\.total is missing",
        ),
        (
            lambda t: str(FIXTURES / "a5e_wrong_type.json"),
            r"abilities\.dex\.value is text, not a number",
        ),
        (_big, "a character sheet is at most 8,388,608 bytes"),
        (_deep, "JSON nested 200,001 deep; a character sheet nests at most 64"),
        (_digits, "not JSON d20 reads"),
        (lambda t: str(t / "nothing.json"), "cannot read"),
        (lambda t: str(t), "directory"),
        (lambda t: str(FIXTURES / "a5e_hostile_name.json"), r"cannot name a character.*--as NAME"),
    ],
)
def test_a_bad_file_is_one_line_and_changes_nothing(
    make: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_sheet(HAND)
    before = path.read_bytes()
    file = make(tmp_path)  # type: ignore[operator]
    status, out, err = d20(
        ["char", "import", file, "--as", "aria"]
        if "hostile" not in file
        else ["char", "import", file],
        capsys,
    )
    assert status == 2 and out == ""
    assert err.startswith("d20: error") and err.count("\n") == 1, err
    assert "Traceback" not in err and "\x1b" not in err and "\u202e" not in err
    import re

    assert re.search(message, err), err
    assert path.read_bytes() == before


def test_a_hostile_name_is_shown_escaped_and_imports_under_another(
    capsys: pytest.CaptureFixture[str],
) -> None:
    file = str(FIXTURES / "a5e_hostile_name.json")
    status, _, err = d20(["char", "import", file], capsys)
    # each control is shown once escaped, as visible() shows it (not escaped again by repr)
    shown = "'[bold red]Aria\\x1b[2J\\u202e'"
    assert status == 2 and shown in err and "\\\\" not in err
    status, out, _ = d20(["char", "import", file, "--as", "aria"], capsys)
    assert status == 0 and "\x1b" not in out and shown in out and "\\\\" not in out
    assert "[bold red]" in out  # shown as text, never read as markup


def test_the_system_must_fit_and_a_character_of_another_system_is_kept(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = d20(["char", "import", VOLT, "--system", "levelup"], capsys)
    assert status == 2 and "is a mm character, not levelup" in err
    d20(["char", "add", "volt", "--system", "reglamento"], capsys)
    status, _, err = d20(["char", "import", VOLT, "--as", "volt"], capsys)
    assert status == 2 and "volt plays reglamento" in err and "--system mm" in err
    status, _, _ = d20(["char", "import", VOLT, "--as", "volt", "--system", "mm"], capsys)
    assert status == 0 and characters.load("volt").system == "mm"


def test_export_as_toml_json_and_a_markdown_card(capsys: pytest.CaptureFixture[str]) -> None:
    d20(["char", "import", ARIA, "--as", "aria"], capsys)
    status, out, _ = d20(["char", "export", "aria"], capsys)
    assert status == 0 and out.startswith('[aria]\nsystem = "levelup"')
    assert "[aria.checks]" in out and "imported" not in out
    import tomllib

    assert tomllib.loads(out)["aria"]["checks"]["stealth"] == "+7 expertise=d6"
    status, out, _ = d20(["char", "export", "aria", "--format", "json"], capsys)
    data = json.loads(out)
    assert data["groups"]["attacks"]["longsword"] == "+4 crit 19 dmg 1d8+1"
    assert data["imported"]["format"] == "a5e"
    status, out, _ = d20(["char", "export", "aria", "--format", "md"], capsys)
    assert out.startswith("# aria\n\nSystem: levelup")
    assert "Level 5, Proficiency 3, AC 16, HP 38" in out
    assert "| stealth | +7 expertise=d6 |" in out and "## Attacks" in out
    status, _, err = d20(["char", "export", "aria", "--format", "pdf"], capsys)
    assert status == 2 and "--format is toml, json or md" in err


def test_the_api_reads_a_sheet_without_writing(tmp_path: Path) -> None:
    sheet = d20cli.import_character(ARIA)
    assert sheet.format == "a5e" and sheet.system == "levelup"
    assert sheet.words()["checks.stealth"] == "+7 expertise=d6"
    assert not characters.characters_path().exists()
    data = json.loads(Path(VOLT).read_text())
    assert d20cli.import_character(data).words()["resists.toughness"] == "+10"
    with pytest.raises(d20cli.ParseError, match="not a character sheet"):
        d20cli.import_character({"type": "Item"})
    with pytest.raises(d20cli.ParseError, match="is a levelup character, not mm"):
        d20cli.import_character(MERRIC, system="mm")
    assert os.listdir(tmp_path) == []
