"""Benchmark a TAB in bash with the shipped completion script (a script, not a test).

    .venv/bin/python benchmarks/bench_completion.py

Loads completions/d20.bash into `bash --norc`, then times the completion function for a
few command lines, 100 times each, inside that one bash (so bash's own start-up is not
counted; a TAB never starts Python). The config directory is a temporary one holding a
characters file of 200 characters (10 lines each) and a config.toml, so the lines that read
names (`--as`, `char show`) and the default system pay for reading those files in bash.
Target: under 50 ms per TAB. Also shows, for contrast, what starting Python for a TAB
would cost (`python -c pass`).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 50.0
RUNS = 100
LINES = (
    "d20 che",
    "d20 check +5 vs 15 a",
    "d20 -s mm check +4 vs ",
    "d20 check +5 expertise=d",
    "d20 --system=",
    "d20 -s mm check --sy",
    "d20 odds check +5 vs 15 d",
    "d20 --as ",
    "d20 char show c",
    "d20 --as char199 check +1 vs ",
    "d20 completion ",
)

SCRIPT = r"""
source "$1"; shift
for line in "$@"; do
    start=$EPOCHREALTIME
    for (( n = 0; n < RUNS; n++ )); do
        COMP_LINE="$line"; COMP_POINT=${#line}
        _d20 d20
    done
    end=$EPOCHREALTIME
    echo "$line|$(( (${end/./} - ${start/./}) / RUNS ))|${#COMPREPLY[@]}"
done
"""


def _config(root: Path) -> None:
    home = root / "d20cli"
    home.mkdir()
    party = "".join(
        f'[char{i}]\nsystem = "{("levelup", "mm")[i % 2]}"\n'
        + "".join(f'skill{j} = "+{j}"\n' for j in range(8))
        for i in range(200)
    )
    (home / "characters.toml").write_text(party, encoding="utf-8")
    (home / "config.toml").write_text('system = "levelup"\n', encoding="utf-8")


def main() -> int:
    with tempfile.TemporaryDirectory() as config:
        _config(Path(config))
        return _measure(config)


def _measure(config: str) -> int:
    run = subprocess.run(
        [
            "bash",
            "--norc",
            "--noprofile",
            "-c",
            SCRIPT,
            "bash",
            str(ROOT / "completions/d20.bash"),
            *LINES,
        ],
        capture_output=True,
        text=True,
        env={"RUNS": str(RUNS), "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": config},
        check=True,
    )
    worst = 0.0
    print(f"{'command line':<34} {'ms per TAB':>10} {'words':>6}")
    for row in run.stdout.splitlines():
        line, micros, count = row.split("|")
        ms = int(micros) / 1000
        worst = max(worst, ms)
        print(f"{line!r:<34} {ms:>10.3f} {count:>6}")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    python_ms = (time.perf_counter() - start) * 1000
    verdict = "ok" if worst < TARGET_MS else "SLOW"
    print(f"worst {worst:.3f} ms per TAB (target < {TARGET_MS} ms): {verdict}")
    print(f"(starting Python alone takes {python_ms:.1f} ms)")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
