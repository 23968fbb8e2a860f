"""The Python API at a chat bot's pace (issue 43 item 1): a request read once is kept with
its plan and its results by their faces (`api._READY`, bounded), unseeded calls draw from
their thread's generator, and none of it changes a result, a warning or an error."""

from __future__ import annotations

import hashlib
import os
import random
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import pytest

import d20cli
from d20cli import api
from d20cli.rolling import dice_memo

#: Each request's results over seeds 0..47, seeds 0..2 with repeat=3, and 48 calls with
#: one random.Random(5): digests recorded with the main branch before the API kept its
#: requests (and their results by faces), so every figure here is a roll of before.
RECORDED = (
    ("1d20+5", "levelup", "ad5ed61211f39ed1"),
    ("4d6kh3", "levelup", "540162f92b2e9dbc"),
    ("2d20kh1+1d6+5", "levelup", "c36867ceec29547c"),
    ("8d6", "levelup", "e898b1c307336de9"),
    ("1d20+5 [label]", "levelup", "e138c69cca5b6306"),
    ("check +5 vs 15 adv expertise=d6", "levelup", "5705a6b865164797"),
    ("attack +7 vs AC 15 dmg 1d8+4", "levelup", "d856ee39d030dbd9"),
    ("save +3 vs 12 dis", "levelup", "16ba3ee056c47a85"),
    ("roll 6d10!=10>=7", "levelup", "78fb2cf8a0f36627"),
    ("1d20; 2d6+3", "levelup", "7d8677cb43b1a5f7"),
    ("3x 2d6", "levelup", "94b204c009f4d5c6"),
    ("check +5 vs 15", "a5e", "2c1251cafda7f29f"),
    ("contest +1 vs +2 adv vs +3", "reglamento", "b0e925461ec5bc77"),
    ("check +8 vs tough bonus", "mm", "643d6feb0d3622d9"),
    ("scores 3", "pendagger", "45bb254036d0c475"),
    ("4dF+1", "levelup", "2268ac8397b2e072"),
    ("group +3, +5 adv, -1 vs 12", "levelup", "2435ed9b1b66a004"),
    ("5d10>7", "levelup", "b9b728d9529f4279"),
    ("d%", "levelup", "9bc8834fcf3d57e7"),
    ("10d6!kh3", "levelup", "910aa04c7eb1d56f"),
)


def _digest(text: str, system: str) -> str:
    lines: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(48):  # past the memo's WAIT: later seeds read it
            lines += [r.json_text() for r in d20cli.roll_all(text, system=system, seed=seed)]
        for seed in range(3):
            lines += [
                r.json_text() for r in d20cli.roll_all(text, system=system, seed=seed, repeat=3)
            ]
        rng = random.Random(5)
        for _ in range(48):
            lines += [r.json_text() for r in d20cli.roll_all(text, system=system, rng=rng)]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("text", "system", "digest"), RECORDED)
def test_seeded_results_are_those_of_before(text: str, system: str, digest: str) -> None:
    api._READY.clear()
    assert _digest(text, system) == digest  # read and rolled afresh
    assert _digest(text, system) == digest  # from the kept request and its memo


def test_the_memo_gives_the_results_the_rules_give() -> None:
    """Past WAIT rolls a request's results come from its memo: each is the one the
    system's rules make for those dice."""
    api._READY.clear()
    text = "check +5 vs 15 expertise=d4"
    kept = [d20cli.roll(text, seed=seed) for seed in range(200)]
    ready = api._READY[(text, api.DEFAULT_SYSTEM, False)]
    assert ready.memo is not None and ready.memo.hits > 0
    for result in kept:
        faces = [die.face for die in result.dice]
        assert d20cli.roll(text, dice=faces) == result


def test_the_kept_requests_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    small = api._Prepared(4)
    monkeypatch.setattr(api, "_READY", small)
    space = small.space
    for n in range(10):
        assert d20cli.roll(f"1d20+{n}", dice=[7]).total == 7 + n
        assert len(small) <= 4
    assert small.space is not space  # emptied: the memos' space with them
    assert d20cli.roll("1d20+9", dice=[3]).total == 12


