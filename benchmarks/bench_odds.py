"""Exact odds, in-process: the headline example and the dice distributions of the issue.

Run by hand: `python benchmarks/bench_odds.py`. Prints the median time of each over
repeated runs (after one warm-up run that imports and builds the grammar), with the
request parsed once, as a batch or a shell session does (`Context.parse`), and in
brackets with the text parsed on every run.
"""

from __future__ import annotations

import statistics
import time

from d20cli.app.context import Context
from d20cli.probability.engine import odds_of

CASES = [
    ("check +5 vs 15 adv expertise=d6", "levelup", "< 1 ms"),
    ("attack +7 vs 15 dmg 1d8+4", "levelup", "-"),
    ("group +3, +5 adv, -1 vs 12", "levelup", "-"),
    ("opposed +8 vs +6", "mm", "-"),
    ("roll 4d6dl1", "levelup", "< 2 ms"),
    ("roll 30d6kh10", "levelup", "< 20 ms"),
    ("roll 100d20", "levelup", "< 100 ms"),
]


def median_ms(text: str, system: str, cached: bool, runs: int = 30) -> float:
    parse = Context().parse if cached else None
    odds_of(text, system, parse=parse)  # warm-up: imports, grammar
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        odds_of(text, system, parse=parse)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    for text, system, goal in CASES:
        cached, parsed = median_ms(text, system, True), median_ms(text, system, False)
        print(
            f"odds {text:<36} [{system}] {cached:8.2f} ms ({parsed:6.2f} ms parsing)   goal {goal}"
        )


if __name__ == "__main__":
    main()
