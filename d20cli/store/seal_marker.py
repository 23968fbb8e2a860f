"""The marker file of a sealed session (d20cli.store.sealing): there while a session is
open, so a run learns whether its rolls are sealed with one look at the disk and opens
the state database for it only then. Light on purpose: every run reads it.

`CHANGES` counts the sessions opened and closed in this process (`d20 seal` and
`d20 unseal` run from the shell): a run that lasts across them reads the marker again.
A run that lasts across a seal or unseal made by another process reads the marker again
at its first request after each group commit (d20cli.app.context). The locks below keep
the session's changes and the runs rolling in it apart."""

from __future__ import annotations

import os
import time

from d20cli.errors import StateError
from d20cli.store.files import atomic_write, open_lock, xdg_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType

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
            try:
                os.remove(path)
            except FileNotFoundError:
                pass
    except OSError as err:
        raise StateError(
            f"cannot {'write' if sealed else 'remove'} {path}: {err.strerror or err}"
        ) from None


# --- the locks of a session's state -------------------------------------------------------
#
# `d20 seal` and `d20 unseal` change the session (its row and the marker) holding
# `changing()`, one at a time; a run that rolls in a session holds a `Lease` from the
# positions it takes until their rows are committed (d20cli.app.sealed). `changing()` waits
# for the leases to end, and new leases wait for it (the gate): a session is never closed
# while a run is rolling in it, and never opened or closed half-way. POSIX file locks
# beside the marker; elsewhere (no fcntl) the database's transactions alone order them.

WAIT = 10.0  # seconds `changing()` waits for the runs rolling in a session


def _lock_file(suffix: str) -> int:
    path = marker_path() + suffix
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return open_lock(path)
    except OSError as err:
        raise StateError(f"cannot use the lock file {path}: {err.strerror or err}") from None


def _flock(fd: int, how: str, wait: bool = True) -> bool:
    """Lock `fd` ("shared", "exclusive") or unlock it ("none"); False: not now (wait=False)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return True
    op = {"shared": fcntl.LOCK_SH, "exclusive": fcntl.LOCK_EX, "none": fcntl.LOCK_UN}[how]
    try:
        fcntl.flock(fd, op if wait else op | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class changing:
    """Held while `d20 seal` or `d20 unseal` changes the session (`with changing():`):
    StateError when a run is still rolling in it after `wait` seconds (default WAIT). A
    class, not a `contextlib.contextmanager`: every run imports this module."""

    def __init__(self, wait: float | None = None) -> None:
        self.wait = WAIT if wait is None else wait

    def __enter__(self) -> None:
        gate = _lock_file(".gate")
        try:
            _flock(gate, "exclusive")  # new leases wait here: this is never starved
            lease = _lock_file(".lock")
            try:
                deadline = time.monotonic() + self.wait
                while not _flock(lease, "exclusive", wait=False):
                    if time.monotonic() > deadline:
                        raise StateError(
                            "a run is rolling in the sealed session (a batch on standard "
                            "input or a shell); the session is not changed: try again when "
                            "it ends"
                        )
                    time.sleep(0.01)
            except BaseException:
                os.close(lease)
                raise
        except BaseException:
            os.close(gate)
            raise
        self._fds = lease, gate

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        lease, gate = self._fds
        try:
            os.close(lease)
        finally:
            os.close(gate)


class Lease:
    """A run's hold on the open session while it has positions taken and rolls not yet
    committed (`hold` at the first, `release` at each group commit). One run holds it at
    a time, so that no other run's rows come between a run's positions and its rows (the
    receipts chain in the order rows are written); another run waits up to WAIT seconds
    for it (a run lets it go at each group commit), then StateError."""

    def __init__(self) -> None:
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def hold(self) -> None:
        if self._fd is not None:
            return
        gate = _lock_file(".gate")
        try:
            _flock(gate, "shared")  # waits while a seal or unseal is changing the session
            fd = _lock_file(".lock")
            deadline = time.monotonic() + WAIT
            while not _flock(fd, "exclusive", wait=False):
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise StateError(
                        "another run is rolling in the sealed session (a batch on standard "
                        "input or a shell): try again when it ends"
                    )
                time.sleep(0.01)
        finally:
            os.close(gate)
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
