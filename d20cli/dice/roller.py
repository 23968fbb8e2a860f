"""Where faces come from.

A roller hands out faces for dice with a range lo..hi (a d20 is 1..20, a Fudge die -1..1,
d% 1..100). `RandomRoller` draws them from a `random.Random` that the caller passes in;
`ForcedRoller` hands out the faces the user gave with `--dice`, in roll order, and checks
each against the die's range. Both count every die against a budget, so runaway requests
stop with an error instead of eating the machine.

Nothing here holds global state: every request gets its own roller.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from d20cli.errors import BudgetError, DiceError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random

DEFAULT_BUDGET = 1_000_000
DEFAULT_WORK = 20_000_000  # dice one command may roll over all its runs (`--work`)

# Dice of one request handled one by one (keep/drop, pools, rerolls, explosions, unique,
# clamps), whatever the dice budget: their bookkeeping takes up to about 175 bytes a die
# (a plain NdS about 10), so two million stay within a few hundred megabytes.
MAX_ONE_BY_ONE = 2_000_000


class Roller:
    """Base roller: counts dice against the budget. Subclasses supply `_draw`.

    `budget`: the dice of one run of a request. `work` (None: no limit): the dice of a
    whole command, over all its runs (`--repeat`, `--simulate`); `next_run` starts a run,
    and the budget of each run is what the work has left when that is less."""

    def __init__(self, budget: int = DEFAULT_BUDGET, work: int | None = None) -> None:
        self.budget = budget
        self.count = 0  # dice handed out so far
        self.run_budget = budget  # the budget of one run, before the work's limit
        self.work = work
        self.spent = 0  # dice of the runs before this one

    def start_command(
        self, work: int | None, least: int = 0, runs: int = 1, what: str = ""
    ) -> None:
        """A new command of `runs` runs with `work` dice in all, its first run begun (call
        `next_run` before each of the others); `least`: the fewest dice one run rolls. A
        command whose runs must together roll more than the work is refused now, before a
        die is rolled (a run over the dice budget fails on its own, naming its term)."""
        self.work = work
        self.spent = 0
        self.count = 0
        budget = self.run_budget
        self.budget = budget if work is None or work >= budget else max(work, 0)
        if work is not None and least <= budget and least * runs > work:
            raise BudgetError(
                f"{what} rolls at least {least * runs:,} dice in all, more than {work:,} "
                "(the work budget of one command); raise it with --work N or D20_WORK"
            )

    def next_run(self) -> None:
        """The next run of the request (after the first, which `start_command` begins):
        its dice count from 0, the work goes on."""
        self.spent += self.count
        self.count = 0
        if self.work is not None:
            self.budget = min(self.run_budget, max(self.work - self.spent, 0))

    def charge(self, n: int, what: str = "this request") -> None:
        """Count n dice against the budget (call before rolling when the count is known)."""
        if self.count + n > self.budget:
            raise self.over_budget(what)

    def over_budget(self, what: str, detail: str = "") -> BudgetError:
        """The error for `what` going over the budget (or over the command's work, when
        that is what limits this run); `detail` follows the limit."""
        if self.budget < self.run_budget and self.work is not None:
            return BudgetError(
                f"{what}: this command needs more than {self.work:,} dice in all (the work "
                f"budget of one command){detail}; raise it with --work N or D20_WORK"
            )
        return BudgetError(
            f"{what} needs more than {self.budget:,} dice (the dice budget){detail}; "
            "raise it with --budget N or D20_BUDGET"
        )

    def roll(self, lo: int, hi: int) -> int:
        """One face in lo..hi."""
        self.charge(1)
        self.count += 1
        return self._draw(lo, hi)

    def roll_many(self, lo: int, hi: int, n: int) -> list[int]:
        """n faces in lo..hi (much faster than n calls for big pools), which the caller has
        charged (`charge`, naming the term)."""
        self.count += n
        return self._draw_many(lo, hi, n)

    def d20s(self, net: int, lucky: bool = False) -> tuple[int, ...]:
        """The d20 faces of one roll: one, or two with advantage (net > 0) or disadvantage
        (net < 0). The odds engine's roller answers with the kept face alone, weighted.

        lucky: each d20 showing a 1 is rolled once more, after the d20s of the roll: the
        faces come back in that order (`1, 14` for one die; `1, 9, 14` with advantage, the
        14 replacing the 1)."""
        first = self.roll(1, 20)
        faces: tuple[int, ...] = (first,) if net == 0 else (first, self.roll(1, 20))
        if lucky and 1 in faces:
            faces += tuple(self.roll(1, 20) for face in faces if face == 1)
        return faces

    def d20_rounds(self, count: int) -> tuple[tuple[int, ...], ...]:
        """`count` d20s rolled together, rolled again while they all show one face (a
        round that leaves every die equal decides nothing): each round's faces in roll
        order; in the last round (the only one when count < 2) they differ. The odds
        engine's roller answers with the last round alone: one branch for each set of dice
        that may share the highest face, weighted by its chance among such rounds."""
        rounds: list[tuple[int, ...]] = []
        while True:
            faces = tuple(self.roll(1, 20) for _ in range(count))
            rounds.append(faces)
            if count < 2 or len(set(faces)) > 1:
                return tuple(rounds)

    def preset_total(self, expr: object, role: str = "modifier") -> int | None:
        """The odds engine's roller picks a whole expression's total here (one branch per
        total, weighted by its exact probability; for `role` "damage", which no outcome
        depends on, it may keep the whole distribution aside instead); ordinary rollers
        return None and the expression is rolled die by die."""
        return None

    def finish(self) -> None:
        """Called when a request is done; a forced roller checks that no face was left over."""

    def _draw(self, lo: int, hi: int) -> int:
        raise NotImplementedError  # abstract: RandomRoller and ForcedRoller supply it

    def _draw_many(self, lo: int, hi: int, n: int) -> list[int]:
        return [self._draw(lo, hi) for _ in range(n)]


class RandomRoller(Roller):
    """Faces from a `random.Random` (seeded for --seed, else from the OS)."""

    def __init__(self, rng: random.Random, budget: int = DEFAULT_BUDGET) -> None:
        super().__init__(budget)
        self.rng = rng

        # Random._randbelow is the unbiased core of randrange, without its argument checks:
        # a d20 costs a third of randint's time.
        self._below: Callable[[int], int] = rng._randbelow  # type: ignore[attr-defined]

    def roll(self, lo: int, hi: int) -> int:
        # The hot path of every check: the budget test and the draw, without calls.
        if self.count >= self.budget:
            self.charge(1)
        self.count += 1
        return lo + self._below(hi - lo + 1)

    def _draw(self, lo: int, hi: int) -> int:
        return lo + self._below(hi - lo + 1)

    def _draw_many(self, lo: int, hi: int, n: int) -> list[int]:
        # choices() draws a big pool several times faster than n separate draws.
        return self.rng.choices(range(lo, hi + 1), k=n)


class ForcedRoller(Roller):
    """Faces given by the user (`--dice 17,4,3`), handed out in roll order."""

    def __init__(self, faces: Sequence[int], budget: int = DEFAULT_BUDGET) -> None:
        super().__init__(budget)
        self.faces = list(faces)
        self.used = 0

    def _draw(self, lo: int, hi: int) -> int:
        if self.used >= len(self.faces):
            raise DiceError(
                f"--dice gave {len(self.faces)} face(s) but the request needs more "
                f"(die #{self.used + 1} is a d{hi - lo + 1 if lo == 1 else f'{lo}..{hi}'})"
            )
        face = self.faces[self.used]
        self.used += 1
        if not lo <= face <= hi:
            raise DiceError(f"--dice face #{self.used} is {face}, outside {lo}..{hi} for that die")
        return face

    def finish(self) -> None:
        if self.used < len(self.faces):
            raise DiceError(
                f"--dice gave {len(self.faces)} faces but the request used only {self.used}"
            )


def make_roller(
    seed: int | None = None,
    faces: Sequence[int] | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Roller:
    """The roller for one request: forced faces, a seeded generator, or the OS's randomness."""
    if faces is not None:
        return ForcedRoller(faces, budget)
    return RandomRoller(generator(seed), budget)


def generator(seed: int | None = None) -> random.Random:
    """A generator of faces: seeded, or (None) seeded from the OS's randomness, which makes
    it unpredictable and still quick for big pools. `random` is imported here, where dice
    are rolled: `d20 odds` rolls none (1.5 ms of its start)."""
    import random

    return random.Random(int.from_bytes(os.urandom(16), "big") if seed is None else seed)
