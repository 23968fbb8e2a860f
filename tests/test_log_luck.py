"""`d20 log --luck` (issue 46 item 1, d20cli.store.log_luck): logged rolls priced by the
exact odds of their requests, forced dice left out, successes and outcomes against their
expected numbers, damage against expected damage, the least likely roll and streaks, per
character and per verb; worked by hand on a small log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from cli_helpers import log

from d20cli.store.state import State

AT = "2026-05-01T18:00:{:02d}.000+00:00"


def _d20(face: int, *damage: int) -> str:
    dice = [{"sides": 20, "face": face, "kept": True, "role": "d20"}]
    dice += [{"sides": 4, "face": f, "kept": True, "role": "damage"} for f in damage]
    return json.dumps(dice)


def _check(n: int, who: str | None, face: int, source: str = "random") -> tuple[Any, ...]:
    """`check +0 vs 11` rolled with this face (levelup: 1 a critical failure, 20 a
    critical success, 11 and up a success)."""
    outcome = (
        "critical_failure"
        if face == 1
        else "critical_success"
        if face == 20
        else "success"
        if face >= 11
        else "failure"
    )
    return (
        AT.format(n),
        who,
        "levelup",
        "check",
        "check +0 vs 11",
        _d20(face),
        face,
        outcome,
        source,
    )


@pytest.fixture(autouse=True)
def logged() -> Iterator[None]:
    store = State.open()
    store.rolls.add(
        [
            _check(1, "aria", 15),
            _check(2, "aria", 12),
            _check(3, "aria", 3),
            _check(4, "aria", 20),
            _check(5, "aria", 20, source="dice"),  # forced: left out
            # an attack that hits with a 3 on its d4: 3 damage
            (
                AT.format(6),
                None,
                "levelup",
                "attack",
                "attack +0 vs AC 11 dmg 1d4",
                _d20(15, 3),
                15,
                "success",
                "seed",
            ),
            # a row whose total is not what its dice give: not priced
            (
                AT.format(7),
                None,
                "levelup",
                "check",
                "check +0 vs 11",
                _d20(9),
                14,
                "success",
                "random",
            ),
        ]
    )
    store.close()
    yield


def _luck(*args: str) -> Any:
    result = log("--luck", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_luck_of_a_small_log_by_hand() -> None:
    data = _luck("--character", "aria")
    assert data["priced"] == 4 and data["forced_left_out"] == 1
    s = data["all"]["successes"]
    # four rolls at 1/2 (faces 11-20), three succeeded: P(X < 3) = 11/16, P(X = 3) = 4/16
    assert s["observed"] == 3 and s["expected"] == pytest.approx(2)
    assert s["percentile"] == pytest.approx(13 / 16)
    assert s["p_value"] == pytest.approx(10 / 16)
    assert s["said"] == "luckier than 81% of possible evenings"
    tiers = data["all"]["tiers"]
    assert tiers["critical_success"] == {"seen": 1, "expected": pytest.approx(4 / 20)}
    assert tiers["failure"] == {"seen": 1, "expected": pytest.approx(4 * 9 / 20)}
    assert data["least_likely"]["chance"] == pytest.approx(1 / 20)
    assert data["least_likely"]["outcome"] == "critical_success"
    streaks = data["all"]["streaks"]
    assert streaks["successes"]["length"] == 2 and streaks["failures"]["length"] == 1
    assert list(data["characters"]) == ["aria"]


def test_damage_against_expected_damage_by_hand() -> None:
    data = _luck()
    assert data["priced"] == 5
    assert data["left_out"] == {"not read as rolled": 1}
    damage = data["verbs"]["attack"]["damage"]
    # +0 vs AC 11: 9/20 hit for 1d4 (2.5), 1/20 critical for 2d4 (5): 1.375 expected
    assert damage["observed"] == 3
    assert damage["expected"] == pytest.approx(1.375)
    assert damage["exact"] is False
    assert set(data["verbs"]) == {"attack", "check"}
    assert set(data["characters"]) == {"", "aria"}


def test_the_luck_screen_says_it_in_words() -> None:
    result = log("--luck", "-c", "aria")
    assert result.exit_code == 0
    out = result.output
    assert out.startswith("luck of 4 logged rolls  as aria\n")
    assert "left out: 1 with forced dice (--dice)" in out
    assert "successes 3 of 4 against 2.0 expected (+1.0); p = 0.62" in out
    assert "luckier than 81% of possible evenings" in out
    assert "least likely: check +0 vs 11 (aria): Critical success, 1 in 20" in out
    assert "longest streaks: 2 successes, 1 failure in a row" in out


def test_luck_goes_alone_and_takes_the_filters() -> None:
    result = log("--luck", "--stats")
    assert result.exit_code == 2
    assert "use one of --stats, --luck" in result.output
    assert _luck("--since", "2026-05-01T18:00:03Z")["priced"] == 3  # rows 3, 4 and 6
    empty = log("--luck", "--since", "2099-01-01")
    assert empty.exit_code == 0 and "no rolls to price" in empty.output


def test_sealed_rolls_are_counted_as_verified_luck(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rolls of a sealed session are priced as any other and counted as verified luck
    (their dice come from a seed the table can check: `d20 verify`); a secret roll, whose
    request the log does not hold until it is revealed, is left out and said."""
    from typer.testing import CliRunner

    from d20cli.app.cli import app
    from tests.state_helpers import close_opened

    monkeypatch.delenv("D20_NO_LOG", raising=False)
    runner = CliRunner()
    try:
        for args in (
            ["seal"],
            ["check", "+0", "vs", "11"],
            ["check", "+0", "vs", "11"],
            ["check", "+3", "vs", "15", "--secret"],
        ):
            result = runner.invoke(app, args)
            assert result.exit_code == 0, (args, result.output)
        data = _luck()
        assert data["sealed"] == 2
        assert data["priced"] == 5 + 2
        assert sum(data["left_out"].values()) == 2  # the bad total above, the secret roll
        screen = log("--luck").output
        assert "2 of them sealed: verified luck (d20 verify)" in screen
    finally:
        close_opened()


