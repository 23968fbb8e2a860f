"""Hypothesis properties of the request grammar: requests built from a strategy that
mirrors the grammar parse back to exactly the words they were built from, in any order
the grammar allows, and every system either resolves them or refuses with a clear error."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from d20cli.dice.roller import RandomRoller
from d20cli.errors import D20Error
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CheckRequest, GroupRequest
from d20cli.language.vocabulary import CIRCUMSTANCE_WORDS, DC_WORDS, RANK_WORDS, SYSTEM_IDS
from d20cli.rules import get_system

CHECKS = ("check", "save", "attack")
labels = st.sampled_from(["stealth", "perception", "athletics", "arcana"])


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


@st.composite
def check_words(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    """A check request's text and what its parse must hold."""
    verb = draw(st.sampled_from(CHECKS))
    expected: dict[str, object] = {"verb": verb}
    words = [verb]
    if draw(st.booleans()):
        name = draw(labels)
        words.append(name)
        expected["name"] = name
    modifier = draw(st.integers(-20, 30))
    words.append(signed(modifier))
    target = draw(st.none() | st.integers(0, 40))
    extras: list[str] = []
    adv = draw(st.integers(0, 2))
    dis = draw(st.integers(0, 2))
    extras += ["adv"] * adv + ["dis"] * dis
    sizes = draw(st.lists(st.sampled_from([4, 6, 8]), max_size=2))
    extras += ["expertise" if s == 4 and draw(st.booleans()) else f"expertise=d{s}" for s in sizes]
    order = draw(st.permutations(extras)) if extras else []
    if target is not None:
        words += ["vs", str(target)]
    words += order
    expected.update(adv=adv, dis=dis, expertise=tuple(sizes), target=target, modifier=modifier)
    return " ".join(words), expected


@settings(max_examples=150, deadline=None)
@given(check_words())
def test_check_words_parse_to_what_they_say(case: tuple[str, dict[str, object]]) -> None:
    text, expected = case
    request = parse_request(text)
    assert isinstance(request, CheckRequest)
    assert request.verb == expected["verb"]
    assert request.text == text
    assert request.name == expected.get("name")
    assert (request.adv, request.dis) == (expected["adv"], expected["dis"])
    assert sorted(request.expertise) == sorted(expected["expertise"])  # type: ignore[call-overload]
    target = request.target.value if request.target is not None else None
    assert target == expected["target"]
    assert request.modifier is not None
    assert request.modifier.min_total() == expected["modifier"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-5, 12), st.sampled_from(["", " adv", " dis"])),
        min_size=1,
        max_size=6,
    ),
    st.integers(5, 25),
)
def test_group_members_parse_in_order(members: list[tuple[int, str]], dc: int) -> None:
    text = "group " + ", ".join(f"{signed(m)}{word}" for m, word in members) + f" vs {dc}"
    request = parse_request(text)
    assert isinstance(request, GroupRequest)
    assert [m.modifier.min_total() for m in request.members if m.modifier] == [
        m for m, _ in members
    ]
    assert [(m.adv, m.dis) for m in request.members] == [
        (int(w == " adv"), int(w == " dis")) for _, w in members
    ]


words_any = st.sampled_from(
    [
        "check",
        "save",
        "attack",
        "attempt",
        "luck",
        "percent",
        "routine",
        "resist",
        "+5",
        "-2",
        "14",
        "vs",
        "15",
        "adv",
        "dis",
        "expertise",
        "expertise=d6",
        "dmg",
        "1d8+3",
        "reliable",
        "unreliable",
        "fortune",
        "defense",
        "rank",
        "routine",
        "+3",
        *DC_WORDS[:3],
        *CIRCUMSTANCE_WORDS[:2],
        *RANK_WORDS[4:8],
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(words_any, min_size=1, max_size=8), st.sampled_from(SYSTEM_IDS))
def test_any_words_resolve_or_fail_cleanly(words: list[str], system_id: str) -> None:
    """Grammar-shaped word salad: a result, or a D20Error with a message, in every system."""
    text = " ".join(words)
    try:
        request = parse_request(text)
        result = get_system(system_id).resolve(request, RandomRoller(random.Random(1)))
    except D20Error as err:
        assert err.message and "\n" not in err.message
        if err.column is not None:
            assert 1 <= err.column <= len(text) + 1
        return
    assert result.system == system_id
    assert result.request == text
