"""Lines nobody typed before, on standard input, beside avrae's d20 (issue: the library at a
chat bot's pace, a never-seen line).

    pip install -e '.[peers]'          # avrae's d20, for this benchmark only
    python benchmarks/bench_new_lines.py

BENCH_LINES lines (default 10,000), all different, of the peer corpus's kinds: dice
expressions with keep, drop, explode, reroll and labels, and checks and attacks with their
numbers varied, made from a seed (BENCH_SEED). `d20 --json --no-log` rolls them from
standard input (and again with the roll log on), each in a new home, so its shapes are
learnt as it goes; and again with `--no-log` where d20 has rolled lines of the same kinds
before (another seed's: the shapes known, the texts new). avrae's `d20.roll` rolls the same
expressions in a fresh Python that prints one JSON line each (its total and its text), the
check of a line written as avrae writes it (`check +5 vs 15 adv` as `2d20kh1+5`). Each side
runs BENCH_ROUNDS times (default 3), alternated; the figure is the least CPU time of the
rounds (the process's and its children's) and its ratio to avrae's. Nothing here is a test.
"""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
import tempfile

LINES = int(os.environ.get("BENCH_LINES", "10000"))
SEED = int(os.environ.get("BENCH_SEED", "7"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))

#: avrae's side: one expression a line in, one JSON line out.
PEER = r"""
import sys, json
import d20
for line in sys.stdin:
    r = d20.roll(line.rstrip("\n"))
    sys.stdout.write(json.dumps({"total": r.total, "result": str(r)}) + "\n")
"""


def lines(n: int, seed: int) -> list[tuple[str, str]]:
    """`n` different (d20cli line, avrae expression) pairs."""
    rng = random.Random(seed)
    labels = ("fire", "slashing", "cold", "radiant", "piercing")
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    while len(out) < n:
        kind = rng.randrange(6)
        mod = rng.randint(-3, 15)
        sign = f"{mod:+d}"
        if kind == 0:
            k, s = rng.randint(2, 12), rng.choice((4, 6, 8, 10, 12, 20))
            expr = f"{k}d{s}kh{rng.randint(1, k - 1)}{sign}"
        elif kind == 1:
            k, s = rng.randint(2, 10), rng.choice((6, 8, 10))
            expr = f"{k}d{s}e{s}{sign}"  # avrae's explode on the top face
            out_line = f"roll {k}d{s}!{sign}"
        elif kind == 2:
            k, s = rng.randint(1, 8), rng.choice((6, 8, 10, 12))
            expr = f"{k}d{s}ro1{sign} [{rng.choice(labels)}]"
        elif kind == 3:
            k, s = rng.randint(3, 9), rng.choice((6, 8))
            expr = f"{k}d{s}pl1{sign}"  # avrae's drop lowest
            out_line = f"roll {k}d{s}dl1{sign}"
        elif kind == 4:
            dc = rng.randint(5, 30)
            adv = rng.choice(("", " adv", " dis"))
            keep = {"": "1d20", " adv": "2d20kh1", " dis": "2d20kl1"}[adv]
            out_line, expr = f"check {sign} vs {dc}{adv}", f"{keep}{sign}"
        else:
            ac, k, s = rng.randint(10, 22), rng.randint(1, 3), rng.choice((6, 8, 10))
            dmg = rng.randint(0, 6)
            out_line = f"attack {sign} vs AC {ac} dmg {k}d{s}+{dmg}"
            expr = f"1d20{sign}"
        if kind in (0, 2):
            out_line = f"roll {expr}"
        if out_line in seen:
            continue
        seen.add(out_line)
        out.append((out_line, expr))
    return out


def cpu(cmd: list[str], stdin: str, env: dict[str, str]) -> float:
    """CPU seconds of `cmd` (and its children) reading `stdin`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryFile("w+") as feed:
        feed.write(stdin)
        feed.seek(0)
        subprocess.run(cmd, stdin=feed, stdout=subprocess.DEVNULL, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    peers = os.environ.get("D20_PEERS_PYTHON") or sys.executable
    found = subprocess.run([peers, "-c", "import d20"], capture_output=True, check=False)
    if found.returncode != 0:
        sys.exit("avrae's d20 is not installed: pip install -e '.[peers]', or D20_PEERS_PYTHON")
    pairs = lines(LINES, SEED)
    ours = "".join(f"{line}\n" for line, _ in pairs)
    theirs = "".join(f"{expr}\n" for _, expr in pairs)
    # the lines of another seed, rolled first where the shapes are to be known already
    # (as on a machine where d20 rolled such requests before): the same kinds, new texts
    others = "".join(f"{line}\n" for line, _ in lines(LINES, SEED + 1))
    d20 = [sys.executable, "-m", "d20cli", "--json"]
    names = ("avrae", "d20 --no-log", "d20, log on", "d20 --no-log, shapes known")
    figures: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(ROUNDS):
        for name in names:  # each in a home of its own: the caches as a new user's
            with tempfile.TemporaryDirectory() as home:
                env = {
                    **os.environ,
                    "HOME": home,
                    "XDG_CONFIG_HOME": f"{home}/config",
                    "XDG_STATE_HOME": f"{home}/state",
                    "XDG_CACHE_HOME": f"{home}/cache",
                }
                env.pop("D20_NO_LOG", None)
                if name == "avrae":
                    figures[name].append(cpu([peers, "-c", PEER], theirs, env))
                elif name == "d20, log on":
                    figures[name].append(cpu(d20, ours, env))
                else:
                    if name.endswith("known"):
                        cpu([*d20, "--no-log"], others, env)  # (not counted)
                    figures[name].append(cpu([*d20, "--no-log"], ours, env))
    base = min(figures["avrae"])
    print(f"{LINES:,} lines never seen before (seed {SEED}), least CPU of {ROUNDS} rounds")
    for name, spent in figures.items():
        print(f"  {name:<26} {min(spent):7.2f} s   x{min(spent) / base:4.2f} avrae's")


if __name__ == "__main__":
    main()
