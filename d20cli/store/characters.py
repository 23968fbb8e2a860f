"""Characters: named request words kept in a TOML file the user may edit by hand.

The file is `$XDG_CONFIG_HOME/d20cli/characters.toml` (default
`~/.config/d20cli/characters.toml`). Each character is a table; its string values are
*entries*: the words that stand for a label word in a request. Sub-tables group entries
(`skills`, `attributes`, any name you like); a group named after a verb plus "s"
(`checks`, `saves`, `attacks`, `attempts`, `defends`, `resists`, `routines`) belongs to that
verb: it is looked at first for that verb and never for another, so a saving throw and a
check of the same ability may differ. Group members and contest sides use `checks`.
`macros` holds whole requests under a name of their own.

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

How a request is resolved through a character (`expand`):

- A macro name in the verb's place becomes the macro's request; words after it are kept
  (`sneak dis` -> `check stealth vs 15 adv dis`). Label words inside it resolve as below.
- After a check-like verb (check, save, attack, attempt, defend, resist, routine), after
  each group member's comma and on each side of a contest (after every `vs`), a label
  word that names an entry gets the entry's words inserted after it; the label word
  stays, so the output says "stealth".
- A modifier typed after the label wins: `check stealth +2 vs 15` keeps +2, and a label
  word that is not an entry but has a modifier (`contest athletics vs goblin +4`) is
  left alone. A label word that is neither is an error naming the closest entries.

Entry and macro names are label words: a letter, then letters, digits, `_`, `'` or `-`,
and not a word of the request language (`vs`, `adv`, a verb, a rank, ...). Writes keep
the user's comments and layout (tomlkit) and are atomic (a temporary file in the same
directory, fsync, rename), under a lock file so two writers do not lose each other's
change. A symbolic link at the file's place is written through (its target is replaced,
the link stays). A file that cannot be parsed is reported with its line and never
overwritten; one whose shape is not characters (`[[aria]]`, `aria = "+7"`, a group that
is not a table) is reported with the file and the key, and a change that would leave the
file so is not written.
"""

from __future__ import annotations

import difflib
import errno
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from d20cli.errors import D20Error, ParseError
from d20cli.language.vocabulary import CHECK_VERBS, CONTEST_VERBS, KEYWORDS, RANK_WORDS, VERBS
from d20cli.store.files import atomic_write, open_lock, xdg_dir

#: Groups that belong to one verb (`saves` for save); the other groups serve every verb.
_VERB_GROUPS = frozenset(f"{v}s" for v in CHECK_VERBS)
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
_LABEL = re.compile(r"[a-z][\w'-]*", re.IGNORECASE)
_MODIFIER_START = re.compile(r"[+-]?[0-9]")


def config_dir() -> Path:
    return Path(xdg_dir("XDG_CONFIG_HOME", ".config")) / "d20cli"


def characters_path() -> Path:
    return config_dir() / "characters.toml"


@dataclass(frozen=True)
class Character:
    """One character as read from the file. Entry values are request words."""

    name: str
    system: str | None = None
    entries: dict[str, str] = field(default_factory=dict)  # top-level entries
    groups: dict[str, dict[str, str]] = field(default_factory=dict)  # sub-tables
    macros: dict[str, str] = field(default_factory=dict)

    def entry_names(self) -> list[str]:
        names = list(self.entries)
        for group in self.groups.values():
            names += [n for n in group if n not in names]
        return names

    def lookup(self, word: str, verb: str) -> str | None:
        """The words of entry `word` for `verb` (case-insensitive): the verb's own group
        (`saves` for save) first, then the top level, then the other groups in order."""
        low = word.lower()
        own = self.groups.get(f"{verb.lower()}s", {})
        general = [t for g, t in self.groups.items() if g not in _VERB_GROUPS]
        for table in (own, self.entries, *general):
            for key, value in table.items():
                if key.lower() == low:
                    return value
        return None

    def macro(self, word: str) -> str | None:
        low = word.lower()
        return next((v for k, v in self.macros.items() if k.lower() == low), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "system": self.system,
            "entries": dict(self.entries),
            "groups": {g: dict(t) for g, t in self.groups.items()},
            "macros": dict(self.macros),
        }


# --- reading ---------------------------------------------------------------------------

_cache: dict[Path, tuple[tuple[int, int], dict[str, Character]]] = {}


def _parse(text: str, path: Path) -> Any:
    import tomlkit
    from tomlkit.exceptions import ParseError as TomlError

    try:
        return tomlkit.parse(text)
    except TomlError as err:
        raise ParseError(
            f"cannot read {path}: line {err.line}, column {err.col}: "
            f"{str(err).split(' at line')[0]} (fix the file; it was not changed)"
        ) from None


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as err:
        raise ParseError(f"cannot read {path}: not UTF-8 text (byte {err.start + 1})") from None
    except OSError as err:
        raise ParseError(f"cannot read {path}: {err.strerror or err}") from None


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
    for key, value in table.items():
        key = str(key)
        if key == "system":
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
    return Character(name, system, entries, groups, macros)


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
    doc = _parse(text, target)
    found = {str(name): _character(str(name), table, target) for name, table in doc.items()}
    _cache[target] = (stamp, found)
    return found


def _closest(word: str, names: Sequence[str]) -> str:
    close = difflib.get_close_matches(word.lower(), [n.lower() for n in names], n=3, cutoff=0.5)
    by_low = {n.lower(): n for n in names}
    picked = [by_low[c] for c in close]
    if picked:
        return "; did you mean " + " or ".join(picked) + "?"
    if names:
        shown = ", ".join(list(names)[:12])
        return f" (there are: {shown}{', ...' if len(names) > 12 else ''})"
    return ""


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
    raise ParseError(f"no character {name!r}{_closest(name, list(found))}")


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


