"""A target on a plain roll (issue 17): `roll 3d6 vs 12`, `roll 1d100 <= 45` succeed or
fail by the total; the exact odds give the chance of success directly (checked here
against a brute force over every roll)."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from d20cli.app.cli import app
from d20cli.dice.roller import ForcedRoller
from d20cli.dice.tree import Compare
from d20cli.errors import ParseError
from d20cli.language.dice_grammar import parse_roll
from d20cli.language.parse_cache import classes, decode, encode
from d20cli.probability.engine import odds_of
from d20cli.rules.roll import resolve_roll
from tests.dice_strategies import OPS, expressions

runner = CliRunner()


@pytest.mark.parametrize(
    ("line", "target"),
    [
        ("roll 3d6 vs 12", Compare(">=", 12)),
        ("roll 3d6 VS 12", Compare(">=", 12)),
        ("roll 1d100 <= 45", Compare("<=", 45)),
        ("roll 2d6 > 7", Compare(">", 7)),
        ("roll 2d6 = 7", Compare("=", 7)),
        ("roll 1d6-4 >= -1", Compare(">=", -1)),
        ("roll 1d20+5 adv vs 15 # to hit", Compare(">=", 15)),
        ("roll 1d20+5 vs 15 dis", Compare(">=", 15)),
        ("roll 2d6+3>=7", Compare(">=", 7)),  # not glued to dice: the total's target
    ],
)
def test_targets_parse(line: str, target: Compare) -> None:
    request = parse_roll(line)
    assert request.target == target
    assert decode(encode(request), classes()) == request  # the parse cache keeps it


def test_a_compare_glued_to_dice_stays_a_pool() -> None:
    request = parse_roll("roll 6d10>=7")
    assert request.target is None
    assert str(request.expr) == "6d10>=7"
    both = parse_roll("roll 6d10>=7 vs 3")  # successes against a target count
    assert str(both.expr) == "6d10>=7" and both.target == Compare(">=", 3)


@pytest.mark.parametrize(
    ("line", "message", "column"),
    [
        ("roll 2d6 vs", "expected a target number, found the end", 12),
        ("roll 2d6 vs 3 vs 4", "a roll takes one target", 15),
        ("roll 2d6 <= x", "expected a target number", 13),
    ],
)
def test_target_errors_have_a_column(line: str, message: str, column: int) -> None:
    with pytest.raises(ParseError) as info:
        parse_roll(line)
    assert message in info.value.message
    assert info.value.column == column


@given(expressions, st.sampled_from([op for op in OPS if op != "!="]), st.integers(-50, 50))
def test_target_lines_round_trip(expr: object, op: str, value: int) -> None:
    request = parse_roll(f"roll {expr} {op} {value}")
    assert request.expr == expr
    assert request.target == Compare(op, value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "faces", "total", "success"),
    [
        ("roll 3d6 vs 12", [6, 5, 1], 12, True),
        ("roll 3d6 vs 12", [6, 4, 1], 11, False),
        ("roll 1d100 <= 45", [45], 45, True),
        ("roll 1d100 <= 45", [46], 46, False),
        ("roll 2d6 > 7", [4, 3], 7, False),
        ("roll 1d20+5 adv vs 15", [3, 10], 15, True),
    ],
)
def test_success_by_total(line: str, faces: list[int], total: int, success: bool) -> None:
    r = resolve_roll(parse_roll(line), ForcedRoller(faces), "levelup")
    assert r.total == total
    assert r.success is success
    assert r.outcome == ("success" if success else "failure")
    assert r.label == ("Success" if success else "Failure")
    assert r.target == parse_roll(line).target.value  # type: ignore[union-attr]


def test_a_plain_roll_has_no_outcome() -> None:
    r = resolve_roll(parse_roll("roll 3d6"), ForcedRoller([1, 2, 3]), "levelup")
    assert (r.outcome, r.success, r.target) == (None, None, None)
    assert "compare" not in r.detail


def test_cli_text_json_and_exit_status() -> None:
    res = runner.invoke(app, ["roll", "3d6 vs 12", "--dice", "6,5,1", "--no-color"])
    assert res.exit_code == 0
    assert "= 12  vs 12  Success" in res.output
    res = runner.invoke(app, ["roll", "1d100", "<=", "45", "--dice", "80", "--no-color"])
    assert "= 80  <= 45  Failure" in res.output
    res = runner.invoke(app, ["roll", "1d100 <= 45", "--dice", "80", "--json"])
    data = json.loads(res.output)
    assert (data["total"], data["target"], data["outcome"], data["success"]) == (
        80,
        45,
        "failure",
        False,
    )
    assert data["compare"] == "<="
    fail = runner.invoke(app, ["roll", "1d100 <= 45", "--dice", "80", "--exit-status"])
    assert fail.exit_code == 1
    ok = runner.invoke(app, ["roll", "1d100 <= 45", "--dice", "12", "--exit-status"])
    assert ok.exit_code == 0
    bad = runner.invoke(app, ["roll", "3d6 vs"])
    assert bad.exit_code == 2
    assert "Traceback" not in bad.output


def _brute(sides: list[int], total: object) -> dict[int, Fraction]:
    counts: dict[int, int] = {}
    rolls = list(itertools.product(*(range(1, s + 1) for s in sides)))
    for faces in rolls:
        t = total(faces)  # type: ignore[operator]
        counts[t] = counts.get(t, 0) + 1
    return {t: Fraction(n, len(rolls)) for t, n in counts.items()}


@pytest.mark.parametrize(
    ("line", "sides", "total", "goal"),
    [
        ("roll 3d6 vs 12", [6, 6, 6], sum, Compare(">=", 12)),
        ("roll 1d100 <= 45", [100], sum, Compare("<=", 45)),
        ("roll 2d6 = 7", [6, 6], sum, Compare("=", 7)),
        ("roll 1d20+5 adv vs 15", [20, 20], lambda f: max(f) + 5, Compare(">=", 15)),
        ("roll 4d6kh3 > 12", [6] * 4, lambda f: sum(f) - min(f), Compare(">", 12)),
        ("roll 2d6 vs 13", [6, 6], sum, Compare(">=", 13)),
    ],
)
def test_exact_odds_against_brute_force(
    line: str, sides: list[int], total: object, goal: Compare
) -> None:
    odds = odds_of(line, "levelup")
    dist = _brute(sides, total)
    won = sum((p for t, p in dist.items() if goal.matches(t)), Fraction(0))
    assert odds.success == won
    assert odds.outcomes.get("success", Fraction(0)) == won
    assert odds.outcomes.get("failure", Fraction(0)) == 1 - won
    assert all(p for p in odds.outcomes.values())  # no outcome of probability 0 listed
    assert odds.distribution == dist
    data = odds.to_json()
    assert Fraction(data["success"]) == won


def test_odds_cli_gives_the_chance_directly() -> None:
    res = runner.invoke(app, ["odds", "roll", "3d6", "vs", "12", "--no-color"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert "Failure" in lines[1] and "62.50%" in lines[1]
    assert "Success" in lines[2] and "37.50%" in lines[2]
    data = json.loads(runner.invoke(app, ["odds", "roll", "3d6 vs 12", "--json"]).output)
    assert data["odds"] == {"failure": "5/8", "success": "3/8"}
    assert data["success"] == "3/8"
