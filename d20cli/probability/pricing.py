"""Rolls priced by the exact odds of their requests: the luck ledger (d20cli.probability.luck)
of `d20 log --luck` (d20cli.store.log_luck reads the roll log's rows) and of
`d20cli.luck` (d20cli.api: results of the library, or rows of `d20 log --export json`).
No I/O: a roll comes in as a `Logged`, the fields of a roll-log row this needs.

Each roll is read as it was rolled: its request text parsed, under its system, with the
house rules it records, and rolled again with the faces it logged (as `--dice` rolls
them): that gives back its outcome, whether it succeeded, and its damage, which the log
does not keep. A roll whose replay does not give back its logged outcome and total, or
is left out and counted as such; so are rolls of verbs with no odds to price (a table,
initiative) and rolls whose faces were forced (`--dice`: dice read off the table, or
chosen), as `--stats` leaves them out. The odds of each distinct request (text, system,
house rules) are computed once, all of them within LUCK_STEPS steps.

A request whose exact odds are too costly to compute within them is priced by
simulation: SIMULATED_ROLLS rolls of it (d20cli.probability.engine.simulate), from a
generator seeded by the request's own key (its system, text and house rules), so the
same log gives the same report; each simulation rolls at most SIMULATED_DICE dice, and a
report simulates at most MAX_SIMULATED requests (counted rolls and dice, never time).
Its rolls are marked `simulated` and counted, and the least likely roll is chosen among
the rolls priced exactly (an estimate of a rare chance is no measure of it). A request
that cannot be simulated either is left out and said.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction

from d20cli.errors import D20Error
from d20cli.frozen import FrozenDict
from d20cli.probability.luck import Ledger, Priced
from d20cli.probability.model import Odds
from d20cli.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from d20cli.language.requests import Request

#: The steps (d20cli.dice.weights.Budget) all the odds of one luck report may take: the
#: odds of ten costly requests; the rest are left out (and counted).
LUCK_STEPS = 60_000_000
#: Distinct requests one report prices; rolls of further requests are left out (counted).
MAX_REQUESTS = 2_000
#: A request too costly for exact odds is priced from this many simulated rolls...
SIMULATED_ROLLS = 2_000
#: ... which roll at most this many dice in all...
SIMULATED_DICE = 1_000_000
#: ... and at most this many requests of a report are simulated.
MAX_SIMULATED = 20

#: Why a request's rolls are left out when its odds can be neither computed nor simulated.
TOO_COSTLY = "odds too costly to compute or simulate"

#: Why a roll is left out: its replay does not give back what was logged.
NOT_AS_ROLLED = "not read as rolled"


class Logged(NamedTuple):
    """A roll to price: the fields of a roll-log row (d20cli.store.rolllog.Row) it reads.
    `dice`: the row's dice (JSON objects, each with its `face`, in roll order); `forced`:
    its faces were given (`--dice`); `sealed`: rolled in a sealed session."""

    id: int
    at: str | None
    character: str | None
    system: str
    verb: str
    request: str
    dice: list[Any]
    total: int | None
    outcome: str | None
    forced: bool = False
    house: Mapping[str, Any] | None = None
    sealed: bool = False


def price_rolls(
    rolls: Iterable[Logged | str], parse: Callable[[str], Request] | None = None
) -> Ledger:
    """The rolls priced, in the order given (a `str` in their place: a roll known to be
    left out, and why); `parse` reads a request's text (the grammar's by default). See the
    module's docstring."""
    from d20cli.probability import walk

    if parse is None:
        from d20cli.language.grammar import parse_request

        parse = parse_request

    priced: list[Priced] = []
    forced = 0
    left_out: dict[str, int] = {}
    command = walk.command_budget("log --luck")
    command.limit = LUCK_STEPS
    odds_memo: dict[tuple[str, str, str], Odds | str] = {}
    simulations = [MAX_SIMULATED]  # how many more requests may be simulated
    for row in rolls:
        if not isinstance(row, str) and row.forced:
            forced += 1
            continue
        found = row if isinstance(row, str) else _price(row, odds_memo, command, parse, simulations)
        if isinstance(found, str):
            left_out[found] = left_out.get(found, 0) + 1
        else:
            priced.append(found)
    return Ledger(tuple(priced), forced, FrozenDict(left_out))


