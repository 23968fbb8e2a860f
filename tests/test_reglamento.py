"""Reglamento rules (RULES.md "reglamento"), one test per rule sentence, boundaries first."""

from __future__ import annotations

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import RulesError
from d20cli.language.grammar import parse_request
from d20cli.results import Result
from d20cli.rules import get_system
from d20cli.rules.reglamento import (
    contest_leaders,
    grade_check,
    grade_contest,
    grade_contest_sides,
    grade_luck,
)


def run(line: str, *faces: int) -> Result:
    roller = ForcedRoller(faces)
    result = get_system("reglamento").resolve(parse_request(line), roller)
    roller.finish()
    return result


@pytest.mark.parametrize("verb", ["check", "save", "attack"])
def test_difficulty_exactly_met_succeeds(verb: str) -> None:
    r = run(f"{verb} +3 vs 15", 12)
    assert (r.total, r.outcome, r.label, r.success) == (15, "success", "Success", True)
    assert run(f"{verb} +3 vs 15", 11).outcome == "failure"


@pytest.mark.parametrize("verb", ["check", "save", "attack"])
def test_natural_1_always_fails_critically(verb: str) -> None:
    r = run(f"{verb} +30 vs 10", 1)
    assert (r.outcome, r.label, r.success) == ("critical_failure", "Critical failure", False)


@pytest.mark.parametrize("verb", ["check", "save", "attack"])
def test_natural_20_always_succeeds_critically(verb: str) -> None:
    r = run(f"{verb} -5 vs 40", 20)
    assert (r.outcome, r.label, r.success) == ("critical_success", "Critical success", True)


def test_natural_20_with_advantage_is_the_kept_die() -> None:
    r = run("check +0 vs 30 adv", 3, 20)
    assert r.outcome == "critical_success"
    r = run("check +0 vs 30 dis", 3, 20)
    assert (r.natural, r.outcome) == (3, "failure")


def test_no_target_is_ungraded() -> None:
    r = run("check +3", 20)
    assert (r.total, r.outcome) == (23, None)


def test_attack_damage_on_success_not_doubled() -> None:
    r = run("attack +4 vs 13 dmg 1d8+2", 20, 5)
    assert r.damage is not None
    assert (r.damage.total, r.damage.critical, r.damage.expression) == (7, False, "1d8+2")
    assert run("attack +4 vs 13 dmg 1d8+2", 2).damage is None


# --- contest -------------------------------------------------------------------------


def test_contest_higher_total_wins() -> None:
    r = run("contest +3 vs +1", 10, 11)
    assert (r.outcome, r.label) == ("first_wins", "First side wins")
    assert r.sides is not None and [s.total for s in r.sides] == [13, 12]
    assert [s.success for s in r.sides] == [True, False]
    assert run("contest +3 vs +1", 10, 13).outcome == "second_wins"


def test_contest_equal_totals_tie() -> None:
    r = run("contest +3 vs +1", 10, 12)
    assert (r.outcome, r.success) == ("tie", None)
    assert r.label is not None and "unchanged" in r.label


def test_contest_natural_20_beats_a_higher_total() -> None:
    assert run("contest +0 vs +30", 20, 19).outcome == "first_wins"
    assert run("contest +30 vs +0", 19, 20).outcome == "second_wins"


def test_contest_natural_1_loses_to_a_lower_total() -> None:
    assert run("contest +30 vs +0", 1, 2).outcome == "second_wins"
    assert run("contest -5 vs +30", 2, 1).outcome == "first_wins"


def test_contest_both_natural_20_compares_totals_and_can_tie() -> None:
    assert run("contest +1 vs +0", 20, 20).outcome == "first_wins"
    assert run("contest +0 vs +0", 20, 20).outcome == "tie"
    assert run("contest +0 vs +0", 1, 1).outcome == "tie"


def test_contest_each_side_has_its_own_advantage_in_dice_order() -> None:
    r = run("contest +3 adv vs +1 dis", 4, 15, 18, 2)
    assert r.sides is not None
    assert [s.natural for s in r.sides] == [15, 2]
    assert [d.face for d in r.dice] == [4, 15, 18, 2]
    assert r.outcome == "first_wins"


def test_grade_contest_is_pure() -> None:
    assert grade_contest(20, 20, 19, 40).outcome == "first_wins"
    assert grade_contest(5, 10, 6, 10).outcome == "tie"


def test_two_sides_carry_the_winner() -> None:
    assert run("contest +3 vs +1", 10, 11).winner == 1
    assert run("contest +3 vs +1", 10, 13).winner == 2
    assert run("contest +3 vs +1", 10, 12).winner is None


# --- contest of three or more sides ------------------------------------------------------


def test_three_sides_higher_total_wins() -> None:
    r = run("contest +1 vs +2 vs +3", 10, 10, 10)
    assert (r.outcome, r.label, r.winner) == ("side_wins", "Side 3 wins", 3)
    assert r.sides is not None and [s.total for s in r.sides] == [11, 12, 13]
    assert [s.success for s in r.sides] == [False, False, True]
    assert r.notes == ()
    assert run("contest +1 vs +2 vs +3", 15, 10, 10).winner == 1
    assert run("contest +1 vs +2 vs +3", 10, 12, 10).winner == 2


def test_side_wins_label_names_the_label_word() -> None:
    r = run("contest alice +1 vs bob +5 vs carol +2", 10, 10, 10)
    assert (r.outcome, r.label, r.winner) == ("side_wins", "Side 2 (bob) wins", 2)


