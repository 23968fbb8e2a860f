"""Where d20 keeps its files, and how it writes them.

One rule for the XDG base directories (`xdg_dir`): a variable is used when it holds an
absolute path; unset, empty or relative, it is ignored (as the XDG Base Directory
specification says) and the default under the home directory is used, so a relative
`XDG_CACHE_HOME` never writes into the current directory. The home directory is `$HOME`
when that is absolute, else the one the password database gives.

Reading (`read_bytes`, `read_text`): every file d20 reads goes through here, bounded: a
regular file only (a FIFO or a device such as /dev/zero, even behind a link, is refused
before a byte is read, and opening never waits for a FIFO's writer), at most a limit of
bytes set by its reader, UTF-8 text with a byte order mark allowed at its start.
`deeper_than` bounds how deeply a value read from a file or the state database nests.

Writing (`atomic_write`, `open_lock`): every file d20 writes is replaced atomically
through a temporary made with O_EXCL, and no symbolic link is followed at a temporary's or
a lock's name.

Editing a TOML file the user keeps (the config and characters files: `edit_lock`,
`parse_for_edit`, `put_key`, `write_edit`): under a lock file, so two writers do not lose
each other's change; parsed with tomlkit, which keeps the comments and the layout; written
atomically and durably, through a symbolic link at the file's place. Each failure is a
ParseError naming the file.

Plain path strings and `os` only: this module is on the start-up path of a roll.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from d20cli.errors import ParseError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any, BinaryIO

MAX_EXPORT_BYTES = 64 * 1024 * 1024  # of a roll log export read (`d20 verify`, `d20cli.luck`)

if TYPE_CHECKING:
    from pathlib import Path


def home_dir() -> str:
    """The user's home directory: $HOME if it is an absolute path, else the password
    database's entry for the user (else whatever Python makes of `~`)."""
    home = os.environ.get("HOME", "")
    if os.path.isabs(home):
        return home
    try:
        import pwd

        entry = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError):  # no such user, or not POSIX
        entry = ""
    return entry if os.path.isabs(entry) else os.path.expanduser("~")


def xdg_dir(variable: str, default: str) -> str:
    """An XDG base directory: the variable's value when it is an absolute path, else
    `default` (relative to the home directory, e.g. ".cache")."""
    value = os.environ.get(variable, "").strip()
    if os.path.isabs(value):
        return value
    return os.path.join(home_dir(), default)


def read_bytes(path: str, most: int, what: str = "a file", *, tail: bool = False) -> bytes:
    """The bytes of the regular file at `path`: OSError for anything else (FileNotFoundError
    when there is none; a FIFO or a device is refused without waiting or reading), and
    for a file over `most` bytes (`what` names it in the message: "a config file").
    tail: a longer file gives its last `most` bytes instead (the shell's history)."""
    import errno
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise OSError(errno.EISDIR, "it is a directory, not a file", path)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        data = b""
        if tail and st.st_size > most:
            os.lseek(fd, st.st_size - most, os.SEEK_SET)
        if tail or st.st_size <= most:  # (it may have grown since: read one byte more)
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read(most + 1)
    finally:
        os.close(fd)
    if tail:
        return data[-most:] if most else b""
    if len(data) > most or st.st_size > most:
        size = max(st.st_size, len(data))
        raise OSError(
            errno.EFBIG, f"{what} is at most {most:,} bytes, and this one is {size:,}", path
        )
    return data


def open_named(path: str) -> BinaryIO:
    """The file a user named on the command line for d20 to read a piece at a time, up
    to a limit of its own (`d20 verify`'s export and receipts): a regular file, a pipe
    (`<(d20 log --export json)`), or `-` for standard input. OSError when it cannot be
    opened (a directory among them); a device reads as what it gives, which the reader's
    limit bounds."""
    import sys

    if path == "-":
        return sys.stdin.buffer
    return open(path, "rb")


def no_such_file(err: OSError) -> bool:
    """Whether `err` (from a stat or an open) says there is no file there and cannot be:
    none by that name, a file where a folder should be, or a name too long for the file
    system (an XDG directory of over 255 bytes). A folder d20 may not enter is not one."""
    import errno

    return err.errno in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG)


