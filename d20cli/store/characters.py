"""Characters: named request words kept in a TOML file the user may edit by hand, read
here and edited here (`d20 char add|set|unset|rm`, `d20 party add|rm|clear`).

The file is `$XDG_CONFIG_HOME/d20cli/characters.toml` (default
`~/.config/d20cli/characters.toml`). Each character is a table; its string values are
*entries*: the words that stand for a label word in a request. Sub-tables group entries
(`skills`, `attributes`, any name you like); a group named after a verb plus "s"
(`checks`, `saves`, `attacks`, `attempts`, `defends`, `resists`, `routines`) belongs to that
verb: it is looked at first for that verb and never for another, so a saving throw and a
check of the same ability may differ. Group members and contest sides use `checks`.
`macros` holds whole requests under a name of their own. House keys at the top of a
character's table apply to all of its rolls (`lucky = true`, `crit = 19`, `min = 10`,
`crit-dmg = "max"`, `group = "at-least-half"`), where the request says nothing else and
the system takes the word (d20cli.rules.house); they beat the config file's.

    # The party
    [aria]
    system = "levelup"              # optional: the system this character plays
    stealth = "+7 expertise=d6"     # check stealth vs 15 -> check stealth +7 expertise=d6 vs 15
    athletics = "+3"
    perception = 4                  # a number is a modifier: +4

    [aria.saves]
    dex = "+7"                      # save dex vs 14 -> save dex +7 vs 14

    [aria.attacks]
    longsword = "+5 dmg 1d8+3"      # attack longsword vs 15 -> attack longsword +5 dmg ...

    [aria.macros]
    sneak = "check stealth vs 15 adv"   # `sneak` (as the verb) runs this request

How a request is resolved through a character (`resolve`):

- A macro name in the verb's place becomes the macro's request; words after it are kept
  (`sneak dis` -> `check stealth vs 15 adv dis`). A macro is a saved line, so this one
  step is on the text (`macro_line`).
- The request is then parsed, and each label of a check-like verb (check, save, attack,
  attempt, defend, resist, routine), of each group member and of each side of a contest
  that names an entry gets the entry's words merged in (d20cli.language.character_entries); the
  label stays, so the output says "stealth", and the shown request text has the entry's
  words after it (`check stealth +7 expertise=d6 vs 15`).
- A modifier typed after the label wins: `check stealth +2 vs 15` keeps +2, and a label
  word that is not an entry but has a modifier (`contest athletics vs goblin +4`) is
  left alone. A label word that is neither is an error naming the closest entries. A
  word that holds one value (dmg, crit, a target) typed in the request beats the
  entry's.

Entry and macro names are label words: a letter, then letters, digits, `_`, `'` or `-`,
and not a word of the request language (`vs`, `adv`, a verb, a rank, ...). Writes
(d20cli.store.files) keep the user's comments and layout (tomlkit) and are atomic (a
temporary file in the same directory, fsync, rename), under a lock file so two writers
do not lose each other's change. A symbolic link at the file's place is written through
(its target is replaced, the link stays). The file is read bounded
(d20cli.store.files.read_text): a regular file of at most MAX_CHARACTERS_BYTES of UTF-8 (a byte
order mark allowed); TOML nested too deeply is an error naming the file. A file that
cannot be parsed is reported with its line and never overwritten; one whose shape is not
characters (`[[aria]]`, `aria = "+7"`, a group that is not a table) is reported with the
file and the key, and a change that would leave the file so is not written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from d20cli.bounded import Bounded, declare
from d20cli.errors import D20Error, ParseError, closest
from d20cli.frozen import field, frozen
from d20cli.language.vocabulary import CHECK_VERBS, KEYWORDS, VERBS
from d20cli.rules.house import HOUSE_KEYS, NO_HOUSE, HouseDefaults
from d20cli.store.files import (
    edit_lock,
    no_such_file,
    parse_for_edit,
    put_key,
    read_text,
    write_edit,
    xdg_dir,
)

#: The table of a character that holds what `d20 char import` made (no group of entries).
IMPORTED = "imported"
#: Groups that belong to one verb (`saves` for save); the other groups serve every verb.
VERB_GROUPS = frozenset(f"{v}s" for v in CHECK_VERBS)
MAX_CHARACTERS_BYTES = 65_536  # a characters file, as a config file (90 characters of 25 entries)
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
_LABEL = re.compile(r"[a-z][\w'-]*", re.IGNORECASE)


def config_dir() -> Path:
    return Path(xdg_dir("XDG_CONFIG_HOME", ".config")) / "d20cli"


def characters_path() -> Path:
    return config_dir() / "characters.toml"


@frozen
class Character:
    """One character as read from the file. Entry values are request words."""

    name: str
    system: str | None = None
    entries: dict[str, str] = field(default_factory=dict)  # top-level entries
    groups: dict[str, dict[str, str]] = field(default_factory=dict)  # sub-tables
    macros: dict[str, str] = field(default_factory=dict)
    house: HouseDefaults = NO_HOUSE  # house keys for all of its rolls (`lucky = true`)
    #: What the last `d20 char import` recorded (`[aria.imported]`): format, version,
    #: source, date, the sheet's facts, and `made`, the entries it made (key -> words).
    imported: dict[str, Any] = field(default_factory=dict)

    def entry_names(self, verb: str | None = None) -> list[str]:
        """The names of its entries; with `verb`, those `lookup` finds for it: the top
        level, the verb's own group and the groups that serve every verb (not an attack's
        `attacks.longsword` for a check)."""
        names = list(self.entries)
        for key, group in self.groups.items():
            if verb is None or key == f"{verb.lower()}s" or key not in VERB_GROUPS:
                names += [n for n in group if n not in names]
        return names

    def lookup(self, word: str, verb: str) -> str | None:
        """The words of entry `word` for `verb` (case-insensitive): the verb's own group
        (`saves` for save) first, then the top level, then the other groups in order."""
        low = word.lower()
        own = self.groups.get(f"{verb.lower()}s", {})
        general = [t for g, t in self.groups.items() if g not in VERB_GROUPS]
        for table in (own, self.entries, *general):
            for key, value in table.items():
                if key.lower() == low:
                    return value
        return None

    def macro(self, word: str) -> str | None:
        low = word.lower()
        return next((v for k, v in self.macros.items() if k.lower() == low), None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "system": self.system,
            "entries": dict(self.entries),
            "groups": {g: dict(t) for g, t in self.groups.items()},
            "macros": dict(self.macros),
        }
        if not self.house.empty:
            out["house"] = self.house.to_json()
        if self.imported:
            out["imported"] = {k: v for k, v in self.imported.items() if k != "made"}
        return out


# --- reading ---------------------------------------------------------------------------

#: The character files read, by path, with the (mtime, size) they were read at, and
#: their parties (a file read again unchanged is not parsed again).
_cache: Bounded[Path, tuple[tuple[int, int], dict[str, Character]]] = declare(
    "characters._cache",
    16,
    holds="path → the characters file read, with its stamp",
    buys="`load_all`: 2.6 µs instead of 355 µs (x134)",
).new()


def _read_text(path: Path) -> str | None:
    """The file's text (None: there is none): at most MAX_CHARACTERS_BYTES of UTF-8 in a regular
    file, else ParseError naming the file (d20cli.store.files.read_text)."""
    try:
        os.stat(path)
    except OSError as err:
        if no_such_file(err):  # (a link to nothing yet is no file: an edit writes its target)
            return None
        raise ParseError(f"cannot read {path}: {err.strerror or err}") from None
    return read_text(str(path), MAX_CHARACTERS_BYTES, "a characters file")


def _shape(value: Any) -> str:
    """What a TOML value is, for messages."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            return "an array of tables ([[...]])"
        return "an array"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a date or time"


