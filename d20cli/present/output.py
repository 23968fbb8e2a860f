"""Where results go: plain text, colour through rich, JSON lines, errors on stderr.

Colour only on a terminal, and never with --no-color or NO_COLOR; rich is imported only
when colour is on, so pipes and scripts do not pay for it. Every line is flushed as it is
written, so a consumer can stream them; a batch on standard input instead holds its lines
and writes them when it is about to wait for more input (`Output(flush_lines=False)`, see
d20cli.app.stdin), which streams just the same and saves a write per line, even where
Python's own buffering is off (PYTHONUNBUFFERED). Anything on stderr is preceded by what
stdout holds, so the two keep their order in `2>&1`.

Group commit: what a piece of output shows is saved before the piece is written. The
edge registers `before_write` callbacks (the roll log's rows, the last roll: see
d20cli.app.context), and every write on stdout (a flush of held lines, a line written at
once, rich's lines) calls them first, so a roll that was shown is a roll that was
logged, even after a kill -9, at the cost of one transaction per piece of output. When
saving fails or is interrupted, the held lines are dropped, never written.
"""

from __future__ import annotations

import os
import sys
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate

from d20cli.errors import D20Error
from d20cli.present.render import Line, render_result
from d20cli.results import Result, json_encoder, show_as
from d20cli.visible import json_visible, visible, visible_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

#: Where a configured colour choice comes from ("auto", "always", "never", or None): the
#: app layer registers the config file's (`use_color_choice`), as this layer reads no file.
_COLOR_CHOICE: list[Callable[[], str | None]] = []


def use_color_choice(source: Callable[[], str | None]) -> None:
    """Ask `source` for the colour choice from now on (the config file's `color`)."""
    _COLOR_CHOICE[:] = [source]


def color_wanted(stream: TextIO, no_color: bool = False) -> bool:
    """Colour or not: never with --no-color or NO_COLOR; always with FORCE_COLOR; else
    the configured choice (`color = "always"` or `"never"`); else on a terminal only."""
    if no_color or os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    choice = _COLOR_CHOICE[0]() if _COLOR_CHOICE else None
    if choice in ("always", "never"):
        return choice == "always"
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


#: Held lines are written in pieces of at most this many bytes (but a line longer than
#: that), whole lines each, each flushed: a piece that fits the stream's buffer (4096 bytes
#: on a pipe) is never cut by a Ctrl-C while the reader is slow, so whole lines are left
#: behind, never half of one (a larger write goes straight to the pipe, and what an
#: interrupted write had not written is dropped).
WRITE_CHUNK = 4096


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
        # what to save before anything is written (shared with copies: without_color)
        self._before: list[Callable[[], None]] = []
        self._saving = [False]  # a callback that warns must not start the saving again

    HOLD_LINES = 1024
    HOLD_LONG = 65_536  # a longer line is written at once: at most 64 MB are ever held

    def without_color(self) -> Output:
        copy = Output(
            self.stdout, self.stderr, False, self.width, None, self.flush_lines, self._held
        )
        copy._before, copy._saving = self._before, self._saving
        copy.line = self.line
        return copy

    def with_color(self) -> Output:
        """A copy that writes in colour (`--color=always`) on the same streams."""
        copy = self.without_color()
        copy.color = True
        return copy

    def before_write(self, save: Callable[[], None]) -> None:
        """Call `save` before each write on stdout from now on (once, however often it is
        registered): group commit, see the module's text."""
        if save not in self._before:
            self._before.append(save)

    def forget(self, save: Callable[[], None]) -> None:
        """Stop calling `save` (a context that ends before its output does)."""
        if save in self._before:
            self._before.remove(save)

    def save(self, only: Callable[[], None] | None = None) -> None:
        """Run the `before_write` callbacks now; `only`: that one instead (a part of what
        the held lines show), run as they are: a warning it writes leaves the held lines
        held, and when it fails they are never written."""
        saves = self._before if only is None else [only]
        if self._saving[0] or not saves:
            return
        self._saving[0] = True
        try:
            for save in saves:
                save()
        except BaseException:
            self._held.clear()  # they show what was not saved (NotSaved, Ctrl-C): never written
            raise
        finally:
            self._saving[0] = False

    def flush(self) -> None:
        """Write the held lines (saving first what they show), and flush stdout."""
        if self._held:
            self.save()
            held = self._held[:]
            self._held.clear()
            # where each held line ends, in bytes of UTF-8 (an ASCII line's length, as every
            # JSON line is; another line, such as a text line with a dash or a bar, encoded
            # as the stream will encode it: counting 4 bytes a character cut pieces short)
            ends = list(
                accumulate(
                    len(p) if p.isascii() else len(p.encode("utf-8", "surrogatepass")) for p in held
                )
            )
            first = 0  # the first line of the next piece
            while first < len(held):
                # the most whole lines that fit in WRITE_CHUNK bytes (one, if it is longer)
                base = ends[first - 1] if first else 0
                last = max(bisect_right(ends, base + WRITE_CHUNK, first) - 1, first)
                self.stdout.write("".join(held[first : last + 1]))
                first = last + 1
                if first < len(held):
                    self.stdout.flush()
        self.stdout.flush()

    def _write(self, text: str) -> None:
        if self.flush_lines:
            self.save()
            self.stdout.write(text)
            self.stdout.flush()
        else:
            self._held.append(text)
            if len(self._held) >= self.HOLD_LINES or len(text) > self.HOLD_LONG:
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

    def columns(self) -> int | None:
        """How many columns a line may take before the terminal wraps it: the console's
        width when lines go through rich (the terminal's, or the one a test gives), the
        terminal's on a terminal without colour, None on a pipe (no line is wrapped)."""
        if self.color or self._console is not None:
            return int(self.console().width)
        try:
            terminal = self.stdout.isatty()
        except (AttributeError, ValueError):
            terminal = False
        if not terminal:
            return None
        import shutil

        return shutil.get_terminal_size().columns

    def lines(self, lines: list[Line]) -> None:
        """Lines of styled pieces. Every piece is shown with its control characters made
        visible (d20cli.visible), and given to rich as a Text, never as markup: a label
        `[bold red]` is shown as typed."""
        if self.color or self._console is not None:
            from rich.text import Text

            self.flush()  # rich writes straight to stdout
            self.save()
            console = self.console()
            for line in lines:
                console.print(Text.assemble(*((visible(t), style) for t, style in line)))
            self.stdout.flush()
        else:
            self._write("".join(visible(plain_text(line)) + "\n" for line in lines))

    def text(self, text: str) -> None:
        """Lines of text (newlines kept, every other control character made visible)."""
        self._write(visible_lines(text) + "\n")

    def json_line(self, text: str) -> None:
        """One JSON text: exact, with the controls JSON leaves raw as `\\u` escapes."""
        self._write(json_visible(text) + "\n")

    def json(self, obj: Any) -> None:
        self.json_line(json_encoder().encode(obj))

    def error(self, err: D20Error, as_json: bool = False) -> None:
        """The one-line message (and the text with a caret under the column) on stderr;
        with --json also {"error", "line", "column", "input", "kind"} on stdout ("line":
        the line of standard input being answered, `self.line`; null elsewhere)."""
        named = self.line is not None and err.message.startswith(f"line {self.line} ")
        lines = [f"d20: {visible(err.one_line(None if named else self.line))}", *err.caret_lines()]
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
        if not self._saving[0]:  # held lines wait until what they show is saved
            self.flush()
        self.stderr.write(f"d20: warning: {visible(message)}\n")
        self.stderr.flush()
