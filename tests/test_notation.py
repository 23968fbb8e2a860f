"""The notation of the peer dice rollers (issue 17): the Roll20 / Foundry / rpg-dice-roller
forms, each parsed, rolled, shown, in JSON and with exact odds (against icepool or a brute
force here)."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from typing import Any

import icepool
import pytest
from typer.testing import CliRunner

from d20cli.dice.distribution import distribution
from d20cli.dice.evaluate import evaluate
from d20cli.dice.roller import ForcedRoller, RandomRoller
from d20cli.dice.tree import Compare, Crit, Dice, Explode, Keep, Reroll
from d20cli.errors import BudgetError, DiceError, ParseError
from d20cli.language.dice_grammar import parse_expression

DEPTH = 10
d6, d20 = icepool.d6, icepool.d20


def P(text: str) -> Any:
    return parse_expression(text)


@pytest.mark.parametrize(
    ("text", "expected", "normal"),
    [
        ("4d6d1", Dice(4, 6, keep=Keep("dl", 1)), "4d6dl1"),
        ("4d6d", Dice(4, 6, keep=Keep("dl", 1)), "4d6dl1"),
        ("5d6d2", Dice(5, 6, keep=Keep("dl", 2)), "5d6dl2"),
        ("2d20kh", Dice(2, 20, keep=Keep("kh", 1)), "2d20kh1"),
        ("2d20kl", Dice(2, 20, keep=Keep("kl", 1)), "2d20kl1"),
        ("2d20k", Dice(2, 20, keep=Keep("kh", 1)), "2d20kh1"),
        ("4d6dh", Dice(4, 6, keep=Keep("dh", 1)), "4d6dh1"),
        ("2d6r1r2", Dice(2, 6, reroll=Reroll(Compare("=", 1), more=(Compare("=", 2),))), None),
        (
            "2d6ro1ro<3",
            Dice(2, 6, reroll=Reroll(Compare("=", 1), True, (Compare("<", 3),))),
            None,
        ),
        ("1d6!p", Dice(1, 6, explode=Explode(penetrate=True)), None),
        ("1d6!P>=5", Dice(1, 6, explode=Explode(Compare(">=", 5), penetrate=True)), "1d6!p>=5"),
        ("3d6!!p", Dice(3, 6, explode=Explode(compound=True, penetrate=True)), None),
        ("4d6s", Dice(4, 6, sort="a"), "4d6sa"),
        ("4d6sa", Dice(4, 6, sort="a"), None),
        ("4d6sd", Dice(4, 6, sort="d"), None),
        ("6d6u", Dice(6, 6, unique=True), None),
        ("1d20cs>19", Dice(1, 20, crit=Crit(Compare(">", 19))), None),
        ("1d20cf<2", Dice(1, 20, crit=Crit(None, Compare("<", 2))), None),
        ("1d20cs20cf1", Dice(1, 20, crit=Crit(Compare("=", 20), Compare("=", 1))), None),
        ("1d20cf1cs20", Dice(1, 20, crit=Crit(Compare("=", 20), Compare("=", 1))), "1d20cs20cf1"),
        (
            "8d6kh3sdcs6",
            Dice(8, 6, keep=Keep("kh", 3), sort="d", crit=Crit(Compare("=", 6))),
            "8d6kh3cs6sd",
        ),
    ],
)
def test_new_forms_parse_and_print(text: str, expected: Dice, normal: str | None) -> None:
    e = P(text)
    assert e == expected
    assert str(e) == (normal or text)
    assert P(str(e)) == e


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("7d6u", "cannot show 7 different faces: its die has only 6"),
        ("5d6r1r2u", "only 4"),
        ("6d6!u", "'u' (unique faces) cannot combine with an explosion"),
        ("6d6ro1u", "cannot combine with 'ro'"),
        ("2d6ro1r2", "cannot mix 'r' and 'ro'"),
        ("3d6uo", "'uo'"),
        ("1d20cs", "a face or compare point after 'cs'"),
        ("4d6d1d1", "already have keep/drop"),
        ("1d20cs20cs19", "already have a 'cs' marker"),
        ("4d6sasd", "already have a sort"),
        ("4d6uu", "already have 'u'"),
        ("1d6r<7r1", "reroll forever"),
    ],
)
def test_errors_name_the_difference(text: str, message: str) -> None:
    try:
        e = P(text)
    except ParseError as exc:
        assert message in exc.message
        return
    with pytest.raises(DiceError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate(e, RandomRoller(random.Random(1)))


# --- rolling ---------------------------------------------------------------------------


def roll(text: str, faces: list[int]) -> Any:
    return evaluate(P(text), ForcedRoller(faces))


def test_drop_lowest_and_counts_of_one() -> None:
    assert roll("4d6d", [2, 5, 1, 6]).total == 13
    assert roll("2d20kh", [4, 17]).total == 17
    assert roll("2d20kl", [4, 17]).total == 4


def test_chained_rerolls_reroll_on_any_point() -> None:
    t = roll("2d6r1r2", [1, 2, 5, 2, 6])
    assert t.total == 11
    assert t.faces == [1, 2, 5, 2, 6]
    assert [("rerolled" in f) for f in t.flags] == [True, True, False, True, False]


def test_penetrating_explosion_counts_extra_dice_one_less() -> None:
    t = roll("1d6!p", [6, 6, 3])
    assert t.faces == [6, 5, 2]
    assert t.total == 13
    assert t.flags == [("exploded",), ("exploded", "penetrated"), ("penetrated",)]
    assert roll("1d6!!p", [6, 6, 3]).total == 13
    assert roll("2d6!pkh1", [6, 1, 4]).total == 6  # dice 6, 0 (penetrated 1), 4


def test_sort_orders_the_dice_not_the_total() -> None:
    t = roll("4d6kh3sd", [2, 5, 1, 6])
    assert t.faces == [6, 5, 2, 1]
    assert t.kept == [True, True, True, False]
    assert t.total == 13
    assert roll("4d6sa", [2, 5, 1, 6]).faces == [1, 2, 5, 6]


def test_unique_rerolls_duplicates() -> None:
    t = roll("3d6u", [4, 4, 4, 2, 2, 6])
    assert [f for f, fl in zip(t.faces, t.flags, strict=True) if "rerolled" not in fl] == [4, 2, 6]
    assert t.total == 12
    for seed in range(50):
        t = evaluate(P("6d6u"), RandomRoller(random.Random(seed)))
        assert t.total == 21


def test_critical_markers_flag_dice_without_changing_the_total() -> None:
    t = roll("3d20cs>=19cf1", [20, 1, 7])
    assert t.total == 28
    assert t.flags == [("critical_success",), ("critical_failure",), ()]
    dropped = roll("2d20kh1cs20", [20, 20])
    assert sum("critical_success" in f for f in dropped.flags or [[]] * 2) == 1


def test_explosions_expected_past_the_budget_are_refused_before_rolling() -> None:
    roller = RandomRoller(random.Random(1))
    with pytest.raises(BudgetError, match="'500000d2!' needs more than 1,000,000 dice"):
        evaluate(P("500000d2!"), roller)
    assert roller.count == 0
    with pytest.raises(BudgetError):
        evaluate(P("1000d2!!"), RandomRoller(random.Random(1), budget=1000))


# --- exact odds ------------------------------------------------------------------------


def _probs(die: Any) -> dict[int, Fraction]:
    den = die.denominator()
    return {int(k): Fraction(int(v), den) for k, v in die.items() if v}


def _penetrating() -> Any:
    extra = (d6 - 1).explode([5], depth=DEPTH - 1)
    return d6.map(lambda x: x if x < 6 else 6 + extra)


ICEPOOL = {
    "4d6d1": lambda: d6.highest(4, 3),
    "4d6d": lambda: d6.highest(4, 3),
    "2d20kh": lambda: d20.highest(2, 1),
    "2d20kl": lambda: d20.lowest(2, 1),
    "2d6r1r2": lambda: 2 @ d6.reroll([1, 2], depth="inf"),
    "3d8r1r>7": lambda: 3 @ icepool.d8.reroll([1, 8], depth="inf"),
    "2d6ro1ro2": lambda: 2 @ d6.reroll([1, 2], depth=1),
    "1d6!p": _penetrating,
    "3d6!p": lambda: 3 @ _penetrating(),
    "2d6!!p": lambda: 2 @ _penetrating(),
    "4d6kh3sd": lambda: d6.highest(4, 3),
    "1d20cs>19cf<2+5": lambda: d20 + 5,
}


@pytest.mark.parametrize("text", list(ICEPOOL))
def test_exact_odds_match_icepool(text: str) -> None:
    assert distribution(P(text), explode_depth=DEPTH).fractions() == _probs(ICEPOOL[text]())


def test_penetrating_keep_matches_the_sum_when_everything_is_kept() -> None:
    for text in ("3d6!p", "2d4!p>=3", "3d6!p>=5"):
        whole = distribution(P(text), explode_depth=4)
        kept_all = distribution(P(text + "kh100"), explode_depth=4)
        assert whole.fractions() == kept_all.fractions()


def test_penetrating_keep_lowest_of_one_chain() -> None:
    # the lowest die of a 1d6!p chain: the face if it did not explode, else the die that
    # stopped the chain (0..4 after the penetration), or 5 when every extra die was a 6
    d = distribution(P("1d6!pkl1"), explode_depth=DEPTH)
    capped = Fraction(1, 6) ** DEPTH
    expected = {v: Fraction(1, 6) for v in range(1, 6)}
    for v in range(5):
        expected[v] = expected.get(v, Fraction(0)) + Fraction(1, 6) * (1 - capped) / 5
    expected[5] += Fraction(1, 6) * capped
    assert d.fractions() == expected


def _unique_brute(text: str, sides: int, n: int, allowed: set[int] | None = None) -> Any:
    e = P(text)
    faces = [f for f in range(1, sides + 1) if allowed is None or f in allowed]
    out: dict[int, Fraction] = {}
    combos = list(itertools.combinations(faces, n))
    for combo in combos:
        # any order of a set of different faces; evaluate one with forced faces
        total = evaluate(e, ForcedRoller(list(combo))).total
        out[total] = out.get(total, Fraction(0)) + Fraction(1, len(combos))
    return out


@pytest.mark.parametrize(
    ("text", "sides", "n", "allowed"),
    [
        ("3d6u", 6, 3, None),
        ("6d6u", 6, 6, None),
        ("4d6ukh2", 6, 4, None),
        ("4d8ukl2", 8, 4, None),
        ("3d6r1r2u", 6, 3, {3, 4, 5, 6}),
        ("4d6>=4f1u", 6, 4, None),
        ("3d6umi3ma5", 6, 3, None),
        ("3d6udh1", 6, 3, None),
    ],
)
def test_unique_odds_match_every_set_of_faces(
    text: str, sides: int, n: int, allowed: set[int] | None
) -> None:
    assert distribution(P(text)).fractions() == _unique_brute(text, sides, n, allowed)


def test_unique_odds_refuse_too_few_faces() -> None:
    with pytest.raises(DiceError, match="different faces"):
        distribution(P("(1d4+5)d6u"))


# --- the command line ------------------------------------------------------------------


def test_cli_shows_and_counts_critical_markers() -> None:
    from d20cli.app.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["roll", "3d20cs>=19cf1", "--dice", "20,1,7", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)  # (the note on cs is on stderr)
    assert data["total"] == 28
    assert data["critical_successes"] == 1
    assert data["critical_failures"] == 1
    res = runner.invoke(app, ["roll", "3d20cs>=19cf1", "--dice", "20,1,7", "--no-color"])
    assert "20cs 1cf 7" in res.output
    res = runner.invoke(app, ["roll", "1d6!p", "--dice", "6,6,3", "--no-color"])
    assert "6! 5!p 2p" in res.output and "13" in res.output
