"""Every rule applied is said (issue 42, items 6 to 8): advantage and disadvantage that
cancel on a group member and a contest side, an mm opposed side's circumstance words, and
where `lucky` applies. Through the command line (text and `--json`) and the Python API."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from cli_helpers import d20, write_sheet

import d20cli
from d20cli.rules import get_system
from d20cli.rules.mm.checks import PERCENT_NOT_LUCKY

CANCEL = "advantage and disadvantage cancel: one d20"


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    status, out, err = d20([*args, "--json"], capsys)
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert isinstance(result, dict)
    return result


def _text(args: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    status, out, err = d20([*args, "--no-color"], capsys)
    assert (status, err) == (0, "")
    return out.splitlines()


# --- item 6: advantage and disadvantage that cancel, said on every verb ------------------


@pytest.mark.parametrize(
    ("args", "word", "rows"),
    [
        (["group", "+1", "adv", "dis,", "+2", "vs", "10", "--dice", "12,5"], "member", "members"),
        (
            ["contest", "+1", "ADV", "DISADV", "vs", "+2", "-s", "reglamento", "--dice", "12,5"],
            "side",
            "sides",
        ),
    ],
)
def test_a_member_or_side_says_advantage_and_disadvantage_cancel(
    args: list[str], word: str, rows: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _text(args, capsys)
    assert lines[-1] == f"  {word} 1: {CANCEL}"
    assert sum(CANCEL in line for line in lines) == 1  # the second member or side: no
    result = _json(args, capsys)
    first, second = result[rows]
    assert first["notes"] == [CANCEL]  # as a plain check's JSON says it
    assert "notes" not in second
    assert result["notes"] == [f"{word} 1: {CANCEL}"]
    assert [d["face"] for d in result["dice"]] == [12, 5]


def test_the_same_field_as_a_plain_check(capsys: pytest.CaptureFixture[str]) -> None:
    check = _json(["check", "+1", "adv", "dis", "vs", "10", "--dice", "12"], capsys)
    group = _json(["group", "+1", "adv", "dis,", "+2", "vs", "10", "--dice", "12,5"], capsys)
    assert check["notes"] == group["members"][0]["notes"] == [CANCEL]


def test_one_kind_alone_is_no_cancel(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _text(
        ["contest", "+1", "ADV", "vs", "+2", "-s", "reglamento", "--dice", "12,3,5"], capsys
    )
    assert not any("cancel" in line for line in lines)


def test_a_contest_side_says_its_cancel_before_its_lucky_reroll(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["contest", "+1", "adv", "dis", "lucky", "vs", "+2", "-s", "reglamento"]
    result = _json([*args, "--dice", "1,14,5"], capsys)
    assert result["notes"] == [f"side 1: {CANCEL}", "side 1: 1 rerolled -> 14 (lucky)"]


def test_the_api_says_it_too() -> None:
    group = d20cli.roll("group +1 adv dis, +2 vs 10", dice=[12, 5])
    assert group.members is not None
    assert group.members[0].notes == (CANCEL,)
    assert group.notes == (f"member 1: {CANCEL}",)
    contest = d20cli.roll("contest +1 vs +2 ADV DISADV", system="reglamento", dice=[12, 5])
    assert contest.sides is not None
    assert contest.sides[1].notes == (CANCEL,)
    assert contest.notes == (f"side 2: {CANCEL}",)


def test_every_note_of_a_member_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    """A member's other notes (a lucky reroll, a natural read) were shown nowhere in the
    text either."""
    lines = _text(["group", "+1", "lucky,", "+2", "vs", "10", "--dice", "1,14,20"], capsys)
    assert lines[-1] == "  member 1: 1 rerolled -> 14 (lucky)"
    lines = _text(["group", "+1,", "-15", "vs", "10", "--dice", "12,20"], capsys)
    assert lines[-1] == "  member 2: natural 20 below the DC: a plain failure"


# --- item 7: an mm opposed side says what each circumstance word gave ----------------------


def test_an_opposed_side_says_its_circumstance_words(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["opposed", "+5", "bonus", "vs", "+3", "major", "penalty", "-s", "mm", "--dice", "10,12"]
    lines = _text(args, capsys)
    assert lines[-2:] == ["  side 1: bonus +2", "  side 2: major-penalty -5"]
    result = _json(args, capsys)
    first, second = result["sides"]
    assert (first["circumstance"], first["notes"]) == (2, ["bonus +2"])
    assert (second["circumstance"], second["notes"]) == (-5, ["major-penalty -5"])
    assert (first["total"], second["total"]) == (17, 10)
    # as a check says them: `check +4 bonus vs 15` prints `bonus +2`, `"circumstance": 2`
    check = _json(["check", "+4", "bonus", "vs", "15", "-s", "mm", "--dice", "10"], capsys)
    assert (check["circumstance"], check["notes"]) == (2, ["bonus +2"])


def test_a_side_without_circumstance_words_says_none(capsys: pytest.CaptureFixture[str]) -> None:
    result = _json(["opposed", "+5", "vs", "+3", "bonus", "-s", "mm", "--dice", "10,12"], capsys)
    first, second = result["sides"]
    assert "circumstance" not in first and "notes" not in first
    assert second["circumstance"] == 2
    assert result["notes"] == ["side 2: bonus +2"]


def test_opposed_circumstance_through_the_api() -> None:
    r = d20cli.roll("opposed +5 major bonus minor penalty vs +3", system="mm", dice=[10, 12])
    assert r.sides is not None
    assert r.sides[0].detail["circumstance"] == 3
    assert r.notes == ("side 1: major-bonus +5, minor-penalty -2",)


# --- item 8: where `lucky` applies, as docs/house-rules.md says --------------------------


@pytest.mark.parametrize(
    ("system", "outcome"), [("reglamento", "favorable"), ("pendagger", "lucky")]
)
def test_lucky_rerolls_a_luck_roll_of_1(
    system: str, outcome: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["luck", "lucky", "-s", system, "--dice", "1,14"]
    assert "  1 rerolled -> 14 (lucky)" in _text(args, capsys)
    result = _json(args, capsys)
    assert (result["natural"], result["outcome"]) == (14, outcome)
    assert [(d["face"], d["kept"]) for d in result["dice"]] == [(1, False), (14, True)]
    assert result["dice"][0]["flags"] == ["rerolled"]
    assert result["house"] == {"lucky": True}
    assert result["notes"] == ["1 rerolled -> 14 (lucky)"]


def test_lucky_leaves_a_luck_roll_of_another_face(capsys: pytest.CaptureFixture[str]) -> None:
    result = _json(["luck", "lucky", "-s", "reglamento", "--dice", "2"], capsys)
    assert (result["natural"], result["outcome"], result["house"]) == (
        2,
        "unfavorable",
        {"lucky": True},
    )
    assert "notes" not in result


def test_a_lucky_luck_roll_with_advantage_and_fortune(capsys: pytest.CaptureFixture[str]) -> None:
    both = _json(["luck", "adv", "dis", "lucky", "-s", "reglamento", "--dice", "1,14"], capsys)
    assert both["notes"] == [CANCEL, "1 rerolled -> 14 (lucky)"]
    adv = _json(["luck", "adv", "lucky", "-s", "pendagger", "--dice", "1,5,12"], capsys)
    assert (adv["natural"], adv["outcome"]) == (12, "lucky")  # 12 (for the 1) beats 5
    fortune = _json(["luck", "lucky", "fortune", "-s", "pendagger", "--dice", "1,20"], capsys)
    assert fortune["notes"][:2] == ["1 rerolled -> 20 (lucky)", "20 taken as a 10: +1 fortune die"]
    assert (fortune["total"], fortune["fortune_gained"]) == (10, 1)


@pytest.mark.parametrize(
    ("system", "favourable"), [("reglamento", "favorable"), ("pendagger", "lucky")]
)
def test_the_odds_of_a_lucky_luck_roll(
    system: str, favourable: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 1 (1 in 20) is rolled again: the chance of a good face rises by a 20th of it."""
    plain = _json(["odds", "luck", "-s", system], capsys)["odds"][favourable]
    lucky = _json(["odds", "luck", "lucky", "-s", system], capsys)["odds"][favourable]
    p = Fraction(plain)
    assert Fraction(lucky) == p + p / 20
    assert d20cli.odds("luck lucky", system=system).outcomes[favourable] == p + p / 20


