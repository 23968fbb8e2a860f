"""Exact odds: for every verb, the odds equal the exact frequencies of running every
combination of faces through the resolver with forced dice.

The odds engine takes shortcuts (the kept face of an advantage pair as one weighted
branch, a whole modifier expression as one branch from its distribution, group checks by
convolution). Here a plain brute force, die by die with no shortcut, checks them."""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from fractions import Fraction

import pytest
from brute import BruteRoller, every_roll
from cli_helpers import run_odds

from d20cli.app.options import Options
from d20cli.dice.roller import Roller
from d20cli.errors import D20Error
from d20cli.language.grammar import parse_request
from d20cli.present.output import Output
from d20cli.probability.engine import odds_of
from d20cli.results import Result
from d20cli.rules import get_system


def brute_force(text: str, system_id: str) -> tuple[Counter[str], Counter[int], Fraction]:
    """Outcome and total probabilities by trying every face of every die."""
    system = get_system(system_id)
    request = parse_request(text)
    outcomes: Counter[str] = Counter()
    totals: Counter[int] = Counter()
    outcome_p: dict[str, Fraction] = {}
    total_p: dict[int, Fraction] = {}
    mass = Fraction(0)
    for result, p in every_roll(system, request):
        key = result.outcome or "none"
        outcome_p[key] = outcome_p.get(key, Fraction(0)) + p
        if result.total is not None:
            total_p[result.total] = total_p.get(result.total, Fraction(0)) + p
        mass += p
    outcomes.update({k: 0 for k in outcome_p})
    totals.update({k: 0 for k in total_p})
    return outcome_p, total_p, mass  # type: ignore[return-value]


CASES = [
    ("check +5 vs 15 adv expertise=d6", "levelup"),
    ("check +2 vs 22 dis", "levelup"),
    ("save -1 vs 12 dis", "levelup"),
    ("attack +7 vs 15 dmg 1d4+2", "levelup"),
    ("check +3+1d4 vs 14", "levelup"),
    ("group +3, +5 adv vs 12", "levelup"),
    ("check +3 vs 12", "reglamento"),
    ("contest +3 vs +1 adv", "reglamento"),
    ("luck", "reglamento"),
    ("check +5 vs 20", "mm"),
    ("attack +8 vs defense 6", "mm"),
    ("resist +6 vs rank 8", "mm"),
    ("opposed +8 vs +6", "mm"),
    ("opposed +5 vs +5", "mm"),
    ("compare 8 vs 8", "mm"),
    ("percent 45", "mm"),
    ("routine +10 vs 20", "mm"),
    ("attempt adept reliable", "pendagger"),
    ("attempt 14 -1 adv", "pendagger"),
    ("attempt legendary unreliable", "pendagger"),
    ("luck", "pendagger"),
    # the second reading of the rules (issue 12)
    ("attack +7 vs 15 dmg 2d4kh1", "levelup"),
    ("check +2 vs 15 expertise expertise=d8 adv dis", "levelup"),
    ("attempt doomed reliable unreliable", "pendagger"),
    ("attempt legendary reliable unreliable", "pendagger"),
    ("attempt trained +1 +1 -3 reliable", "pendagger"),
    ("resist +6 vs rank -1", "mm"),
    ("check +2 vs parry 3 major bonus minor-penalty", "mm"),
]


@pytest.mark.parametrize(("text", "system"), CASES, ids=[f"{s}: {t}" for t, s in CASES])
def test_odds_equal_brute_force_frequencies(text: str, system: str) -> None:
    odds = odds_of(text, system)
    outcome_p, total_p, mass = brute_force(text, system)
    assert mass == 1
    assert odds.outcomes == {k: v for k, v in outcome_p.items() if v}
    assert sum(odds.outcomes.values()) == 1
    if odds.distribution is not None:
        assert odds.distribution == {k: v for k, v in total_p.items() if v}
        assert sum(odds.distribution.values()) == 1


