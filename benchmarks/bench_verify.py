"""CPU time and peak memory of `d20 verify` on hostile files at the sizes it reads (issue
40, items 6-8): receipts files of 4 MiB (runs of spaces, one long line, JSON nested
deeply) and exports of up to 64 MiB (request texts the grammar reads slowly, tables,
many small rows, nesting). Each case runs in a process of its own; its status, CPU time
(user + system) and peak resident memory come from /usr/bin/time. Run by
hand: `python benchmarks/bench_verify.py` (`BENCH_SLOW=1` adds the 64 MiB exports of
small rows, which take minutes). tests/test_seal_receipts.py asserts what these end in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from d20cli.app.commands.verify_files import MAX_EXPORT_BYTES, MAX_RECEIPTS_BYTES
from d20cli.dice.sealed import commitment, secret_text
from d20cli.language.grammar import parse_request
from d20cli.language.parse_cache import encode
from d20cli.store.sealing import chained

SEED, NONCE = bytes(range(32)), bytes(range(16))
PROMISE = commitment(SEED, NONCE)


def row(position: int, request: str, replay: dict[str, object]) -> dict[str, object]:
    """A row of the session (its receipt not made: verify still reads and rolls it)."""
    return {
        "id": position + 1,
        "at": "2026-12-01T21:00:00.000+00:00",
        "character": None,
        "system": "levelup",
        "verb": "roll",
        "request": request,
        "dice": [],
        "total": 0,
        "outcome": None,
        "source": "random",
        "house": None,
        "session": 1,
        "position": position,
        "replay": replay,
        "commitment": PROMISE,
        "receipt": None,
    }


def export(path: Path, rows: Callable[[int], dict[str, object]], most: int) -> None:
    """Rows 0, 1, ... of `rows`, chained, written until the file would pass `most` bytes."""
    with path.open("w", encoding="utf-8") as f:
        f.write("[")
        size, n = 1, 0
        for one in chained(rows(i) for i in range(10**9)):
            text = ("," if n else "") + json.dumps(one)
            if size + len(text) + 1 > most:
                break
            f.write(text)
            size, n = size + len(text), n + 1
        f.write("]")


def slow_text(i: int) -> str:
    """A different request of 10,000 characters each time, which the grammar accepts."""
    return ("check " + f"+{i % 10}" + "+1" * 4994)[:9990] + " vs 15"


def main() -> None:
    roll = encode(parse_request("roll 1d6"))
    tables = {
        "t": 'die = "1d4"\n[entries]\n' + "".join(f'"{i}" = "{{1d6}} x"\n' for i in (1, 2, 3, 4))
    }
    big = {"t": tables["t"] + "# " + "x" * (60_000) + "\n"}
    table = {"@": "TableRoll", "text": "table t", "table": "t", "system": "levelup"}
    cases: list[tuple[str, Callable[[Path], list[str]]]] = []

    def receipts(name: str, text: str) -> None:
        def make(d: Path) -> list[str]:
            (d / "seen.txt").write_text(text, encoding="utf-8")
            (d / "rolls.json").write_text("[]", encoding="utf-8")
            return [str(d / "rolls.json"), "--receipts", str(d / "seen.txt")]

        cases.append((name, make))

    def exported(name: str, rows: Callable[[int], dict[str, object]], most: int) -> None:
        def make(d: Path) -> list[str]:
            export(d / "rolls.json", rows, most)
            return [str(d / "rolls.json")]

        cases.append((name, make))

    line = "1" + " " * 30_000 + "z\n"
    receipts("receipts 4 MiB: '1', 30,000 spaces, 'z'", line * (MAX_RECEIPTS_BYTES // len(line)))
    receipts(
        "receipts 4 MiB: one line '1', spaces, 'z'", "1" + " " * (MAX_RECEIPTS_BYTES - 3) + "z"
    )
    receipts("receipts 4 MiB: 'sealed ' repeated", "sealed " * (MAX_RECEIPTS_BYTES // 7))
    deep = MAX_RECEIPTS_BYTES // 2 - 20
    receipts("receipts 4 MiB: JSON nested 2 M deep", '{"receipt": ' + "[" * deep + "]" * deep + "}")
    exported(
        "export: different 10,000-char texts",
        lambda i: row(i, slow_text(i), roll),
        MAX_EXPORT_BYTES,
    )
    exported(
        "export: one 10,000-char text repeated", lambda i: row(i, slow_text(0), roll), 2**20 * 8
    )
    exported(
        "export: tables of 60 KB, all different",
        lambda i: row(i, "table t", {**table, "files": {"t": big["t"] + f"# {i}\n"}}),
        MAX_EXPORT_BYTES,
    )
    exported(
        "export 16 MiB: one 60 KB table rolled again",
        lambda i: row(i, "table t", {**table, "files": big}),
        16 * 2**20,
    )
    many = {
        "t0": 'die = "1d1"\n[entries]\n"1" = "' + "{table:t1}" * 20 + '"\n',
        "t1": 'die = "1d1"\n[entries]\n"1" = "' + "{table:t2}" * 20 + '"\n',
        "t2": 'die = "1d4"\n[entries]\n' + "".join(f'"{i}" = "{{1d6}}"\n' for i in range(1, 5)),
    }
    exported(
        "export: table rolls of 821 dice each",
        lambda i: row(i, "table t0", {**table, "text": "table t0", "table": "t0", "files": many}),
        MAX_EXPORT_BYTES,
    )
    dice = encode(parse_request("roll 1000d20"))
    exported(
        "export: rows of 1000d20 (the dice budget)",
        lambda i: row(i, "roll 1000d20", dice),
        MAX_EXPORT_BYTES,
    )
    exported("export 8 MiB: small rows", lambda i: row(i, "roll 1d6", roll), 8 * 2**20)
    if os.environ.get("BENCH_SLOW"):
        exported("export 64 MiB: small rows", lambda i: row(i, "roll 1d6", roll), MAX_EXPORT_BYTES)
    cases.append(("export 64 MiB: '[' nested", lambda d: _nested(d)))

    print(f"{'case':46} {'status':>6} {'CPU s':>8} {'peak MB':>8}  stderr")
    for name, make in cases:
        with tempfile.TemporaryDirectory() as home:
            d = Path(home)
            args = make(d)
            env = {**os.environ, "HOME": home, "XDG_STATE_HOME": home, "XDG_CONFIG_HOME": home}
            env["XDG_CACHE_HOME"] = home
            cmd = [sys.executable, "-m", "d20cli", "verify", args[0], secret_text(SEED, NONCE)]
            run = subprocess.run(  # /usr/bin/time: the figures of d20's process alone
                ["/usr/bin/time", "-f", "%U %S %M", *cmd, *args[1:]],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=env,
                check=False,
            )
            err = run.stderr.decode("utf-8", "replace").strip().splitlines()
            user, system, peak = err[-1].split()
            said = next((line for line in err if line.startswith("d20:")), "")[:70]
            print(
                f"{name[:46]:46} {run.returncode:>6} {float(user) + float(system):>8.2f} "
                f"{int(peak) / 1024:>8.0f}  {said}",
                flush=True,
            )


def _nested(d: Path) -> list[str]:
    (d / "rolls.json").write_text("[" * MAX_EXPORT_BYTES, encoding="ascii")
    return [str(d / "rolls.json")]


if __name__ == "__main__":
    sys.exit(main())
