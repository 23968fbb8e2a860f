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
    lines: Callable[[Result, bool], list[Line]],
    quiet: Callable[[Result], str],
    header: bool = True,
) -> int:
    """Write `result` as the options say: JSON, `quiet(result)` with -q, else
    `lines(result, header)` (functions, not closures: a batch writes a line each)."""
    if opts.json:
        text = result.json_text()
        out.json_line(text)
        return len(text) + 1
    if opts.quiet:
        text = quiet(result)
        out.text(text)
        return len(text) + 1
    shown = lines(result, header)
    out.lines(shown)
    return sum(len(t) for line in shown for t, _ in line) + len(shown)