def _words(value: Any, where: str, path: Path) -> str:
    if isinstance(value, bool):
        raise ParseError(f"{path}: {where} must be request words in quotes, not {value!r}")
    if isinstance(value, int):
        return f"{value:+d}"
    if isinstance(value, str):
        return " ".join(value.split())
    raise ParseError(
        f'{path}: {where} must be request words in quotes, e.g. "+5", not {_shape(value)}'
    )


def _character(name: str, table: Any, path: Path) -> Character:
    if not isinstance(table, dict):
        raise ParseError(f"{path}: {name} must be a table ([{name}]), not {_shape(table)}")
    system: str | None = None
    entries: dict[str, str] = {}
    groups: dict[str, dict[str, str]] = {}
    macros: dict[str, str] = {}
    house: dict[str, Any] = {}
    imported: dict[str, Any] = {}
    for key, value in table.items():
        key = str(key)
        if key == IMPORTED:
            imported = _import_record(name, value, path)
        elif key in HOUSE_KEYS:
            house[key] = _house_value(name, key, value, path)
        elif key == "system":
            system = _words(value, f"{name}.system", path) or None
        elif key == "macros":
            if not isinstance(value, dict):
                raise ParseError(
                    f"{path}: {name}.macros must be a table ([{name}.macros]), not {_shape(value)}"
                )
            macros = {str(k): _words(v, f"{name}.macros.{k}", path) for k, v in value.items()}
        elif isinstance(value, dict):
            groups[key] = {str(k): _words(v, f"{name}.{key}.{k}", path) for k, v in value.items()}
        else:
            entries[key] = _words(value, f"{name}.{key}", path)
    for where, table_ in ((name, entries), *((f"{name}.{g}", t) for g, t in groups.items())):
        _one_spelling(where, table_, path, name)
    _one_spelling(f"{name}.macros", macros, path, name)
    house_defaults = HouseDefaults.from_keys(house, name)
    return Character(name, system, entries, groups, macros, house_defaults, imported)


