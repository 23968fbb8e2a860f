"""Odds sweeps (issue 46, item 2): `d20 odds check +5 vs 5..30`, a check with no DC,
`d20 odds attack +7 vs AC 10..25 dmg 1d8+4`, any numeric word (`check +0..+10 vs 15`),
with `--json`, `--csv` and `-q`; compared sweeps and their break-even points. Every point
of a sweep is the odds of the request typed at that point; a sweep is bounded."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from cli_helpers import d20
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import d20cli
from d20cli.app.options import split_line
from d20cli.probability import walk
from d20cli.probability.sweep import MAX_SWEEP_POINTS, Crossing, break_even, find_range


def _json(words: str, capsys: pytest.CaptureFixture[str]) -> Any:
    status, out, err = d20(["odds", *split_line(words), "--json"], capsys)
    assert status == 0, err
    return json.loads(out)


@st.composite
def swept_requests(draw: st.DrawFn) -> str:
    """A request of a check or an attack with one of its numbers swept."""
    system = draw(st.sampled_from(["levelup", "mm", "reglamento"]))
    verb = draw(st.sampled_from(["check", "attack"] if system == "levelup" else ["check"]))
    mod = draw(st.integers(-3, 12))
    low = draw(st.integers(1, 30))
    high = low + draw(st.integers(0, 3))
    where = draw(st.sampled_from(["target", "modifier"]))
    flag = draw(st.sampled_from(["", " adv", " dis"] if system != "mm" else [""]))
    target = f"{low}..{high}" if where == "target" else str(low)
    modifier = f"{mod:+d}" if where == "target" else f"{mod:+d}..{mod + high - low:+d}"
    if verb == "attack":
        return f"attack {modifier} vs AC {target} dmg 1d8+4{flag} -s {system}"
    return f"check {modifier} vs {target}{flag} -s {system}"


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(words=swept_requests())
def test_every_point_of_a_sweep_is_the_odds_of_the_request_typed_there(
    words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    swept = _json(words, capsys)
    span = find_range(words)
    assert span is not None
    assert [p["value"] for p in swept["points"]] == list(span.values())
    for point in swept["points"]:
        typed = span.at(words, point.pop("value"))
        assert point == _json(typed, capsys)


def test_a_dc_sweep_prints_each_tier_at_every_dc(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = d20(["odds", "check", "+5", "vs", "5..30"], capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "odds check +5 vs 5..30  [levelup]"
    assert lines[1].split() == [
        *("DC", "Critical", "failure", "Failure", "Success", "Critical", "success"),
        *("Success", "or", "better"),
    ]
    assert len(lines) == 2 + 26
    # DC 15 with +5: a natural 1 fails, 2-9 fail, 10-19 succeed, a natural 20 is critical
    assert lines[2 + 10].split()[:6] == ["15", "5.00%", "40.00%", "50.00%", "5.00%", "55.00%"]
    assert "█" in lines[2 + 10]


def test_a_check_with_no_dc_is_swept_over_the_dcs_of_its_totals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = d20(["odds", "check", "+5"], capsys)
    assert status == 0
    assert out.splitlines()[0] == "odds check +5 vs 6..26  [levelup]"
    data = _json("check +5", capsys)
    assert data["request"] == "check +5 vs 6..26"
    assert [p["value"] for p in data["points"]] == list(range(6, 27))
    assert data["points"][-1]["success"] == "0/1"
    # a roll keeps its distribution: it has no DC to sweep
    assert "points" not in _json("roll 2d6", capsys)


def test_an_attack_sweep_gives_hit_critical_and_expected_damage_over_ac(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _json("attack +7 vs AC 10..25 dmg 1d8+4", capsys)
    assert data["sweep"] == {"over": "AC", "from": 10, "to": 25, "column": 17}
    at_15 = data["points"][5]
    assert at_15["value"] == 15
    assert at_15["success"] == "13/20"
    assert at_15["odds"]["critical_success"] == "1/20"
    # 12/20 hits of 8.5 and one critical of 2d8+4 = 13: (12 * 8.5 + 13) / 20
    assert Fraction(at_15["damage_mean"]) == Fraction(23, 4)
    status, out, _ = d20(["odds", *split_line("attack +7 vs AC 10..25 dmg 1d8+4")], capsys)
    assert status == 0
    head = out.splitlines()[1].split()
    assert head[0] == "AC" and head[-1] == "damage"
    assert out.splitlines()[2 + 5].split()[6] == "5.750"


def test_a_modifier_sweep_writes_each_point_with_its_sign(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = d20(["odds", "check", "+0..+10", "vs", "15", "--csv"], capsys)
    assert status == 0
    rows = out.splitlines()
    assert rows[0] == "modifier,critical_failure,failure,success,critical_success,any_success"
    assert rows[1] == "0,0.05,0.65,0.25,0.05,0.3"
    assert rows[-1] == "10,0.05,0.15,0.75,0.05,0.8"
    assert len(rows) == 12
    data = _json("check -2..+1 vs 15", capsys)
    assert [p["request"] for p in data["points"]] == [
        "check -2 vs 15",
        "check -1 vs 15",
        "check +0 vs 15",
        "check +1 vs 15",
    ]


def test_a_sweep_quietly_gives_a_line_per_point(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = d20(["odds", "-q", "check", "+5", "vs", "24..25"], capsys)
    assert status == 0
    assert out.splitlines() == [
        "24 critical_failure 0.05 failure 0.85 success 0.05 critical_success 0.05",
        "25 critical_failure 0.05 failure 0.9 success 0.0 critical_success 0.05",
    ]


@pytest.mark.parametrize(
    ("words", "said", "column"),
    [
        ("check +5 vs 30..5", "a range goes up: 30..5 is empty (write 5..30)", 13),
        ("check +0..+3 vs 5..30", "a sweep takes one range", 17),
        ("check +5 vs 1..1000", f"a sweep has at most {MAX_SWEEP_POINTS} points", 13),
        ("check +5 vs 5..8 --simulate 100", "a sweep takes exact odds", None),
        ("attempt 0..2 -s pd", "an ability score is at least 1, not 0 (at value 0)", 9),
    ],
)
def test_a_bad_sweep_is_a_one_line_error(
    words: str, said: str, column: int | None, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = d20(["odds", *split_line(words)], capsys)
    assert status == 2 and out == ""
    assert err.startswith("d20: error") and said in err.splitlines()[0]
    assert "Traceback" not in err
    if column is not None:
        assert f"column {column}:" in err


def test_a_sweep_is_refused_before_its_work_when_its_points_pass_the_budget(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walk, "COMMAND_STEPS", 60_000)
    status, _, err = d20(["odds", *split_line("attack +5 vs AC 1..200 dmg 8d6+1d4")], capsys)
    assert status == 2
    assert err.startswith("d20: error: a sweep of 200 points needs about 1,380,800 steps")
    assert "Traceback" not in err


def test_compared_sweeps_say_where_one_overtakes_the_other(
    capsys: pytest.CaptureFixture[str],
) -> None:
    a = "attack +7 vs AC 10..25 dmg 1d8+4"
    b = "attack +4 vs AC 10..25 dmg 2d6+4"
    status, out, _ = d20(["odds", "compare", a, b], capsys)
    assert status == 0
    assert "expected damage by AC" in out
    assert out.splitlines()[-2:] == [
        "  from AC 10: B leads",
        "  break-even at AC 16: A overtakes",
    ]
    data = json.loads(d20(["odds", "compare", a, b, "--json"], capsys)[1])
    assert data["break_even"] == [{"from": 10, "leader": 1}, {"from": 16, "leader": 0}]
    assert data["weighed"] == "expected damage"
    # chances compared are said in percentage points
    status, out, _ = d20(
        ["odds", "compare", "check +5 vs 10..12", "check +3 vs 10..12 adv"], capsys
    )
    assert status == 0
    assert " pp" in out.splitlines()[4]
    status, _, err = d20(["odds", "compare", "check +5 vs 10..12", "check +3 vs 10..13"], capsys)
    assert status == 2 and "the same points in every request" in err


def test_break_even_names_the_leader_from_each_change() -> None:
    a = d20cli.sweep("check +5 vs 10..25")
    b = d20cli.sweep("check +2 vs 10..25 adv")
    # by hand: at DC 10, +5 needs 5 on the d20 (16/20); +2 with advantage needs 8 on
    # either die, 1 - (7/20)^2 = 351/400: B leads. At DC 20, +5 needs 15 (6/20 = 120/400);
    # +2 adv needs 18, 1 - (17/20)^2 = 111/400: A leads from there on (at DC 19,
    # 7/20 = 140/400 against 1 - (16/20)^2 = 144/400, B still leads).
    assert a.points[0][1].success == Fraction(16, 20)
    assert b.points[0][1].success == Fraction(351, 400)
    assert a.points[10][1].success == Fraction(6, 20)
    assert b.points[10][1].success == Fraction(111, 400)
    assert b.points[9][1].success == Fraction(144, 400)
    assert break_even([a, b]) == [Crossing(10, 1), Crossing(20, 0)]
    assert break_even([a, a]) == [Crossing(10, None)]


def test_the_api_sweep_is_the_command_line_sweep(capsys: pytest.CaptureFixture[str]) -> None:
    swept = d20cli.sweep("attack +7 vs AC 14..16 dmg 1d8+4")
    assert swept.to_json() == _json("attack +7 vs AC 14..16 dmg 1d8+4", capsys)
    assert [v for v, _ in swept.points] == [14, 15, 16]
    assert swept.points[1][1] == d20cli.odds("attack +7 vs AC 15 dmg 1d8+4")
    with pytest.raises(d20cli.ParseError, match="a sweep needs a range"):
        d20cli.sweep("check +5 vs 15")
    with pytest.raises(d20cli.ParseError, match="a range goes up"):
        d20cli.sweep("check +5 vs 15..10")
