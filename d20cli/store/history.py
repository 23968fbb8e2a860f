"""The interactive shell's history file (d20cli.store.database.history_path), as
prompt_toolkit's `FileHistory` keeps it, read bounded: its last MAX_HISTORY_BYTES only (the
oldest entries of a longer file are not loaded; the file itself is left as it is), and
only from a regular file (d20cli.store.files.read_bytes)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from d20cli.store.files import read_bytes

MAX_HISTORY_BYTES = 1 << 20  # of the history loaded: about 25,000 entries


def file_history(path: str) -> Any:
    """A prompt_toolkit history kept in the file at `path`, loaded bounded."""
    from prompt_toolkit.history import FileHistory

    class BoundedHistory(FileHistory):
        def load_history_strings(self) -> Iterable[str]:
            return entries(str(self.filename))

    return BoundedHistory(path)


def entries(path: str) -> list[str]:
    """The entries of the history file at `path`, newest first (none when it cannot be
    read): FileHistory's format, each line of an entry written with a `+` in front."""
    try:
        data = read_bytes(path, MAX_HISTORY_BYTES, "the shell history", tail=True)
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").split("\n")
    if len(data) == MAX_HISTORY_BYTES:
        lines = lines[1:]  # the first line may be cut
    found: list[str] = []
    entry: list[str] = []
    for line in lines:
        if line.startswith("+"):
            entry.append(line[1:])
        elif entry:
            found.append("\n".join(entry))
            entry = []
    if entry:
        found.append("\n".join(entry))
    return found[::-1]
