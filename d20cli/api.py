"""d20cli as a Python library: roll, grade and compute exact odds in any of the four rule
systems, as the command line does.

    >>> import d20cli
    >>> result = d20cli.roll("check +5 vs 15 adv", dice=[17, 4])
    >>> result.total, result.outcome, result.success
    (22, 'success', True)
    >>> print(result)
    check +5 vs 15 adv  [levelup]
      d20 17 ~4~  +5  = 22 vs 15  Success

The public names are those in `d20cli.__all__`. They live here, and `import d20cli`
imports this module the first time one of them is used, so the command line, which uses
none of them, starts as fast as before.

There is one way to roll. A call here takes the command line's path: the text is checked
and parsed by the same grammar, read through a character by the same code as `--as`, and
each result is resolved by the system's rules with a roller made the way `--seed` and
`--dice` make one (d20cli.rolling). So `seed=7` rolls the dice `d20 ... --seed 7` rolls,
`dice=[17, 4]` is `--dice 17,4`, `budget=N` is `--budget N` (`work=N`, `--work N`: both
default to the command line's limits), and the odds are the ones
`d20 odds` computes.

What the library leaves to the command line: it reads no environment variable (D20_SYSTEM,
D20_BUDGET), writes no roll log and no cache, and keeps no Pen & Dagger fortune dice (the
`fortune` verb is a RulesError here; `attempt ... fortune` still reports the die it gains,
in `result.detail`). It reads the characters file only when given a character's name.

Errors: a request that cannot be rolled raises a `D20Error` (ParseError for the words,
RulesError for what the system does not offer, DiceError for dice that cannot be rolled,
BudgetError for a request past the dice budget), with `text` and, where known, the 1-based
`column` of the fault. A wrong argument (a seed that is not a whole number, both `seed`
and `dice`) is a TypeError or ValueError, as elsewhere in Python.

Threads: a call makes its own roller; unseeded, it draws from its thread's generator
(`_random`: seeded from the OS once a thread, not once a call). Calls share the requests
already read (`_READY`: each with its plan and its results by their faces, a DiceMemo)
and the parsed requests (`_PARSED`), bounded, read without a lock and changed under one
(the grammar's parser has process-wide state). Threads may roll at once, and each gets
the dice of its own seed. A `random.Random` or `Roller` passed in is the caller's: shared
between threads, the order of its dice is theirs.
"""

from __future__ import annotations

import os
import random
import re
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

from d20cli.bounded import Bounded, declare
from d20cli.dice.roller import (
    DEFAULT_BUDGET,
    DEFAULT_WORK,
    RandomRoller,
    Roller,
    generator,
    make_roller,
)
from d20cli.errors import (
    BudgetError,
    D20Error,
    DiceError,
    NotationWarning,
    ParseError,
    RulesError,
    StateError,
)
from d20cli.frozen import frozen
from d20cli.importers import Sheet
from d20cli.language.peer_readings import readings
from d20cli.present.output import result_text  # noqa: F401 (it makes str(result) the text)
from d20cli.probability.luck import Ledger, Priced
from d20cli.probability.model import Odds
from d20cli.probability.sweep import Sweep
from d20cli.results import SCHEMA_VERSION, Damage, DiceSummary, Die, Result, Score
from d20cli.rolling import rolls
from d20cli.rolling.dice_memo import MAX_MEMO_TEXT, Call, DiceMemo, Draw, MemoSpace
from d20cli.rolling.limits import MAX_BUDGET, MAX_REPEAT, MAX_ROLLED_RUNS, MAX_WORK
from d20cli.rules import DEFAULT_SYSTEM as _DEFAULT_ID
from d20cli.rules import SYSTEM_IDS, get_system
from d20cli.rules.common import imported
from d20cli.rules.house import HouseDefaults, with_house
from d20cli.store.as_character import read_through
from d20cli.store.characters import Character
from d20cli.store.characters import load as load_character

if TYPE_CHECKING:
    from d20cli.language.requests import Request as Parsed
    from d20cli.rules import System

__all__ = [
    "SCHEMA_VERSION",
    "BudgetError",
    "Character",
    "D20Error",
    "Damage",
    "DiceError",
    "DiceSummary",
    "Die",
    "Ledger",
    "NotationWarning",
    "Odds",
    "OutcomeInfo",
    "ParseError",
    "Priced",
    "Request",
    "Result",
    "Roller",
    "RulesError",
    "Score",
    "Sheet",
    "StateError",
    "Sweep",
    "SystemInfo",
    "VerbInfo",
    "chart",
    "import_character",
    "luck",
    "odds",
    "parse",
    "roll",
    "roll_all",
    "sweep",
    "systems",
]


class _Default(str):
    """The default system: `"levelup"`, which a character's own system replaces (a system
    you pass, even `"levelup"`, is kept: only this very object is the default)."""


#: The system a request is rolled in when none is given (a character's own beats it).
DEFAULT_SYSTEM: str = _Default(_DEFAULT_ID)


