#!/usr/bin/env python3
"""A tiny dice bot on d20cli's Python API, the way a chat bot would use it, with standard
input as the chat: each line is `name: message`, and the bot answers the messages that
start with `!`. No network; only the public names of `d20cli`.

    !check +5 vs 15 adv           any request d20 takes, after a `!`
    !4d6kh3                       a bare dice expression is a roll
    !odds attack +7 vs 15         the exact chance of each outcome
    !system mm                    the rule system of the next rolls (`!systems` lists them)
    !seed 7                       reproducible dice from here on

    $ printf 'ann: !seed 7\\nann: !check +5 vs 15\\n' | python examples/chatbot.py
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable, Iterator

import d20cli


class Bot:
    """One table: its rule system and its dice, shared by everyone at it."""

    def __init__(self) -> None:
        self.system = "levelup"
        self.rng = random.Random()

    def answer(self, who: str, message: str) -> Iterator[str]:
        if not message.startswith("!"):
            return  # chat
        command, _, rest = message[1:].strip().partition(" ")
        try:
            if command == "systems":
                for system in d20cli.systems():
                    yield f"{system.id}: {', '.join(v.name for v in system.verbs)}"
            elif command == "system":  # any id or alias; parse says which system it is
                self.system = d20cli.parse("roll 1", system=rest).system
                yield f"{who} set the system to {self.system}"
            elif command == "seed":
                self.rng = random.Random(int(rest))
                yield f"{who} seeded the dice with {int(rest)}"
            elif command == "odds":
                chances = d20cli.odds(rest, system=self.system)
                tiers = [
                    f"{chances.labels.get(outcome, outcome)} {float(p):.1%}"
                    for outcome, p in chances.ordered_outcomes()
                ]
                yield ", ".join(tiers) if tiers else f"mean {float(chances.mean or 0):.2f}"
            else:
                for result in d20cli.roll_all(message[1:], system=self.system, rng=self.rng):
                    yield f"@{who}"
                    yield from str(result).splitlines()
        except d20cli.D20Error as err:
            yield f"@{who} {err.one_line()}"
            yield from err.caret_lines()
        except ValueError:
            yield f"@{who} a seed is a whole number"


def run(lines: Iterable[str]) -> Iterator[str]:
    bot = Bot()
    for line in lines:
        who, said, message = line.strip().partition(": ")
        yield from bot.answer(who, message) if said else bot.answer("you", who)


if __name__ == "__main__":
    for reply in run(sys.stdin):
        print(reply)
