"""What each memo outside a batch's Context buys (docs/performance.md): one call timed
with the memo as it is and with it turned off (a memo that keeps nothing), interleaved
over several rounds so a busy machine weighs on both alike. bench_caches.py measures the
memos of a run's Context the same way, on a batch.

Run by hand: `python benchmarks/bench_memos.py` (BENCH_ROUNDS changes the default).
Each figure is the median time of one call in microseconds, on and off, and what the
memo saves per call. Nothing here is a test.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
_HOME = tempfile.mkdtemp()
for _name in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
    os.environ[_name] = _HOME
os.environ["D20_NO_LOG"] = "1"

import d20cli  # noqa: E402
from d20cli import api  # noqa: E402
from d20cli import visible as controls  # noqa: E402
from d20cli.bounded import Bounded  # noqa: E402
from d20cli.language import parse_cache, table_parts  # noqa: E402
from d20cli.language.grammar import parse_request  # noqa: E402
from d20cli.probability import engine  # noqa: E402
from d20cli.store import characters, config, tables  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))


class Forget(Bounded[Any, Any]):
    """A memo that keeps nothing."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def files() -> tuple[str, Path]:
    """A config file, a table file and a characters file, as a user writes them."""
    home = Path(_HOME) / "d20cli"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        'system = "levelup"\n[levelup]\ncrit = 19\nmin = 10\n', encoding="utf-8"
    )
    (home / "characters.toml").write_text(
        "".join(
            f'[hero{n}]\nsystem = "levelup"\n[hero{n}.skills]\nstealth = {n}\n'
            f'athletics = {n + 1}\n[hero{n}.macros]\nsneak = "check stealth vs 15"\n'
            for n in range(8)
        ),
        encoding="utf-8",
    )
    table = home / "loot.toml"
    table.write_text(
        'name = "loot"\nroll = "1d6"\n'
        + "".join(
            f'[[entry]]\nroll = "{n}"\ntext = "item {n} [[1d4]] gold"\n' for n in range(1, 7)
        ),
        encoding="utf-8",
    )
    return str(table), home / "characters.toml"


def off_dict(module: Any, name: str) -> tuple[Callable[[], None], Callable[[], None]]:
    kept = getattr(module, name)
    return (lambda: setattr(module, name, Forget()), lambda: setattr(module, name, kept))


def off_memo(module: Any, name: str) -> tuple[Callable[[], None], Callable[[], None]]:
    kept = getattr(module, name)
    return (
        lambda: setattr(module, name, kept.__wrapped__),
        lambda: setattr(module, name, kept),
    )


def off_odds() -> tuple[Callable[[], None], Callable[[], None]]:
    kept = engine.MEMO
    return (
        lambda: setattr(engine, "MEMO", engine.OddsMemo(1, 1)),
        lambda: setattr(engine, "MEMO", kept),
    )


def main() -> None:
    table, people = files()
    entry = parse_cache.encode(parse_request("attack +7 vs 15 adv dmg 1d8+4"))
    text = "attack +7 vs 15 adv dmg 1d8+4"
    request = parse_request(text)  # (odds_of given the parsed request, as a run's Context does)
    part = table_parts.Part("dice", "1d4+2")
    cases: dict[str, tuple[Callable[[], object], tuple[Callable[[], None], Callable[[], None]]]] = {
        "api._PARSED (d20cli.roll)": (lambda: d20cli.roll(text, seed=1), off_dict(api, "_PARSED")),
        "engine.MEMO (odds_of)": (
            lambda: engine.odds_of(text, "levelup", parse=lambda _: request),
            off_odds(),
        ),
        "config._cache (load_config)": (config.load_config, off_dict(config, "_cache")),
        "characters._cache (load_all)": (
            lambda: characters.load_all(people),
            off_dict(characters, "_cache"),
        ),
        "tables._cache (read_file)": (lambda: tables.read_file(table), off_dict(tables, "_cache")),
        "parse_cache._FIELDS (decode)": (
            lambda: parse_cache.decode(entry, parse_cache.classes(), text),
            off_dict(parse_cache, "_FIELDS"),
        ),
        "controls._patterns (visible)": (
            lambda: controls.visible("a\x1b[31mred\x07"),
            off_memo(controls, "_patterns"),
        ),
    }
    cases["table_parts._parsed (parsed)"] = (
        lambda: table_parts.parsed(part),
        off_memo(table_parts, "_parsed"),
    )
    times: dict[tuple[str, bool], list[float]] = {}
    for call, _ in cases.values():
        call()  # warm: imports, the first answers kept
    for _ in range(ROUNDS):
        for name, (call, (off, on)) in cases.items():
            for memo_on in (True, False):
                if not memo_on:
                    off()
                try:
                    number = 200
                    took = (
                        min(timeit.repeat(call, timer=time.process_time, repeat=3, number=number))
                        / number
                    )
                finally:
                    on()
                times.setdefault((name, memo_on), []).append(took * 1e6)
    print(f"{ROUNDS} rounds interleaved; median CPU microseconds per call")
    print(f"{'memo':<32} {'on':>10} {'off':>10}  saves")
    for name in cases:
        on_us = statistics.median(times[name, True])
        off_us = statistics.median(times[name, False])
        print(f"{name:<32} {on_us:10.1f} {off_us:10.1f}  x{off_us / on_us:5.1f}")


if __name__ == "__main__":
    main()
