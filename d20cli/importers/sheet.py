"""What every format's reader makes and shares (d20cli.importers): the `Sheet` read, its
`Entry`s and `NotMapped` reasons, typed access to parsed JSON (`Fields`), and the small
rules of names and numbers the formats share."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from d20cli.errors import ParseError
from d20cli.frozen import field, frozen
from d20cli.visible import visible

#: The formats, in the order `detect` tries them: id -> what a user calls it.
FORMATS: dict[str, str] = {
    "a5e": "Foundry VTT Level Up A5E actor",
    "mm3": "Foundry VTT Mutants & Masterminds 3e actor",
    "beyond": "D&D Beyond character JSON",
}
#: The system each format's character plays.
SYSTEMS: dict[str, str] = {"a5e": "levelup", "mm3": "mm", "beyond": "levelup"}
#: Entry keys, names of weapons and skills: at most this many characters.
MAX_KEY = 40


@frozen
class Entry:
    """One entry the import makes: its key in the character's table (`checks.stealth`,
    `saves.dex`, `attacks.longsword`, `init`, `macros.blast-effect`), the request words it
    holds, the sheet fields it came from (for people), and the total modifier the sheet
    shows (for the test that compares them, and the table the import prints)."""

    key: str
    words: str
    source: str
    total: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "words": self.words, "from": self.source, "total": self.total}


@frozen
class NotMapped:
    """Something of the sheet that became no entry: the field, and why."""

    field: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"field": self.field, "reason": self.reason}


@frozen
class Sheet:
    """A character sheet read: its format and schema version, the name on it, the system
    it plays, the entries it makes, what was not mapped, and facts that are no entry (armor
    class, hit points, level, proficiency bonus) for the record."""

    format: str
    version: str
    name: str
    system: str
    entries: tuple[Entry, ...] = ()
    not_mapped: tuple[NotMapped, ...] = ()
    facts: dict[str, int] = field(default_factory=dict)

    @property
    def format_name(self) -> str:
        return FORMATS[self.format]

    def words(self) -> dict[str, str]:
        """The entries as the characters file keeps them: key -> words."""
        return {e.key: e.words for e in self.entries}

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "format_name": self.format_name,
            "version": self.version,
            "name": self.name,
            "system": self.system,
            "entries": [e.to_json() for e in self.entries],
            "not_mapped": [n.to_json() for n in self.not_mapped],
            "facts": dict(self.facts),
        }


class Fields:
    """Typed access to the parsed JSON, each miss a ParseError naming the field by its path
    in the file (`system.abilities.str.value`) and what it is instead."""

    def __init__(self, what: str) -> None:
        self.what = what  # the format, for messages: "a Foundry VTT Level Up A5E actor"

    def _fail(self, path: str, problem: str) -> ParseError:
        return ParseError(f"{self.what}: {visible(path)} {problem}")

    def get(self, data: Any, path: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        """The value at the dotted `path` of `data`, which must be of `kind` (a number is
        never true or false). A missing value: `default` when one is given, else an error."""
        here: Any = data
        for step in path.split("."):
            if isinstance(here, Mapping) and step in here:
                here = here[step]
            elif isinstance(here, list) and step.isdigit() and int(step) < len(here):
                here = here[int(step)]
            else:
                if default is not ...:
                    return default
                raise self._fail(path, "is missing")
        if here is None and default is not ...:
            return default
        if not _is(here, kind):
            raise self._fail(path, f"is {kind_of(here)}, not {_names(kind)}")
        return here

    def number(
        self, data: Any, path: str, default: Any = ..., low: int = -999, high: int = 999
    ) -> Any:
        """A whole number within low..high (a float that is whole counts)."""
        value = self.get(data, path, (int, float), default)
        if value is default and default is not ...:
            return int(value) if value is not None else value
        if isinstance(value, float):
            if not value.is_integer():
                raise self._fail(path, f"is {value!r}, not a whole number")
            value = int(value)
        if not low <= value <= high:
            raise self._fail(path, f"is {value}, outside {low}..{high}")
        return int(value)


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _names(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    said = {
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
        Mapping: "an object",
        bool: "true or false",
    }
    return " or ".join(dict.fromkeys(said.get(k, k.__name__) for k in kinds))


_SLUG = re.compile(r"[^a-z0-9]+")
_MAGIC = re.compile(r"(?:^|\s)\+[0-9]{1,2}(?=\s|$)")


def slug(text: str) -> str:
    """A label word made of a sheet's name for something (`Sleight of Hand` ->
    `sleight-of-hand`, `+1 Longsword` -> `longsword`): a magic `+N` left out, lower case,
    runs of anything but letters and digits as one `-`, leading digits moved to the end, at
    most MAX_KEY characters. Empty when nothing is left."""
    text = _MAGIC.sub(" ", f" {text} ")  # `+1 Longsword`, `Shortbow +1`: a longsword, a shortbow
    words = _SLUG.sub("-", text.lower()).strip("-")
    lead = re.match(r"^[0-9-]+", words)
    if lead:
        words = f"{words[lead.end() :]}-{lead.group(0).strip('-')}".strip("-")
    return words[:MAX_KEY].strip("-")


def signed(value: int) -> str:
    return f"{value:+d}"


def expertise_die(count: int) -> str | None:
    """A5E's expertise dice: a count, 1 to 5 (6 or more: d20), as one die."""
    if count <= 0:
        return None
    return ("d4", "d6", "d8", "d10", "d12")[count - 1] if count <= 5 else "d20"


