"""The marker file of a sealed session (d20cli.store.sealing): there while a session is
open, so a run learns whether its rolls are sealed with one look at the disk and opens
the state database for it only then. Light on purpose: every run reads it.

`CHANGES` counts the sessions opened and closed in this process (`d20 seal` and
`d20 unseal` run from the shell): a run that lasts across them reads the marker again."""

from __future__ import annotations

import contextlib
import os

from d20cli.errors import StateError
from d20cli.store.files import atomic_write, xdg_dir

CHANGES = [0]


def marker_path() -> str:
    """The marker, beside the state database (d20cli.store.database.state_dir)."""
    state = xdg_dir("XDG_STATE_HOME", os.path.join(".local", "state"))
    return os.path.join(state, "d20cli", "sealed")


def marked() -> bool:
    """Whether the marker says a session may be open (one stat, no database)."""
    return os.path.exists(marker_path())


def mark(sealed: bool) -> None:
    """Put the marker there (a session is open) or take it away; either way a run that
    lasts across this reads it again. StateError when that cannot be done."""
    CHANGES[0] += 1
    path = marker_path()
    try:
        if sealed:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            atomic_write(path, "a sealed session is open: d20 unseal ends it\n")
        else:
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
    except OSError as err:
        raise StateError(
            f"cannot {'write' if sealed else 'remove'} {path}: {err.strerror or err}"
        ) from None
