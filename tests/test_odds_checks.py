"""The odds of a d20 check graded pair by pair (`System.check_plan`, probability/checks.py)
against the walk over the resolver and against a plain brute force, die by die: every
system's tiers, advantage and disadvantage, expertise, reliable and unreliable, the house
words (crit N, lucky, min N, crit-dmg) and damage. The figures must be the very same
fractions, and the errors the very same messages."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction

import pytest
from brute import every_roll
from hypothesis import given, settings
from hypothesis import strategies as st

from d20cli.dice.roller import RandomRoller
from d20cli.dice.weights import TooCostly
from d20cli.errors import D20Error
from d20cli.language.grammar import parse_request
from d20cli.language.vocabulary import CHECK_WORDS
from d20cli.probability import engine, walk
from d20cli.probability.model import Odds
from d20cli.rules import get_system, levelup, reglamento


def _add(table: dict[object, Fraction], key: object, p: Fraction) -> None:
    table[key] = table.get(key, Fraction(0)) + p


def brute_force(text: str, system_id: str) -> dict[str, object]:
    """Outcomes, success, degrees, totals and damage of every roll of every die."""
    system = get_system(system_id)
    request = parse_request(text)
    outcomes: dict[object, Fraction] = {}
    totals: dict[object, Fraction] = {}
    degrees: dict[object, Fraction] = {}
    damage: dict[object, Fraction] = {}
    success = Fraction(0)
    graded = rolled_damage = False
    for result, p in every_roll(system, request):
        _add(outcomes, result.outcome or "none", p)
        if result.total is not None:
            _add(totals, result.total, p)
        if result.degree is not None:
            _add(degrees, result.degree, p)
        if result.success is not None:
            graded = True
            success += p if result.success else 0
        if result.damage is not None:
            rolled_damage = True
            _add(damage, result.damage.total, p)
        elif result.verb == "attack":
            _add(damage, 0, p)
    return {
        "outcomes": outcomes,
        "distribution": totals,
        "degrees": degrees or None,
        "success": success if graded else None,
        "damage_distribution": damage if rolled_damage else None,
    }


def walked(text: str, system_id: str, max_paths: int = walk.MAX_PATHS) -> Odds:
    """The odds by the walk over the resolver (the system without its check_plan hook)."""
    system = dataclasses.replace(get_system(system_id), check_plan=None, contest_plan=None)
    return engine._compute_odds(parse_request(text), system, max_paths)


def graded(text: str, system_id: str) -> Odds:
    """The odds by the check's plan (no memo)."""
    request = parse_request(text)
    system = get_system(system_id)
    assert system.check_plan is not None and system.check_plan(request) is not None
    return engine._compute_odds(request, system, walk.MAX_PATHS)


CASES = [
    ("check +5 vs 15 adv expertise=d6", "levelup"),
    ("check +2 vs 12 dis expertise=d4 lucky", "levelup"),
    ("check +0 vs 10 crit 19 min 10", "levelup"),
    ("check +2 vs 15 expertise expertise=d8 adv dis", "levelup"),
    ("save -1 vs 12 dis crit 18", "levelup"),
    ("save +3 vs 14 lucky min 8 adv", "levelup"),
    ("attack +7 vs 15 dmg 1d4+2 crit 19", "levelup"),
    ("attack +4 vs 12 dmg 1d6 lucky adv crit-dmg=max", "levelup"),
    ("attack +3 vs 14 dmg 1d4+1 crit-dmg=double min 10", "levelup"),
    ("attack +5 dmg 1d4", "levelup"),
    ("attack +2 vs 30 dmg 1d4", "levelup"),
    ("check +3+1d4 vs 14 expertise=d8", "levelup"),
    ("check +5", "levelup"),
    ("check +3 vs 12 adv crit 19", "reglamento"),
    ("save -2 vs 8 dis lucky min 5", "reglamento"),
    ("attack +4 vs 13 dmg 1d6+1 crit 18", "reglamento"),
    ("attack +1 dmg 1d4", "reglamento"),
    ("check +2-1d4 vs 10", "reglamento"),
    ("check +5 vs 20 bonus", "mm"),
    ("attack +8 vs defense 6 crit 18", "mm"),
    ("attack +8 vs 30 lucky", "mm"),
    ("resist +6 vs rank 8 min 10 major-penalty", "mm"),
    ("check +2 vs tough lucky", "mm"),
    ("check +3", "mm"),
    ("attempt adept reliable", "pendagger"),
    ("attempt 14 -1 adv lucky", "pendagger"),
    ("attempt legendary unreliable dis", "pendagger"),
    ("attempt doomed reliable unreliable lucky", "pendagger"),
    ("check master fortune", "pendagger"),
    ("attack trained adv dis", "pendagger"),
    ("defend godlike unreliable", "pendagger"),
]