def roll(
    request: str,
    *,
    system: str | None = DEFAULT_SYSTEM,
    seed: int | None = None,
    dice: Sequence[int] | None = None,
    character: str | Character | None = None,
    rng: random.Random | Roller | None = None,
    budget: int = DEFAULT_BUDGET,
    work: int = DEFAULT_WORK,
    strict: bool = False,
) -> Result:
    """Roll one request and grade it by the system's rules.

    request: a request line, verb first (`"check +5 vs 15 adv expertise=d6"`, `"attack +7
    vs AC 15 dmg 1d8+4"`), or a bare dice expression (`"4d6kh3"`, read as `roll 4d6kh3`).
    system: a system id or alias (`levelup`, `reglamento`, `mm`, `pendagger`, `a5e`, ...);
    By default levelup, or the character's own system when it names one (a system you
    pass always wins).
    seed: reproducible dice (the command line's `--seed`); dice: these faces, in roll order
    (`--dice`); rng: your own randomness, a `random.Random` (`random.SystemRandom()`, one
    you seeded) or a `Roller`. Give at most one of the three; none: fresh random dice.
    character: label words and macros read through a character, by name from the
    characters file (`--as NAME`) or a `Character` you make.
    budget: the most dice the request may roll (explosions, rerolls and `Nx` count);
    work: the most dice the call may roll in all (`roll_all`'s `repeat` runs together).
    Both default to the command line's limits (`--budget`, `--work`); a larger number
    raises them (at most 10,000,000 and 1,000,000,000). Past them, a BudgetError.

    strict: a label word with no value (`check stealth vs 15` without a character, rolled
    at +0 otherwise) is a ParseError (the command line's `--strict`), and so is a form a
    major peer reads as another number (`5d10>7`: Roll20 counts 7 or more), which
    otherwise is rolled as d20cli reads it with a `NotationWarning` (Python's `warnings`)
    naming that peer.

    A request that makes several results (`6x 4d6kh3`) is a ParseError here: use
    `roll_all`.

    >>> import d20cli
    >>> d20cli.roll("4d6kh3", dice=[6, 5, 2, 4]).total
    15
    >>> d20cli.roll("check +8 vs tough bonus", system="mm", dice=[10]).label
    'Success — 2 degrees of success'
    >>> d20cli.roll("roll d20", seed=7) == d20cli.roll("roll d20", seed=7)
    True
    """
    roller = _roller(seed, dice, rng, budget)
    return _rolled(request, system, character, roller, 1, _work(work), one=True, strict=strict)[0]


def roll_all(
    request: str,
    *,
    system: str | None = DEFAULT_SYSTEM,
    seed: int | None = None,
    dice: Sequence[int] | None = None,
    character: str | Character | None = None,
    rng: random.Random | Roller | None = None,
    budget: int = DEFAULT_BUDGET,
    work: int = DEFAULT_WORK,
    repeat: int = 1,
    strict: bool = False,
) -> tuple[Result, ...]:
    """Every result of a request (`6x 4d6kh3` makes six), the whole request `repeat`
    times over (the command line's `--repeat N`; each time has the whole dice budget,
    and all of them together the `work` budget). The other arguments are `roll`'s.

    >>> import d20cli
    >>> [r.total for r in d20cli.roll_all("3x 2d6", dice=[1, 2, 3, 4, 5, 6])]
    [3, 7, 11]
    >>> len(d20cli.roll_all("check +5 vs 15", seed=1, repeat=4))
    4
    """
    _check_whole("repeat", repeat, MAX_REPEAT)
    roller = _roller(seed, dice, rng, budget)
    return _rolled(
        request, system, character, roller, repeat, _work(work), one=False, strict=strict
    )


def odds(
    request: str,
    *,
    system: str | None = DEFAULT_SYSTEM,
    character: str | Character | None = None,
    strict: bool = False,
) -> Odds:
    """The exact odds of a request (what `d20 odds` prints), computed by walking the same
    rules that roll it. `outcomes` maps each outcome id to its chance as an exact
    `fractions.Fraction`; `distribution` maps each total to its chance (None where totals
    mean nothing); `mean`, `success` (the chance of any success) and, for a contest of
    three or more sides, `winners` too. `to_json()` is the `--json` object and `str()`
    the text. The arguments are `roll`'s.

    The odds are read-only (`Odds.sealed`): the same request asked again (without a
    character) is answered with the very odds computed the first time, as `roll` reads a
    request once (`_READY`); `dict(chances.outcomes)` is a copy to change.

    >>> import d20cli
    >>> chances = d20cli.odds("check +5 vs 15 adv")
    >>> chances.outcomes["critical_success"]
    Fraction(39, 400)
    >>> d20cli.odds("2d6").distribution[7]
    Fraction(1, 6)
    """
    engine = _odds_engine()
    if character is None and type(request) is str and (system is None or isinstance(system, str)):
        ready = _ready(request, system, strict)  # the request read once, as `roll` reads it
        try:
            answer: Odds = engine.odds_of_request(ready.parsed, ready.rules.id)
            return answer
        except D20Error as err:
            raise _placed(err, request, ready.line) from None
        except RecursionError:
            raise ParseError("the request is nested too deeply", request, None) from None
    line = _request_line(request)
    with _placed_in(request, line):
        read = _read(request, line, system, character, strict)
        computed: Odds = engine.odds_of(line, read.rules.id, parse=read.parse)
        return computed


