"""The options every request takes, parsed from words anywhere in a line.

One table (`OPTIONS`) names every option; the command line, lines on standard input and
lines in the shell all go through `split_options`, and the typer commands are checked
against the same table by a test. Negative numbers and signed modifiers (`-1`, `-2+1d4`)
are words, never options.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from d20cli.dice.roller import DEFAULT_BUDGET, DEFAULT_WORK
from d20cli.errors import ASCII_DIGITS, ParseError, foreign_digit, not_a_digit
from d20cli.store.files import env_flag


@dataclass(frozen=True)
class Options:
    system: str | None = None  # None: D20_SYSTEM, else levelup
    json: bool = False
    seed: int | None = None
    dice: tuple[int, ...] | None = None
    repeat: int = 1
    quiet: bool = False
    no_color: bool = False
    summary: bool = False
    exit_status: bool = False
    budget: int | None = None  # None: D20_BUDGET, else 1,000,000
    odds: bool = False
    as_: str | None = None
    no_log: bool = False
    players: int | None = None
    boon: bool = False
    simulate: int | None = None
    csv: bool = False
    totals: bool = False
    work: int | None = None  # None: D20_WORK, else 20,000,000

    def merged(self, other: Options) -> Options:
        """These options with every field that `other` sets (differs from the default) applied."""
        if other is NO_OPTIONS or other == NO_OPTIONS:
            return self
        default = NO_OPTIONS
        changes = {
            f.name: getattr(other, f.name)
            for f in fields(Options)
            if getattr(other, f.name) != getattr(default, f.name)
        }
        return replace(self, **changes)

    def logging(self) -> bool:
        """Whether rolls go to the roll log (not with --no-log or D20_NO_LOG)."""
        return not (self.no_log or env_flag("D20_NO_LOG"))

    def system_id(self) -> str:
        return self.system or os.environ.get("D20_SYSTEM", "").strip() or "levelup"

    def dice_budget(self) -> int:
        if self.budget is not None:
            return self.budget
        return _from_environment("D20_BUDGET", MAX_BUDGET, DEFAULT_BUDGET)

    def work_budget(self) -> int:
        """The dice one command may roll over all its runs (`--work`, D20_WORK)."""
        if self.work is not None:
            return self.work
        return _from_environment("D20_WORK", MAX_WORK, DEFAULT_WORK)


def _from_environment(name: str, most: int, default: int) -> int:
    env = os.environ.get(name, "").strip()
    if not env:
        return default
    value = whole_number(name, env.replace(",", ""), len(str(most)))
    if isinstance(value, str) and value == "not a number":
        raise ParseError(f"{name} must be a whole number, not {env[:40]!r}")
    if isinstance(value, str) or not 1 <= value <= most:
        raise ParseError(f"{name} must be a number from 1 to {most:,}")
    return value


NO_OPTIONS = Options()


def check_digits(name: str, text: str) -> None:
    """ParseError for a digit in the value that is not 0-9, with its column in the value."""
    at = foreign_digit(text)
    if at is not None:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ParseError(f"{name}: {not_a_digit(text[at], f' at column {at + 1} of {shown!r}')}")


MAX_OPTION_DIGITS = 100  # digits in an option's number (a --seed may be long)
MAX_FACE_DIGITS = 7  # a die has at most 1,000,000 sides


def whole_number(name: str, text: str, max_digits: int) -> int | str:
    """`text` as a whole number written in ASCII digits (a sign, and `_` between digits,
    allowed), else what is wrong with it: "not a number" or "N digits" (more than
    `max_digits`: int() is not asked to read 5,000 of them). ParseError, naming the
    character and its column, for a digit that is not 0-9 (int() takes any Unicode digit:
    `--seed ٣` was 3 and `--dice ²` a traceback)."""
    check_digits(name, text)
    body = text.strip().lstrip("+-").replace("_", "")
    if not body or body.strip(ASCII_DIGITS):
        return "not a number"
    if len(body) > max_digits:
        return f"{len(body):,} digits"
    try:
        return int(text)
    except ValueError:  # a misplaced sign or `_`
        return "not a number"


def _int(lo: int, hi: int | None = None) -> Callable[[str, str], int]:
    def parse(name: str, text: str) -> int:
        bound = f"from {lo:,} to {hi:,}" if hi is not None else f"of at least {lo:,}"
        value = whole_number(name, text, MAX_OPTION_DIGITS)
        if value == "not a number":
            raise ParseError(f"{name} takes a whole number, not {text[:40]!r}")
        if isinstance(value, str):
            raise ParseError(f"{name} takes a number {bound}, not one of {value}")
        if value < lo or (hi is not None and value > hi):
            shown = f"{value:,}" if len(text) <= 40 else f"{text[:40]}..."
            raise ParseError(f"{name} takes a number {bound}, not {shown}")
        return value

    return parse


def _faces(name: str, text: str) -> tuple[int, ...]:
    parts = [p for p in text.replace(" ", ",").split(",") if p]
    if not parts:
        raise ParseError(f"{name} takes faces separated by commas, e.g. {name} 17,4,3")
    check_digits(name, text)
    faces: list[int] = []
    for part in parts:
        face = whole_number(name, part, MAX_FACE_DIGITS)
        if face == "not a number":
            raise ParseError(f"{name}: {part[:40]!r} is not a die face (faces are whole numbers)")
        if isinstance(face, str):
            raise ParseError(
                f"{name}: {part[:12]}... ({face}) is not a die face: "
                "a die has at most 1,000,000 sides"
            )
        faces.append(face)
    return tuple(faces)


def _text(name: str, text: str) -> str:
    if not text:
        raise ParseError(f"{name} needs a value")
    return text


@dataclass(frozen=True)
class OptionSpec:
    field: str
    names: tuple[str, ...]
    help: str
    value: Callable[[str, str], Any] | None = None  # None: a flag
    metavar: str = ""


MAX_REPEAT = 10_000_000  # --repeat and --simulate: runs of one request
MAX_BUDGET = 10_000_000  # dice in one request at most: ten million faces take about 100 MB
MAX_WORK = 1_000_000_000  # dice in one command at most, over its --repeat/--simulate runs

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "system", ("--system", "-s"), "rule system: levelup, reglamento, mm, pendagger", _text, "ID"
    ),
    OptionSpec("json", ("--json",), "one JSON object per result line"),
    OptionSpec("csv", ("--csv",), "odds: CSV rows (total, exactly, at least, at most)"),
    OptionSpec("totals", ("--totals",), "odds: the chart of totals of a check too"),
    OptionSpec(
        "seed", ("--seed",), "seed the dice: the same seed gives the same rolls", _int(0), "N"
    ),
    OptionSpec(
        "dice",
        ("--dice",),
        "use these faces instead of random ones, in roll order",
        _faces,
        "F,F,...",
    ),
    OptionSpec("repeat", ("--repeat", "-n"), "roll the request N times", _int(1, MAX_REPEAT), "N"),
    OptionSpec("quiet", ("--quiet", "-q"), "print only the totals"),
    OptionSpec("no_color", ("--no-color",), "plain text, no colours (also NO_COLOR)"),
    OptionSpec("summary", ("--summary",), "with --repeat: a tally of outcomes instead of rolls"),
    OptionSpec(
        "exit_status",
        ("--exit-status",),
        "exit status 1 when the outcome is a failure (0 on success)",
    ),
    OptionSpec(
        "budget",
        ("--budget",),
        "the most dice one request may roll (default 1,000,000)",
        _int(1, MAX_BUDGET),
        "N",
    ),
    OptionSpec(
        "work",
        ("--work",),
        "the most dice one command may roll over all its runs (default 20,000,000)",
        _int(1, MAX_WORK),
        "N",
    ),
    OptionSpec("odds", ("--odds",), "show the chance of the outcome beside the roll"),
    OptionSpec("as_", ("--as",), "resolve label words through this character", _text, "NAME"),
    OptionSpec("no_log", ("--no-log",), "do not write this roll to the roll log"),
    OptionSpec(
        "players", ("--players",), "scores: how many players roll the dice", _int(1, 100), "N"
    ),
    OptionSpec("boon", ("--boon",), "fortune: the boon option (hold up to 4 fortune dice)"),
    OptionSpec(
        "simulate",
        ("--simulate",),
        "odds: estimate from N random rolls instead of exact odds",
        _int(1, MAX_REPEAT),
        "N",
    ),
)

_BY_NAME: dict[str, OptionSpec] = {name: spec for spec in OPTIONS for name in spec.names}


def looks_like_option(token: str) -> bool:
    """A token that starts like an option (and not like a negative number or modifier)."""
    if token.startswith("--"):
        return len(token) > 2
    return (
        token.startswith("-")
        and len(token) > 1
        and token[1].isalpha()
        and (token.split("=", 1)[0] in _BY_NAME or not any(c in ASCII_DIGITS for c in token))
    )


def split_line(line: str) -> list[str]:
    """A line of input as tokens: split on white space; quotes group words (`odds compare
    "check +5 vs 15" "check +6 vs 15"`); a line whose quotes do not pair up (an apostrophe
    in a comment) is split on white space alone."""
    if '"' not in line and "'" not in line:
        return line.split()
    import shlex

    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def split_options(tokens: Sequence[str]) -> tuple[list[str], Options]:
    """Separate option tokens from request words. Options may come anywhere; `--` ends them;
    a word starting with `#` begins a comment (everything after it is words)."""
    if not any(t.startswith("-") for t in tokens):  # the common case: words only
        return list(tokens), NO_OPTIONS
    words: list[str] = []
    values: dict[str, Any] = {}
    i = 0
    only_words = False
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if only_words or token.startswith("#"):
            only_words = only_words or token.startswith("#")
            words.append(token)
            continue
        if token == "--":
            only_words = True
            continue
        if not looks_like_option(token):
            words.append(token)
            continue
        name, eq, inline = token.partition("=")
        spec = _BY_NAME.get(name)
        if spec is None:
            known = ", ".join(s.names[0] for s in OPTIONS)
            raise ParseError(f"unknown option {name[:40]} (options: {known})")
        if spec.value is None:
            if eq:
                raise ParseError(f"{name} takes no value")
            values[spec.field] = True
            continue
        if eq:
            raw = inline
        elif i < len(tokens):
            raw = tokens[i]
            i += 1
        else:
            raise ParseError(f"{name} needs a value ({spec.metavar})")
        values[spec.field] = spec.value(name, raw)
    return words, Options(**values) if values else NO_OPTIONS