def test_group_of_many_members_is_computed_by_convolution() -> None:
    odds = odds_of("group +3, +5, -1, +2, +0, +4, +1, +6 vs 12", "levelup")
    assert sum(odds.outcomes.values()) == 1
    assert set(odds.outcomes) == {"critical_failure", "failure", "success", "critical_success"}


def test_attack_damage_expectation_doubles_critical_dice() -> None:
    odds = odds_of("attack +7 vs 15 dmg 1d8+4", "levelup")
    # hits on 8..19 (12 faces) deal 1d8+4 (mean 8.5); a natural 20 deals 2d8+4 (mean 13)
    expected = Fraction(12, 20) * Fraction(17, 2) + Fraction(1, 20) * 13
    assert odds.damage_mean == expected


def test_mm_degrees_are_reported() -> None:
    odds = odds_of("check +5 vs 20", "mm")
    assert odds.degrees is not None
    assert sum(odds.degrees.values()) == 1
    assert odds.degrees[3] == Fraction(1, 20)  # a natural 20 (total 25, +2) raised to +3
    assert 2 not in odds.degrees


def _odds_json(words: str) -> dict[str, object]:
    out = io.StringIO()
    from d20cli.app.options import split_line

    status = run_odds(split_line(words), Options(json=True), Output(out, io.StringIO(), False))
    assert int(status) == 0
    data: dict[str, object] = json.loads(out.getvalue())
    return data


def test_odds_json_contract() -> None:
    data = _odds_json("check +5 vs 15 adv expertise=d6 --system levelup")
    assert set(data) >= {"request", "system", "verb", "odds", "distribution", "mean"}
    fractions = [Fraction(v) for v in data["odds"].values()]  # type: ignore[attr-defined]
    assert sum(fractions) == 1
    for value in data["odds"].values():  # type: ignore[attr-defined]
        frac = Fraction(value)
        assert value == f"{frac.numerator}/{frac.denominator}"  # reduced
    mm = _odds_json("check +5 vs 20 -s mm")
    assert "+1" in mm["degrees"]  # type: ignore[operator]


def test_odds_roll_has_distribution_and_mean() -> None:
    data = _odds_json("roll 4d6dl1")
    assert data["mean"] == 15869 / 1296  # a number, and exactly:
    assert data["mean_exact"] == "15869/1296"
    dist = {int(k): Fraction(v) for k, v in data["distribution"].items()}  # type: ignore[attr-defined]
    assert min(dist) == 3 and max(dist) == 18 and sum(dist.values()) == 1


def test_odds_scores_gives_one_score_and_its_ranks() -> None:
    data = _odds_json("scores -s pendagger")
    assert data["mean"] == 15869 / 1296  # a number, and exactly:
    assert data["mean_exact"] == "15869/1296"
    assert "ranks" in data


def test_odds_compare_two_requests() -> None:
    data = _odds_json('compare "check +5 vs 15 adv" "check +5 vs 15 expertise=d8"')
    first, second = data["compare"]  # type: ignore[misc]
    assert first["request"] == "check +5 vs 15 adv"
    assert second["request"] == "check +5 vs 15 expertise=d8"


def test_too_costly_odds_suggest_simulate() -> None:
    err = io.StringIO()
    status = run_odds(["roll", "1000d1000kh500"], Options(), Output(io.StringIO(), err, False))
    assert int(status) == 2
    assert "--simulate" in err.getvalue()


def test_simulate_is_labelled_an_estimate() -> None:
    out = io.StringIO()
    status = run_odds(
        ["check", "+5", "vs", "15", "--simulate", "2000", "--seed", "1"],
        Options(),
        Output(out, io.StringIO(), False),
    )
    assert int(status) == 0
    assert "estimate from 2,000 rolls" in out.getvalue()


def test_roll_with_odds_shows_the_chance() -> None:
    out = io.StringIO()
    from d20cli.app.run import run as run_tokens

    run_tokens(
        ["check", "+5", "vs", "15", "--odds", "--dice", "12"],
        Options(),
        Output(out, io.StringIO(), False),
    )
    assert "Success \u2014 you had 50.0% (55.0% to succeed)" in out.getvalue()


