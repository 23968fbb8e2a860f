"""Level Up rules (RULES.md "levelup"), one test per rule sentence, boundaries first."""

from __future__ import annotations

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import RulesError
from d20cli.language.grammar import parse_request
from d20cli.results import Result
from d20cli.rules import get_system
from d20cli.rules.levelup import (
    expertise_size,
    grade_attack,
    grade_check,
    grade_group,
    grade_save,
)


def run(line: str, *faces: int) -> Result:
    roller = ForcedRoller(faces)
    result = get_system("levelup").resolve(parse_request(line), roller)
    roller.finish()  # every face was used
    return result


# --- check ---------------------------------------------------------------------------


def test_check_dc_exactly_met_succeeds() -> None:
    r = run("check +5 vs 15", 10)
    assert (r.natural, r.modifier, r.total, r.target) == (10, 5, 15, 15)
    assert (r.outcome, r.label, r.success, r.degree) == ("success", "Success", True, None)


def test_check_one_below_dc_fails() -> None:
    r = run("check +5 vs 15", 9)
    assert (r.outcome, r.success) == ("failure", False)


def test_check_natural_20_below_dc_is_plain_failure() -> None:
    r = run("check +0 vs 25", 20)
    assert (r.outcome, r.label, r.success) == ("failure", "Failure", False)
    assert r.notes == ("natural 20 below the DC: a plain failure",)


def test_check_natural_20_that_succeeds_is_critical() -> None:
    r = run("check +0 vs 20", 20)
    assert (r.outcome, r.label) == ("critical_success", "Critical success")


def test_check_natural_1_meeting_dc_is_plain_success() -> None:
    r = run("check +14 vs 15", 1)
    assert (r.outcome, r.success) == ("success", True)
    assert "natural 1 meeting the DC" in r.notes[0]


def test_check_natural_1_that_fails_is_critical_failure() -> None:
    r = run("check +13 vs 15", 1)
    assert (r.outcome, r.label, r.success) == ("critical_failure", "Critical failure", False)


def test_check_without_target_has_null_outcome() -> None:
    r = run("check +5", 20)
    assert (r.natural, r.total, r.target) == (20, 25, None)
    assert (r.outcome, r.label, r.success) == (None, None, None)


def test_label_word_is_the_result_name() -> None:
    assert run("check stealth +7 vs 15", 8).name == "stealth"


# --- save ----------------------------------------------------------------------------


def test_save_natural_20_below_dc_is_critical_save() -> None:
    r = run("save -1 vs 30", 20)
    assert (r.outcome, r.label, r.success) == ("critical_success", "Critical save", True)


def test_save_natural_1_above_dc_is_plain_failure() -> None:
    r = run("save +20 vs 5", 1)
    assert (r.outcome, r.label, r.success) == ("failure", "Failure", False)


def test_save_dc_exactly_met() -> None:
    assert run("save -1 vs 12", 13).outcome == "success"
    assert run("save -1 vs 12", 12).outcome == "failure"


# --- attack --------------------------------------------------------------------------


def test_attack_natural_20_always_hits_critically() -> None:
    r = run("attack +0 vs 30", 20)
    assert (r.outcome, r.label, r.success) == ("critical_success", "Critical hit", True)


def test_attack_natural_1_always_misses_as_fumble() -> None:
    r = run("attack +30 vs 10", 1)
    assert (r.outcome, r.label, r.success) == ("critical_failure", "Fumble", False)


def test_attack_hit_and_miss_by_total() -> None:
    assert (run("attack +7 vs 15", 8).outcome, run("attack +7 vs 15", 8).label) == (
        "success",
        "Hit",
    )
    r = run("attack +7 vs 15", 7)
    assert (r.outcome, r.label) == ("failure", "Miss")


def test_damage_on_a_hit_once() -> None:
    r = run("attack +7 vs 15 dmg 1d8+4", 8, 5)
    assert r.damage is not None
    assert (r.damage.total, r.damage.critical, r.damage.expression) == (9, False, "1d8+4")
    assert [d.role for d in r.damage.dice] == ["damage"]


def test_critical_hit_doubles_dice_not_modifiers() -> None:
    r = run("attack +7 vs 15 dmg 1d8+4", 20, 5, 6)
    assert r.damage is not None
    assert (r.damage.total, r.damage.critical, r.damage.expression) == (15, True, "2d8+4")


def test_critical_hit_doubles_every_dice_term() -> None:
    r = run("attack +7 vs 15 dmg 2d6+1d4+3", 20, 1, 1, 1, 1, 1, 1)
    assert r.damage is not None
    assert r.damage.expression == "4d6+2d4+3"
    assert r.damage.total == 9


def test_miss_and_fumble_roll_no_damage() -> None:
    assert run("attack +7 vs 15 dmg 1d8+4", 2).damage is None
    assert run("attack +30 vs 15 dmg 1d8+4", 1).damage is None


# --- advantage -----------------------------------------------------------------------


def test_advantage_keeps_higher_and_marks_dropped() -> None:
    r = run("check +5 vs 15 adv", 4, 17)
    assert r.natural == 17
    assert [(d.face, d.kept, d.role) for d in r.dice] == [(4, False, "d20"), (17, True, "d20")]


def test_disadvantage_keeps_lower() -> None:
    assert run("save -1 vs 12 dis", 4, 17).natural == 4


def test_advantage_and_disadvantage_cancel_whatever_the_count() -> None:
    r = run("check +0 vs 10 adv adv dis", 12)
    assert len(r.dice) == 1 and r.natural == 12