def _odds_engine() -> ModuleType:
    """d20cli.probability.engine, the odds' text made ready (present.odds_view makes
    `str(odds)` the text): imported at the first odds, then taken from sys.modules
    (rules.common.imported: two import statements cost 3 µs a call, three quarters of
    `odds` of a request asked before)."""
    imported("d20cli.present.odds_view", "chance_rows")
    engine: ModuleType = imported("d20cli.probability.engine", "odds_of")
    return engine


def sweep(
    request: str,
    *,
    system: str | None = DEFAULT_SYSTEM,
    character: str | Character | None = None,
    strict: bool = False,
) -> Sweep:
    """The odds of a request with a range in place of one number (`check +5 vs 5..30`,
    `attack +7 vs AC 10..25 dmg 1d8+4`, `check +0..+10 vs 15`): what `d20 odds` prints
    for it. `points` holds `(value, Odds)` pairs, each the `odds` of the request typed at
    that point; `to_json()` is the `--json` object. A request without a range is a
    ParseError. The arguments are `roll`'s.

    >>> import d20cli
    >>> [(dc, o.success) for dc, o in d20cli.sweep("check +5 vs 24..26").points]
    [(24, Fraction(1, 10)), (25, Fraction(1, 20)), (26, Fraction(0, 1))]
    """
    from d20cli.probability import walk
    from d20cli.probability.sweep import find_range
    from d20cli.probability.sweep import sweep as sweep_of

    line = _request_line(request)
    with _placed_in(request, line):
        span = find_range(line)
        if span is None:
            raise ParseError("a sweep needs a range in place of a number: `vs 5..30`", line, 1)
        command = walk.command_budget(line)
        return sweep_of(
            line,
            span,
            lambda text: odds(text, system=system, character=character, strict=strict),
            command,
        )


def luck(rolls: Iterable[Result | Mapping[str, Any]] | str | os.PathLike[str]) -> Ledger:
    """How lucky these rolls were: each priced by the exact odds of its request, as
    `d20 log --luck` prices the roll log. `rolls` is results of `roll` (in the order
    given), rows of `d20 log --export json` (dicts, in the order given), or the path of
    such an export file (its rows oldest first, as the log reads them). Each roll is
    rolled again with its own faces under its system and house rules (a roll that does
    not give back its outcome and total is left out, and said); rows with forced dice
    (`source` "dice") are left out, as the log leaves them out. The report is immutable:
    `priced` (each roll's `Priced`), `forced`, `left_out` (reason -> rolls); `whole()` and
    `by("character")` / `by("verb")` give `Group`s with `successes()`, `tiers()`,
    `damage()`, `streaks()` and `least_likely()`; `to_json()` is `d20 log --luck --json`.
    A file that cannot be read is a StateError; one that is not such an export, a
    ParseError.

    >>> import d20cli
    >>> report = d20cli.luck([d20cli.roll("check +5 vs 15", dice=[d]) for d in (19, 12, 3)])
    >>> s = report.whole().successes()
    >>> s.observed, round(s.expected, 2), s.exact, s.p_value
    (2, 1.65, True, 1.0)
    >>> report.whole().least_likely().request, report.whole().least_likely().chance
    ('check +5 vs 15', Fraction(2, 5))
    """
    from d20cli.probability.pricing import NOT_AS_ROLLED, Logged, price_rolls

    found: list[Logged | str] = []
    if isinstance(rolls, (str, os.PathLike)):
        rows = _export_rows(rolls)
        rows.sort(key=lambda r: (str(r.get("at") or ""), _int_or(r.get("id"), 0)))
        rolls = rows
    elif isinstance(rolls, (Result, Mapping)):
        raise TypeError("luck takes a list of results or rows (or a file's path), not one")
    for i, item in enumerate(rolls, 1):
        if isinstance(item, Result):
            found.append(_logged_result(i, item))
        elif isinstance(item, Mapping):
            found.append(_logged_row(i, item) or NOT_AS_ROLLED)
        else:
            raise TypeError(f"luck prices results and log rows (dicts), not {item!r:.80}")
    return price_rolls(found, _parse)


#: What `chart` writes.
CHART_FORMATS = ("svg", "png")


