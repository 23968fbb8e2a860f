"""What each memo of a run buys (docs/performance.md): a batch on standard input run in
process with every memo on, then with one memo at a time turned off (it forgets what it
is given), interleaved over several rounds so a busy machine weighs on every figure alike.

Run by hand: `python benchmarks/bench_caches.py` (BENCH_ROUNDS, BENCH_LINES change the
defaults). Each figure is the least CPU time of a workload (the median beside it),
and its ratio to the fastest with every memo on: a memo whose ratio stays at 1.00 buys
nothing here (bench_memos.py measures the memos outside a run's Context). Nothing here
is a test.
"""

from __future__ import annotations

import io
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
_HOME = tempfile.mkdtemp()
for _name in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
    os.environ[_name] = _HOME
os.environ["D20_NO_LOG"] = "1"

from d20cli import results  # noqa: E402
from d20cli.app import context as context_module  # noqa: E402
from d20cli.app.context import Context  # noqa: E402
from d20cli.app.options import Options  # noqa: E402
from d20cli.app.stdin import run_lines  # noqa: E402
from d20cli.bounded import Bounded  # noqa: E402
from d20cli.present.output import Output  # noqa: E402
from d20cli.rules import common, levelup, roll  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
LINES = int(os.environ.get("BENCH_LINES", "5000"))
#: A request rolled many times in one line: what `--repeat` rolls (its resolver each time).
REPEATED = [
    "check +5 vs 15 adv expertise=d6 --repeat 20000 --summary",
    "attack +7 vs 15 crit 19 dmg 1d8+4 --repeat 20000 --summary",
]
#: Lines asking for their odds, and lines rolled through a character (`--as`).
ODDS = ["check +5 vs 15 adv --odds", "attack +7 vs 15 dmg 1d8+4 --odds", "save +2 vs 12 --odds"]
AS = ["check stealth vs 15 --as hero", "sneak --as hero", "check athletics +1 vs 12 --as hero"]
#: BENCH_LOADS: the workloads to run (batch, --repeat, --odds, --as; the first two unless
#: given), and BENCH_ONLY the memos to turn off (by a word of their names; all unless given)
LOADS = os.environ.get("BENCH_LOADS", "batch,--repeat").split(",")
ONLY = [w for w in os.environ.get("BENCH_ONLY", "").split(",") if w]


class Forget(Bounded[Any, Any]):
    """A memo that keeps nothing."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def characters() -> None:
    """The characters file the `--as` lines roll through."""
    home = Path(_HOME) / "d20cli"
    home.mkdir(parents=True, exist_ok=True)
    (home / "characters.toml").write_text(
        '[hero]\nsystem = "levelup"\n[hero.skills]\nstealth = 5\nathletics = 3\n'
        '[hero.macros]\nsneak = "check stealth vs 15 adv"\n',
        encoding="utf-8",
    )


def batch() -> list[str]:
    """A table's batch: the four lines of bench_startup's, and as many again drawn from
    a few hundred texts of the same shapes (a label word among them)."""
    rng = random.Random(7)
    fixed = ["check +5 vs 15 adv", "roll 4d6kh3", "attack +7 vs 15 dmg 1d8+4", "save -1 vs 12 dis"]
    texts = (
        [f"check +{rng.randint(0, 9)} vs {rng.randint(8, 20)}" for _ in range(100)]
        + [
            f"attack +{rng.randint(0, 9)} vs {rng.randint(10, 20)} crit 19 "
            f"dmg 1d{rng.choice((6, 8, 10))}+{rng.randint(0, 5)}"
            for _ in range(100)
        ]
        + [f"roll {rng.randint(1, 6)}d6+{rng.randint(0, 5)}" for _ in range(100)]
    )
    texts.append("check stealth vs 15")
    return [fixed[i % 4] if i % 2 else rng.choice(texts) for i in range(LINES)]


def run(lines: list[str], made: Callable[[Context], None]) -> float:
    context = Context(seed=1)
    made(context)
    out = Output(stdout=io.StringIO(), stderr=io.StringIO(), flush_lines=False)
    start = time.process_time()  # CPU time: what other processes do weighs on it least
    run_lines(lines, Options(json=True, no_log=True), out, context)
    out.flush()
    took = time.process_time() - start
    context.close()
    return took


def forget(*names: str) -> Callable[[Context], None]:
    def made(context: Context) -> None:
        for name in names:
            setattr(context, name, Forget())

    return made


def no_prepared(context: Context) -> None:
    context.prepared_line = lambda text, opts: None  # type: ignore[method-assign]


def unwrapped(module: Any, name: str, *also: Any) -> tuple[Callable[[], None], Callable[[], None]]:
    kept = getattr(module, name)

    def off() -> None:
        for where in (module, *also):
            setattr(where, name, kept.__wrapped__)

    def on() -> None:
        for where in (module, *also):
            setattr(where, name, kept)

    return off, on


def main() -> None:
    lines = batch()
    nothing: Callable[[Context], None] = lambda context: None  # noqa: E731
    words = levelup._words
    variants: dict[str, tuple[Callable[[Context], None], Callable[[], None], Callable[[], None]]]
    idle = lambda: None  # noqa: E731
    read = roll._read
    variants = {
        "every memo on": (nothing, idle, idle),
        "Context.prepared (prepared_line)": (no_prepared, idle, idle),
        "Context.lines": (forget("lines"), idle, idle),
        "Context.requests_made": (forget("requests_made"), idle, idle),
        "Context.parsed": (forget("parsed"), idle, idle),
        "Context._house": (forget("_house"), idle, idle),
        "Context.as_parsed": (forget("as_parsed"), idle, idle),
        "results.shared_die": (nothing, *unwrapped(results, "shared_die", common)),
        "roll._read": (
            nothing,
            lambda: setattr(roll, "_read", roll._read_text.__wrapped__),
            lambda: setattr(roll, "_read", read),
        ),
        "levelup._words": (
            nothing,
            lambda: setattr(levelup, "_words", levelup._read_words),
            lambda: setattr(levelup, "_words", words),
        ),
    }
    assert context_module  # (the module the memos live in)
    characters()
    every = {
        "batch": lines,
        "--repeat": REPEATED,
        "--odds": ODDS * (LINES // 10),
        "--as": AS * (LINES // 10),
    }
    loads = {name: every[name] for name in LOADS}
    variants = {
        name: v
        for name, v in variants.items()
        if name == "every memo on" or not ONLY or any(w in name for w in ONLY)
    }
    times: dict[tuple[str, str], list[float]] = {}
    for load in loads.values():
        run(load, nothing)  # warm-up: the grammar imported, the systems made
    for _ in range(ROUNDS):
        for name, (made, off, on) in variants.items():
            for load_name, load in loads.items():
                off()
                try:
                    times.setdefault((name, load_name), []).append(run(load, made))
                finally:
                    on()
    print(
        f"batch: {LINES:,} lines; --repeat: {len(REPEATED)} lines of 20,000 rolls; --odds, "
        f"--as: {LINES // 10 * 3:,} lines; "
        f"{ROUNDS} rounds interleaved; least CPU ms (median), ratio to every memo on"
    )
    print(f"{'memo turned off':<30}" + "".join(f"{n:>32}" for n in loads))
    for name in variants:
        row = f"{name:<30}"
        for load_name in loads:
            seen = times[name, load_name]
            base = min(times["every memo on", load_name])
            fastest, middle = min(seen) * 1000, statistics.median(seen) * 1000
            row += f"{fastest:9.1f} ({middle:7.1f}) x{min(seen) / base:5.2f}      "
        print(row.rstrip())


if __name__ == "__main__":
    main()
