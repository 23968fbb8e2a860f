"""Forms a major peer reads otherwise: what d20cli reads, and the note that says so.

d20cli reads each form of dice notation as most d20 players expect (docs/notation.md,
"Decisions"); where a major peer (Roll20, Foundry VTT, avrae, rpg-dice-roller) reads the
same text as a different number, the roll says so in one note on standard error, naming
that peer and the rewrite that gives its reading (under `--strict`, an error):

- `>` and `<` in a compare point (`5d10>7`, `cs>19`, `r<2`, `{...}>15`) are strict, as in
  avrae, Foundry and rpg-dice-roller; Roll20 reads them as `>=` and `<=`.
- `cs` marks critical dice and keeps the sum, as in Roll20 and rpg-dice-roller; Foundry's
  `cs` counts the dice as successes.
- `d%` rolls 1 to 100, as in Roll20, Foundry and rpg-dice-roller; avrae's is a tens die.
- `k3` keeps the highest 3, as in Roll20, Foundry and rpg-dice-roller; avrae's keeps the
  dice showing 3.

Pure: the parsed request and its text in, the notes out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from d20cli.dice.modifiers import Compare, Crit
from d20cli.dice.tree import Arithmetic, Call, Dice, Expr, Group, Neg, Number, Ref, walk
from d20cli.frozen import fields, is_frozen
from d20cli.language.notes import may_hold
from d20cli.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The nodes of an expression (d20cli.dice.tree.Expr), which hold no modifier of a term.
EXPRESSIONS = (Number, Dice, Neg, Arithmetic, Call, Group, Ref)


class Reading(NamedTuple):
    """A form of the request that a peer reads otherwise: `form` as written, `note` what
    d20cli reads and who reads it otherwise, with the rewrite."""

    form: str
    note: str

    def column(self, text: str) -> int | None:
        """The column (1-based) of the form in `text`: its last word (`>7`, `cs`, `k3`,
        `d%`), where the text holds it."""
        at = text.find(self.form.rsplit(" ", 1)[-1])
        return at + 1 if at >= 0 else None


#: `d%` and a bare `k3` where the request's code is (not in a label or a comment).
_PERCENT = re.compile(r"(?<![a-z])([0-9]*d%)", re.IGNORECASE)
_BARE_K = re.compile(r"(?<=[0-9)}%])k([0-9]+)", re.IGNORECASE)
_LABEL_OR_COMMENT = re.compile(r"\[[^\]]*\]|#.*")
_TENS = "d{0,10,20,30,40,50,60,70,80,90}"


def readings(request: Any, text: str) -> tuple[Reading, ...]:
    """The forms of `request` (parsed from `text`) that a major peer reads otherwise."""
    if not may_hold(text):
        return ()
    found: dict[str, Reading] = {}
    code = _LABEL_OR_COMMENT.sub(lambda m: " " * len(m.group()), text)
    for match in _PERCENT.finditer(code):
        form = match.group(1)
        found.setdefault(
            form,
            Reading(
                form,
                f"'{form}' rolls 1 to 100, as Roll20, Foundry and rpg-dice-roller read it; "
                f"avrae's d% is a tens die (00 to 90): write {_TENS} for that",
            ),
        )
    for match in _BARE_K.finditer(code):
        n = match.group(1)
        found.setdefault(
            f"k{n}",
            Reading(
                f"k{n}",
                f"'k{n}' keeps the highest {n}, as Roll20, Foundry and rpg-dice-roller read it; "
                f"avrae's k{n} keeps the dice showing {n}: write kh{n} to say the highest",
            ),
        )
    for expr in _expressions(request):
        for node, _ in walk(expr):
            if isinstance(node, Dice | Group):
                for reading in _term_readings(node):
                    found.setdefault(reading.form, reading)
    return tuple(found.values())


def _expressions(request: Any) -> Iterator[Expr]:
    """Every expression of a request: a roll's (each part of a line), a check's modifier
    and damage, each group member's and contest side's."""
    parts = [
        request,
        *getattr(request, "parts", ()),
        *getattr(request, "members", ()),
        *getattr(request, "sides", ()),
    ]
    for part in parts:
        for name in ("expr", "modifier", "damage"):
            expr = getattr(part, name, None)
            if expr is not None:
                yield expr


def _term_readings(term: Dice | Group) -> Iterator[Reading]:
    shown = _shown(term)
    for compare in _compares(term):
        if compare.op in (">", "<"):
            v = compare.value
            over, roll20, exact = (
                ("more than", "or more", ">=")
                if compare.op == ">"
                else ("less than", "or less", "<=")
            )
            yield Reading(
                f"{shown} {compare.op}{v}",
                f"'{compare.op}{v}' in '{shown}' means {over} {v}, as avrae, Foundry and "
                f"rpg-dice-roller read it; Roll20 reads it as {v} {roll20}: write {exact}{v} "
                "for that",
            )
    crit = term.crit if isinstance(term, Dice) else None
    if isinstance(crit, Crit) and crit.success is not None:
        yield Reading(
            f"{shown} cs",
            f"'cs' in '{shown}' marks critical dice and keeps the sum, as Roll20 and "
            "rpg-dice-roller read it; Foundry's cs counts the dice as successes: write "
            f"{_pool_form(shown, crit.success)} for a count",
        )


def _shown(term: Dice | Group) -> str:
    """The term as written, without the dice and groups inside it (`5d10>7`)."""
    text = str(term)
    return text if len(text) <= 40 else text[:37] + "..."


def _pool_form(shown: str, success: Compare) -> str:
    """`3d6cs>5` as the pool that counts the same dice: `3d6>5`."""
    head = shown.split("cs", 1)[0] if "cs" in shown else shown
    return f"{head}{success.op}{success.value}"


def _compares(term: Dice | Group) -> Iterator[Compare]:
    """The compare points of a term's own modifiers (not of the terms inside it)."""
    for f in fields(term):
        if not f.name.startswith("_"):
            yield from _within(getattr(term, f.name))


def _within(value: Any) -> Iterator[Compare]:
    """The compare points in a modifier (a term's count, sides or items are expressions of
    their own, which `readings` walks)."""
    if isinstance(value, Compare):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _within(item)
    elif is_frozen(value) and not isinstance(value, EXPRESSIONS):
        for f in fields(value):
            yield from _within(getattr(value, f.name))