@pytest.mark.parametrize(("text", "system"), CASES, ids=[f"{s}: {t}" for t, s in CASES])
def test_graded_odds_are_the_brute_force_and_the_walk(text: str, system: str) -> None:
    odds = graded(text, system)
    assert odds == walked(text, system)
    assert odds.to_json() == walked(text, system).to_json()
    assert odds.labels == walked(text, system).labels
    brute = brute_force(text, system)
    assert odds.outcomes == {k: v for k, v in brute["outcomes"].items() if v}  # type: ignore[attr-defined]
    assert odds.distribution == brute["distribution"]
    assert odds.degrees == brute["degrees"]
    assert odds.success == brute["success"]
    assert odds.damage_distribution == brute["damage_distribution"]
    assert sum(odds.outcomes.values()) == 1


def test_the_goal_case_is_graded_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_walk(*args: object, **kwargs: object) -> None:
        raise AssertionError("walked")

    monkeypatch.setattr(engine, "paths", no_walk)
    engine.MEMO.clear()
    odds = engine.odds_of("check +5 vs 15 adv expertise=d6", "levelup")
    assert odds.success is not None and 0 < odds.success < 1
    engine.odds_of("contest +3 vs +1 adv", "reglamento")  # a contest has its plan too
    # the walk still answers what no plan describes: mm's opposed checks (tie-breaks)
    with pytest.raises(AssertionError, match="walked"):
        engine.odds_of("opposed +3 vs +1", "mm")


def test_critical_damage_modes_come_with_graded_attacks() -> None:
    text = "attack +7 vs 15 dmg 1d8+4"
    odds = graded(text, "levelup")
    assert (
        odds.extra["damage_mean_by_crit_dmg"]
        == walked(text, "levelup").extra["damage_mean_by_crit_dmg"]
    )
    assert set(odds.extra["damage_mean_by_crit_dmg"]) == {"dice", "double", "max"}


@pytest.mark.parametrize(
    ("text", "system"),
    [
        ("check +5 vs tough", "levelup"),
        ("check +5 vs 15 reliable", "levelup"),
        ("check +5 vs 15 crit-dmg=max", "levelup"),
        ("check +5 vs 15 expertise", "reglamento"),
        ("check +5 vs 15 adv", "mm"),
        ("check +5 vs nigh-impossible dmg 1d6", "mm"),
        ("attempt +3", "pendagger"),
        ("attempt adept min 10", "pendagger"),
        ("check +6/(1d2-1) vs 10", "levelup"),  # a modifier that can fail: walked
        ("attack +5 vs 10 dmg 6/(1d2-1)", "levelup"),  # damage that can fail: walked
    ],
)
def test_errors_are_the_resolvers(text: str, system: str) -> None:
    request = parse_request(text)
    with pytest.raises(D20Error) as rolled:
        for seed in range(40):  # a failing modifier fails on some rolls only
            get_system(system).resolve(request, RandomRoller(__import__("random").Random(seed)))
    with pytest.raises(D20Error) as fast:
        graded_or_walked = engine._compute_odds(request, get_system(system), walk.MAX_PATHS)
        del graded_or_walked
    with pytest.raises(D20Error) as slow:
        walked(text, system)
    assert str(fast.value) == str(slow.value) == str(rolled.value)