def _import_record(name: str, value: Any, path: Path) -> dict[str, Any]:
    """A character's `[NAME.imported]` table, checked: what `d20 char import` made."""
    where = f"{path}: {name}.{IMPORTED}"
    if not isinstance(value, dict):
        raise ParseError(
            f"{where} must be a table, not {_shape(value)} (d20 char import writes it)"
        )
    made = value.get("made", {})
    if not isinstance(made, dict) or not all(isinstance(v, str) for v in made.values()):
        raise ParseError(
            f"{where}.made must be a table of request words (d20 char import writes it)"
        )
    record = {str(k): v for k, v in value.items() if k != "made"}
    return {**record, "made": {str(k): v for k, v in made.items()}}


def _one_spelling(where: str, table: dict[str, str], path: Path, name: str) -> None:
    """ParseError for two keys of one table that differ only in case (`stealth` and
    `Stealth`): names are one name whatever their case, so one of them is never read."""
    seen: dict[str, str] = {}
    for key in table:
        first = seen.setdefault(key.lower(), key)
        if first != key:
            full = key if where == name else f"{where.split('.', 1)[1]}.{key}"
            raise ParseError(
                f"{path}: {where} has both {first!r} and {key!r}, one name whatever its case, "
                f"so one is never read: keep one (d20 char unset {name} {full})"
            )


def _same_key(table: Any, key: str, groups: bool = False) -> str | None:
    """The key of `table` that is `key` whatever its case (the spelling first chosen),
    among its values (`groups`: among its sub-tables); None when there is none."""
    low = key.lower()
    for k, v in table.items():
        if str(k).lower() == low and isinstance(v, dict) == groups:
            return str(k)
    return None


def _house_value(name: str, key: str, value: Any, path: Path) -> Any:
    """A character's house key checked (ParseError naming the file and the key)."""
    from d20cli.store.config import house_problem

    problem = house_problem(None, key, value)
    if problem is not None:
        raise ParseError(f"{path}: {name}.{key}: {problem}")
    return value.strip().lower() if isinstance(value, str) else value


def _read_only(text: str, path: Path) -> Any:
    """The file's data for reading alone: the standard library's tomllib, ten times faster
    than tomlkit (which keeps the comments and layout, for edits: `_editing`), and its line
    and column for a bad file (d20cli.store.config.parse_text: a 64 KiB file of the
    costliest shape took tomlkit 1.6 s just to find the error)."""
    from d20cli.store.config import parse_text

    return parse_text(text, str(path))


def load_all(path: Path | None = None) -> dict[str, Character]:
    """Every character in the file (none if there is no file). ParseError for a file that
    cannot be read, with its line."""
    target = path or characters_path()
    try:
        st = target.stat()
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = (-1, -1)
    hit = _cache.get(target)
    if hit is not None and hit[0] == stamp and stamp != (-1, -1):
        return hit[1]
    text = _read_text(target)
    if text is None:
        return {}
    doc = _read_only(text, target)
    found = {
        str(name): _character(str(name), table, target)
        for name, table in doc.items()
        if str(name).lower() != PARTY
    }
    _parties[target] = party_from(doc.get(PARTY), target, found)
    _cache[target] = (stamp, found)
    return found


