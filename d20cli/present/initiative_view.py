"""The initiative order as lines of text (`d20 init`):

    round 1: aria's turn
    > aria      19  d20 16 ~4~  +3
      goblin-1  14  d20 12  +2
      bob       14  d20 13  +2  roll-off 15

`>` marks whose turn it is; a dropped d20 is shown between tildes, as a roll shows it;
an expertise or modifier die by its role; then the flat part of the modifier. A pinned
place says `pinned`, a total the player reported `reported`. In an encounter, each line
goes on with what is kept of the combatant (docs/encounter.md):

    > goblin-2  14  d20 12  +2  0/7 HP  AC 15  dead  prone
"""

from __future__ import annotations

from collections.abc import Sequence

from d20cli.results import Die
from d20cli.rules.encounter import hp_text
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


def kept_text(c: Combatant) -> str:
    """What an encounter keeps of `c`: `5/7 HP  AC 15  dying  prone, blessed (...)`."""
    v = c.vitals
    parts = [hp_text(v)]
    if v.ac is not None:
        parts.append(f"AC {v.ac}")
    if v.toughness is not None:
        parts.append(f"toughness {v.toughness:+d}")
    if v.bruises:
        parts.append(f"bruised ({v.bruises})" if v.bruises > 1 else "bruised")
    if v.state:
        parts.append(v.state)
    if v.saves != (0, 0) and v.state in ("dying", "stable"):
        parts.append(f"death saves {v.saves[0]}/{v.saves[1]}")
    if c.conditions:
        parts.append(", ".join(k.describe() for k in c.conditions))
    if v.notes:
        parts.append(f"({v.notes})")
    return "  ".join(p for p in parts if p)


def order_lines(
    round_: int, turn: str | None, order: Sequence[Combatant], dyn: bool = False
) -> list[str]:
    """The lines `d20 init` shows."""
    if not order:
        return [EMPTY]
    head = f"round {round_}: {turn}'s turn" if turn is not None else f"round {round_}"
    if dyn:
        head += " (initiative rolled each round)"
    width = min(max(len(c.name) for c in order), NAME_WIDTH)
    digits = max(len(str(c.total)) for c in order)
    lines = [head]
    for c in order:
        mark = ">" if c.name == turn else " "
        how = "pinned" if c.pinned else "reported" if c.reported else dice_text(c.dice, c.modifier)
        line = f"{mark} {c.name:<{width}}  {c.total:>{digits}}  {how}"
        if c.rolloff:
            line += "  roll-off " + " ".join(str(f) for f in c.rolloff)
        kept = kept_text(c)
        if kept:
            line += "  " + kept
        lines.append(line)
    return lines


__all__ = ["EMPTY", "dice_text", "kept_text", "order_lines"]
