"""House words on the d20 verbs (issue 14): `crit N`, `lucky`, `min N`, with forced dice,
and exact odds equal to brute force over every face (tests/test_odds.py's BruteRoller)."""

from __future__ import annotations

import json

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import ParseError, RulesError
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CheckRequest
from d20cli.probability.engine import odds_of
from d20cli.results import Result
from d20cli.rules import get_system
from tests.test_odds import brute_force


def run(line: str, *faces: int, system: str = "levelup") -> Result:
    roller = ForcedRoller(faces)
    result = get_system(system).resolve(parse_request(line), roller)
    roller.finish()  # every face was used
    return result


# --- the words --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line", ["check +5 crit 19", "check +5 crit=19", "check +5 vs 15 crit 19 adv"]
)
def test_crit_is_written_with_a_space_or_equals(line: str) -> None:
    request = parse_request(line)
    assert isinstance(request, CheckRequest) and request.crit == 19


@pytest.mark.parametrize("word", ["crit", "min"])
@pytest.mark.parametrize("n", [1, 21, 0])
def test_crit_and_min_take_2_to_20(word: str, n: int) -> None:
    with pytest.raises(ParseError) as err:
        parse_request(f"check +5 vs 15 {word} {n}")
    assert err.value.message == f"{word} N takes N from 2 to 20, not {n}"


def test_crit_needs_its_number() -> None:
    with pytest.raises(ParseError):
        parse_request("check +5 crit")


def test_house_words_record_their_columns() -> None:
    request = parse_request("check +5 vs 15 lucky min=10 crit 19")
    assert isinstance(request, CheckRequest)
    assert (request.lucky, request.floor, request.crit) == (True, 10, 19)
    assert request.column("lucky") == 16
    assert request.column("min") == 22
    assert request.column("crit") == 29


# --- crit N -------------------------------------------------------------------------------


def test_levelup_attack_crit_19_on_a_19_is_a_critical_hit_with_doubled_dice() -> None:
    r = run("attack +7 vs 15 crit 19 dmg 1d8+4", 19, 3, 5)
    assert (r.natural, r.outcome, r.label) == (19, "critical_success", "Critical hit")
    assert r.damage is not None and r.damage.critical and r.damage.expression == "2d8+4"
    assert r.damage.total == 12
    assert "19: critical (crit 19-20)" in r.notes
    assert r.detail["house"] == {"crit": 19}


def test_levelup_crit_range_hits_whatever_the_ac() -> None:
    r = run("attack +0 vs 30 crit 18 dmg 1d4", 18, 1, 2)
    assert (r.outcome, r.success) == ("critical_success", True)
    assert "18 (crit 18-20): a critical hit whatever the AC" in r.notes


def test_levelup_below_the_crit_range_is_an_ordinary_roll() -> None:
    r = run("attack +7 vs 15 crit 19 dmg 1d8+4", 18, 3)
    assert (r.outcome, r.damage and r.damage.critical) == ("success", False)
    assert r.notes == ()


def test_levelup_check_crit_is_critical_only_when_the_total_succeeds() -> None:
    assert run("check +5 vs 15 crit 19", 19).outcome == "critical_success"
    r = run("check +0 vs 25 crit 19", 19)
    assert r.outcome == "failure"
    assert r.notes == ("19 (crit 19-20) below the DC: a plain failure",)


def test_levelup_save_crit_is_a_critical_save() -> None:
    r = run("save -1 vs 30 crit 19", 19)
    assert (r.outcome, r.label) == ("critical_success", "Critical save")


def test_reglamento_crit_is_a_critical_success() -> None:
    r = run("check +0 vs 30 crit 19", 19, system="reglamento")
    assert (r.outcome, r.success) == ("critical_success", True)
    assert r.notes == ("19: critical (crit 19-20)", "crit: succeeds regardless of difficulty")


def test_reglamento_contest_side_with_crit_counts_as_a_natural_20() -> None:
    r = run("contest +0 crit 19 vs +10", 19, 20, system="reglamento")
    assert r.outcome == "second_wins"  # both count as 20: then the higher total
    r = run("contest +0 crit 19 vs +10", 19, 18, system="reglamento")
    assert r.outcome == "first_wins"
    assert r.notes == ("side 1: 19: critical (crit 19-20)",)