def _examples() -> list[tuple[str, str]]:
    """Every system with every verb any system has, by that verb's example words."""
    from d20cli.language.vocabulary import SYSTEM_IDS

    examples = {}
    for sid in SYSTEM_IDS:
        for verb, (_, example) in get_system(sid).verbs.items():
            examples.setdefault(verb, example)
    return [(sid, example) for sid in SYSTEM_IDS for example in examples.values()]


@pytest.mark.parametrize(("system", "text"), _examples())
def test_odds_of_any_verb_in_any_system_is_odds_or_a_clean_error(system: str, text: str) -> None:
    """A verb another system has (`odds group ...` in reglamento) gets the same error a roll
    gets, never a crash."""
    from d20cli.errors import D20Error

    try:
        odds = odds_of(text, system)
    except D20Error as err:
        assert text.split()[0] in err.message or err.column is not None
    else:
        assert sum(odds.outcomes.values(), Fraction(0)) in (0, 1)


# --- contests of three or more sides ------------------------------------------------------


def contest_brute_force(
    text: str, system_id: str, forced: tuple[int, ...] = (), max_draws: int = 10**9
) -> tuple[dict[str, Fraction], dict[int, Fraction], Fraction]:
    """Outcome and winner probabilities by trying every face of every die, after the
    `forced` faces (as `--dice` gives them). A path that asks for more than `max_draws`
    faces is cut off: its probability is returned as the third value, unresolved."""
    system = get_system(system_id)
    request = parse_request(text)
    outcomes: dict[str, Fraction] = {}
    winners: dict[int, Fraction] = {}
    unresolved = Fraction(0)
    stack: list[list[int]] = [[]]
    while stack:
        path = stack.pop()
        roller = CappedRoller(forced, path, max_draws)
        result: Result | None = None
        with contextlib.suppress(Unresolved):  # result stays None
            result = system.resolve(request, roller)
        chosen = path + [0] * (len(roller.sizes) - len(path))
        for pos in range(len(path), len(roller.sizes)):
            for alt in range(1, roller.sizes[pos]):
                stack.append([*chosen[:pos], alt])
        p = Fraction(1)
        for size in roller.sizes:
            p /= size
        if result is None:
            unresolved += p
            continue
        key = result.outcome or "none"
        outcomes[key] = outcomes.get(key, Fraction(0)) + p
        if result.winner is not None:
            winners[result.winner] = winners.get(result.winner, Fraction(0)) + p
    return outcomes, winners, unresolved


class Unresolved(Exception):
    """A brute-force path that asked for more faces than it may."""


class CappedRoller(BruteRoller):
    """`forced` faces first (like --dice), then every face along `path`, at most
    `max_draws` of them."""

    def __init__(self, forced: tuple[int, ...], path: list[int], max_draws: int) -> None:
        super().__init__(path)
        self.forced = list(forced)
        self.max_draws = max_draws

    def _draw(self, lo: int, hi: int) -> int:
        if self.forced:
            return self.forced.pop(0)
        if len(self.sizes) >= self.max_draws:
            raise Unresolved
        return super()._draw(lo, hi)


MANY_SIDES = [
    ("contest +1 vs +2 vs +3", "reglamento"),
    ("opposed +8 vs +6 vs +4", "mm"),
    ("opposed +5 vs +5 vs +3", "mm"),  # sides 1 and 2 may tie: one d20 decides
]


@pytest.mark.parametrize(("text", "system"), MANY_SIDES, ids=[t for t, _ in MANY_SIDES])
def test_many_sides_odds_equal_brute_force(text: str, system: str) -> None:
    odds = odds_of(text, system)
    outcomes, winners, unresolved = contest_brute_force(text, system)
    assert unresolved == 0
    assert odds.outcomes == {k: v for k, v in outcomes.items() if v}
    assert sum(odds.outcomes.values()) == 1
    assert odds.winners == {n: winners.get(n, Fraction(0)) for n in (1, 2, 3)}
    assert sum(odds.winners.values()) == 1 - odds.outcomes.get("tie", Fraction(0))


