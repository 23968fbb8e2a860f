"""The core path of every roll, the same for the command line and the Python library.

A request's text is checked (`check_text`), parsed (d20cli.language.grammar), and each of
its results resolved by the system with a roller (`results`): `d20 check +5 vs 15` on the
command line (d20cli.app.run.resolve) and `d20cli.roll("check +5 vs 15")` in a program
(d20cli.api) both come through here, so they roll the same dice the same way. An error
found in a part of the request is placed in the request's text by `in_text`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from d20cli.app.dice_memo import MAX_TEXT, DiceMemo, Room
from d20cli.app.options import MAX_ROLLED_RUNS, Options
from d20cli.errors import BudgetError, D20Error, ParseError
from d20cli.frozen import frozen, replace

if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.language.requests import Request
    from d20cli.results import Result

MAX_LINE = 10_000  # characters in one request


def check_text(text: str) -> None:
    """ParseError for a request that is empty or longer than MAX_LINE characters."""
    if not text.strip():
        raise ParseError("nothing to roll: give a verb and its words, e.g. `check +5 vs 15`")
    if len(text) > MAX_LINE:
        raise ParseError(f"the request is {len(text):,} characters long; the limit is {MAX_LINE:,}")


def through(
    resolve: Callable[[Request, Roller], Result], characters: tuple[str, ...]
) -> Callable[[Request, Roller], Result]:
    """`resolve` for requests rolled through characters: a result says whose it is (its
    `character`); rolled by a party, it says the party's names (`party`) and each member
    or side says its character."""
    if len(characters) == 1:
        (name,) = characters

        def one(request: Request, roller: Roller) -> Result:
            return replace(resolve(request, roller), character=name)

        return one
    party = tuple(characters)

    def together(request: Request, roller: Roller) -> Result:
        result = resolve(request, roller)
        rows = result.members if result.members is not None else result.sides
        named = tuple(
            replace(row, character=who) for row, who in zip(rows or (), party, strict=False)
        )
        if result.members is not None:
            return replace(result, party=party, members=named)
        return replace(result, party=party, sides=named)

    return together


def results(
    request: Request,
    resolve: Callable[[Request, Roller], Result],
    roller: Roller,
    repeat: int = 1,
    work: int | None = None,
    planned: Plan | None = None,
) -> Iterator[Result]:
    """Each result of `request` (`6x 4d6kh3` gives six, `1d20+5; 2d6+3` two), `repeat`
    times over, resolved by `resolve` (a system's `resolve`, or the edge's wrapper of it)
    with `roller`.

    The dice budget covers one request: its dice, explosions, rerolls and `Nx` repeats
    (an `Nx` roll that cannot fit is refused before a die is rolled); each of the
    `repeat` runs has the whole budget, and all of them together at most `work` dice
    (None: no limit; a command that must roll more is refused before a die is rolled).
    At the end the roller checks that it is done (`--dice` faces left over are an
    error). `planned`: `plan(request)`, when the caller keeps it."""
    units, least, least_nx, each = plan(request) if planned is None else planned
    if repeat * each > MAX_ROLLED_RUNS:  # a group's members and a contest's sides count
        raise BudgetError(
            f"'{request.text}'"
            + (f" --repeat {repeat:,}" if repeat > 1 else "")
            + f" rolls {repeat * each:,} results one by one (each member or side counts): "
            f"at most {MAX_ROLLED_RUNS:,} (about 20 s); use fewer runs, or --summary "
            "for a tally drawn from the exact odds"
        )
    if least_nx:  # refuse `1000x 1001d6` before rolling
        roller.charge(least_nx, f"'{request.text}'")
    roller.start_command(work, least, repeat, refused_as(request, repeat, least))  # (and run 1)
    for run in range(repeat):
        if run:
            roller.next_run()
        for unit in units:
            for _ in range(unit.repeat):
                yield resolve(unit, roller)
    roller.finish()


def refused_as(request: Request, repeat: int, least: int) -> str:
    """What a refusal of too many dice in all names: made only when the request rolls
    some dice for certain (`least`; a check's plan counts none), as else it is never
    refused."""
    return (f"'{request.text}'" + (f" --repeat {repeat:,}" if repeat > 1 else "")) if least else ""


class Plan(NamedTuple):
    """What `results` reads of a request before rolling it: its rolls (`each_roll`), the
    fewest dice they roll in all, the fewest up to its last `Nx` roll (0: none), and how
    many results one run rolls one by one (a group's members and a contest's sides each
    count: a run of `--repeat` is bounded by them as by its dice)."""

    units: tuple[Request, ...]
    least: int
    least_nx: int
    results: int  # rolled one by one in one run: each member of a group, each side


def plan(request: Request) -> Plan:
    """The `Plan` of a request (a walk of its expressions: a caller that rolls the same
    request again keeps it)."""
    units = each_roll(request)
    least = least_nx = results = 0
    for unit in units:
        parts = getattr(unit, "members", None) or getattr(unit, "sides", None) or ()
        results += unit.repeat * max(len(parts), 1)
        if unit.verb == "roll":
            from d20cli.dice.evaluate import fewest_dice

            expr = getattr(unit, "expr", None)
            if expr is not None:
                least += unit.repeat * fewest_dice(expr)
                if unit.repeat > 1:
                    least_nx = least
    return Plan(units, least, least_nx, results)


def each_roll(request: Request) -> tuple[Request, ...]:
    """The requests that make the results of `request`: the rolls of `1d20+5; 2d6+3`, one
    result each (they share the dice budget), else the request itself."""
    parts = getattr(request, "parts", ())
    if parts and getattr(request, "template", None) is None:
        return tuple(parts)
    return (request,)


def in_text(err: D20Error, text: str) -> D20Error:
    """`err` placed in the request's `text` when it knows its column but not the text
    (an error found in a part of the request), so it can be shown with a caret."""
    if err.text is None and err.column is not None:
        return err.located(text, err.column)
    return err


@frozen(slots=True)
class Lane:
    """A plain request made ready to roll: what `run_request` (d20cli.app.run) works out
    before its first die (the options in force, the request with its house defaults, how
    it is resolved, its plan, its work budget, and the run's roller unless the line has
    a --seed of its own, which restarts the dice each time). The context keeps it by text
    for the options it was made for, so a line a batch repeats goes straight to its dice
    (`Context.lane`).

    Plain: no character, no sealed session, no --dice, --summary or --repeat, and a
    system without fortune dice; any other request is worked out each time.

    A slotted class, not a NamedTuple: a batch reads its fields on every line, and Python
    3.11 reads a slot much faster than a NamedTuple's field (a descriptor call)."""

    given: Options  # the options the request came with
    opts: Options  # the options in force
    request: Request
    resolve: Callable[[Request, Roller], Result]
    plan: Plan
    work: int
    roller: Roller | None  # the run's, which every request without a --seed rolls with
    single: bool = False  # it makes one result (not `1d20; 1d6`, not `3x 4d6`): `one`
    memo: DiceMemo | None = None  # its results by their faces (with `single`)

    def results(self, roller: Roller) -> Iterator[Result]:
        """Its results, rolled with `roller` (`results`)."""
        return results(self.request, self.resolve, roller, 1, self.work, self.plan)

    def one(self, roller: Roller) -> Result:
        """The result of a request of one result (`single`), rolled as `results` rolls it,
        without a generator (a batch rolls a line after another)."""
        least = self.plan.least
        roller.start_command(
            self.work, least, 1, refused_as(self.request, 1, least) if least else ""
        )
        memo = self.memo
        if memo is None:
            result = self.resolve(self.request, roller)
        else:  # the result kept for these faces, if any (d20cli.app.dice_memo)
            result = memo.roll(self.request, self.resolve, roller)
        roller.finish()
        return result


def lane(
    given: Options,
    opts: Options,
    request: Request,
    resolve: Callable[[Request, Roller], Result],
    plan: Plan,
    work: int,
    roller: Roller | None,
    room: Room | None = None,
) -> Lane:
    """The Lane of a plain request (`single` when it makes one result; then it remembers
    its results by their faces in the `room` given, if any, when its text is short)."""
    single = plan.units == (request,) and request.repeat == 1 and plan.results <= MAX_ROLLED_RUNS
    memo = None
    if single and room is not None and len(request.text) <= MAX_TEXT:
        memo = DiceMemo(room)
    return Lane(given, opts, request, resolve, plan, work, roller, single, memo)


class Lanes:
    """The lanes of one run (a batch, a shell session), by text and by the options they
    were made for (`given`): at most PER_TEXT for one text (a batch may roll it in
    several systems; the oldest is let go), and `size` texts (then all go); and the
    `room` their memos share (d20cli.app.dice_memo; None: they keep no results). A lane
    let go gives its memo's room back."""

    PER_TEXT = 4

    def __init__(self, size: int) -> None:
        self.size = size
        self.by_text: dict[str, dict[int, Lane]] = {}
        self.room: Room | None = Room()

    def get(self, text: str, given: Options) -> Lane | None:
        kept = self.by_text.get(text)
        lane = None if kept is None else kept.get(id(given))
        return lane if lane is not None and lane.given is given else None

    def keep(self, text: str, lane: Lane) -> None:
        kept = self.by_text.get(text)
        if kept is None:
            if len(self.by_text) >= self.size:
                self.by_text.clear()
                if self.room is not None:
                    self.room = Room()  # (the memos went with their lanes)
            kept = self.by_text[text] = {}
        gone = kept.pop(id(lane.given), None)
        if gone is None and len(kept) >= self.PER_TEXT:
            gone = kept.pop(next(iter(kept)))
        if gone is not None and gone.memo is not None:
            gone.memo.drop()
        kept[id(lane.given)] = lane

    def all(self) -> list[Lane]:
        """Every lane kept."""
        return [lane for kept in self.by_text.values() for lane in kept.values()]
