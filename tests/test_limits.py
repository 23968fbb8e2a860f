"""Every row of the README's limits table, run at its limit in a process of its own
(issue 22): each must end with its status, within the memory bound and its output bound.
How long a row takes is not tested (it depends on the machine): benchmarks/bench_bounds.py
prints the times, and docs/limits.md states them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
MEMORY = 500 * MB  # the README's bound for any accepted request

# A child process runs d20; this wrapper reports its wall time, peak memory (the child's
# own: RUSAGE_CHILDREN of a fresh process) and the bytes it printed.
WRAPPER = r"""
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen([sys.executable, "-m", "d20cli", *sys.argv[1:]],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
out = 0
while True:
    chunk = proc.stdout.read(1 << 16)
    if not chunk:
        break
    out += len(chunk)
err = proc.stderr.read().decode("utf-8", "replace")
status = proc.wait()
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"status": status, "seconds": time.perf_counter() - start,
                  "rss": rss, "out": out, "err": err[-400:]}))
"""

LABEL = "x" * 9_000

# (name, arguments, expected status, most bytes printed)
ROWS: list[tuple[str, list[str], int, int]] = [
    ("request length", ["roll", "+".join(["1"] * 4_997)], 0, 100_000),
    ("parenthesis depth", ["roll", "(" * 100 + "1d6" + ")" * 100], 0, 1_000),
    ("'-' signs", ["roll", "1" + "-" * 100 + "1"], 0, 1_000),
    ("expression tree", ["roll", "+".join(["1d6"] * 199)], 0, 100_000),
    ("digits in dice", ["roll", "1d6+999999999999", "-q"], 0, 100),
    ("digits in words", ["check", "+999999999", "vs", "999999999", "-q"], 0, 100),
    ("digits of a face", ["roll", "1d1000000", "--dice", "1000000", "-q"], 0, 100),
    ("digits of an option", ["roll", "1d20", "--seed", "9" * 100, "-q"], 0, 100),
    ("sides", ["roll", "1000d1000000", "-q"], 0, 100),
    ("a total", ["roll", "999999999999*999999", "-q"], 0, 100),
    ("Nx repeat", ["roll", "1000x", "1000d6", "-q"], 0, 20_000),
    ("--repeat", ["check", "+5", "vs", "15", "adv", "--repeat", "10000000", "--summary"], 0, 1_000),
    ("--simulate", ["odds", "check", "+5", "vs", "15", "--simulate", "100000"], 0, 10_000),
    ("runs one by one", ["roll", "1d6", "--repeat", "1000000", "-q"], 0, 2_000_000),
    ("dice budget", ["roll", "1000000d6", "-q"], 0, 100),
    ("--budget", ["roll", "10000000d6", "--budget", "10000000", "--json"], 0, 10_000),
    ("work budget", ["roll", "1000000d6", "--repeat", "20", "-q"], 0, 1_000),
    (
        "output of a command",
        ["roll", "1d20", "--repeat", "100000", "--json", "--work", "100000"],
        2,
        10_000_000 + 1_000,
    ),
    (
        "dice one by one",
        ["roll", "1999999d6>=4+8000000d6", "--budget", "10000000", "-q"],
        0,
        100,
    ),
    ("explosions that never stop", ["roll", "1d1!"], 2, 0),
    ("group", ["group", ",".join(["+1 adv"] * 1000), "vs", "12", "--json"], 0, 16 * MB),
    ("contest", ["contest", *" vs ".join(["+1"] * 1000).split(), "-s", "reglamento", "-q"], 0, 100),
    ("--players", ["scores", "--players", "100", "-s", "pendagger", "--json"], 0, 1 * MB),
    (
        "exact odds",
        ["odds", "contest", "+3", "adv", "vs", "+2", "vs", "+1", "-s", "reglamento"],
        0,
        10_000,
    ),
    ("exact odds with damage", ["odds", "attack", "+5", "vs", "15", "dmg", "100d6"], 0, 100_000),
    ("roll log", ["roll", f"1000d6[{LABEL}]", "--repeat", "150", "-q"], 0, 10_000),
]


def measure(args: list[str], home: Path, log: bool = False) -> dict[str, object]:
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    env.pop("D20_NO_LOG", None)
    if not log:
        env["D20_NO_LOG"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
        check=True,
    )
    result: dict[str, object] = json.loads(proc.stdout)
    return result


@pytest.mark.parametrize(("name", "args", "status", "most"), ROWS, ids=[r[0] for r in ROWS])
def test_a_limit_row_at_its_limit(
    name: str, args: list[str], status: int, most: int, tmp_path: Path
) -> None:
    assert len(" ".join(args)) <= 10_000 + 20, "a request of at most 10,000 characters"
    found = measure(args, tmp_path, log=name == "roll log")
    assert found["status"] == status, found["err"]
    assert "Traceback" not in str(found["err"])
    assert int(str(found["rss"])) < MEMORY, found
    assert int(str(found["out"])) <= most, found
    if name == "roll log":
        db = tmp_path / "state" / "d20cli" / "state.db"
        assert db.stat().st_size < 20 * MB  # 1.3 GB before the rows were capped


def test_a_limit_name_means_one_number() -> None:
    """Each `MAX_*` constant is defined in one module of the package: a limit is stated
    once, under a name of its own, and imported where it is used (a module that needs the
    same number imports it; a limit of another thing takes another name)."""
    import ast

    homes: dict[str, list[str]] = {}
    for path in sorted(Path("d20cli").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            for target in targets:
                if isinstance(target, ast.Name) and target.id.startswith("MAX_"):
                    homes.setdefault(target.id, []).append(str(path))
    twice = {name: paths for name, paths in homes.items() if len(paths) > 1}
    assert twice == {}
    assert len(homes) > 50  # (the scan found the limits)