def _odds_after(faces: tuple[int, ...], text: str, system_id: str) -> dict[int, Fraction]:
    """Each side's chance to win once the first dice show `faces`: the odds engine's own
    walk over the resolver, with those faces forced (as --dice forces them)."""
    from d20cli.probability.walk import walk

    system = get_system(system_id)
    request = parse_request(text)
    winners: dict[int, Fraction] = {}
    for weight, den, result in walk(lambda r: system.resolve(request, Forced(faces, r))):
        assert result.winner is not None
        winners[result.winner] = winners.get(result.winner, Fraction(0)) + Fraction(weight, den)
    return winners


class Forced(Roller):
    """`faces` first, then whatever `inner` (the odds engine's roller) answers."""

    def __init__(self, faces: tuple[int, ...], inner: Roller) -> None:
        super().__init__(budget=10**9)
        self.faces = list(faces)
        self.inner = inner

    def _draw(self, lo: int, hi: int) -> int:
        return self.faces.pop(0) if self.faces else self.inner.roll(lo, hi)

    def d20s(self, net: int) -> tuple[int, ...]:
        return super().d20s(net) if self.faces else self.inner.d20s(net)

    def d20_rounds(self, count: int) -> tuple[tuple[int, ...], ...]:
        return super().d20_rounds(count) if self.faces else self.inner.d20_rounds(count)


@pytest.mark.parametrize(
    ("faces", "text"),
    [
        ((7, 7, 7), "opposed +5 vs +7 penalty vs +3 bonus"),  # every bonus is 5
        ((10, 3, 10, 10), "opposed +5 vs +5 vs +5 vs +5"),  # side 2 is out
    ],
)
def test_tiebreak_rounds_odds_equal_brute_force(faces: tuple[int, ...], text: str) -> None:
    """Three or more sides tied on total and bonus: the walk answers a tie-break round with
    the set of dice showing the highest face. Brute force tries every face of the first
    round and of the d20 that may follow it; a round where every die shows one face leaves
    the same sides tied as before it, so the chances are those of the rounds that end
    otherwise, divided by their total probability (1 - the cut-off mass)."""
    expected_sides = len(parse_request(text).sides)  # type: ignore[attr-defined]
    odds = _odds_after(faces, text, "mm")
    tied = 3
    _, winners, unresolved = contest_brute_force(text, "mm", faces, max_draws=tied + 1)
    assert unresolved == Fraction(20, 20**tied)
    assert odds == {n: p / (1 - unresolved) for n, p in winners.items()}
    assert sum(odds.values()) == 1 and max(odds) <= expected_sides


def test_symmetric_tie_break_is_fair() -> None:
    odds = odds_of("opposed +5 vs +5 vs +5", "mm")
    assert odds.outcomes == {"side_wins": 1}
    assert odds.winners == {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}


@pytest.mark.parametrize("count", [3, 4])
def test_round_table_weights_count_every_face(count: int) -> None:
    """The walk's answer to a round of `count` d20s: each set of dice that shares the
    highest face, weighted by how many of the 20**count faces give exactly that set."""
    import itertools

    from d20cli.probability.walk import WalkTables

    branches, sets = WalkTables().round(count)
    counted: Counter[tuple[int, ...]] = Counter()
    for faces in itertools.product(range(1, 21), repeat=count):
        top = max(faces)
        counted[tuple(i for i, f in enumerate(faces) if f == top)] += 1
    assert counted.pop(tuple(range(count))) == 20  # every die on one face: rolled again
    assert {sets[i]: w for i, w in branches} == dict(counted)
    assert sum(w for _, w in branches) == 20**count - 20


