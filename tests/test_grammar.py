"""The request language: each word, each request shape, each error with its column."""

from __future__ import annotations

import pytest

from d20cli.errors import ParseError
from d20cli.language.grammar import parse_request
from d20cli.language.requests import (
    CheckRequest,
    CompareRequest,
    ContestRequest,
    FortuneRequest,
    GroupRequest,
    LuckRequest,
    PercentRequest,
    ScoresRequest,
    Target,
)
from d20cli.language.vocabulary import CIRCUMSTANCE_WORDS, DC_WORDS, KEYWORDS, RANK_WORDS, VERBS


def check(line: str) -> CheckRequest:
    r = parse_request(line)
    assert isinstance(r, CheckRequest)
    return r


def error(line: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_request(line)
    assert info.value.text == line
    return info.value


# --- check-like requests -------------------------------------------------------------------


def test_full_check() -> None:
    r = check("check +5 vs 15 adv expertise=d6")
    assert (r.verb, r.text, r.repeat) == ("check", "check +5 vs 15 adv expertise=d6", 1)
    assert str(r.modifier) == "5"
    assert r.target == Target("number", 15)
    assert (r.adv, r.dis, r.expertise) == (1, 0, (6,))
    assert r.column("adv") == 16 and r.column("expertise") == 20 and r.column("verb") == 1


def test_label_word() -> None:
    r = check("check stealth +7 vs 15")
    assert (r.name, str(r.modifier), r.column("label")) == ("stealth", "7", 7)


def test_negative_and_dice_modifiers() -> None:
    assert str(check("save -1 vs 12 dis").modifier) == "-1"
    assert str(check("check +5+1d4 vs 15").modifier) == "5+1d4"
    assert check("check vs 15").modifier is None


def test_damage() -> None:
    r = check("attack +7 vs 15 dmg 1d8+4")
    assert str(r.damage) == "1d8+4" and r.column("dmg") == 17


def test_counts_and_flags() -> None:
    r = check("attempt adept adv adv dis reliable unreliable reliable fortune")
    assert (r.adv, r.dis, r.reliable, r.unreliable, r.fortune) == (2, 1, 2, 1, True)
    assert check("check +1 advantage disadvantage").adv == 1


def test_expertise_grants_in_order() -> None:
    assert check("check +1 expertise expertise=d8 expertise=D6").expertise == (4, 8, 6)


@pytest.mark.parametrize(
    ("line", "target"),
    [
        ("check +5 vs 0", Target("number", 0)),
        ("check +4 vs tough", Target("named", 0, "tough")),
        ("check +4 vs Nigh-Impossible", Target("named", 0, "nigh-impossible")),
        ("attack +8 vs defense 6", Target("defense", 6)),
        ("resist +6 vs rank 8", Target("rank", 8)),
        ("check +5 vs routine +3", Target("routine", 3)),
        ("check +5 vs routine -2", Target("routine", -2)),
    ],
)
def test_targets(line: str, target: Target) -> None:
    assert check(line).target == target


def test_circumstances() -> None:
    r = check("check +4 vs tough bonus major-penalty")
    assert r.circumstances == ("bonus", "major-penalty")


def test_ranks_scores_and_adjustments() -> None:
    r = check("attempt trained +1")
    assert (r.rank, r.adjust, r.modifier, r.score) == ("trained", 1, None, None)
    r = check("attempt 14 reliable")
    assert (r.score, r.reliable, r.rank) == (14, 1, None)
    assert check("check adept").rank == "adept"
    assert check("attempt 14 -2").adjust == -2
    r = check("defend parry master")
    assert (r.name, r.rank) == ("parry", "master")


def test_routine_and_resist_verbs() -> None:
    assert check("routine +10 vs 20").verb == "routine"
    assert check("resist +6 vs rank 8").verb == "resist"


def test_case_insensitive_and_spaces() -> None:
    r = check("  CHECK +5 VS 15 ADV")
    assert (r.verb, r.adv, r.column("verb")) == ("check", 1, 3)


# --- other shapes ----------------------------------------------------------------------------


def test_group() -> None:
    r = parse_request("group +3, +5 adv, -1 vs 12")
    assert isinstance(r, GroupRequest)
    assert [str(m.modifier) for m in r.members] == ["3", "5", "-1"]
    assert [m.adv for m in r.members] == [0, 1, 0]
    assert r.target == Target("number", 12)
    r = parse_request("group alice, bob +2 expertise")
    assert isinstance(r, GroupRequest)
    assert [m.name for m in r.members] == ["alice", "bob"] and r.target is None


@pytest.mark.parametrize("verb", ["contest", "opposed"])
def test_contest_and_opposed(verb: str) -> None:
    r = parse_request(f"{verb} +3 dis vs +1 adv")
    assert isinstance(r, ContestRequest) and r.verb == verb
    first, second = r.sides
    assert (str(first.modifier), first.dis, str(second.modifier), second.adv) == ("3", 1, "1", 1)


@pytest.mark.parametrize("verb", ["contest", "opposed"])
def test_contest_of_three_or_more_sides(verb: str) -> None:
    r = parse_request(f"{verb} +1 vs bob +2 adv vs -3 bonus dis vs carol")
    assert isinstance(r, ContestRequest)
    assert [s.verb for s in r.sides] == ["check"] * 4
    assert [s.name for s in r.sides] == [None, "bob", None, "carol"]
    assert [str(s.modifier) for s in r.sides] == ["1", "2", "-3", "None"]
    assert [(s.adv, s.dis, s.circumstances) for s in r.sides] == [
        (0, 0, ()),
        (1, 0, ()),
        (0, 1, ("bonus",)),
        (0, 0, ()),
    ]
    assert all(s.target is None for s in r.sides)
    # each side knows where its own words are, for a system's error
    line = r.text
    columns = [line.index("+1") + 1, line.index("+2") + 1, line.index("-3") + 1, None]
    assert [s.column("modifier") for s in r.sides] == columns
    assert r.sides[2].column("dis") == line.index("dis") + 1


def test_contest_sides_up_to_the_limit() -> None:
    from d20cli.language.grammar import MAX_CONTEST_SIDES as MAX_SIDES

    r = parse_request("contest " + " vs ".join(["+1"] * MAX_SIDES))
    assert isinstance(r, ContestRequest) and len(r.sides) == MAX_SIDES
    line = "opposed " + " vs ".join(["+1"] * (MAX_SIDES + 1))
    err = error(line)
    assert err.message == f"an opposed check has at most {MAX_SIDES:,} sides"
    assert err.column == len(line) - 1  # the first side too many
    assert error("contest " + " vs ".join(["+1"] * (MAX_SIDES + 5))).message.startswith(
        "a contest has at most"
    )


def test_compare() -> None:
    assert parse_request("compare 8 vs 6") == CompareRequest(
        "compare", "compare 8 vs 6", 8, 6, columns=(("verb", 1), ("first", 9), ("second", 14))
    )
    r = parse_request("compare -1 vs +2")
    assert isinstance(r, CompareRequest) and (r.first, r.second) == (-1, 2)


def test_percent_luck_scores_fortune() -> None:
    r = parse_request("percent 45%")
    assert isinstance(r, PercentRequest) and r.percent == 45
    r2 = parse_request("luck fortune dis")
    assert isinstance(r2, LuckRequest) and (r2.fortune, r2.dis) == (True, 1)
    for line, players in [("scores", None), ("scores 5", 5), ("scores players=5", 5)]:
        r3 = parse_request(line)
        assert isinstance(r3, ScoresRequest) and r3.players == players
    for line, action in [("fortune", "show"), ("fortune spend", "spend"), ("fortune show", "show")]:
        r4 = parse_request(line)
        assert isinstance(r4, FortuneRequest) and r4.action == action


def test_roll_is_delegated() -> None:
    r = parse_request("roll 2d6+3")
    assert r.verb == "roll" and str(getattr(r, "expr", "")) == "2d6+3"


# --- errors with their columns ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "column", "message"),
    [
        ("chek +5", 1, "unknown verb 'chek'"),
        ("", 1, "nothing to roll"),
        ("check +5 vs", 12, "expected a target"),
        ("check +5 vs foo", 13, "expected a target"),
        ("check +5 vs 15 foo bar", 20, "only one label"),
        ("check +5 vs 15 vs 12", 16, "only one target"),
        ("attack +5 dmg 1d6 dmg 1d4", 19, "only one dmg"),
        ("check +5 expertise=d10", 20, "d4, d6, d8, not d10"),
        ("check +5 expertise=", 20, "expected an expertise die"),
        ("attack +7 vs 15 dmg", 20, "expected"),
        ("group +3,", 10, "expected a group member"),
        ("group +3 vs", 12, "expected a target"),
        ("contest +3", 11, "expected 'vs'"),
        ("contest +3 vs", 14, "expected a side"),
        ("contest +3 vs +1 vs", 20, "expected a side"),
        ("contest +3 vs 15", 15, "not the bare number 15: sides have no target"),
        ("contest +1 vs 15 vs +2", 15, "a side is a label or a signed modifier (+15, -15)"),
        ("opposed +1 vs +2 vs 15", 21, "sides have no target"),
        ("opposed 8 vs +2", 9, "not the bare number 8"),
        ("contest +3 vs +1 vs vs +2", 21, "expected a side"),
        ("contest +3 vs +1 vs +2 15", 24, "unexpected '15'"),
        ("contest +3 vs +1 vs defense 4", 21, "expected a side"),
        ("compare 8 vs", 13, "expected a number"),
        ("compare 8 6", 11, "expected 'vs'"),
        ("percent", 8, "expected a number"),
        ("percent x", 9, "expected a number"),
        ("scores players=", 16, "expected a number"),
        ("fortune burn", 9, "unexpected 'burn'"),
        ("luck reliable", 6, "luck roll takes"),
        ("check 99999999999 vs 1", 7, "too large"),
        ("check +5 vs defense", 20, "expected a number"),
        ("roll 2d", 8, "expected"),
    ],
)
def test_errors(line: str, column: int, message: str) -> None:
    err = error(line)
    assert err.column == column, err.one_line()
    assert message in err.message