def _has_modifier(word: str | None) -> bool:
    if word is None:
        return False

    return bool(_MODIFIER_START.match(word)) or word.lower() in RANK_WORDS


@dataclass
class _Token:
    text: str
    start: int  # 0-based offset in the line


def _tokens(text: str) -> list[_Token]:
    return [_Token(m.group(), m.start()) for m in re.finditer(r",|[^\s,]+", text)]


def expand(text: str, name: str | Character) -> tuple[str, str | None]:
    """`text` with its label words (and a macro in the verb's place) resolved through the
    character (a name in the file, or a Character), and its system (None if it names none).

    ParseError, located in `text`, for an unknown character, macro or entry."""
    character = load(name) if isinstance(name, str) else name
    verbs, _ = _language()
    tokens = _tokens(text)
    comment_at = next((i for i, t in enumerate(tokens) if t.text.startswith("#")), len(tokens))
    comment = text[tokens[comment_at].start :] if comment_at < len(tokens) else ""
    tokens = tokens[:comment_at]
    if not tokens:
        return text, character.system
    head = tokens[0].text
    if head.lower() not in verbs:
        macro = character.macro(head)
        if macro is None:
            known = [*character.macros, *sorted(verbs)]
            raise ParseError(
                f"{character.name} has no macro {head!r} and it is not a verb"
                f"{_closest(head, known)}",
                text,
                tokens[0].start + 1,
            )
        end = len(text) - len(comment)
        rest = text[tokens[0].start + len(head) : end].strip()
        inner = macro.split("#", 1)[0].strip()
        first = inner.split(None, 1)[0].lower() if inner else ""
        if first not in verbs:
            raise ParseError(
                f"the macro {head!r} of {character.name} must start with a verb, not {macro!r}"
            )
        expanded, _ = _expand_words(f"{inner} {rest}", character, None)
        return _join(expanded, comment), character.system
    expanded, _ = _expand_words(text[: len(text) - len(comment)], character, text)
    return _join(expanded, comment), character.system


def _join(text: str, comment: str) -> str:
    text = " ".join(text.split())
    return f"{text} {comment}" if comment else text


def _expand_words(text: str, character: Character, located: str | None) -> tuple[str, bool]:
    """Resolve the label words of one request (verb first). `located`: the line the user
    typed, for error columns (None inside a macro: errors name the macro's words)."""
    tokens = _tokens(text)
    if not tokens:
        return text, False
    verb = tokens[0].text.lower()
    heads: list[int] = []  # indexes of the tokens that may be label words
    if verb in CHECK_VERBS:
        heads = [1]
    elif verb == "group":
        heads = [1] + [i + 1 for i, t in enumerate(tokens) if t.text == ","]
    elif verb in CONTEST_VERBS:
        heads = [1] + [i + 1 for i, t in enumerate(tokens) if t.text.lower() == "vs" and i > 0]
    inserts: dict[int, str] = {}
    for i in heads:
        if i >= len(tokens) or not is_label_word(tokens[i].text):
            continue
        word = tokens[i].text
        after = tokens[i + 1].text if i + 1 < len(tokens) else None
        if _has_modifier(after):
            continue  # a typed modifier wins; a label that is not an entry stays a label
        value = character.lookup(word, "check" if verb in ("group", *CONTEST_VERBS) else verb)
        if value is None:
            known = character.entry_names()
            where = f" (in a macro: {text!r})" if located is None else ""
            raise ParseError(
                f"{character.name} has no entry {word!r}{where}{_closest(word, known)}",
                located,
                tokens[i].start + 1 if located is not None else None,
            )
        inserts[i] = value
    if not inserts:
        return text, False
    parts: list[str] = []
    for i, token in enumerate(tokens):
        if token.text == "," and parts:
            parts[-1] += ","
        else:
            parts.append(token.text)
        if i in inserts:
            parts.append(inserts[i])
    return " ".join(parts), True


# --- writing ---------------------------------------------------------------------------


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
            for name, table in doc.items():
                _character(str(name), table, target)
        except ParseError as err:
            raise ParseError(f"{err.message} (fix the file; it was not changed)") from None
        _write_atomic(target, tomlkit.dumps(doc))


def _key_of(doc: Any, name: str) -> str:
    """The key of character `name` in the document (exact, else case-insensitive)."""
    if name in doc:
        return name
    for key in doc:
        if str(key).lower() == name.lower():
            return str(key)
    raise ParseError(f"no character {name!r}{_closest(name, [str(k) for k in doc])}")


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


def remove(name: str, path: Path | None = None) -> None:
    """Remove a character (also one whose table is malformed: that is one way to fix it)."""
    with _editing(path) as doc:
        del doc[_key_of(doc, name)]


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
) -> None:
    """Set `key` of character `name` to `value_words` (joined with spaces).

    key: `system`; an entry (`stealth`: at the top level, or in the group that already
    holds it); `GROUP.ENTRY` (`saves.dex`, `attacks.longsword`); `macros.NAME`."""
    import tomlkit

    words = value_words if isinstance(value_words, str) else " ".join(value_words)
    words = " ".join(words.split())
    if not words:
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
        _check_value(parts[-1], words)
    with _editing(path) as doc:
        _, table = _table_of(doc, name, path)
        if len(parts) == 1 and parts[0] != "system" and parts[0] not in table:
            for group, sub in table.items():
                if group != "macros" and isinstance(sub, dict) and parts[0] in sub:
                    parts = [str(group), parts[0]]
                    break
        if len(parts) == 1:
            _put(table, parts[0], words)
            return
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
