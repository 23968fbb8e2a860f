"""Progress of long work on standard error: a bar (rich.progress) for counted steps, a
spinner for work that has none to count.

The work counts its own steps (`Meter.step`: a run of `--repeat`, a roll of
`--simulate`, a chunk of a `--summary` tally); nothing it computes looks at the clock.
Only the showing does: the bar appears once the work has taken `DELAY` seconds (a bar
that flashes by for quick work is noise), is redrawn every `REFRESH` seconds from a
thread of its own, and is wiped when the work ends (`close`), before its output is
written. The edge decides whether there is a bar at all (`wanted`): on a terminal, never
on a pipe, with `-q` or with `--json`.
"""

from __future__ import annotations

import os
from types import TracebackType

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading
    from typing import TextIO

#: Seconds of work before the bar appears (`D20_PROGRESS_DELAY` sets another: 0 shows
#: it at once), and between two drawings of it.
DELAY = 0.5
REFRESH = 0.1


def delay() -> float:
    """DELAY, or the seconds `D20_PROGRESS_DELAY` gives (a number from 0 to 3600)."""
    try:
        given = float(os.environ.get("D20_PROGRESS_DELAY", ""))
    except ValueError:
        return DELAY
    return given if 0 <= given <= 3600 else DELAY


def wanted(stderr: TextIO, quiet: bool, as_json: bool) -> bool:
    """Whether long work shows its progress: standard error is a terminal, and neither
    `-q` nor `--json` asked for bare output."""
    if quiet or as_json:
        return False
    try:
        return stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Meter:
    """The counted steps of one piece of work (`total`, when it is known: else a
    spinner), shown on `stream` after DELAY seconds, until `close`. A context manager."""

    def __init__(
        self,
        stream: TextIO,
        what: str,
        total: int | None = None,
        color: bool = True,
        counted: bool = True,
    ) -> None:
        """`counted`: the work counts steps (a bar, N of total); else a spinner and the
        time it has taken."""
        self.stream = stream
        self.counted = counted
        self.what = what
        self.total = total  # may be set once the work knows it
        self.done = 0
        self.color = color
        import threading  # only where a meter is made: an odds or a roll piped starts without it

        self.drawn = threading.Event()  # set once the bar has been drawn
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def step(self, n: int = 1) -> None:
        """`n` more steps done."""
        self.done += n

    def start(self) -> Meter:
        if self._thread is None and not self._stop.is_set():
            import threading

            # The bar's thread imports rich, which imports typing; `dataclasses` reads
            # typing from sys.modules without importing it, so a @dataclass made here
            # meanwhile (the tally of --summary) would read it half made. It is imported
            # here first (a meter is made for a terminal only, whose output imports rich
            # and typing anyway).
            import typing  # noqa: F401

            self._thread = threading.Thread(target=self._show, name="d20-progress", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop showing the progress and wipe the bar (at once, and again: no harm)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> Meter:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def _show(self) -> None:
        if self._stop.wait(delay()):
            return  # done before the bar was worth showing
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        console = Console(
            file=self.stream,
            force_terminal=True,
            no_color=not self.color,
            color_system="auto" if self.color else None,
            highlight=False,
        )
        what = TextColumn("{task.description}", markup=False)
        columns = (
            (SpinnerColumn(), what, BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
            if self.counted
            else (SpinnerColumn(), what, TimeElapsedColumn())
        )
        progress = Progress(
            *columns,
            console=console,
            transient=True,
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        with progress:
            task = progress.add_task(self.what, total=self.total)
            while True:
                progress.update(task, completed=self.done, total=self.total)
                progress.refresh()
                self.drawn.set()
                if self._stop.wait(REFRESH):
                    break
