"""Reglamento rules (RULES.md "reglamento"), one test per rule sentence, boundaries first."""

from __future__ import annotations

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import RulesError
from d20cli.language.grammar import parse_request
from d20cli.results import Result
from d20cli.systems import get_system
from d20cli.systems.reglamento import grade_check, grade_contest, grade_luck


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
