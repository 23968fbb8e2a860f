"""Editing the characters file (`d20 char add|set|unset|rm`): under a lock, checked, and
written atomically, keeping the comments and the layout of a hand-edited file (tomlkit).
Reading it is d20cli.store.characters."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from d20cli.errors import D20Error, ParseError, closest
from d20cli.rules.house import HOUSE_KEYS
from d20cli.store.characters import (
    _NAME,
    PARTY,
    VERB_GROUPS,
    Character,
    _cache,
    _character,
    _language,
    _parse,
    _read_text,
    _shape,
    characters_path,
    is_label_word,
    load,
    party,
    party_from,
)
from d20cli.store.files import atomic_write, open_lock


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path`.lock while changing the file (POSIX; elsewhere the
    atomic rename alone protects the file)."""
    lock = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_lock(str(lock))
    except OSError as err:
        if err.errno == errno.ELOOP or lock.is_symlink():
            raise ParseError(
                f"cannot write {path}: its lock file {lock} is a symbolic link, which d20 "
                "does not follow (remove it)"
            ) from None
        raise ParseError(f"cannot write {path}: {lock}: {err.strerror or err}") from None
    try:
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - not POSIX
            pass
        yield
    finally:
        os.close(fd)


def _write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` atomically and durably (d20cli.store.files.atomic_write); a
    symbolic link at `path` (a dotfiles set-up) is written through: its target gets the
    new text and the link stays a link."""
    try:
        atomic_write(str(path), text, follow_link=True, durable=True)
    except OSError as err:
        raise ParseError(f"cannot write {path}: {err.strerror or err}") from None
    _cache.pop(path, None)


@contextmanager
def _editing(path: Path | None = None) -> Iterator[Any]:
    """The parsed document, locked; written back (atomically) when the block succeeds and
    the changed document still reads as characters (else ParseError naming the file and
    the key, and the file is not written)."""
    import tomlkit

    target = path or characters_path()
    with _locked(target):
        text = _read_text(target)
        doc = _parse(text, target) if text is not None else tomlkit.document()
        yield doc
        try:
            found = {
                str(name): _character(str(name), table, target)
                for name, table in doc.items()
                if str(name).lower() != PARTY
            }
            party_from(doc.get(PARTY), target, found)
        except ParseError as err:
            raise ParseError(f"{err.message} (fix the file; it was not changed)") from None
        _write_atomic(target, tomlkit.dumps(doc))


def _key_of(doc: Any, name: str) -> str:
    """The key of character `name` in the document (exact, else case-insensitive); the
    party's table is no character, and is not offered among the names."""
    keys = [str(k) for k in doc if str(k).lower() != PARTY]
    if name in keys:
        return name
    for key in keys:
        if key.lower() == name.lower():
            return key
    raise ParseError(f"no character {name!r}{closest(name, keys)}")


def _table_of(doc: Any, name: str, path: Path | None = None) -> tuple[str, Any]:
    """The key and table of character `name`. ParseError, naming the file and the key,
    when the file holds something else than a table under that name."""
    key = _key_of(doc, name)
    table = doc[key]
    if not isinstance(table, dict):
        where = path or characters_path()
        raise ParseError(
            f"{where}: {key} must be a table ([{key}]), not {_shape(table)} "
            "(fix the file; it was not changed)"
        )
    return key, table


def _system_id(system: str) -> str:
    from d20cli.rules import system_id

    return system_id(system)


def add(name: str, system: str | None = None, path: Path | None = None) -> Character:
    """A new character (ParseError if the name is taken or not a plain word)."""
    import tomlkit

    if not _NAME.fullmatch(name):
        raise ParseError(
            f"a character name is letters, digits, '_' and '-' (e.g. aria), not {name!r}"
        )
    if name.lower() == PARTY:
        raise ParseError("`party` is the party's table in the file, not a character's name")
    sid = _system_id(system) if system else None
    with _editing(path) as doc:
        if any(str(k).lower() == name.lower() for k in doc):
            raise ParseError(f"there is already a character {name!r}")
        table = tomlkit.table()
        if sid is not None:
            table.add("system", sid)
        if len(doc) > 0 or doc.as_string().strip():
            doc.add(tomlkit.nl())
        doc.add(name, table)
    return load(name, path)


def remove(name: str, path: Path | None = None) -> str:
    """Remove a character (also one whose table is malformed: that is one way to fix it),
    and from the party. The name as the file spelled it."""
    with _editing(path) as doc:
        key = _key_of(doc, name)
        del doc[key]
        _set_party(doc, [m for m in _party_list(doc) if m != key])
    return key


def party_edit(
    add: Sequence[str] = (),
    remove: Sequence[str] = (),
    clear: bool = False,
    path: Path | None = None,
) -> tuple[str, ...]:
    """Change the party (`[party] members` in the file): add characters (each once, in
    the order given), remove some, or clear it. The new party."""
    with _editing(path) as doc:
        members = [] if clear else _party_list(doc)
        for name in add:
            if name.lower() == PARTY:
                raise ParseError("name the party's characters: d20 party add aria bob")
            key = _key_of(doc, name)
            _table_of(doc, key, path)
            if key not in members:
                members.append(key)
        for name in remove:
            found = next((m for m in members if m.lower() == name.lower()), None)
            if found is None:
                raise ParseError(f"{name!r} is not in the party{closest(name, members)}")
            members.remove(found)
        _set_party(doc, members)
    return party(path)


def _party_list(doc: Any) -> list[str]:
    table = doc.get(PARTY)
    members = table.get("members", []) if isinstance(table, dict) else []
    return [str(m) for m in members] if isinstance(members, list) else []


def _set_party(doc: Any, members: list[str]) -> None:
    import tomlkit

    if not members:
        if PARTY in doc:
            del doc[PARTY]
        return
    table = doc.get(PARTY)
    if not isinstance(table, dict):
        if PARTY in doc:
            del doc[PARTY]
        table = tomlkit.table()
        doc.add(tomlkit.nl())
        doc.add(PARTY, table)
    table["members"] = members


def _check_value(key: str, words: str) -> None:
    """The entry's words must make a request after a label word (`check stealth WORDS`)."""
    from d20cli.language.grammar import parse_request

    try:
        parse_request(f"check {key} {words}")
    except D20Error as err:
        raise ParseError(f"the words {words!r} for {key!r} do not read: {err.message}") from None


def _check_name(word: str, what: str) -> None:
    if not is_label_word(word):
        raise ParseError(
            f"{word!r} cannot name {what}: use a word that starts with a letter and is not "
            "a word of requests (vs, adv, a verb, a rank...)"
        )


def set_entry(
    name: str, key: str, value_words: Sequence[str] | str, path: Path | None = None
) -> str:
    """Set `key` of character `name` to `value_words` (joined with spaces), and say which
    key was written (its full name: `skills.stealth`).

    key: `system`; an entry (`stealth`: at the top level, or in the general group that
    already holds it, never in a verb's group such as `saves`); `GROUP.ENTRY`
    (`saves.dex`, `attacks.longsword`); `macros.NAME`; a house key for all of the
    character's rolls (`lucky`, alone or with true or false; `crit 19`, `min 10`,
    `crit-dmg max`, `group at-least-half`)."""
    import tomlkit

    words = value_words if isinstance(value_words, str) else " ".join(value_words)
    words = " ".join(words.split())
    if key.lower() in HOUSE_KEYS:
        return _set_house(name, key.lower(), words, path)
    near = closest(key, ("system", *HOUSE_KEYS)) if "." not in key else ""
    if not near.startswith("; did you mean"):
        near = ""
    if not words:
        if near:
            raise ParseError(f"{key!r} is not a key of a character{near}")
        raise ParseError(f"give the words for {key!r}, e.g. d20 char set {name} {key} +5")
    parts = key.split(".")
    if len(parts) > 2 or not all(parts):
        raise ParseError(f"a key is ENTRY, GROUP.ENTRY or macros.NAME, not {key!r}")
    if parts == ["system"]:
        words = _system_id(words)
    elif parts[0] == "macros":
        if len(parts) != 2:
            raise ParseError("name the macro: macros.NAME")
        _check_name(parts[1], "a macro")
        verbs, _ = _language()
        if parts[1].lower() in verbs:
            raise ParseError(f"a macro cannot be called {parts[1]!r}: that is a verb")
        first = words.split(None, 1)[0].lower()
        if first not in verbs:
            raise ParseError(f"a macro is a request that starts with a verb, not {first!r}")
    else:
        if parts[0] == "system":
            raise ParseError("`system` is not a group")
        _check_name(parts[-1], "an entry")
        try:
            _check_value(parts[-1], words)
        except ParseError:
            if near:  # `sytem levelup`: a key mistyped, not an entry's words
                raise ParseError(f"{key!r} is not a key of a character{near}") from None
            raise
    with _editing(path) as doc:
        _, table = _table_of(doc, name, path)
        if len(parts) == 1 and parts[0] != "system" and parts[0] not in table:
            parts = _short_key(table, parts[0], name)
        if len(parts) == 1:
            _put(table, parts[0], words)
            return ".".join(parts)
        group = table.get(parts[0])
        if group is None:
            group = tomlkit.table()
            table.add(parts[0], group)
        elif not isinstance(group, dict):
            raise ParseError(
                f"{path or characters_path()}: {name}.{parts[0]} is {_shape(group)}, "
                "not a group (a table)"
            )
        _put(group, parts[1], words)
        return ".".join(parts)


def _short_key(table: Any, key: str, name: str) -> list[str]:
    """Where `char set NAME KEY` writes a KEY with no group: a new top-level entry, or the
    one entry of that name in a general group (which serves every verb, as the top level
    does). A verb's group (`saves`, `attacks`) is never written by a short name: its
    entries are for that verb only. Two general groups holding it: ParseError asking for
    the full name."""
    general = [
        str(group)
        for group, sub in table.items()
        if group != "macros" and f"{group}" not in VERB_GROUPS and isinstance(sub, dict)
        if key in sub
    ]
    if len(general) > 1:
        keys = " or ".join(f"{g}.{key}" for g in general)
        raise ParseError(f"{name} has {key!r} in more than one group; give the full name: {keys}")
    return [general[0], key] if general else [key]


def _set_house(name: str, key: str, words: str, path: Path | None) -> str:
    """Set a character's house key (checked as the config file's are)."""
    from d20cli.store.config import house_problem, parse_value

    value = parse_value(key, words or ("true" if key == "lucky" else ""))
    problem = house_problem(None, key, value)
    if problem is not None:
        raise ParseError(
            f"{key}: {problem}" + ("" if words else f": d20 char set {name} {key} VALUE")
        )
    with _editing(path) as doc:
        _, table = _table_of(doc, name, path)
        _put(table, key, value)
    return key


def _put(table: Any, key: str, value: str) -> None:
    """Set `key`; a new key goes after the table's last value, before the comments and
    blank lines that end it (tomlkit would put it after them, under a comment that
    belongs to the next table)."""
    if key in table:
        table[key] = value
        return
    body = getattr(getattr(table, "value", None), "body", None)
    trailing: list[Any] = []
    while isinstance(body, list) and body and body[-1][0] is None:
        trailing.insert(0, body.pop())
    table[key] = value
    if isinstance(body, list):
        body.extend(trailing)


def unset_entry(name: str, key: str, path: Path | None = None) -> None:
    """Remove an entry, group entry or macro (`stealth`, `saves.dex`, `macros.sneak`)."""
    parts = key.split(".")
    with _editing(path) as doc:
        _, table = _table_of(doc, name, path)
        if len(parts) == 1:
            if parts[0] in table and not isinstance(table[parts[0]], dict):
                del table[parts[0]]
                return
            for group, sub in table.items():
                if group != "macros" and isinstance(sub, dict) and parts[0] in sub:
                    del sub[parts[0]]
                    return
        elif len(parts) == 2:
            sub = table.get(parts[0])
            if isinstance(sub, dict) and parts[1] in sub:
                del sub[parts[1]]
                return
        raise ParseError(f"{name} has no {key!r}")
