"""What `--odds` adds to a result: the chance its outcome had (or, for a result without
one, the chance of its total), as a note and as JSON detail, made once per odds and
remembered with them (`Odds.said`), as a batch asks the same words on every line."""

from __future__ import annotations

from fractions import Fraction

from d20cli.number_format import decimal, exact_fraction, percent
from d20cli.probability.model import NO_OUTCOME, Odds
from d20cli.results import Result

Words = tuple[str, dict[str, str | float]]

MAX_SAID = 256  # words remembered per odds


def chance_words(result: Result, odds: Odds) -> Words | None:
    """What `--odds` adds to a result: the note (`Success — you had 55.0% (55.0% to
    succeed)`) and the JSON detail (`chance`, `success_chance`: exact fractions, each
    with its number beside it, `chance_decimal`, `success_chance_decimal`). A result
    whose outcome the odds give no chance for (a `roll` without a target) gets the chance
    of its total instead, and of at most that total (`a total of 7 — you had 16.7% (58.3%
    at most)`, `chance`, `at_most_chance`, and their `_decimal` numbers); None when the
    odds have neither. Each outcome's (and total's) words are made once per odds and
    remembered with them."""
    what = result.label or result.outcome or "this outcome"
    winner = result.winner if odds.winners is not None else None
    key = (result.outcome, winner, what)
    found = odds.said.get(key)
    if found is not None:
        return found
    p = chance_of(result, odds)
    if p is None:
        return _total_words(result, odds)
    note = f"{what} — you had {percent(p, 1)}"
    detail: dict[str, str | float] = {"chance": exact_fraction(p), "chance_decimal": decimal(p)}
    success = odds.success
    if success is not None:
        note += f" ({percent(success, 1)} to succeed)"
        detail["success_chance"] = exact_fraction(success)
        detail["success_chance_decimal"] = decimal(success)
    words = (note, detail)
    if len(odds.said) < MAX_SAID:
        odds.said[key] = words
    return words


def _total_words(result: Result, odds: Odds) -> Words | None:
    """The chance of the result's total and of at most that total (None when the odds
    have no distribution holding it)."""
    total = result.total
    distribution = odds.distribution
    if total is None or not distribution:
        return None
    key = ("total", total)
    found = odds.said.get(key)
    if found is not None:
        return found
    p = distribution.get(total)
    if p is None:
        return None
    at_most = sum((q for t, q in distribution.items() if t <= total), start=Fraction(0))
    note = f"a total of {total} \u2014 you had {percent(p, 1)} ({percent(at_most, 1)} at most)"
    detail: dict[str, str | float] = {
        "chance": exact_fraction(p),
        "chance_decimal": decimal(p),
        "at_most_chance": exact_fraction(at_most),
        "at_most_chance_decimal": decimal(at_most),
    }
    words = (note, detail)
    if len(odds.said) < MAX_SAID:
        odds.said[key] = words
    return words


def chance_of(result: Result, odds: Odds) -> Fraction | None:
    """The probability the odds gave to the outcome this result got (a side of a contest
    of three or more sides winning: that side's chance to win)."""
    if odds.winners is not None and result.winner is not None:
        return odds.winners.get(result.winner)
    key = result.outcome or NO_OUTCOME
    return odds.outcomes.get(key)
