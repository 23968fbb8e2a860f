"""Mutants & Masterminds rules (RULES.md "mm"), one test per rule sentence, boundaries first."""

from __future__ import annotations

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import RulesError
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CIRCUMSTANCE_WORDS, DC_WORDS
from d20cli.results import Result
from d20cli.systems import get_system
from d20cli.systems.mm import (
    CIRCUMSTANCES,
    NAMED_DCS,
    degree,
    grade_attack,
    grade_check,
    grade_opposed,
    grade_percent,
    raise_degree,
)


def run(line: str, *faces: int) -> Result:
    roller = ForcedRoller(faces)
    result = get_system("mm").resolve(parse_request(line), roller)
    roller.finish()
    return result


# --- degrees -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "deg"),
    [
        (39, 4),
        (35, 4),
        (34, 3),
        (30, 3),
        (29, 2),
        (25, 2),
        (24, 1),
        (20, 1),
        (19, -1),
        (15, -1),
        (14, -2),
        (10, -2),
        (9, -3),
        (5, -3),
        (4, -4),
        (0, -4),
        (-1, -5),
    ],
)
def test_degree_table_for_dc_20(result: int, deg: int) -> None:
    assert degree(result, 20) == deg


def test_degree_is_never_zero() -> None:
    assert all(degree(r, 20) != 0 for r in range(-30, 70))


def test_result_15_and_14_vs_dc_20_through_a_check() -> None:
    r15 = run("check +5 vs 20", 10)
    r14 = run("check +4 vs 20", 10)
    assert (r15.degree, r15.outcome, r15.label) == (-1, "failure", "1 degree of failure")
    assert (r14.degree, r14.label) == (-2, "2 degrees of failure")


def test_success_degree_label() -> None:
    r = run("check +5 vs 10", 10)
    assert (r.degree, r.outcome, r.label, r.success) == (2, "success", "2 degrees of success", True)


def test_raise_degree_jumps_minus_1_to_plus_1() -> None:
    assert [raise_degree(d) for d in (-3, -2, -1, 1, 2)] == [-2, -1, 1, 2, 3]


def test_natural_20_turns_minus_1_into_critical_plus_1() -> None:
    r = run("check +0 vs 21", 20)
    assert (r.degree, r.outcome, r.success) == (1, "critical_success", True)
    assert r.label == "Critical success — 1 degree of success"


def test_natural_20_raised_degree_still_failing_is_failure() -> None:
    r = run("check +0 vs 26", 20)  # 20 vs 26: -2, raised to -1
    assert (r.degree, r.outcome, r.success) == (-1, "failure", False)


def test_natural_20_on_a_success_adds_a_degree() -> None:
    assert run("check +0 vs 20", 20).degree == 2


def test_natural_1_has_no_effect_on_ordinary_checks() -> None:
    r = run("check +20 vs 15", 1)
    assert (r.total, r.degree, r.outcome) == (21, 2, "success")


def test_no_target_is_ungraded() -> None:
    r = run("check +5", 20)
    assert (r.outcome, r.degree, r.total) == (None, None, 25)


# --- attack --------------------------------------------------------------------------


def test_attack_vs_defense_is_dc_10_plus_defense() -> None:
    r = run("attack +8 vs defense 6", 8)
    assert (r.target, r.degree, r.outcome, r.detail) == (16, 1, "success", {"defense": 6})
    assert run("attack +8 vs defense 6", 7).outcome == "failure"


def test_attack_natural_20_always_hits_at_least_plus_1() -> None:
    r = run("attack +0 vs 35", 20)  # 20 vs 35: -3 raised to -2, then at least +1
    assert (r.degree, r.outcome, r.success) == (1, "critical_success", True)
    assert r.label == "Critical hit — 1 degree of success"
    assert run("attack +10 vs 20", 20).degree == 4  # 30 vs 20 is +3, raised


def test_attack_natural_1_always_misses_at_most_minus_1() -> None:
    r = run("attack +40 vs 16", 1)
    assert (r.degree, r.outcome, r.success) == (-1, "failure", False)
    assert run("attack +0 vs 16", 1).degree == -3


def test_attack_plain_hit_label() -> None:
    assert run("attack +8 vs 16", 13).label == "Hit — 2 degrees of success"


# --- resist, named DCs, circumstances ---------------------------------------------------


def test_resist_vs_rank_is_dc_10_plus_rank() -> None:
    r = run("resist +6 vs rank 8", 12)
    assert (r.target, r.total, r.degree, r.detail) == (18, 18, 1, {"effect_rank": 8})
    assert run("resist +6 vs 18", 11).degree == -1


@pytest.mark.parametrize(("name", "dc"), list(NAMED_DCS.items()))
def test_named_dcs(name: str, dc: int) -> None:
    r = run(f"check +0 vs {name}", 10)
    assert (r.target, r.detail) == (dc, {"dc_name": name})


def test_named_dc_table_matches_the_grammar_words() -> None:
    assert tuple(NAMED_DCS) == DC_WORDS
    assert tuple(CIRCUMSTANCES) == CIRCUMSTANCE_WORDS
    assert [NAMED_DCS[w] for w in DC_WORDS] == list(range(0, 45, 5))


