"""Brute force over dice: every face of every die a request rolls, one path of choices at
a time (no shortcut the odds engine takes), for the tests that check exact odds."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from d20cli.dice.roller import Roller
from d20cli.language.requests import Request
from d20cli.results import Result
from d20cli.rules import System


class BruteRoller(Roller):
    """Hands out faces along one path of choices, die by die (no shortcuts)."""

    def __init__(self, path: list[int]) -> None:
        super().__init__(budget=10**9)
        self.path = path
        self.sizes: list[int] = []
        self.lows: list[int] = []

    def _draw(self, lo: int, hi: int) -> int:
        pos = len(self.sizes)
        self.sizes.append(hi - lo + 1)
        self.lows.append(lo)
        return lo + (self.path[pos] if pos < len(self.path) else 0)


def every_roll(system: System, request: Request) -> Iterator[tuple[Result, Fraction]]:
    """Each result the request can have, with the chance of the faces that gave it (a
    result comes once for each way of rolling it)."""
    stack: list[list[int]] = [[]]
    while stack:
        path = stack.pop()
        roller = BruteRoller(path)
        result = system.resolve(request, roller)
        chosen = path + [0] * (len(roller.sizes) - len(path))
        for pos in range(len(path), len(roller.sizes)):
            stack.extend([*chosen[:pos], alt] for alt in range(1, roller.sizes[pos]))
        p = Fraction(1)
        for size in roller.sizes:
            p /= size
        yield result, p