def tier_labels() -> dict[tuple[str, str], str]:
    """Each system's outcome names (its tiers), by (system id, outcome id): how a luck
    report names an outcome."""
    from d20cli.rules import SYSTEM_IDS, get_system

    return {
        (sid, oid): label
        for sid in SYSTEM_IDS
        for oid, label in get_system(sid).outcome_names("").items()
    }


def _price(
    row: Logged,
    memo: dict[tuple[str, str, str], Odds | str],
    command: Any,
    parse: Callable[[str], Request],
    simulations: list[int],
) -> Priced | str:
    """The row priced, or the reason it is left out."""
    from d20cli.dice.roller import make_roller
    from d20cli.dice.weights import TooCostly
    from d20cli.probability.engine import odds_of
    from d20cli.rules import get_system
    from d20cli.rules.house import HouseDefaults, with_house

    if row.verb in ("table", "init"):
        return f"no odds to price ({row.verb})"
    try:
        system = get_system(row.system)
        fortune = system.fortune.verb if system.fortune is not None else None
        if row.verb in system.verb_odds or row.verb == fortune:  # no success to price
            return f"no odds to price ({row.verb})"
        house = HouseDefaults.from_keys(dict(row.house or {}))
        request = with_house(parse(row.request), system, house)
    except (D20Error, KeyError, TypeError, ValueError):
        return NOT_AS_ROLLED
    faces = [d.get("face") for d in row.dice if isinstance(d, dict)]
    if len(faces) != len(row.dice) or not all(type(f) is int for f in faces):
        return NOT_AS_ROLLED
    try:
        roller = make_roller(None, faces)  # type: ignore[arg-type]
        result = system.resolve(request, roller)
    except D20Error:
        return NOT_AS_ROLLED
    if result.outcome != row.outcome or result.total != row.total:
        return NOT_AS_ROLLED
    key = (row.system, row.request, json.dumps(row.house, sort_keys=True))
    odds = memo.get(key)
    if odds is None:
        if len(memo) >= MAX_REQUESTS:
            return f"past {MAX_REQUESTS:,} different requests"
        try:
            odds = odds_of(row.request, system.id, parse=lambda _text: request, within=command)
        except TooCostly:
            odds = _simulated(key, request, system.id, simulations)
        except D20Error:
            odds = "no odds to price"
        memo[key] = odds
    if isinstance(odds, str):
        return odds
    chance = odds.outcomes.get(row.outcome) if row.outcome is not None else None
    damage = mean = variance = None
    if odds.damage_distribution is not None and odds.damage_mean is not None:
        damage = result.damage.total if result.damage is not None else 0
        mean = odds.damage_mean
        variance = sum(
            ((t - mean) ** 2 * p for t, p in odds.damage_distribution.items()), Fraction(0)
        )
    return Priced(
        row.id,
        row.at,
        row.character,
        row.system,
        row.verb,
        row.request,
        row.outcome,
        chance,
        result.success if odds.success is not None else None,
        odds.success,
        FrozenDict(odds.outcomes),
        damage,
        mean,
        variance,
        row.sealed,
        odds.estimate is not None,
    )


def _simulated(
    key: tuple[str, str, str], request: Request, system: str, simulations: list[int]
) -> Odds | str:
    """The odds of `request` estimated from SIMULATED_ROLLS rolls seeded by its `key`
    (the reason it is left out when it cannot be simulated)."""
    import hashlib

    from d20cli.probability.engine import simulate

    if simulations[0] <= 0:
        return f"{TOO_COSTLY} (past {MAX_SIMULATED} simulated requests)"
    simulations[0] -= 1
    seed = int.from_bytes(hashlib.sha256(json.dumps(key).encode()).digest()[:8], "big")
    try:
        return simulate(
            request.text,
            system,
            SIMULATED_ROLLS,
            seed,
            work=SIMULATED_DICE,
            parse=lambda _text: request,
        )
    except (D20Error, RecursionError):
        return TOO_COSTLY
