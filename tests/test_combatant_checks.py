"""A check or save rolled as a combatant of the encounter follows her conditions (issue 45
item 3): levelup's poisoned and frightened give disadvantage on ability checks,
restrained on Dexterity saves, and paralyzed, petrified, stunned and unconscious make
Strength and Dexterity saves fail automatically; said in one line before the roll, the
words in the request as rolled, nothing more with --json; a request rolled as no one in
the order never opens the encounter."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cli_helpers import d20, write_sheet

from d20cli.__main__ import main
from d20cli.dice.roller import make_roller
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CheckRequest
from d20cli.rules import get_system
from d20cli.rules.encounter import FAILS, Condition, auto_failed, check_words
from d20cli.store import initiative
from d20cli.store.combatant_names import NAMES_FILE, listed
from d20cli.store.database import state_dir

SHEET = """\
[aria]
system = "levelup"
init = "+3"
hp = "12"
armor = "15"
dex = "+2"

[aria.saves]
str = "+1"
wis = "+4"
dexterity = "+3"

[bob]
system = "levelup"
init = "+1"
"""


def _encounter(*conditions: str) -> None:
    """aria (a character of the sheet) and a goblin in the order, aria with `conditions`."""
    write_sheet(SHEET)
    assert main(["init", "add", "aria", "--dice", "14"]) == 0
    assert main(["init", "add", "goblin", "+2", "hp", "7", "ac", "13", "--dice", "11"]) == 0
    for condition in conditions:
        assert main(["init", "cond", "aria", condition]) == 0


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    status, out, _ = d20([*args, "--json"], capsys)
    assert status == 0, out
    lines = out.splitlines()
    assert len(lines) == 1, lines  # --json: the result's line, no line of conditions
    found: dict[str, Any] = json.loads(lines[0])
    return found


@pytest.mark.parametrize("condition", ["poisoned", "frightened"])
def test_a_poisoned_or_frightened_combatant_has_disadvantage_on_checks(
    condition: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _encounter(condition)
    capsys.readouterr()
    status, out, _ = d20(["check", "+5", "vs", "15", "--as", "aria", "--dice", "12,4"], capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == f"aria is {condition}: dis"  # one line, before the roll
    assert lines[1].startswith("check +5 vs 15 dis")
    assert "= 9 vs 15  Failure" in out  # the lower d20, 4
    shown = _json(["check", "dex", "vs", "15", "--as", "aria", "--dice", "12,4"], capsys)
    assert shown["request"] == "check dex +2 vs 15 dis" and shown["total"] == 6
    # a save is no ability check
    shown = _json(["save", "wis", "vs", "15", "--as", "aria", "--dice", "12"], capsys)
    assert shown["request"] == "save wis +4 vs 15" and shown["total"] == 16


def test_a_restrained_combatant_has_disadvantage_on_dexterity_saves_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _encounter("restrained")
    capsys.readouterr()
    status, out, _ = d20(["save", "dex", "vs", "15", "--as", "aria", "--dice", "18,6"], capsys)
    assert status == 0 and out.splitlines()[0] == "aria is restrained: dis"
    assert "= 8 vs 15  Failure" in out
    # a save labelled dexterity is one too; a Strength save and a check are not
    shown = _json(["save", "Dexterity", "vs", "15", "--as", "aria", "--dice", "18,6"], capsys)
    assert shown["request"] == "save Dexterity +3 vs 15 dis" and shown["total"] == 9
    shown = _json(["save", "str", "vs", "15", "--as", "aria", "--dice", "12"], capsys)
    assert shown["request"] == "save str +1 vs 15"
    shown = _json(["check", "+5", "vs", "15", "--as", "aria", "--dice", "12"], capsys)
    assert shown["request"] == "check +5 vs 15"


@pytest.mark.parametrize("condition", ["paralyzed", "petrified", "stunned", "unconscious"])
def test_strength_and_dexterity_saves_fail_automatically(
    condition: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No word of the request language says "fails automatically": the save is rolled as
    it is, said in the line before it, and shown (and logged) as a failure with a note of
    what the dice alone gave."""
    _encounter(condition)
    monkeypatch.delenv("D20_NO_LOG")  # (the roll log: its row below)
    capsys.readouterr()
    args = ["save", "dex", "vs", "15", "--as", "aria", "--dice", "17"]
    status, out, _ = d20([*args, "--exit-status"], capsys)
    assert status == 1  # a failure, whatever the dice
    said = f"aria is {condition}: a Strength or Dexterity save fails automatically"
    assert out.splitlines()[0] == said
    assert "d20 17  +2  = 19 vs 15  Failure" in out
    assert f"{said} (the dice alone: Success)" in out
    shown = _json(["save", "str", "vs", "15", "--as", "aria", "--dice", "20"], capsys)
    assert (shown["outcome"], shown["success"], shown["total"]) == ("failure", False, 21)
    assert shown["notes"] == [f"{said} (the dice alone: Critical save)"]
    shown = _json(["save", "dex", "vs", "15", "--as", "aria", "--dice", "3"], capsys)
    assert shown["notes"] == [f"{said} (the dice failed too)"]
    # what the dice alone would give is no tally or chance of the outcome
    for option in ("--odds", "--summary"):
        capsys.readouterr()
        status, _, err = d20([*args[:-2], option, "-n", "10"], capsys)
        assert status == 2 and err.startswith(f"d20: error: {option} ")
        assert err.rstrip().endswith(said)
    # a save of another ability, and a check, roll as they are
    shown = _json(["save", "wis", "vs", "15", "--as", "aria", "--dice", "17"], capsys)
    assert (shown["outcome"], "notes" in shown) == ("success", False)
    shown = _json(["check", "+5", "vs", "15", "--as", "aria", "--dice", "17"], capsys)
    assert shown["outcome"] == "success"
    # the roll log keeps what was shown
    capsys.readouterr()
    assert main(["log", "--json"]) == 0
    logged = json.loads(capsys.readouterr().out)
    assert [r["outcome"] for r in logged if r["request"].startswith("save str")] == ["failure"]


