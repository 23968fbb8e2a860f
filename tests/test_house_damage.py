"""`crit-dmg=dice|double|max` on attacks (issue 14): forced dice, the expression each mode
rolls, exact odds against brute force, expected damage under each mode, odds compare."""

from __future__ import annotations

import io
import json
from fractions import Fraction

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import RulesError
from d20cli.language.dice_grammar import parse_expression
from d20cli.language.grammar import parse_request
from d20cli.probability.engine import odds_of
from d20cli.results import Result
from d20cli.rules import get_system
from d20cli.rules.common import critical_damage
from tests.test_odds import brute_force


def run(line: str, *faces: int, system: str = "levelup") -> Result:
    roller = ForcedRoller(faces)
    result = get_system(system).resolve(parse_request(line), roller)
    roller.finish()
    return result


@pytest.mark.parametrize(
    ("expr", "mode", "rolled"),
    [
        ("1d8+4", "dice", "2d8+4"),
        ("1d8+4", None, "2d8+4"),
        ("1d8+4", "double", "(1d8+4)*2"),
        ("1d8+4", "max", "1d8+8+4"),
        ("2d6-1d4", "max", "2d6+12-1d4-4"),
        ("4d6kh3+2", "max", "4d6kh3+18+2"),
        ("1d8[slashing]+2d6[fire]", "max", "1d8[slashing]+8[slashing]+2d6[fire]+12[fire]"),
    ],
)
def test_each_mode_rolls_its_expression(expr: str, mode: str | None, rolled: str) -> None:
    assert str(critical_damage(parse_expression(expr), mode)) == rolled


def test_dice_is_the_default_and_rolls_every_dice_term_twice() -> None:
    r = run("attack +7 vs 15 dmg 1d8+4 crit-dmg=dice", 20, 3, 5)
    assert r.damage is not None and (r.damage.expression, r.damage.total) == ("2d8+4", 12)
    assert r.detail["house"] == {"crit-dmg": "dice"}
    assert run("attack +7 vs 15 dmg 1d8+4", 20, 3, 5).damage == r.damage


def test_double_doubles_the_whole_total() -> None:
    r = run("attack +7 vs 15 dmg 1d8+4 crit-dmg=double", 20, 3)
    assert r.damage is not None
    assert (r.damage.expression, r.damage.total, r.damage.critical) == ("(1d8+4)*2", 14, True)
    assert "critical: total doubled" in str(r)


def test_max_adds_the_dice_maximum_to_a_normal_roll() -> None:
    r = run("attack +7 vs 15 dmg 1d8+4 crit-dmg=max", 20, 3)
    assert r.damage is not None and (r.damage.expression, r.damage.total) == ("1d8+8+4", 15)
    assert "critical: dice at maximum" in str(r)


def test_a_mode_changes_nothing_without_a_critical() -> None:
    r = run("attack +7 vs 15 dmg 1d8+4 crit-dmg=max", 12, 3)
    assert r.damage is not None and (r.damage.expression, r.damage.total) == ("1d8+4", 7)


def test_crit_range_and_mode_together() -> None:
    r = run("attack +7 vs 15 crit 19 crit-dmg=max dmg 1d8+4", 19, 3)
    assert r.damage is not None and r.damage.total == 15
    assert r.detail["house"] == {"crit": 19, "crit-dmg": "max"}


@pytest.mark.parametrize(
    ("line", "system", "message"),
    [
        ("attack +7 vs 15 crit-dmg=max", "levelup", "crit-dmg needs damage to change"),
        ("check +7 vs 15 crit-dmg=max", "levelup", "crit-dmg (what a critical hit does"),
        ("attack +7 vs 15 crit-dmg=max dmg 1d6!", "levelup", "crit-dmg=max needs a highest"),
        ("attack +3 vs 15 dmg 1d6 crit-dmg=max", "reglamento", "reglamento never doubles"),
        ("attack +3 vs 15 crit-dmg=max", "mm", "mm attacks have no damage roll"),
        ("attempt adept crit-dmg=max", "pendagger", "pendagger attempts have no damage"),
    ],
)
def test_crit_dmg_where_it_makes_no_sense(line: str, system: str, message: str) -> None:
    with pytest.raises(RulesError) as err:
        run(line, 20, 3, system=system)
    assert err.value.message.startswith(message)
    assert err.value.column is not None


def test_an_unknown_mode_is_a_parse_error() -> None:
    from d20cli.errors import ParseError

    with pytest.raises(ParseError) as err:
        parse_request("attack +7 vs 15 dmg 1d8 crit-dmg=triple")
    assert "dice, double, max" in err.value.message


ODDS = [
    "attack +7 vs 15 dmg 1d4+1 crit-dmg=dice",
    "attack +7 vs 15 dmg 1d4+1 crit-dmg=double",
    "attack +7 vs 15 dmg 1d4+1 crit-dmg=max",
    "attack +7 vs 15 crit 18 lucky adv dmg 1d4 crit-dmg=max",
]


def brute_damage(text: str) -> Fraction:
    """The expected damage by trying every face of every die (tests/test_odds.py's walk)."""
    from brute import every_roll

    system = get_system("levelup")
    request = parse_request(text)
    mean = Fraction(0)
    for result, p in every_roll(system, request):
        mean += p * (result.damage.total if result.damage is not None else 0)
    return mean


@pytest.mark.parametrize("text", ODDS)
def test_crit_dmg_odds_equal_brute_force(text: str) -> None:
    odds = odds_of(text, "levelup")
    outcome_p, _, mass = brute_force(text, "levelup")
    assert mass == 1
    assert odds.outcomes == {k: v for k, v in outcome_p.items() if v}
    assert odds.damage_mean == brute_damage(text)