def test_two_sides_odds_have_no_winners_block() -> None:
    data = _odds_json("contest +1 vs +2 -s reglamento")
    assert "winners" not in data
    assert data["odds"] == {"first_wins": "173/400", "tie": "17/400", "second_wins": "21/40"}


def test_many_sides_odds_json_and_text() -> None:
    data = _odds_json("opposed +8 vs +6 vs +4 -s mm")
    assert data["odds"] == {"side_wins": "1/1"}
    winners = {k: Fraction(v) for k, v in data["winners"].items()}  # type: ignore[attr-defined]
    assert list(winners) == ["1", "2", "3"] and sum(winners.values()) == 1
    assert winners["1"] > winners["2"] > winners["3"]
    data = _odds_json("contest +1 vs +2 vs +3 -s reglamento")
    assert set(data["odds"]) == {"tie", "side_wins"}  # type: ignore[arg-type]
    total = sum(Fraction(v) for v in data["odds"].values())  # type: ignore[attr-defined]
    assert total == 1
    out = io.StringIO()
    from d20cli.app.options import split_line

    run_odds(
        split_line("contest bob +1 vs +2 adv vs +3 -s reglamento"),
        Options(),
        Output(out, io.StringIO(), False),
    )
    text = out.getvalue()
    assert "each side's chance to win:" in text
    for tag in ("side 1 (bob +1)", "side 2 (+2 adv)", "side 3 (+3)"):
        assert tag in text


def test_many_sides_odds_over_the_case_cap_suggest_simulate() -> None:
    from d20cli.dice.weights import TooCostly

    with pytest.raises(TooCostly, match="--simulate"):
        odds_of("contest +1 vs +2 vs +3 vs +4", "reglamento")
    with pytest.raises(TooCostly, match="--simulate"):
        odds_of("opposed " + " vs ".join(["+1"] * 20), "mm")
    estimate = _odds_json("contest +1 vs +2 vs +3 vs +4 -s reglamento --simulate 400 --seed 1")
    assert list(estimate["winners"]) == ["1", "2", "3", "4"]  # type: ignore[call-overload]


def test_odds_note_gives_the_winning_side_its_own_chance() -> None:
    out = io.StringIO()
    from d20cli.app.options import split_line
    from d20cli.app.run import run as run_tokens

    run_tokens(
        split_line("opposed +8 vs +6 vs +4 -s mm --odds --dice 10,10,10"),
        Options(),
        Output(out, io.StringIO(), False),
    )
    assert "Side 1 wins \u2014 you had 50.2%" in out.getvalue()  # 201/400


def test_identical_group_members_are_walked_once_and_share_the_case_limit() -> None:
    """Members that differ only in where they stand in the line are one walk (it was one
    walk per member: 900 members of `+d997 adv` took minutes), and the walks of different
    members share the one limit of cases, so a group cannot multiply it."""
    odds = odds_of("group " + ", ".join(["+d997"] * 300) + " vs 20", "levelup")
    assert sum(odds.outcomes.values()) == 1
    members = ", ".join(f"+d{900 + i}" for i in range(10))  # ten different walks
    with pytest.raises(D20Error, match="more than 50,000 cases over the group's members"):
        odds_of(f"group {members} vs 20", "levelup")


def test_odds_compare_of_mm_ranks_is_the_verb_not_compare_mode() -> None:
    """`odds compare 6 vs 6 -s mm` is the odds of mm's compare verb; quoted requests with
    spaces in them are what compare mode compares."""
    out = io.StringIO()
    status = run_odds(["compare", "6", "vs", "6", "--json"], Options(system="mm"), Output(out))
    data = json.loads(out.getvalue())
    assert int(status) == 0 and data["verb"] == "compare"
    assert data["odds"] == {"first_wins": "1/2", "second_wins": "1/2"}
    out = io.StringIO()
    run_odds(["compare", "check +5 vs 15", "check +6 vs 15", "--json"], Options(), Output(out))
    assert len(json.loads(out.getvalue())["compare"]) == 2
