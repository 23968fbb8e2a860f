"""Saved encounters: TOML files in the encounters directory (`d20 init save NAME`,
`init load NAME|FILE`, `init list`), or a file a game master prepares by hand
(docs/encounter.md, "An encounter file"):

    # the goblin ambush
    [[combatant]]
    name = "goblin"
    init = "+2"        # the words of its initiative roll (default "+0")
    count = 3          # goblin-1 .. goblin-3
    hp = "2d6"         # a number, or dice rolled for each one
    ac = 15

    [[combatant]]
    name = "lair"
    pin = 20           # a fixed place in the order

A saved encounter also keeps each combatant's total, HP, conditions and notes, and the
round and whose turn it is, so that loading it goes on where it was. A file is read whole
(at most `MAX_ENCOUNTER_FILE_BYTES`) and checked before anything changes: a bad file is one error
naming the file and the entry, and the encounter stays as it was.
"""

from __future__ import annotations

import os
import re
import tomllib
from typing import Any

from d20cli.errors import ParseError
from d20cli.frozen import frozen
from d20cli.store.files import atomic_write, deeper_than, read_text, xdg_dir

MAX_ENCOUNTER_FILE_BYTES = 256 * 1024  # an encounter file is refused past this, before parsing
MAX_ENCOUNTER_ENTRIES = 200  # [[combatant]] entries in one file
MAX_ENCOUNTERS_LISTED = 1000  # files `d20 init list` shows
MAX_ENCOUNTER_DEPTH = 5  # TOML nesting of an encounter file
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_KEYS = frozenset(
    (
        "name",
        "kind",
        "init",
        "count",
        "hp",
        "max_hp",
        "temp",
        "ac",
        "toughness",
        "pin",
        "total",
        "modifier",
        "reported",
        "notes",
        "conditions",
        "state",
        "bruises",
    )
)


@frozen
class Entry:
    """One `[[combatant]]` as read (each value checked for its type)."""

    name: str
    kind: str = "monster"
    init: str = "+0"
    count: int = 1
    hp: str | None = None  # a number or dice, as text
    max_hp: int | None = None
    temp: int = 0
    ac: int | None = None
    toughness: int | None = None
    pin: int | None = None
    total: int | None = None
    modifier: int = 0
    reported: bool = False
    notes: str = ""
    conditions: tuple[tuple[str, str, str, int | None], ...] = ()
    state: str = ""
    bruises: int = 0


@frozen
class EncounterFile:
    path: str
    round: int
    turn: str | None
    entries: tuple[Entry, ...]


def encounters_dir() -> str:
    return os.path.join(xdg_dir("XDG_CONFIG_HOME", ".config"), "d20cli", "encounters")


def path_of(word: str) -> str:
    """The file a name or path names: a path (it has a '/' or ends in .toml) as given,
    else NAME.toml in the encounters directory."""
    if "/" in word or os.sep in word or word.lower().endswith(".toml"):
        return word
    if NAME.fullmatch(word) is None:
        raise ParseError(
            f"{word[:40]!r} is not an encounter's name (letters, digits, '_', '-' and '.'; "
            "a file's path has a '/' or ends in .toml)"
        )
    return os.path.join(encounters_dir(), f"{word}.toml")


def names() -> list[str]:
    """The saved encounters, by name."""
    try:
        found = sorted(os.listdir(encounters_dir()))[:MAX_ENCOUNTERS_LISTED]
    except OSError:
        return []
    return [f[:-5] for f in found if f.endswith(".toml") and NAME.fullmatch(f[:-5])]


def _int(entry: dict[str, Any], key: str, where: str, lo: int, hi: int) -> int | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ParseError(f"{where}: {key} must be a whole number from {lo:,} to {hi:,}")
    return value


def _text(entry: dict[str, Any], key: str, where: str, most: int, default: str = "") -> str:
    value = entry.get(key, default)
    if not isinstance(value, str) or len(value) > most:
        raise ParseError(f"{where}: {key} must be text of at most {most} characters")
    return value


