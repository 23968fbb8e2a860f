"""Standard input, one request per line, read in bounded memory.

A line is decoded on its own (invalid UTF-8 is that line's error, and the rest still run),
and a line longer than MAX_LINE characters is reported and skipped without being kept.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from d20cli.app.rolling import MAX_LINE
from d20cli.errors import D20Error, ParseError


def stdin_lines(
    stream: Any, before_wait: Callable[[], None] | None = None
) -> Iterator[str | D20Error]:
    """Lines of standard input, decoded one by one so that a line of invalid UTF-8 is
    reported as that line's error and the rest still run.

    A line longer than MAX_LINE characters is reported (naming its line number) as soon as
    it passes the limit, and the rest of it, up to its newline, is read and dropped: the
    time is linear in the input, and no more than MAX_LINE characters of a line are held.

    before_wait: called whenever reading on would wait for more input (the output is
    flushed then, so a consumer sees every answer to what was sent so far, and a batch
    is written in large pieces rather than a write per line)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's stream)
        buffer = getattr(stream, "buffer", None)
        for number, raw in enumerate(stream if buffer is None else buffer, 1):
            if before_wait is not None:
                before_wait()
            line = raw.rstrip("\r\n") if isinstance(raw, str) else raw.rstrip(b"\r\n")
            if _chars(line) > MAX_LINE:
                yield _too_long(number)
            else:
                yield raw if isinstance(raw, str) else _decoded(raw, number)
        return
    number = 0  # lines read or reported so far
    pieces: list[bytes] = []  # the start of the line being read
    size = 0  # its characters
    skipping = False  # the line being read is too long: drop it up to its newline
    while True:
        if before_wait is not None:
            before_wait()
        chunk = os.read(fd, READ_SIZE)
        if not chunk:
            break
        *complete, tail = chunk.split(b"\n")
        for raw in complete:
            if skipping:  # the end of a line already reported
                skipping = False
                number += 1
                continue
            if pieces:
                pieces.append(raw)
                raw = b"".join(pieces)
                pieces.clear()
                size = 0
            number += 1
            if len(raw) > MAX_LINE and _chars(raw.removesuffix(b"\r")) > MAX_LINE:
                yield _too_long(number)
            else:
                yield _decoded(raw, number)
        if tail and not skipping:
            pieces.append(tail)
            size += _chars(tail)
            if size > MAX_LINE + 1:  # (+1: a carriage return may end it)
                pieces.clear()
                size = 0
                skipping = True
                yield _too_long(number + 1)
    if pieces:
        raw = b"".join(pieces)
        too_long = _chars(raw.removesuffix(b"\r")) > MAX_LINE
        yield _too_long(number + 1) if too_long else _decoded(raw, number + 1)


READ_SIZE = 1 << 16
_CONTINUATION = bytes(range(0x80, 0xC0))  # bytes that continue a UTF-8 character


def _chars(raw: bytes | str) -> int:
    """The characters in `raw` (UTF-8 bytes: those that do not continue a character)."""
    if isinstance(raw, str):
        return len(raw)
    return len(raw) if raw.isascii() else len(raw.translate(None, _CONTINUATION))


def _too_long(number: int) -> ParseError:
    return ParseError(f"line {number} is longer than {MAX_LINE:,} characters; it was skipped")


def _decoded(raw: bytes, number: int) -> str | D20Error:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return ParseError(f"line {number} is not valid UTF-8 (byte {err.start + 1})")
