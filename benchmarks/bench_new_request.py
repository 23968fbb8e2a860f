"""Start-up of a request nobody typed before (issue 20, goal 1): a new text of a common
shape starts, rolls and prints in at most 60 ms median; a request of an unusual shape
(the first use of a notation, caches cold) within 110 ms.

Run by hand: `python benchmarks/bench_new_request.py` (BENCH_REQUESTS, BENCH_SEED and
BENCH_RUNS change the defaults). Each request is a fresh `d20 ... --no-log` process.

1. 200 requests are generated with a seed: random modifiers, DCs, dice counts and sides
   for the verbs of every system: levelup (check, save, attack, group, roll with keep,
   explode, reroll and pool notation), reglamento (check, save, attack, contest), mm
   (check, attack, resist, routine, opposed, compare, percent) and pendagger (attempt,
   scores).
2. The shapes get warm the way they do at a table: a first pass runs one request of
   each shape (its first use parses it and learns the shape into
   $XDG_CACHE_HOME/d20cli/shapes.cache; a sign is part of a shape, so `check +5 vs 15`
   and `check -1 vs 12` are two). Those texts are not among the measured ones.
3. The 200 requests, none of them seen before, are each run once and timed: median
   and 90th percentile. In the same loop, each is also run with the caches off
   (D20_NO_CACHE=1: what a new request costs without the shape cache), then `python -c
   pass` (its median is the scale) and a warm-up request again (a repeated request, the
   parse cache), so a busy machine weighs on every figure alike.
4. An unusual shape: the first use of a notation with both caches empty (each run
   starts from an empty cache directory).

Every figure is printed beside `python -c pass` measured in the same run, so machines of
different speed compare. Nothing here is a test.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from d20cli.language.shapes import key, split

PY = sys.executable
D20 = shutil.which("d20", path=str(Path(PY).parent)) or shutil.which("d20")
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "200"))
SEED = int(os.environ.get("BENCH_SEED", "20"))
RUNS = int(os.environ.get("BENCH_RUNS", "21"))

# As bench_startup.py: measure what a user gets, bytecode written and warm.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # rows as they come

Gen = Callable[[random.Random], str]


def _mod(r: random.Random) -> str:
    return f"{r.choice('+-')}{r.randint(0, 12)}"


def _dice(r: random.Random) -> str:
    return f"{r.randint(1, 4)}d{r.choice([4, 6, 8, 10, 12])}+{r.randint(0, 6)}"


#: (system, shape, generator): the common shapes of a session at the table.
SHAPES: list[tuple[str, Gen]] = [
    ("levelup", lambda r: f"check {_mod(r)} vs {r.randint(5, 25)}"),
    ("levelup", lambda r: f"check {_mod(r)} vs {r.randint(5, 25)} adv"),
    ("levelup", lambda r: f"check stealth {_mod(r)} vs {r.randint(5, 25)} expertise=d6"),
    ("levelup", lambda r: f"save {_mod(r)} vs {r.randint(5, 25)} dis"),
    ("levelup", lambda r: f"attack {_mod(r)} vs {r.randint(10, 22)} dmg {_dice(r)}"),
    ("levelup", lambda r: f"attack {_mod(r)} vs AC {r.randint(10, 22)} adv dmg {_dice(r)}"),
    ("levelup", lambda r: f"group {_mod(r)}, {_mod(r)}, {_mod(r)} vs {r.randint(8, 20)}"),
    ("reglamento", lambda r: f"check {_mod(r)} vs {r.randint(5, 25)}"),
    ("reglamento", lambda r: f"save {_mod(r)} vs {r.randint(5, 25)}"),
    ("reglamento", lambda r: f"attack {_mod(r)} vs {r.randint(10, 22)} dmg {_dice(r)}"),
    ("reglamento", lambda r: f"contest {_mod(r)} vs {_mod(r)}"),
    ("mm", lambda r: f"check {_mod(r)} vs {r.randint(10, 30)}"),
    ("mm", lambda r: f"resist {_mod(r)} vs rank {r.randint(1, 15)}"),
    ("mm", lambda r: f"resist {_mod(r)} vs toughness {r.randint(1, 15)}"),
    ("mm", lambda r: f"attack {_mod(r)} vs defense {r.randint(1, 15)}"),
    ("mm", lambda r: f"check {_mod(r)} vs routine +{r.randint(1, 15)}"),
    ("mm", lambda r: f"routine +{r.randint(0, 15)} vs {r.randint(10, 30)}"),
    ("mm", lambda r: f"opposed {_mod(r)} vs {_mod(r)} vs {_mod(r)}"),
    ("mm", lambda r: f"compare {r.randint(1, 15)} vs {r.randint(1, 15)}"),
    ("mm", lambda r: f"percent {r.randint(1, 99)}"),
    ("pendagger", lambda r: f"attempt {r.randint(3, 18)}"),
    ("pendagger", lambda r: f"attempt {r.randint(3, 18)} -{r.randint(1, 3)}"),
    ("pendagger", lambda r: f"attempt trained +{r.randint(0, 9)}"),
    ("pendagger", lambda r: f"attempt adept +{r.randint(0, 9)} reliable"),
    ("pendagger", lambda r: f"scores {r.randint(1, 20)}"),
    ("levelup", lambda r: f"roll 1d20{_mod(r)}"),
    ("levelup", lambda r: f"roll 1d20{_mod(r)} adv"),
    ("levelup", lambda r: f"roll {_dice(r)}"),
    ("levelup", lambda r: f"roll {r.randint(3, 8)}d6kh{r.randint(1, 3)}"),
    ("levelup", lambda r: f"roll {r.randint(2, 6)}x {r.randint(3, 5)}d6kh3"),
    ("levelup", lambda r: f"roll {r.randint(1, 6)}d{r.choice([6, 10])}!"),
    ("levelup", lambda r: f"roll {r.randint(1, 6)}d{r.choice([6, 8])}r1"),
    ("levelup", lambda r: f"roll {r.randint(3, 10)}d10>={r.randint(5, 9)}"),
    ("levelup", lambda r: f"roll {r.randint(2, 4)}d6 vs {r.randint(5, 15)}"),
]

UNUSUAL = ["roll 6d10!=10>=7f1", "check +5 vs 15 crit 19 lucky min 10", "roll 4dF+1 # fate"]


def requests(n: int, seed: int) -> tuple[list[list[str]], list[list[str]]]:
    """One warm-up request of each shape (`check +5 vs 15` and `check -1 vs 12` are two:
    a sign is part of the shape), and `n` other requests of those shapes (no text twice),
    as argument lists."""
    rng = random.Random(seed)
    seen: set[str] = set()

    def args(system: str, text: str) -> list[str]:
        return [*text.split(), "--system", system, "--no-log"]

    warm: list[list[str]] = []
    learnt: set[str] = set()
    for system, gen in SHAPES:
        for _ in range(200):  # every shape a generator makes
            text = gen(rng)
            parts = split(text)
            shape = key(parts[0]) if parts else text
            if shape not in learnt:
                learnt.add(shape)
                seen.add(text)
                warm.append(args(system, text))
    measured: list[list[str]] = []
    while len(measured) < n:
        system, gen = SHAPES[rng.randrange(len(SHAPES))]
        for _ in range(100):  # a shape with few texts may have none left
            text = gen(rng)
            if text not in seen:
                seen.add(text)
                measured.append(args(system, text))
                break
    return warm, measured


def once(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)
    return (time.perf_counter() - start) * 1000


def summary(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def row(name: str, times: list[float], base: float, goal: str) -> None:
    med, p90 = summary(times)
    print(
        f"{name:<52} median {med:6.1f} ms  x{med / base:4.1f}"
        f"   p90 {p90:6.1f} ms  x{p90 / base:4.1f}   goal {goal}"
    )


def main() -> None:
    if D20 is None:
        sys.exit("install the project first: pip install .")
    home = tempfile.mkdtemp()
    env = dict(os.environ)
    for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        env[name] = os.path.join(home, name.lower())
    env["D20_NO_LOG"] = "1"
    env.pop("D20_NO_CACHE", None)
    off = {**env, "D20_NO_CACHE": "1"}

    warm, measured = requests(REQUESTS, SEED)
    once([PY, "-c", "pass"])
    once([D20, "roll", "1d20", "--no-log"], off)  # bytecode written
    for args in warm:  # the first pass: one request of each shape learns it
        once([D20, *args], env)
    shapes_file = Path(env["XDG_CACHE_HOME"]) / "d20cli" / "shapes.cache"
    size = shapes_file.stat().st_size
    # One loop, so a busy machine weighs on every figure alike: each new request with the
    # shapes warm and with the caches off, `python -c pass`, and a repeated request.
    new_times, off_times, base_times, again_times = [], [], [], []
    for i, args in enumerate(measured):
        new_times.append(once([D20, *args], env))
        off_times.append(once([D20, *args], off))
        base_times.append(once([PY, "-c", "pass"]))
        again_times.append(once([D20, *warm[i % len(warm)]], env))
    base = statistics.median(base_times)
    print(f"{'python -c pass (between the requests)':<52} median {base:6.1f} ms  x 1.0")
    print(f"  {len(warm)} shapes warmed up ({size:,} bytes of shapes.cache)")
    row(f"{len(measured)} new requests, shapes warm", new_times, base, "60 ms median (5.5x)")
    row("a repeated request (parse cache)", again_times, base, "-")
    row("the same new requests, caches off (D20_NO_CACHE=1)", off_times, base, "- (before)")
    times = []
    for text in UNUSUAL:
        for _ in range(max(RUNS // len(UNUSUAL), 3)):
            cold_home = tempfile.mkdtemp()
            cold = {**env, "XDG_CACHE_HOME": cold_home}
            times.append(once([D20, *text.split(), "--no-log"], cold))
            shutil.rmtree(cold_home, ignore_errors=True)
    row("an unusual shape, first use, caches cold", times, base, "110 ms")
    print("  unusual: " + "; ".join(UNUSUAL))
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
