"""d20cli's Python API side by side with its peers, in-process (a script, not a test).

    pip install -e '.[peers]'          # avrae's d20 and icepool, for this benchmark only
    python benchmarks/bench_peers.py

Rolls a second of `d20cli.roll(TEXT)` against avrae's `d20.roll(TEXT)` for the same
expressions, and `d20cli.roll("check +5 vs 15 adv expertise=d6")` against avrae's
`2d20kh1+1d6+5` (the same dice); then the exact odds of `d20cli.odds(TEXT)` against
icepool's for the same question. Each call is the one a chat bot makes for a message:
the same text again, no seed, so both sides use their caches of parsed text (avrae's
parser keeps its own; d20cli's API its prepared requests, docs/performance.md).

The peers run in a subprocess of the Python that has them: `D20_PEERS_PYTHON` if set,
else this Python when it can import them (`pip install -e '.[peers]'`). Without them the
script says so and measures d20cli alone. The test suite never imports them.

The machine may be busy: the rounds are interleaved (d20cli, then the peer, for each
text, round after round), each figure is CPU time (`time.process_time`) and the best of
BENCH_ROUNDS rounds (default 5) of BENCH_SLICE seconds (default 0.25) each. The ratio is
d20cli's rate over the peer's: at least 1.0 is as fast or faster.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import d20cli

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
SLICE = float(os.environ.get("BENCH_SLICE", "0.25"))

#: d20cli's request, and the peer's expression of the same dice.
ROLLS = (
    ("1d20+5", "1d20+5"),
    ("4d6kh3", "4d6kh3"),
    ("2d20kh1+1d6+5", "2d20kh1+1d6+5"),
    ("8d6", "8d6"),
    ("1d20+5 [label]", "1d20+5 [label]"),
    ("check +5 vs 15 adv expertise=d6", "2d20kh1+1d6+5"),
)

#: d20cli's odds request, and icepool's expression of the same question.
ODDS = (
    ("1d6", "icepool.d6.probabilities()"),
    ("1d20+5", "(icepool.d20 + 5).probabilities()"),
    ("4d6kh3", "icepool.d6.pool(4).highest(3).sum().probabilities()"),
    (
        "check +5 vs 15 adv expertise=d6",
        "(icepool.d20.highest(2) + 5 + icepool.d6 >= 15).probabilities()",
    ),
)

#: The peer's side: reads `kind<TAB>expression<TAB>seconds` lines, answers calls a second.
PEER = r"""
import sys, time, json
import d20, icepool
def rate(call, seconds):
    call()
    n, start = 0, time.process_time()
    while True:
        for _ in range(50):
            call()
        n += 50
        spent = time.process_time() - start
        if spent >= seconds:
            return n / spent
for line in sys.stdin:
    kind, text, seconds = line.rstrip("\n").split("\t")
    if kind == "roll":
        call = lambda: d20.roll(text)
    else:
        code = compile(text, "<odds>", "eval")
        call = lambda: eval(code, {"icepool": icepool})
    print(json.dumps(rate(call, float(seconds))), flush=True)
"""


def rate(call: Callable[[], object], seconds: float) -> float:
    """Calls a second of CPU time, over `seconds` of it."""
    call()
    n, start = 0, time.process_time()
    while True:
        for _ in range(50):
            call()
        n += 50
        spent = time.process_time() - start
        if spent >= seconds:
            return n / spent


def peers_python() -> str | None:
    """The Python that has avrae's d20 and icepool, or None."""
    given = os.environ.get("D20_PEERS_PYTHON")
    if given:
        return given
    found = subprocess.run(
        [sys.executable, "-c", "import d20, icepool"], capture_output=True, check=False
    )
    return sys.executable if found.returncode == 0 else None


class Peer:
    """The peers' subprocess."""

    def __init__(self, python: str) -> None:
        self.process = subprocess.Popen(
            [python, "-c", PEER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def rate(self, kind: str, text: str, seconds: float) -> float:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{kind}\t{text}\t{seconds}\n")
        self.process.stdin.flush()
        return float(json.loads(self.process.stdout.readline()))

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def table(title: str, kind: str, pairs: tuple[tuple[str, str], ...], peer: Peer | None) -> None:
    ours: dict[str, float] = {}
    theirs: dict[str, float] = {}
    for _ in range(ROUNDS):
        for mine, other in pairs:
            if kind == "roll":
                call: Callable[[], object] = lambda mine=mine: d20cli.roll(mine)  # noqa: E731
            else:
                call = lambda mine=mine: d20cli.odds(mine)  # noqa: E731
            ours[mine] = max(ours.get(mine, 0.0), rate(call, SLICE))
            if peer is not None:
                theirs[other] = max(theirs.get(other, 0.0), peer.rate(kind, other, SLICE))
    print(f"\n{title} (calls a second of CPU, best of {ROUNDS} interleaved rounds)")
    print(f"{'d20cli':38} {'calls/s':>10}   {'peer':60} {'calls/s':>10}  {'ratio':>6}")
    for mine, other in pairs:
        line = f"{mine:38} {ours[mine]:10,.0f}"
        if peer is not None:
            ratio = ours[mine] / theirs[other]
            line += f"   {other:60} {theirs[other]:10,.0f}  {ratio:6.2f}"
        print(line)


def main() -> None:
    warnings.simplefilter("ignore")
    python = peers_python()
    peer = Peer(python) if python is not None else None
    if peer is None:
        print(
            "avrae's d20 and icepool are not installed: pip install -e '.[peers]', or set "
            "D20_PEERS_PYTHON to a Python that has them. d20cli alone:"
        )
    try:
        table("rolls: d20cli.roll(TEXT) against avrae's d20.roll(TEXT)", "roll", ROLLS, peer)
        table("exact odds: d20cli.odds(TEXT) against icepool", "odds", ODDS, peer)
    finally:
        if peer is not None:
            peer.close()


if __name__ == "__main__":
    main()
