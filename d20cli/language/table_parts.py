"""The parts of a table entry's text: literal text, and the `{...}` rolls in it.

    "{1d4} rats"                 -> roll `1d4`, text " rats"
    "{table:treasure} and more"  -> table `treasure`, text " and more"
    "a trap: {save +3 vs 14}"    -> text "a trap: ", request `save +3 vs 14`

What a brace holds is told apart without parsing it: `table:NAME` is a reference; a
first word that is a verb (d20cli.language.vocabulary) makes a request, which the
table's system resolves; anything else is a dice expression. Braces inside a roll nest
(`{{4d6,3d8}kh1}` rolls a group); there is no literal brace. The rolls are parsed only
when needed (`parsed`): splitting is cheap, so a large file is checked for its shape and
its references without building the grammar.

The graph of references is checked in d20cli.language.tables (`graph_problem`).
"""

from __future__ import annotations

import re

from d20cli.bounded import memo
from d20cli.errors import D20Error, ParseError
from d20cli.frozen import frozen
from d20cli.language.vocabulary import VERBS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.tree import Expr
    from d20cli.language.requests import Request

MAX_TABLE_PARTS = 20  # rolls in one entry's text
TABLE_PREFIX = "table:"
_TABLE_REF = re.compile(r"table:\s*([A-Za-z0-9_][A-Za-z0-9_.-]{0,63})\s*", re.IGNORECASE)
#: Verbs a table entry may not hold: they keep state or need players.
NO_TABLE_VERBS = frozenset({"fortune", "scores"})


@frozen
class Part:
    """One piece of an entry's text. kind: "text" (body is the text), "dice" (a dice
    expression), "table" (body is a table's name), "request" (verb and words)."""

    kind: str
    body: str


def split_parts(text: str) -> tuple[Part, ...]:
    """The parts of an entry's text (ParseError for an unmatched brace or too many rolls)."""
    parts: list[Part] = []
    at = 0
    rolls = 0
    while True:
        start = text.find("{", at)
        close = text.find("}", at)
        if close >= 0 and (start < 0 or close < start):
            raise ParseError(f"a '}}' with no '{{' at character {close + 1}")
        if start < 0:
            break
        end = _closing(text, start)
        if end is None:
            raise ParseError(f"the '{{' at character {start + 1} has no '}}'")
        if text[at:start]:
            parts.append(Part("text", text[at:start]))
        parts.append(_roll(text[start + 1 : end], start))
        rolls += 1
        if rolls > MAX_TABLE_PARTS:
            raise ParseError(f"more than {MAX_TABLE_PARTS} rolls in one entry")
        at = end + 1
    if text[at:]:
        parts.append(Part("text", text[at:]))
    return tuple(parts)


def _closing(text: str, start: int) -> int | None:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _roll(body: str, start: int) -> Part:
    inner = body.strip()
    if not inner:
        raise ParseError(f"an empty '{{}}' at character {start + 1}")
    if inner.lower().startswith(TABLE_PREFIX):
        ref = _TABLE_REF.fullmatch(inner)
        if ref is None:
            raise ParseError(
                f"{{{inner[:40]}}}: a table's name is letters, digits, '_', '-' and '.'"
            )
        return Part("table", ref.group(1))
    verb = re.split(r"[\s,]", inner, maxsplit=1)[0].lower()
    if verb in VERBS:
        if verb in NO_TABLE_VERBS:
            raise ParseError(f"{{{inner[:40]}}}: {verb} cannot be rolled in a table")
        return Part("request", inner)
    return Part("dice", inner)


def parsed(part: Part) -> Expr | Request:
    """A roll's parsed form: a dice expression or a request (ParseError naming it)."""
    return _parsed(part.kind, part.body)


@memo(
    1024,
    holds="a table entry's roll (`{1d4+2}`) → its parsed form",
    buys="parsed once: 0.1 µs instead of 501 µs",
)
def _parsed(kind: str, body: str) -> Expr | Request:
    try:
        if kind == "dice":
            from d20cli.language.dice_grammar import parse_expression

            return parse_expression(body)
        if kind == "request":
            from d20cli.language.grammar import parse_request

            return parse_request(body)
    except D20Error as err:
        raise ParseError(f"{{{body[:60]}}}: {err.message}") from None
    raise ParseError(f"{{{body[:60]}}} is not a roll")
