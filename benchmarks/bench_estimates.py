"""What exact odds are estimated to cost against what they take (issue 43 item 4).

Run by hand: `python benchmarks/bench_estimates.py`. Nothing here is a test. A budget step
stands for about 0.5 µs. For each request it prints the steps charged (the estimate, made
before the work) and the time `d20 odds REQUEST` takes past its start-up (the odds, their
fractions and the printed lines), as steps of 0.5 µs, and their ratio (estimate /
measured: above 1 the estimate is high, below 1 low). A request's limit is 2,000,000
steps; one over it is refused, and here it is forced through with no limit, so that the
figures say whether refusing it was right: a refused request should measure more than
the limit, or near it. Run it on a quiet machine: the ratios move with the load.
"""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from d20cli.dice import distribution, weights
from d20cli.dice.weights import Budget
from d20cli.language.grammar import parse_request
from d20cli.present.odds_view import odds_lines
from d20cli.present.output import Output
from d20cli.probability import engine

STEP = 0.5e-6  # seconds a budget step stands for
LIMIT = distribution.DEFAULT_MAX_STATES

REQUESTS = [  # sums, keeps, pools, explosions, constants, near the limit and past it
    "roll 100d6",
    "roll 957d6",
    "roll 957d6+8",
    "roll 1000d6",
    "roll 300d20",
    "roll 300d20+1d4",
    "roll 250d20+5",
    "roll 100d20kh50",
    "roll 100d6kh50",
    "roll 20d20kh10",
    "roll 30d10>=7",
    "roll 20d6!kh10",
    "roll 30d6!kh15",
    "roll 10d10!kl3",
    "roll 20d6!kl5",
    "roll 6d8!pkh3",
    "roll 10d6!pkh5",
    "roll 13d6!pkh6",
    "roll 14d6!pkh7",
    "roll 12d12!pkh6",
    "roll 8d6!>4kh4",
    "roll 6d6!=3kh3",
    "roll 10d6!",
    "roll 3d6!!",
    "check +5 vs 15 adv expertise=d6",
    "attack +7 vs 15 dmg 2d6+1d8+4",
    "attack +7 vs 15 adv dmg 20d6",
]


def odds_work(text: str, budget: Budget) -> Callable[[], None]:
    """`d20 odds TEXT`'s work past its start-up: the odds (none remembered), then lines."""
    request = parse_request(text)

    def work() -> None:
        engine.MEMO.clear()
        odds = engine.odds_of(text, "levelup", parse=lambda _: request, within=budget)
        Output(io.StringIO(), io.StringIO(), color=False).lines(odds_lines(odds))

    return work


def main() -> None:
    weights.DEFAULT_MAX_STATES = 10**12  # forced through: the engine reads it per call
    print(f"{'request':34} {'estimate':>12} {'measured':>12} {'ratio':>7}")
    for text in REQUESTS:
        budget = Budget(10**12, text)
        odds_work(text, budget)()
        best = float("inf")
        for _ in range(1 if budget.spent > 4 * LIMIT else 3):
            work = odds_work(text, Budget(10**12, text))
            start = time.perf_counter()
            work()
            best = min(best, time.perf_counter() - start)
        measured = best / STEP
        refused = "  refused" if budget.spent > LIMIT else ""
        print(
            f"{text:34} {budget.spent:>12,} {measured:>12,.0f} "
            f"{budget.spent / measured:>7.2f}{refused}"
        )


if __name__ == "__main__":
    main()
