"""Pen & Dagger rules (RULES.md "pendagger"), one test per rule sentence, boundaries first."""

from __future__ import annotations

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import DiceError, RulesError
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CheckRequest, LuckRequest
from d20cli.language.vocabulary import RANK_WORDS
from d20cli.results import Result
from d20cli.rules import get_system
from d20cli.rules.pendagger import (
    RANKS,
    SUCCESS_TABLE,
    adjust_rank,
    attempt_level,
    fortune_result,
    grade_attempt,
    rank_for_score,
    row_text,
    score_modifier,
    score_plan,
    spend_fortune,
    table_level,
)


def run(line: str, *faces: int) -> Result:
    roller = ForcedRoller(faces)
    result = get_system("pendagger").resolve(parse_request(line), roller)
    roller.finish()
    return result


# --- ranks and the Success Table ---------------------------------------------------------


def test_ranks_worst_to_best_match_the_grammar() -> None:
    assert RANKS == RANK_WORDS
    assert RANKS[0] == "doomed" and RANKS[-1] == "godlike"


@pytest.mark.parametrize("rank", RANKS)
def test_every_row_covers_1_to_20_once(rank: str) -> None:
    faces = [f for span in SUCCESS_TABLE[rank] if span for f in range(span[0], span[1] + 1)]
    assert faces == list(range(1, 21))


@pytest.mark.parametrize(
    ("rank", "face", "level"),
    [
        ("adept", 4, "failure"),
        ("adept", 5, "limited_success"),
        ("adept", 14, "normal_success"),
        ("adept", 15, "major_success"),
        ("adept", 19, "critical_success"),
        ("trained", 19, "major_success"),
        ("trained", 20, "critical_success"),
        ("inept", 19, "major_success"),
        ("hopeless", 20, "major_success"),
        ("doomed", 20, "normal_success"),
        ("doomed", 10, "failure"),
        ("godlike", 1, "limited_success"),
        ("godlike", 15, "critical_success"),
        ("legendary", 1, "failure"),
        ("legendary", 16, "critical_success"),
    ],
)
def test_success_table(rank: str, face: int, level: str) -> None:
    assert table_level(rank, face) == level


def test_row_detail_uses_lo_hi_and_dash() -> None:
    assert row_text("hopeless") == {
        "failure": "1-9",
        "limited_success": "10-13",
        "normal_success": "14-19",
        "major_success": "20-20",
        "critical_success": "-",
    }
    r = run("attempt adept", 9)
    assert r.detail["rank"] == "adept"
    assert r.detail["row"]["critical_success"] == "19-20"
    assert (r.outcome, r.label, r.success) == ("normal_success", "Normal success — adept", True)


@pytest.mark.parametrize(
    ("score", "rank"),
    [
        (1, "doomed"),
        (2, "hopeless"),
        (3, "hopeless"),
        (5, "inept"),
        (6, "untrained"),
        (9, "novice"),
        (10, "trained"),
        (13, "trained"),
        (14, "adept"),
        (17, "adept"),
        (18, "master"),
        (21, "master"),
        (22, "epic"),
        (26, "legendary"),
        (29, "legendary"),
        (30, "godlike"),
        (31, "godlike"),
    ],
)
def test_ability_scores_table(score: int, rank: str) -> None:
    assert rank_for_score(score) == rank


def test_attempt_with_a_score() -> None:
    r = run("attempt 14", 19)
    assert (r.outcome, r.detail["rank"], r.detail["score"]) == ("critical_success", "adept", 14)


def test_score_below_1_is_an_error() -> None:
    with pytest.raises(RulesError) as info:
        run("attempt 0", 5)
    assert info.value.column == 9


@pytest.mark.parametrize(
    ("score", "mod"), [(1, -5), (3, -4), (9, -1), (10, 0), (11, 0), (12, 1), (31, 10)]
)
def test_score_modifier_floors(score: int, mod: int) -> None:
    assert score_modifier(score) == mod


# --- natural 1 ---------------------------------------------------------------------------


@pytest.mark.parametrize("rank", RANKS[:-2])
def test_natural_1_is_critical_failure(rank: str) -> None:
    assert run(f"attempt {rank}", 1).outcome == "critical_failure"


def test_natural_1_at_legendary_is_failure() -> None:
    r = run("attempt legendary", 1)
    assert (r.outcome, r.success) == ("failure", False)


def test_natural_1_at_godlike_is_limited_success() -> None:
    r = run("attempt godlike", 1)
    assert (r.outcome, r.success) == ("limited_success", True)


def test_natural_1_rule_uses_the_adjusted_rank() -> None:
    assert run("attempt epic +1", 1).outcome == "failure"  # legendary
    assert run("attempt legendary -1", 1).outcome == "critical_failure"  # epic


# --- rank adjustments --------------------------------------------------------------------


def test_rank_adjustment_moves_along_the_ladder() -> None:
    r = run("attempt trained +1", 15)
    assert (r.detail["rank"], r.detail["base_rank"], r.detail["rank_adjust"]) == (
        "adept",
        "trained",
        1,
    )
    assert r.outcome == "major_success"
    assert run("attempt trained -2", 15).detail["rank"] == "untrained"