def test_mm_improved_critical_is_critical_only_on_a_hit() -> None:
    hit = run("attack +8 vs 10 crit 18", 18, system="mm")
    assert (hit.outcome, hit.degree) == ("critical_success", 5)
    assert "18: critical (crit 18-20)" in hit.notes
    miss = run("attack +8 vs 30 crit 18", 18, system="mm")
    assert (miss.outcome, miss.success) == ("failure", False)
    assert run("attack +0 vs 30 crit 18", 20, system="mm").outcome == "critical_success"


@pytest.mark.parametrize(
    ("line", "system", "message"),
    [
        ("attempt adept crit 19", "pendagger", "pendagger has no critical range"),
        ("attempt adept min 10", "pendagger", "pendagger reads the face on the Success Table"),
        ("check +8 vs 10 crit 18", "mm", "mm's crit N is Improved Critical"),
        ("routine +3 vs 10 lucky", "mm", "a routine check rolls no die: no lucky"),
        ("opposed +8 crit 19 vs +6", "mm", "mm's crit N is Improved Critical"),
    ],
)
def test_where_a_word_makes_no_sense_the_error_says_so(
    line: str, system: str, message: str
) -> None:
    with pytest.raises(RulesError) as err:
        run(line, system=system)
    assert err.value.message.startswith(message)
    assert err.value.column is not None


# --- lucky --------------------------------------------------------------------------------


def test_lucky_rerolls_a_1_and_uses_the_new_face() -> None:
    r = run("check +5 vs 15 lucky", 1, 14)
    assert (r.natural, r.total, r.outcome) == (14, 19, "success")
    assert [(d.face, d.kept, d.flags) for d in r.dice] == [
        (1, False, ("rerolled",)),
        (14, True, ()),
    ]
    assert r.notes == ("1 rerolled -> 14 (lucky)",)
    assert r.detail["house"] == {"lucky": True}


def test_lucky_rolls_nothing_more_without_a_1() -> None:
    r = run("check +5 vs 15 lucky", 9)
    assert (r.natural, len(r.dice), r.notes) == (9, 1, ())


def test_lucky_with_advantage_rerolls_come_after_both_d20s() -> None:
    # --dice order: the two d20s, then the reroll of each that showed a 1, in order.
    r = run("check +5 vs 15 lucky adv", 1, 1, 14, 2)
    assert r.natural == 14
    assert [(d.face, d.kept) for d in r.dice] == [(1, False), (1, False), (14, True), (2, False)]
    assert r.notes == ("1 rerolled -> 14 (lucky)", "1 rerolled -> 2 (lucky)")
    r = run("check +5 vs 15 lucky adv", 7, 1, 3)
    assert r.natural == 7
    r = run("check +5 vs 15 lucky dis", 7, 1, 3)
    assert r.natural == 3


def test_lucky_reroll_of_1_stays() -> None:
    r = run("attack +5 vs 10 lucky", 1, 1)
    assert (r.natural, r.outcome) == (1, "critical_failure")


def test_lucky_comes_before_the_expertise_die_and_modifier_dice() -> None:
    r = run("check +1d4 vs 15 lucky expertise", 1, 20, 3, 2)
    assert [(d.role, d.face) for d in r.dice] == [
        ("d20", 1),
        ("d20", 20),
        ("expertise", 3),
        ("modifier", 2),
    ]
    assert r.outcome == "critical_success"


def test_lucky_in_pendagger_rerolls_the_attempt() -> None:
    r = run("attempt adept lucky", 1, 12, system="pendagger")
    assert (r.natural, r.outcome) == (12, "normal_success")
    assert r.detail["house"] == {"lucky": True}


# --- min N ----------------------------------------------------------------------------------


def test_min_counts_a_low_face_as_n_but_the_natural_stays() -> None:
    r = run("check +5 vs 15 min 10", 7)
    assert (r.natural, r.modifier, r.total, r.outcome) == (7, 5, 15, "success")
    assert r.notes == ("7 counts as 10 (min 10)",)
    assert r.detail["house"] == {"min": 10}


def test_min_leaves_a_higher_face_alone_and_criticals_follow_the_die() -> None:
    assert run("check +5 vs 15 min 10", 12).total == 17
    r = run("attack +5 vs 10 min 10", 1)
    assert (r.natural, r.total, r.outcome) == (1, 15, "critical_failure")


