"""Where results go: plain text, colour through rich, JSON lines, errors on stderr.

Colour only on a terminal, and never with --no-color or NO_COLOR; rich is imported only
when colour is on, so pipes and scripts do not pay for it. Every line is flushed as it is
written, so a consumer can stream them; a batch on standard input instead holds its lines
and writes them when it is about to wait for more input (`Output(flush_lines=False)`, see
d20cli.app.stdin), which streams just the same and saves a write per line, even where
Python's own buffering is off (PYTHONUNBUFFERED). Anything on stderr is preceded by what
stdout holds, so the two keep their order in `2>&1`.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from d20cli.errors import D20Error
from d20cli.present.render import Line, render_result
from d20cli.results import JSON_ENCODER, Result, show_as


def color_wanted(stream: TextIO, no_color: bool = False) -> bool:
    if no_color or os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def plain_text(line: Line) -> str:
    """A line without styles. A badge (a style with a background) loses the padding that
    only makes sense in colour, and no line ends in spaces."""
    return "".join(t.strip() if " on " in style else t for t, style in line).rstrip()


def result_text(result: Result) -> str:
    """A result as the command line prints it without colour: `str(result)`."""
    return "\n".join(plain_text(line) for line in render_result(result))


show_as(Result, result_text)


class Output:
    """The two streams of one run, and how to write lines on them."""

    def __init__(
        self,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        color: bool | None = None,
        width: int | None = None,
        console: Any = None,
        flush_lines: bool = True,
        held: list[str] | None = None,
    ) -> None:
        """`console`: a rich Console to print through (tests pass one with a fixed width);
        giving one means the lines go through rich even without colour. `flush_lines`:
        write and flush every line at once; else lines are held until `flush` (or until
        there are HOLD_LINES of them). `held`: the held lines, shared with a copy."""
        self.stdout = stdout if stdout is not None else sys.stdout
        self.stderr = stderr if stderr is not None else sys.stderr
        self.color = color_wanted(self.stdout) if color is None else color
        self.width = width
        self._console: Any = console
        self.flush_lines = flush_lines
        self._held: list[str] = [] if held is None else held
        self.line: int | None = None  # the line of standard input being answered, if any

    HOLD_LINES = 256

    def without_color(self) -> Output:
        plain = Output(
            self.stdout, self.stderr, False, self.width, None, self.flush_lines, self._held
        )
        plain.line = self.line
        return plain

    def flush(self) -> None:
        """Write the held lines, and flush stdout."""
        if self._held:
            text = "".join(self._held)
            self._held.clear()
            self.stdout.write(text)
        self.stdout.flush()

    def _write(self, text: str) -> None:
        if self.flush_lines:
            self.stdout.write(text)
            self.stdout.flush()
        else:
            self._held.append(text)
            if len(self._held) >= self.HOLD_LINES:
                self.flush()

    def console(self) -> Any:
        """A rich Console on stdout (created on first use)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(
                file=self.stdout,
                force_terminal=self.color,
                no_color=not self.color,
                color_system="auto" if self.color else None,
                highlight=False,
                width=self.width,
                soft_wrap=self.width is None,
            )
        return self._console

    def lines(self, lines: list[Line]) -> None:
        if self.color or self._console is not None:
            from rich.text import Text

            self.flush()  # rich writes straight to stdout
            console = self.console()
            for line in lines:
                console.print(Text.assemble(*line))
            self.stdout.flush()
        else:
            self._write("".join(plain_text(line) + "\n" for line in lines))

    def text(self, text: str) -> None:
        """One line of text (a JSON line is one too)."""
        self._write(text + "\n")

    def json(self, obj: Any) -> None:
        self.text(JSON_ENCODER.encode(obj))

    def error(self, err: D20Error, as_json: bool = False) -> None:
        """The one-line message (and the text with a caret under the column) on stderr;
        with --json also {"error", "line", "column", "input", "kind"} on stdout ("line":
        the line of standard input being answered, `self.line`; null elsewhere)."""
        named = self.line is not None and err.message.startswith(f"line {self.line} ")
        lines = [f"d20: {err.one_line(None if named else self.line)}", *err.caret_lines()]
        self.flush()
        self.stderr.write("\n".join(lines) + "\n")
        self.stderr.flush()
        if as_json:
            obj: dict[str, Any] = {
                "error": err.message,
                "line": self.line,
                "column": err.column,
                "input": err.text,
                "kind": err.kind,
            }
            self.json(obj)

    def warn(self, message: str) -> None:
        self.flush()
        self.stderr.write(f"d20: warning: {message}\n")
        self.stderr.flush()
