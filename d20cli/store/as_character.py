"""Requests through characters: a macro in the verb's place (`macro_line`, with its
parameters), a character's entries and values merged into the parsed request (`resolve`,
d20cli.language.character_entries), and a party or a contest against other characters
(`read_as`). The characters come from the file (d20cli.store.characters)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from d20cli.errors import D20Error, ParseError, closest
from d20cli.frozen import replace
from d20cli.language.character_entries import Parse, merge_entries, merge_party
from d20cli.language.grammar_checks import NearWordError
from d20cli.language.requests import ContestRequest
from d20cli.store.characters import Character, _language, is_party, load, load_all, party_of

if TYPE_CHECKING:
    from d20cli.language.requests import Request


def macro_line(text: str, name: str | Character) -> str:
    """`text` with a macro in the verb's place replaced by the macro's request; the words
    after it are kept (`sneak dis` -> `check stealth vs 15 adv dis`). A macro is a saved
    line, like a shell alias, so this one step is on the text; a character's entries are
    resolved on the parsed request (`resolve`).

    ParseError, located in `text`, for an unknown character or a word that is neither a
    verb nor a macro."""
    character = load(name) if isinstance(name, str) else name
    verbs, _ = _language()
    head_match = re.search(r"[^\s,]+", text)
    if head_match is None or head_match.group().startswith("#"):
        return text
    head = head_match.group()
    if head.lower() in verbs:
        return text
    macro = character.macro(head)
    if macro is None:
        known = [*character.macros, *sorted(verbs)]
        raise ParseError(
            f"{character.name} has no macro {head!r} and it is not a verb{closest(head, known)}",
            text,
            head_match.start() + 1,
        )
    inner = macro.split("#", 1)[0].strip()
    first = inner.split(None, 1)[0].lower() if inner else ""
    if first not in verbs:
        raise ParseError(
            f"the macro {head!r} of {character.name} must start with a verb, not {macro!r}"
        )
    inner, rest = fill_parameters(inner, text[head_match.end() :].split(), head)
    return f"{inner} {' '.join(rest)}" if rest else inner


#: A macro's parameter: `{dc}` (required) or `{dc=15}` (with a default). A name starts
#: with a letter, so dice groups (`{4d6,3d8}`) and custom faces (`d{0,1,2}`) never match.
PARAMETER = re.compile(r"\{([a-z][\w-]*)(?:=([^{}\s]*))?\}", re.IGNORECASE)
_ARGUMENT = re.compile(r"([a-z][\w-]*)=(\S+)", re.IGNORECASE)
_NUMBER = re.compile(r"[+-]?[0-9]+")


def parameters(macro: str) -> dict[str, str | None]:
    """A macro's parameters in order of first use, each with its default (None: required)."""
    found: dict[str, str | None] = {}
    for match in PARAMETER.finditer(macro):
        name = match.group(1).lower()
        if name not in found or found[name] is None:
            found[name] = match.group(2)
    return found


def fill_parameters(macro: str, words: list[str], called: str) -> tuple[str, list[str]]:
    """The macro's line with its parameters filled, and the words left to add after it.

    The words after a macro's name fill its parameters: `dc=18` by name, a number by
    position (the parameters in the order the macro first uses them), and the other
    words are added to the request (`sneak 18 dis`: dc is 18, then `dis`). A parameter
    left out takes its default; one with no default is an error naming all such."""
    wanted = parameters(macro)
    if not wanted:
        return macro, words
    given: dict[str, str] = {}
    rest: list[str] = []
    free = list(wanted)
    for word in words:
        named = _ARGUMENT.fullmatch(word)
        if named is not None and named.group(1).lower() in wanted:
            key = named.group(1).lower()
            given[key] = named.group(2)
            if key in free:
                free.remove(key)
        elif _NUMBER.fullmatch(word) and free:
            given[free.pop(0)] = word
        else:
            rest.append(word)
    missing = [n for n, default in wanted.items() if n not in given and default is None]
    if missing:
        names = ", ".join(missing)
        example = " ".join(f"{n}=N" for n in missing)
        raise ParseError(f"the macro {called!r} needs {names}: {called} {example}")
    values = {n: given.get(n, default or "") for n, default in wanted.items()}
    out: list[str] = []
    last = 0
    for m in PARAMETER.finditer(macro):
        before, value = macro[last : m.start()], values[m.group(1).lower()]
        if before[-1:] in ("+", "-") and value[:1] in ("+", "-"):  # `1d8+{bonus}`, bonus -1
            sign = "-" if (before[-1] == "-") != (value[0] == "-") else "+"
            before, value = before[:-1] + sign, value[1:]
        out += [before, value]
        last = m.end()
    return "".join([*out, macro[last:]]), rest