def read(word: str, most_points: int, most_count: int, name_ok: re.Pattern[str]) -> EncounterFile:
    """The encounter file `word` names, checked (module doc); ParseError naming the file
    and the entry for a bad one. `most_points`: the largest HP, AC or total; `most_count`:
    the largest count; `name_ok`: what a combatant's name must match."""
    path = path_of(word)
    shown = os.path.basename(path)[:60]
    try:
        text = read_text(path, MAX_ENCOUNTER_FILE_BYTES, "an encounter file")
    except FileNotFoundError:
        known = names()
        hint = f" (saved: {', '.join(known[:10])})" if known else " (none saved yet)"
        raise ParseError(f"no encounter {word[:60]!r}{hint}") from None
    except OSError as err:
        raise ParseError(
            f"cannot read the encounter file {shown!r}: {err.strerror or err}"
        ) from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as err:
        raise ParseError(f"{shown}: not an encounter file: {str(err)[:120]}") from None
    if deeper_than(data, MAX_ENCOUNTER_DEPTH):
        raise ParseError(f"{shown}: nested too deeply for an encounter file")
    unknown = set(data) - {"combatant", "round", "turn"}
    if unknown:
        raise ParseError(
            f"{shown}: unknown key {sorted(unknown)[0][:40]!r} (combatant, round, turn)"
        )
    rows = data.get("combatant", [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ParseError(f"{shown}: combatants are [[combatant]] tables")
    if not rows:
        raise ParseError(f"{shown}: no [[combatant]] in it")
    if len(rows) > MAX_ENCOUNTER_ENTRIES:
        raise ParseError(f"{shown}: at most {MAX_ENCOUNTER_ENTRIES} combatants, not {len(rows):,}")
    round_ = _int(data, "round", shown, 0, most_points) or 0
    turn = data.get("turn")
    if turn is not None and (not isinstance(turn, str) or not name_ok.fullmatch(turn)):
        raise ParseError(f"{shown}: turn must be a combatant's name")
    entries = []
    for i, row in enumerate(rows, 1):
        where = f"{shown}, combatant {i}"
        bad = set(row) - _KEYS
        if bad:
            raise ParseError(f"{where}: unknown key {sorted(bad)[0][:40]!r}")
        name = row.get("name")
        if not isinstance(name, str) or not name_ok.fullmatch(name):
            raise ParseError(
                f"{where}: name must be a letter, then letters, digits, -, _ or ' (at most 40)"
            )
        kind = row.get("kind", "monster")
        if kind not in ("monster", "character"):
            raise ParseError(f"{where}: kind is monster or character")
        hp = row.get("hp")
        if isinstance(hp, int) and not isinstance(hp, bool):
            if not 0 <= hp <= most_points:
                raise ParseError(f"{where}: hp must be from 0 to {most_points:,}")
            hp = str(hp)
        elif hp is not None and (not isinstance(hp, str) or len(hp) > 40):
            raise ParseError(f'{where}: hp is a number or dice such as "2d6"')
        conditions: list[tuple[str, str, str, int | None]] = []
        raw = row.get("conditions", [])
        if not isinstance(raw, list) or len(raw) > 20:
            raise ParseError(f"{where}: conditions is a list of at most 20")
        for k in raw:
            if isinstance(k, str) and name_ok.fullmatch(k):
                conditions.append((k, "", "", None))
            elif (
                isinstance(k, dict)
                and isinstance(k.get("name"), str)
                and name_ok.fullmatch(k["name"])
            ):
                until = k.get("until", "")
                of = k.get("of", "")
                at = _int(k, "round", where, 0, most_points)
                if (
                    until not in ("", "start", "end")
                    or not isinstance(of, str)
                    or (until and not name_ok.fullmatch(of))
                ):
                    raise ParseError(f"{where}: a condition's until is start or end, of a name")
                conditions.append((k["name"], until, of, at))
            else:
                raise ParseError(f"{where}: a condition is a name or {{name, until, of, round}}")
        reported = row.get("reported", False)
        if not isinstance(reported, bool):
            raise ParseError(f"{where}: reported is true or false")
        entries.append(
            Entry(
                name,
                kind,
                _text(row, "init", where, 120, "+0"),
                _int(row, "count", where, 1, most_count) or 1,
                hp,
                _int(row, "max_hp", where, 0, most_points),
                _int(row, "temp", where, 0, most_points) or 0,
                _int(row, "ac", where, -most_points, most_points),
                _int(row, "toughness", where, -most_points, most_points),
                _int(row, "pin", where, -most_points, most_points),
                _int(row, "total", where, -most_points, most_points),
                _int(row, "modifier", where, -most_points, most_points) or 0,
                reported,
                _text(row, "notes", where, 200),
                tuple(conditions),
                _text(row, "state", where, 20),
                _int(row, "bruises", where, 0, most_points) or 0,
            )
        )
    return EncounterFile(path, round_, turn, tuple(entries))


def _toml_text(value: str) -> str:
    return (
        '"'
        + "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in value)
        + '"'
    )


def write(word: str, round_: int, turn: str | None, rows: list[dict[str, Any]]) -> str:
    """Save an encounter as `word` (rows: each combatant's keys, `read`'s); its path."""
    path = path_of(word)
    lines = ["# a d20 encounter (d20 init load NAME)", f"round = {round_}"]
    if turn is not None:
        lines.append(f"turn = {_toml_text(turn)}")
    for row in rows:
        lines += ["", "[[combatant]]"]
        for key, value in row.items():
            if value is None:
                continue
            if isinstance(value, bool):
                lines.append(f"{key} = {'true' if value else 'false'}")
            elif isinstance(value, int):
                lines.append(f"{key} = {value}")
            elif isinstance(value, str):
                lines.append(f"{key} = {_toml_text(value)}")
            else:  # conditions
                items = []
                for k in value:
                    if isinstance(k, str):
                        items.append(_toml_text(k))
                    else:
                        inner = ", ".join(
                            f"{a} = {_toml_text(b) if isinstance(b, str) else b}"
                            for a, b in k.items()
                            if b is not None
                        )
                        items.append("{ " + inner + " }")
                lines.append(f"{key} = [{', '.join(items)}]")
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    atomic_write(path, "\n".join(lines) + "\n")
    return path


__all__ = [
    "MAX_ENCOUNTERS_LISTED",
    "MAX_ENCOUNTER_DEPTH",
    "MAX_ENCOUNTER_ENTRIES",
    "MAX_ENCOUNTER_FILE_BYTES",
    "EncounterFile",
    "Entry",
    "encounters_dir",
    "names",
    "path_of",
    "read",
    "write",
]