def test_a_memo_keeps_at_most_its_leaves() -> None:
    """A request of many ways to fall is dropped from the memo once it keeps missing;
    one of few keeps all of them."""
    api._READY.clear()
    for _ in range(3000):
        d20cli.roll("2d20kh1+1d6+5")
        d20cli.roll("1d20+3")
    wide = api._READY[("2d20kh1+1d6+5", api.DEFAULT_SYSTEM, False)].memo
    narrow = api._READY[("1d20+3", api.DEFAULT_SYSTEM, False)].memo
    assert wide is not None and wide.leaves <= api._SharedMemo.LEAVES
    assert not wide.on and wide.root is None  # 2,400 ways: dropped for its misses
    assert narrow is not None and narrow.on and narrow.leaves == 20


def test_threads_roll_through_one_cache() -> None:
    """Eight threads roll the same and different requests at once, seeded and not: every
    seeded result is the one rolled alone, and the shared memos stay whole."""
    api._READY.clear()
    texts = ["1d20+5", "4d6kh3", "1d20+5 [label]", "check +5 vs 15 adv", "2d6+1"]
    jobs = [(texts[i % len(texts)], i % 97) for i in range(2000)]
    alone = {job: d20cli.roll(job[0], seed=job[1]).json_text() for job in set(jobs)}
    api._READY.clear()
    start = threading.Barrier(8)

    def work(part: int) -> list[str]:
        start.wait()
        out = []
        for text, seed in jobs[part::8]:
            out.append(d20cli.roll(text, seed=seed).json_text())
            d20cli.roll(text)  # unseeded, through the same memo
        return out

    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(work, range(8)))
    for part, got in enumerate(together):
        assert got == [alone[job] for job in jobs[part::8]]
    for text in texts:
        memo = api._READY[(text, api.DEFAULT_SYSTEM, False)].memo
        assert memo is not None and memo.on  # no thread made another drop it
    for seed in range(40):  # and it still answers as the rules do
        result = d20cli.roll("1d20+5", seed=seed)
        assert result.total == result.dice[0].face + 5


def test_threads_roll_through_a_cache_that_empties(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "_READY", api._Prepared(3))
    texts = [f"1d20+{n}" for n in range(12)]
    alone = {(t, s): d20cli.roll(t, seed=s).total for t in texts for s in range(5)}

    def work(part: int) -> bool:
        return all(
            d20cli.roll(t, seed=s).total == alone[t, s]
            for _ in range(5)
            for t in texts[part::3]
            for s in range(5)
        )

    with ThreadPoolExecutor(6) as pool:
        assert all(pool.map(work, [0, 1, 2, 0, 1, 2]))
    assert len(api._READY) <= 3