def test_rank_adjustment_clamps_at_godlike_and_doomed() -> None:
    assert run("attempt legendary +3", 5).detail["rank"] == "godlike"
    assert run("attempt hopeless -5", 5).detail["rank"] == "doomed"
    assert adjust_rank("godlike", 1) == "godlike"
    assert adjust_rank("doomed", -1) == "doomed"


def test_score_with_adjustment() -> None:
    assert run("attempt 14 +1", 5).detail["rank"] == "master"


# --- reliability ---------------------------------------------------------------------------


def test_reliable_raises_one_level() -> None:
    assert run("attempt adept reliable", 4).outcome == "limited_success"
    assert run("attempt adept reliable", 18).outcome == "critical_success"


def test_reliable_critical_stays_critical() -> None:
    assert run("attempt adept reliable", 19).outcome == "critical_success"


def test_reliable_does_nothing_on_a_1() -> None:
    assert run("attempt adept reliable", 1).outcome == "critical_failure"
    assert run("attempt godlike reliable", 1).outcome == "limited_success"


def test_unreliable_lowers_one_level() -> None:
    assert run("attempt adept unreliable", 5).outcome == "failure"
    assert run("attempt adept unreliable", 4).outcome == "critical_failure"


def test_unreliable_does_nothing_on_a_20() -> None:
    assert run("attempt trained unreliable", 20).outcome == "critical_success"


def test_unreliable_critical_failure_stays() -> None:
    assert run("attempt adept unreliable", 1).outcome == "critical_failure"


def test_reliable_with_unreliable_cancel() -> None:
    for face in (5, 9, 15, 20):
        assert run("attempt adept reliable unreliable", face).outcome == table_level("adept", face)
    assert run("attempt adept reliable unreliable", 4).outcome == "failure"
    assert run("attempt adept reliable unreliable", 1).outcome == "critical_failure"


def test_order_natural_1_rule_before_unreliable() -> None:
    # legendary 1 is the table's failure, then unreliable lowers it
    assert attempt_level(1, "legendary", unreliable=True) == "critical_failure"
    assert attempt_level(1, "godlike", unreliable=True) == "failure"


def test_success_flag_from_limited_up() -> None:
    assert grade_attempt(5, "adept").success is True
    assert grade_attempt(4, "adept").success is False


# --- advantage and aliases -------------------------------------------------------------


def test_advantage_keeps_the_higher_d20() -> None:
    r = run("attempt adept adv", 3, 15)
    assert (r.natural, r.outcome) == (15, "major_success")
    assert [d.kept for d in r.dice] == [False, True]


def test_disadvantage_with_reliable() -> None:
    assert run("attempt adept dis reliable", 3, 15).outcome == "limited_success"


@pytest.mark.parametrize("verb", ["attempt", "check", "attack", "defend"])
def test_attempt_aliases(verb: str) -> None:
    r = run(f"{verb} adept", 9)
    assert (r.verb, r.outcome) == (verb, "normal_success")


# --- luck and fortune ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "outcome"), [(1, "unlucky"), (9, "unlucky"), (10, "lucky"), (20, "lucky")]
)
def test_luck_10_or_higher(face: int, outcome: str) -> None:
    assert run("luck", face).outcome == outcome


def test_attempt_fortune_takes_20_as_normal_success() -> None:
    r = run("attempt adept fortune", 20)
    assert (r.outcome, r.detail["fortune_gained"]) == ("normal_success", 1)


def test_attempt_fortune_without_20_gains_nothing() -> None:
    r = run("attempt adept fortune", 19)
    assert r.outcome == "critical_success" and "fortune_gained" not in r.detail


def test_luck_fortune_takes_20_as_10() -> None:
    r = run("luck fortune", 20)
    assert (r.outcome, r.natural, r.total, r.detail["fortune_gained"]) == ("lucky", 20, 10, 1)


def test_spend_fortune_rerolls_until_better() -> None:
    request = parse_request("attempt adept")
    assert isinstance(request, CheckRequest)
    previous = run("attempt adept", 6)  # limited success
    roller = ForcedRoller([2, 7, 9])
    r = spend_fortune(request, previous, roller)
    roller.finish()
    assert (r.natural, r.outcome) == (9, "normal_success")
    assert r.detail["fortune_spent"] == 1 and r.detail["rerolls"] == 3
    assert r.detail["previous"] == "limited_success"
    assert [(d.face, d.kept) for d in r.dice] == [(2, False), (7, False), (9, True)]
    assert r.dice[0].flags == ("rerolled",)


def test_spend_fortune_not_on_a_1() -> None:
    request = parse_request("attempt adept")
    assert isinstance(request, CheckRequest)
    with pytest.raises(RulesError, match="roll of 1"):
        spend_fortune(request, run("attempt adept", 1), ForcedRoller([]))


