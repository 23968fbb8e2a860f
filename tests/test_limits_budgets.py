"""Bounded work: requests that would run for minutes are refused with a clear message,
by the counted budgets (steps, dice, runs), before the work. The tests say what happened
(refused, the status, the message), never how long it took: benchmarks/bench_bombs.py
and benchmarks/bench_bounds.py measure the times, and docs/limits.md gives them."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from cli_helpers import run_line

from d20cli.store.characters import MAX_CHARACTERS_BYTES as MAX_CHARACTER_BYTES


@pytest.fixture(scope="module", autouse=True)
def _warm(_isolated_session: Path) -> None:
    """Import the grammar, systems and odds engine once, outside the timed runs."""
    for line in ("roll 1d6", "check +1 vs 10", "odds check +1 vs 10"):
        run_line(line)


# Issue 22 item 1: each ran for minutes (or forever) before.
EXACT_ODDS_BOMBS = [
    "odds attack +5 vs 15 dmg 100d6!",
    "odds check +500d12r1 vs 22 dis",
    "odds check +200d1000r1 vs 14 -s mm",
    "odds attack +3 vs 23 dmg 20d20!!",
    "odds attack +5 vs 15 dmg 1000d6",
    "attack +5 vs 15 dmg 100d6! --odds",
    # graded pair by pair (probability/checks.py): 20 x 3,806 pairs, over the 50,000 cases
    "odds check +200d20 vs 1000 adv expertise=d6",
    "odds group " + ", ".join(f"+{i}d20" for i in range(1, 300)) + " vs 12",
]


@pytest.mark.parametrize("line", EXACT_ODDS_BOMBS, ids=lambda x: x[:40])
def test_costly_exact_odds_are_refused_quickly(line: str) -> None:
    status, out, err, _ = run_line(line)
    assert status == 2, (out[:200], err)
    assert err.startswith("d20: error")
    assert "--simulate N" in err.splitlines()[0]
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "line",
    [
        "attack +5 vs 15 dmg 100d6! --repeat 2 --summary",  # rolled: the walk is refused
        "roll 1d6r1 --repeat 5 --summary",  # a replayed reroll used to loop forever
        "roll 1000d6 --repeat 100 --summary -q",
        "odds attack +5 vs 15 dmg 100d6",  # damage convolved: 40 cases, not 40 x 501
        # 38,120 (face, total) pairs graded, not 228,060 cases walked (refused before)
        "odds check +100d20 vs 1000 adv expertise=d6",
    ],
)
def test_summaries_and_damage_odds_end_quickly(line: str) -> None:
    status, out, err, _ = run_line(line)
    assert status == 0, err
    assert out


def test_convolved_damage_equals_the_replayed_walk() -> None:
    """Damage kept aside as a distribution gives the same odds as walking its totals."""
    from d20cli.language.grammar import parse_request
    from d20cli.probability.engine import _totals_provider, odds_of
    from d20cli.probability.model import Accumulator
    from d20cli.probability.walk import odds_budget, walk
    from d20cli.rules import get_system

    for text, system_id in [
        ("attack +5 vs 15 dmg 2d6+3", "levelup"),
        ("attack +2 vs 12 adv dmg 1d8+1d4!", "levelup"),
    ]:
        system = get_system(system_id)
        request = parse_request(text)
        acc = Accumulator()
        totals = _totals_provider(odds_budget(text))
        for weight, den, result in walk(lambda r, s=system, q=request: s.resolve(q, r), totals):
            acc.add(weight, den, result)
        replayed = acc.odds(text, system_id, request.verb, [])
        convolved = odds_of(text, system_id)
        assert convolved.damage_distribution == replayed.damage_distribution
        assert convolved.outcomes == replayed.outcomes
        assert convolved.damage_distribution is not None
        assert sum(convolved.damage_distribution.values()) == Fraction(1)


def test_the_walk_is_estimated_before_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cases x work per case over the budget: refused after the first case."""
    from d20cli.dice.weights import TooCostly
    from d20cli.probability import walk
    from d20cli.probability.engine import odds_of

    monkeypatch.setattr(walk, "ODDS_STEPS", 50_000)
    with pytest.raises(TooCostly, match=r"about [\d,]+ cases of [\d,]+ steps each"):
        odds_of("opposed +3d20 vs +1", "mm")  # mm's opposed checks are walked
    # a check is graded pair by pair, estimated the same way before any pair is graded
    monkeypatch.setattr(walk, "ODDS_STEPS", 4_000)  # the weights of 3d20 take 2,383 of them
    with pytest.raises(TooCostly, match=r"about 1,160 cases of 2 steps each"):
        odds_of("check +3d20 vs 22 adv", "levelup")


def test_the_deadline_is_the_last_resort(monkeypatch: pytest.MonkeyPatch) -> None:
    from d20cli.dice.weights import TooCostly
    from d20cli.probability import walk
    from d20cli.probability.engine import odds_of

    monkeypatch.setattr(walk, "ODDS_DEADLINE", -1.0)
    with pytest.raises(TooCostly, match="deadline"):
        odds_of("check +5 vs 15 adv", "levelup")