def chart(
    view: Odds | Sweep | Ledger | Sequence[Odds] | Sequence[Sweep],
    format: str = "svg",
    *,
    totals: bool = False,
) -> bytes:
    """The chart `--svg FILE` (format "svg") or `--png FILE` ("png") writes of a view, as
    bytes: the `odds` of a request (with `totals=True`, its totals, as `--totals`), a
    `sweep`, odds or sweeps compared (a list of them: `d20 odds compare`; compared sweeps
    sweep the same points) or a `luck` report. The same view gives the same bytes as the
    command's file; the chart's data, each value exact, are in its description (an SVG's
    `<dc:description>`, a PNG's `Description` text) as JSON. matplotlib is imported at the
    first chart, never before. A view of another kind is a TypeError; another format, or
    sweeps of different points, a ValueError.

    >>> import d20cli
    >>> picture = d20cli.chart(d20cli.odds("check +5 vs 15"))
    >>> picture[:5], b"Critical success" in picture
    (b'<?xml', True)
    """
    from d20cli.present import charts

    if not isinstance(format, str) or format.lower() not in CHART_FORMATS:
        raise ValueError(f"a chart's format is 'svg' or 'png', not {format!r:.40}")
    if isinstance(view, Odds):
        made = charts.odds_chart(view, totals=totals)
    elif isinstance(view, Sweep):
        made = charts.sweep_chart(view)
    elif isinstance(view, Ledger):
        from d20cli.probability.pricing import tier_labels

        made = charts.luck_chart(view, tier_labels())
    elif isinstance(view, Sequence) and view and all(isinstance(v, Odds) for v in view):
        made = charts.compare_chart([v for v in view if isinstance(v, Odds)], totals=totals)
    elif isinstance(view, Sequence) and view and all(isinstance(v, Sweep) for v in view):
        sweeps = [v for v in view if isinstance(v, Sweep)]
        if any([p for p, _ in s.points] != [p for p, _ in sweeps[0].points] for s in sweeps):
            raise ValueError("sweeps compared in a chart sweep the same points")
        made = charts.compare_sweep_chart(sweeps)
    else:
        raise TypeError(
            "a chart is of odds, a sweep, a luck report, or a list of odds or of sweeps "
            f"compared, not {view!r:.80}"
        )
    return charts.draw(made, format.lower())


def _int_or(value: object, default: int) -> int:
    return value if type(value) is int else default


def _export_rows(path: str | os.PathLike[str]) -> list[Mapping[str, Any]]:
    """The rows of a `d20 log --export json` file (at most MAX_EXPORT_BYTES, as `d20
    verify` reads one)."""
    import json

    from d20cli.store.files import MAX_EXPORT_BYTES, read_bytes

    name = os.fspath(path)
    if not isinstance(name, str):
        raise TypeError("luck() takes a path as a str or os.PathLike[str]")
    try:
        data = json.loads(read_bytes(name, MAX_EXPORT_BYTES, "a roll log export"))
    except OSError as err:
        raise StateError(f"{name}: cannot be read ({err.strerror or type(err).__name__})") from None
    except (ValueError, RecursionError):
        raise ParseError(f"{name}: not a roll log export (d20 log --export json)") from None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ParseError(
            f"{name}: not a roll log export (d20 log --export json): not a list of rolls"
        )
    return data


def _logged_result(position: int, result: Result) -> Any:
    """What pricing reads of a result of the library: its row, as the roll log keeps it
    (its position for an id, no time)."""
    import json

    from d20cli.probability.pricing import Logged
    from d20cli.store.row_fields import dice_text, row_dice

    return Logged(
        position,
        None,
        result.character,
        result.system,
        result.verb,
        result.request,
        json.loads(row_dice(result, dice_text)),
        result.total,
        result.outcome,
        house=result.detail.get("house") or None,
    )


def _logged_row(position: int, row: Mapping[str, Any]) -> Any:
    """What pricing reads of a row of `d20 log --export json` (None: not such a row)."""
    from d20cli.probability.pricing import Logged

    system, verb, request = row.get("system"), row.get("verb"), row.get("request")
    character, at, outcome = row.get("character"), row.get("at"), row.get("outcome")
    total, house, session, dice = (
        row.get("total"),
        row.get("house"),
        row.get("session"),
        row.get("dice"),
    )
    if (
        not isinstance(system, str)
        or not isinstance(verb, str)
        or not isinstance(request, str)
        or not isinstance(dice, list)
        or not all(v is None or isinstance(v, str) for v in (character, at, outcome))
        or not (total is None or type(total) is int)
        or not (house is None or isinstance(house, dict))
    ):
        return None
    return Logged(
        _int_or(row.get("id"), position),
        at,
        character,
        system,
        verb,
        request,
        dice,
        total,
        outcome,
        row.get("source") == "dice",
        house,
        session is not None,
    )


@frozen
class Request:
    """A request read and checked without rolling (`parse`).

    text: the request as it is rolled (a bare expression with its `roll` in front, a
    character's words filled in); verb; system: the system's id; count: how many results
    one roll of it makes (`6x 4d6kh3`: 6)."""

    text: str
    verb: str
    system: str
    count: int