def test_spend_fortune_needs_a_better_level() -> None:
    request = parse_request("attempt adept")
    assert isinstance(request, CheckRequest)
    with pytest.raises(RulesError, match="no better level"):
        spend_fortune(request, run("attempt adept", 19), ForcedRoller([]))
    doomed = parse_request("attempt doomed")
    assert isinstance(doomed, CheckRequest)
    with pytest.raises(RulesError, match="no better level"):
        spend_fortune(doomed, run("attempt doomed", 15), ForcedRoller([]))


def test_spend_fortune_on_luck_until_lucky() -> None:
    request = parse_request("luck")
    assert isinstance(request, LuckRequest)
    roller = ForcedRoller([3, 12])
    r = spend_fortune(request, run("luck", 5), roller)
    assert (r.outcome, r.natural, r.detail["rerolls"]) == ("lucky", 12, 2)
    with pytest.raises(RulesError, match="already lucky"):
        spend_fortune(request, run("luck", 15), ForcedRoller([]))


def test_spend_fortune_runs_out_of_forced_faces() -> None:
    request = parse_request("attempt adept")
    assert isinstance(request, CheckRequest)
    with pytest.raises(DiceError):
        spend_fortune(request, run("attempt adept", 6), ForcedRoller([2]))


def test_fortune_result_shows_the_count() -> None:
    request = parse_request("fortune")
    r = fortune_result(request, 1)  # type: ignore[arg-type]
    assert r.detail == {"fortune": 1, "fortune_max": 2}


def test_fortune_verb_needs_the_session() -> None:
    with pytest.raises(RulesError, match="session"):
        run("fortune spend")


# --- scores --------------------------------------------------------------------------


def _who(players: int) -> list[list[str]]:
    plan = score_plan(players)
    return [[who for a, who in plan if a == ability] for ability in range(6)]


def test_scores_one_player_and_the_narrator_roll_2d6_each() -> None:
    assert _who(1) == [["player 1", "player 1", "narrator", "narrator"]] * 6


def test_scores_two_players() -> None:
    assert _who(2)[0] == ["player 1", "player 1", "player 2", "player 2"]


def test_scores_three_or_four_roll_1d6_each() -> None:
    assert _who(3)[2] == ["player 1", "player 2", "player 3", "narrator"]
    assert _who(4)[5] == ["player 1", "player 2", "player 3", "player 4"]


def test_scores_five_or_six_roll_4d6_for_one_ability() -> None:
    assert _who(5)[4] == ["player 5"] * 4
    assert _who(5)[5] == ["narrator"] * 4
    assert _who(6)[0] == ["player 1"] * 4


def test_scores_seven_split_into_two_groups() -> None:
    who = _who(7)
    assert who[0] == ["player 1", "player 2", "player 3", "player 4"]
    assert who[3] == ["player 5", "player 6", "player 7", "narrator"]
    assert all(len(w) == 4 for w in who)


def test_scores_result_drops_lowest_and_ranks() -> None:
    faces = [6, 6, 6, 1] * 6
    r = run("scores 1", *faces)
    assert r.scores is not None and len(r.scores) == 6
    s = r.scores[0]
    assert (s.ability, s.total, s.modifier, s.rank) == ("1", 18, 4, "master")
    assert [(d.face, d.kept, d.by) for d in s.dice] == [
        (6, True, "player 1"),
        (6, True, "player 1"),
        (6, True, "narrator"),
        (1, False, "narrator"),
    ]
    assert r.detail == {"players": 1, "rollers": ["player 1", "narrator"]}
    assert len(r.dice) == 24 and all(d.role == "score" for d in r.dice)


def test_scores_drop_only_one_of_equal_lowest() -> None:
    r = run("scores 4", *([3, 3, 3, 3] * 6))
    assert r.scores is not None
    assert [d.kept for d in r.scores[0].dice] == [False, True, True, True]
    assert (r.scores[0].total, r.scores[0].modifier, r.scores[0].rank) == (9, -1, "novice")


def test_scores_players_limits() -> None:
    with pytest.raises(RulesError):
        run("scores 0")
    with pytest.raises(RulesError):
        score_plan(101)


# --- what pendagger does not have ---------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "column", "words"),
    [
        ("attempt +5", 9, "rank or an ability score"),
        ("attempt", 1, "rank or an ability score"),
        ("attempt adept vs 15", 15, "no DC"),
        ("attempt adept expertise", 15, "no expertise"),
        ("attempt adept bonus", 15, "rank adjustment"),
        ("attack adept dmg 1d6", 14, "no damage"),
    ],
)
def test_words_pendagger_lacks(line: str, column: int, words: str) -> None:
    with pytest.raises(RulesError) as info:
        run(line, 10)
    assert info.value.column == column
    assert words in info.value.message


@pytest.mark.parametrize("line", ["save adept", "percent 45", "contest +1 vs +2", "resist +1 vs 5"])
def test_verbs_pendagger_lacks(line: str) -> None:
    with pytest.raises(RulesError, match="pendagger has no"):
        run(line)