def test_several_advantages_are_one() -> None:
    assert len(run("check +0 adv adv", 3, 9).dice) == 2


# --- expertise -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grants", "size"),
    [
        ((4,), 4),
        ((6,), 6),
        ((8,), 8),
        ((4, 4), 6),
        ((4, 4, 4), 8),
        ((4, 4, 4, 4), 8),
        ((6, 4), 8),
        ((8, 4), 8),
        ((), None),
    ],
)
def test_expertise_steps_d4_d6_d8_and_caps(grants: tuple[int, ...], size: int | None) -> None:
    assert expertise_size(grants) == size


def test_expertise_other_size_is_an_error() -> None:
    with pytest.raises(RulesError):
        expertise_size((10,))


def test_expertise_die_adds_and_never_changes_natural() -> None:
    r = run("check +5 vs 15 expertise", 9, 4)
    assert (r.natural, r.modifier, r.total, r.outcome) == (9, 9, 18, "success")
    assert r.dice[1].role == "expertise" and r.dice[1].sides == 4
    assert r.detail == {"expertise": "d4"}


def test_stepped_expertise_rolls_one_die() -> None:
    r = run("check +0 expertise=d6 expertise", 10, 8)
    assert [d.sides for d in r.dice] == [20, 8]


def test_expertise_with_advantage_rolls_only_the_d20_twice() -> None:
    r = run("check +5 vs 15 adv expertise=d6", 17, 4, 3)
    assert [(d.sides, d.role) for d in r.dice] == [(20, "d20"), (20, "d20"), (6, "expertise")]
    assert (r.natural, r.total) == (17, 25)


def test_expertise_on_attack_not_on_damage() -> None:
    r = run("attack +0 vs 10 expertise dmg 1d6", 20, 4, 3, 5)
    assert r.total == 24
    assert r.damage is not None and r.damage.expression == "2d6"


# --- --dice order --------------------------------------------------------------------


def test_dice_order_d20s_expertise_modifier_damage() -> None:
    r = run("attack +5+1d4 vs 10 adv expertise dmg 1d6", 12, 3, 2, 4, 6)
    assert [(d.sides, d.face, d.role) for d in r.dice] == [
        (20, 12, "d20"),
        (20, 3, "d20"),
        (4, 2, "expertise"),
        (4, 4, "modifier"),
    ]
    assert r.total == 12 + 2 + 5 + 4
    assert r.damage is not None and [d.face for d in r.damage.dice] == [6]


# --- group ---------------------------------------------------------------------------


def test_group_of_two_with_one_success_fails() -> None:
    r = run("group +0, +0 vs 10", 10, 9)
    assert (r.outcome, r.success) == ("failure", False)
    assert r.members is not None and [m.success for m in r.members] == [True, False]


def test_group_more_than_half_succeeds() -> None:
    assert run("group +3, +5 adv, -1 vs 12", 9, 2, 7, 3).outcome == "success"


def test_group_all_succeed_is_critical() -> None:
    assert run("group +0, +0 vs 10", 10, 11).outcome == "critical_success"


def test_group_all_fail_is_critical_failure() -> None:
    assert run("group +0, +0, +0 vs 10", 2, 3, 4).outcome == "critical_failure"


def test_group_members_follow_check_rules() -> None:
    # natural 20 below the DC is a member failure; natural 1 meeting it a member success
    r = run("group +0, +20 vs 21", 20, 1)
    assert r.members is not None
    assert [m.outcome for m in r.members] == ["failure", "success"]
    assert r.outcome == "failure"


def test_group_dice_member_by_member() -> None:
    r = run("group alice +3, bob +5 adv expertise, -1 vs 12", 9, 2, 7, 3, 11)
    assert r.members is not None
    assert [m.name for m in r.members] == ["alice", "bob", None]
    assert [len(m.dice) for m in r.members] == [1, 3, 1]
    assert [d.face for d in r.dice] == [9, 2, 7, 3, 11]
    assert r.target == 12 and r.members[1].total == 15


def test_group_without_target_is_ungraded() -> None:
    assert run("group +1, +2", 5, 6).outcome is None


def test_grade_functions_are_pure() -> None:
    assert grade_check(20, 19, 20).outcome == "failure"
    assert grade_save(1, 30, 5).outcome == "failure"
    assert grade_attack(20, 2, 30).outcome == "critical_success"
    assert grade_group([True, True, False]).outcome == "success"
    assert grade_group([True, False]).outcome == "failure"


# --- what levelup does not have ---------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "column", "words"),
    [
        ("check +5 vs 15 reliable", 16, "pendagger"),
        ("check +5 vs tough", 10, "numbers"),
        ("check +5 bonus", 10, "adv or dis"),
        ("check adept", 7, "pendagger"),
        ("check 14 vs 10", 7, "sign"),
        ("save +1 vs 10 dmg 1d6", 15, "attack"),
        ("attack +8 vs defense 6", 11, "numbers"),
        ("check +5 fortune", 10, "pendagger"),
    ],
)
def test_words_levelup_lacks(line: str, column: int, words: str) -> None:
    with pytest.raises(RulesError) as info:
        run(line, 10)
    assert info.value.column == column
    assert words in info.value.message


@pytest.mark.parametrize(
    "line", ["percent 45", "luck", "contest +1 vs +2", "resist +1 vs 10", "scores", "fortune"]
)
def test_verbs_levelup_lacks(line: str) -> None:
    with pytest.raises(RulesError) as info:
        run(line)
    assert "levelup has no" in info.value.message
    assert "check, save, attack, group, roll" in info.value.message