def parse(
    request: str,
    *,
    system: str | None = DEFAULT_SYSTEM,
    character: str | Character | None = None,
    budget: int = DEFAULT_BUDGET,
    strict: bool = False,
) -> Request:
    """Check a request without rolling it: the words, what the system offers and the dice
    budget, as `roll` would (so a request `parse` accepts does not fail when rolled, but
    for `dice` faces that do not fit it). The arguments are `roll`'s.

    The rules are checked by resolving the request once with dice of a private generator,
    which are thrown away: no randomness of yours is used, and nothing is logged.

    >>> import d20cli
    >>> d20cli.parse("6x 4d6kh3")
    Request(text='roll 6x 4d6kh3', verb='roll', system='levelup', count=6)
    >>> try:
    ...     d20cli.parse("check +5 vs 15 adv", system="mm")
    ... except d20cli.RulesError as err:
    ...     print(f"column {err.column}: {err.message}")
    column 16: mm has no advantage; use circumstance words: bonus (+2), ...
    """
    probe = _roller(None, None, random.Random(0), budget)
    line = _request_line(request)
    with _placed_in(request, line):
        rules, parsed, text, _, _ = _read(request, line, system, character, strict)
        for _ in rolls.results(parsed, rules.resolve, probe):
            pass
    return Request(
        text, parsed.verb, rules.id, sum(unit.repeat for unit in rolls.each_roll(parsed))
    )


class VerbInfo(NamedTuple):
    """A verb of a system: its name, a line of help and an example request."""

    name: str
    summary: str
    example: str


class OutcomeInfo(NamedTuple):
    """An outcome tier of a system: its id (as in `Result.outcome`) and its label."""

    id: str
    label: str


@frozen
class SystemInfo:
    """A rule system as `d20 systems` describes it: its id (what `system=` takes, as do
    the aliases), title, verbs, outcome tiers (worst to best) and the words its requests
    take, each with its meaning."""

    id: str
    title: str
    aliases: tuple[str, ...]
    verbs: tuple[VerbInfo, ...]
    outcomes: tuple[OutcomeInfo, ...]
    words: tuple[tuple[str, str], ...]


def import_character(
    path_or_data: str | os.PathLike[str] | Mapping[str, Any], system: str | None = None
) -> Sheet:
    """A character sheet read, as `d20 char import` reads it, without writing a file: a
    path to the JSON another program saved (a Foundry VTT Level Up A5E or Mutants &
    Masterminds 3e actor's Export Data, a D&D Beyond character's JSON), or that JSON
    already parsed. The `Sheet` has `format`, `version`, `name`, `system`, `entries`
    (each an `Entry`: `key` such as "checks.stealth", `words` such as "+7 expertise=d6",
    `source`, the sheet's fields, and `total`, the modifier the sheet shows), `not_mapped`
    (each a `field` and a `reason`), `facts` and `to_json()`. `system`: the system to
    import as (it must be the one the format fits). Bad input: ParseError.

    >>> sheet = import_character("tests/fixtures/import/a5e_aria.json")
    >>> sheet.system, sheet.words()["checks.stealth"]
    ('levelup', '+7 expertise=d6')
    """
    from d20cli.store.character_import import load_sheet

    return load_sheet(path_or_data, system)


def systems() -> tuple[SystemInfo, ...]:
    """The four rule systems, each with its verbs and outcome tiers.

    >>> import d20cli
    >>> [s.id for s in d20cli.systems()]
    ['levelup', 'reglamento', 'mm', 'pendagger']
    >>> [v.name for v in d20cli.systems()[0].verbs]
    ['check', 'save', 'attack', 'group', 'roll']
    """
    found = []
    for system_id in SYSTEM_IDS:
        rules = get_system(system_id)
        found.append(
            SystemInfo(
                rules.id,
                rules.title,
                tuple(rules.aliases),
                tuple(VerbInfo(v, summary, ex) for v, (summary, ex) in rules.verbs.items()),
                tuple(OutcomeInfo(oid, label) for oid, label in rules.outcomes),
                tuple(rules.words),
            )
        )
    return tuple(found)


# --- the way every call goes ------------------------------------------------------------


