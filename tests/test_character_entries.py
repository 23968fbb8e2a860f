"""A character's entries merged into the parsed request (d20cli.language.character_entries):
the shown text parses to the same request, a typed word beats the entry's, errors name the
entry, and the columns of the shown text carry a system's caret to the right word."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import ParseError, RulesError
from d20cli.language.character_entries import merge_entries
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CheckRequest, GroupRequest
from d20cli.rules import get_system


@dataclass(frozen=True)
class Sheet:
    """The smallest Entries: a name and entries by label, the same for every verb."""

    name: str = "aria"
    table: dict[str, str] = field(default_factory=dict)

    def lookup(self, word: str, verb: str) -> str | None:
        return self.table.get(word.lower())

    def entry_names(self) -> list[str]:
        return list(self.table)


def resolved(text: str, **table: str) -> CheckRequest | GroupRequest:
    request = merge_entries(parse_request(text), Sheet(table=table), parse_request)
    assert isinstance(request, CheckRequest | GroupRequest)
    return request


def test_counts_add_up_and_lists_join_entry_first() -> None:
    request = resolved("check stealth adv expertise=d4 vs 15", stealth="+7 adv expertise=d6")
    assert isinstance(request, CheckRequest)
    assert (request.adv, request.expertise) == (2, (6, 4))
    assert request.text == "check stealth +7 adv expertise=d6 adv expertise=d4 vs 15"


def test_a_typed_one_value_word_beats_the_entry() -> None:
    request = resolved("attack sword vs 15 dmg 1d4 crit 20", sword="+5 dmg 2d6+3 crit 19 vs 12")
    assert isinstance(request, CheckRequest)
    assert (str(request.damage), request.crit, request.target and request.target.value) == (
        "1d4",
        20,
        15,
    )


def test_a_typed_rank_means_no_lookup() -> None:
    assert resolved("attempt goblin adept", goblin="+1").text == "attempt goblin adept"


def test_a_typed_modifier_is_a_situational_bonus_that_adds_to_the_entry() -> None:
    """Issue 42 item 1: `check dex +2 vs 12` with dex +3 rolled +2 and dropped the entry
    (and its expertise die, its adv). The typed modifier adds; the entry's words stay."""
    request = resolved("check stealth +2 vs 12", stealth="+7 expertise=d6 adv")
    assert isinstance(request, CheckRequest)
    assert (str(request.modifier), request.expertise, request.adv) == ("7+2", (6,), 1)
    assert (request.entry, request.situational) == ("+7 expertise=d6 adv", "+2")
    assert request.text == "check stealth +7 expertise=d6 adv +2 vs 12"
    minus = resolved("check dex -1d4 vs 12", dex="+3")
    assert (str(minus.modifier), minus.situational) == ("3-1d4", "-1d4")  # type: ignore[union-attr]
    # a label the character has no entry for keeps its own modifier, with no error
    assert resolved("check goblin +3 vs 12", dex="+3").text == "check goblin +3 vs 12"
    assert resolved("check stealth +2 vs 15").situational is None  # type: ignore[union-attr]
    # in a group, each member adds its own
    group = resolved("group stealth +1, dex -1 vs 12", stealth="+7", dex="+3")
    assert [str(m.modifier) for m in group.members] == ["7+1", "3-1"]  # type: ignore[union-attr]


def test_an_unknown_entry_names_the_closest_with_its_column() -> None:
    with pytest.raises(ParseError) as info:
        resolved("group +1, stelth vs 12", stealth="+7")
    assert "aria has no entry 'stelth'; did you mean stealth?" in info.value.message
    assert info.value.column == 11


def test_bad_entry_words_name_the_entry() -> None:
    with pytest.raises(ParseError) as info:
        resolved("check stealth vs 15", stealth="+7 blah=3")
    assert info.value.message.startswith("in aria's entry 'stealth' ('+7 blah=3'): ")
    assert (info.value.text, info.value.column) == ("check stealth vs 15", 7)
    with pytest.raises(ParseError, match="not a label"):
        resolved("check stealth vs 15", stealth="sneaky +7")
    with pytest.raises(ParseError, match="holds no words"):
        resolved("check stealth vs 15", stealth="  # nothing")


