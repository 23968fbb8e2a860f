"""`--svg FILE` and `--png FILE`: a chart of what a command shows (an odds view, a sweep,
a compare, `odds table`, `log --luck`), drawn by d20cli.present.charts and written whole
(d20cli.store.files.atomic_write) before the command prints its usual output. Imported
only when one of them is given: matplotlib is loaded for it alone."""

from __future__ import annotations

import os
from collections.abc import Callable

from d20cli.app.options import Options
from d20cli.errors import D20Error, StateError
from d20cli.present.charts import Chart, draw
from d20cli.present.output import Output
from d20cli.store.files import atomic_write


def wanted(svg: str | None, png: str | None) -> list[tuple[str, str]]:
    """The (format, file) pairs asked for, SVG first."""
    return [(fmt, path) for fmt, path in (("svg", svg), ("png", png)) if path is not None]


def write_charts(chart: Callable[[], Chart], svg: str | None, png: str | None) -> None:
    """Draw `chart()` and write it to each file asked for. StateError, one line naming
    the option and the file, when a file cannot be written (its folder is missing, it is
    a folder, no permission): nothing is then written to it."""
    asked = wanted(svg, png)
    if not asked:
        return
    made = chart()
    for fmt, path in asked:
        _check(fmt, path)
        try:
            atomic_write(path, draw(made, fmt), private=False)
        except OSError as err:
            raise StateError(f"--{fmt} {path}: {_why(err)}") from None


def _check(fmt: str, path: str) -> None:
    """StateError before drawing when `path` cannot be a file: a folder, or in a folder
    that does not exist."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise StateError(f"--{fmt} {path}: is a folder, not a file (e.g. {path}/odds.{fmt})")
    if not os.path.isdir(folder):
        shown = os.path.dirname(path) or folder
        raise StateError(f"--{fmt} {path}: the folder {shown} does not exist")


def _why(err: OSError) -> str:
    text = err.strerror or type(err).__name__
    return text[:1].lower() + text[1:]


def charts_written(chart: Callable[[], Chart], opts: Options, out: Output) -> bool:
    """Write the charts `opts` asks for (--svg, --png); False when one could not be
    written (the error said on `out`, as JSON too with --json)."""
    try:
        write_charts(chart, opts.svg, opts.png)
    except D20Error as err:
        out.error(err, opts.json)
        return False
    return True