def _rolled(
    request: str,
    system: str | None,
    character: str | Character | None,
    roller: Roller,
    repeat: int,
    work: int,
    one: bool,
    strict: bool = False,
) -> tuple[Result, ...]:
    if character is None and type(request) is str and (system is None or isinstance(system, str)):
        ready = _ready(request, system, strict)  # (read once, and kept: `_READY`)
        line = ready.line
        try:
            if one and ready.count > 1:
                raise _too_many(ready.count, ready.text)
            if ready.single and repeat == 1:
                return (ready.one(roller, work),)
            return tuple(
                rolls.results(ready.parsed, ready.rules.resolve, roller, repeat, work, ready.plan)
            )
        except BudgetError as err:  # the roller's words are the command line's
            raise _placed(
                BudgetError(_api_words(err.message), err.text, err.column), request, line
            ) from None
        except D20Error as err:
            raise _placed(err, request, line) from None
        except RecursionError:
            raise ParseError("the request is nested too deeply", request, None) from None
    line = _request_line(request)
    with _placed_in(request, line):
        rules, parsed, text, _, who = _read(request, line, system, character, strict)
        count = sum(unit.repeat for unit in rolls.each_roll(parsed))
        if one and count > 1:
            raise _too_many(count, text)
        resolve = rules.resolve if who is None else rolls.through(rules.resolve, (who,))
        try:
            return tuple(rolls.results(parsed, resolve, roller, repeat, work))
        except BudgetError as err:  # the roller's words are the command line's
            raise BudgetError(_api_words(err.message), err.text, err.column) from None


def _too_many(count: int, text: str) -> ParseError:
    """The error of `roll` for a request of `count` results."""
    at = re.search(r"(?<![\w.])[0-9]+x(?![\w])", text, re.IGNORECASE)
    return ParseError(
        f"this request makes {count} results; d20cli.roll gives one "
        "(d20cli.roll_all gives them all)",
        text,
        at.start() + 1 if at else None,
    )


class _Ready:
    """A request read once for a system, without a character (`_ready`): what a call works
    out before its first die, kept so that the same text again goes straight to its dice,
    as a batch's prepared line does (d20cli.rolling.prepared).

    line: the request line; rules, parsed, text: as `_read` gives them; notes: the
    NotationWarnings it gives (said again on every call); count: its results; plan: its
    plan (d20cli.rolling.rolls.plan); single: it makes one result (not `1d20; 1d6`, not
    `3x 4d6`), rolled by `one`; memo: its results by their faces
    (d20cli.rolling.dice_memo), for rolls of a `random.Random`."""

    __slots__ = (
        "count",
        "line",
        "memo",
        "notes",
        "parsed",
        "plan",
        "resolve",
        "rules",
        "single",
        "text",
    )

    def __init__(self, line: str, read: _Read, notes: tuple[str, ...]) -> None:
        self.line = line
        self.rules, self.parsed, self.text = read.rules, read.parsed, read.text
        self.resolve = read.rules.resolve
        self.notes = notes
        self.plan = plan = rolls.plan(read.parsed)
        self.count = sum(unit.repeat for unit in plan.units)
        self.single = (
            plan.units == (read.parsed,)
            and read.parsed.repeat == 1
            and plan.results <= MAX_ROLLED_RUNS
        )
        memo = None
        if self.single and len(read.parsed.text) <= MAX_MEMO_TEXT:
            memo = _SharedMemo(_READY.space)
        self.memo = memo

    def one(self, roller: Roller, work: int) -> Result:
        """The one result of a `single` request rolled with `roller`
        (d20cli.rolling.rolls.one); a `RandomRoller`'s through the memo."""
        memo = self.memo if type(roller) is RandomRoller else None
        return rolls.one(self.parsed, self.resolve, roller, work, self.plan, memo)


class _SharedMemo(DiceMemo):
    """A DiceMemo that threads share: a roll it holds is read without a lock (the tree
    only grows, and a leaf is an immutable Result); a roll it does not hold is resolved
    and kept under `_MEMO_LOCK`, which also guards the space the memos share.

    It keeps at most LEAVES results (a batch's line, 2,048): a request of a few ways to
    fall (`1d20+5`: 20) is answered from it, and one of many (`2d20kh1+1d6+5`: 2,400) is
    soon dropped for its misses (d20cli.rolling.dice_memo), so that it does not fill the
    space the others need."""

    __slots__ = ()

    LEAVES = 512

    def _resolve(
        self,
        request: Parsed,
        resolve: Callable[[Parsed, Roller], Result],
        roller: Roller,
        taken: list[Call],
    ) -> Result:
        with _MEMO_LOCK:
            return super()._resolve(request, resolve, roller, taken)

    def _keep(self, calls: list[Call], result: Result, size: int) -> None:
        node: object = self.root
        for _, _, _, face in calls:  # another thread kept these faces since they missed
            if type(node) is not Draw:
                break
            node = node.branches.get(face)
        else:
            if node is not None and type(node) is not Draw:
                return
        super()._keep(calls, result, size)


class _Prepared(Bounded[tuple[str, str | None, bool], _Ready]):
    """The requests `_ready` read, by (text, system as given, strict): `Bounded(size)`, and
    the space their memos share (d20cli.rolling.dice_memo: ROOM bytes), made anew when
    the requests are let go (their memos go with them)."""

    __slots__ = ("space",)

    def __init__(self, size: int, most: int | None = None, weigh: Any = None) -> None:
        super().__init__(size, most, weigh)
        self.space = MemoSpace()

    def clear(self) -> None:
        super().clear()
        self.space = MemoSpace()