def test_deep_nesting_is_a_parse_error() -> None:
    err = error("check +" + "(" * 2000 + "1" + ")" * 2000)
    assert "nest" in err.message


def test_nesting_within_the_limit_parses() -> None:
    r = check("check +" + "(" * 60 + "1" + ")" * 60 + " vs 10")
    assert r.target == Target("number", 10)


def test_overlong_input_is_a_parse_error() -> None:
    err = error("check +1" + "+1" * 60_000)
    assert "longer" in err.message


# --- tables for completion -------------------------------------------------------------------


def test_verbs() -> None:
    assert VERBS[:3] == ("check", "save", "attack")
    assert set(VERBS) >= {
        "group",
        "contest",
        "opposed",
        "luck",
        "attempt",
        "defend",
        "percent",
        "routine",
        "compare",
        "resist",
        "scores",
        "fortune",
        "roll",
    }


def test_keywords_come_from_the_grammar_tables() -> None:
    words = set(KEYWORDS)
    assert {"vs", "adv", "dis", "expertise", "dmg", "reliable", "unreliable", "fortune"} <= words
    assert {"expertise=d4", "expertise=d6", "expertise=d8", "defense", "rank", "routine"} <= words
    assert {"spend"} <= words
    assert set(RANK_WORDS) | set(DC_WORDS) | set(CIRCUMSTANCE_WORDS) <= words
    assert len(KEYWORDS) == len(words)  # no duplicates


@pytest.mark.parametrize("word", [w for w in KEYWORDS if w not in ("players=",)])
def test_every_keyword_is_accepted_somewhere(word: str) -> None:
    lines = [
        f"check +1 {word}",
        f"check +1 vs {word}",
        f"check {word}",
        f"check +1 vs {word} 3",
        f"check +1 {word} 1d4",
        f"fortune {word}",
        f"check +1 {word} 3",
        f"group +1 {word}",
    ]
    ok = 0
    for line in lines:
        try:
            parse_request(line)
            ok += 1
        except ParseError:
            pass
    assert ok, word