def test_a_systems_caret_points_at_the_entry_word_in_the_shown_text() -> None:
    request = resolved("check stealth vs 15", stealth="+7 expertise=d6")
    with pytest.raises(RulesError) as info:
        get_system("mm").resolve(request, ForcedRoller((10, 3)))
    err = info.value
    assert err.text == "check stealth +7 expertise=d6 vs 15"
    assert err.text[(err.column or 0) - 1 :].startswith("expertise=d6")


_WORDS = ["adv", "dis", "expertise=d6", "expertise", "bonus", "reliable", "lucky", "min 10"]


@settings(deadline=None)
@given(
    entries=st.lists(
        st.tuples(st.integers(-9, 9), st.lists(st.sampled_from(_WORDS), max_size=3, unique=True)),
        min_size=3,
        max_size=3,
    ),
    typed=st.lists(st.lists(st.sampled_from(_WORDS[:5]), max_size=2), min_size=3, max_size=3),
    dc=st.integers(1, 30),
)
def test_the_shown_text_parses_to_the_resolved_request(
    entries: list[tuple[int, list[str]]], typed: list[list[str]], dc: int
) -> None:
    """Wherever the request and the entries do not both give a one-value word, resolving on
    the parsed request is exactly what parsing the shown text gives, columns included."""
    labels = ["stealth", "athletics", "arcana"]
    table = {labels[i]: " ".join([f"{m:+d}", *words]) for i, (m, words) in enumerate(entries)}
    members = [" ".join([name, *typed[i]]) for i, name in enumerate(table)]
    for text in (
        f"check stealth {' '.join(typed[0])} vs {dc}",
        f"group {', '.join(members)} vs {dc}",
        f"contest {' vs '.join(members)}",
    ):
        request = merge_entries(parse_request(text), Sheet(table=table), parse_request)
        assert request == parse_request(request.text)


# --- names inside expressions ------------------------------------------------------------


def values(text: str, **table: str) -> object:
    return merge_entries(parse_request(text), Sheet(table=table), parse_request)


def test_a_name_stands_wherever_a_number_may() -> None:
    sheet = {"dex": "+3", "prof": "2", "str": "-1", "stealth": "+dex+prof expertise=d6"}
    roll = values("roll 1d20+dex", **sheet)
    assert str(roll.expr) == "1d20+3[dex]"  # type: ignore[attr-defined]
    attack = values("attack +dex+prof vs 15 dmg 1d8+@str", **sheet)
    assert isinstance(attack, CheckRequest)
    assert (str(attack.modifier), str(attack.damage)) == ("3[dex]+2[prof]", "1d8-1")
    check = values("check stealth vs 15", **sheet)  # an entry's own names resolve too
    assert isinstance(check, CheckRequest) and str(check.modifier) == "3[dex]+2[prof]"
    assert check.expertise == (6,)
    group = values("group +dex, stealth vs 12", **sheet)
    assert isinstance(group, GroupRequest)
    assert [str(m.modifier) for m in group.members] == ["3[dex]", "3[dex]+2[prof]"]
    assert str(values("roll (prof)d6+1", **sheet).expr) == "(2[prof])d6+1"  # type: ignore[attr-defined]


def test_names_errors() -> None:
    with pytest.raises(ParseError, match=r"circle: a -> b -> a"):
        values("roll 1d20+a", a="+b", b="+1+a")
    with pytest.raises(ParseError, match=r"no entry 'dexx'; did you mean dex\?"):
        values("roll 1d20+dexx", dex="+1")
    with pytest.raises(ParseError, match=r"entry 'stealth' \('\+7 adv'\) is not a value"):
        values("roll 1d20+stealth", stealth="+7 adv")
    with pytest.raises(ParseError, match=r"in aria's entry 'bad' \('\+1d'\)"):
        values("roll 1d20+bad", bad="+1d")
    assert str(values("roll 1d20+@vs", vs="+1").expr) == "1d20+1[vs]"  # type: ignore[attr-defined]


