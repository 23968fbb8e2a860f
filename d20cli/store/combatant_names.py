"""The names in the encounter's order, as a small text file beside the state database
(`NAMES_FILE`, one a line), which d20cli.store.initiative writes at each change of the
encounter: the shell completion scripts read it without starting Python (`d20 init
hurt` then TAB), and a request rolled as a character reads it to know, without opening
the database, whether that character is in the encounter at all (`listed`).
"""

from __future__ import annotations

import os

#: The file beside state.db that names the combatants in the order, one a line (read by
#: the completion scripts); only names that are one word of printable characters, at most
#: NAME_MOST characters long, are written.
NAMES_FILE = "combatants"
NAME_MOST = 64
#: The most of the file `listed` reads (the order holds at most 100 names of NAME_MOST).
MOST_BYTES = 64 * 1024


def listed(name: str) -> bool:
    """Whether `name` (any case) may be in the encounter's order: False when the names
    file has no such line or there is no file (no encounter was ever kept); True when it
    has, or when the file cannot be read (then only the database can tell)."""
    from d20cli.store.files import no_such_file, read_bytes, xdg_dir

    # beside the state database (d20cli.store.database.state_dir), found as the seal
    # marker is: light, with no sqlite3 to import
    state = xdg_dir("XDG_STATE_HOME", os.path.join(".local", "state"))
    path = os.path.join(state, "d20cli", NAMES_FILE)
    try:
        text = read_bytes(path, MOST_BYTES, "the combatants file").decode("utf-8", "replace")
    except OSError as err:
        return not no_such_file(err)
    low = name.lower()
    return any(line.lower() == low for line in text.splitlines())


__all__ = ["MOST_BYTES", "NAMES_FILE", "NAME_MOST", "listed"]