#: The reserved table of the file that holds the party: `[party]` with `members = [...]`.
PARTY = "party"
_parties: Bounded[Path, tuple[str, ...]] = declare(
    "characters._parties",
    16,
    holds="path → the party the characters file names",
    buys="read with the file's characters (`_cache`)",
).new()


def party_from(value: Any, path: Path, found: dict[str, Character]) -> tuple[str, ...]:
    """The party's member names from the `[party]` table (ParseError for another shape or
    a member who is not a character of the file)."""
    if value is None:
        return ()
    members = value.get("members", []) if isinstance(value, dict) else None
    if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
        raise ParseError(f'{path}: {PARTY} must be a table with members = ["aria", "bob"]')
    for member in members:
        if member not in found:
            raise ParseError(f"{path}: the party's member {member!r} is not a character")
    return tuple(members)


def party(path: Path | None = None) -> tuple[str, ...]:
    """The party's members as the file keeps them (none when there is no party)."""
    target = path or characters_path()
    load_all(target)
    return _parties.get(target, ())


def party_of(spec: str, path: Path | None = None) -> list[Character]:
    """The characters `--as` names: `party` (the party kept in the file) or a list
    `aria,bob`. ParseError for an empty party or an unknown name."""
    if spec.strip().lower() == PARTY:
        names = party(path)
        if not names:
            raise ParseError("there is no party yet: d20 party add aria bob")
    else:
        names = tuple(n for n in (n.strip() for n in spec.split(",")) if n)
    if len(names) < 1:
        raise ParseError(f"--as {spec!r} names no character")
    return [load(n, path) for n in names]


def config_value(spec: str) -> str:
    """What the config file's `character` keeps for `spec` (`d20 char use aria`, `d20
    config set character aria,bob`: d20cli.store.config.set_key): `party`, or each name
    of the list as this file spells it. ParseError for a name that is not here, or for
    `party` when there is none."""
    found = party_of(spec)  # each must be there (and the party, for `party`)
    return PARTY if spec.lower() == PARTY else ",".join(c.name for c in found)


def is_party(spec: str) -> bool:
    """Does `--as` name more than one character (`party`, `aria,bob`)?"""
    return "," in spec or spec.strip().lower() == PARTY


def load(name: str, path: Path | None = None) -> Character:
    """One character by name (exact, else case-insensitive). ParseError naming the closest
    characters when there is none."""
    found = load_all(path)
    if name in found:
        return found[name]
    for key, character in found.items():
        if key.lower() == name.lower():
            return character
    if not found:
        raise ParseError(
            f"no character {name!r}: there are no characters yet "
            f"(add one: d20 char add {name} --system levelup)"
        )
    raise ParseError(f"no character {name!r}{closest(name, list(found))}")


def names(character: str | None) -> list[str]:
    """The entry and macro names of a character, for TAB completion (empty when there is
    no such character or the file cannot be read)."""
    if not character:
        return []
    try:
        c = load(character)
    except D20Error:
        return []
    return [*c.entry_names(), *c.macros]


def character_names() -> list[str]:
    """The characters in the file, for completion (empty when it cannot be read)."""
    try:
        return list(load_all())
    except D20Error:
        return []


def show(name: str) -> dict[str, Any]:
    return load(name).to_json()


def list_characters() -> list[Character]:
    return list(load_all().values())


# --- resolving requests ----------------------------------------------------------------


def _language() -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(VERBS), frozenset(w.lower() for w in (*KEYWORDS, *VERBS))


def is_label_word(word: str) -> bool:
    """A word the grammar reads as a label (so it can name an entry or a macro)."""
    return bool(_LABEL.fullmatch(word)) and word.lower() not in _language()[1]


# --- editing (`d20 char add|set|unset|rm`, `d20 party`) ---------------------------------


