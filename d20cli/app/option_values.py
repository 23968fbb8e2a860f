"""How the values of options are read: whole numbers in ASCII digits, die faces, text,
colour choices. Each reader takes the option's name (for the message) and the text, and
returns the value or raises ParseError saying what is wrong."""

from __future__ import annotations

from collections.abc import Callable

from d20cli.errors import ASCII_DIGITS, ParseError, foreign_digit, not_a_digit


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


def int_value(lo: int, hi: int | None = None) -> Callable[[str, str], int]:
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


def faces_value(name: str, text: str) -> tuple[int, ...]:
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


def text_value(name: str, text: str) -> str:
    if not text:
        raise ParseError(f"{name} needs a value")
    return text


def color_value(name: str, text: str) -> str:
    choice = text.strip().lower()
    if choice not in COLOR_CHOICES:
        raise ParseError(f"{name} takes auto, always or never, not {text[:40]!r}")
    return choice


COLOR_CHOICES: tuple[str, ...] = ("auto", "always", "never")
