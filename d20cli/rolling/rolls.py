"""The core path of every roll, the same for the command line and the Python library.

A request's text is checked (`check_text`), parsed (d20cli.language.grammar), and each of
its results resolved by the system with a roller (`results`): `d20 check +5 vs 15` on the
command line (d20cli.app.run) and `d20cli.roll("check +5 vs 15")` in a program
(d20cli.api) both come through here, so they roll the same dice the same way. An error
found in a part of the request is placed in the request's text by `in_text`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from d20cli.errors import BudgetError, D20Error, ParseError
from d20cli.frozen import replace
from d20cli.language.requests import Request
from d20cli.language.vocabulary import MAX_REQUEST, VERBS
from d20cli.records import NamedTuple
from d20cli.rolling.limits import MAX_ROLLED_RUNS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.results import Result
    from d20cli.rolling.dice_memo import DiceMemo


def check_text(text: str) -> None:
    """ParseError for a request that is empty or longer than MAX_REQUEST characters."""
    if not text.strip():
        raise ParseError("nothing to roll: give a verb and its words, e.g. `check +5 vs 15`")
    if len(text) > MAX_REQUEST:
        raise ParseError(
            f"the request is {len(text):,} characters long; the limit is {MAX_REQUEST:,}"
        )


#: How a bare dice expression begins: a number, a die (`d20`, `d%`, `dF`, `d(`), a
#: parenthesis, with a sign or not. (`_BARE` and `_WORD` are compiled where first used,
#: by `re`'s own cache: a request that starts with its verb uses neither, and they cost
#: about 0.4 ms of a start; every request reads its first word.)
_BARE = r"(?i)[+-]?(?:[0-9(]|d[0-9%f(])"
_WORD = r"(?i)[a-z][\w'-]*"
_WORD_END = re.compile(r"[\s,]")


def first_word(text: str) -> str:
    """The first word of a request, where its verb goes (as the grammar reads it)."""
    return _WORD_END.split(text.lstrip(), maxsplit=1)[0]


def is_bare(text: str) -> bool:
    """Whether `text` is a bare dice expression (`4d6kh3`, `d20+5`, `2d6 + 3`,
    `max(1d6,1d8)`, `{4d6,3d8}kh1`, `--1`): its first word is no verb, and it begins as
    dice notation does or is no plain word. A plain word (a macro, a mistyped verb) is
    not: its error names the verbs. It is rolled as `roll TEXT`."""
    first = first_word(text)
    if not first or first.lower() in VERBS:
        return False
    return re.match(_BARE, text.lstrip()) is not None or re.fullmatch(_WORD, first) is None


def request_line(text: str) -> str:
    """The request line for `text`: a bare dice expression gets the verb `roll` in front
    (`is_bare`); anything else is the line as given."""
    return "roll " + text.lstrip() if is_bare(text) else text


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
    step: Callable[[], None] | None = None,
) -> Iterator[Result]:
    """Each result of `request` (`6x 4d6kh3` gives six, `1d20+5; 2d6+3` two), `repeat`
    times over, resolved by `resolve` (a system's `resolve`, or the edge's wrapper of it)
    with `roller`.

    The dice budget covers one request: its dice, explosions, rerolls and `Nx` repeats
    (an `Nx` roll that cannot fit is refused before a die is rolled); each of the
    `repeat` runs has the whole budget, and all of them together at most `work` dice
    (None: no limit; a command that must roll more is refused before a die is rolled).
    At the end the roller checks that it is done (`--dice` faces left over are an
    error). `planned`: `plan(request)`, when the caller keeps it. `step`: called as each
    run ends (a progress bar counts them)."""
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
        if step is not None:
            step()
    roller.finish()


def one(
    request: Request,
    resolve: Callable[[Request, Roller], Result],
    roller: Roller,
    work: int | None,
    planned: Plan,
    memo: DiceMemo | None = None,
) -> Result:
    """The result of a request that makes one result (its plan's units are the request
    alone, not repeated: a prepared line's `single`), rolled as `results(request, resolve,
    roller, 1, work, planned)` rolls it, without a generator (a batch, or the library,
    rolls one after another). `memo`: its results by their faces
    (d20cli.rolling.dice_memo), for a roller that draws from a generator."""
    least = planned.least
    roller.start_command(work, least, 1, refused_as(request, 1, least) if least else "")
    result = resolve(request, roller) if memo is None else memo.roll(request, resolve, roller)
    roller.finish()
    return result


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
    from d20cli.dice.evaluate import fewest_dice

    units = each_roll(request)
    least = least_nx = results = 0
    for unit in units:
        parts = getattr(unit, "members", None) or getattr(unit, "sides", None) or ()
        results += unit.repeat * max(len(parts), 1)
        if unit.verb == "roll":
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
