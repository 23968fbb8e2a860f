"""The words of a check in any order (issue 33, item 3): every order of a request's parts
rolls the same result as the canonical order (the JSON identical but for `request`, the
text as typed), and where the order counts the error says the order."""

from __future__ import annotations

import json
from itertools import pairwise, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import d20cli
from d20cli.errors import ParseError
from d20cli.language.grammar import parse_request

#: (canonical line, its parts, system, dice): every order of the parts after the verb.
CASES = [
    ("check +5 vs 15 adv", ("+5", "vs 15", "adv"), "levelup", [17, 4]),
    ("attack +7 vs 15 adv dmg 1d8", ("+7", "vs 15", "adv", "dmg 1d8"), "levelup", [9, 16, 5]),
    ("save +3 vs 12 disadvantage", ("+3", "vs 12", "disadvantage"), "levelup", [9, 16]),
    (
        "check stealth +5 vs 15 adv expertise=d6",
        ("stealth", "+5", "vs 15", "adv", "expertise=d6"),
        "levelup",
        [3, 12, 4],
    ),
    ("attempt doomed +1 reliable", ("doomed", "+1", "reliable"), "pendagger", [8]),
    ("attempt 14 +1 -2 reliable", ("14", "+1", "-2", "reliable"), "pendagger", [11]),
    ("check +8 vs tough bonus", ("+8", "vs tough", "bonus"), "mm", [10]),
    (
        "attack +7 vs AC 15 crit 19 lucky",
        ("+7", "vs AC 15", "crit 19", "lucky"),
        "levelup",
        [1, 19],
    ),
]


def _json(line: str, system: str, dice: list[int]) -> dict[str, object]:
    found = json.loads(d20cli.roll(line, system=system, dice=dice).json_text())
    assert found.pop("request") == line
    return found  # type: ignore[no-any-return]


def _after_dmg(order: tuple[str, ...] | list[str]) -> bool:
    """A modifier right after `dmg EXPR`: its expression would take it (an error)."""
    return any(a.startswith("dmg") and b[0] in "+-" for a, b in pairwise(order))


def _orders(verb: str, parts: tuple[str, ...]) -> list[str]:
    return [" ".join((verb, *o)) for o in permutations(parts) if not _after_dmg(o)]


@pytest.mark.parametrize(("canonical", "parts", "system", "dice"), CASES)
def test_every_order_rolls_the_canonical_result(
    canonical: str, parts: tuple[str, ...], system: str, dice: list[int]
) -> None:
    verb = canonical.split()[0]
    want = _json(canonical, system, dice)
    for line in _orders(verb, parts):
        assert _json(line, system, dice) == want, line


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CASES), st.randoms(use_true_random=False))
def test_a_shuffled_request_parses_as_the_canonical_one(
    case: tuple[str, tuple[str, ...], str, list[int]], rnd: object
) -> None:
    canonical, parts, _, _ = case
    order = list(parts)
    rnd.shuffle(order)  # type: ignore[attr-defined]
    if _after_dmg(order):
        return
    line = " ".join((canonical.split()[0], *order))
    ignored = ("text", "columns")
    want, got = parse_request(canonical), parse_request(line)
    for name in type(want).__dataclass_fields__:
        if name not in ignored:
            assert getattr(got, name) == getattr(want, name), (line, name)


@pytest.mark.parametrize(
    ("line", "fields"),
    [
        ("check adv +5 vs 15", {"adv": 1}),  # issue 33's examples
        ("attack adv +7 vs 15 dmg 1d8", {"adv": 1}),
        ("save disadvantage +3 vs 12", {"dis": 1}),
        ("attack dis +7 vs 15 dmg 1d8 + 4", {"dis": 1}),
    ],
)
def test_adv_and_dis_before_the_modifier_parse(line: str, fields: dict[str, int]) -> None:
    request = parse_request(line)
    assert request.modifier is not None
    for name, value in fields.items():
        assert getattr(request, name) == value


def test_members_and_sides_take_their_words_in_any_order() -> None:
    group = parse_request("group adv +3, +5 dis vs 12")
    assert [(m.adv, m.dis) for m in group.members] == [(1, 0), (0, 1)]  # type: ignore[attr-defined]
    contest = parse_request("contest adv +3 vs dis +1")
    assert [(s.adv, s.dis) for s in contest.sides] == [(1, 0), (0, 1)]  # type: ignore[attr-defined]


def test_a_signed_number_after_a_rank_adjusts_it_wherever_it_stands() -> None:
    for line in ("attempt doomed reliable +1", "attempt +1 doomed reliable"):
        request = parse_request(line)
        assert (request.rank, request.adjust, request.modifier) == ("doomed", 1, None)


@pytest.mark.parametrize(
    ("line", "column", "words"),
    [
        ("attack vs 15 dmg 1d8 +7", 22, "is +7 the attack's modifier or the damage's?"),
        ("attack vs 15 dmg 1d8 +7 adv", 22, "the modifier comes before dmg"),
        ("check +5 vs 15 +2", 16, "takes one modifier: write them as one, like +5+2"),
        ("attack +7 vs 15 dmg 1d8 fire", 25, "the attack's name comes before dmg"),
        ("attack +7 vs 15 dmg 1d8 fire", 25, "dmg 1d8[fire]"),
        ("group adv, +5 vs 12", 7, "a group member needs a label or a modifier"),
        ("contest adv vs +1", 9, "a side needs a label or a modifier"),
        ("check sleight hand +5 vs 15", 15, "only one label"),
    ],
)
def test_where_the_order_counts_the_error_says_so(line: str, column: int, words: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_request(line)
    assert words.lower() in info.value.message.lower()
    assert info.value.column == column