def test_a_modifier_that_can_fail_only_on_some_rolls_is_left_to_the_walk() -> None:
    text = "check +6/1d2 vs 10"  # never fails, but its distribution is listed
    assert graded(text, "levelup") == walked(text, "levelup")


def test_the_graded_pairs_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TooCostly, match="more than 100 cases"):
        engine._compute_odds(
            parse_request("check +5 vs 15 expertise=d6"), get_system("levelup"), 100
        )
    monkeypatch.setattr(walk, "ODDS_STEPS", 200)
    with pytest.raises(TooCostly, match="about 120 cases of 2 steps each"):
        engine._compute_odds(
            parse_request("check +5 vs 15 adv expertise=d6"), get_system("levelup"), 50_000
        )
    monkeypatch.setattr(walk, "ODDS_STEPS", 6_000_000)
    monkeypatch.setattr(walk, "ODDS_DEADLINE", -1.0)
    with pytest.raises(TooCostly, match="deadline"):
        engine._compute_odds(parse_request("check +5 vs 15"), get_system("levelup"), 50_000)


_MODIFIERS = st.sampled_from(["+0", "+5", "-2", "+3+1d4", "+1d6-1", "+2d4kh1", "-1d3"])
#: The kinds of word drawn by their own strategies (a modifier, a target, damage with its
#: crit-dmg); every other word a verb takes is drawn from its declared samples.
_DRAWN_APART = frozenset({"modifier", "target", "dmg", "crit-dmg"})


def _words(takes: Mapping[str, frozenset[str]]) -> st.SearchStrategy[tuple[str, list[str]]]:
    """A verb of a system (its `TAKES`) with up to four of the words it takes, one of each
    kind, drawn from the samples of the words' one declaration (vocabulary.CHECK_WORDS):
    a word declared with samples is proved here without editing this test."""

    def of(verb: str) -> st.SearchStrategy[tuple[str, list[str]]]:
        pairs = [
            (word.kind, sample)
            for word in CHECK_WORDS
            if word.kind in takes[verb] and word.kind not in _DRAWN_APART
            for sample in word.samples
        ]
        drawn = st.lists(st.sampled_from(pairs), max_size=4, unique_by=lambda p: p[0])
        return drawn.map(lambda ps: (verb, [sample for _, sample in ps]))

    return st.sampled_from(["check", "save", "attack"]).flatmap(of)


def test_the_drawn_words_cover_the_declared_ones() -> None:
    drawn = {word.kind for word in CHECK_WORDS if word.samples}
    assert {"adv", "dis", "expertise", "crit", "lucky", "min"} <= drawn
    assert "expertise" in levelup.TAKES["attack"] and "expertise" not in reglamento.TAKES["check"]


@settings(max_examples=60, deadline=None)
@given(
    _words(levelup.TAKES),
    _MODIFIERS,
    st.integers(1, 32),
    st.sampled_from(["", "dmg 1d6+2", "dmg 2d4 crit-dmg=max", "dmg 3"]),
)
def test_levelup_checks_graded_are_walked(
    words: tuple[str, list[str]], modifier: str, dc: int, damage: str
) -> None:
    verb, drawn = words
    if verb != "attack":
        damage = ""
    text = " ".join(w for w in (verb, modifier, f"vs {dc}", *drawn, damage) if w)
    assert graded(text, "levelup") == walked(text, "levelup")


