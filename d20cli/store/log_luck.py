"""What `d20 log --luck` computes from the roll log (d20cli.store.rolllog): every logged
roll priced by the exact odds of its request (d20cli.probability.engine), and how lucky
the dice were (d20cli.probability.luck).

Each row is read as it was rolled: its request text parsed, under its system, with the
house rules it records (`rolls.house`), and rolled again with the faces it logged (as
`--dice` rolls them): that gives back its outcome, whether it succeeded, and its damage,
which the log does not keep. A row whose replay does not give back its logged outcome
and total, or whose odds cannot be computed within the odds budget, is left out and
counted as such; so are rows of verbs with no odds to price (a table, initiative) and
rows whose faces were forced (`--dice`: dice read off the table, or chosen), as
`--stats` leaves them out. The odds of each distinct request (text, system, house rules)
are computed once, all of them within LUCK_STEPS steps; the rows are read oldest first.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from d20cli.errors import D20Error
from d20cli.probability.luck import Ledger, Priced

if TYPE_CHECKING:
    from d20cli.probability.model import Odds
    from d20cli.store.rolllog import LogFilter, Rolls, Row

#: The steps (d20cli.dice.weights.Budget) all the odds of one luck report may take: the
#: odds of ten costly requests; the rest are left out (and counted).
LUCK_STEPS = 60_000_000
#: Distinct requests one report prices; rows of further requests are left out (counted).
MAX_REQUESTS = 2_000


def ledger(rolls: Rolls, only: LogFilter | None = None) -> Ledger:
    """The rows `only` keeps, oldest first, priced (see the module's docstring)."""
    from d20cli.probability import walk

    found = Ledger()
    rows = sorted(rolls.rows(only=only), key=lambda r: (r.at, r.id))
    command = walk.command_budget("log --luck")
    command.limit = LUCK_STEPS
    odds_memo: dict[tuple[str, str, str], Odds | str] = {}
    for row in rows:
        if row.source == "dice":
            found.forced += 1
            continue
        priced = _price(row, odds_memo, command)
        if isinstance(priced, str):
            found.leave_out(priced)
        else:
            found.priced.append(priced)
    return found


def _price(row: Row, memo: dict[tuple[str, str, str], Odds | str], command: Any) -> Priced | str:
    """The row priced, or the reason it is left out."""
    from d20cli.dice.roller import make_roller
    from d20cli.dice.weights import TooCostly
    from d20cli.language.grammar import parse_request
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
        house = HouseDefaults.from_keys(row.house or {})
        request = with_house(parse_request(row.request), system, house)
    except (D20Error, KeyError, TypeError, ValueError):
        return "not read as rolled"
    faces = [d.get("face") for d in row.dice if isinstance(d, dict)]
    if len(faces) != len(row.dice) or not all(isinstance(f, int) for f in faces):
        return "not read as rolled"
    try:
        roller = make_roller(None, faces)  # type: ignore[arg-type]
        result = system.resolve(request, roller)
    except D20Error:
        return "not read as rolled"
    if result.outcome != row.outcome or result.total != row.total:
        return "not read as rolled"
    key = (row.system, row.request, json.dumps(row.house, sort_keys=True))
    odds = memo.get(key)
    if odds is None:
        if len(memo) >= MAX_REQUESTS:
            return f"past {MAX_REQUESTS:,} different requests"
        try:
            odds = odds_of(row.request, system.id, parse=lambda _text: request, within=command)
        except TooCostly:
            odds = "odds too costly to compute"
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
        dict(odds.outcomes),
        damage,
        mean,
        variance,
        row.session is not None,
    )
