"""The initiative order in the state database (tables `initiative` and `initiative_turn`,
d20cli.store.schema): a repository of functions over an open `State`.

Every change reads, decides and writes in one `BEGIN IMMEDIATE` transaction (the roll-offs
included, and the check that `--dice` gave exactly the faces used), so two processes
editing the order at once both keep their edits: the second waits for the first, then
sees what it wrote (`goblin x3` twice makes goblin-1 to goblin-6). The order itself is a
rule (d20cli.rules.initiative): rows are kept unordered and sorted when read.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from d20cli.errors import ParseError, closest
from d20cli.frozen import frozen
from d20cli.results import Die
from d20cli.rules.initiative import (
    Combatant,
    InitiativeRoll,
    Turn,
    advance,
    after_removal,
    ordered,
    settle,
)
from d20cli.store.database import BadValue, stored_int, stored_json, stored_text
from d20cli.store.rolllog import MAX_ROW_DEPTH

if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.store.state import State

T = TypeVar("T")

MAX_COMBATANTS = 200  # one order holds at most this many
KINDS = ("character", "monster")
_INT64 = 2**63


@frozen
class Encounter:
    """The order as saved: the round (0 before anyone rolled), whose turn it is, and the
    combatants in initiative order."""

    round: int
    turn: str | None
    order: tuple[Combatant, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "turn": self.turn,
            "order": [
                {
                    "name": c.name,
                    "kind": c.kind,
                    "total": c.total,
                    "modifier": c.modifier,
                    "dice": [d.to_json() for d in c.dice],
                    "rolloff": list(c.rolloff),
                }
                for c in self.order
            ],
        }


# --- reading ------------------------------------------------------------------------------


def _rows(conn: sqlite3.Connection) -> list[Combatant]:
    """The combatants, each value checked: BadValue (the file is then moved aside,
    d20cli.store.database) for one that d20 does not write."""
    found = []
    for name, kind, total, modifier, dice, rolloff, seq in conn.execute(
        "SELECT name, kind, total, modifier, dice, rolloff, seq FROM initiative"
    ):
        if kind not in KINDS:
            raise BadValue(f"initiative.kind holds {str(kind)[:40]!r}, not one of {KINDS}")
        found.append(
            Combatant(
                stored_text(name, "initiative.name"),
                kind,
                stored_int(total, "initiative.total"),
                stored_int(modifier, "initiative.modifier"),
                _dice(stored_json(dice, "initiative.dice", list, MAX_ROW_DEPTH)),
                _faces(stored_json(rolloff, "initiative.rolloff", list, 1)),
                stored_int(seq, "initiative.seq"),
            )
        )
    return ordered(found)


def _dice(data: list[Any]) -> tuple[Die, ...]:
    try:
        return tuple(Die.from_json(d) for d in data)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise BadValue(f"initiative.dice holds a die d20 does not write ({err})") from None


def _faces(data: list[Any]) -> tuple[int, ...]:
    return tuple(stored_int(f, "initiative.rolloff", 1, 20) for f in data)


def _turn(conn: sqlite3.Connection) -> Turn:
    row = conn.execute("SELECT round, turn FROM initiative_turn WHERE id = 1").fetchone()
    if row is None:
        return Turn(0, None)
    turn = None if row[1] is None else stored_text(row[1], "initiative_turn.turn")
    return Turn(stored_int(row[0], "initiative_turn.round", 0), turn)


def _encounter(conn: sqlite3.Connection) -> Encounter:
    now = _turn(conn)
    order = _rows(conn)
    return Encounter(now.round, now.turn, tuple(order))


def load(state: State) -> Encounter:
    """The saved order (empty, round 0, when nothing was rolled)."""
    return state.db.read("the initiative order", _encounter)


# --- writing ------------------------------------------------------------------------------


def _change(state: State, change: Callable[[sqlite3.Connection], T]) -> T:
    """One change in one transaction (a damaged file is moved aside; a full disk or a lock
    held too long goes on in memory with a warning: d20cli.store.database)."""
    return state.db.write("the initiative order", change)


def _write(conn: sqlite3.Connection, order: Sequence[Combatant], now: Turn) -> None:
    conn.execute("DELETE FROM initiative")
    conn.executemany(
        "INSERT INTO initiative (name, kind, total, modifier, dice, rolloff, seq) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                c.name,
                c.kind,
                c.total,
                c.modifier,
                "[" + ", ".join(d.json_text() for d in c.dice) + "]",
                json.dumps(list(c.rolloff)),
                c.seq,
            )
            for c in order
        ],
    )
    conn.execute(
        "INSERT INTO initiative_turn (id, round, turn) VALUES (1, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET round = excluded.round, turn = excluded.turn",
        (now.round, now.turn),
    )


def _checked(name: str, roll: InitiativeRoll) -> None:
    for what, value in (("total", roll.total), ("modifier", roll.modifier)):
        if not -_INT64 <= value < _INT64:
            raise ParseError(f"{name}'s initiative {what} is too large to keep ({value:.3e})")


def joined(
    kept: Sequence[Combatant],
    new: Sequence[tuple[str, str, InitiativeRoll]],
    roller: Roller,
) -> list[Combatant]:
    """`kept` and the newcomers (name, kind, roll), the roll-offs rolled, in order."""
    if len(kept) + len(new) > MAX_COMBATANTS:
        raise ParseError(
            f"an initiative order holds at most {MAX_COMBATANTS} combatants "
            f"(it has {len(kept)}; `d20 init rm NAME` or `d20 init clear` make room)"
        )
    seq = max((c.seq for c in kept), default=0)
    everyone = list(kept)
    for i, (name, kind, roll) in enumerate(new, 1):
        _checked(name, roll)
        everyone.append(Combatant(name, kind, roll.total, roll.modifier, roll.dice, (), seq + i))
    settled = settle(everyone, roller)
    roller.finish()  # --dice: every face used, before anything is written
    return settled


def start(
    state: State,
    party: Sequence[tuple[str, InitiativeRoll]],
    roller: Roller,
    seen: list[Combatant] | None = None,
) -> Encounter:
    """A new encounter: the party's rolls replace every character's place (monsters already
    added keep theirs), round 1, the first in the order to act. `seen` gets the combatants
    kept (a sealed session's replay rolls the roll-offs against them)."""
    names = {name.lower() for name, _ in party}

    def change(conn: sqlite3.Connection) -> Encounter:
        kept = [c for c in _rows(conn) if c.kind != "character" and c.name.lower() not in names]
        if seen is not None:
            seen[:] = kept
        new = [(name, "character", roll) for name, roll in party]
        order = joined(kept, new, roller)
        now = Turn(1, order[0].name if order else None)
        _write(conn, order, now)
        return Encounter(now.round, now.turn, tuple(order))

    return _change(state, change)


def monster_names(base: str, count: int, taken: Sequence[str]) -> list[str]:
    """The names of `count` new combatants called `base`: `base` alone when it is one and
    the name is free; else `base-N`, numbered on from the highest number taken
    (`goblin-1` ... `goblin-3`, then `goblin-4` ...; a second `ogre` is `ogre-2`)."""
    low = base.lower()
    pattern = re.compile(re.escape(low) + r"-([0-9]{1,6})")
    numbers = {1 for t in taken if t.lower() == low}
    for t in taken:
        match = pattern.fullmatch(t.lower())
        if match:
            numbers.add(int(match.group(1)))
    if count == 1 and not numbers:
        return [base]
    first = max(numbers, default=0) + 1
    return [f"{base}-{n}" for n in range(first, first + count)]


def add(
    state: State,
    base: str,
    rolls: Sequence[InitiativeRoll],
    roller: Roller,
    seen: list[Combatant] | None = None,
    kind: str = "monster",
) -> tuple[Encounter, list[str]]:
    """Add combatants named after `base` (`monster_names`), one per roll, to the order;
    the round and whose turn it is stay (with no order yet: round 1, the first's turn).
    kind "character": one character of that name, who takes the place it had. Returns
    the order and the names given (`seen`: as `start`'s)."""

    def change(conn: sqlite3.Connection) -> tuple[Encounter, list[str]]:
        kept = _rows(conn)
        if kind == "character":
            kept = [c for c in kept if c.name.lower() != base.lower()]
        if seen is not None:
            seen[:] = kept
        names = (
            [base]
            if kind == "character"
            else monster_names(base, len(rolls), [c.name for c in kept])
        )
        new = [(n, kind, r) for n, r in zip(names, rolls, strict=True)]
        order = joined(kept, new, roller)
        now = _turn(conn)
        if now.turn is None:
            now = Turn(max(now.round, 1), order[0].name)
        _write(conn, order, now)
        return Encounter(now.round, now.turn, tuple(order)), names

    return _change(state, change)


def next_turn(state: State) -> Encounter:
    """Move the turn to the next in the order (a new round after the last)."""

    def change(conn: sqlite3.Connection) -> Encounter:
        found = _encounter(conn)
        if not found.order:
            raise ParseError("no initiative order yet: `d20 init roll` rolls the party's")
        now = advance(found.order, Turn(found.round, found.turn))
        _write(conn, found.order, now)
        return Encounter(now.round, now.turn, found.order)

    return _change(state, change)


def remove(state: State, name: str) -> tuple[Encounter, str]:
    """Take `name` (any case) out of the order; on its own turn, the turn passes on.
    ParseError naming the closest names when there is no such combatant."""

    def change(conn: sqlite3.Connection) -> tuple[Encounter, str]:
        found = _encounter(conn)
        names = [c.name for c in found.order]
        exact = [n for n in names if n == name] or [n for n in names if n.lower() == name.lower()]
        if not exact:
            if not names:
                raise ParseError(f"no {name!r} in the initiative order: it is empty")
            raise ParseError(f"no {name!r} in the initiative order{closest(name, names)}")
        return _take_out(conn, found, exact[0]), exact[0]

    return _change(state, change)


def remove_character(state: State, name: str) -> Encounter | None:
    """Take character `name` (any case) out of the order when it is there, as `remove`
    does (a removed character leaves the order); None when it is not there (a monster of
    that name stays)."""

    def change(conn: sqlite3.Connection) -> Encounter | None:
        found = _encounter(conn)
        low = name.lower()
        gone = [c.name for c in found.order if c.kind == "character" and c.name.lower() == low]
        return _take_out(conn, found, gone[0]) if gone else None

    return _change(state, change)


def _take_out(conn: sqlite3.Connection, found: Encounter, gone: str) -> Encounter:
    """`found` without `gone`, written: on its own turn, the turn passes on."""
    now = after_removal(found.order, gone, Turn(found.round, found.turn))
    order = tuple(c for c in found.order if c.name != gone)
    _write(conn, order, now)
    return Encounter(now.round, now.turn, order)


def clear(state: State) -> int:
    """End the encounter: the order is emptied; returns how many combatants it held."""

    def change(conn: sqlite3.Connection) -> int:
        held = int(conn.execute("SELECT count(*) FROM initiative").fetchone()[0])
        conn.execute("DELETE FROM initiative")
        conn.execute("DELETE FROM initiative_turn")
        return held

    return _change(state, change)


__all__ = [
    "MAX_COMBATANTS",
    "Encounter",
    "add",
    "clear",
    "load",
    "monster_names",
    "next_turn",
    "remove",
    "remove_character",
    "start",
]
