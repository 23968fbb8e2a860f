"""Editing the config file (`d20 config set|unset`): a key checked before anything is
read, then the file changed under a lock, keeping its comments and layout (tomlkit), and
written atomically only when the whole changed file is still a good config. Reading it is
d20cli.store.config."""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from d20cli.errors import D20Error, ParseError
from d20cli.store.config import (
    COLOR_CHOICES,
    LOG_TABLE,
    TOP_KEYS,
    check_text,
    checked_character,
    config_path,
    house_problem,
    log_problem,
    parse_value,
    read_text,
)

_KEY_FORMS = "system, color, character, log.keep or SYSTEM.KEY (levelup.crit-dmg)"


def _split(key: str) -> tuple[str, str | None]:
    """(`system` | `color` | `character` | `log` | a system id, its key or None);
    ParseError naming the key when it is none of these."""
    from d20cli.rules import system_id

    parts = key.strip().split(".")
    if len(parts) == 1 and parts[0].lower() in TOP_KEYS:
        return parts[0].lower(), None
    try:
        sid = system_id(parts[0]) if parts[0] else None
    except D20Error:
        sid = LOG_TABLE if parts[0].lower() == LOG_TABLE else None
    if sid is None or len(parts) > 2 or (len(parts) == 2 and not parts[1]):
        raise ParseError(f"{key[:60]!r}: unknown key (the keys are {_KEY_FORMS})")
    return sid, parts[1].lower() if len(parts) == 2 else None


def _checked_character(text: str) -> str:
    """`config set character NAME`: the name as the characters file spells it (each
    name of a list, or `party`); ParseError for one that is not there."""
    from d20cli.store.characters import party_of

    def fail(problem: str) -> ParseError:
        return ParseError(f"character: {problem}")

    spec = checked_character(text, fail)
    found = party_of(spec)  # each must be there (and the party, for `party`)
    return "party" if spec.lower() == "party" else ",".join(c.name for c in found)


def checked_value(key: str, text: str) -> tuple[tuple[str, ...], Any]:
    """The path in the file and the TOML value of `d20 config set KEY TEXT`; ParseError
    naming the key for a bad key or value."""
    from d20cli.rules import system_id

    head, leaf = _split(key)
    if head in TOP_KEYS:
        value = parse_value(head, text)
        if head == "system":
            try:
                return ("system",), system_id(value)
            except D20Error as err:
                raise ParseError(f"system: {err.message}") from None
        if head == "character":
            return ("character",), _checked_character(text)
        if value not in COLOR_CHOICES:
            raise ParseError(f"color: must be one of {', '.join(COLOR_CHOICES)}, not {text[:40]!r}")
        return ("color",), value
    if leaf is None and head == LOG_TABLE:
        raise ParseError(f"{key}: give the key: log.keep N (the newest rows the roll log keeps)")
    if leaf is None:
        raise ParseError(f"{key}: give a house key: {head}.KEY VALUE, e.g. {head}.lucky true")
    value = parse_value(leaf, text)
    check = log_problem if head == LOG_TABLE else partial(house_problem, head)
    problem = check(leaf, value)
    if problem is not None:
        raise ParseError(f"{head}.{leaf}: {problem}")
    return (head, leaf), value


def _table_key(doc: Any, sid: str) -> str:
    """The key of system `sid`'s table in the document (written as its id or an alias)."""
    from d20cli.rules import system_id

    for key in doc:
        try:
            if system_id(str(key)) == sid:
                return str(key)
        except D20Error:
            continue
    return sid


def _problem(text: str | None, target: str) -> ParseError | None:
    """What is wrong with a config text (None: nothing, or no file)."""
    if text is None:
        return None
    try:
        check_text(text, target)
    except ParseError as err:
        return err
    return None


def _edit(change: Any, path: str | None = None) -> str | None:
    """Parse the file (tomlkit), apply `change(doc)` and write it atomically. A file
    that does not parse is an error, and so is a change that makes a good file bad (the
    file is not written). A file that had a problem is written when changed (one key
    fixed at a time); the problem still left, if any, is returned."""
    from pathlib import Path

    import tomlkit

    from d20cli.store.files import edit_lock, parse_for_edit, write_edit

    target = path or config_path()
    with edit_lock(Path(target)):
        text = read_text(target) if os.path.lexists(target) else None
        doc = parse_for_edit(text, Path(target)) if text is not None else tomlkit.document()
        before = _problem(text, target)
        change(doc)
        new = tomlkit.dumps(doc)
        after = _problem(new, target)
        if after is not None and before is None:
            raise ParseError(f"{after.message} (the file was not changed)")
        write_edit(Path(target), new)
    return None if after is None else after.message


def set_key(key: str, text: str, path: str | None = None) -> tuple[str, Any, str | None]:
    """`d20 config set KEY VALUE`: the dotted key and the value written, and what is
    still wrong with the file (None: nothing)."""
    import tomlkit

    from d20cli.store.files import put_key

    where, value = checked_value(key, " ".join(text.split()))

    def change(doc: Any) -> None:
        if len(where) == 1:
            doc[where[0]] = value  # tomlkit puts a new top-level key before the tables
            return
        name = _table_key(doc, where[0])
        table = doc.get(name)
        if table is None:
            table = tomlkit.table()
            if len(doc.body) > 0:
                doc.add(tomlkit.nl())
            doc.add(name, table)
        elif not isinstance(table, dict):
            raise ParseError(f"{name} is not a table in {path or config_path()}: fix the file")
        put_key(table, where[1], value)

    left = _edit(change, path)
    return ".".join(where), value, left


def unset_key(key: str, path: str | None = None) -> tuple[str, str | None]:
    """`d20 config unset KEY`: remove a key (`system`, `levelup.crit-dmg`) or a whole
    system's table (`levelup`); a key d20 does not know is removed too when the file has
    it (a way to fix the file). The key removed, and what is still wrong with the file
    (None: nothing). ParseError when the file does not have it."""
    unknown: ParseError | None = None
    try:
        head, leaf = _split(key)
    except ParseError as err:
        unknown = err
    if unknown is not None:
        left = _edit(lambda doc: _remove_raw(doc, key.strip().split("."), unknown), path)
        return key.strip(), left

    def change(doc: Any) -> None:
        if head in TOP_KEYS:
            if head not in doc:
                raise ParseError(f"{head}: not set in {path or config_path()}")
            del doc[head]
            return
        name = _table_key(doc, head)
        table = doc.get(name)
        if table is None or (
            leaf is not None and (not isinstance(table, dict) or leaf not in table)
        ):
            shown = head if leaf is None else f"{head}.{leaf}"
            raise ParseError(f"{shown}: not set in {path or config_path()}")
        if leaf is None:
            del doc[name]
        else:
            del table[leaf]

    left = _edit(change, path)
    return (head if leaf is None else f"{head}.{leaf}"), left


def _remove_raw(doc: Any, parts: list[str], err: ParseError) -> None:
    """Remove the key at `parts` as written in the file, else raise `err`."""
    table = doc
    for part in parts[:-1]:
        table = table.get(part) if isinstance(table, dict) else None
    if not isinstance(table, dict) or parts[-1] not in table:
        raise err
    del table[parts[-1]]
