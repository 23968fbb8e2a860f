"""The initiative order in the state database (tables `initiative` and `initiative_turn`,
d20cli.store.schema): a repository of functions over an open `State`.

Every change reads, decides and writes in one `BEGIN IMMEDIATE` transaction (the roll-offs
included, and the check that `--dice` gave exactly the faces used), so two processes
editing the order at once both keep their edits: the second waits for the first, then
sees what it wrote (`goblin x3` twice makes goblin-1 to goblin-6). The order itself is a
rule (d20cli.rules.initiative): rows are kept unordered and sorted when read.

Every change also writes one row of the encounter's history (`initiative_history`, in the
same transaction): the encounter as it was before the change, as JSON (`snapshot`).
`undo` puts the last row back and deletes it, so a change made in another terminal is
never lost, and undone in the order the changes were made. The history keeps the last
`MAX_UNDO` changes.

Every change also writes the names in the order to a small text file beside the database
(`NAMES_FILE`, one a line, d20cli.store.combatant_names), for the shell completion
scripts, which read it without starting Python (`d20 init hurt <TAB>`), and for a request
rolled as a character, which opens the encounter only when its name is there.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from d20cli.errors import ParseError, closest
from d20cli.frozen import frozen, replace
from d20cli.results import Die
from d20cli.rules.encounter import (
    MAX_CONDITIONS,
    NO_VITALS,
    STATES,
    Condition,
    Vitals,
)
from d20cli.rules.initiative import MAX_COMBATANTS as MAX_COMBATANTS
from d20cli.rules.initiative import (
    Combatant,
    InitiativeRoll,
    Turn,
    advance,
    after_removal,
    ordered,
)
from d20cli.rules.initiative import joined as joined
from d20cli.store.combatant_names import NAME_MOST
from d20cli.store.combatant_names import NAMES_FILE as NAMES_FILE
from d20cli.store.database import BadValue, stored_int, stored_json, stored_text
from d20cli.store.rolllog import MAX_ROW_DEPTH

if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.store.state import State

T = TypeVar("T")

MAX_UNDO = 1_000  # changes of the encounter `init undo` can take back
MAX_NOTES = 200  # characters of a combatant's notes
KINDS = ("character", "monster")
_INT64 = 2**63


@frozen
class Encounter:
    """The order as saved: the round (0 before anyone rolled), whose turn it is, and the
    combatants in initiative order."""

    round: int
    turn: str | None
    order: tuple[Combatant, ...]
    dyn: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "turn": self.turn,
            "dyn": self.dyn,
            "order": [combatant_json(c) for c in self.order],
        }

    def find(self, name: str) -> Combatant:
        """The combatant called `name` (any case); ParseError naming the closest names."""
        names = [c.name for c in self.order]
        exact = [n for n in names if n == name] or [n for n in names if n.lower() == name.lower()]
        if not exact:
            if not names:
                raise ParseError(f"no {name[:40]!r} in the initiative order: it is empty")
            raise ParseError(f"no {name[:40]!r} in the initiative order{closest(name, names)}")
        return next(c for c in self.order if c.name == exact[0])


def combatant_json(c: Combatant) -> dict[str, Any]:
    """A combatant as `d20 init --json` shows it (docs/encounter.md)."""
    v = c.vitals
    hp: Any = v.hp
    if v.hp is not None and (v.max_hp is not None or v.temp):
        hp = {"current": v.hp, "max": v.max_hp, "temp": v.temp}
    shown: dict[str, Any] = {
        "name": c.name,
        "kind": c.kind,
        "total": c.total,
        "modifier": c.modifier,
        "dice": [d.to_json() for d in c.dice],
        "rolloff": list(c.rolloff),
        "pinned": c.pinned,
        "reported": c.reported,
        "hp": hp,
        "ac": v.ac,
        "conditions": [condition_json(k) for k in c.conditions],
        "state": v.state or None,
    }
    if v.toughness is not None or v.bruises:
        shown["toughness"] = v.toughness
        shown["bruises"] = v.bruises
    if v.saves != (0, 0):
        shown["death_saves"] = {"successes": v.saves[0], "failures": v.saves[1]}
    if v.notes:
        shown["notes"] = v.notes
    return shown


def condition_json(k: Condition) -> dict[str, Any]:
    """`{"name": "prone"}`, or with when it ends: until, of, round."""
    if not k.until:
        return {"name": k.name}
    return {"name": k.name, "until": k.until, "of": k.of, "round": k.round}


# --- reading ------------------------------------------------------------------------------


def _rows(conn: sqlite3.Connection) -> list[Combatant]:
    """The combatants, each value checked: BadValue (the file is then moved aside,
    d20cli.store.database) for one that d20 does not write."""
    found = []
    for name, kind, total, modifier, dice, rolloff, seq, extra in conn.execute(
        "SELECT name, kind, total, modifier, dice, rolloff, seq, extra FROM initiative"
    ):
        if kind not in KINDS:
            raise BadValue(f"initiative.kind holds {str(kind)[:40]!r}, not one of {KINDS}")
        found.append(
            _with_extra(
                Combatant(
                    stored_text(name, "initiative.name"),
                    kind,
                    stored_int(total, "initiative.total"),
                    stored_int(modifier, "initiative.modifier"),
                    _dice(stored_json(dice, "initiative.dice", list, MAX_ROW_DEPTH)),
                    _faces(stored_json(rolloff, "initiative.rolloff", list, 1)),
                    stored_int(seq, "initiative.seq"),
                ),
                stored_json(extra, "initiative.extra", dict, 4),
            )
        )
    return ordered(found)


_VITAL_INTS = ("hp", "max_hp", "temp", "ac", "toughness", "bruises")


def _with_extra(c: Combatant, extra: dict[str, Any]) -> Combatant:
    """`c` with what its `extra` column holds (`extra_json` wrote it); BadValue for a
    value d20 does not write."""
    where = f"initiative.extra of {c.name[:40]!r}"
    try:
        raw = extra.get("vitals", {})
        vitals: dict[str, Any] = {}
        for key in _VITAL_INTS:
            if raw.get(key) is not None:
                vitals[key] = stored_int(raw[key], f"{where}.{key}", -_INT64, _INT64 - 1)
        notes = raw.get("notes", "")
        state = raw.get("state", "")
        saves = raw.get("saves", [0, 0])
        if not isinstance(notes, str) or len(notes) > MAX_NOTES or state not in STATES:
            raise BadValue(f"{where} holds notes or a state d20 does not write")
        if not (isinstance(saves, list) and len(saves) == 2):
            raise BadValue(f"{where} holds death saves d20 does not write")
        conditions = []
        for k in extra.get("conditions", [])[: MAX_CONDITIONS + 1]:
            name, until, of, round_ = k
            if not (
                isinstance(name, str) and until in ("", "start", "end") and isinstance(of, str)
            ):
                raise BadValue(f"{where} holds a condition d20 does not write")
            at = None if round_ is None else stored_int(round_, f"{where}.conditions", 0)
            conditions.append(Condition(name, until, of, at))
        words, system = extra.get("words", ""), extra.get("system", "")
        if not (isinstance(words, str) and isinstance(system, str)):
            raise BadValue(f"{where} holds words d20 does not write")
        return replace(
            c,
            pinned=extra.get("pinned") is True,
            reported=extra.get("reported") is True,
            words=words,
            system=system,
            vitals=Vitals(
                **vitals,
                notes=notes,
                state=state,
                saves=(stored_int(saves[0], where, 0, 9), stored_int(saves[1], where, 0, 9)),
            ),
            conditions=tuple(conditions),
        )
    except (TypeError, ValueError, AttributeError) as err:
        raise BadValue(f"{where} holds a value d20 does not write ({err})") from None


def extra_json(c: Combatant) -> str:
    """The `extra` column of `c` (`_with_extra` reads it)."""
    out: dict[str, Any] = {}
    if c.pinned:
        out["pinned"] = True
    if c.reported:
        out["reported"] = True
    if c.words:
        out["words"] = c.words
    if c.system:
        out["system"] = c.system
    v = c.vitals
    if v != NO_VITALS:
        vitals: dict[str, Any] = {k: getattr(v, k) for k in _VITAL_INTS if getattr(v, k)}
        vitals.update(
            {
                k: getattr(v, k)
                for k in ("hp", "max_hp", "ac", "toughness")
                if getattr(v, k) is not None
            }
        )
        if v.notes:
            vitals["notes"] = v.notes
        if v.state:
            vitals["state"] = v.state
        if v.saves != (0, 0):
            vitals["saves"] = list(v.saves)
        out["vitals"] = vitals
    if c.conditions:
        out["conditions"] = [[k.name, k.until, k.of, k.round] for k in c.conditions]
    return json.dumps(out, separators=(",", ":"))


def _dice(data: list[Any]) -> tuple[Die, ...]:
    try:
        return tuple(Die.from_json(d) for d in data)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise BadValue(f"initiative.dice holds a die d20 does not write ({err})") from None


def _faces(data: list[Any]) -> tuple[int, ...]:
    return tuple(stored_int(f, "initiative.rolloff", 1, 20) for f in data)


def _turn(conn: sqlite3.Connection) -> Turn:
    return _turn_dyn(conn)[0]


def _turn_dyn(conn: sqlite3.Connection) -> tuple[Turn, bool]:
    row = conn.execute("SELECT round, turn, dyn FROM initiative_turn WHERE id = 1").fetchone()
    if row is None:
        return Turn(0, None), False
    turn = None if row[1] is None else stored_text(row[1], "initiative_turn.turn")
    dyn = stored_int(row[2], "initiative_turn.dyn", 0, 1) == 1
    return Turn(stored_int(row[0], "initiative_turn.round", 0), turn), dyn


def _encounter(conn: sqlite3.Connection) -> Encounter:
    now, dyn = _turn_dyn(conn)
    order = _rows(conn)
    return Encounter(now.round, now.turn, tuple(order), dyn)


def load(state: State) -> Encounter:
    """The saved order (empty, round 0, when nothing was rolled)."""
    return state.db.read("the initiative order", _encounter)


# --- writing ------------------------------------------------------------------------------


def _change(state: State, change: Callable[[sqlite3.Connection], T]) -> T:
    """One change in one transaction (a damaged file is moved aside; a full disk or a lock
    held too long goes on in memory with a warning: d20cli.store.database), and the names
    in the order written to `NAMES_FILE`."""

    def and_names(conn: sqlite3.Connection) -> T:
        done = change(conn)
        _write_names(state, conn)
        return done

    return state.db.write("the initiative order", and_names)


def names_text(order: Sequence[Combatant]) -> str:
    """What `NAMES_FILE` holds for `order`: a name a line, those a shell may put on a line
    (one word of printable characters, at most NAME_MOST long)."""
    return "".join(
        f"{c.name}\n"
        for c in order
        if c.name.isprintable()
        and not any(ch.isspace() for ch in c.name)
        and 0 < len(c.name) <= NAME_MOST
    )


def _write_names(state: State, conn: sqlite3.Connection) -> None:
    """Write the names in the order beside the database file, inside the change's
    transaction: its write lock keeps two processes' files in the order of their changes.
    A database in memory writes none; a file that cannot be written is left as it was (it
    only helps TAB: the next change writes it again)."""
    import contextlib
    import os

    from d20cli.store.files import atomic_write

    path = state.db.path
    if path is None:
        return
    with contextlib.suppress(OSError):
        atomic_write(os.path.join(path.parent, NAMES_FILE), names_text(_encounter(conn).order))


def _write(
    conn: sqlite3.Connection, order: Sequence[Combatant], now: Turn, dyn: bool | None = None
) -> None:
    if dyn is None:
        dyn = _turn_dyn(conn)[1]
    conn.execute("DELETE FROM initiative")
    conn.executemany(
        "INSERT INTO initiative (name, kind, total, modifier, dice, rolloff, seq, extra) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                c.name,
                c.kind,
                c.total,
                c.modifier,
                "[" + ", ".join(d.json_text() for d in c.dice) + "]",
                json.dumps(list(c.rolloff)),
                c.seq,
                extra_json(c),
            )
            for c in order
        ],
    )
    conn.execute(
        "INSERT INTO initiative_turn (id, round, turn, dyn) VALUES (1, ?, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET round = excluded.round, turn = excluded.turn, "
        "dyn = excluded.dyn",
        (now.round, now.turn, int(dyn)),
    )


# --- the history: one row a change ------------------------------------------------------


def snapshot(found: Encounter) -> str:
    """The encounter as JSON, every field kept (`restored` reads it back)."""
    return json.dumps(
        {
            "round": found.round,
            "turn": found.turn,
            "dyn": found.dyn,
            "order": [
                [
                    c.name,
                    c.kind,
                    c.total,
                    c.modifier,
                    [d.to_json() for d in c.dice],
                    list(c.rolloff),
                    c.seq,
                    json.loads(extra_json(c)),
                ]
                for c in found.order
            ],
        },
        separators=(",", ":"),
    )


def restored(text: object) -> Encounter:
    """The encounter a history row holds; BadValue for one d20 does not write."""
    data = stored_json(text, "initiative_history.before", dict, MAX_ROW_DEPTH + 4)
    try:
        now = Turn(stored_int(data["round"], "initiative_history.round", 0), data["turn"])
        if now.turn is not None and not isinstance(now.turn, str):
            raise BadValue("initiative_history.turn is not text")
        order = []
        for name, kind, total, modifier, dice, rolloff, seq, extra in data["order"]:
            if kind not in KINDS or not isinstance(extra, dict):
                raise BadValue(f"initiative_history holds a kind {str(kind)[:40]!r}")
            order.append(
                _with_extra(
                    Combatant(
                        stored_text(name, "initiative_history.name"),
                        kind,
                        stored_int(total, "initiative_history.total"),
                        stored_int(modifier, "initiative_history.modifier"),
                        _dice(dice),
                        _faces(rolloff),
                        stored_int(seq, "initiative_history.seq"),
                    ),
                    extra,
                )
            )
        return Encounter(now.round, now.turn, tuple(ordered(order)), data["dyn"] is True)
    except (KeyError, TypeError, ValueError) as err:
        raise BadValue(f"initiative_history holds a value d20 does not write ({err})") from None


def _record(conn: sqlite3.Connection, what: str, before: Encounter | None = None) -> None:
    """One row of history: the encounter before the change `what` (`init hurt goblin-2
    7`); the oldest rows past MAX_UNDO go."""
    found = before if before is not None else _encounter(conn)
    cur = conn.execute(
        "INSERT INTO initiative_history (what, before) VALUES (?, ?)", (what, snapshot(found))
    )
    if cur.lastrowid is not None and cur.lastrowid > MAX_UNDO:
        conn.execute("DELETE FROM initiative_history WHERE id <= ?", (cur.lastrowid - MAX_UNDO,))


def undo(state: State) -> tuple[Encounter, str]:
    """Take back the last change: the encounter as it was before it, and what the change
    was. ParseError when there is nothing to take back."""

    def change(conn: sqlite3.Connection) -> tuple[Encounter, str]:
        row = conn.execute(
            "SELECT id, what, before FROM initiative_history ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise ParseError("nothing to undo: no change to the encounter is kept")
        found = restored(row[2])
        conn.execute("DELETE FROM initiative_history WHERE id = ?", (row[0],))
        _write(conn, found.order, Turn(found.round, found.turn), found.dyn)
        return found, stored_text(row[1], "initiative_history.what")

    return _change(state, change)


def history(state: State, most: int = 20) -> list[str]:
    """The last `most` changes that `undo` can take back, the newest first."""
    return state.db.read(
        "the encounter's history",
        lambda conn: [
            stored_text(r[0], "initiative_history.what")
            for r in conn.execute(
                "SELECT what FROM initiative_history ORDER BY id DESC LIMIT ?", (most,)
            )
        ],
    )


def edit(
    state: State, what: str, change: Callable[[Encounter], tuple[Encounter, T]]
) -> tuple[Encounter, T]:
    """One change of the encounter in one transaction: `change` gets the encounter as
    saved and gives it back changed (with anything else to return); the change is
    written with its history row. A D20Error from `change` changes nothing."""

    def write(conn: sqlite3.Connection) -> tuple[Encounter, T]:
        found = _encounter(conn)
        new, extra = change(found)
        _record(conn, what, found)
        _write(conn, ordered(new.order), Turn(new.round, new.turn), new.dyn)
        return replace(new, order=tuple(ordered(new.order))), extra

    return _change(state, write)


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
        _record(conn, "init roll")
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
    joining: Sequence[Combatant] | None = None,
) -> tuple[Encounter, list[str]]:
    """Add combatants named after `base` (`monster_names`), one per roll, to the order;
    the round and whose turn it is stay (with no order yet: round 1, the first's turn).
    kind "character": one character of that name, who takes the place it had. Returns
    the order and the names given (`seen`: as `start`'s). `joining`: one combatant a
    roll whose pin, reported total, words, HP and defenses the newcomer takes (its name,
    total, modifier and dice are the roll's)."""

    def change(conn: sqlite3.Connection) -> tuple[Encounter, list[str]]:
        _record(conn, f"init add {base}")
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
        order = joined(kept, new, roller, joining)
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
        _record(conn, "init next", found)
        now = advance(found.order, Turn(found.round, found.turn))
        _write(conn, found.order, now)
        return Encounter(now.round, now.turn, found.order)

    return _change(state, change)


def remove(
    state: State, name: str, takes_turns: Callable[[Combatant], bool] | None = None
) -> tuple[Encounter, str]:
    """Take `name` (any case) out of the order; on its own turn, the turn passes on (to
    the next that `takes_turns`, rules.initiative.after_removal). ParseError naming the
    closest names when there is no such combatant."""

    def change(conn: sqlite3.Connection) -> tuple[Encounter, str]:
        found = _encounter(conn)
        gone = found.find(name).name
        _record(conn, f"init rm {gone}", found)
        return _take_out(conn, found, gone, takes_turns), gone

    return _change(state, change)


def remove_character(state: State, name: str) -> Encounter | None:
    """Take character `name` (any case) out of the order when it is there, as `remove`
    does (a removed character leaves the order); None when it is not there (a monster of
    that name stays)."""

    def change(conn: sqlite3.Connection) -> Encounter | None:
        found = _encounter(conn)
        low = name.lower()
        gone = [c.name for c in found.order if c.kind == "character" and c.name.lower() == low]
        if not gone:
            return None
        _record(conn, f"char rm {gone[0]}", found)
        return _take_out(conn, found, gone[0])

    return _change(state, change)


def _take_out(
    conn: sqlite3.Connection,
    found: Encounter,
    gone: str,
    takes_turns: Callable[[Combatant], bool] | None = None,
) -> Encounter:
    """`found` without `gone`, written: on its own turn, the turn passes on."""
    now = after_removal(found.order, gone, Turn(found.round, found.turn), takes_turns)
    order = tuple(c for c in found.order if c.name != gone)
    _write(conn, order, now)
    return Encounter(now.round, now.turn, order, found.dyn)


def clear(state: State) -> int:
    """End the encounter: the order is emptied; returns how many combatants it held."""

    def change(conn: sqlite3.Connection) -> int:
        held = int(conn.execute("SELECT count(*) FROM initiative").fetchone()[0])
        if held:
            _record(conn, "init clear")
        conn.execute("DELETE FROM initiative")
        conn.execute("DELETE FROM initiative_turn")
        return held

    return _change(state, change)


__all__ = [
    "MAX_COMBATANTS",
    "MAX_NOTES",
    "MAX_UNDO",
    "Encounter",
    "add",
    "clear",
    "combatant_json",
    "condition_json",
    "edit",
    "extra_json",
    "history",
    "load",
    "monster_names",
    "next_turn",
    "remove",
    "remove_character",
    "restored",
    "snapshot",
    "start",
    "undo",
]