_MEMO_LOCK = threading.Lock()
_READY_LOCK = threading.Lock()
_READY: _Prepared = declare(
    "api._READY",
    holds="(text, system as given, strict) → the request read (`_Prepared`), for calls "
    "without a character (`roll`, `roll_all`, `odds`); emptied with its memos and their space",
    buys="a known text goes to its dice: it is not checked, placed, read for its system or "
    "planned again. `d20cli.roll` with its memo off: `1d20+5` about x3.3, `8d6` x2.9, "
    "`check +5 vs 15 adv expertise=d6` x3.0 (with the thread's generator)",
).new(kind=_Prepared)


def _ready(request: str, system: str | None, strict: bool) -> _Ready:
    """The request read for `system` (no character), from `_READY`, or read now and kept
    (a request that cannot be read raises, and is not kept). Its NotationWarnings are said
    on every call."""
    key = (request, system, strict)
    ready = _READY.get(key)
    if ready is not None:
        for note in ready.notes:
            warnings.warn(note, NotationWarning, stacklevel=_outside())
        return ready
    line = _request_line(request)
    with _placed_in(request, line):
        read = _read(request, line, system, None, strict)  # (it says the warnings)
    notes = () if strict else tuple(reading.note for reading in readings(read.parsed, line))
    ready = _Ready(line, read, notes)
    with _READY_LOCK:
        _READY[key] = ready
    return ready


#: How a budget error names its way out on the command line, and in the API.
_WAYS_OUT = (
    ("raise it with --work N or D20_WORK", "raise it with work=N"),
    ("raise it with --budget N or D20_BUDGET", "raise it with budget=N"),
    ("this command", "this call"),
    ("of one command", "of one call"),
)


def _api_words(message: str) -> str:
    for command_line, api in _WAYS_OUT:
        message = message.replace(command_line, api)
    return re.sub(r"' --repeat ([0-9,]+) ", r"' with repeat=\1 ", message)


class _Read(NamedTuple):
    """A request read: its system, the parsed request, its text as rolled, how to parse
    it again (through the character, if any: its entries merged into the parsed request)
    and the character's name (as its file spells it)."""

    rules: System
    parsed: Parsed
    text: str
    parse: Callable[[str], Parsed]
    character: str | None


def _read(
    given: str,
    line: str,
    system: str | None,
    character: str | Character | None,
    strict: bool = False,
) -> _Read:
    """The request `given` (as `line`) read with the system and the character (and its
    house keys: `lucky = true` in its table makes its rolls lucky). The library reads no
    config file. `strict`: a label word with no value is a ParseError."""
    rolls.check_text(given)
    if system is not None and not isinstance(system, str):
        raise TypeError(f"system must be a system's id or alias, not {type(system).__name__}")
    if character is not None:
        if not isinstance(character, str | Character):
            raise TypeError(f"character must be a name or a Character, not {character!r}")
        who = load_character(character) if isinstance(character, str) else _checked(character)
        parsed, plays = read_through(line, who, _parse)
        if system is None or system is DEFAULT_SYSTEM:
            system = plays or DEFAULT_SYSTEM
        rules = get_system(system)

        def parse(text: str) -> Parsed:  # with the character's house keys (`lucky = true`)
            return with_house(read_through(text, who, _parse)[0], rules, who.house)

        house_parsed = with_house(parsed, rules, who.house)
        _peer_readings(parsed, line, strict)
        return _Read(rules, house_parsed, parsed.text, parse, who.name)
    rules = get_system(system or DEFAULT_SYSTEM)
    try:
        parsed = _parse(line)
    except ParseError as err:  # what the system takes, not what every system takes
        from d20cli.rules.offers import in_system_terms

        raise in_system_terms(err, rules.id, rules.offers) from None
    _peer_readings(parsed, line, strict)
    if strict:
        from d20cli.language.grammar_checks import check_valued

        check_valued(parsed, line, "strict=True")
    return _Read(rules, parsed, line, _parse, None)


def _peer_readings(parsed: Parsed, line: str, strict: bool) -> None:
    """A form of the request a major peer reads as another number (`5d10>7`: Roll20
    counts 7 or more): a NotationWarning naming that peer (strict: a ParseError)."""
    for reading in readings(parsed, line):
        if strict:
            raise ParseError(f"{reading.note} (strict=True)", line, reading.column(line))
        warnings.warn(reading.note, NotationWarning, stacklevel=_outside())


