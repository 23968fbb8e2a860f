"""Where d20 keeps its files, and how it writes them.

One rule for the XDG base directories (`xdg_dir`): a variable is used when it holds an
absolute path; unset, empty or relative, it is ignored (as the XDG Base Directory
specification says) and the default under the home directory is used, so a relative
`XDG_CACHE_HOME` never writes into the current directory. The home directory is `$HOME`
when that is absolute, else the one the password database gives.

Plain path strings and `os` only: this module is on the start-up path of a roll.
"""

from __future__ import annotations

import os


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
