"""The initiative order as lines of text (`d20 init`):

    round 1: aria's turn
    > aria      19  d20 16 ~4~  +3
      goblin-1  14  d20 12  +2
      bob       14  d20 13  +2  roll-off 15

`>` marks whose turn it is; a dropped d20 is shown between tildes, as a roll shows it;
an expertise or modifier die by its role; then the flat part of the modifier.
"""

from __future__ import annotations

from collections.abc import Sequence

from d20cli.results import Die
from d20cli.rules.initiative import Combatant

NAME_WIDTH = 24  # longer names are not padded beyond this

EMPTY = (
    "no initiative order yet: `d20 init roll` rolls the party's, "
    "`d20 init add NAME +N` adds a monster"
)


SHOWN_DICE = 6  # more dice of one kind are shown as their sum


def _face(d: Die) -> str:
    return str(d.face) if d.kept else f"~{d.face}~"


def dice_text(dice: Sequence[Die], modifier: int) -> str:
    """`d20 16 ~4~  expertise d4 2  +3`: the d20s, the other dice, the flat modifier."""
    d20s = [d for d in dice if d.role == "d20"]
    others = [d for d in dice if d.role != "d20"]
    parts = []
    if d20s:
        parts.append("d20 " + " ".join(str(d.face) if d.kept else f"~{d.face}~" for d in d20s))
    groups: dict[tuple[str, int], list[Die]] = {}
    for d in others:
        groups.setdefault((d.role, d.sides), []).append(d)
    for (role, sides), group in groups.items():
        if len(group) == 1:
            parts.append(f"{role} d{sides} {_face(group[0])}")
        elif len(group) <= SHOWN_DICE:
            parts.append(f"{role} {len(group)}d{sides} {' '.join(_face(d) for d in group)}")
        else:
            kept = sum(d.face for d in group if d.kept)
            parts.append(f"{role} {len(group)}d{sides} = {kept}")
    flat = modifier - sum(d.face for d in others if d.kept)
    parts.append(f"{flat:+d}")
    return "  ".join(parts)


def order_lines(round_: int, turn: str | None, order: Sequence[Combatant]) -> list[str]:
    """The lines `d20 init` shows."""
    if not order:
        return [EMPTY]
    head = f"round {round_}: {turn}'s turn" if turn is not None else f"round {round_}"
    width = min(max(len(c.name) for c in order), NAME_WIDTH)
    digits = max(len(str(c.total)) for c in order)
    lines = [head]
    for c in order:
        mark = ">" if c.name == turn else " "
        line = f"{mark} {c.name:<{width}}  {c.total:>{digits}}  {dice_text(c.dice, c.modifier)}"
        if c.rolloff:
            line += "  roll-off " + " ".join(str(f) for f in c.rolloff)
        lines.append(line)
    return lines


__all__ = ["EMPTY", "dice_text", "order_lines"]