def read_text(path: str, most: int, what: str = "a file") -> str:
    """The UTF-8 text of the regular file at `path` (`read_bytes`), a byte order mark at
    its start left out. ParseError naming the file for anything it cannot be: no such
    file, not a regular file, over `most` bytes, not UTF-8 (with the line of the bad byte)."""
    from d20cli.errors import ParseError

    try:
        data = read_bytes(path, most, what)
    except OSError as err:
        raise ParseError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ParseError(
            f"{path}, line {line}: not UTF-8 text (byte {err.start + 1}); save the file as UTF-8"
        ) from None


def deeper_than(value: object, most: int) -> bool:
    """Whether `value` (read from JSON or TOML) nests more than `most` lists and tables
    deep: checked level by level, never recursively, so no depth is too much for it."""
    level = [value]
    depth = 0
    while True:
        inner: list[object] = []
        containers = False
        for item in level:
            if isinstance(item, dict):
                inner.extend(item.values())
                containers = True
            elif isinstance(item, list | tuple):
                inner.extend(item)
                containers = True
        if not containers:
            return False
        depth += 1
        if depth > most:
            return True
        level = inner


def atomic_write(
    path: str,
    text: str | bytes,
    *,
    follow_link: bool = False,
    durable: bool = False,
    private: bool = True,
) -> None:
    """Replace the file at `path` with `text` (UTF-8; bytes as they are) atomically:
    readers see the old file or the new one, never a part. Every writer of d20's files
    goes through here.

    The text goes to a temporary file in the same directory (`_temporary`: a random name
    created with O_EXCL, as `tempfile.mkstemp` makes one), so nothing already there (a
    symbolic link planted at a guessable name) is ever opened or followed. It is then
    renamed over `path`; when anything fails, even an interrupt, the temporary is removed
    and the error raised.

    follow_link: a symbolic link at `path` is written through (its target is replaced and
    the link stays: a dotfiles set-up); otherwise the link itself is replaced.
    durable: fsync the data before the rename (files the user keeps; not a cache).
    An existing regular file keeps its permissions; a new file is private (0600), or
    with `private` False as the umask makes a new file (a chart to share: `--svg`).
    The directory must exist. OSError when the file cannot be written."""
    import stat

    target = os.path.realpath(path) if follow_link else os.path.abspath(path)
    folder, name = os.path.split(target)
    try:
        old = os.stat(target, follow_symlinks=False)
        mode = stat.S_IMODE(old.st_mode) if stat.S_ISREG(old.st_mode) else None
    except FileNotFoundError:
        mode = None
    if mode is None and not private:
        mask = os.umask(0o022)
        os.umask(mask)
        mode = 0o666 & ~mask
    fd, tmp = _temporary(folder, name)
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:
                os.fchmod(f.fileno(), mode)
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _temporary(folder: str, name: str) -> tuple[int, str]:
    """A new file `.NAME.RANDOM.tmp` in `folder`, open for writing, private (0600): its
    descriptor and path. Made as `tempfile.mkstemp` makes one (O_EXCL on a random name,
    another name when one is taken, never following a link), without importing
    `tempfile`, which imports `random` and `shutil` (3 ms of a start that writes a cache)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no new temporary file name in {folder}")


def open_lock(path: str) -> int:
    """Open (creating it if need be) the lock file `path` and return its descriptor,
    never following a symbolic link there (it would create or truncate the link's target):
    OSError with ELOOP for a link, and for anything but a regular file."""
    import errno
    import stat

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", path)
    return fd


# --- editing a TOML file the user keeps ----------------------------------------------------


class edit_lock:
    """Hold an exclusive lock on `path`.lock while changing the file (POSIX; elsewhere the
    atomic rename alone protects the file): `with edit_lock(path):`. A class, not a
    `contextlib.contextmanager`: this module is on every start's path."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        import errno

        path = self.path
        lock = path.with_name(path.name + ".lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = open_lock(str(lock))
        except OSError as err:
            if err.errno == errno.ELOOP or os.path.islink(lock):
                raise ParseError(
                    f"cannot write {path}: its lock file {lock} is a symbolic link, which d20 "
                    "does not follow (remove it)"
                ) from None
            raise ParseError(f"cannot write {path}: {lock}: {err.strerror or err}") from None
        try:
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - not POSIX
            pass
        except BaseException:
            os.close(self._fd)
            raise

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        os.close(self._fd)


_TOO_DEEP = "cannot read {path}: its TOML is nested too deeply (fix the file; it was not changed)"


def parse_for_edit(text: str, path: Path) -> Any:
    """The tomlkit document of `text` (the file at `path`), which keeps its comments and
    layout; ParseError with the line and column for a file that does not parse."""
    import tomlkit
    from tomlkit.exceptions import ParseError as TomlError
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text)
    except TomlError as err:
        raise ParseError(
            f"cannot read {path}: line {err.line}, column {err.col}: "
            f"{str(err).split(' at line')[0]} (fix the file; it was not changed)"
        ) from None
    except (TOMLKitError, ValueError) as err:  # a table twice (`[a.b]` ... `[a.b]`), ...
        raise ParseError(f"cannot read {path}: {err} (fix the file; it was not changed)") from None
    except RecursionError:
        raise ParseError(_TOO_DEEP.format(path=path)) from None


def put_key(table: Any, key: str, value: Any) -> None:
    """Set `key` in a tomlkit table; a new key goes after the table's last value, before
    the comments and blank lines that end it (tomlkit would put it after them, under a
    comment that belongs to the next table)."""
    if key in table:
        table[key] = value
        return
    body = getattr(getattr(table, "value", None), "body", None)
    trailing: list[Any] = []
    while isinstance(body, list) and body and body[-1][0] is None:
        trailing.insert(0, body.pop())
    table[key] = value
    if isinstance(body, list):
        body.extend(trailing)


def write_edit(path: Path, text: str) -> None:
    """Write `text` to `path` atomically and durably (`atomic_write`); a symbolic link at
    `path` (a dotfiles set-up) is written through: its target gets the new text and the
    link stays a link. ParseError naming the file when it cannot be written."""
    try:
        atomic_write(str(path), text, follow_link=True, durable=True)
    except OSError as err:
        raise ParseError(f"cannot write {path}: {err.strerror or err}") from None


#: How an environment switch (D20_NO_LOG, D20_NO_CACHE) is read: these say no, any other
#: value that is not empty says yes.
FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})


