"""Exact odds, in-process (issue 20 item 3), and what `--odds` adds to a batch.

Run by hand: `python benchmarks/bench_odds.py [--quick]`. Nothing here is a test: the goals
are in the README's performance section.

In-process figures go through the public API, `d20cli.api.odds(...)` (its parse cache is
warm after the first call, as in a program that asks again). For each request it prints
the first, cold call (imports, grammar, tables) and the median of many calls after a
warm-up (`repeat`: the same request again; the engine remembers odds by value, so this
is mostly a look-up and a copy). `new` is a request the engine
has not computed before (its memo cleared before each call; the text parsed already),
of the same shape with other numbers each time: a new modifier and DC is the usual case
at the table, and remembering answers does not help it.

The batch: 100,000 mixed lines on standard input to JSON lines (the README's batch),
roll log off, with and without `--odds`, in a subprocess (the median of 7 runs of each,
interleaved).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

QUICK = "--quick" in sys.argv
PY = sys.executable
D20 = shutil.which("d20", path=str(Path(PY).parent)) or shutil.which("d20")

# (request, goal in ms, a request of the same shape with other numbers, for `fresh`)
CASES: list[tuple[str, float | None, Callable[[int], str] | None]] = [
    (
        "check +5 vs 15 adv expertise=d6",
        0.3,
        lambda i: f"check +{i % 11} vs {5 + i % 23} adv expertise=d{(4, 6, 8)[i % 3]}",
    ),
    ("check +5 vs 15", None, lambda i: f"check +{i % 11} vs {5 + i % 23}"),
    ("attack +7 vs 15 dmg 1d8+4", None, lambda i: f"attack +{i % 11} vs {10 + i % 13} dmg 1d8+4"),
    ("save -1 vs 12 dis", None, None),
    ("roll 4d6dl1", None, None),
    ("roll 30d6kh10", 5.0, lambda i: f"roll {20 + i % 11}d6kh{5 + i % 6}"),
    ("roll 100d20", 20.0, lambda i: f"roll {90 + i % 21}d20"),
]

BATCH_LINES = (
    b"check +5 vs 15 adv\n",
    b"roll 4d6kh3\n",
    b"attack +7 vs 15 dmg 1d8+4\n",
    b"save -1 vs 12 dis\n",
)


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def median_of(call: Callable[[], object], budget_s: float) -> float:
    """The median ms of calls repeated for about `budget_s` seconds (3 warm-up calls)."""
    for _ in range(3):
        call()
    times: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(times) < 5 or (time.perf_counter() < deadline and len(times) < 20_000):
        times.append(timed(call))
    return statistics.median(times)


def one_case(
    text: str, goal: float | None, fresh: Callable[[int], str] | None, seconds: float
) -> None:
    from d20cli import api
    from d20cli.probability import engine

    memo = getattr(engine, "MEMO", None)  # absent before the odds were remembered

    def forget() -> None:
        if memo is not None:
            memo.clear()

    cold = timed(lambda: api.odds(text))
    repeat = median_of(lambda: api.odds(text), seconds)
    new_ms = "-"
    if fresh is not None:
        texts = [fresh(i) for i in range(200)]
        for t in texts:  # parsed once: the figure is the odds, not the grammar
            api.parse(t)
        counter = iter(range(10**9))

        def new_one() -> object:
            forget()  # remembered odds would answer a text seen before
            return api.odds(texts[next(counter) % 200])

        new_ms = f"{median_of(new_one, seconds):9.3f}"
    goal_text = f"< {goal:g} ms" if goal is not None else "-"
    print(f"{text:<34} {cold:9.3f} {repeat:9.3f} {new_ms:>9}   {goal_text}")


def in_process() -> None:
    seconds = 0.3 if QUICK else 1.5
    print(f"{'odds in-process (d20cli.api.odds)':<34} {'cold':>9} {'repeat':>9} {'new':>9}   goal")
    for text, goal, fresh in CASES:
        one_case(text, goal, fresh, seconds)


def batch() -> None:
    if D20 is None:
        print("batch: install the project first (pip install -e .)")
        return
    runs = 1 if QUICK else 7
    lines = b"".join(BATCH_LINES) * 25_000
    env = dict(os.environ)
    tmp = tempfile.mkdtemp()
    env.update(XDG_CACHE_HOME=tmp, XDG_STATE_HOME=tmp, XDG_CONFIG_HOME=tmp, D20_NO_LOG="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def once(extra: list[str]) -> float:
        cmd = [D20, "--json", *extra]
        start = time.perf_counter()
        subprocess.run(cmd, input=lines, stdout=subprocess.DEVNULL, check=True, env=env)
        return (time.perf_counter() - start) * 1000

    once([])  # warm-up: bytecode, caches
    once(["--odds"])
    times: dict[str, list[float]] = {"plain": [], "odds": []}
    for _ in range(runs):  # interleaved, so a change of load hits both alike
        times["plain"].append(once([]))
        times["odds"].append(once(["--odds"]))
    plain, odds = statistics.median(times["plain"]), statistics.median(times["odds"])
    print(f"{'100,000 mixed lines -> JSON, --no-log':<44} {plain:8.0f} ms")
    print(
        f"{'the same with --odds':<44} {odds:8.0f} ms  (+{(odds / plain - 1) * 100:.0f}%, "
        "goal at most +30%)"
    )


def main() -> None:
    in_process()
    if "--no-batch" not in sys.argv:
        batch()


if __name__ == "__main__":
    main()
