"""A lane's results remembered by their dice (d20cli.rolling.dice_memo): a batch that rolls a
line again gets the result kept for the faces it drew, and that is exactly what the
resolver would have made. Each batch runs in-process with the same run seed with the memo
and without it (or without lanes at all), and the two must agree line for line: output,
errors, status and roll log."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from state_helpers import logged_columns, run_batch

from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.run import results_of
from d20cli.app.tallies import with_chance
from d20cli.dice.roller import RandomRoller, Roller
from d20cli.language.requests import Request
from d20cli.results import Result
from d20cli.rolling import dice_memo
from d20cli.rolling.dice_memo import DiceMemo, MemoSpace
from d20cli.rolling.prepared import PreparedLines
from d20cli.store.state import db_path

# Plain requests of every system with dice: single d20s, advantage, lucky rerolls, crit
# ranges, damage rolled on a hit (twice on a critical), pools drawn at once, explosions,
# rerolls, Fudge dice, sub-rolls, successes, constants, contests and groups; and lines
# that a budget refuses now and then (an explosion past 3 dice).
POOL = [
    "check +5 vs 15 adv",
    "check +5 vs 15 dis",
    "save -1 vs 12",
    "check +3 vs 12 crit 19 lucky",
    "check +2 vs 10 min 10",
    "attack +7 vs 15 dmg 1d8+4",
    "attack +3 vs 12 dmg 2d6+1 adv",
    "attack +6 vs 16 dmg 1d8+2 crit 19",
    "group +3, +2, +5 vs 12",
    "roll 4d6kh3",
    "roll 2d20kl1",
    "roll 1d4+1d6",
    "roll 1d6!",
    "roll 3d6r1",
    "roll 4dF",
    "roll d100%7",
    "roll 6d6>=5",
    "roll {3d6, 2d6}kh1",
    "roll 5",
    "roll 2d6! --budget 3",
    "check +2 vs 14 -s reglamento",
    "attack +4 vs 13 dmg 1d6 -s reglamento",
    "contest +3 vs +2 -s reglamento",
    "check +4 vs 10 --system mm",
    "attack +8 vs 14 --system mm",
    "resist +6 vs rank 8 --system mm",
    "roll 2d6 --system mm",
]


def batch(lines: list[str], how: str, seed: int = 7) -> tuple[int, str, str, Context]:
    """The lines as one standard-input run with the run seed `seed`, `how`: "memo" (the
    usual run), "no memo" (lanes that keep no result) or "no lanes" (every line worked out
    again): (status, stdout, stderr, the run's context, closed)."""
    context = Context(seed=seed)
    if how == "no memo":
        context.prepared.space = None
    if how == "no lanes":
        context.prepared_line = lambda text, opts: None  # type: ignore[method-assign]
    return (*run_batch(lines, context), context)


def lanes_by_text(context: Context) -> dict[str, DiceMemo | None]:
    return {lane.request.text: lane.memo for lane in context.prepared.all()}


def memos(context: Context) -> list[DiceMemo]:
    return [lane.memo for lane in context.prepared.all() if lane.memo is not None]


def test_results_from_the_memo_are_the_resolvers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """300 rounds of every line: the memo answers most rolls, and the output, the errors,
    the status and the roll log are those of the run that works every line out."""
    lines = POOL * 300
    runs = []
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    for how in ("memo", "no lanes"):
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / how.replace(" ", "-")))
        status, stdout, stderr, context = batch(lines, how)
        runs.append((status, stdout.splitlines(), stderr.splitlines(), logged_columns(db_path())))
        if how == "memo":
            kept = memos(context)
            assert len(kept) >= 20  # every plain line of one result has its memo
            hits = sum(memo.hits for memo in kept)
            assert hits > len(lines) // 2  # most rolls came from the memo
            assert context.prepared.space is not None
            assert sum(memo.bytes for memo in kept) == dice_memo.ROOM - context.prepared.space.left
    fast, full = runs
    assert fast == full
    answered = [json.loads(line) for line in fast[1]]
    assert sum(1 for a in answered if "error" in a) > 0  # the explosions past the budget
    assert len(fast[3]) == sum(1 for a in answered if "dice" in a)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    lines=st.lists(st.sampled_from(POOL), min_size=1, max_size=12),
    rounds=st.integers(1, 40),
)
def test_any_batch_rolls_the_same_with_and_without_the_memo(
    seed: int, lines: list[str], rounds: int
) -> None:
    """Whatever the lines and the seed: the memo changes nothing that is printed."""
    with_memo = batch(lines * rounds, "memo", seed)
    without = batch(lines * rounds, "no memo", seed)
    assert with_memo[:3] == without[:3]
    assert not memos(without[3])


