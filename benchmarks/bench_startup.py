"""Start-up, throughput and memory of the `d20` command (issue: instant at the table).

Run by hand: `python benchmarks/bench_startup.py`. Every figure is printed with its ratio
to `python -c pass` measured in the same run, so machines of different speed compare.
Nothing here is a test: the goals are in the README's performance section.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = int(os.environ.get("BENCH_RUNS", "21"))
PY = sys.executable
D20 = shutil.which("d20", path=str(Path(PY).parent)) or shutil.which("d20")


# A normal install (pip install .) compiles every module to bytecode; a development
# machine may forbid writing it (PYTHONDONTWRITEBYTECODE), which would make every start
# compile the sources again. Measure what a user gets: bytecode allowed and warmed up.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def wall(cmd: list[str], stdin: bytes | None = None, runs: int = RUNS, log: bool = False) -> float:
    """Median wall time in ms of `runs` runs of cmd (with the roll log on or off)."""
    env = dict(os.environ)
    if log:
        env.pop("D20_NO_LOG", None)
    times = []
    subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, check=True, env=env)  # warm-up
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, check=True, env=env)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def peak_rss(cmd: list[str]) -> float:
    """Peak resident memory (MiB) of one run of cmd. A fresh Python runs it and reads its
    children's peak, which is then that one command's own (the peak of this process's
    children would be the largest of every command run so far)."""
    probe = (
        "import resource, subprocess, sys; "
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([PY, "-c", probe, *cmd], capture_output=True, text=True, check=True)
    return int(out.stdout) / 1024


def row(name: str, ms: float, base: float, goal: str) -> None:
    print(f"{name:<58} {ms:8.1f} ms  x{ms / base:5.1f}   goal {goal}")


def main() -> None:
    if D20 is None:
        sys.exit("install the project first: pip install .")
    base = wall([PY, "-c", "pass"])
    print(f"{'python -c pass':<58} {base:8.1f} ms  x  1.0")
    env_dir = tempfile.mkdtemp()
    os.environ["XDG_CACHE_HOME"] = env_dir
    os.environ["XDG_STATE_HOME"] = env_dir
    os.environ["D20_NO_LOG"] = "1"
    row(
        "d20 check +5 vs 15 --system levelup",
        wall([D20, "check", "+5", "vs", "15", "--system", "levelup"]),
        base,
        "< 100 ms (aim 60)",
    )
    row("d20 roll 1d20+5", wall([D20, "roll", "1d20+5"]), base, "< 100 ms (aim 60)")
    odds = [D20, "odds", "check", "+5", "vs", "15", "adv", "expertise=d6"]
    row("d20 odds check +5 vs 15 adv expertise=d6 (cached)", wall(odds), base, "at most x4")
    row(
        "d20 check +5 vs 15, roll log on (the default)",
        wall([D20, "check", "+5", "vs", "15"], log=True),
        base,
        "< 100 ms",
    )
    row(
        "d20 attack +7 vs 15 dmg 1d8+4",
        wall([D20, "attack", "+7", "vs", "15", "dmg", "1d8+4"]),
        base,
        "-",
    )
    lines = b"".join(
        line
        for _ in range(25_000)
        for line in (
            b"check +5 vs 15 adv\n",
            b"roll 4d6kh3\n",
            b"attack +7 vs 15 dmg 1d8+4\n",
            b"save -1 vs 12 dis\n",
        )
    )
    row(
        "100,000 mixed requests on stdin -> JSON lines, roll log on",
        wall([D20, "--json"], lines, runs=5, log=True),
        base,
        "<= 1000 ms",
    )
    row(
        "100,000 mixed requests on stdin -> JSON lines, --no-log",
        wall([D20, "--json"], lines, runs=5),
        base,
        "< 2000 ms",
    )
    row(
        "d20 check +5 vs 15 adv --repeat 1000000 --summary",
        wall([D20, "check", "+5", "vs", "15", "adv", "--repeat", "1000000", "--summary"], runs=3),
        base,
        "< 1000 ms",
    )
    bash = shutil.which("bash")
    completion = Path(__file__).resolve().parent.parent / "completions" / "d20.bash"
    if bash and completion.exists():
        script = (
            f"source {completion}; COMP_LINE='d20 check +5 vs 15 a'; COMP_POINT=20; "
            "_d20; echo ${COMPREPLY[@]}"
        )
        row(
            "TAB completion (bash, static script)",
            wall([bash, "--norc", "-c", script]),
            base,
            "< 50 ms",
        )
    print(f"{'peak RSS: d20 roll 1d20':<58} {peak_rss([D20, 'roll', '1d20']):8.1f} MiB  goal < 40")
    print(
        f"{'peak RSS: d20 roll 1000000d6':<58} "
        f"{peak_rss([D20, 'roll', '1000000d6']):8.1f} MiB  goal < 100"
    )


if __name__ == "__main__":
    main()
