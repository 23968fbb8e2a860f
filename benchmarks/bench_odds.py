"""Exact odds, in-process (issue 20 item 3), and what `--odds` adds to a batch.

Run by hand: `python benchmarks/bench_odds.py [--quick] [--no-batch]`. Nothing here is a
test: the goals are in the README's performance section.

In-process figures go through the public API, `d20cli.api.odds(...)` (its parse cache is
warm after the first call, as in a program that asks again). For each request it prints
the first, cold call (imports, grammar, tables) and the median of many calls after a
warm-up (`repeat`: the same request again; the engine remembers odds by value, so this
is mostly a look-up and a copy). `new` is a request the engine
has not computed before (its memo cleared before each call; the text parsed already),
of the same shape with other numbers each time: a new modifier and DC is the usual case
at the table, and remembering answers does not help it.

The batches: 100,000 lines on standard input to JSON lines, roll log off, with and
without `--odds`, in a subprocess (`python -m d20cli` with the code beside this script;
the median of 5 runs of each, interleaved, wall and CPU time): the README's batch (four
requests over and over) and a seeded table session in all four systems (`mixed_batch`:
about 1,900 different requests, so the odds of each are computed once and then found).
"""

from __future__ import annotations

import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

QUICK = "--quick" in sys.argv
RUNS = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
PY = sys.executable

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


def mixed_batch(seed: int = 20, count: int = 100_000) -> bytes:
    """`count` lines of a table session in all four systems, drawn with `seed`: checks,
    saves and attacks with damage of a few characters (their modifiers fixed, as a
    character's are) against the usual DCs and ACs, with advantage, disadvantage,
    expertise and house words now and then; contests, luck, degrees of mm and ranks of
    pendagger; and dice rolls: 1,903 different requests (seed 20), most asked many times."""
    rng = random.Random(seed)
    mods = ("-1", "+0", "+2", "+3", "+5", "+7")
    dcs = ("10", "12", "13", "15", "18", "20")
    damage = ("1d8+4", "2d6+3", "1d6+2", "1d10+5")

    def extra() -> str:
        return rng.choice(("", "", "", "", " adv", " dis", " adv", " lucky", " crit 19"))

    def levelup() -> str:
        verb = rng.choice(("check", "check", "save", "attack"))
        if verb == "attack":
            return f"attack {rng.choice(mods)} vs {rng.choice(dcs)} dmg {rng.choice(damage)}"
        expertise = rng.choice(("", "", "", " expertise=d4", " expertise=d6"))
        return f"{verb} {rng.choice(mods)} vs {rng.choice(dcs)}{extra()}{expertise} -s levelup"

    def reglamento() -> str:
        if rng.random() < 0.15:
            return f"contest {rng.choice(mods)} vs {rng.choice(mods)} -s reglamento"
        if rng.random() < 0.1:
            return "luck -s reglamento"
        verb = rng.choice(("check", "save", "attack"))
        return f"{verb} {rng.choice(mods)} vs {rng.choice(dcs)}{extra()} -s reglamento"

    def mm() -> str:
        kind = rng.choice(("check", "attack", "resist"))
        mod = rng.choice(("+4", "+6", "+8", "+10", "+12"))
        if kind == "attack":
            return f"attack {mod} vs defense {rng.choice(('4', '6', '8', '10'))} -s mm"
        if kind == "resist":
            return f"resist {mod} vs rank {rng.choice(('4', '6', '8', '10'))} -s mm"
        return f"check {mod} vs {rng.choice(('10', '15', '20', '25'))} -s mm"

    def pendagger() -> str:
        if rng.random() < 0.1:
            return "luck -s pendagger"
        rank = rng.choice(("novice", "trained", "adept", "master", "12", "14", "16"))
        words = rng.choice(("", "", " reliable", " unreliable", " adv", " dis"))
        return f"attempt {rank}{words} -s pendagger"

    def roll() -> str:
        return "roll " + rng.choice(("1d20+5", "2d6+3", "4d6kh3", "8d6", "1d100", "3d6"))

    makers = (levelup, levelup, levelup, reglamento, mm, pendagger, roll)
    return "".join(rng.choice(makers)() + "\n" for _ in range(count)).encode()


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
    """Each batch with and without `--odds`, interleaved, in one run: the median wall
    time and the median CPU time of the child (user + system: on a shared machine the
    wall time moves with the load, the CPU time much less)."""
    runs = 1 if QUICK else RUNS
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    tmp = tempfile.mkdtemp()
    env.update(XDG_CACHE_HOME=tmp, XDG_STATE_HOME=tmp, XDG_CONFIG_HOME=tmp, D20_NO_LOG="1")
    env.update(PYTHONPATH=root)  # the code beside this script (`python -m d20cli`)
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def once(lines: bytes, extra: list[str]) -> tuple[float, float]:
        cmd = [PY, "-m", "d20cli", "--json", *extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, input=lines, stdout=subprocess.DEVNULL, check=True, env=env)
        wall = (time.perf_counter() - start) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
        return wall, cpu

    batches = {
        "100,000 lines, the README's 4 requests": b"".join(BATCH_LINES) * 25_000,
        "100,000 lines, seeded table session": mixed_batch(),
    }
    for name, lines in batches.items():
        distinct = len(set(lines.splitlines()))
        once(lines, [])  # warm-up: bytecode, the parse cache
        once(lines, ["--odds"])
        times: dict[str, list[tuple[float, float]]] = {"plain": [], "odds": []}
        for _ in range(runs):  # interleaved, so a change of load hits both alike
            times["plain"].append(once(lines, []))
            times["odds"].append(once(lines, ["--odds"]))
        print(f"{name} ({distinct:,} different), -> JSON, --no-log:")
        for what in (0, 1):
            plain = statistics.median(t[what] for t in times["plain"])
            odds = statistics.median(t[what] for t in times["odds"])
            print(
                f"  {('wall', 'cpu')[what]}: {plain:8.0f} ms, with --odds {odds:8.0f} ms "
                f"(+{(odds / plain - 1) * 100:.0f}%, goal at most +30%)"
            )


