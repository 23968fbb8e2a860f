"""A plain request made ready to roll once, so that a line a batch (or a shell session)
repeats goes straight to its dice: `PreparedLine`, kept by text in `PreparedLines`.

The options a line came with and those in force are the caller's (d20cli.app.options
.Options on the command line): this layer only keeps them with the line, and finds a line
again by the very options object it was prepared for (`Settings`, opaque here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from d20cli.frozen import frozen
from d20cli.records import Generic
from d20cli.rolling import rolls
from d20cli.rolling.dice_memo import MAX_MEMO_TEXT, DiceMemo, MemoSpace
from d20cli.rolling.limits import MAX_ROLLED_RUNS
from d20cli.rolling.rolls import Plan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    from d20cli.dice.roller import Roller
    from d20cli.language.requests import Request
    from d20cli.results import Result

    #: The options of a line, as the caller holds them (the command line's `Options`).
    Settings = TypeVar("Settings")


@frozen(slots=True)
class PreparedLine(Generic["Settings"]):
    """A plain request made ready to roll: what the request path (d20cli.app.run) works
    out before its first die (the options in force, the request with its house defaults,
    how it is resolved, its plan, its work budget, and the run's roller unless the line
    has a --seed of its own, which restarts the dice each time). The run keeps it by text
    for the options it was made for (`PreparedLines`), so a line a batch repeats goes
    straight to its dice.

    Plain: no character, no sealed session, no --dice, --summary or --repeat, and a
    system without fortune dice; any other request is worked out each time.

    A slotted class, not a NamedTuple: a batch reads its fields on every line, and Python
    3.11 reads a slot much faster than a NamedTuple's field (a descriptor call)."""

    given: Settings  # the options the request came with
    opts: Settings  # the options in force
    request: Request
    resolve: Callable[[Request, Roller], Result]
    plan: Plan
    work: int
    roller: Roller | None  # the run's, which every request without a --seed rolls with
    single: bool = False  # it makes one result (not `1d20; 1d6`, not `3x 4d6`): `one`
    memo: DiceMemo | None = None  # its results by their faces (with `single`)

    def results(self, roller: Roller) -> Iterator[Result]:
        """Its results, rolled with `roller` (d20cli.rolling.rolls.results)."""
        return rolls.results(self.request, self.resolve, roller, 1, self.work, self.plan)

    def rolled(self, roller: Roller, remember: bool = True) -> Iterable[Result]:
        """Its results, rolled with `roller`: a request of one result (`single`) is rolled
        now, as `results` rolls it, without a generator (a batch rolls a line after
        another), and through its memo when `remember`; any other, by `results`."""
        if not self.single:
            return self.results(roller)
        memo = self.memo if remember else None
        return (rolls.one(self.request, self.resolve, roller, self.work, self.plan, memo),)


def prepare(
    given: Settings,
    opts: Settings,
    request: Request,
    resolve: Callable[[Request, Roller], Result],
    plan: Plan,
    work: int,
    roller: Roller | None,
    space: MemoSpace | None = None,
) -> PreparedLine[Settings]:
    """The PreparedLine of a plain request (`single` when it makes one result; then it
    remembers its results by their faces within the memo `space` given, if any, when its
    text is short)."""
    single = plan.units == (request,) and request.repeat == 1 and plan.results <= MAX_ROLLED_RUNS
    memo = None
    if single and space is not None and len(request.text) <= MAX_MEMO_TEXT:
        memo = DiceMemo(space)
    return PreparedLine(given, opts, request, resolve, plan, work, roller, single, memo)


class PreparedLines(Generic["Settings"]):
    """The prepared lines of one run (a batch, a shell session), by text and by the
    options they were made for (`given`): at most PER_TEXT for one text (a batch may roll
    it in several systems; the oldest is let go), and `size` texts (then all go); and the
    `space` their memos share (d20cli.rolling.dice_memo; None: they keep no results). A
    line let go gives its memo's bytes back."""

    PER_TEXT = 4

    def __init__(self, size: int) -> None:
        self.size = size
        self.by_text: dict[str, dict[int, PreparedLine[Settings]]] = {}
        self.space: MemoSpace | None = MemoSpace()

    def get(self, text: str, given: Settings) -> PreparedLine[Settings] | None:
        kept = self.by_text.get(text)
        line = None if kept is None else kept.get(id(given))
        return line if line is not None and line.given is given else None

    def keep(self, text: str, line: PreparedLine[Settings]) -> None:
        kept = self.by_text.get(text)
        if kept is None:
            if len(self.by_text) >= self.size:
                self.by_text.clear()
                if self.space is not None:
                    self.space = MemoSpace()  # (the memos went with their lines)
            kept = self.by_text[text] = {}
        gone = kept.pop(id(line.given), None)
        if gone is None and len(kept) >= self.PER_TEXT:
            gone = kept.pop(next(iter(kept)))
        if gone is not None and gone.memo is not None:
            gone.memo.drop()
        kept[id(line.given)] = line

    def all(self) -> list[PreparedLine[Settings]]:
        """Every line kept."""
        return [line for kept in self.by_text.values() for line in kept.values()]
