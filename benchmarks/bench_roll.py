"""Benchmark the dice engine in-process (a script, not a test).

    .venv/bin/python benchmarks/bench_roll.py

Prints rolls per second of `1d20+5` and `4d6kh3` with the parsed expression cached
(targets: >= 200,000/s and >= 100,000/s, evaluate only), a line for evaluate +
resolve_roll, and the time and peak traced memory of `1000000d6` (targets: < 0.5 s and
< 100 MiB).
"""

from __future__ import annotations

import random
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from d20cli.dice.evaluate import evaluate
from d20cli.dice.roller import RandomRoller
from d20cli.language.dice_grammar import parse_expression, parse_roll
from d20cli.rules.roll import resolve_roll

SECONDS = 1.0


def rate(label: str, text: str, target: int | None = None) -> None:
    expr = parse_expression(text)
    rng = random.Random(1)
    n = 0
    start = time.perf_counter()
    deadline = start + SECONDS
    while True:
        for _ in range(1000):
            evaluate(expr, RandomRoller(rng))
        n += 1000
        if time.perf_counter() >= deadline:
            break
    per_s = n / (time.perf_counter() - start)
    goal = (
        ""
        if target is None
        else f"  (target >= {target:,}/s: {'ok' if per_s >= target else 'MISSED'})"
    )
    print(f"{label:32} {per_s:12,.0f} rolls/s{goal}")


def rate_resolved(text: str) -> None:
    request = parse_roll(f"roll {text}")
    rng = random.Random(1)
    n = 0
    start = time.perf_counter()
    deadline = start + SECONDS
    while True:
        for _ in range(1000):
            resolve_roll(request, RandomRoller(rng), "levelup")
        n += 1000
        if time.perf_counter() >= deadline:
            break
    per_s = n / (time.perf_counter() - start)
    print(f"{'evaluate + resolve_roll ' + text:32} {per_s:12,.0f} rolls/s")


def huge() -> None:
    request = parse_roll("roll 1000000d6")
    tracemalloc.start()
    start = time.perf_counter()
    result = resolve_roll(request, RandomRoller(random.Random(1)), "levelup")
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # tracemalloc slows allocation down; time it again without tracing.
    start = time.perf_counter()
    resolve_roll(request, RandomRoller(random.Random(2)), "levelup")
    plain = time.perf_counter() - start
    mib = peak / 2**20
    ok = "ok" if plain < 0.5 and mib < 100 else "MISSED"
    print(
        f"{'1000000d6 (resolve_roll)':32} {plain:8.3f} s ({elapsed:.3f} s traced), "
        f"peak {mib:.1f} MiB  (target < 0.5 s, < 100 MiB: {ok}); total {result.total:,}"
    )


def main() -> None:
    rate("evaluate 1d20+5", "1d20+5", 200_000)
    rate("evaluate 4d6kh3", "4d6kh3", 100_000)
    rate_resolved("1d20+5")
    rate_resolved("4d6kh3")
    huge()


if __name__ == "__main__":
    main()