@contextmanager
def _editing(path: Path | None = None, write: bool = True) -> Iterator[Any]:
    """The parsed document, locked; written back (atomically) when the block succeeds and
    the changed document still reads as characters (else ParseError naming the file and
    the key, and the file is not written). write=False: checked, never written (a dry
    run)."""
    import tomlkit

    target = path or characters_path()
    with edit_lock(target):
        text = _read_text(target)
        doc = parse_for_edit(text, target) if text is not None else tomlkit.document()
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
        if write:
            write_edit(target, tomlkit.dumps(doc))
            _cache.pop(target, None)


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
        if parts[0].lower() == IMPORTED:
            raise ParseError(f"`{IMPORTED}` is the record of d20 char import, not a group")
        _check_name(parts[-1], "an entry")
        try:
            _check_value(parts[-1], words)
        except ParseError:
            if near:  # `sytem levelup`: a key mistyped, not an entry's words
                raise ParseError(f"{key!r} is not a key of a character{near}") from None
            raise
    with _editing(path) as doc:
        _, table = _table_of(doc, name, path)
        if len(parts) == 1 and parts[0] != "system":
            same = _same_key(table, parts[0])  # `Stealth` sets the `stealth` check reads
            parts = [same] if same is not None else _short_key(table, parts[0], name)
        if len(parts) == 1:
            put_key(table, parts[0], words)
            return ".".join(parts)
        parts[0] = _same_key(table, parts[0], groups=True) or parts[0]
        group = table.get(parts[0])
        if group is None:
            group = tomlkit.table()
            table.add(parts[0], group)
        elif not isinstance(group, dict):
            raise ParseError(
                f"{path or characters_path()}: {name}.{parts[0]} is {_shape(group)}, "
                "not a group (a table)"
            )
        parts[1] = _same_key(group, parts[1]) or parts[1]
        put_key(group, parts[1], words)
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
        if group not in ("macros", IMPORTED) and f"{group}" not in VERB_GROUPS
        if isinstance(sub, dict)
        if _same_key(sub, key) is not None
    ]
    if len(general) > 1:
        keys = " or ".join(f"{g}.{key}" for g in general)
        raise ParseError(f"{name} has {key!r} in more than one group; give the full name: {keys}")
    if general:
        return [general[0], str(_same_key(table[general[0]], key))]
    return [key]


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
        put_key(table, key, value)
    return key


def unset_entry(name: str, key: str, path: Path | None = None) -> None:
    """Remove an entry, group entry or macro (`stealth`, `saves.dex`, `macros.sneak`)."""
    parts = key.split(".")
    with _editing(path) as doc:
        _, table = _table_of(doc, name, path)
        # the very spelling given first (one of two a file holds), else whatever its case
        if len(parts) == 1:
            own = parts[0] if parts[0] in table else _same_key(table, parts[0])
            if own is not None and not isinstance(table[own], dict):
                del table[own]
                return
            for group, sub in table.items():
                if group not in ("macros", IMPORTED) and isinstance(sub, dict):
                    own = parts[0] if parts[0] in sub else _same_key(sub, parts[0])
                    if own is not None:
                        del sub[own]
                        return
        elif len(parts) == 2:
            sub = table.get(_same_key(table, parts[0], groups=True) or parts[0])
            if isinstance(sub, dict):
                own = parts[1] if parts[1] in sub else _same_key(sub, parts[1])
                if own is not None:
                    del sub[own]
                    return
        raise ParseError(f"{name} has no {key!r}")


# --- importing (`d20 char import`, d20cli.store.character_import) ----------------------


@frozen
class ImportChanges:
    """What an import did to a character's table (or would do, in a dry run): entries
    added, changed (key, old words, new words), removed (made by the last import, no
    longer on the sheet), kept (key, the file's words, the sheet's: written or edited by
    hand, so left alone), and how many stayed as they were."""

    name: str
    created: bool = False
    added: tuple[tuple[str, str], ...] = ()
    changed: tuple[tuple[str, str, str], ...] = ()
    removed: tuple[tuple[str, str], ...] = ()
    kept: tuple[tuple[str, str, str], ...] = ()
    unchanged: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "added": [{"key": k, "words": w} for k, w in self.added],
            "changed": [{"key": k, "was": o, "words": n} for k, o, n in self.changed],
            "removed": [{"key": k, "words": w} for k, w in self.removed],
            "kept": [{"key": k, "words": o, "sheet": n} for k, o, n in self.kept],
            "unchanged": self.unchanged,
        }


def _at(table: Any, key: str) -> tuple[Any, str] | None:
    """The table that holds entry `key` (`checks.stealth`: the `checks` group) and the
    entry's name in it; None when its group is not there."""
    parts = key.split(".")
    if len(parts) == 1:
        return table, parts[0]
    group = table.get(_same_key(table, parts[0], groups=True) or parts[0])
    return (group, parts[1]) if isinstance(group, dict) else None


def _entry_value(table: Any, key: str) -> str | None:
    found = _at(table, key)
    if found is None:
        return None
    group, name = found
    own = _same_key(group, name)
    return None if own is None else str(group[own])