def prof_by_level(level: int) -> int:
    """The proficiency bonus of a character of `level` (5e and Level Up): +2 at levels 1
    to 4, then one more every four levels, at least +2."""
    return max(2, (level + 7) // 4)


_TERM = re.compile(r"\s*([+-])?\s*(\d{1,3}d\d{1,3}|\d{1,3}|@[a-z][a-z.]{0,30})\s*", re.IGNORECASE)


def bonus_terms(text: str, values: Mapping[str, int]) -> tuple[int, tuple[str, ...]] | None:
    """A bonus formula of a sheet (`+2`, `1d4`, `@prof + 1`, `-@dex.mod`) as the number it
    adds and its dice terms (`("+1d4",)`); `values` are the `@` names it may use. None for a
    formula of anything else (a function, a name it does not know, brackets)."""
    number, dice, at = 0, [], 0
    text = text.strip()
    while at < len(text):
        match = _TERM.match(text, at)
        if match is None or match.end() == at or (at and not match.group(1)):
            return None
        sign = -1 if match.group(1) == "-" else 1
        term = match.group(2).lower()
        if term.startswith("@"):
            if term[1:] not in values:
                return None
            number += sign * values[term[1:]]
        elif "d" in term:
            count, sides = term.split("d")
            if int(count or 1) < 1 or int(sides) < 1:
                return None
            dice.append(f"{'-' if sign < 0 else '+'}{int(count or 1)}d{int(sides)}")
        else:
            number += sign * int(term)
        at = match.end()
    return number, tuple(dice)


def check_words(
    number: int,
    dice: tuple[str, ...] = (),
    expertise: int = 0,
    minimum: int = 1,
    extra: str = "",
) -> str:
    """An entry's words: the modifier (`+7`, `+2+1d4`), then `expertise=dN` for A5E's
    count of expertise dice, `min N` for a minimum d20 roll above 1, and any other words."""
    words = [signed(number) + "".join(dice)]
    die = expertise_die(expertise)
    if die:
        words.append(f"expertise={die}")
    if minimum > 1:
        words.append(f"min {minimum}")
    if extra:
        words.append(extra)
    return " ".join(words)


def unique_key(key: str, taken: set[str]) -> str:
    """`key`, or `key-2`, `key-3`, ... when it is taken; the key is added to `taken`."""
    found, n = key, 1
    while found in taken:
        n += 1
        found = f"{key[: MAX_KEY - 4]}-{n}"
    taken.add(found)
    return found


def label_key(name: str, taken: set[str], suffix: str = "") -> str | None:
    """The entry name a sheet's `name` for something gets: its slug (`slug`), which must be
    a label word of requests (a letter first, not a word such as `vs` or a verb: then with
    `suffix`, when given), made unique among `taken`; None when no such word is left."""
    from d20cli.language.vocabulary import KEYWORDS, VERBS

    reserved = {w.lower() for w in (*KEYWORDS, *VERBS)}
    word = slug(name)
    if word in reserved and suffix:
        word = f"{word}-{suffix}"
    if not word or not word[0].isalpha() or word in reserved:
        return None
    return unique_key(word, taken)