def _outside() -> int:
    """The `stacklevel` of a warning that names the caller's line, outside this package."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _checked(who: Character) -> Character:
    """A `Character` made in a program, its fields checked (the file's are when read): a
    name, a system id or None, entries and macros that map words to words, groups that
    map a word to such a table, and house keys. TypeError for a field of the wrong type."""

    def words(table: object, what: str) -> None:
        if not isinstance(table, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in table.items()
        ):
            raise TypeError(f"a Character's {what} map words to words, not {table!r:.80}")

    if not isinstance(who.name, str):
        raise TypeError(f"a Character's name is text, not {who.name!r:.80}")
    if who.system is not None and not isinstance(who.system, str):
        raise TypeError(f"a Character's system is a system's id or None, not {who.system!r:.80}")
    words(who.entries, "entries")
    words(who.macros, "macros")
    if not isinstance(who.groups, dict):
        raise TypeError(f"a Character's groups map a word to entries, not {who.groups!r:.80}")
    for name, group in who.groups.items():
        words(group, f"groups ({name!r:.40})")
    if not isinstance(who.house, HouseDefaults):
        raise TypeError(f"a Character's house is a HouseDefaults, not {who.house!r:.80}")
    return who


def _request_line(request: str) -> str:
    """The request line for `request`: a bare dice expression (`4d6kh3`, `d20+5`) gets the
    verb `roll` in front, as on the command line (d20cli.rolling.rolls.request_line)."""
    if not isinstance(request, str):
        raise TypeError(f"a request is text, such as 'check +5 vs 15', not {request!r}")
    return rolls.request_line(request)


@contextmanager
def _placed_in(given: str, line: str) -> Iterator[None]:
    """Errors of the request placed in its text (`_placed`)."""
    try:
        yield
    except D20Error as err:
        raise _placed(err, given, line) from None
    except RecursionError:
        raise ParseError("the request is nested too deeply", given, None) from None


def _placed(err: D20Error, given: str, line: str) -> D20Error:
    """`err` placed in the request's text. An error in the text with `roll` put in front
    of a bare expression is placed in the text as the caller gave it."""
    err = rolls.in_text(err, line)
    if line != given and err.text == line and err.column is not None:
        err = err.located(given, max(1, err.column - (len(line) - len(given))))
    return err


_PARSE_LOCK = threading.RLock()
_PARSED: Bounded[str, Parsed] = declare(
    "api._PARSED",
    holds="text → Request (the parsed requests of the Python API)",
    buys="`d20cli.roll` of a known text: 27 µs instead of 1.1 ms (x42); read by calls with "
    "a character, `odds` and `parse`",
).new()


def _parse(line: str) -> Parsed:
    """The parsed request for `line`, from a cache shared by every thread. The grammar
    runs under a lock: pyparsing's packrat cache and the recursion limit it needs belong
    to the whole process. A parsed request is immutable, so threads may share one."""
    request = _PARSED.get(line)
    if request is None:
        from d20cli.language.grammar import parse_request

        with _PARSE_LOCK:
            request = _PARSED.get(line)
            if request is None:
                request = parse_request(line)
                _PARSED[line] = request
    return request


def _roller(
    seed: int | None,
    dice: Sequence[int] | None,
    rng: random.Random | Roller | None,
    budget: int,
) -> Roller:
    """The roller of one call: `rng` as it is, or one made as the command line makes it
    (without seed, dice or rng: from the calling thread's generator, `_random`)."""
    if seed is None and dice is None and rng is None:
        if type(budget) is not int or not 1 <= budget <= MAX_BUDGET:
            _check_whole("budget", budget, MAX_BUDGET)
        return RandomRoller(_random(), budget)
    given = [n for n, v in (("seed", seed), ("dice", dice), ("rng", rng)) if v is not None]
    if len(given) > 1:
        raise TypeError(f"give one of seed, dice and rng, not {' and '.join(given)}")
    if isinstance(rng, Roller):
        return rng  # it counts against its own budget
    _check_whole("budget", budget, MAX_BUDGET)
    if rng is not None:
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng must be a random.Random or a d20cli.Roller, not {rng!r}")
        return RandomRoller(rng, budget)
    if seed is not None:
        _check_whole("seed", seed, None, least=0)
    faces = None
    if dice is not None:
        faces = tuple(dice)
        for face in faces:
            if isinstance(face, bool) or not isinstance(face, int):
                raise TypeError(f"dice are faces (whole numbers), not {face!r}")
    return make_roller(seed, faces, budget)


_THREAD = threading.local()


def _random() -> random.Random:
    """The calling thread's generator of fresh dice: seeded from the OS the first time the
    thread rolls without a seed (not on every call), and again in a forked child (which
    would else roll its parent's dice)."""
    try:
        return _THREAD.rng  # type: ignore[no-any-return]
    except AttributeError:
        rng = _THREAD.rng = generator()
        return rng


def _forget_randoms() -> None:
    global _THREAD
    _THREAD = threading.local()


os.register_at_fork(after_in_child=_forget_randoms)


def _work(work: int) -> int:
    """The work budget of a call, checked as `--work N` is."""
    _check_whole("work", work, MAX_WORK)
    return work


def _check_whole(name: str, value: int, most: int | None, least: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a whole number, not {value!r}")
    if value < least or (most is not None and value > most):
        bound = f"from {least:,} to {most:,}" if most is not None else f"of at least {least:,}"
        raise ValueError(f"{name} must be a number {bound}, not {value:,}")