@pytest.mark.parametrize(
    ("words", "added"),
    [("bonus", 2), ("penalty", -2), ("major-bonus", 5), ("major-penalty", -5), ("bonus bonus", 4)],
)
def test_circumstance_words_add_to_the_modifier(words: str, added: int) -> None:
    r = run(f"check +4 vs tough {words}", 10)
    assert (r.modifier, r.total) == (4 + added, 14 + added)
    assert r.detail["circumstance"] == added


def test_tough_with_bonus() -> None:
    r = run("check +4 vs tough bonus", 9)
    assert (r.total, r.target, r.degree, r.outcome) == (15, 15, 1, "success")


# --- routine -------------------------------------------------------------------------


def test_routine_rolls_no_die() -> None:
    r = run("routine +10 vs 10")
    assert (r.natural, r.total, r.degree, r.dice) == (None, 20, 3, ())


def test_routine_plus_10_vs_20() -> None:
    r = run("routine +10 vs 20")
    assert (r.degree, r.outcome) == (1, "success")


def test_routine_with_circumstance() -> None:
    assert run("routine +0 vs 15 major-bonus").degree == 1


def test_routine_opposition_is_dc_10_plus_modifier() -> None:
    r = run("check +5 vs routine +3", 8)
    assert (r.target, r.degree, r.detail) == (13, 1, {"routine_opposition": 3})


# --- opposed ---------------------------------------------------------------------------


def test_opposed_higher_total_wins() -> None:
    r = run("opposed +8 vs +6", 10, 11)
    assert (r.outcome, r.label) == ("first_wins", "First side wins")
    assert r.sides is not None and [s.total for s in r.sides] == [18, 17]
    assert run("opposed +8 vs +6", 10, 13).outcome == "second_wins"


def test_opposed_tie_higher_bonus_wins_both_ways() -> None:
    assert run("opposed +8 vs +6", 10, 12).outcome == "first_wins"
    assert run("opposed +6 vs +8", 12, 10).outcome == "second_wins"


@pytest.mark.parametrize(
    ("face", "outcome"),
    [(1, "first_wins"), (10, "first_wins"), (11, "second_wins"), (20, "second_wins")],
)
def test_opposed_equal_bonuses_tiebreak_d20(face: int, outcome: str) -> None:
    r = run("opposed +5 vs +5", 7, 7, face)
    assert r.outcome == outcome
    assert [(d.face, d.role) for d in r.dice] == [(7, "d20"), (7, "d20"), (face, "tiebreak")]


def test_opposed_is_never_a_tie() -> None:
    assert grade_opposed(10, 5, 10, 5) is None  # the d20 decides


def test_opposed_natural_20_does_not_decide() -> None:
    assert run("opposed +0 vs +10", 20, 11).outcome == "second_wins"


# --- compare -------------------------------------------------------------------------


def test_compare_higher_rank_wins_without_a_roll() -> None:
    r = run("compare 8 vs 6")
    assert (r.outcome, r.dice) == ("first_wins", ())
    assert run("compare 6 vs 8").outcome == "second_wins"
    assert run("compare -1 vs -2").outcome == "first_wins"


@pytest.mark.parametrize(("face", "outcome"), [(10, "first_wins"), (11, "second_wins")])
def test_compare_equal_ranks_roll_a_d20(face: int, outcome: str) -> None:
    r = run("compare 8 vs 8", face)
    assert r.outcome == outcome and r.dice[0].role == "tiebreak"


# --- percent -------------------------------------------------------------------------


@pytest.mark.parametrize(("face", "ok"), [(1, True), (9, True), (10, False), (20, False)])
def test_percent_45_succeeds_on_1_to_9(face: int, ok: bool) -> None:
    r = run("percent 45", face)
    assert r.success is ok and r.outcome == ("success" if ok else "failure")


def test_percent_edges() -> None:
    assert run("percent 100", 20).success is True
    assert run("percent 0", 1).success is False
    assert run("percent 5%", 1).success is True
    assert grade_percent(2, 9).success is False
    with pytest.raises(RulesError):
        run("percent 101", 1)


def test_grade_functions_are_pure() -> None:
    assert grade_check(None, 20, 10).degree == 3
    assert grade_attack(20, 0, 100).degree == 1


# --- what mm does not have ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "column", "words"),
    [
        ("check +5 vs 15 adv", 16, "bonus (+2)"),
        ("check +5 vs 15 dis", 16, "circumstance words"),
        ("opposed +5 adv vs +2", 12, "circumstance words"),
        ("check +5 vs 15 expertise", 16, "no expertise"),
        ("check +5 vs 15 reliable", 16, "pendagger"),
        ("attack +5 vs 15 dmg 1d6", 17, "resist"),
        ("check trained", 7, "pendagger"),
    ],
)
def test_words_mm_lacks(line: str, column: int, words: str) -> None:
    with pytest.raises(RulesError) as info:
        run(line, 10)
    assert info.value.column == column
    assert words in info.value.message


def test_save_points_to_resist() -> None:
    with pytest.raises(RulesError, match="resist"):
        run("save +1 vs 10", 10)


@pytest.mark.parametrize("line", ["group +1, +2 vs 10", "contest +1 vs +2", "luck", "scores"])
def test_verbs_mm_lacks(line: str) -> None:
    with pytest.raises(RulesError, match="mm has no"):
        run(line)
