"""What a roll-log row (d20cli.store.rolllog) takes from a result, with no database: its
dice (the full list, or a summary past MAX_ROW_DICE characters), its house rules, text
encodable as UTF-8 and whole numbers as SQLite stores them. The roll log writes these,
and `d20 verify` (d20cli.app.commands.verify) compares a row with them, in the command
line and in the verify page, where no sqlite3 is (d20cli.app.commands.verify_page)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from d20cli.results import Die, Result

MAX_ROW_DICE = 16_384  # characters of one row's dice
LABEL_CHARACTERS = 100  # of each label a summary keeps
MAX_LABELS = 20  # labels a summary keeps
FACES_UP_TO = 100  # a summary counts each face of dice with at most this many sides
MAX_ROW_DEPTH = 8  # levels a row's dice or house rules nest (a summary's face counts: 5)

INT64 = 2**63


def int64(value: int | None) -> int | None:
    """`value` as SQLite can store it: an int outside 64 bits becomes NULL."""
    return value if value is None or -INT64 <= value < INT64 else None


def clean(text: str) -> str:
    """`text` encodable as UTF-8: each lone surrogate (bytes of a command line that were
    not UTF-8) becomes U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def dice_text(result: Result) -> str:
    """The JSON list of every die of a result: its own (a group's or contest's include
    their members'), or its members' and sides' when it lists none itself, then its damage
    dice."""
    if result.damage is None and result.dice:
        return result.dice_text()  # the usual case, shared with the JSON line
    lists = [result.dice_text()]
    if not result.dice:
        for part in (*(result.members or ()), *(result.sides or ())):
            lists.append(part.dice_text())
            if part.damage is not None:
                lists.append(part.damage.dice_text())
    if result.damage is not None:
        lists.append(result.damage.dice_text())
    return f"[{', '.join(text[1:-1] for text in lists if text != '[]')}]"


def house_text(result: Result) -> str | None:
    """The JSON of the house rules a result was rolled under (None: none)."""
    house = result.detail.get("house")
    return json.dumps(house, separators=(",", ":"), sort_keys=True) if house else None


def row_dice(result: Result, dice_text: Callable[[Result], str]) -> str:
    """The dice column of `result`'s row: the full list (`dice_text(result)`), made only
    when it fits in MAX_ROW_DICE characters, else a summary."""
    dice, damage = result.dice, result.damage
    # a check, an attack or a small roll: all it lists is its dice, then its damage's
    if dice and len(dice) + (0 if damage is None else len(damage.dice)) <= 8:
        text = dice_text(result)  # (at most eight labels, each within a line of input)
        if len(text) <= MAX_ROW_DICE:
            return text
        return summary_text(list(_dice_of(result)))
    every = list(_dice_of(result))
    estimate = sum(80 + len(d.label or "") + 14 * len(d.flags) + len(d.by or "") for d in every)
    if estimate <= MAX_ROW_DICE:
        return dice_text(result)
    return summary_text(every)


def summary_text(dice: list[Die]) -> str:
    """A row's dice as one summary (see the module doc)."""
    sides: dict[int, int] = {}
    faces: dict[int, dict[int, int]] = {}
    labels: list[str] = []
    kept = 0
    for d in dice:
        sides[d.sides] = sides.get(d.sides, 0) + 1
        kept += d.kept
        if d.sides <= FACES_UP_TO and "min" not in d.flags and "max" not in d.flags:
            counts = faces.setdefault(d.sides, {})
            counts[d.face] = counts.get(d.face, 0) + 1
        if d.label is not None and len(labels) < MAX_LABELS:
            label = d.label[:LABEL_CHARACTERS]
            if label not in labels:
                labels.append(label)
    summary = {
        "count": len(dice),
        "kept": kept,
        "sides": {str(s): n for s, n in sorted(sides.items())},
        "faces": {
            str(s): {str(f): n for f, n in sorted(c.items())} for s, c in sorted(faces.items())
        },
        "labels": labels,
    }
    return json.dumps([{"summary": summary}])  # in ASCII, as the dice list (results.py)


def _dice_of(result: Result) -> Iterator[Die]:
    """The dice `dice_text` lists, in its order."""
    yield from result.dice
    if not result.dice:
        for part in (*(result.members or ()), *(result.sides or ())):
            yield from part.dice
            if part.damage is not None:
                yield from part.damage.dice
    if result.damage is not None:
        yield from result.damage.dice
