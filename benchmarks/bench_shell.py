"""Benchmark the shell's line handling in-process (a script, not a test).

    .venv/bin/python benchmarks/bench_shell.py [LINE ...]

Times `Session.handle` (what the shell does with a line after Enter: split the options,
parse, resolve, render to the terminal, update the toolbar state) for typical requests,
after one warm-up line, with output going to an in-memory stream. Target: under 5 ms per
line, judged on the median of 200 runs (the 95th percentile is shown too; on a busy
machine it mostly measures the other processes). Output is rendered in colour, as on a
terminal. The state database lives in a temporary directory.
"""

from __future__ import annotations

import io
import os
import statistics
import sys
import tempfile
import time

TARGET_MS = 5.0
LINES = (
    "check +5 vs 15",
    "check stealth +7 vs 15 adv expertise=d6",
    "attack +7 vs 15 dmg 1d8+4",
    "group +3, +5 adv, -1 vs 12",
    "roll 4d6kh3",
    "system pendagger",
    "attempt adept fortune",
    "luck",
    "fortune",
    "system mm",
    "check +8 vs tough bonus",
    "again",
    "system levelup",
)


def main(argv: list[str]) -> int:
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="d20-bench-")
    from d20cli.app.options import Options
    from d20cli.app.shell import Session
    from d20cli.present.output import Output

    stdout = io.StringIO()
    session = Session(Options(), Output(stdout, io.StringIO(), color=True, width=100))
    session.warm()
    lines = tuple(argv) or LINES
    for line in lines:  # warm-up: imports, the first use of each system
        session.handle(line)
    worst = 0.0
    print(f"{'line':<42} {'median ms':>10} {'p95 ms':>8}")
    for line in lines:
        times = []
        for _ in range(200):
            start = time.perf_counter()
            session.handle(line)
            times.append((time.perf_counter() - start) * 1000)
            stdout.seek(0)
            stdout.truncate()
        times.sort()
        median, p95 = statistics.median(times), times[int(len(times) * 0.95)]
        worst = max(worst, median)
        print(f"{line:<42} {median:>10.3f} {p95:>8.3f}")
    verdict = "ok" if worst < TARGET_MS else "SLOW"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"worst median {worst:.3f} ms (target < {TARGET_MS} ms): {verdict}; load {load:.1f}")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