def test_a_notation_warning_is_said_on_every_call() -> None:
    api._READY.clear()
    for _ in range(dice_memo.WAIT + 20):  # read once, then from the cache and the memo
        with pytest.warns(d20cli.NotationWarning, match="Roll20") as said:
            d20cli.roll("5d10>7")
        assert len(said) == 1 and said[0].filename == __file__
        with pytest.raises(d20cli.ParseError, match="strict=True"):
            d20cli.roll("5d10>7", strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d20cli.roll("5d10>=7")  # no warning where there was none


def test_errors_are_the_same_from_the_cache() -> None:
    api._READY.clear()
    for _ in range(3):
        with pytest.raises(d20cli.ParseError) as many:
            d20cli.roll("3x 2d6")
        assert many.value.column == 1 and "roll_all" in many.value.message
        with pytest.raises(d20cli.BudgetError, match="raise it with budget=N"):
            d20cli.roll("20d6", budget=10)
        with pytest.raises(d20cli.DiceError) as short:
            d20cli.roll("2d6+1", dice=[3])
        assert short.value.message.endswith("(die #2 is a d6)")
        with pytest.raises(d20cli.ParseError) as bad:
            d20cli.roll("d0")
        assert (bad.value.text, bad.value.column) == ("d0", 2)  # as the caller gave it
        with pytest.raises(d20cli.RulesError):
            d20cli.roll("check +5 vs 15 adv", system="mm")


def test_an_unseeded_call_draws_from_its_threads_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The OS seeds a thread's generator once, not every call."""
    drawn: list[int] = []
    urandom = os.urandom

    def counted(n: int) -> bytes:
        drawn.append(n)
        return urandom(n)

    monkeypatch.setattr(api.os, "urandom", counted)

    def rolls() -> set[int]:
        return {d20cli.roll("1d20").total for _ in range(200)}

    with ThreadPoolExecutor(1) as pool:
        faces = pool.submit(rolls).result()
    assert len(drawn) == 1 and faces == set(range(1, 21))
    mine = api._random()
    assert api._random() is mine
    other = ThreadPoolExecutor(1)
    assert other.submit(api._random).result() is not mine
    other.shutdown()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_rolls_its_own_dice() -> None:
    d20cli.roll("1d20")  # the parent's generator exists
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next dice
        try:
            os.write(write, bytes(d20cli.roll("1d20").total for _ in range(40)))
        finally:
            os._exit(0)
    os.close(write)
    child = os.read(read, 100)
    os.close(read)
    os.waitpid(pid, 0)
    parent = bytes(d20cli.roll("1d20").total for _ in range(40))
    assert len(child) == 40 and child != parent


def test_odds_of_a_known_request_are_the_odds_computed_once() -> None:
    """`d20cli.odds` reads a request through the requests `roll` keeps (`_READY`) and
    hands out the engine's sealed odds, not a copy (issue 43 item 3): the same object,
    read-only, equal to odds computed afresh, and its warnings and errors said on every
    call as the first time."""
    from d20cli.probability import engine

    api._READY.clear()
    engine.MEMO.clear()
    first = d20cli.odds("check +5 vs 15 adv expertise=d6")
    assert d20cli.odds("check +5 vs 15 adv expertise=d6") is first
    assert ("check +5 vs 15 adv expertise=d6", api.DEFAULT_SYSTEM, False) in api._READY
    with pytest.raises(TypeError, match="read-only"):
        first.outcomes["success"] = Fraction(1)
    engine.MEMO.clear()
    api._READY.clear()
    assert d20cli.odds("check +5 vs 15 adv expertise=d6") == first
    assert first.outcomes["success"] == Fraction(1967, 2400)
    d20cli.roll("check +5 vs 15 adv expertise=d6", seed=1)  # rolled through the same read
    assert len(api._READY) == 1
    for _ in range(3):
        with pytest.warns(d20cli.NotationWarning, match="Roll20") as said:
            d20cli.odds("5d10>7")
        assert len(said) == 1 and said[0].filename == __file__
        with pytest.raises(d20cli.ParseError, match="strict=True") as strict:
            d20cli.odds("5d10>7", strict=True)
        assert (strict.value.text, strict.value.column) == ("5d10>7", 5)
        with pytest.raises(d20cli.RulesError) as rules:
            d20cli.odds("check +5 vs 15 adv", system="mm")
        assert rules.value.column == 16
        with pytest.raises(d20cli.D20Error, match="odds take one roll"):
            d20cli.odds("1d20; 2d6")


def test_odds_show_as_text_whoever_imported_the_engine_first() -> None:
    """`d20cli.odds` takes the odds engine from the modules already imported (no import
    statement a call); the odds still print as `d20 odds` does when something else (the
    command line's path) imported the engine before the odds' text."""
    import subprocess
    import sys

    code = (
        "import d20cli, d20cli.probability.engine, sys\n"
        "assert 'd20cli.present.odds_view' not in sys.modules\n"
        "print(d20cli.odds('1d6'))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert proc.stdout.startswith("odds roll 1d6  [levelup]")
    assert "mean 3.5" in proc.stdout
