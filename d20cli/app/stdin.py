"""Standard input: one request per line, read as it comes (a consumer sees each answer to
what it sent), each line decoded on its own and bounded in length, errors reported by line
number while the rest still run. A line means what it means in the shell: a leading
`d20` is the program's name, and `system ID` and `as NAME` change the options of the
lines after them."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.run import run, setting
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.language.vocabulary import MAX_REQUEST
from d20cli.present.output import Output


def run_lines(
    lines: Iterable[str | D20Error], base: Options, out: Output, context: Context | None = None
) -> ExitStatus:
    """One request per line (standard input). Blank lines and `#` lines are skipped; a bad
    line is reported and the rest still run; the status is the worst one seen.

    `system ID` and `as NAME` (the shell's words) set the system and the character for
    the lines after them, saying nothing (the output stays the results: JSON lines with
    `--json`); alone, `system` and `as` say what is in force."""
    worst = ExitStatus.OK
    context = context or Context()

    def set_options(tokens: list[str], line: str) -> ExitStatus:
        """`system ID`, `as NAME`: the options of the lines after it (said when asked)."""
        nonlocal base
        try:
            opts, said = setting(tokens, line, base)
        except D20Error as err:
            out.error(err, base.json)
            return ExitStatus.BAD_INPUT
        if len(tokens) == 1:
            out.text(said)
        elif opts != base:
            base = opts
            context.lines.clear()  # (each was read with the options before)
        return ExitStatus.OK

    for number, raw in enumerate(lines, 1):
        out.line = number  # errors name the line they answer
        if isinstance(raw, D20Error):
            out.error(raw, base.json)
            worst = ExitStatus.BAD_INPUT
            continue
        line = raw.strip()
        if line and line[0] == "\ufeff":  # a byte order mark
            line = line.lstrip("\ufeff")
        if not line or line[0] == "#":
            continue
        outcome = run(line, base, out, context, set_options)
        if outcome.status > worst:
            worst = outcome.status
        ended = None if context.sealing is None else context.sealing.ended
        if ended is not None:  # the sealed session was closed (or cannot be kept): stop
            out.error(
                ParseError("the sealed session has ended: the rest of standard input is not read")
            )
            worst = ExitStatus.BAD_INPUT
            break
    out.line = None
    return worst


def run_stdin(base: Options) -> ExitStatus:
    """The requests on standard input, one per line, as the command line runs them."""
    out = Output(flush_lines=False)
    context = Context.for_command_line(base.seed)
    try:
        lines = frozen_as_imported(stdin_lines(sys.stdin, out.flush))
        return run_lines(lines, context.line_options(base), out, context)
    finally:
        gc.unfreeze()  # (a test's process goes on: what was frozen is collected again)
        try:
            out.flush()  # the last lines, also when interrupted
        finally:
            context.close()


def frozen_as_imported(lines: Iterable[str | D20Error]) -> Iterator[str | D20Error]:
    """`lines`, the cycle collector told before each one that what exists now is there
    for good (`gc.freeze`) if a module was imported since it was last told: at the first
    line, what the start made, and after a line that imported the grammar (pyparsing's
    elements, 26,000 objects) or a system's rules, what that made. A collection then looks
    only at what the lines made since: 10,000 new lines on standard input spent about
    60 ms in the collector (40 of them in one pass over every object of the modules and the
    grammar), 25 ms so (docs/performance.md, "Start-up"). A module is imported once, so the
    collector is told at most once per module: what is frozen (a module's objects, and
    what lived when it was imported) stays until `run_stdin` ends."""
    imported = -1
    for line in lines:
        if len(sys.modules) != imported:
            gc.freeze()
            imported = len(sys.modules)
        yield line


def stdin_lines(
    stream: Any, before_wait: Callable[[], None] | None = None
) -> Iterator[str | D20Error]:
    """Lines of standard input, decoded one by one so that a line of invalid UTF-8 is
    reported as that line's error and the rest still run.

    A line longer than MAX_REQUEST characters is reported (naming its line number) as soon as
    it passes the limit, and the rest of it, up to its newline, is read and dropped: the
    time is linear in the input, and no more than MAX_REQUEST characters of a line are held.

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
            if _chars(line) > MAX_REQUEST:
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
            if len(raw) > MAX_REQUEST and _chars(raw.removesuffix(b"\r")) > MAX_REQUEST:
                yield _too_long(number)
            else:
                yield _decoded(raw, number)
        if tail and not skipping:
            pieces.append(tail)
            size += _chars(tail)
            if size > MAX_REQUEST + 1:  # (+1: a carriage return may end it)
                pieces.clear()
                size = 0
                skipping = True
                yield _too_long(number + 1)
    if pieces:
        raw = b"".join(pieces)
        too_long = _chars(raw.removesuffix(b"\r")) > MAX_REQUEST
        yield _too_long(number + 1) if too_long else _decoded(raw, number + 1)


READ_SIZE = 1 << 16


_CONTINUATION = bytes(range(0x80, 0xC0))  # bytes that continue a UTF-8 character


def _chars(raw: bytes | str) -> int:
    """The characters in `raw` (UTF-8 bytes: those that do not continue a character)."""
    if isinstance(raw, str):
        return len(raw)
    return len(raw) if raw.isascii() else len(raw.translate(None, _CONTINUATION))


def _too_long(number: int) -> ParseError:
    return ParseError(f"line {number} is longer than {MAX_REQUEST:,} characters; it was skipped")


def _decoded(raw: bytes, number: int) -> str | D20Error:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return ParseError(f"line {number} is not valid UTF-8 (byte {err.start + 1})")