class CountingSheet(Sheet):
    """A Sheet that counts its look-ups: the work of resolving, in counted steps."""

    def __init__(self, table: dict[str, str]) -> None:
        super().__init__(table=table)
        object.__setattr__(self, "lookups", [0])

    def lookup(self, word: str, verb: str) -> str | None:
        self.lookups[0] += 1  # type: ignore[attr-defined]
        return super().lookup(word, verb)


def tripling(levels: int) -> dict[str, str]:
    """Entries that each use the next three times: `e0` holds 3**levels ones."""
    table = {f"e{i}": f"+e{i + 1}+e{i + 1}+e{i + 1}" for i in range(levels)}
    return {**table, f"e{levels}": "+1"}


def test_entries_that_use_entries_are_bounded_by_what_they_grow_to() -> None:
    # 3**7 = 2,187 ones fit in the bound (MAX_TREE_NODES); each entry is read once
    sheet = CountingSheet(tripling(7))
    request = merge_entries(parse_request("roll 1d6+e0"), sheet, parse_request)
    assert request.expr.bounds() == (2188, 2193)  # type: ignore[attr-defined]
    assert sheet.lookups[0] == 8  # type: ignore[attr-defined]
    # 3**13 (and 3**40 ones) are refused, naming the entry that grew past it, after
    # reading each entry at most once: the work is the entries', not what they expand to
    for levels in (13, 40):
        sheet = CountingSheet(tripling(levels))
        with pytest.raises(ParseError, match=r"aria's entry 'e\d+' grows to more than 5,000"):
            merge_entries(parse_request("roll 1d6+e0"), sheet, parse_request)
        assert sheet.lookups[0] <= levels + 1  # type: ignore[attr-defined]
    # the request's own expression counts too: ten uses of an entry of 2,187 ones
    with pytest.raises(ParseError, match=r"this expression grows to more than 5,000 terms"):
        values("roll " + "+".join(["e0"] * 10), **tripling(7))


def test_a_chain_of_entries_is_bounded_by_the_expression_depth() -> None:
    chain = {f"e{i}": f"+e{i + 1}" for i in range(1000)} | {"e1000": "+1"}
    with pytest.raises(ParseError, match=r"use one another more than 200 deep"):
        values("roll 1d20+e0", **chain)
    short = {f"e{i}": f"+e{i + 1}" for i in range(50)} | {"e50": "+1"}
    assert values("roll 1d20+e0", **short).expr.bounds() == (2, 21)  # type: ignore[attr-defined]


def test_a_name_with_no_character_is_a_clear_error() -> None:
    import d20cli

    with pytest.raises(d20cli.DiceError, match=r"'dex' names a character's value: roll with --as"):
        d20cli.roll("1d20+dex")
    with pytest.raises(ParseError):  # a word of the language is not a name
        parse_request("roll 1d20+adv")


@settings(deadline=None)
@given(
    value=st.integers(-50, 50),
    count=st.integers(1, 4),
    sides=st.sampled_from([4, 6, 8, 20]),
    op=st.sampled_from(["+", "-", "*"]),
)
def test_a_name_rolls_as_its_value(value: int, count: int, sides: int, op: str) -> None:
    """`NdS op name` rolls exactly as `NdS op value` (the same dice, the same total)."""
    from d20cli.dice.evaluate import evaluate

    resolved = values(f"roll {count}d{sides}{op}x", x=f"{value:+d}")
    typed = parse_request(f"roll {count}d{sides}{op}({value})")
    faces = tuple(range(1, count + 1))
    got = evaluate(resolved.expr, ForcedRoller(faces)).total  # type: ignore[attr-defined]
    assert got == evaluate(typed.expr, ForcedRoller(faces)).total  # type: ignore[attr-defined]


def test_entries_that_nest_past_the_expression_depth_are_refused() -> None:
    # 150 entries deep, each two levels of its own (a sum, a call): 300 levels once put in
    chain = {f"e{i}": f"+max(e{i + 1},1)+1d6" for i in range(150)} | {"e150": "+1"}
    with pytest.raises(ParseError, match=r"nests more than 200 levels deep"):
        values("roll 1d20+e0", **chain)
