"""The levelup group rule as a house setting (issue 14): `more-than-half` (the rules, the
default) or `at-least-half`, with forced dice and exact odds against brute force."""

from __future__ import annotations

import json

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import ParseError
from d20cli.language.grammar import parse_request
from d20cli.language.requests import GroupRequest
from d20cli.probability.engine import odds_of
from d20cli.results import Result
from d20cli.rules import get_system
from d20cli.rules.levelup import grade_group
from tests.test_odds import brute_force


def run(line: str, *faces: int) -> Result:
    roller = ForcedRoller(faces)
    result = get_system("levelup").resolve(parse_request(line), roller)
    roller.finish()
    return result


def test_half_is_a_failure_by_default_and_with_more_than_half() -> None:
    assert grade_group([True, False]).outcome == "failure"
    assert grade_group([True, False], "more-than-half").outcome == "failure"
    assert run("group +3, +5 vs 12 more-than-half", 10, 2).outcome == "failure"


def test_at_least_half_makes_half_a_success() -> None:
    assert grade_group([True, False], "at-least-half").outcome == "success"
    assert grade_group([True, False, False], "at-least-half").outcome == "failure"
    assert grade_group([True, True, False, False], "at-least-half").outcome == "success"
    assert grade_group([False, False], "at-least-half").outcome == "critical_failure"
    r = run("group +3, +5 vs 12 at-least-half", 10, 2)
    assert (r.outcome, r.label) == ("success", "Success (1 of 2 succeed)")
    assert r.notes == ("at-least-half: 1 of 2 is enough",)
    assert json.loads(r.json_text())["house"] == {"group": "at-least-half"}


@pytest.mark.parametrize(
    "line", ["group +3, +5 vs 12 at-least-half", "group +3, +5 at least half vs 12"]
)
def test_the_rule_word_goes_before_or_after_the_target(line: str) -> None:
    request = parse_request(line)
    assert isinstance(request, GroupRequest) and request.rule == "at-least-half"


def test_one_rule_per_group() -> None:
    with pytest.raises(ParseError) as err:
        parse_request("group +3, +5 vs 12 at-least-half more-than-half")
    assert err.value.message == "a group check takes only one group rule"
    assert err.value.column == 34


ODDS = [
    "group +3, +5 vs 12 at-least-half",
    "group +3, +5 vs 12 more-than-half",
    # lucky, advantage, min and at-least-half at once, in two members (an even count, so
    # that half the members succeeding is possible): four members proved no more and took
    # twenty times as long
    "group +3 lucky min 8, +0 adv vs 12 at-least-half",
]


@pytest.mark.parametrize("text", ODDS)
def test_group_rule_odds_equal_brute_force(text: str) -> None:
    odds = odds_of(text, "levelup")
    outcome_p, _, mass = brute_force(text, "levelup")
    assert mass == 1
    assert odds.outcomes == {k: v for k, v in outcome_p.items() if v}