def test_odds_report_expected_damage_under_each_mode() -> None:
    odds = odds_of("attack +7 vs 15 dmg 1d8+4", "levelup")
    # hits on 8..19 (12 faces) deal 1d8+4 (8.5); a natural 20: dice 13, double 17, max 16.5
    base = Fraction(12, 20) * Fraction(17, 2)
    expected = {
        "dice": base + Fraction(1, 20) * 13,
        "double": base + Fraction(1, 20) * 17,
        "max": base + Fraction(1, 20) * Fraction(33, 2),
    }
    by_mode = odds.extra["damage_mean_by_crit_dmg"]
    assert {k: Fraction(v) for k, v in by_mode.items()} == expected
    for mode, mean in expected.items():
        assert odds_of(f"attack +7 vs 15 dmg 1d8+4 crit-dmg={mode}", "levelup").damage_mean == (
            mean
        )
        assert brute_damage(f"attack +7 vs 15 dmg 1d8+4 crit-dmg={mode}") == mean
    from d20cli.present.odds_view import odds_text

    assert "by crit-dmg: dice 5.750  double 5.950  max 5.925" in odds_text(odds)


def test_odds_compare_puts_two_modes_side_by_side() -> None:
    from cli_helpers import run_odds

    from d20cli.app.options import Options
    from d20cli.present.output import Output

    words = [
        "compare",
        "attack +7 vs 15 dmg 1d8+4 crit-dmg=dice",
        "attack +7 vs 15 dmg 1d8+4 crit-dmg=max",
    ]
    out = io.StringIO()
    assert run_odds(list(words), Options(), Output(out, io.StringIO(), False)) == 0
    row = next(line for line in out.getvalue().splitlines() if "expected damage" in line)
    assert row.split()[2:] == ["5.750", "5.925", "+0.17"]  # A, B and B - A, side by side
    out = io.StringIO()
    assert run_odds(list(words), Options(json=True), Output(out, io.StringIO(), False)) == 0
    a, b = json.loads(out.getvalue())["compare"]
    assert (Fraction(a["damage_mean"]), Fraction(b["damage_mean"])) == (
        Fraction(23, 4),
        Fraction(237, 40),
    )


def test_expected_damage_by_mode_from_remembered_means_is_the_same() -> None:
    """The mean of a damage expression is remembered (`engine._mean`, issue 43 item 3):
    a new attack with a damage seen before gets the expected damage under each mode that
    is worked out afresh, and a mode whose damage cannot be computed (crit-dmg=max of an
    endless explosion) is left out each time."""
    import d20cli
    from d20cli.probability import engine

    engine._mean.cache_clear()
    engine.MEMO.clear()  # (odds remembered would not ask for the means)
    d20cli.odds("attack +7 vs 15 dmg 1d8+4")
    remembered = d20cli.odds("attack +2 vs 13 dmg 1d8+4")
    assert engine._mean.cache_info().hits >= 4  # the damage and its modes, each seen
    engine._mean.cache_clear()
    engine.MEMO.clear()
    afresh = d20cli.odds("attack +2 vs 13 dmg 1d8+4")
    by_mode = remembered.extra["damage_mean_by_crit_dmg"]
    assert by_mode == afresh.extra["damage_mean_by_crit_dmg"]
    assert set(by_mode) == {"dice", "double", "max"}
    for text in ("attack +7 vs 15 dmg 1d6!", "attack +3 vs 12 dmg 1d6!"):
        assert set(d20cli.odds(text).extra["damage_mean_by_crit_dmg"]) == {"dice", "double"}


def test_a_batch_rolls_critical_damage_as_forced_dice_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A line of a batch works out its critical damage on a critical hit only (a line
    read once need not), and rolls what the rule says, as forced dice do; crit-dmg=max,
    which can fail, is refused before any die, on a hit or a miss alike."""
    import sys

    from tests.cli_helpers import d20

    lines = [
        "attack +7 vs AC 5 dmg 1d8+4 crit 2",  # (a critical hit on 2 to 20)
        "attack +7 vs AC 5 dmg 1d8+4 crit 2 crit-dmg=double",
        "attack +7 vs AC 5 dmg 1d8+4 crit 2",  # (again: the line as prepared)
        "attack +7 vs AC 30 dmg 1d8+4",  # (a miss: no damage)
        "attack +7 vs AC 5 dmg 1d6!+1 crit-dmg=max",
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    status, out, err = d20(["--json", "--no-log", "--seed", "3"], capsys)
    assert status == 2
    printed = [json.loads(text) for text in out.splitlines()]
    assert [p.get("request") for p in printed[:4]] == lines[:4]
    for line, shown in zip(lines[:3], printed, strict=False):
        d20s = [d["face"] for d in shown["dice"]]
        damage = [d["face"] for d in shown["damage"]["dice"]]
        forced = run(line, *d20s, *damage)
        assert forced.damage is not None and shown["damage"]["critical"] is (d20s[0] != 1)
        assert shown["damage"]["expression"] == forced.damage.expression
        assert shown["damage"]["total"] == forced.damage.total
    assert printed[0]["damage"]["expression"] == "2d8+4"
    assert printed[1]["damage"]["expression"] == "(1d8+4)*2"
    assert "damage" not in printed[3] and printed[3]["success"] is False
    assert printed[4] == {
        "error": "crit-dmg=max needs a highest total, and 1d6! has none",
        "line": 5,
        "column": 30,
        "input": lines[4],
        "kind": "rules",
    }
    assert "d20: error at line 5, column 30: crit-dmg=max needs a highest total" in err
