"""The checks the request grammar makes on a whole line, before or after pyparsing reads
it: group and contest sizes, a comma forgotten between group members, and the words of a
pyparsing error (kept apart from grammar.py, which builds the grammar): what pyparsing
expects, named in words even where an element has no name of its own."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from d20cli.errors import ParseError
from d20cli.language.notes import unvalued_words
from d20cli.language.vocabulary import (
    ADV_WORDS,
    CHECK_WORDS,
    CIRCUMSTANCE_WORDS,
    CRIT_DMG,
    DC_WORDS,
    DIS_WORDS,
    DMG,
    EXPERTISE,
    FLAG_WORDS,
    GROUP_RULES,
    HOUSE_WORDS,
    MAX_PARTS,
    RANK_WORDS,
    TARGET_PREFIXES,
    VS,
    WORD_DIGITS,
)

_I = re.IGNORECASE

MAX_WORD_DIGITS = (
    WORD_DIGITS  # a number in a request (not in its dice) has at most this many digits
)
MAX_GROUP = MAX_PARTS  # members of one group check
MAX_CONTEST_SIDES = MAX_PARTS  # sides of one contest or opposed check


# A signed number right after a number, with a space between and none after the sign:
# `+3 +5` in a group is two members with the comma forgotten, never one member at +8.
_MISSING_COMMA = re.compile(r"([0-9)\]])\s+([+-])[0-9(d]", _I)


def check_member_commas(text: str) -> None:
    found = _MISSING_COMMA.search(text)
    if found is not None:
        start = found.start(2)
        left = text[: found.start(1) + 1].split(",")[-1].split()[-1]
        right = text[start:].split()[0].split(",")[0]
        raise ParseError(
            f"a comma is missing between group members: {left}, {right} "
            f"(or {left}{right} for one member)",
            text,
            start + 1,
        )


def message(exc: Any, text: str, root: Any = None) -> str:
    """pyparsing's error on `text` in words (`root`: the grammar parsed)."""
    msg = str(exc.msg)
    rest = text[exc.loc :]
    found = rest.split(None, 1)[0] if rest.strip() else ""
    typed = _TARGET_TYPED.match(rest)
    if msg.startswith("Expected end of text"):
        if typed is not None and not _VS_WORD.search(text[: exc.loc]):  # `check +5 DC 15`
            return f"unexpected {found[:30]!r}: a target follows {VS!r}: {_target(typed)}"
        hint = _hint(text[: exc.loc], found)
        return f"unexpected {found[:30]!r}{hint}" if found else "unexpected end"
    if msg.startswith("Expected "):
        msg = "expected " + expected(exc, root)
        if typed is not None and typed[2] and not typed[0][2:3].isspace():  # `vs dc15`
            msg += f" ({_target(typed)}, with a space)"
        return f"{msg}, found {found[:30]!r}" if found else f"{msg}, found the end"
    return plain(msg)


#: Words other roller write where d20cli has its own (`damage 1d8`: `dmg 1d8`).
_SAID_OTHERWISE = {"damage": "dmg", "dam": "dmg"}
_TIMES = re.compile(r"x?([0-9]+)x?", _I)


def _hint(before: str, found: str) -> str:
    """What an unexpected word may have meant: a repeat (`3x` after the verb: `-n 3`), or a
    word another roller writes (`damage 1d8`: `dmg 1d8`)."""
    times = _TIMES.fullmatch(found)
    if times is not None and found.lower() != times.group(1):
        n = times.group(1)
        return f": to roll it {n} times, add -n {n}"
    last = before.split()[-1].lower() if before.split() else ""
    ours = _SAID_OTHERWISE.get(last)
    if ours is not None:
        return f": {last!r} is written {ours} here ({ours} {found[:20]})"
    return ""


def check_group_size(line: str) -> None:
    """Refuse a group of more than MAX_GROUP members before parsing it (parsing thousands
    of members alone takes a second): count the commas outside brackets."""
    if line.count(",") < MAX_GROUP:
        return
    depth = members = 0
    for i, ch in enumerate(line):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth <= 0:
            members += 1
            if members == MAX_GROUP:
                raise ParseError(f"a group check has at most {MAX_GROUP:,} members", line, i + 2)


_VS_WORD = re.compile(rf"(?<![\w-]){VS}(?![\w-])", _I)


def check_side_count(line: str, verb: str) -> None:
    """Refuse a contest of more than MAX_CONTEST_SIDES sides before parsing it: every `vs` starts
    a side (no other word of a contest is `vs`)."""
    for n, match in enumerate(_VS_WORD.finditer(line), start=2):
        if n > MAX_CONTEST_SIDES:
            rest = line[match.end() :]
            column = match.end() + len(rest) - len(rest.lstrip()) + 1
            what = "a contest" if verb == "contest" else "an opposed check"
            raise ParseError(f"{what} has at most {MAX_CONTEST_SIDES:,} sides", line, column)


