"""A word close to a word of the language is an error with "did you mean", never a label
rolled at +0 (issue 33, item 6); a label in brackets or quotes, or a word the character
has an entry for, stays a label."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import d20, write_sheet

import d20cli
from d20cli.errors import ParseError
from d20cli.language.grammar import parse_request
from d20cli.language.grammar_checks import near_words


@pytest.mark.parametrize(
    ("line", "column", "meant"),
    [
        ("check advantge +5 vs 15", 7, "advantage"),
        ("check avd +5 vs 15", 7, "adv"),
        ("attack +7 vs 15 crti 19", 17, "crit"),
        ("check +5 dadv vs 15", 10, "adv"),
        ("check +5 expertis=d6 vs 15", 10, "expertise=d6"),
        ("save +3 vs 12 disadvnatage", 15, "disadvantage"),
        ("attempt trianed -s pd", 9, "trained"),
        ("group +3 avd, +5 vs 12", 10, "adv"),
        ("contest +3 vs +1 disadv4ntage", 18, "disadvantage"),
        ("check +5 vs 15 relaible", 16, "reliable"),
    ],
)
def test_a_near_word_is_an_error_that_names_the_word(line: str, column: int, meant: str) -> None:
    line = line.replace(" -s pd", "")
    with pytest.raises(ParseError) as info:
        parse_request(line)
    assert f"did you mean {meant}?" in info.value.message
    assert info.value.column == column
    assert info.value.kind == "parse"


def test_a_misspelt_flag_exits_2_and_rolls_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = d20(["check", "advantge", "+5", "vs", "15"], capsys)
    assert status == 2
    assert out == ""
    assert "did you mean advantage?" in err
    status, out, _ = d20(["check", "advantge", "+5", "vs", "15", "--json"], capsys)
    assert status == 2
    assert json.loads(out)["kind"] == "parse"


@pytest.mark.parametrize(
    "line",
    [
        "check [advantge] +5 vs 15",
        'check "advantge" +5 vs 15',
        "check 'advantge' +5 vs 15",
        "check +5 vs 15 [avd]",
        "check 'sleight of hand' +5 vs 15",
    ],
)
def test_a_label_in_brackets_or_quotes_stays_a_label(line: str) -> None:
    request = parse_request(line)
    assert request.name in ("advantge", "avd", "sleight of hand")  # type: ignore[attr-defined]
    assert request.modifier is not None  # type: ignore[attr-defined]


COMMON_LABELS = (
    *("wis", "dex", "str", "int", "con", "cha", "stealth", "perception", "athletics"),
    *("arcana", "longsword", "goblin", "orc", "hero", "villain", "minion", "aria", "bob"),
    *("dagger", "history", "insight", "religion", "survival", "initiative", "sneak"),
)


@pytest.mark.parametrize(
    "word",
    COMMON_LABELS,
)
def test_common_labels_are_nobodys_typo(word: str) -> None:
    assert near_words(word) == []
    assert parse_request(f"check {word} +2 vs 10").name == word  # type: ignore[attr-defined]


def test_a_word_the_character_has_is_its_entry() -> None:
    zed = d20cli.Character(name="zed", entries={"notice": "+4", "avd": "+1 adv"})
    assert d20cli.roll("check notice vs 15", character=zed, dice=[10]).total == 14
    assert d20cli.roll("check avd vs 15", character=zed, dice=[10, 3]).total == 11
    with pytest.raises(ParseError, match="did you mean novice"):
        d20cli.roll("check notice vs 15", dice=[10])
    with pytest.raises(ParseError, match="did you mean adv"):
        d20cli.roll("check +1 vs 15 advv", character=zed, dice=[10])


def test_a_word_of_the_character_on_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write_sheet('[zed]\nnotice = "+4"\n')
    status, out, err = d20(["check", "notice", "vs", "15", "--as", "zed", "--dice", "10"], capsys)
    assert status == 0, err
    assert "= 14" in out
    status, _, err = d20(["check", "notice", "vs", "15", "--dice", "10"], capsys)
    assert status == 2
    assert "did you mean novice?" in err