def odds_lines() -> None:
    """`odds REQUEST` lines on standard input (issue 43 item 3: under 0.3 ms a line): the
    seeded table session's first 10,000 requests (BENCH_ODDS_LINES) as odds lines, to
    JSON, roll log off, with its disk caches warm. A line's CPU time is the batch's less
    one line's (the start-up), over the lines less one: the median of RUNS runs, with
    the distinct requests among them computed once each."""
    runs = 1 if QUICK else RUNS
    root = str(Path(__file__).resolve().parent.parent)
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, XDG_CACHE_HOME=tmp, XDG_STATE_HOME=tmp, XDG_CONFIG_HOME=tmp)
    env.update(D20_NO_LOG="1", PYTHONPATH=root)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    count = int(os.environ.get("BENCH_ODDS_LINES", "10000"))
    lines = [b"odds " + line for line in mixed_batch(count=count).splitlines(keepends=True)]
    many, one = b"".join(lines), lines[0]

    def cpu(data: bytes) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        cmd = [PY, "-m", "d20cli", "--json"]
        subprocess.run(cmd, input=data, stdout=subprocess.DEVNULL, check=True, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000

    cpu(many)  # warm-up: bytecode, the disk caches
    per_line = []
    for _ in range(runs):
        per_line.append((cpu(many) - cpu(one)) / (len(lines) - 1))
    distinct = len(set(lines))
    print(
        f"odds lines on standard input ({len(lines):,}, {distinct:,} different), -> JSON, "
        f"--no-log: {statistics.median(per_line):.3f} ms CPU a line (goal under 0.3 ms)"
    )


def main() -> None:
    in_process()
    if "--no-batch" not in sys.argv:
        odds_lines()
        batch()


if __name__ == "__main__":
    main()