def test_a_default_lucky_reaches_a_luck_roll(capsys: pytest.CaptureFixture[str]) -> None:
    assert d20(["config", "set", "reglamento.lucky", "true"], capsys)[0] == 0
    result = _json(["luck", "-s", "reglamento", "--dice", "1,14"], capsys)
    assert (result["house"], result["house_from"]) == ({"lucky": True}, {"lucky": "config"})
    lines = _text(["luck", "-s", "reglamento", "--dice", "1,14"], capsys)
    assert lines[-2:] == ["  1 rerolled -> 14 (lucky)", "  house rules: lucky (from the config)"]


def test_lucky_on_a_luck_roll_through_the_api() -> None:
    r = d20cli.roll("luck lucky", system="pendagger", dice=[1, 3])
    assert (r.natural, r.outcome, r.detail["house"]) == (3, "unlucky", {"lucky": True})
    write_sheet("[pip]\nlucky = true\n")
    r = d20cli.roll("luck", system="reglamento", character="pip", dice=[1, 11])
    assert (r.natural, r.detail["house_from"]) == (11, {"lucky": "pip"})


def test_lucky_on_percent_says_why_not(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = d20(["percent", "45", "lucky", "-s", "mm", "--dice", "1"], capsys)
    assert (status, out) == (2, "")
    first, text, caret = err.splitlines()
    assert first == f"d20: error at column 12: {PERCENT_NOT_LUCKY}"
    assert "read low" in first and "best face" in first
    assert (text, caret) == ("  percent 45 lucky", "             ^")
    status, out, _ = d20(["percent", "45", "lucky", "-s", "mm", "--json"], capsys)
    assert status == 2 and json.loads(out)["kind"] == "rules"
    with pytest.raises(d20cli.RulesError, match="lucky does not apply to percent"):
        d20cli.roll("percent 45% lucky", system="mm", dice=[1])


def test_a_default_lucky_does_not_reach_percent(capsys: pytest.CaptureFixture[str]) -> None:
    assert d20(["config", "set", "mm.lucky", "true"], capsys)[0] == 0
    result = _json(["percent", "45", "-s", "mm", "--dice", "1"], capsys)
    assert (result["outcome"], "house" in result) == ("success", False)
    # while an mm check takes it
    check = _json(["check", "+1", "vs", "10", "-s", "mm", "--dice", "1,14"], capsys)
    assert check["house"] == {"lucky": True}


def test_help_and_completion_offer_lucky_on_luck(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = d20(["help", "luck"], capsys)
    assert status == 0
    assert "d20 luck ADV lucky -s reglamento" in out
    assert "d20 luck adv lucky -s pendagger" in out
    for system in ("reglamento", "pendagger"):
        assert "lucky" in get_system(system).house_words["luck"]
    assert "percent" not in get_system("mm").house_words
