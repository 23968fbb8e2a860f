"""A character's entries, resolved on the parsed request.

`check stealth vs 15 --as aria` is parsed first: the grammar reads `stealth` as the label
of the check and no modifier. Then `resolve_names` looks the label up in the character
(`Entries`: d20cli.store.characters.Character is one) and merges the entry's words
(`+7 expertise=d6`), parsed as the same verb's words, into the request:

- only a label with no modifier, rank or score of its own is looked up (a typed modifier
  wins: `check stealth +2 vs 15` keeps +2, and `check goblin +3` needs no entry);
- words that count (adv, dis, reliable, unreliable) add up and lists (expertise grants,
  circumstances) are joined, the entry's first, as if its words stood after the label;
- a word that holds one value (a target, dmg, crit, min, crit-dmg, lucky, fortune) keeps
  the request's value when both give one: the request beats the character;
- after a check-like verb, each group member and each side of a contest resolve the same
  way (members and sides look in the character's `checks`, see Character.lookup).

The resolved request's `text` is the line as typed with each entry's words shown after
its label (`check stealth +7 expertise=d6 vs 15`), and its columns point into that text,
so the output, the roll log and an error's caret show what was rolled. The meaning never
comes from that text: it is the merge above (tests check that parsing the shown text
gives the same request wherever the two do not both give a one-value word).

Pure: no I/O. The parse function is the caller's (the edge passes its cached parser).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from typing import Any, Protocol

from d20cli.errors import D20Error, ParseError, closest
from d20cli.language.requests import CheckRequest, ContestRequest, GroupRequest, Request

Parse = Callable[[str], Request]

#: Fields that count how often a word was given: the entry's and the request's add up.
_COUNTS = ("adv", "dis", "reliable", "unreliable")
#: Fields that list words in order: the entry's come first (its words stand first).
_LISTS = ("expertise", "circumstances")
#: Fields the merge does not take from an entry.
_OWN = frozenset(("verb", "text", "name", "repeat", "columns", "word_kinds"))
#: What a typed value of its own is: then the label is not looked up.
_VALUES = ("modifier", "rank", "score")


class Entries(Protocol):
    """What resolving needs of a character: its name and its entries by label word."""

    @property
    def name(self) -> str: ...

    def lookup(self, word: str, verb: str) -> str | None: ...

    def entry_names(self) -> list[str]: ...


class _Inserts:
    """The entry words shown in the text: where each goes and how columns move."""

    def __init__(self) -> None:
        self.at: list[tuple[int, str]] = []  # (0-based offset after the label, " words")

    def add(self, offset: int, words: str) -> None:
        self.at.append((offset, " " + words))

    def shift(self, column: int) -> int:
        """The column (1-based) in the shown text of a word typed at `column`."""
        return column + sum(len(w) for at, w in self.at if at < column)

    def moved(self, offset: int) -> int:
        """Where 0-based `offset` of the typed text is in the shown text."""
        return offset + sum(len(w) for at, w in self.at if at < offset)

    def text(self, typed: str) -> str:
        out, last = [], 0
        for at, words in sorted(self.at):
            out += [typed[last:at], words]
            last = at
        return "".join([*out, typed[last:]])


def resolve_names(request: Request, entries: Entries, parse: Parse) -> Request:
    """`request` with its label words resolved through `entries` (see the module)."""
    if isinstance(request, CheckRequest):
        verb = request.verb
        sides: Sequence[CheckRequest] = (request,)
    elif isinstance(request, GroupRequest):
        verb, sides = "check", request.members
    elif isinstance(request, ContestRequest):
        verb, sides = "check", request.sides
    else:
        return request
    inserts = _Inserts()
    found: list[tuple[CheckRequest, CheckRequest | None, int]] = []
    for side in sides:
        entry = _entry_of(side, verb, entries, parse)
        offset = 0
        if entry is not None:
            label = side.column("label") or 1
            offset = label - 1 + len(side.name or "")
            inserts.add(offset, entry.text.split(None, 1)[1])
        found.append((side, entry, offset))
    if not inserts.at:
        return request
    text = inserts.text(request.text)
    merged = tuple(_merge(side, entry, offset, inserts, text) for side, entry, offset in found)
    if isinstance(request, CheckRequest):
        return merged[0]
    columns = tuple((kind, inserts.shift(col)) for kind, col in request.columns)
    if isinstance(request, GroupRequest):
        return replace(request, text=text, members=merged, columns=columns)
    return replace(request, text=text, sides=merged, columns=columns)


def _entry_of(side: CheckRequest, verb: str, entries: Entries, parse: Parse) -> CheckRequest | None:
    """The parsed words of the entry `side`'s label names (None: nothing to look up)."""
    word = side.name
    if word is None or any(getattr(side, f) is not None for f in _VALUES):
        return None
    words = entries.lookup(word, verb)
    if words is None:
        raise ParseError(
            f"{entries.name} has no entry {word!r}{closest(word, entries.entry_names())}",
            side.text,
            side.column("label"),
        )
    words = " ".join(words.split("#", 1)[0].split())
    where = f"{entries.name}'s entry {word!r} ({words!r})"
    if not words:
        raise ParseError(f"{where} holds no words", side.text, side.column("label"))
    try:
        entry = parse(f"{verb} {words}")
    except D20Error as err:
        raise ParseError(f"in {where}: {err.message}", side.text, side.column("label")) from err
    if not isinstance(entry, CheckRequest) or entry.name is not None or entry.repeat != 1:
        raise ParseError(
            f"{where} must be the words of a {verb} (a modifier and options), not a label",
            side.text,
            side.column("label"),
        )
    return entry


def _merge(
    side: CheckRequest, entry: CheckRequest | None, offset: int, inserts: _Inserts, text: str
) -> CheckRequest:
    columns = {kind: inserts.shift(col) for kind, col in side.columns}
    if entry is None:
        return replace(side, text=text, columns=tuple(columns.items()))
    changes: dict[str, Any] = {}
    for f in fields(CheckRequest):
        if f.name in _OWN or not f.init:
            continue
        mine, theirs = getattr(side, f.name), getattr(entry, f.name)
        if f.name in _COUNTS or f.name in _LISTS:
            changes[f.name] = theirs + mine
        elif mine in (None, False) and theirs not in (None, False):
            changes[f.name] = theirs
    # the entry's words stand after the label: `verb ` is where they start in its text
    moved = inserts.moved(offset) - len(entry.verb)
    for kind, col in entry.columns:
        if kind != "verb" and (kind not in columns or col + moved < columns[kind]):
            columns[kind] = col + moved
    order = [kind for kind, _ in sorted(columns.items(), key=lambda kc: kc[1])]
    return replace(
        side, text=text, columns=tuple((kind, columns[kind]) for kind in order), **changes
    )