def env_flag(name: str) -> bool:
    """Whether the environment switch `name` is on: `1`, `true`, `yes` (or any other value)
    turn it on; unset, empty, `0`, `false`, `no` and `off` leave it off."""
    return os.environ.get(name, "").strip().lower() not in FALSE_WORDS


def private_file(path: str) -> None:
    """Make sure `path` is a regular file of the user's, created private (0600) when it is
    new, before a library (SQLite, the shell's history) opens it by name: a symbolic link
    there is refused (OSError with ELOOP), never followed to create or overwrite its
    target; so is anything but a regular file."""
    import errno

    try:
        os.close(open_lock(path))
    except OSError as err:
        if err.errno == errno.ELOOP or os.path.islink(path):
            raise OSError(errno.ELOOP, _LINK, path) from None
        raise


_LINK = "a symbolic link, which d20 does not follow"


def no_link(path: str) -> None:
    """OSError (ELOOP) when `path` is a symbolic link (a file d20 would write beside
    another, such as SQLite's `-wal` and `-shm`)."""
    import errno

    if os.path.islink(path):
        raise OSError(errno.ELOOP, _LINK, path)


def move_aside(path: Path, warn: Callable[[str], None]) -> Path | None:
    """Rename an unreadable database (with its `-wal` and `-shm`) to `NAME.corrupt-<time>`,
    never over another file; None (after a warning) when it cannot be moved."""
    import time

    stamp = time.strftime("%Y%m%d-%H%M%S")
    moved = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while moved.exists():
        n += 1
        moved = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    try:
        os.replace(path, moved)
    except OSError as err:
        warn(f"cannot move the unreadable state database {path} aside ({err.strerror or err})")
        return None
    for suffix in ("-wal", "-shm"):  # the journal of the old file belongs with it
        side = path.with_name(path.name + suffix)
        if side.exists():
            try:
                os.replace(side, moved.with_name(moved.name + suffix))
            except OSError:
                pass
    return moved
