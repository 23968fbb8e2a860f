"""What happens when writing to standard output or standard error fails.

For the length of a run (`guarded_streams`, around everything `d20cli.__main__` does),
sys.stdout and sys.stderr are wrapped:

- A write error on stdout (the reader went away, EPIPE; a full disk, ENOSPC; any other
  OSError) raises `OutputFailed`. It is not an OSError, so nothing on the way swallows it
  or turns it into a status of its own (typer exits 1 on EPIPE); the entry point ends the
  run: quietly with status 0 for a closed pipe (`d20 ... | head -1`), and with one line on
  stderr and status 1 for any other failure (`d20 ... > /dev/full`), never a traceback.
- A write error on stderr is ignored: a message that cannot be shown does not change the
  exit status (a bad request is still 2 with `2> /dev/full`).

After a failure the stream's file descriptor is pointed at /dev/null, so whatever is
still buffered (and the flush at exit) goes nowhere instead of failing again.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any, TextIO

WRITE_FAILED = 1  # the exit status when the output could not be written


class OutputFailed(Exception):
    """Standard output cannot be written (deliberately not an OSError)."""

    def __init__(self, err: OSError) -> None:
        super().__init__(err.strerror or str(err))
        self.errno = err.errno
        self.strerror = err.strerror or str(err)

    @property
    def closed_pipe(self) -> bool:
        return self.errno == errno.EPIPE


def _silence(stream: TextIO) -> None:
    """Point the stream's file descriptor at /dev/null (when it has one)."""
    try:
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
    except (AttributeError, OSError, ValueError):
        return
    try:
        os.dup2(devnull, fd)
    except OSError:
        pass
    finally:
        os.close(devnull)


#: ASCII stand-ins for the characters the output uses (bars, dashes, signs), for a stream
#: whose encoding lacks them; anything else becomes "?".
ASCII_FALLBACKS: dict[int, str] = {
    **{code: "#" for code in range(0x2588, 0x2590)},  # full and left partial blocks
    0x2014: "--",  # em dash
    0x2013: "-",  # en dash
    0x2212: "-",  # minus sign
    0x00B7: ".",  # middle dot
    0x2502: "|",  # box line
    0x00D7: "x",  # multiplication sign
    0x2248: "~",  # almost equal
    0x00B1: "+/-",
    0x2026: "...",
    0x2265: ">=",
    0x2264: "<=",
}


def in_encoding(text: str, encoding: str | None) -> str:
    """`text` as the stream's encoding can write it: ASCII stand-ins for bars and dashes
    (ASCII_FALLBACKS), "?" for anything else it lacks."""
    codec = encoding or "ascii"
    out = []
    for ch in text:
        try:
            ch.encode(codec)
            out.append(ch)
        except UnicodeEncodeError:
            out.append(ASCII_FALLBACKS.get(ord(ch), "?"))
        except LookupError:
            return text.encode("ascii", "replace").decode("ascii")
    return "".join(out)


class GuardedStream:
    """A text stream whose write errors raise OutputFailed (stdout) or are ignored
    (stderr); everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO, fail: bool) -> None:
        self._stream = stream
        self._fail = fail
        self._write = stream.write  # bound once: a long --repeat writes every line
        self._flush = stream.flush

    def _failed(self, err: OSError) -> None:
        _silence(self._stream)
        if self._fail:
            raise OutputFailed(err) from err

    def write(self, text: str) -> int:
        if text == "":  # click probes a stream with write(b"") and write(""), swallowing
            return 0  # any error; b"" still raises TypeError below, as a text stream does
        try:
            return self._write(text)
        except OSError as err:
            self._failed(err)
            return len(text)
        except UnicodeEncodeError:  # PYTHONIOENCODING=ascii, a latin-1 terminal
            return self.write(in_encoding(text, getattr(self._stream, "encoding", None)))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._flush()
        except OSError as err:
            self._failed(err)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class guarded_streams:
    """sys.stdout and sys.stderr guarded for the block, as they were afterwards. A class,
    not a `contextlib.contextmanager`: every start is spared importing contextlib."""

    def __enter__(self) -> None:
        self._saved = sys.stdout, sys.stderr
        sys.stdout = GuardedStream(self._saved[0], fail=True)
        sys.stderr = GuardedStream(self._saved[1], fail=False)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        sys.stdout, sys.stderr = self._saved


def report(failure: OutputFailed) -> int:
    """End a run whose output failed: status 0 for a closed pipe, else one line on stderr
    (if stderr works) and WRITE_FAILED."""
    if failure.closed_pipe:
        return 0
    sys.stderr.write(f"d20: cannot write the output: {failure.strerror}\n")
    sys.stderr.flush()
    return WRITE_FAILED
