"""The checks the request grammar makes on a whole line, before or after pyparsing reads
it: group and contest sizes, a comma forgotten between group members, and the words of a
pyparsing error (kept apart from grammar.py, which builds the grammar)."""

from __future__ import annotations

import re
from typing import Any

from d20cli.errors import ParseError
from d20cli.language.vocabulary import MAX_PARTS, VS, WORD_DIGITS

_I = re.IGNORECASE

MAX_DIGITS = WORD_DIGITS  # a number in a request (not in its dice) has at most this many digits
MAX_GROUP = MAX_PARTS  # members of one group check
MAX_SIDES = MAX_PARTS  # sides of one contest or opposed check


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


def message(exc: Any, text: str) -> str:
    msg = str(exc.msg)
    rest = text[exc.loc :]
    found = rest.split(None, 1)[0] if rest.strip() else ""
    if msg.startswith("Expected end of text"):
        return f"unexpected {found[:30]!r}" if found else "unexpected end"
    if msg.startswith("Expected "):
        msg = "expected " + msg[len("Expected ") :]
        return f"{msg}, found {found[:30]!r}" if found else f"{msg}, found the end"
    return msg


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
    """Refuse a contest of more than MAX_SIDES sides before parsing it: every `vs` starts
    a side (no other word of a contest is `vs`)."""
    for n, match in enumerate(_VS_WORD.finditer(line), start=2):
        if n > MAX_SIDES:
            rest = line[match.end() :]
            column = match.end() + len(rest) - len(rest.lstrip()) + 1
            what = "a contest" if verb == "contest" else "an opposed check"
            raise ParseError(f"{what} has at most {MAX_SIDES:,} sides", line, column)
