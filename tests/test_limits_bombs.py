"""Resource bombs: requests that would take forever or eat the machine are refused before
the work, by counted budgets, with status 2 and a message that names the culprit. The
tests say what happened, never how long it took: benchmarks/bench_bombs.py prints the
times (the target is under 100 ms each)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run_line

# (request line, a piece of the error message that names the term or the limit)
BOMBS: list[tuple[str, str]] = [
    ("roll 99999999999d6", "'99999999999d6' needs more than 1,000,000 dice"),
    ("roll 1d99999999999", "a die needs 1 to 1,000,000 sides"),
    ("roll 9999999999999d6", "more than 12 digits"),
    ("roll 1d1!", "'1d1!' would explode forever"),
    ("roll 1d6!>=1", "'1d6!>=1' would explode forever"),
    ("roll 1d2r<3", "'1d2r<3' would reroll forever"),
    ("roll 1000d2! --budget 1000", "'1000d2!' needs more than 1,000 dice"),
    ("roll 1000d2r1 --budget 1000", "'1000d2r1' needs more than 1,000 dice"),
    ("roll 100d2! --budget 101", "'100d2!' needs more than 101 dice"),
    ("roll 1000d2!! --budget 1000", "'1000d2!!' needs more than 1,000 dice"),
    ("roll 1d20 --budget 0", "--budget takes a number from 1 to 10,000,000"),
    ("roll 1d20 --budget 100000000", "--budget takes a number from 1 to 10,000,000"),
    ("roll 1000x 1000x 1d6", "unexpected 'x'"),
    ("roll 1001x 1d6", "it must be 1 to 1,000"),
    ("roll 1000x 1001d6", "needs more than 1,000,000 dice"),
    ("roll 2^1000", "unexpected '^1000'"),
    ("roll 2**1000", "expected a number, dice or '('"),
    ("roll 999999999999*999999999999", "is too large: a total must stay within"),
    ("roll " + "*".join(["999999999999"] * 760), "is too large"),
    ("odds roll " + "*".join(["999999"] * 4), "is too large"),
    ("roll ((1000d1000)d1000)d1000", "'((1000d1000)d1000)d1000' needs more than 1,000,000 dice"),
    ("roll (1000d1000)d1000 --budget 1000", "needs more than 1,000 dice"),
    ("roll (999999999999)d6", "'(999999999999)d6' needs more than 1,000,000 dice"),
    ("roll " + "(" * 10_000 + "1" + ")" * 10_000, "the limit is 10,000"),
    ("roll " + "(" * 4_000 + "1" + ")" * 4_000, "parentheses nest more than 100 levels"),
    ("check +" + "(" * 4_000 + "1" + ")" * 4_000 + " vs 5", "parentheses nest more than 100"),
    ("roll 1+" + "-" * 200 + "1", "more than 100 '-' signs"),
    ("roll " + "1+" * 6000 + "1", "the limit is 10,000"),
    ("check +5 vs 15 # " + "x" * 10_000, "the limit is 10,000"),
    ("group " + ",".join(["+1"] * 3300) + " vs 12", "at most 1,000 members"),
    ("group " + ", ".join(["+1 adv"] * 1001) + " vs 12", "at most 1,000 members"),
    ("odds roll 1000d1000kh500", "too costly"),
    ("odds roll 100000d20", "too costly"),
    ("odds roll (100d100)d100", "too costly"),
    ("odds roll 1000d1000000", "too costly"),
    ("odds roll 1d1000000*1d1000000", "too costly"),
    ("odds roll 1d6!! + 1d1000000", "too costly"),
    ("roll 1d20 --repeat 99999999999", "--repeat takes a number from 1 to 10,000,000"),
    ("odds roll 1d20 --simulate 99999999999", "--simulate takes a number from 1 to 10,000,000"),
]


@pytest.fixture(scope="module", autouse=True)
def _warm(_isolated_session: Path) -> None:
    """Import the grammar, systems and odds engine once, outside the timed runs. It runs
    before the per-test isolation (a module-scoped fixture comes first), so it names the
    session's own home: its rolls go to that home's roll log, never the user's."""
    for line in ("roll 1d6", "check +1 vs 10", "group +1, +2 vs 10", "odds roll 1d6"):
        run_line(line)


@pytest.mark.parametrize(("line", "message"), BOMBS, ids=lambda x: x[:40])
def test_bomb_is_refused_quickly(line: str, message: str) -> None:
    status, out, err, _ = run_line(line)
    assert status == 2, (out[:200], err)
    assert err.startswith("d20: error")
    assert message in err.splitlines()[0]
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "line",
    [
        "roll (1000d1000)d1000 -q",  # about half a million dice: within the budget
        "roll 1000x 1000d6 -q",  # a million dice: exactly the budget
        "roll (((1d6)d6)d6)d6",
        "group " + ",".join(["+1"] * 1000) + " vs 12 -q",  # the largest group
        "odds roll 1d6!",  # explosions: a depth cap, exact up to it
        "odds roll 10d10kh3",
    ],
)
def test_large_but_allowed(line: str) -> None:
    status, out, err, _ = run_line(line)
    assert status == 0, err
    assert out


def test_the_group_limit_points_at_the_extra_member() -> None:
    line = "group " + ",".join(["+1"] * 1001) + " vs 12"
    status, _, err, _ = run_line(line)
    assert status == 2
    assert f"column {len('group ') + 3 * 1000 + 1}" in err  # the 1,001st member