def test_the_character_in_use_is_the_combatant(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _encounter("poisoned")
    monkeypatch.setenv("D20_CHARACTER", "aria")
    shown = _json(["check", "+5", "vs", "15", "--dice", "12,4"], capsys)
    assert shown["request"] == "check +5 vs 15 dis" and shown["character"] == "aria"
    # -q: the total alone, no line of conditions
    capsys.readouterr()
    assert d20(["check", "+5", "vs", "15", "-q", "--dice", "12,4"], capsys)[1] == "9\n"
    # --as none: rolled as no one
    shown = _json(["check", "+5", "vs", "15", "--as", "none", "--dice", "12"], capsys)
    assert shown["request"] == "check +5 vs 15"


def test_a_request_rolled_as_no_combatant_never_opens_the_encounter(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _encounter("poisoned")

    def opened(*args: object) -> None:
        raise AssertionError("the encounter was opened")

    monkeypatch.setattr(initiative, "load", opened)
    # no character; a character not in the order (the names file beside the database
    # says so)
    for who in ([], ["--as", "bob"]):
        capsys.readouterr()
        assert d20(["check", "+5", "vs", "15", *who, "--dice", "12"], capsys)[0] == 0
    # no file of names (no encounter was ever kept): not even aria's name is looked up
    (state_dir() / NAMES_FILE).unlink()
    assert d20(["check", "+5", "vs", "15", "--as", "aria", "--dice", "12"], capsys)[0] == 0


def test_a_condition_that_says_nothing_of_checks_adds_no_word(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _encounter("prone", "blessed")
    shown = _json(["check", "+5", "vs", "15", "--as", "aria", "--dice", "12"], capsys)
    assert shown["request"] == "check +5 vs 15"
    # a combatant rolling in a system whose conditions say nothing of checks
    assert main(["init", "add", "bob", "--dice", "9", "-s", "reglamento"]) == 0
    assert main(["init", "cond", "bob", "blinded"]) == 0
    assert not get_system("reglamento").harm.checking  # type: ignore[union-attr]
    shown = _json(["check", "+5", "vs", "15", "--as", "bob", "--dice", "12"], capsys)
    assert "dis" not in shown["request"]


def test_check_words_and_auto_failed_follow_the_systems_rule() -> None:
    """The rule alone (rules.encounter, no I/O), every levelup condition of a check."""
    checking = get_system("levelup").harm.checking  # type: ignore[union-attr]
    held = (Condition("poisoned"), Condition("restrained"), Condition("stunned"))
    said = check_words(held, checking, "save", "DEX")
    assert (said.words, said.by) == (("dis",), ("restrained",))
    assert said.fails == (("stunned", "a Strength or Dexterity save fails automatically"),)
    said = check_words(held, checking, "check", "dex")
    assert (said.words, said.by, said.fails) == (("dis",), ("poisoned",), ())
    assert check_words(held, checking, "save", None) == check_words((), checking, "save", None)
    assert all(rule.word in ("dis", FAILS) for rules in checking.values() for rule in rules)
    request = parse_request("save +5 vs 15")
    assert isinstance(request, CheckRequest)
    result = get_system("levelup").resolve(request, make_roller(faces=[18]))
    failed = auto_failed(result, "aria is stunned")
    assert (failed.outcome, failed.success, failed.total) == ("failure", False, result.total)
    assert failed.notes[-1] == "aria is stunned (the dice alone: Success)"


def test_the_names_file_is_looked_for_where_the_database_keeps_it() -> None:
    """`listed` finds the file without store.database (no sqlite3 to import): the same
    place as the database's own directory."""
    write_sheet(SHEET)
    assert main(["init", "add", "aria", "--dice", "14"]) == 0
    assert (state_dir() / NAMES_FILE).read_text(encoding="utf-8") == "aria\n"
    assert listed("ARIA") and not listed("bob")


def test_in_a_sealed_session_an_automatic_failure_is_said_and_the_roll_shown_as_rolled(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sealed roll's receipt proves its dice and their outcome: the save is shown as
    rolled (its outcome what the dice gave), the line before it says that it fails."""
    from state_helpers import close_opened

    _encounter("paralyzed")
    monkeypatch.delenv("D20_NO_LOG")
    try:
        capsys.readouterr()
        assert main(["seal"]) == 0
        capsys.readouterr()
        status, out, _ = d20(["save", "dex", "vs", "5", "--as", "aria"], capsys)
        lines = out.splitlines()
        assert status == 0
        assert lines[0] == "aria is paralyzed: a Strength or Dexterity save fails automatically"
        assert lines[1] == "(a sealed session shows the roll as rolled: its receipt proves it)"
        assert "(the dice alone" not in out and "(the dice failed too)" not in out
        assert main(["unseal"]) == 0
    finally:
        close_opened()