def test_a_result_rolled_again_is_the_one_kept() -> None:
    """The same faces give the very Result made before, its JSON written once."""
    status, stdout, _, context = batch(["check +5 vs 15"] * 400, "memo")
    assert status == 0
    (memo,) = memos(context)
    assert memo.leaves == 20  # one result for each face of the d20
    # the first line makes the lane and rolls the usual way, then WAIT rolls go plainly
    assert memo.hits == 399 - dice_memo.WAIT - 20
    assert memo.misses == 0
    lines = stdout.splitlines()
    by_face = {}
    for line in lines:
        by_face.setdefault(json.loads(line)["natural"], set()).add(line)
    assert all(len(same) == 1 for same in by_face.values())


def test_the_memo_is_bounded_in_a_lane_and_in_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lane keeps at most MAX_LEAVES results, all lanes together ROOM bytes of them
    (LEAF_BYTES a character of each one's JSON); a full lane that keeps missing stops
    using its tree and gives its room back."""
    monkeypatch.setattr(dice_memo.DiceMemo, "LEAVES", 30)  # (MAX_LEAVES, as made)
    monkeypatch.setattr(dice_memo, "MISSES", 50)
    _, _, _, context = batch(["roll 3d6"] * 400 + ["check +1 vs 10"] * 100, "memo")
    lanes = lanes_by_text(context)
    wide = lanes["roll 3d6"]
    assert wide is not None and not wide.on  # 216 ways to fall, 30 kept: mostly misses
    assert wide.leaves == 0 and wide.root is None
    narrow = lanes["check +1 vs 10"]
    assert narrow is not None and narrow.on and narrow.leaves == 20
    space = context.prepared.space
    assert space is not None and space.left == dice_memo.ROOM - narrow.bytes
    assert narrow.bytes == sum(
        dice_memo.LEAF_BYTES * len(leaf.json_text())  # type: ignore[union-attr]
        for leaf in narrow.root.branches.values()  # type: ignore[union-attr]
    )

    monkeypatch.setattr(dice_memo, "ROOM", 12_000)  # a few results (about 2,000 bytes each)
    _, _, _, context = batch(["check +1 vs 10"] * 50 + ["roll 1d8"] * 50, "memo")
    kept = memos(context)
    assert 3 <= sum(memo.leaves for memo in kept) < 10
    assert context.prepared.space is not None and 0 <= context.prepared.space.left < 3_000
    assert sum(memo.bytes for memo in kept) == 12_000 - context.prepared.space.left
    # the room was full before the d8 came: its rolls went straight to the resolver
    assert context.prepared.space.full
    late = lanes_by_text(context)["roll 1d8"]
    assert late is not None and late.root is None and late.misses == 0


class _Fickle:
    """A resolver that is not a function of its dice: it asks for a d6 on its first call
    and for a d8 on every other."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, request: Request, roller: Roller) -> Result:
        self.calls += 1
        sides = 6 if self.calls == 1 else 8
        face = roller.roll(1, sides)
        return Result(request=f"d{sides}: {face}", system="levelup", verb="roll")


def test_a_resolver_that_is_not_a_function_of_its_dice_drops_the_memo() -> None:
    """(No rule of d20cli does this.) Once the resolver asks for another draw than the
    tree made, the memo drops its tree and the request is rolled as the resolver asks:
    its faces are never handed to a draw of another kind."""
    memo = DiceMemo(MemoSpace())
    memo.wait = 0
    resolve = _Fickle()
    roller = RandomRoller(random.Random(3))
    request: Any = object()
    first = memo.roll(request, resolve, roller)
    assert first.request.startswith("d6: ") and memo.leaves == 1
    for _ in range(200):  # hits until the d6 shows another face, then the d8 is asked
        result = memo.roll(request, resolve, roller)
        if not memo.on:
            break
        assert result.request == first.request
    else:
        pytest.fail("the memo never met the other draw")
    assert result.request.startswith("d8: ")
    assert memo.root is None and memo.leaves == 0
    later = [memo.roll(request, resolve, roller) for _ in range(20)]
    assert all(r.request.startswith("d8: ") for r in later)
    assert {int(r.request[4:]) for r in later} > set(range(1, 7))  # a d8's faces


def test_the_budget_in_force_is_part_of_what_the_memo_answers_for() -> None:
    """A result is kept for the budget it was rolled under; another budget rolls afresh."""
    memo = DiceMemo(MemoSpace())
    memo.wait = 0
    calls = []

    def resolve(request: Request, roller: Roller) -> Result:
        calls.append(roller.budget)
        return Result(request=str(roller.roll(1, 2)), system="levelup", verb="roll")

    big, small = RandomRoller(random.Random(1), 100), RandomRoller(random.Random(1), 5)
    request: Any = object()
    for _ in range(20):
        memo.roll(request, resolve, big)
    assert len(calls) == 2 and memo.leaves == 2  # both faces, then only hits
    memo.roll(request, resolve, small)
    assert calls[-1] == 5 and memo.leaves == 2


def test_the_odds_note_of_a_result_kept_is_made_once_for_its_odds() -> None:
    """`--odds` on a result the memo hands out again: the noted copy is made once for
    those odds (its JSON with the chance, though the result's own JSON was written
    first), and made anew for other odds."""
    context = Context(seed=1)
    result = next(iter(results_of("check +5 vs 15", Options())))
    assert '"chance"' not in result.json_text()
    odds = context.odds("check +5 vs 15", Options(odds=True))
    noted = with_chance(result, odds)
    assert with_chance(result, odds) is noted
    written = json.loads(noted.json_text())
    assert written["chance"] and written["notes"][-1] == noted.notes[-1]
    assert result.json_text() != noted.json_text()
    other = context.odds("check +5 vs 16", Options(odds=True))
    assert with_chance(result, other) is not noted
    again = with_chance(noted, odds)  # (a noted copy keeps nothing of its original's)
    assert again is not noted and again.notes[-1] == noted.notes[-1]


def test_a_text_rolled_with_other_options_keeps_a_lane_for_each() -> None:
    """`check +5 vs 15` in three systems, on lines of their own: a lane (and memo) for
    each, none made again; past PreparedLines.PER_TEXT option sets for one text, the oldest lane
    is let go and its memo's room given back."""
    systems = ["-s levelup", "-s reglamento", "--system mm"]
    _, _, _, context = batch([f"check +5 vs 15 {s}" for s in systems] * 100, "memo")
    kept = memos(context)
    assert len(kept) == 3 and all(memo.hits > 30 for memo in kept)

    variants = [*systems, "-s levelup --exit-status", "-s levelup -q", "--system mm -q"]
    _, _, _, context = batch([f"check +5 vs 15 {v}" for v in variants] * 60, "memo")
    lanes = context.prepared.all()
    assert len(lanes) == PreparedLines.PER_TEXT
    room = context.prepared.space
    assert room is not None
    assert room.left == dice_memo.ROOM - sum(memo.bytes for memo in memos(context))


def test_a_line_rolled_a_few_times_keeps_nothing() -> None:
    """A lane's first WAIT rolls go plainly to the resolver: a line rolled only a few
    times (most lines of a long session of many different requests) fills no room."""
    _, _, _, context = batch(["check +5 vs 15 adv"] * (dice_memo.WAIT + 1), "memo")
    (memo,) = memos(context)
    assert memo.root is None and memo.leaves == memo.hits == memo.misses == 0
    assert memo.wait == 0 and context.prepared.space is not None
    assert context.prepared.space.left == dice_memo.ROOM
