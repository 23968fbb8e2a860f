"""How big the roll log may grow (issue 22): the size of one row's dice, the bytes the
log buffers before it writes, and the bytes one run may add.

A row lists every die of its result, each with its term's label, as the JSON line does;
a 9,000-character label on `1000d6` made that 9 MB a row. A row whose dice would pass
MAX_ROW_DICE characters holds a summary instead, as the output summarises a roll of more
than 1,000 dice: `[{"summary": {"count", "kept", "sides": {sides: count}, "faces":
{sides: {face: count}} (dice of up to 100 sides, not clamped by mi/ma), "labels":
[...]}}]`, each label once and cut to LABEL_CHARACTERS. The fairness test (`d20 log
--stats`) counts the d20 faces of a summary (`summary_d20`) as it counts listed d20s.

The buffer is written when its rows reach FLUSH_BYTES (as well as every FLUSH_ROWS rows),
and one run adds at most MAX_RUN_BYTES to the log: the rolls after that are not logged,
with one warning.
"""

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
FLUSH_BYTES = 8_000_000  # buffered row bytes that make the log write
MAX_RUN_BYTES = 256_000_000  # row bytes one run may add to the log
MAX_ROW_DEPTH = 8  # levels a row's dice or house rules nest (a summary's face counts: 5)
ROW_OVERHEAD = 100  # bytes of a row besides its request and dice (time, ids, columns)


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
    """The dice `rolllog.dice_text` lists, in its order."""
    yield from result.dice
    if not result.dice:
        for part in (*(result.members or ()), *(result.sides or ())):
            yield from part.dice
            if part.damage is not None:
                yield from part.damage.dice
    if result.damage is not None:
        yield from result.damage.dice


def row_bytes(request: str, dice: str) -> int:
    """About how many bytes a row takes (to flush and cap the log by bytes)."""
    return ROW_OVERHEAD + len(request) + len(dice)


def summary_d20(faces: object) -> list[int] | None:
    """The 20 face counts of a summary's d20s, from its `faces["20"]` (None when there
    are none or they are not counts)."""
    if isinstance(faces, str):
        try:
            faces = json.loads(faces)
        except ValueError:
            return None
    if not isinstance(faces, dict):
        return None
    counts = [0] * 20
    for face, n in faces.items():
        good = isinstance(n, int) and not isinstance(n, bool) and 0 < n <= 10**15
        if (
            good
            and isinstance(face, str)
            and face.isascii()
            and face.isdigit()
            and 1 <= int(face) <= 20
        ):
            counts[int(face) - 1] += n
    return counts if any(counts) else None
