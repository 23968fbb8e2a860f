"""Several rolls on one line (`roll 1d20+5; 2d6+3`, one result each) and inline rolls in
text (`roll I hit for [[1d8+3]] and [[1d6]] fire`, the text with each roll filled in),
issue 17: parsed with columns in the whole line, rolled, shown, in JSON, within one budget."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import d20cli
from d20cli.app.cli import app
from d20cli.dice.tree import Compare
from d20cli.errors import BudgetError, D20Error, ParseError
from d20cli.language.grammar import parse_request
from d20cli.language.parse_cache import classes, decode, encode
from d20cli.results import Result

runner = CliRunner()


def test_semicolons_split_the_line_into_rolls() -> None:
    r = parse_request("roll 1d20+5 adv vs 15; 3x 2d6+3 # fire; still the comment")
    assert [p.text for p in r.parts] == [
        "roll 1d20+5 adv vs 15",
        "roll 3x 2d6+3 # fire; still the comment",
    ]
    first, second = r.parts
    assert (first.adv, first.target) == (1, Compare(">=", 15))
    assert (second.repeat, second.comment) == (3, "fire; still the comment")
    assert r.template is None
    assert decode(encode(r), classes()) == r
    assert not parse_request("roll 1d6[a;b]+1").parts  # a label's ';' does not split


def test_inline_rolls() -> None:
    r = parse_request("roll I hit for [[1d8+3]] and [[1d6[fire]]] fire")
    assert [str(p.expr) for p in r.parts] == ["1d8+3", "1d6[fire]"]
    assert r.template == ("I hit for ", " and ", " fire")
    assert decode(encode(r), classes()) == r


@pytest.mark.parametrize(
    ("line", "message", "column"),
    [
        ("roll 1d20+5;", "nothing to roll after ';'", 12),
        ("roll ; 1d6", "nothing to roll before ';'", 6),
        ("roll 1d20+5; 2d6+%", "expected a number, dice or '(', found '%'", 18),
        ("roll 1d6; 1d6 vs", "expected a target number", 17),
        ("roll I hit [[1d8+%]]", "expected a number, dice or '(', found '%'", 18),
        ("roll I hit [[1d8", "an inline roll '[[' needs its ']]'", 12),
        ("roll I hit [[]]", "expected a number, dice or '('", 14),
        ("roll " + "1d6;" * 100 + "1d6", "more than 100 rolls on one line", 405),
    ],
)
def test_errors_are_placed_in_the_whole_line(line: str, message: str, column: int) -> None:
    with pytest.raises(ParseError) as info:
        parse_request(line)
    assert message in info.value.message
    assert info.value.column == column


def test_one_result_per_roll() -> None:
    results = d20cli.roll_all("roll 1d20+5; 2x 2d6+3 vs 10", dice=[12, 1, 2, 6, 6])
    assert [(r.request, r.total, r.success) for r in results] == [
        ("roll 1d20+5", 17, None),
        ("roll 2x 2d6+3 vs 10", 6, False),
        ("roll 2x 2d6+3 vs 10", 15, True),
    ]
    assert d20cli.parse("roll 1d6; 2x 1d8").count == 3
    with pytest.raises(ParseError, match="makes 2 results"):
        d20cli.roll("roll 1d6; 1d8")


def test_the_rolls_share_one_budget() -> None:
    with pytest.raises(BudgetError):
        d20cli.roll_all("roll 600000d6; 600000d6")
    with pytest.raises(BudgetError):  # refused before rolling: `Nx` counts over the line
        d20cli.roll_all("roll 2x 300000d6; 2x 300000d6")


def test_inline_result() -> None:
    r = d20cli.roll("roll I hit for [[1d8+3]] and [[1d6]] fire", dice=[5, 4])
    assert r.detail["text"] == "I hit for 8 and 4 fire"
    assert r.detail["parts"] == [
        {
            "expression": "1d8+3",
            "total": 8,
            "dice": [{"sides": 8, "face": 5, "kept": True, "role": "roll"}],
        },
        {
            "expression": "1d6",
            "total": 4,
            "dice": [{"sides": 6, "face": 4, "kept": True, "role": "roll"}],
        },
    ]
    assert [d.face for d in r.dice] == [5, 4]
    assert r.total is None
    text = str(r)
    assert "I hit for 8 and 4 fire" in text and "1d8 (5) + 3  = 8" in text
    again = Result.from_json(r.to_json())  # read back (the last roll): still readable
    assert "I hit for 8 and 4 fire" in str(again) and "1d8+3  = 8" in str(again)


def test_cli() -> None:
    res = runner.invoke(app, ["roll", "1d20+5; 2d6+3", "--dice", "12,1,2", "--no-color"])
    assert res.exit_code == 0, res.output
    assert res.output.count("[levelup]") == 2  # a header for each roll
    assert "= 17" in res.output and "= 6" in res.output
    lines = runner.invoke(app, ["roll", "1d20+5; 2d6+3", "--dice", "12,1,2", "--json"]).output
    assert [json.loads(x)["total"] for x in lines.splitlines()] == [17, 6]
    res = runner.invoke(
        app, ["roll", "I hit for [[1d8+3]] and [[1d6]] fire", "--dice", "5,4", "--no-color"]
    )
    assert "I hit for 8 and 4 fire" in res.output
    quiet = runner.invoke(app, ["roll", "I hit for [[1d8+3]]", "--dice", "5", "-q"])
    assert quiet.output.strip() == "I hit for 8"
    fail = runner.invoke(app, ["roll", "1d6 vs 4; 1d6 vs 4", "--dice", "6,1", "--exit-status"])
    assert fail.exit_code == 1  # the worst of the line's rolls
    bad = runner.invoke(app, ["roll", "1d6; 1d6+"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_odds_ask_for_one_roll() -> None:
    with pytest.raises(D20Error, match="odds take one roll"):
        d20cli.odds("roll 1d6; 1d8")
    res = runner.invoke(app, ["odds", "roll", "1d6; 1d8"])
    assert res.exit_code == 2