#: A target typed where it cannot stand: `DC 15` without `vs`, `dc15` without a space.
_TARGET_TYPED = re.compile(r"(dc|ac)[ \t]*([0-9]+)?(?![\w-])", _I)


def roll_target(text: str, loc: int) -> str | None:
    """A roll's target written as a check's (`DC 15`, `vs DC 15`) at `loc` of `text`: the
    way a roll writes it, `vs 15`, for the error; None when no word starts so there."""
    typed = _TARGET_TYPED.match(text, loc)
    if typed is None or not text[:loc][-1:].isspace():
        return None
    return f"a roll's target has no {typed[1].upper()}: {VS} {typed[2] or 15}"


def _target(typed: re.Match[str]) -> str:
    return f"{VS} {typed[1].upper()} {typed[2] or 15}"


# --- pyparsing's names in words ----------------------------------------------------------

#: What pyparsing writes for an element nobody named: `{a b}`, `[a]...`, `Suppress:(...)`,
#: `<SP><TAB>`, `Re:(...)`, `W:(...)`. A name a person reads never holds these.
INTERNAL = re.compile(
    r"(?<!')[\[{}](?!')|\]\.\.\.|Suppress|Combine|Forward|Group:|FollowedBy|NotAny|Empty|<SP>|<TAB>"
    r"|Re:\(|W:\(|Literal|ZeroOrMore|OneOrMore|Opt\b|\.\.\.\Z"
)


#: How pyparsing's own messages other than `Expected X` begin (a lookahead's, a stop's).
_PYPARSING_SAYS = ("Found unwanted token", "No match found for", "not preceded by", "Unmatchable")


def plain(msg: str) -> str:
    """`msg` (the grammar's own words, which may quote the request: `4d{1,2,3}u cannot
    ...`), unless it is one of pyparsing's: then words that say so."""
    return "these words do not read here" if msg.startswith(_PYPARSING_SAYS) else msg


def expected(exc: Any, root: Any = None) -> str:
    """What pyparsing's `Expected X` expects, in words. X is the name of the element
    that failed: a name given with set_name, or pyparsing's own picture of an unnamed
    one (`{{Suppress:('=') - a number} | ...}`). That element is looked for under the one
    the exception names and under `root` (the grammar parsed), and named by the first
    thing it reads (`'=' or a space`)."""
    said = str(exc.msg).removeprefix("Expected ")
    if not INTERNAL.search(said):
        return said
    for top in (getattr(exc, "parser_element", None), root):
        for element in elements(top) if top is not None else ():
            if str(element) == said:
                return in_words(element)
    return "a word that fits here"


def _children(element: Any) -> list[Any]:
    inner = getattr(element, "expr", None)
    return [*(getattr(element, "exprs", None) or ()), *([inner] if inner is not None else [])]


def elements(root: Any) -> Iterator[Any]:
    """`root` and every element under it, each once."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        element = todo.pop()
        if id(element) not in seen:
            seen.add(id(element))
            yield element
            todo.extend(_children(element))


def in_words(element: Any, seen: frozenset[int] = frozenset()) -> str:
    """An element named by what it reads first: its own name if a person reads it, the
    first piece of a sequence, the alternatives of a choice ("a, b or c")."""
    import pyparsing as pp

    name = element.customName
    if name and not INTERNAL.search(name):
        return str(name)
    if id(element) in seen:
        return "a word"
    seen |= {id(element)}
    if isinstance(element, pp.And):
        firsts = (in_words(e, seen) for e in element.exprs if not isinstance(e, pp.Empty))
        return next((w for w in firsts if w), "a word")
    if isinstance(element, pp.MatchFirst | pp.Or | pp.Each):
        choices: list[str] = []
        for e in element.exprs:
            for word in re.split(r", | or ", in_words(e, seen)):
                if word and word not in choices:
                    choices.append(word)
        if len(choices) > 1:
            return ", ".join(choices[:-1]) + " or " + choices[-1]
        return "".join(choices) or "a word"
    if isinstance(element, pp.White):
        return "a space"
    if isinstance(element, pp.Token) and hasattr(element, "match"):
        return f"'{getattr(element, 'returnString', None) or element.match}'"
    if isinstance(element, pp.Regex):
        return _regex_in_words(str(element.pattern))
    if isinstance(element, pp.ParseElementEnhance):
        return in_words(element.expr, seen) if element.expr is not None else "a word"
    return "a word"


def _regex_in_words(pattern: str) -> str:
    """A pattern nobody named, in words: its words (`crit-dmg(?![\\w-])`: 'crit-dmg'), its
    characters (`[+-]`: '+' or '-'), a number, a comment or a word."""
    pattern = re.sub(r"\(\?<?[!=][^)]*\)", "", pattern)  # lookarounds read nothing
    words = pattern.split("|")
    if all(re.fullmatch(r"[\w!=<>-]+", w) for w in words):
        return " or ".join(f"'{w}'" for w in words)
    if re.fullmatch(r"\[[^\w\]]+\]", pattern):
        return " or ".join(f"'{ch}'" for ch in pattern[1:-1])
    if re.fullmatch(r"(\\d|\[0-9\])\+", pattern):
        return "a number"
    if pattern.startswith("#"):
        return "'#' and a comment"
    return "a word"


#: The words a mistyped label may be near (issue 33): the words of the d20 verbs. Not the
#: words that are keywords only in their place (the named defenses, after `vs`; the
#: fortune actions, after `fortune`), which stay usable as labels elsewhere.
NEAR_WORDS: tuple[str, ...] = (
    VS,
    *ADV_WORDS,
    *DIS_WORDS,
    EXPERTISE,
    DMG,
    *HOUSE_WORDS,
    CRIT_DMG,
    *FLAG_WORDS,
    *TARGET_PREFIXES,
    *RANK_WORDS,
    *DC_WORDS,
    *CIRCUMSTANCE_WORDS,
    *GROUP_RULES,
    *(word.spellings[0] for word in CHECK_WORDS if word.values),
)


_KNOWN = frozenset(word.lower() for word in NEAR_WORDS)


def _distance(a: str, b: str) -> int:
    """The edit distance of two words, a swap of neighbouring letters counted as one."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            best = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                best = min(best, rows[-2][j - 2] + 1)
            row.append(best)
        rows.append(row)
    return rows[-1][-1]