# Issue 22 item 3: a work budget per command, and memory bounded for any accepted request.
WORK_BOMBS: list[tuple[str, str]] = [
    ("roll 1000000d6 --repeat 1000000", "more than 20,000,000 (the work budget of one command)"),
    ("odds roll 1000000d6 --simulate 1000000", "the work budget of one command"),
    ("roll 1d20 --repeat 100 --work 50", "rolls at least 100 dice in all, more than 50"),
    ("roll 1d6! --repeat 100 --work 100", "this command needs more than 100 dice in all"),
    ("roll 10000000d6! --budget 10000000", "needs more than 2,000,000 dice rolled one by one"),
    ("roll 5000000d6! --budget 10000000", "needs more than 2,000,000 dice rolled one by one"),
    ("roll 2000000d6r1 --budget 10000000", "needs more than 2,000,000 dice rolled one by one"),
    ("roll 10000000d6kh5000000 --budget 10000000", "rolled one by one"),
    ("roll 10000000d6>=4 --budget 10000000", "rolled one by one"),
    ("roll 1000000d6r1", "with its rerolls it rolls about 1,200,000 on average"),
    (
        "group " + ",".join(["+1"] * 100) + " vs 12 --json --repeat 9 --work 1000",
        "this command printed more than 100,000 characters",
    ),
]


@pytest.mark.parametrize(("line", "message"), WORK_BOMBS, ids=lambda x: x[:40])
def test_work_past_the_budget_is_refused(line: str, message: str) -> None:
    status, out, err, _ = run_line(line)
    assert status == 2, (out[:200], err)
    assert message in err.splitlines()[0]
    assert "--work N" in err or "--budget" in err or "one by one" in err


def test_work_within_the_budget_runs() -> None:
    status, out, err, _ = run_line("roll 1d20 --repeat 50 --work 50 -q")
    assert status == 0, err
    assert len(out.splitlines()) == 50


def test_work_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("D20_WORK", "50")
    status, _, err, _ = run_line("roll 1d20 --repeat 51")
    assert status == 2
    assert "more than 50" in err
    monkeypatch.setenv("D20_WORK", "lots")
    status, _, err, _ = run_line("roll 1d20")
    assert status == 2
    assert "D20_WORK must be a whole number" in err


def test_rolling_as_a_character_reads_a_big_file_without_tomlkit(tmp_path: Path) -> None:
    """Issue 22 item 7: a 0.9 MB characters.toml made every `--as` roll take 3-6 s (tomlkit
    parsed it); reading uses tomllib, tomlkit only edits. (A file is now at most
    characters.MAX_CHARACTERS_BYTES: this one is just under it.)"""
    import os
    import subprocess
    import sys

    config = tmp_path / "config" / "d20cli"
    config.mkdir(parents=True)
    lines = ["[aria]", 'system = "levelup"', 'stealth = "+7"']
    for i in range(1_550):
        lines += [f"[npc{i}]", f'stealth = "+{i % 10}"', f'athletics = "+{i % 5}"']
    (config / "characters.toml").write_text("\n".join(lines) + "\n")
    assert 60_000 < (config / "characters.toml").stat().st_size <= MAX_CHARACTER_BYTES
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "D20_NO_LOG": "1"}
    code = (
        "import sys\n"
        "from d20cli.__main__ import main\n"
        "try:\n"
        "    main(['check', 'stealth', 'vs', '15', '--as', 'aria', '-q'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('TOMLKIT', 'tomlkit' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert "TOMLKIT False" in proc.stdout and proc.stderr == "", proc.stderr


# Issue 22: runs rolled one by one (printed, or tallied by rolling each) are at most a
# million, so no accepted command runs for minutes; a --summary drawn from the exact odds
# still takes ten million.
RUN_BOMBS: list[tuple[str, str]] = [
    ("roll 1d6 --repeat 10000000", "--repeat 10,000,000 rolls each run one by one"),
    ("roll 1d6 --repeat 1000001 -q", "at most 1,000,000"),
    ("check +5 vs 15 --repeat 10000000 --json", "add --summary for a tally"),
    ("odds check +5 vs 15 --simulate 10000000", "--simulate 10,000,000 rolls each run"),
    ("roll 1d6 --repeat 10000000 --summary --dice 3", "use fewer runs"),
    (
        "group " + ", ".join(["+1"] * 20) + " vs 12 --repeat 100000 -q",
        "--repeat 100,000 rolls 2,000,000 results one by one (each member or side counts)",
    ),
    ("contest +1 vs +2 --repeat 600000 -s reglamento", "rolls 1,200,000 results one by one"),
]


@pytest.mark.parametrize(("line", "message"), RUN_BOMBS, ids=lambda x: x[:40])
def test_too_many_runs_one_by_one_are_refused_at_once(line: str, message: str) -> None:
    status, out, err, _ = run_line(line)
    assert status == 2, (out[:200], err)
    assert err.startswith("d20: error: ") and message in err.splitlines()[0]
    assert out == "" if "--json" not in line else message in json.loads(out)["error"]


def test_a_group_of_a_thousand_members_three_times_is_accepted() -> None:
    status, out, err, _ = run_line("group " + ", ".join(["+1"] * 1000) + " vs 12 -n 3 -q")
    assert status == 0, err
    assert len(out.split()) == 3


def test_ten_million_runs_drawn_for_a_summary_are_accepted() -> None:
    status, out, err, _ = run_line("check +5 vs 15 --repeat 10000000 --summary -q")
    assert status == 0, err
    assert 15.0 < float(out) < 16.0  # the mean total of 1d20+5
