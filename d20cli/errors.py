"""The project's errors and exit statuses.

Every error a user can cause is a `D20Error`: a one-line message, and where known the
text it is about and the column (1-based) of the fault, so the edge (CLI, shell) can
print the text with a caret under the column. The core raises; only the edge prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

from d20cli.visible import visible


def closest(word: str, names: Sequence[str]) -> str:
    """The end of a message about an unknown `word`: "; did you mean X?" with the names
    closest to it, or the names there are (at most 12), or nothing when there are none."""
    import difflib  # only on an error: it costs a millisecond at start-up

    close = difflib.get_close_matches(word.lower(), [n.lower() for n in names], n=3, cutoff=0.5)
    by_low = {n.lower(): n for n in names}
    picked = [by_low[c] for c in close]
    if picked:
        return "; did you mean " + " or ".join(picked) + "?"
    if names:
        shown = ", ".join(list(names)[:12])
        return f" (there are: {shown}{', ...' if len(names) > 12 else ''})"
    return ""


class ExitStatus(IntEnum):
    OK = 0
    FAILED_OUTCOME = 1  # with --exit-status: the roll's outcome was a failure
    BAD_INPUT = 2
    NOT_SAVED = 3  # the roll log could not be written: the rolls it lacks were not shown
    INTERRUPTED = 130


class NotSaved(Exception):
    """The roll log could not write the rows of results about to be shown (a database
    locked past the busy timeout, an I/O error): what shows them is never written, and the
    run stops with NOT_SAVED (the shell says so and goes on). Deliberately not a D20Error,
    which a request's runner reports as bad input and then rolls on."""

    def __init__(self, why: str, count: int) -> None:
        super().__init__(why)
        self.why = why
        self.count = count  # the results rolled whose rows are not in the log

    def __str__(self) -> str:
        shown = "result was" if self.count == 1 else "results were"
        return (
            f"cannot write the roll log ({self.why}): the last {self.count:,} {shown} "
            "not shown; try again, or roll with --no-log"
        )


class D20Error(Exception):
    """A user-facing error: bad input, an impossible request, an unreadable file."""

    def __init__(self, message: str, text: str | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.column = column

    def located(self, text: str, column: int | None) -> D20Error:
        """The same error placed in `text` (used when a part is parsed out of a line)."""
        return type(self)(self.message, text, column)

    @property
    def kind(self) -> str:
        """What kind of error, for programs: "parse", "rules", "dice", "budget", "state"."""
        name = type(self).__name__.removesuffix("Error").lower()
        return name if name and name != "d20" else "error"

    def one_line(self, line: int | None = None) -> str:
        """The message on one line, with where it is if known: `error at column 3: expected
        a number`; reading standard input, `error at line 2, column 3: ...`."""
        where = [f"line {line}"] if line is not None else []
        if self.column is not None:
            where.append(f"column {self.column}")
        if where:
            return f"error at {', '.join(where)}: {self.message}"
        return f"error: {self.message}"

    def caret_lines(self) -> list[str]:
        """The offending text and a caret under the column (empty if there is no text)."""
        if self.text is None or self.column is None:
            return []
        text = self.text.replace("\t", " ").replace("\r", " ").replace("\n", " ")
        if len(text) > 200:  # keep the window around the fault readable
            start = max(0, self.column - 100)
            text = text[start : start + 200]
            col = self.column - start
        else:
            col = self.column
        # control characters shown visibly (d20cli.visible), the caret still under its column
        before = len(visible(text[: max(col, 1) - 1]))
        return [f"  {visible(text)}", "  " + " " * before + "^"]


class ParseError(D20Error):
    """The words do not form a request."""


class DiceError(D20Error):
    """A dice expression that cannot be rolled: bad sides, a never-ending explosion, ..."""


class BudgetError(D20Error):
    """A request that would roll more dice than the budget allows."""


class RulesError(D20Error):
    """A request the chosen system does not offer (a verb or a word)."""


class StateError(D20Error):
    """Saved state that cannot be read or written."""


class NotationWarning(UserWarning):
    """A form of dice notation a major peer reads as another number (`5d10>7`: Roll20
    counts 7 or more, as `>=7`): rolled as d20cli reads it, and said with this warning
    naming that peer and the rewrite (d20cli.language.peer_readings). With `strict=True`
    it is a ParseError instead; `warnings.simplefilter("error", NotationWarning)` makes it
    an exception too."""


# --- digits ------------------------------------------------------------------------------

ASCII_DIGITS = "0123456789"


def foreign_digit(text: str) -> int | None:
    """The index of the first character of `text` that is a number but not one of the
    ASCII digits 0-9 (Arabic-Indic ٣, full-width ５, superscript ², ½), or None.

    d20 reads numbers written in 0-9 only: Python's `int()` and a regex digit class take any
    Unicode digit, so without this `roll ١d٦` rolled 1d6 while `--dice ²` crashed."""
    if text.isascii():
        return None
    return next((i for i, ch in enumerate(text) if ch.isnumeric() and not ch.isascii()), None)


def not_a_digit(ch: str, where: str = "") -> str:
    """The message for a number character that is not 0-9 (`where`: " at column 3 of ...")."""
    return f"{ch!r} (U+{ord(ch):04X}){where} is not a digit: numbers are written with 0-9"
