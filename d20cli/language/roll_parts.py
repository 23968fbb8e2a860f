"""Roll lines of several rolls: `roll 1d20+5; 2d6+3` (one result each) and inline rolls in
text, `roll I hit for [[1d8+3]] and [[1d6]] fire` (one result: the text with each roll
filled in). Each part is an ordinary roll (`dice_grammar.parse_roll`, `parse_expression`);
an error in a part is placed in the whole line, at its column there.

Decisions: a `;` inside a `[label]` or after `#` (a comment) does not split the line;
each part may have its own repeat, adv/dis, target and comment (`roll 1d20+5 adv vs 15;
2d6+3`); an empty part is an error. Inline rolls take dice expressions only (no repeat,
adv or target); a line with `[[` is read as text with inline rolls. At most MAX_ROLL_PARTS
parts.
"""

from __future__ import annotations

import re

from d20cli.errors import ParseError
from d20cli.language.dice_grammar import code_chars, parse_expression, parse_roll
from d20cli.language.requests import RollRequest

MAX_ROLL_PARTS = 100
_VERB = re.compile(r"\s*roll(?![a-z0-9])\s*", re.IGNORECASE)


def parse_roll_line(line: str) -> RollRequest:
    """`roll ...` with `;` parts or `[[...]]` inline rolls, or a plain roll line."""
    verb = _VERB.match(line)
    body = verb.end() if verb else 0
    if "[[" in line:
        return _inline(line, body)
    cuts = _semicolons(line, body)
    if not cuts:
        return parse_roll(line)
    if len(cuts) >= MAX_ROLL_PARTS:
        raise ParseError(
            f"more than {MAX_ROLL_PARTS} rolls on one line", line, cuts[MAX_ROLL_PARTS - 1] + 1
        )
    parts = []
    for start, end in zip([body, *(c + 1 for c in cuts)], [*cuts, len(line)], strict=True):
        segment = line[start:end]
        if not segment.strip():
            where = "before" if end < len(line) else "after"
            at = end if where == "before" else start - 1
            raise ParseError(f"nothing to roll {where} ';'", line, at + 1)
        try:
            part = parse_roll("roll " + segment)
        except ParseError as err:
            column = start + max((err.column or 1) - 5, 1)
            raise ParseError(err.message, line, column) from None
        parts.append(_retitled(part, "roll " + segment.strip()))
    return RollRequest(text=line, expr=parts[0].expr, parts=tuple(parts))


def _retitled(part: RollRequest, text: str) -> RollRequest:
    return RollRequest(
        text=text,
        expr=part.expr,
        repeat=part.repeat,
        adv=part.adv,
        comment=part.comment,
        target=part.target,
    )


def _semicolons(line: str, start: int) -> list[int]:
    """Where `;` splits the line: not inside a `[label]`, not in a `# comment`."""
    return [i for i, ch in code_chars(line, start) if ch == ";"]


def _inline(line: str, body: int) -> RollRequest:
    """`I hit for [[1d8+3]] and [[1d6]] fire`: the text pieces and a roll for each `[[...]]`
    (brackets of a label inside it, `[[1d8[fire]]]`, are matched)."""
    pieces: list[str] = []
    parts: list[RollRequest] = []
    at = body
    while True:
        open_at = line.find("[[", at)
        if open_at < 0:
            break
        if len(parts) >= MAX_ROLL_PARTS:
            raise ParseError(f"more than {MAX_ROLL_PARTS} inline rolls", line, open_at + 1)
        close = _closing(line, open_at + 2)
        if close is None:
            raise ParseError("an inline roll '[[' needs its ']]'", line, open_at + 1)
        inner = line[open_at + 2 : close]
        try:
            expr = parse_expression(inner)
        except ParseError as err:
            raise ParseError(err.message, line, open_at + 2 + (err.column or 1)) from None
        pieces.append(line[at:open_at])
        parts.append(RollRequest(text="roll " + inner.strip(), expr=expr))
        at = close + 2
    pieces.append(line[at:])
    return RollRequest(text=line, expr=parts[0].expr, parts=tuple(parts), template=tuple(pieces))


def _closing(line: str, start: int) -> int | None:
    """The index of the `]]` that closes an inline roll whose text starts at `start`."""
    depth = 0
    for i in range(start, len(line)):
        ch = line[i]
        if ch == "[":
            depth += 1
        elif ch == "]":
            if depth:
                depth -= 1
            elif line.startswith("]]", i):
                return i
    return None
