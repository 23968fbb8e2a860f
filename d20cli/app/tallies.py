"""What --summary and --odds add to the rolls of a request: a tally drawn from the exact
odds (`sampled_tally`) and printed (`print_tally`), and the chance each result had
(`with_chance`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.bounded import memo
from d20cli.frozen import replace
from d20cli.present.output import Output
from d20cli.results import Result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

    from d20cli.present.progress import Meter
    from d20cli.present.tally import Tally
    from d20cli.probability.model import Spread


SAMPLE_CHUNK = 100_000
MAX_WEIGHT_BITS = 1000  # a common denominator beyond 2^1000: the results are rolled instead


def sampled_tally(
    text: str, opts: Options, context: Context, meter: Meter | None = None
) -> Tally | None:
    """`--repeat N --summary`: the N results drawn from the request's exact distribution of
    (outcome, total) pairs, which the odds engine computes by walking the same resolver;
    then, of the results drawn that roll damage, their damage, drawn from the distribution
    of each (a normal and a critical hit's). That is the same as rolling N times and
    counting, and fast for a million rolls. None when the distribution is too costly to
    compute (the caller then rolls each one). `meter`: counts the outcomes drawn,
    SAMPLE_CHUNK at a time."""
    from d20cli.present.tally import Tally
    from d20cli.probability.engine import joint_outcomes

    system = context.system_for(opts)
    request = context.request_for(text, system, opts)
    joint = joint_outcomes(request, system)
    if joint is None:
        return None
    keys = list(joint.cases)
    weights = _weights([joint.cases[k] for k in keys])
    roller = context.roller(opts)
    rng = getattr(roller, "rng", None)
    if rng is None or weights is None:
        return None
    mixes = {key: _mix(joint.cases[key], mix) for key, mix in joint.damage.items()}
    if any(mix is None for mix in mixes.values()):
        return None
    tally = Tally(request.text, system.id, request.verb)
    tally.labels.update(outcome_labels(context, opts, request.verb))
    tally.with_damage = rolls_damage(request)
    if any(winner is not None for _, _, winner in keys):  # a contest of 3+ sides
        tally.sides = len(getattr(request, "sides", ()))
    counts = _draw(rng, weights, opts.repeat * request.repeat, meter)
    spreads: dict[Spread, int] = {}  # how many results drawn roll damage from each
    for key, n in zip(keys, counts, strict=True):
        outcome, total, winner = key
        tally.add_many(outcome, None, total, n, winner)
        mix = mixes.get(key)
        if mix is not None and n:
            options, mix_weights = mix
            drawn = [n] if len(options) == 1 else _draw(rng, mix_weights, n)
            for spread, k in zip(options, drawn, strict=True):
                if spread is not None and k:
                    spreads[spread] = spreads.get(spread, 0) + k
    for spread, n in spreads.items():  # the damage of the results that roll it
        drawn = _draw(rng, [w for _, w in spread], n)
        for (damage, _), k in zip(spread, drawn, strict=True):
            tally.add_damage(damage, k)
    return tally


def _weights(chances: list[Fraction]) -> list[int] | None:
    """The chances as integer weights over their common denominator (None beyond 2^1000:
    random.choices weighs in floats, and beyond 10^300 it overflows)."""
    den = 1
    for p in chances:
        den = den * p.denominator // math.gcd(den, p.denominator)
    if den.bit_length() > MAX_WEIGHT_BITS:
        return None
    return [int(p * den) for p in chances]


def _mix(
    case: Fraction, mix: dict[Spread, Fraction]
) -> tuple[list[Spread | None], list[int]] | None:
    """Of a case that rolls damage: the distributions it rolls it from (None: no damage,
    the rest of the case's chance) and their weights."""
    options: list[Spread | None] = list(mix)
    chances = list(mix.values())
    rest = case - sum(chances, 0)  # a Fraction: the chances are
    if rest:
        options.append(None)
        chances.append(rest)
    weights = _weights(chances)
    return None if weights is None else (options, weights)


def _draw(rng: Any, weights: list[int], n: int, meter: Meter | None = None) -> list[int]:
    """How many of `n` draws fall on each weight's index (in chunks: a list of a million
    indices is never made); `meter` counts them as they are drawn."""
    cumulative = list(itertools.accumulate(weights))
    counts = [0] * len(weights)
    if meter is not None:
        meter.total = n
    while n:
        chunk = min(n, SAMPLE_CHUNK)
        n -= chunk
        for i in rng.choices(range(len(weights)), cum_weights=cumulative, k=chunk):
            counts[i] += 1
        if meter is not None:
            meter.step(chunk)
    return counts


def rolls_damage(request: object) -> bool:
    """Whether the request rolls damage on a hit (an attack with `dmg`): its --summary
    gives the damage too, even when no roll hit."""
    return getattr(request, "damage", None) is not None


def damage_expected(text: str, opts: Options, context: Context) -> bool:
    """`rolls_damage` of the request `text` as this run reads it (a tally of rolled
    results asks it once)."""
    system = context.system_for(opts)
    return rolls_damage(context.request_for(text, system, opts))


def with_chance(result: Result, odds: Any) -> Result:
    """The result with the chance its outcome had (`--odds`), as a note and in JSON. Made
    once for a result and these odds, and kept in the result's dictionary as
    `Result.derived` keeps a value (but with one look-up, and for the last odds asked: a
    line with --odds reads it every time): a batch's dice memo (d20cli.rolling.dice_memo)
    hands out the same result again, and its noted copy, JSON written, comes with it."""
    kept = result.__dict__.get("_with_chance")
    if kept is not None and kept[0] is odds:  # (a line's odds are one object: Context.odds)
        noted: Result = kept[1]
        return noted
    noted = _noted(result, odds)
    result.__dict__["_with_chance"] = (odds, noted)
    return noted


def _noted(result: Result, odds: Any) -> Result:
    words = _chance_words()(result, odds)
    if words is None:
        return _no_chance(result)
    return result.noted(*words)


@memo(
    1,
    holds="() → `chance_words`, imported once",
    buys="an import statement cost a batch with --odds 1 µs a line",
)
def _chance_words() -> Callable[[Result, Any], tuple[str, dict[str, str | float]] | None]:
    """d20cli.probability.chances.chance_words, imported at the first result with --odds
    (a plain roll never imports the odds engine) and then kept: an import statement
    in with_chance cost a batch with --odds 1 µs a line."""
    from d20cli.probability.chances import chance_words

    return chance_words


def _no_chance(result: Result) -> Result:
    """`--odds` on a result whose odds give neither its outcome's chance nor its total's
    (`chance_words` gives those): a note that there is none to show, never silence."""
    note = "--odds: this request has no outcome or total whose chance can be shown"
    return replace(result, notes=(*result.notes, note))


def outcome_labels(context: Context, opts: Options, verb: str) -> dict[str | None, str | None]:
    """The names a roll of `verb` gives its outcomes, worst first (`--summary`'s rows)."""
    names = context.system_for(opts).outcome_names(verb)
    return {oid: names[oid] for oid in names}


def print_tally(tally: Tally, opts: Options, out: Output) -> None:
    """Print a --summary's tally."""
    if opts.json:
        out.json(tally.to_json())
    elif opts.quiet:
        mean = tally.mean()
        out.text(f"{mean:.2f}" if mean is not None else "")
    else:
        out.lines(tally.lines())