def import_entries(
    name: str,
    system: str,
    entries: dict[str, str],
    record: dict[str, Any],
    set_system: bool = False,
    dry_run: bool = False,
    path: Path | None = None,
) -> ImportChanges:
    """Make or update character `name` with the `entries` of a sheet (key -> words; keys
    such as `checks.stealth`, `init`, `macros.blast-effect`) and the import's `record`
    (format, version, source, date, facts). Entries the last import made are replaced or
    removed; an entry written or edited by hand is kept (and reported), as are the other
    entries, macros, house keys and comments. A character of another system is an error
    unless `set_system`. dry_run: nothing is written."""
    import tomlkit

    if not _NAME.fullmatch(name) or len(name) > 40:
        raise ParseError(
            f"a character name is letters, digits, '_' and '-' (e.g. aria), not {name!r}"
        )
    if name.lower() == PARTY:
        raise ParseError("`party` is the party's table in the file, not a character's name")
    with _editing(path, write=not dry_run) as doc:
        keys = [str(k) for k in doc if str(k).lower() != PARTY]
        key = next((k for k in keys if k == name), None) or next(
            (k for k in keys if k.lower() == name.lower()), None
        )
        created = key is None
        if key is None:
            key = name
            table = tomlkit.table()
            table.add("system", system)
            if len(doc) > 0 or doc.as_string().strip():
                doc.add(tomlkit.nl())
            doc.add(key, table)
        else:
            key, table = _table_of(doc, key, path)
            had = table.get("system")
            if had is not None and str(had) != system and not set_system:
                raise ParseError(
                    f"{key} plays {had} and this sheet is a {system} character: import it "
                    f"as another (--as NAME), or with --system {system} to change {key}'s"
                )
            if had is None or str(had) != system:
                put_key(table, "system", system)
        old = table.get(IMPORTED)
        made_before = dict(old.get("made", {})) if isinstance(old, dict) else {}
        made: dict[str, str] = {}
        added: list[tuple[str, str]] = []
        changed: list[tuple[str, str, str]] = []
        removed: list[tuple[str, str]] = []
        kept: list[tuple[str, str, str]] = []
        unchanged = 0
        for entry, words in entries.items():
            now = _entry_value(table, entry)
            before = made_before.get(entry)
            short = entry.split(".")[-1]
            own = _same_key(table, short) if entry.split(".")[0] in VERB_GROUPS else None
            if now is None and own is not None and own not in made_before:
                kept.append((own, str(table[own]), words))  # the user's `stealth` stays first
                continue
            if now is not None and now != before and now != words:  # the user's: kept
                kept.append((entry, now, words))
                continue
            made[entry] = words
            if now == words:
                unchanged += 1
                continue
            _put_entry(table, entry, words)
            if now is None:
                added.append((entry, words))
            else:
                changed.append((entry, now, words))
        for entry, words in made_before.items():
            if entry in entries:
                continue
            now = _entry_value(table, entry)
            if now is None:
                continue
            if now == words:
                _drop_entry(table, entry)
                removed.append((entry, now))
            else:
                kept.append((entry, now, ""))
        new_record = tomlkit.table()
        for k, v in record.items():
            new_record.add(k, v)
        made_table = tomlkit.table()
        for k, v in made.items():
            made_table.add(k, v)
        new_record.add("made", made_table)
        if IMPORTED in table:
            del table[IMPORTED]
        table.add(IMPORTED, new_record)
    return ImportChanges(
        key,
        created,
        tuple(added),
        tuple(changed),
        tuple(removed),
        tuple(kept),
        unchanged,
    )


def _put_entry(table: Any, key: str, words: str) -> None:
    import tomlkit

    parts = key.split(".")
    if len(parts) == 1:
        put_key(table, _same_key(table, key) or key, words)
        return
    group_key = _same_key(table, parts[0], groups=True)
    if group_key is None:
        group = tomlkit.table()
        if IMPORTED in table:  # new groups go before the import's record
            record = table[IMPORTED]
            del table[IMPORTED]
            table.add(parts[0], group)
            table.add(IMPORTED, record)
        else:
            table.add(parts[0], group)
    else:
        group = table[group_key]
    put_key(group, _same_key(group, parts[1]) or parts[1], words)


def _drop_entry(table: Any, key: str) -> None:
    found = _at(table, key)
    if found is not None:
        group, name = found
        own = _same_key(group, name)
        if own is not None:
            del group[own]
