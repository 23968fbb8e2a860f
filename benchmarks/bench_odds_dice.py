"""Time exact distributions of dice expressions (a script, not a test).

    .venv/bin/python benchmarks/bench_odds_dice.py [EXPR ...]

Prints the best of several runs for each expression, with its target where there is one.
"""

from __future__ import annotations

import sys
import time

from d20cli.dice.distribution import distribution
from d20cli.language.dice_grammar import parse_expression

TARGETS_MS: dict[str, float | None] = {
    "4d6dl1": 2.0,
    "8d6kh3": None,
    "30d6kh10": 5.0,
    "100d20": 20.0,
}


def best_of(text: str, runs: int = 5) -> float:
    """The fastest of `runs` computations of `text`'s distribution, in milliseconds."""
    expr = parse_expression(text)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        distribution(expr)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main(argv: list[str]) -> int:
    texts = argv or list(TARGETS_MS)
    for text in texts:
        ms = best_of(text)
        target = TARGETS_MS.get(text)
        verdict = "" if target is None else f"  (target < {target:g} ms: "
        if target is not None:
            verdict += "ok)" if ms < target else "SLOW)"
        print(f"{text:>12}  {ms:9.3f} ms{verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