def test_house_words_in_group_members_and_json() -> None:
    r = run("group +3 lucky, +5 min 10 vs 12", 1, 9, 2)
    assert r.members is not None
    assert [m.total for m in r.members] == [12, 15]
    data = json.loads(r.members[1].json_text())
    assert data["house"] == {"min": 10}
    assert data["natural"] == 2


# --- exact odds -----------------------------------------------------------------------------

ODDS = [
    ("check +5 vs 15 lucky", "levelup"),
    ("check +5 vs 15 lucky adv", "levelup"),
    ("check +5 vs 15 lucky dis", "levelup"),
    ("save +1 vs 14 lucky dis crit 18", "levelup"),
    ("attack +7 vs 15 crit 19 dmg 1d4+1", "levelup"),
    ("attack +7 vs 15 crit 18 lucky adv dmg 1d4", "levelup"),
    ("check +2 vs 15 min 10", "levelup"),
    ("check +2 vs 15 min 10 lucky dis expertise", "levelup"),
    ("check +0 vs 18 crit 17 min 5", "reglamento"),
    ("attack +3 vs 16 lucky adv", "reglamento"),
    ("contest +1 crit 19 vs +2 lucky", "reglamento"),
    ("attack +8 vs 18 crit 18 lucky", "mm"),
    ("check +5 vs 20 min 12", "mm"),
    ("opposed +2 lucky vs +1 min 8", "mm"),
    ("attempt adept lucky adv", "pendagger"),
]


@pytest.mark.parametrize(("text", "system"), ODDS, ids=[f"{s}: {t}" for t, s in ODDS])
def test_house_odds_equal_brute_force(text: str, system: str) -> None:
    odds = odds_of(text, system)
    outcome_p, total_p, mass = brute_force(text, system)
    assert mass == 1
    assert odds.outcomes == {k: v for k, v in outcome_p.items() if v}
    if odds.distribution is not None:
        assert odds.distribution == {k: v for k, v in total_p.items() if v}


def test_lucky_odds_of_a_natural_1() -> None:
    from fractions import Fraction

    odds = odds_of("attack +0 vs 5 lucky", "levelup")
    assert odds.outcomes["critical_failure"] == Fraction(1, 400)
    odds = odds_of("attack +0 vs 5 lucky dis", "levelup")
    # a die ends on 1 with chance 1/400; the lower of two: 1 - (399/400)^2
    assert odds.outcomes["critical_failure"] == 1 - Fraction(399, 400) ** 2


# --- a character carries house words in its entries ----------------------------------------


def test_a_character_entry_carries_house_words() -> None:
    from d20cli.app.options import Options
    from d20cli.app.run import results_of
    from d20cli.language.grammar import parse_request
    from d20cli.store import as_character as resolving
    from d20cli.store import characters

    characters.characters_path().parent.mkdir(parents=True, exist_ok=True)
    characters.add("aria", "levelup")
    characters.set_entry("aria", "attacks.longsword", "+7 crit 19 dmg 1d8+4")
    characters.set_entry("aria", "stealth", "+5 lucky min 10")
    (hit,) = results_of("attack longsword vs 15", Options(as_="aria", dice=(19, 3, 4)))
    assert hit.request == "attack longsword +7 crit 19 dmg 1d8+4 vs 15"
    assert (hit.outcome, hit.damage and hit.damage.total) == ("critical_success", 11)
    assert hit.detail["house"] == {"crit": 19}
    (check,) = results_of("check stealth vs 15", Options(as_="aria", dice=(1, 3)))
    assert (check.natural, check.total) == (3, 15)
    assert check.notes == ("1 rerolled -> 3 (lucky)", "3 counts as 10 (min 10)")
    # a word typed in the request beats the character's: crit 20 here, not the entry's 19
    (plain,) = results_of("attack longsword vs 15 crit 20", Options(as_="aria", dice=(19, 3)))
    assert plain.outcome == "success" and plain.detail.get("house") == {"crit": 20}
    assert (
        resolving.read_through("attack longsword vs 15 crit 20", "aria", parse_request)[0].crit
        == 20
    )