class AsRead(NamedTuple):
    """A request read through `--as`: the request, the systems its characters play (none,
    one, or more when a party's members play different ones) and who rolls it (one
    character, or a party's members in order)."""

    request: Request
    systems: tuple[str, ...]
    names: tuple[str, ...]


def read_as(text: str, spec: str, parse: Parse) -> AsRead:
    """`text` through `--as SPEC`: one character (`resolve`) or a party (`party`,
    `aria,bob`: names.merge_party). A contest through one character whose other sides
    name characters (`contest athletics --as aria vs bob`) is rolled by them: each such
    side rolls its character's entry of the first side's label."""
    if not is_party(spec):
        character = load(spec)
        rivals = _rivals(_parse_as(macro_line(text, character), character, parse), character)
        if rivals is None:
            request, system = read_through(text, character, parse)
            return AsRead(request, () if system is None else (system,), (character.name,))
        request, members = rivals
    else:
        members = party_of(spec)
        request = parse(text)
    request = merge_party(request, members, parse)
    systems = tuple(dict.fromkeys(c.system for c in members if c.system))
    return AsRead(request, systems, tuple(c.name for c in members))


def _parse_as(line: str, character: Character, parse: Parse) -> Request:
    """`line` parsed for the character: a label word that looks like a mistyped word of
    the language (`avd`) is the character's entry when it has one of that name."""
    try:
        return parse(line)
    except NearWordError as err:
        entries = {n.lower() for n in character.entry_names()}
        if err.request is None or not all(w.lower() in entries for w in err.words):
            raise
        return err.request  # type: ignore[no-any-return]


def _rivals(request: Request, character: Character) -> tuple[Request, list[Character]] | None:
    """`contest athletics vs bob --as aria`: the contest (as parsed, each side named by the
    first side's label) and who rolls each side; None when no side names a character."""
    if not isinstance(request, ContestRequest) or request.sides[0].name is None:
        return None
    first = request.sides[0].name
    found = {name.lower(): c for name, c in load_all().items()}
    who = [character]
    for side in request.sides[1:]:
        rival = found.get((side.name or "").lower()) if side.modifier is None else None
        if rival is not None and character.lookup(side.name or "", "check") is None:
            who.append(rival)
        else:
            who.append(character)
    if all(c is character for c in who[1:]):
        return None
    sides = tuple(
        side if c is character else replace(side, name=first)
        for side, c in zip(request.sides, who, strict=True)
    )
    return replace(request, sides=sides), who


def read_through(text: str, name: str | Character, parse: Parse) -> tuple[Request, str | None]:
    """The request `text` asks for through the character (a name in the file, or a
    Character), parsed with `parse`, and the system the character plays (None if it
    names none): a macro in the verb's place (`macro_line`), then the entries of its
    label words (d20cli.language.character_entries). ParseError, located, for an unknown character,
    macro or entry."""
    character = load(name) if isinstance(name, str) else name
    line = macro_line(text, character)
    try:
        return merge_entries(_parse_as(line, character, parse), character, parse), character.system
    except D20Error as err:
        if line == text or err.text != line:
            raise
        where = f"in the macro {text.split(None, 1)[0]!r}: "
        raise type(err)(where + err.message, err.text, err.column) from err