@settings(max_examples=40, deadline=None)
@given(
    _words(reglamento.TAKES),
    _MODIFIERS,
    st.integers(1, 30),
    st.sampled_from(["", "dmg 1d6+2"]),
)
def test_reglamento_checks_graded_are_walked(
    words: tuple[str, list[str]], modifier: str, dc: int, damage: str
) -> None:
    verb, drawn = words
    if verb != "attack":
        damage = ""
    text = " ".join(w for w in (verb, modifier, f"vs {dc}", *drawn, damage) if w)
    assert graded(text, "reglamento") == walked(text, "reglamento")


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["check", "attack", "resist"]),
    _MODIFIERS,
    st.sampled_from(["vs 15", "vs 25", "vs defense 4", "vs rank 9", "vs tough", "vs 3", ""]),
    st.lists(
        st.sampled_from(["lucky", "min 10", "crit 18", "bonus", "major-penalty"]),
        max_size=2,
        unique=True,
    ),
)
def test_mm_checks_graded_are_walked(
    verb: str, modifier: str, target: str, words: list[str]
) -> None:
    if verb != "attack":
        words = [w for w in words if not w.startswith("crit")]
    text = " ".join(w for w in (verb, modifier, target, *words) if w)
    assert graded(text, "mm") == walked(text, "mm")


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["attempt", "check", "attack", "defend"]),
    st.sampled_from(
        ["doomed", "novice", "trained", "adept", "master", "legendary", "godlike", "3", "14", "25"]
    ),
    st.sampled_from(["", "+1", "-2", "+1 +1"]),
    st.lists(
        st.sampled_from(["adv", "dis", "reliable", "unreliable", "lucky", "fortune"]),
        max_size=3,
        unique=True,
    ),
)
def test_pendagger_attempts_graded_are_walked(
    verb: str, rank: str, adjust: str, words: list[str]
) -> None:
    text = " ".join(w for w in (verb, rank, adjust, *words) if w)
    assert graded(text, "pendagger") == walked(text, "pendagger")


@pytest.mark.parametrize(
    "text",
    [
        "group +3, +5 adv vs 12",
        # expertise, lucky, disadvantage and at-least-half in two members (an even count)
        "group +1 expertise=d4, -1 lucky dis vs 11 at-least-half",
        "group +0 crit 19, +4 min 10 vs 14",
    ],
)
def test_group_members_graded_are_the_walk_and_the_brute_force(text: str) -> None:
    odds = engine._compute_odds(parse_request(text), get_system("levelup"), walk.MAX_PATHS)
    assert odds == walked(text, "levelup")
    brute = brute_force(text, "levelup")
    assert odds.outcomes == {k: v for k, v in brute["outcomes"].items() if v}  # type: ignore[attr-defined]


CONTESTS = [
    "contest +3 vs +1 adv",
    "contest +0 vs +0",
    "contest +2 lucky vs -1 dis crit 19",
    "contest +1 vs +2 vs +3",
    "contest alice +1 min 10 vs bob +1d4 adv",
]


@pytest.mark.parametrize("text", CONTESTS)
def test_contests_graded_are_the_walk_and_the_brute_force(text: str) -> None:
    odds = engine._compute_odds(parse_request(text), get_system("reglamento"), walk.MAX_PATHS)
    assert odds == walked(text, "reglamento")
    assert odds.side_names == walked(text, "reglamento").side_names
    brute = brute_force(text, "reglamento")
    assert odds.outcomes == {k: v for k, v in brute["outcomes"].items() if v}  # type: ignore[attr-defined]


_SIDE = st.tuples(
    st.sampled_from(["+0", "+3", "-1", "+1d4", "+2"]),
    st.lists(st.sampled_from(["adv", "dis", "lucky", "crit 19", "min 8"]), max_size=2, unique=True),
)


# The walk's own bound (walk.MAX_PATHS, 50,000) is tried by the cases above; a fifth of it
# keeps this property's three-sided contests to a second each, refused alike past it
CONTEST_PATHS = walk.MAX_PATHS // 5


@settings(max_examples=30, deadline=None)
@given(st.lists(_SIDE, min_size=2, max_size=3))
def test_reglamento_contests_graded_are_walked(sides: list[tuple[str, list[str]]]) -> None:
    text = "contest " + " vs ".join(" ".join((mod, *words)) for mod, words in sides)
    request = parse_request(text)
    try:
        expected = walked(text, "reglamento", CONTEST_PATHS)
    except TooCostly:  # as many cases graded as walked: both refuse
        with pytest.raises(TooCostly, match="more than 10,000 cases"):
            engine._compute_odds(request, get_system("reglamento"), CONTEST_PATHS)
        return
    assert engine._compute_odds(request, get_system("reglamento"), CONTEST_PATHS) == expected
