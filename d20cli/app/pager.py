"""The pager of long output on a terminal (`d20 log`), as git pages its own.

Output is paged only when standard output is a terminal and the output is taller than
it: everything is drawn first (through a rich console whose output is captured), then
either written as it is or handed to the pager. The pager is `PAGER` (run by the shell,
as git runs it), else `less`; `less` is given `LESS=FRX` when `LESS` is not set (quit
when the text fits, keep colours, leave the text on the screen when it quits). With
`--no-pager`, `PAGER=cat` or `PAGER=` (empty), on a pipe or in a file, nothing changes.
A pager that cannot be started is a warning, and the text is written as it is; a pager
that quits before it has read everything (`q` in less) ends the output quietly.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from d20cli.present.output import Output

#: The pager when `PAGER` is not set, and what `LESS` holds for it when unset (git's).
DEFAULT_PAGER = "less"
DEFAULT_LESS = "FRX"


def pager_command(out: Output, no_pager: bool = False) -> str | None:
    """The command to page `out`'s standard output with; None when there is none to use
    (`no_pager`, not a terminal, `PAGER` empty or `cat`)."""
    if no_pager:
        return None
    try:
        if not out.stdout.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    command = os.environ.get("PAGER", DEFAULT_PAGER).strip()
    return None if command in ("", "cat") else command


def terminal_lines(out: Output) -> int:
    """The height of the terminal standard output is; when the terminal does not say (0),
    `LINES`, else 24 (shutil's reading)."""
    try:
        lines = os.get_terminal_size(out.stdout.fileno()).lines
    except (AttributeError, ValueError, OSError):
        lines = 0
    return lines if lines > 0 else shutil.get_terminal_size().lines


@contextmanager
def paged(console: Any, out: Output, no_pager: bool = False) -> Iterator[Any]:
    """`console` (a rich Console on `out`'s standard output) to print on; what is printed
    in the block goes through the pager when there is one and it is taller than the
    terminal (see the module's text)."""
    command = pager_command(out, no_pager)
    if command is None:
        yield console
        return
    with console.capture() as captured:
        yield console
    show(captured.get(), command, out, int(console.width))


_CONTROL_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def screen_lines(text: str, columns: int) -> int:
    """How many lines of a terminal `columns` wide `text` takes (a longer line wraps)."""
    from rich.cells import cell_len

    shown = _CONTROL_SEQUENCE.sub("", text)
    width = max(columns, 1)
    return sum(max(1, -(-cell_len(line) // width)) for line in shown.split("\n")[:-1])


def show(text: str, command: str, out: Output, columns: int = 80) -> None:
    """`text` (whole lines, maybe with colour codes) on a terminal `columns` wide: as it
    is when it fits, else through the pager `command`."""
    out.flush()
    if screen_lines(text, columns) < terminal_lines(out):  # (a line left for the prompt)
        out.stdout.write(text)
        out.stdout.flush()
        return
    problem = _unstartable(command)
    if problem is None:
        problem = _page(text, command, out)
    if problem is not None:
        out.warn(
            f"the pager {command!r} could not be started ({problem}); set PAGER or use --no-pager"
        )
        out.stdout.write(text)
        out.stdout.flush()


def _unstartable(command: str) -> str | None:
    """Why the pager's program cannot be found (None when it can, or when the command's
    first word cannot be told without the shell)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or "=" in words[0]:  # (VAR=value less: the shell's business)
        return None
    return None if shutil.which(words[0]) is not None else f"no program {words[0]!r}"


def _page(text: str, command: str, out: Output) -> str | None:
    """Run the pager on `text`; None once it has ended, else why it could not start.
    Ctrl-C goes to the pager (less takes it), not to d20, while it runs."""
    env = dict(os.environ)
    env.setdefault("LESS", DEFAULT_LESS)
    env.setdefault("LV", "-c")  # (lv, as git sets it: keep colours)
    encoding = getattr(out.stdout, "encoding", None) or "utf-8"
    try:
        interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals stay as they are
        interrupt = None
    try:
        try:
            pager = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
        except OSError as err:
            return err.strerror or str(err)
        assert pager.stdin is not None
        with suppress(OSError):  # BrokenPipeError: the pager quit before the end (`q`)
            pager.stdin.write(text.encode(encoding, "replace"))
        with suppress(OSError):
            pager.stdin.close()
        pager.wait()
    finally:
        if interrupt is not None:
            signal.signal(signal.SIGINT, interrupt)
    return None