def test_rolls_too_costly_for_exact_odds_are_priced_by_simulation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no steps for exact odds, each request is priced from SIMULATED_ROLLS seeded
    rolls of it: close to its exact odds, the same report every time, said on the
    screen; past MAX_SIMULATED requests the rest are left out and said."""
    from d20cli.probability import engine, pricing
    from d20cli.probability.memo import OddsMemo

    exact = _luck()
    monkeypatch.setattr(engine, "MEMO", OddsMemo())  # no odds computed before
    monkeypatch.setattr(pricing, "LUCK_STEPS", 1)
    data = _luck()
    assert data["priced"] == exact["priced"] == 5
    assert data["simulated"] == 5 and exact["simulated"] == 0
    assert data == _luck()  # seeded by each request: reproducible
    # 2,000 rolls: the standard error of a chance near 1/2 is 0.011; 0.05 is 4.5 of them
    s, e = data["all"]["successes"], exact["all"]["successes"]
    assert s["observed"] == e["observed"] == 4
    assert s["expected"] == pytest.approx(e["expected"], abs=5 * 0.05)
    for tier, seen in exact["all"]["tiers"].items():
        assert data["all"]["tiers"][tier]["seen"] == seen["seen"]
        assert data["all"]["tiers"][tier]["expected"] == pytest.approx(seen["expected"], abs=0.25)
    damage = data["verbs"]["attack"]["damage"]
    assert damage["expected"] == pytest.approx(1.375, abs=0.25)
    assert data["least_likely"] is None  # chosen among the rolls priced exactly
    screen = log("--luck").output
    assert (
        "5 priced by simulation (2,000 rolls of each request too costly for exact odds)" in screen
    )

    monkeypatch.setattr(pricing, "MAX_SIMULATED", 1)  # the check is simulated, the attack not
    data = _luck()
    assert data["simulated"] == 4
    assert (
        data["left_out"]["odds too costly to compute or simulate (past 1 simulated requests)"] == 1
    )


def test_a_contest_too_costly_for_exact_odds_is_simulated(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A contest of six sides has more cases than exact odds walk: its rolls are priced
    by simulation, and counted so."""
    from cli_helpers import d20

    monkeypatch.delenv("D20_NO_LOG", raising=False)
    contest = "contest +1 vs +2 vs +3 vs +4 vs +5 vs +6 -s reglamento --seed 3 -n 2 -q"
    status, _, err = d20(contest.split(), capsys)
    assert status == 0, err
    data = _luck("--system", "reglamento")
    assert (data["priced"], data["simulated"], data["left_out"]) == (2, 2, {})
    tiers = data["all"]["tiers"]
    assert sum(t["expected"] for t in tiers.values()) == pytest.approx(2)
    assert tiers["side_wins"]["seen"] == 2


def test_the_recap_is_a_few_plain_lines_to_paste() -> None:
    result = log("--luck", "--recap", "-c", "aria")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "**Luck of 4 rolls** (as aria; 1 left out)",
        "- Successes: 3 of 4 against 2.0 expected: luckier than 81% of possible evenings",
        "- Least likely: `check +0 vs 11` (aria): Critical success, 1 in 20",
        "- Longest streaks: 2 successes, 1 failure in a row",
        "- By character: aria 3/2.0, luckier than 81% of possible evenings",
    ]
    assert "\x1b" not in result.output
    whole = log("--luck", "--recap").output
    assert "- Damage: 3 dealt against 1.4 expected: " in whole
    assert "**Luck of 5 rolls** (2 left out)" in whole


def test_the_recap_escapes_what_the_log_holds() -> None:
    store = State.open()
    row = list(_check(30, "*b_o[b]* `x`\x1b[31m", 15))
    row[4] = "check +0 vs 11"
    store.rolls.add([tuple(row)])
    store.close()
    out = log("--luck", "--recap", "--since", "2026-05-01T18:00:30Z").output
    assert "\x1b" not in out
    assert "\\*b\\_o\\[b\\]\\* \\`x\\`" in out


def test_recap_goes_with_luck_and_not_with_json() -> None:
    result = log("--recap")
    assert result.exit_code == 2 and "--recap goes with --luck" in result.output
    result = log("--luck", "--recap", "--json")
    assert result.exit_code == 2 and "--recap is text to paste" in result.output
