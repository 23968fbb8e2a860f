"""Wall time, peak memory and output of every row of the README's limits table at its
limit (issue 22), and of the slowest requests of at most 10,000 characters that are
still accepted. Run by hand: `python benchmarks/bench_bounds.py` (`BENCH_SLOW=1` adds the
runs that take minutes or print gigabytes). tests/test_limits.py runs the same rows with
generous bounds."""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("limits", HERE.parent / "tests" / "test_limits.py")
assert spec is not None and spec.loader is not None
limits = importlib.util.module_from_spec(spec)
spec.loader.exec_module(limits)

SLOW: list[tuple[str, list[str]]] = [
    ("--repeat 10,000,000 of a check", ["check", "+5", "vs", "15", "--repeat", "10000000", "-q"]),
    ("--simulate 10,000,000", ["odds", "check", "+5", "vs", "15", "--simulate", "10000000"]),
    (
        "1,000-member group x 1,000 --json (output budget)",
        ["group", ",".join(["+1 adv"] * 1000), "vs", "12", "--repeat", "1000", "--json"],
    ),
    ("work budget, listed dice", ["roll", "1000d20", "--repeat", "20000", "-q"]),
]


def main() -> None:
    rows = [(name, args) for name, args, _, _ in limits.ROWS]
    if os.environ.get("BENCH_SLOW"):
        rows += SLOW
    print(f"{'row':44} {'status':>6} {'seconds':>8} {'peak MB':>8} {'output':>14}")
    for name, args in rows:
        with tempfile.TemporaryDirectory() as home:
            found = limits.measure(args, Path(home), log=name == "roll log")
            db = Path(home) / "state" / "d20cli" / "state.db"
            disk = f"  disk {db.stat().st_size / 1e6:.1f} MB" if db.exists() else ""
        print(
            f"{name[:44]:44} {found['status']:>6} {found['seconds']:>8.2f} "
            f"{int(found['rss']) / 2**20:>8.0f} {found['out']:>14,}{disk}",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