def _near(word: str, known: str) -> bool:
    """A typo of `known`: one swap, extra or missing letter of a short word (never a letter
    changed: `wis` is not `dis`), one edit of a word of 5 to 7 letters, two of a longer."""
    if abs(len(word) - len(known)) > 2 or word == known:
        return False
    distance = _distance(word, known)
    if len(known) <= 4:
        swapped = len(word) == len(known) and sorted(word) == sorted(known)
        return distance == 1 and (swapped or len(word) > len(known) or len(known) == 4)
    return distance <= (1 if len(known) <= 7 else 2)


def near_words(word: str) -> list[str]:
    """The words of the request language that `word` (a label as typed, with what follows
    its `=`, if anything) looks like a typo of: `advantge` -> advantage, `avd` -> adv,
    `expertis=d6` -> expertise=d6. Words of fewer than 3 letters are nobody's typo."""
    head, equals, value = word.lower().partition("=")
    if len(head) < 3:
        return []
    found = [known for known in NEAR_WORDS if _near(head, known)]
    found.sort(key=lambda known: _distance(head, known))
    return [known + equals + value for known in found[:2]]


def near_word_message(word: str, near: list[str]) -> str:
    """What an unknown word close to a known one is told (a label is written [word])."""
    head = word.split("=", 1)[0]
    return (
        f"unknown word {word[:30]!r}; did you mean {' or '.join(near)}? "
        f"(a label is written [{head[:30]}])"
    )


class NearWordError(ParseError):
    """A label word that looks like a mistyped word of the language (`check advantge +5`):
    "did you mean". It carries the request as read (`request`, the words as labels) and
    those words (`words`), so that a character that has an entry of that name may roll
    it (d20cli.store.as_character)."""

    def __init__(
        self,
        message: str,
        text: str | None = None,
        column: int | None = None,
        request: Any = None,
        words: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, text, column)
        self.request = request
        self.words = words

    @property
    def kind(self) -> str:
        return "parse"


def check_labels(request: Any, text: str) -> None:
    """NearWordError for the first label word of the request (or of its members and
    sides) typed bare and close to a word of the language; a label in brackets or quotes
    is a label whatever it is."""
    parts = [request, *getattr(request, "members", ()), *getattr(request, "sides", ())]
    found: list[tuple[int, str, list[str]]] = []
    for part in parts:
        name = getattr(part, "name", None)
        column = dict(getattr(part, "columns", ())).get("label")
        if name is None or column is None or text[column - 1 : column] in "[\"'":
            continue
        times = _TIMES.fullmatch(name)
        if times is not None and name.lower().startswith("x"):  # `check +5 vs 15 x3`
            n = times.group(1)
            raise ParseError(
                f"{name[:12]!r} does not repeat a roll here: to roll it {n} times, add -n {n}",
                text,
                column,
            )
        if name.lower() in _KNOWN:  # a word of the language where it does not go
            raise NearWordError(
                f"{name[:30]!r} does not go here (a label is written [{name[:30]}])",
                text,
                column,
                request,
                (name,),
            )
        near = near_words(name)
        if near:
            found.append((column, name, near))
    if found:
        column, name, near = min(found)
        words = tuple(dict.fromkeys(w for _, w, _ in found))
        raise NearWordError(near_word_message(name, near), text, column, request, words)


def check_valued(request: Any, text: str, why: str, how: str = "type its modifier (+N)") -> None:
    """ParseError, under the word, for the first label word with no value (`unvalued_words`):
    what `--strict` (`why`) makes of the note a roll gives otherwise."""
    for word, column in unvalued_words(request):
        raise ParseError(f"{word!r} has no value here ({why}); {how}", text, column)
