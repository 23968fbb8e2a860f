"""Mutants & Masterminds rules (RULES.md "mm"), one test per rule sentence, boundaries first."""

from __future__ import annotations

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import RulesError
from d20cli.language.grammar import parse_request
from d20cli.language.vocabulary import CIRCUMSTANCE_WORDS, DC_WORDS
from d20cli.results import Result
from d20cli.rules import get_system
from d20cli.rules.mm import (
    CIRCUMSTANCES,
    NAMED_DCS,
    degree,
    grade_attack,
    grade_check,
    grade_opposed,
    grade_percent,
    opposed_leaders,
    raise_degree,
    tiebreak_pair,
    tiebreak_round,
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
    assert (r15.degree, r15.outcome, r15.label) == (-1, "failure", "Failure — 1 degree of failure")
    assert (r14.degree, r14.label) == (-2, "Failure — 2 degrees of failure")


def test_success_degree_label() -> None:
    r = run("check +5 vs 10", 10)
    assert (r.degree, r.outcome, r.label, r.success) == (
        2,
        "success",
        "Success — 2 degrees of success",
        True,
    )


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


def test_opposed_two_sides_carry_the_winner() -> None:
    assert run("opposed +8 vs +6", 10, 11).winner == 1
    assert run("opposed +8 vs +6", 10, 13).winner == 2
    assert run("opposed +5 vs +5", 7, 7, 11).winner == 2


# --- opposed, three or more sides -------------------------------------------------------


def roles(r: Result) -> list[tuple[int, str, str | None]]:
    return [(d.face, d.role, d.by) for d in r.dice]


def test_three_sides_highest_total_wins() -> None:
    r = run("opposed +8 vs +6 vs +4", 10, 11, 16)
    assert (r.outcome, r.label, r.winner) == ("side_wins", "Side 3 wins", 3)
    assert r.sides is not None and [s.total for s in r.sides] == [18, 17, 20]
    assert [s.success for s in r.sides] == [False, False, True]
    assert r.notes == ()
    assert run("opposed +8 vs +6 vs +4", 10, 11, 13).winner == 1
    assert run("opposed +8 vs +6 vs +4", 3, 11, 13).winner == 2


def test_three_sides_label_names_the_label_word() -> None:
    r = run("opposed hero +8 vs villain +6 bonus vs minion +4", 10, 15, 1)
    assert (r.label, r.winner) == ("Side 2 (villain) wins", 2)
    assert r.sides is not None and r.sides[1].modifier == 8  # circumstance words count


def test_three_sides_equal_totals_higher_bonus_wins() -> None:
    r = run("opposed +4 vs +8 vs +6", 14, 10, 12)
    assert (r.outcome, r.winner) == ("side_wins", 2)
    assert r.notes == ("sides 1, 2 and 3 have the highest total: the higher bonus wins",)
    r = run("opposed +4 vs +8 vs +6", 14, 10, 1)
    assert r.winner == 2 and r.notes[0].startswith("sides 1 and 2 have the highest total")
    assert len(r.dice) == 3  # no tie-break die


@pytest.mark.parametrize(("face", "winner"), [(1, 1), (10, 1), (11, 3), (20, 3)])
def test_two_of_three_tied_on_total_and_bonus_one_d20(face: int, winner: int) -> None:
    r = run("opposed +5 vs +2 vs +5", 7, 3, 7, face)
    assert (r.outcome, r.winner) == ("side_wins", winner)
    assert roles(r)[-1] == (face, "tiebreak", None)
    assert r.notes == ("sides 1 and 3 tie on total and bonus: a d20 decides "
                       "(1-10 side 1, 11-20 side 3)",)  # fmt: skip


def test_two_tied_below_a_higher_total_need_no_tiebreak() -> None:
    r = run("opposed +5 vs +2 vs +5", 7, 18, 7)
    assert r.winner == 2 and len(r.dice) == 3


def test_three_way_tie_each_rolls_a_d20_highest_wins() -> None:
    r = run("opposed +5 vs +5 vs +5", 10, 10, 10, 7, 15, 3)
    assert (r.outcome, r.label, r.winner) == ("side_wins", "Side 2 wins", 2)
    assert roles(r)[3:] == [
        (7, "tiebreak", "side 1"),
        (15, "tiebreak", "side 2"),
        (3, "tiebreak", "side 3"),
    ]
    assert r.sides is not None and [s.success for s in r.sides] == [False, True, False]
    assert r.notes == ("sides 1, 2 and 3 tie on total and bonus: each rolls a d20, "
                       "the highest wins",)  # fmt: skip


@pytest.mark.parametrize(("face", "winner"), [(10, 1), (11, 3)])
def test_three_way_tie_round_leaves_two_then_one_d20(face: int, winner: int) -> None:
    r = run("opposed +5 vs +5 vs +5", 10, 10, 10, 12, 4, 12, face)
    assert r.winner == winner
    assert roles(r)[3:] == [
        (12, "tiebreak", "side 1"),
        (4, "tiebreak", "side 2"),
        (12, "tiebreak", "side 3"),
        (face, "tiebreak", None),
    ]
    assert r.notes[-1] == "sides 1 and 3 still tie: a d20 decides (1-10 side 1, 11-20 side 3)"


def test_three_way_tie_round_of_equal_faces_is_rolled_again() -> None:
    r = run("opposed +5 vs +5 vs +5", 10, 10, 10, 8, 8, 8, 20, 20, 20, 2, 1, 3)
    assert r.winner == 3
    assert [d.face for d in r.dice][3:] == [8, 8, 8, 20, 20, 20, 2, 1, 3]
    assert [d.by for d in r.dice][3:] == ["side 1", "side 2", "side 3"] * 3


def test_four_way_tie_repeated_among_those_still_tied() -> None:
    # all four tie; a round leaves sides 1, 3 and 4; a second round among them leaves 4
    r = run("opposed +2 vs +2 vs +2 vs +2", 5, 5, 5, 5, 16, 9, 16, 16, 11, 6, 19)
    assert (r.outcome, r.winner) == ("side_wins", 4)
    assert roles(r)[4:] == [
        (16, "tiebreak", "side 1"),
        (9, "tiebreak", "side 2"),
        (16, "tiebreak", "side 3"),
        (16, "tiebreak", "side 4"),
        (11, "tiebreak", "side 1"),
        (6, "tiebreak", "side 3"),
        (19, "tiebreak", "side 4"),
    ]
    assert r.notes == (
        "sides 1, 2, 3 and 4 tie on total and bonus: each rolls a d20, the highest wins",
        "sides 1, 3 and 4 still tie: each rolls a d20, the highest wins",
    )


def test_only_the_sides_tied_for_the_lead_roll_the_tiebreak() -> None:
    # side 2 has the highest total but sides 1, 3, 4 tie on bonus below it: no tie-break
    assert len(run("opposed +3 vs +1 vs +3 vs +3", 10, 19, 10, 10).dice) == 4
    # sides 2, 3 and 4 tie for the lead; side 1 is out and rolls nothing more
    r = run("opposed +0 vs +3 vs +3 vs +3", 10, 10, 10, 10, 5, 6, 2)
    assert r.winner == 3
    assert [d.by for d in r.dice][4:] == ["side 2", "side 3", "side 4"]


def test_three_sides_naturals_have_no_effect() -> None:
    assert run("opposed +0 vs +10 vs +1", 20, 11, 1).winner == 2
    assert run("opposed +0 vs +0 vs +0", 1, 20, 20, 4).winner == 2  # 1-10: the earlier


def test_three_sides_are_never_a_tie() -> None:
    for faces in [(10, 10, 10, 5, 5, 9), (10, 10, 10, 20, 20, 1, 20)]:
        r = run("opposed +5 vs +5 vs +5", *faces)
        assert r.outcome == "side_wins" and r.winner in (1, 2, 3)


def test_d20_rounds_roll_again_while_every_die_shows_one_face() -> None:
    from d20cli.errors import DiceError

    roller = ForcedRoller([4, 4, 4, 4, 4, 4, 1, 2, 2])
    assert roller.d20_rounds(3) == ((4, 4, 4), (4, 4, 4), (1, 2, 2))
    roller.finish()
    assert ForcedRoller([7]).d20_rounds(1) == ((7,),)
    with pytest.raises(DiceError, match="needs more"):
        ForcedRoller([5, 5, 5]).d20_rounds(3)  # --dice must end the repetition


def test_too_few_forced_faces_for_a_tiebreak_is_a_clean_error() -> None:
    from d20cli.errors import DiceError

    with pytest.raises(DiceError, match="needs more"):
        run("opposed +5 vs +5 vs +5", 10, 10, 10, 9, 9, 9)


def test_pure_opposed_rules() -> None:
    assert opposed_leaders([(18, 8), (18, 6), (17, 9)]) == (1,)
    assert opposed_leaders([(18, 6), (17, 9), (18, 6)]) == (1, 3)
    assert tiebreak_round((2, 3, 5), (9, 14, 14)) == (3, 5)
    assert tiebreak_round((1, 2, 3), (4, 2, 3)) == (1,)
    assert (tiebreak_pair(10, 2, 5), tiebreak_pair(11, 2, 5)) == (2, 5)


# --- compare -------------------------------------------------------------------------


def test_compare_higher_rank_wins_without_a_roll() -> None:
    r = run("compare 8 vs 6")
    assert (r.outcome, r.dice, r.winner) == ("first_wins", (), 1)
    assert r.to_json()["winner"] == 1
    assert run("compare 6 vs 8").to_json()["winner"] == 2
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
        ("opposed +5 vs +2 vs +1 dis", 24, "circumstance words"),
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
