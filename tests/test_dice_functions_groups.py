"""Functions over expressions (`max(1d6,1d8)`, `floor(1d6/2)`) and groups (`{4d6,3d8}kh1`,
`{3d6,2d10}>=10`), issue 17: parsed, rolled, shown, in JSON, with exact odds checked
against icepool and a brute force, under the same limits as every other form."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool
import pytest
from typer.testing import CliRunner

from d20cli.app.cli import app
from d20cli.dice.distribution import distribution
from d20cli.dice.evaluate import evaluate
from d20cli.dice.roller import ForcedRoller, RandomRoller
from d20cli.dice.tree import Call, Compare, Dice, Group, Keep, Number, Pool
from d20cli.dice.weights import TooCostly
from d20cli.errors import BudgetError, DiceError, ParseError
from d20cli.language.dice_grammar import parse_expression
from d20cli.language.parse_cache import classes, decode, encode
from d20cli.rules.common import double_dice

runner = CliRunner()
d6, d8 = icepool.d6, icepool.d8


def P(text: str) -> Any:
    return parse_expression(text)


@pytest.mark.parametrize(
    ("text", "expected", "normal"),
    [
        ("max(1d6,1d8)", Call("max", (Dice(1, 6), Dice(1, 8))), None),
        ("MAX(1d6, 1d8, 3)", Call("max", (Dice(1, 6), Dice(1, 8), Number(3))), "max(1d6,1d8,3)"),
        ("min(2d6)", Call("min", (Dice(2, 6),)), None),
        ("abs(1d6-4)", None, None),
        ("floor(1d6/2)", None, None),
        ("ceil(1d6/2)+1", None, None),
        ("round((1d6+1)/4)", None, None),
        ("{4d6, 3d8}kh1", Group((Dice(4, 6), Dice(3, 8)), Keep("kh", 1)), "{4d6,3d8}kh1"),
        ("{4d6,3d8}k", Group((Dice(4, 6), Dice(3, 8)), Keep("kh", 1)), "{4d6,3d8}kh1"),
        ("{4d6,3d8}d", Group((Dice(4, 6), Dice(3, 8)), Keep("dl", 1)), "{4d6,3d8}dl1"),
        ("{3d6,2d10}>=10", Group((Dice(3, 6), Dice(2, 10)), pool=Pool(Compare(">=", 10))), None),
        ("{1d20+5,1d20+2}>=15f<8", None, None),
        ("{1d6}", Group((Dice(1, 6),)), None),
        ("2*{1d6,1d8}kl1-max(1,2)", None, None),
        ("(max(1d4,2))d6", None, None),
    ],
)
def test_forms_parse_print_and_cache(text: str, expected: Any, normal: str | None) -> None:
    e = P(text)
    if expected is not None:
        assert e == expected
    assert str(e) == (normal or text)
    assert P(str(e)) == e
    assert decode(encode(e), classes()) == e  # the parse cache's registry knows them


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("abs(1d6,2)", "abs() takes one argument, not 2", 1),
        ("max()", "expected a number, dice or '('", 5),
        ("max(1d6", "expected ')'", 8),
        ("{}", "expected a number, dice or '('", 2),
        ("{1d6,2d6", "'}' to close the group", 9),
        ("{4d6+1d8}>3", "a group of one expression with keep/drop or a target", 1),
        ("{1d6,1d8}kh1kl1", "the group already has keep/drop", 13),
        ("{1d6,1d8}>=3>=4", "the group already has a pool target", 13),
        ("sqrt(4)", "expected a number, dice or '(', found 'sqrt(4)'", 1),
    ],
)
def test_errors_have_a_column(text: str, message: str, column: int) -> None:
    with pytest.raises(ParseError) as info:
        P(text)
    assert message in info.value.message
    assert info.value.column == column


def roll(text: str, faces: list[int]) -> Any:
    return evaluate(P(text), ForcedRoller(faces))


def test_rolling() -> None:
    assert roll("max(1d6,1d8)", [3, 7]).total == 7
    assert roll("min(1d6,1d8)", [3, 7]).total == 3
    assert roll("abs(1d6-4)", [1]).total == 3
    assert roll("floor(1d6/2)", [5]).total == 2
    assert roll("1d6/2", [5]).total == 2  # floor division stays the default
    assert roll("ceil(1d6/2)", [5]).total == 3
    assert roll("round(1d6/2)", [5]).total == 3  # half up
    assert roll("round(1d6/4)", [5]).total == 1
    assert roll("round(5/2)", []).total == 3  # half up, as Math.round
    with pytest.raises(ParseError, match="negative half"):  # peers round -5/2 apart
        roll("round(-5/2)", [])
    assert roll("ceil(-1d6/4)", [5]).total == -1
    assert roll("ceil(1d6/2+1/2)", [4]).total == 3  # the whole argument is exact
    assert roll("{4d6,3d8}kh1", [1, 2, 3, 4, 8, 8, 1]).total == 17
    assert roll("{4d6,3d8}kl1", [1, 2, 3, 4, 8, 8, 1]).total == 10
    assert roll("{1d6,1d6}kh1", [4, 4]).total == 4
    group = roll("{3d6,2d10,1d20}>=10", [6, 6, 1, 1, 9, 2])
    assert group.total == 2  # 13 and 10 succeed, 1 does not
    assert group.marks == ("success", "success", "")
    assert roll("{1d20+5,1d20+2}>=15f<8", [12, 3]).total == 0  # 17 a success, 5 a failure
    assert roll("{1d6,1d8}", [3, 7]).total == 10


def test_group_marks_and_kept() -> None:
    g = roll("{3d6,2d10,1d20}>=10kh2", [6, 6, 1, 1, 9, 2])
    assert [x.total for x in g.items] == [13, 10, 2]
    assert g.kept == (True, True, False)
    assert g.marks == ("success", "success", "")
    assert g.total == 2


def _probs(die: Any) -> dict[int, Fraction]:
    den = die.denominator()
    return {int(k): Fraction(int(v), den) for k, v in die.items() if v}


ICEPOOL: dict[str, Callable[[], Any]] = {
    "max(1d6,1d8)": lambda: icepool.highest(d6, d8),
    "min(1d6,1d8,1d4)": lambda: icepool.lowest(d6, d8, icepool.d4),
    "{4d6,3d8}kh1": lambda: icepool.highest(4 @ d6, 3 @ d8),
    "{4d6,3d8}kl1": lambda: icepool.lowest(4 @ d6, 3 @ d8),
    "{2d6,2d6,1d12}kh2": lambda: icepool.Pool([2 @ d6, 2 @ d6, icepool.d12]).highest(2).sum(),
    "{1d20,1d20}dl1+5": lambda: d20h() + 5,
    "abs(1d6-1d6)": lambda: (d6 - d6).map(abs),
    "{3d6,2d10}>=10": lambda: (3 @ d6 >= 10) + (2 @ icepool.d10 >= 10),
    "max(1d6!,3)": lambda: icepool.highest(d6.explode(depth=10), 3),
}


def d20h() -> Any:
    return icepool.d20.highest(2, 1)


@pytest.mark.parametrize("text", list(ICEPOOL))
def test_exact_odds_match_icepool(text: str) -> None:
    assert distribution(P(text), explode_depth=10).fractions() == _probs(ICEPOOL[text]())


def _brute(sides: list[int], value: Callable[..., Fraction | int]) -> dict[int, Fraction]:
    counts: dict[int, int] = {}
    rolls = list(itertools.product(*(range(1, s + 1) for s in sides)))
    for faces in rolls:
        v = int(value(*faces))
        counts[v] = counts.get(v, 0) + 1
    return {t: Fraction(n, len(rolls)) for t, n in sorted(counts.items())}


BRUTE: dict[str, tuple[list[int], Callable[..., Any]]] = {
    "floor(1d6/2)": ([6], lambda a: a // 2),
    "ceil(1d6/2)": ([6], lambda a: math.ceil(Fraction(a, 2))),
    "round(1d6/4)": ([6], lambda a: math.floor(Fraction(a, 4) + Fraction(1, 2))),
    "ceil((1d6+1d4)/3)": ([6, 4], lambda a, b: math.ceil(Fraction(a + b, 3))),
    "round(1d8/2+1d4/4)": (
        [8, 4],
        lambda a, b: math.floor(Fraction(a, 2) + Fraction(b, 4) + Fraction(1, 2)),
    ),
    "ceil(-1d6/4)": ([6], lambda a: math.ceil(Fraction(-a, 4))),
    "{1d20+5,1d20+2}>=15f<8": (
        [20, 20],
        lambda a, b: sum(1 if t >= 15 else -1 if t < 8 else 0 for t in (a + 5, b + 2)),
    ),
    "{1d6,1d8,1d4}>=4kh2": (
        [6, 8, 4],
        lambda a, b, c: sum(1 for t in sorted((a, b, c))[1:] if t >= 4),
    ),
    "(max(1d2,1d3))d4": (
        [2, 3, 4, 4, 4],
        lambda a, b, *d: sum(d[: max(a, b)]),
    ),
}


@pytest.mark.parametrize("text", list(BRUTE))
def test_exact_odds_match_brute_force(text: str) -> None:
    sides, value = BRUTE[text]
    assert distribution(P(text)).fractions() == _brute(sides, value)


def test_limits() -> None:
    with pytest.raises(BudgetError):  # the budget counts every die of every expression
        evaluate(P("{600000d6,600000d6}kh1"), RandomRoller(random.Random(1)))
    with pytest.raises(DiceError, match="explode forever"):
        evaluate(P("max(1d6,1d1!)"), RandomRoller(random.Random(1)))
    with pytest.raises(DiceError, match="division by zero"):
        distribution(P("ceil(10/(1d4-1))"))
    with pytest.raises(DiceError, match="division by zero"):
        evaluate(P("ceil(10/(1d4-1))"), ForcedRoller([1]))
    with pytest.raises(TooCostly):
        distribution(P("{" + ",".join(["1d100"] * 3 + ["2d100", "3d100"] * 3) + "}kh4"), 10, 10_000)
    with pytest.raises(ParseError, match="nest"):  # depth: a ParseError, never a RecursionError
        P("max(" * 150 + "1" + ")" * 150)
    with pytest.raises(ParseError, match="nest"):
        P("{" * 150 + "1" + "}" * 150)
    d = distribution(P("{1d6!,1d6!}kh1"), explode_depth=3)
    assert d.truncated > 0  # an explosion's cut mass is reported as for any term


def test_a_critical_doubles_the_dice_inside() -> None:
    assert str(double_dice(P("max(1d6,1d8)+3"))) == "max(2d6,2d8)+3"
    assert str(double_dice(P("{1d6,1d8}kh1"))) == "{2d6,2d8}kh1"


def test_cli_text_and_json() -> None:
    res = runner.invoke(app, ["roll", "{4d6, 3d8}kh1", "--dice", "1,2,3,4,8,8,1", "--no-color"])
    assert res.exit_code == 0, res.output
    assert "{~4d6 (1 2 3 4) = 10~, 3d8 (8 8 1) = 17}kh1  = 17" in res.output
    res = runner.invoke(app, ["roll", "{4d6,3d8}kh1", "--dice", "1,2,3,4,8,8,1", "--json"])
    data = json.loads(res.output)
    assert data["total"] == 17
    assert [d["kept"] for d in data["dice"]] == [False] * 4 + [True] * 3
    assert data["groups"] == [
        {"expression": "{4d6,3d8}kh1", "totals": [10, 17], "kept": [False, True]}
    ]
    res = runner.invoke(app, ["roll", "{3d6,1d20}>=10", "--dice", "6,6,1,4", "--json"])
    assert json.loads(res.output)["groups"][0]["marks"] == ["success", ""]
    res = runner.invoke(app, ["roll", "max(1d6,1d8)", "--dice", "3,7", "--no-color"])
    assert "max(1d6 (3), 1d8 (7))  = 7" in res.output
    res = runner.invoke(app, ["roll", "floor(1d6/2) vs 2", "--dice", "5", "--no-color"])
    assert "floor(1d6 (5) / 2)  = 2  vs 2  Success" in res.output
    odds = runner.invoke(app, ["odds", "roll", "ceil(1d6/2)", "--json"])
    assert json.loads(odds.output)["distribution"] == {"1": "1/3", "2": "1/3", "3": "1/3"}
    bad = runner.invoke(app, ["roll", "abs(1,2)"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
