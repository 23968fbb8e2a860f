"""One result written to the output: its JSON line, its quiet line (`-q`) or its lines
for people; the number of characters written, which bounds what a command may print."""

from __future__ import annotations

from collections.abc import Callable

from d20cli.app.options import Options
from d20cli.present.output import Output
from d20cli.present.render import Line
from d20cli.results import Result


def emit(
    result: Result,
    opts: Options,
    out: Output,
    lines: Callable[[], list[Line]],
    quiet: Callable[[], str],
) -> int:
    """Write `result` as the options say: JSON, `quiet()` with -q, else `lines()`."""
    if opts.json:
        text = result.json_text()
        out.json_line(text)
        return len(text) + 1
    if opts.quiet:
        text = quiet()
        out.text(text)
        return len(text) + 1
    shown = lines()
    out.lines(shown)
    return sum(len(t) for line in shown for t, _ in line) + len(shown)