def test_three_way_tie_on_totals() -> None:
    r = run("contest +1 vs +2 vs +3", 12, 11, 10)
    assert (r.outcome, r.winner, r.success) == ("tie", None, None)
    assert r.label is not None and "unchanged" in r.label
    assert r.sides is not None and [s.success for s in r.sides] == [None, None, None]
    assert r.notes == ("sides 1, 2 and 3 share the best roll",)


def test_two_of_three_share_the_best_total_is_a_tie() -> None:
    r = run("contest +1 vs +0 vs +3", 12, 2, 10)
    assert (r.outcome, r.winner) == ("tie", None)
    assert r.notes == ("sides 1 and 3 share the best roll",)
    # the lower sides sharing a total decide nothing
    assert run("contest +1 vs +0 vs +0", 15, 5, 5).winner == 1


def test_natural_20_beats_higher_totals_of_every_other_side() -> None:
    r = run("contest +0 vs +30 vs +25", 20, 19, 19)
    assert (r.outcome, r.winner) == ("side_wins", 1)
    assert run("contest +30 vs +0 vs +25", 19, 20, 19).winner == 2


def test_natural_20_against_natural_20_compares_totals() -> None:
    assert run("contest +1 vs +0 vs +30", 20, 20, 19).winner == 1
    assert run("contest +0 vs +1 vs +30", 20, 20, 19).winner == 2
    r = run("contest +0 vs +0 vs +30", 20, 20, 19)
    assert (r.outcome, r.winner) == ("tie", None)
    assert r.notes == ("sides 1 and 2 share the best roll",)
    assert run("contest +0 vs +0 vs +0", 20, 20, 20).outcome == "tie"


def test_natural_1_on_several_sides() -> None:
    # both sides with a natural 1 lose to the side without one, whatever the totals
    r = run("contest +30 vs +29 vs -5", 1, 1, 2)
    assert (r.outcome, r.winner) == ("side_wins", 3)
    # among sides that all rolled a natural 1, the higher total wins
    assert run("contest +3 vs +2 vs +1", 1, 1, 1).winner == 1
    assert run("contest +1 vs +3 vs +3", 1, 1, 1).outcome == "tie"
    # a natural 1 still loses to a natural 20 and to any other roll
    assert run("contest +30 vs +0 vs +0", 1, 20, 1).winner == 2
    assert run("contest +30 vs -9 vs +30", 1, 2, 1).winner == 2


def test_four_sides_each_with_its_own_advantage_in_dice_order() -> None:
    r = run("contest +3 adv vs +1 dis vs +0 vs -1 adv dis", 4, 15, 18, 2, 9, 17)
    assert r.sides is not None
    assert [s.natural for s in r.sides] == [15, 2, 9, 17]
    assert [d.face for d in r.dice] == [4, 15, 18, 2, 9, 17]
    assert [d.kept for d in r.dice] == [False, True, False, True, True, True]
    assert [s.total for s in r.sides] == [18, 3, 9, 16]  # adv and dis cancel on side 4
    assert (r.outcome, r.winner) == ("side_wins", 1)


def test_grade_contest_sides_is_pure() -> None:
    assert contest_leaders([(10, 15), (20, 5), (20, 5)]) == (2, 3)
    assert contest_leaders([(1, 40), (2, 3), (1, 50)]) == (2,)
    assert grade_contest_sides([(5, 10), (6, 10)]).outcome == "tie"
    grade = grade_contest_sides([(5, 10), (6, 12), (7, 11)], [None, "bob", None])
    assert (grade.outcome, grade.label, grade.winner) == ("side_wins", "Side 2 (bob) wins", 2)
    two = grade_contest_sides([(5, 12), (6, 10)])
    assert (two.outcome, two.label, two.winner) == ("first_wins", "First side wins", 1)


# --- luck ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "outcome"),
    [(1, "unfavorable"), (10, "unfavorable"), (11, "favorable"), (20, "favorable")],
)
def test_luck_1_to_10_unfavorable_11_to_20_favorable(face: int, outcome: str) -> None:
    r = run("luck", face)
    assert r.outcome == outcome and r.dice[0].role == "luck"
    assert grade_luck(face).outcome == outcome


def test_grade_check_is_pure() -> None:
    assert grade_check(1, 100, 5).outcome == "critical_failure"
    assert grade_check(20, -5, 40).outcome == "critical_success"


# --- what reglamento does not have ------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "column", "words"),
    [
        ("check +3 vs 15 expertise", 16, "no expertise"),
        ("check +3 vs tough", 10, "numbers"),
        ("check +3 major-bonus", 10, "circumstance"),
        ("check +3 reliable", 10, "pendagger"),
        ("contest +3 vs +1 expertise", 18, "no expertise"),
        ("contest +3 vs +1 vs +2 expertise", 24, "no expertise"),
        ("contest +3 vs +1 vs +2 bonus vs +0", 24, "circumstance"),
        ("luck fortune", 6, "pendagger"),
    ],
)
def test_words_reglamento_lacks(line: str, column: int, words: str) -> None:
    with pytest.raises(RulesError) as info:
        run(line, 10)
    assert info.value.column == column
    assert words in info.value.message


@pytest.mark.parametrize(
    "line", ["group +1, +2 vs 10", "opposed +1 vs +2", "percent 50", "attempt adept", "scores"]
)
def test_verbs_reglamento_lacks(line: str) -> None:
    with pytest.raises(RulesError, match="reglamento has no"):
        run(line)
