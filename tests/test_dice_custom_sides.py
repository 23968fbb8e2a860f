"""Custom faces `d{0,0,1,2}` and computed sides `1d(1d4+2)` (issue 17): parsed, rolled
(`--dice` names a custom face by its 1-based position), shown by value, in JSON, with
exact odds against icepool and a brute force, under the usual limits."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from typing import Any

import icepool
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from d20cli.app.cli import app
from d20cli.dice.distribution import distribution
from d20cli.dice.evaluate import evaluate
from d20cli.dice.roller import ForcedRoller, RandomRoller
from d20cli.dice.tree import Arithmetic, Dice, Expr, Keep, Number
from d20cli.dice.weights import TooCostly
from d20cli.errors import BudgetError, DiceError, ParseError
from d20cli.language.dice_grammar import parse_expression
from d20cli.language.parse_cache import classes, decode, encode
from tests.dice_strategies import expressions

runner = CliRunner()


def P(text: str) -> Any:
    return parse_expression(text)


@pytest.mark.parametrize(
    ("text", "expected", "normal"),
    [
        ("d{0,0,1,2}", Dice(1, (0, 0, 1, 2)), "1d{0,0,1,2}"),
        ("4d{-1,0,1}", Dice(4, (-1, 0, 1)), None),
        ("3d{1,3,5}kh2", Dice(3, (1, 3, 5), keep=Keep("kh", 2)), None),
        ("1d(1d4+2)", Dice(1, Arithmetic(Dice(1, 4), (("+", Number(2)),))), None),
        ("(1d2)d(1d4)", Dice(Dice(1, 2), Dice(1, 4)), None),
        ("2d(3)", Dice(2, Number(3)), None),
        ("2d{10,20}mi15", Dice(2, (10, 20), minimum=15), None),
    ],
)
def test_forms_parse_print_and_cache(text: str, expected: Dice, normal: str | None) -> None:
    e = P(text)
    assert e == expected
    assert str(e) == (normal or text)
    assert P(str(e)) == e
    assert decode(encode(e), classes()) == e


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("d{}", "expected a face value, found '}'", 3),
        ("d{1,2", "'}' to close the faces", 6),
        ("d{1,x}", "expected '}' to close the faces, found ',x}'", 4),
        ("1d(1d4", "expected ')'", 7),
        ("3d{1,1,2}u", "'u' (unique faces) needs custom faces that differ", 1),
        ("4d{1,2,3}u", "cannot show 4 different faces: its die has only 3", 1),
        ("d{1,2}mi3", "'mi3' is outside the die's faces 1..2", 1),
        ("d{" + ",".join(["1"] * 1001) + "}", "at most 1,000 faces, not 1,001", 2),
    ],
)
def test_errors_have_a_column(text: str, message: str, column: int) -> None:
    with pytest.raises(ParseError) as info:
        P(text)
    assert message in info.value.message
    assert info.value.column == column


def roll(text: str, faces: list[int]) -> Any:
    return evaluate(P(text), ForcedRoller(faces))


def test_custom_faces_roll_by_position_and_count_by_value() -> None:
    t = roll("3d{0,0,1,2}", [1, 3, 4])  # positions: the 1st, 3rd and 4th faces
    assert t.faces == [0, 1, 2]
    assert t.total == 3
    assert roll("4d{-1,0,1}", [1, 1, 2, 3]).total == -1
    assert roll("3d{1,3,5}kh2", [1, 3, 2]).total == 8
    assert roll("2d{0,0,1,2}>=1", [2, 4]).total == 1
    t = roll("1d{1,1,2}!", [3, 3, 1])  # 2 explodes, 1 stops
    assert t.faces == [2, 2, 1] and t.total == 5
    t = roll("2d{1,2,3}r1", [1, 2, 3])
    assert t.total == 5 and t.flags == [("rerolled",), (), ()]
    with pytest.raises(DiceError, match=r"outside 1\.\.4"):
        roll("1d{0,0,1,2}", [5])  # --dice names a position


def test_computed_sides() -> None:
    t = roll("1d(1d4+2)", [2, 3])  # 1d4 shows 2: a d4 ... +2 = a d4; it shows 3
    assert t.total == 3
    assert t.expr == Dice(1, 4)
    assert t.sides is not None and t.sides.total == 4
    assert [x.total for x in t.terms()] == [2, 3]
    t = roll("(1d2)d(1d6)", [2, 5, 4, 1])  # the count first, then the sides: 2d5
    assert t.total == 5 and t.expr.die_sides == 5
    with pytest.raises(DiceError, match="would roll a d0"):
        roll("1d(1d4-1)", [1])
    with pytest.raises(DiceError, match=r"'mi3' is outside the faces 1\.\.2"):
        roll("1d(1d2)mi3", [2])
    with pytest.raises(DiceError, match="explode forever"):
        roll("1d(1d2)!", [1])


def _probs(die: Any) -> dict[int, Fraction]:
    den = die.denominator()
    return {int(k): Fraction(int(v), den) for k, v in die.items() if v}


ICEPOOL = {
    "d{0,0,1,2}": lambda: icepool.Die([0, 0, 1, 2]),
    "4d{-1,0,1}": lambda: 4 @ icepool.Die([-1, 0, 1]),
    "3d{1,3,5}kh2": lambda: icepool.Die([1, 3, 5]).highest(3, 2),
    "4d{0,0,1,2}>=1": lambda: 4 @ (icepool.Die([0, 0, 1, 2]) >= 1),
    "2d{1,1,2}!": lambda: 2 @ icepool.Die([1, 1, 2]).explode([2], depth=10),
    "2d{1,2,3}r1": lambda: 2 @ icepool.Die([1, 2, 3]).reroll([1], depth="inf"),
    "2d{1,2,2,3}ro1": lambda: 2 @ icepool.Die([1, 2, 2, 3]).reroll([1], depth=1),
    "1d(1d4+2)": lambda: (icepool.d4 + 2).map(lambda s: icepool.Die(range(1, s + 1))),
    "2d(1d4)kh1": lambda: icepool.d4.map(lambda s: icepool.Die(range(1, s + 1)).highest(2, 1)),
}


@pytest.mark.parametrize("text", list(ICEPOOL))
def test_exact_odds_match_icepool(text: str) -> None:
    assert distribution(P(text), explode_depth=10).fractions() == _probs(ICEPOOL[text]())


def test_exact_odds_match_brute_force() -> None:
    # (1d2)d(1d3): every count and sides, then every face of every die
    counts: dict[int, Fraction] = {}
    for n, s in itertools.product((1, 2), (1, 2, 3)):
        rolls = list(itertools.product(range(1, s + 1), repeat=n))
        for faces in rolls:
            p = Fraction(1, 6 * len(rolls))
            counts[sum(faces)] = counts.get(sum(faces), Fraction(0)) + p
    assert distribution(P("(1d2)d(1d3)")).fractions() == dict(sorted(counts.items()))
    custom = {}
    for a, b in itertools.product((0, 0, 1, 2), (-1, 0, 1)):
        custom[a * b] = custom.get(a * b, Fraction(0)) + Fraction(1, 12)
    assert distribution(P("d{0,0,1,2}*d{-1,0,1}")).fractions() == dict(sorted(custom.items()))


def test_limits() -> None:
    with pytest.raises(BudgetError):
        evaluate(P("2000000d{0,1}"), RandomRoller(random.Random(1)))
    with pytest.raises(BudgetError):
        evaluate(P("500000d{1,2}!"), RandomRoller(random.Random(1)))  # refused up front
    with pytest.raises(DiceError, match="can roll a d0"):
        distribution(P("1d(1d4-1)"))
    with pytest.raises(DiceError, match="explode forever"):
        distribution(P("1d{5,5}!"))
    with pytest.raises(TooCostly):
        distribution(P("100d(1d1000)kh50"), max_states=100_000)
    with pytest.raises(ParseError, match="nest"):
        P("1d(" * 150 + "2" + ")" * 150)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions, st.integers(0, 2**32))
def test_every_rolled_total_is_in_the_exact_distribution(expr: Expr, seed: int) -> None:
    try:
        dist = distribution(expr, explode_depth=30, max_states=200_000)
    except (TooCostly, DiceError):
        return
    try:
        total = evaluate(expr, RandomRoller(random.Random(seed), budget=10_000)).total
    except (DiceError, BudgetError):
        return
    if dist.truncated == 0:
        assert total in dist.counts


def test_cli_text_and_json() -> None:
    res = runner.invoke(app, ["roll", "3d{0,0,1,2}", "--dice", "1,3,4", "--no-color"])
    assert res.exit_code == 0, res.output
    assert "3d{0,0,1,2} (0 1 2)  = 3" in res.output
    data = json.loads(runner.invoke(app, ["roll", "2d{-1,0,1}", "--dice", "1,3", "--json"]).output)
    assert [(d["sides"], d["face"], d["flags"]) for d in data["dice"]] == [
        (3, -1, ["custom"]),
        (3, 1, ["custom"]),
    ]
    res = runner.invoke(app, ["roll", "1d(1d4+2)", "--dice", "2,3", "--no-color"])
    assert "1d(1d4 (2) + 2) (3)  = 3" in res.output
    data = json.loads(runner.invoke(app, ["roll", "1d(1d4+2)", "--dice", "2,3", "--json"]).output)
    assert [(d["sides"], d["face"]) for d in data["dice"]] == [(4, 2), (4, 3)]
    odds = json.loads(runner.invoke(app, ["odds", "roll", "d{0,0,1,2}", "--json"]).output)
    assert odds["distribution"] == {"0": "1/2", "1": "1/4", "2": "1/4"}
    bad = runner.invoke(app, ["roll", "d{1,2"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
