"""Time how fast each resource bomb is refused (a script, not a test).

    .venv/bin/python benchmarks/bench_bombs.py

Runs every request of tests/test_limits_bombs.py's BOMBS in-process (after a warm-up that
imports the grammar, systems and odds engine), best of 3, and prints milliseconds, the
status and the first line of the message. Target: < 100 ms each.

Then the texts at the 10,000-character limit that cost the most to read, accepted or
refused (the grammar's work is linear in a text's length): docs/limits.md gives their
CPU time.
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_limits_bombs import BOMBS  # noqa: E402

from d20cli.app.options import Options, split_line  # noqa: E402
from d20cli.app.run import run as run_tokens  # noqa: E402
from d20cli.present.output import Output  # noqa: E402

TARGET_MS = 100.0

# The costliest texts at the length limit found: a term every two or three characters.
LONG_TEXTS = [
    "roll " + "+".join(["1"] * 4_990),
    "roll " + "+".join(["1"] * 4_990) + " x",
    "roll " + "+".join(["1d6"] * 2_490) + ")",
    "roll " + "+".join(["max(1,2)"] * 1_100) + ")",
    "check +" + "(1+" * 90 + "1" + "+1" * 4_000,
]


def once(line: str) -> tuple[float, int, str]:
    out, err = io.StringIO(), io.StringIO()
    output = Output(out, err, color=False)
    tokens = split_line(line)
    start = time.perf_counter()
    status = int(run_tokens(tokens, Options(), output).status)  # (`odds ...` too)
    return (time.perf_counter() - start) * 1000, status, err.getvalue().split("\n", 1)[0]


def main() -> int:
    for line in ("roll 1d6", "check +1 vs 10", "group +1, +2 vs 10", "odds roll 1d6"):
        once(line)
    slow = 0
    for line, _ in BOMBS:
        best = min(once(line)[0] for _ in range(3))
        _, status, message = once(line)
        flag = "" if best < TARGET_MS else "  SLOW"
        slow += best >= TARGET_MS
        shown = line if len(line) <= 40 else f"{line[:30]}... ({len(line):,} chars)"
        print(f"{best:8.1f} ms  {status}  {shown:<48} {message[:70]}{flag}")
    print(f"{len(BOMBS)} bombs, {slow} over {TARGET_MS:.0f} ms")
    print("texts at the length limit (CPU time, best of 3):")
    for line in LONG_TEXTS:
        cpu = []
        for _ in range(3):
            start = time.process_time()
            _, status, message = once(line)
            cpu.append(time.process_time() - start)
        print(f"{min(cpu):8.2f} s   {status}  {line[:30]}... ({len(line):,} chars) {message[:50]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
