"""Errors written for people: an error lists only what the system in force accepts, and
quotes what the user typed, never a form rewritten on the way (issue 33, items 10, 13)."""

from __future__ import annotations

import pytest

import d20cli
from d20cli.errors import D20Error
from d20cli.language.vocabulary import DC_WORDS, RANK_WORDS
from tests.cli_helpers import d20, run_line

MM_ONLY = ("defense N", "rank N", "routine +N", "a DC name")


def _error(args: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    status, out, err = d20([*args, "--no-log"], capsys)
    assert status == 2 and out == ""
    return err.splitlines()


@pytest.mark.parametrize("system", ["levelup", "reglamento"])
@pytest.mark.parametrize("line", ["check +5 vs dc15", "attack +5 vs hard", "save +2 vs"])
def test_a_target_error_lists_the_targets_of_the_system(
    system: str, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _error([*line.split(), "-s", system], capsys)[0]
    assert "expected a target: a number or DC N" in first
    assert not any(word in first for word in MM_ONLY), first
    assert ("AC N" in first) == line.startswith("attack")


def test_mm_lists_its_named_dcs(capsys: pytest.CaptureFixture[str]) -> None:
    first = _error(["check", "+5", "vs", "hard", "-s", "mm"], capsys)[0]
    assert "a DC name (" + ", ".join(DC_WORDS) + ")" in first
    assert "defense N" in first and "rank N" in first and "routine +N" in first
    assert first.endswith("found 'hard'")


def test_a_system_without_targets_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    first = _error(["check", "+5", "vs", "hard", "-s", "pendagger"], capsys)[0]
    assert first == "d20: error at column 13: a pendagger check takes no target (vs ...)"


def test_a_target_of_a_verb_the_system_lacks_names_its_verbs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _error(["group", "+1,", "+2", "vs", "hard", "-s", "mm"], capsys)[0]
    assert first == (
        "d20: error at column 1: mm has no 'group'; its verbs are check, attack, resist, "
        "routine, opposed, compare, percent, roll"
    )


def test_the_api_and_standard_input_list_the_same_targets() -> None:
    with pytest.raises(D20Error) as info:
        d20cli.roll("check +5 vs hard", system="levelup")
    assert info.value.message == "expected a target: a number or DC N, found 'hard'"
    status, _, err, _ = run_line("check +5 vs hard")
    assert status == 2 and "expected a target: a number or DC N, found 'hard'" in err


@pytest.mark.parametrize(
    ("line", "message", "caret_under"),
    [
        ("check +5 DC 15", "unexpected 'DC': a target follows 'vs': vs DC 15", "DC"),
        ("attack +7 ac 12", "unexpected 'ac': a target follows 'vs': vs AC 12", "ac"),
        ("check +5 vs dc15", "a number or DC N (vs DC 15, with a space), found 'dc15'", "dc15"),
        ("attack +5 vs 15 DC 15", "unexpected 'DC'", "DC"),  # it has its target
        ("roll 1d20+5 DC 15", "unexpected 'DC': a roll's target has no DC: vs 15", "DC"),
        ("roll 1d20 vs dc 12", "found 'dc' (a roll's target has no DC: vs 12)", "dc"),
        ("roll 1d20+dc", "expected a number, dice or '(', found 'dc'", "dc"),
    ],
)
def test_a_target_typed_without_vs_is_shown_with_it(
    line: str, message: str, caret_under: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first, typed, caret = _error(line.split(), capsys)
    assert first.endswith(message)
    assert typed == "  " + line
    assert typed[caret.index("^") :].startswith(caret_under)


def test_an_attempt_names_the_ranks_under_the_word(capsys: pytest.CaptureFixture[str]) -> None:
    first, typed, caret = _error(["attempt", "expert", "-s", "pd"], capsys)
    assert "'expert' is not a rank" in first
    assert "(" + ", ".join(RANK_WORDS) + ")" in first
    assert typed[caret.index("^") :].startswith("expert")


@pytest.mark.parametrize(
    ("words", "under"),
    [
        (["goblin", "2"], "2"),
        (["goblin", "x3", "2"], "2"),
        (["goblin", "+2", "adv", "7"], "7"),
        (["goblin", "x2", "+2", "crit"], ""),
    ],
)
def test_init_add_places_its_error_in_what_was_typed(
    words: list[str], under: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first, typed, caret = _error(["init", "add", *words, "-s", "levelup"], capsys)
    assert typed == "  init add " + " ".join(words)
    assert "check" not in typed
    at = caret.index("^")
    assert typed[at:].startswith(under) and (under or at == len(typed))
    assert f"column {at - 1}:" in first


def test_a_mistyped_key_of_a_character_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(["char", "set", "zed", "sytem", "levelup"], capsys) == [
        "d20: error: 'sytem' is not a key of a character; did you mean system?"
    ]
    assert _error(["char", "set", "zed", "luckyy"], capsys) == [
        "d20: error: 'luckyy' is not a key of a character; did you mean lucky?"
    ]
    # an entry whose words do not read is still told so
    assert "do not read" in _error(["char", "set", "zed", "stealth", "+7", "vs"], capsys)[0]
