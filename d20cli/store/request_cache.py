"""A small cache of parsed requests on disk, so a repeated request starts without
pyparsing.

Building the pyparsing grammar and importing pyparsing take about half of a cold start;
at the table the same few requests come again and again. The cache maps a request's text
to its parsed Request, stored as JSON (never pickle: loading it runs no code) with each
dataclass tagged by name, and only the request and dice-expression classes of this
package may be named. It is keyed by the sizes and modification times of the modules that
define the language, so any change to them empties it.

Where: $XDG_CACHE_HOME/d20cli/requests.json (default ~/.cache/d20cli/requests.json; a
relative XDG_CACHE_HOME is ignored, see d20cli.store.files);
`D20_NO_CACHE=1` turns it off. It holds at most MAX_ENTRIES requests (the most recently
used) in at most MAX_FILE_BYTES (an entry over MAX_ENTRY_BYTES is not kept; trimming is
linear), and is written atomically (temporary file, then rename).

The file is not trusted: every entry is checked as strictly as the grammar would have
(d20cli.language.parse_cache.decode), and a file that is too big, is not JSON, or holds
one entry that fails the check is dropped as a whole, with one warning, and replaced: it
is a cache, it holds nothing the user saved.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from d20cli.language.parse_cache import classes, decode, encode
from d20cli.store.files import atomic_write, env_flag, read_bytes, xdg_dir

MAX_ENTRIES = 256
MAX_FILE_BYTES = 1_000_000  # about 8 ms to read at start-up
MAX_ENTRY_BYTES = 100_000  # a bigger request (a group of many hundred members) is parsed
#: The modules that define the language, relative to the package's folder.
_LANGUAGE_MODULES = (
    "language/grammar.py",
    "language/check_grammar.py",
    "language/roll_parts.py",
    "language/grammar_checks.py",
    "language/dice_grammar.py",
    "language/dice_modifiers.py",
    "language/requests.py",
    "language/vocabulary.py",
    "dice/tree.py",
    "dice/modifiers.py",
)


def cache_path() -> str | None:
    """The cache file (a plain path string: pathlib costs 3 ms at start-up)."""
    if env_flag("D20_NO_CACHE"):
        return None
    return os.path.join(xdg_dir("XDG_CACHE_HOME", ".cache"), "d20cli", "requests.json")


def _stamp(more: tuple[str, ...] = ()) -> str:
    """The version of the request language: its modules' sizes and modification times (an
    upgrade or an edit rewrites them; importlib.metadata would cost 17 ms at start-up);
    `more`: other modules (relative to the package's folder) the cache depends on."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = []
    for name in _LANGUAGE_MODULES + more:
        try:
            st = os.stat(os.path.join(here, name))
            parts.append(f"{st.st_size}-{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return "2:" + ",".join(parts)


def _warn(message: str) -> None:
    sys.stderr.write(f"d20: warning: {message}\n")


class CacheFile:
    """A cache file of one run (JSON: the language's `stamp` and a table of entries under
    SECTION): read on first use, written once at the end if it changed. A file that is
    too big, is not JSON, is not such a cache, or holds an entry `_bad_entries` finds
    wrong, is dropped as a whole with one warning (it is replaced at the end of the run);
    a file of another version of the language is quietly replaced."""

    NAME = "cache"  # as warnings name it
    SECTION = "entries"  # the file's table of entries
    MODULES: tuple[str, ...] = ()  # modules besides the language's it depends on

    def __init__(self, path: str | None, warn: Callable[[str], None] = _warn) -> None:
        self.path = path
        self.warn = warn
        self._entries: dict[str, Any] | None = None
        self._stamp = ""
        self._dirty = False

    def _load(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = {}
            self._stamp = _stamp(self.MODULES)
            if self.path is not None:
                self._entries = self._read(self.path)
        return self._entries

    def _read(self, path: str) -> dict[str, Any]:
        try:
            raw_bytes = read_bytes(path, MAX_FILE_BYTES, "a cache file")
        except FileNotFoundError:
            return {}  # none yet
        except OSError as err:
            if err.errno in (errno.EFBIG, errno.EINVAL):  # too big, or not a regular file
                return self._drop(err.strerror or str(err))
            return {}  # unreadable: then it cannot be replaced either
        try:
            raw = json.loads(raw_bytes.decode("utf-8").removeprefix("\ufeff"))
        except (ValueError, RecursionError):
            return self._drop("it is not JSON")
        if not isinstance(raw, dict):
            return self._drop("it is not a cache")
        if raw.get("stamp") != self._stamp:
            return {}  # another version of the language: not an error
        entries = raw.get(self.SECTION)
        if not isinstance(entries, dict) or len(entries) > MAX_ENTRIES:
            return self._drop(f"its {self.SECTION} are not a cache")
        why = self._bad_entries(entries)
        return entries if why is None else self._drop(why)

    def _bad_entries(self, entries: dict[str, Any]) -> str | None:
        """Why the file's entries are not this cache's (None: they may be)."""
        return None

    def _drop(self, why: str) -> dict[str, Any]:
        """Forget the whole file (it is replaced at the end of the run), with a warning."""
        self.warn(f"the {self.NAME} {self.path} was dropped: {why}")
        self._dirty = True
        self._entries = {}
        return self._entries

    def _remember(self, key: str, entry: Any) -> None:
        """Keep `entry` under `key` as the most recent (the oldest go past MAX_ENTRIES)."""
        entries = self._load()
        entries.pop(key, None)
        entries[key] = entry
        if len(entries) > MAX_ENTRIES:  # the oldest go, in one linear pass
            kept = list(entries.items())[-MAX_ENTRIES:]
            entries.clear()
            entries.update(kept)
        self._dirty = True

    def save(self) -> None:
        """Write the file if it changed (atomically; a failure is silently skipped: a
        cache that cannot be written only means the next start parses again): the most
        recent entries that fit in MAX_FILE_BYTES."""
        if not self._dirty or self.path is None or self._entries is None:
            return
        self._dirty = False
        parts: list[str] = []
        size = 100
        for key, data in reversed(self._entries.items()):
            part = f"{json.dumps(key)}: {json.dumps(data)}"
            size += len(part.encode("utf-8")) + 2
            if size > MAX_FILE_BYTES:
                break
            parts.append(part)
        parts.reverse()
        section = json.dumps(self.SECTION)
        text = f'{{"stamp": {json.dumps(self._stamp)}, {section}: {{{", ".join(parts)}}}}}'
        with contextlib.suppress(OSError):
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            atomic_write(self.path, text)


class ParseCache(CacheFile):
    """The parsed requests by their text."""

    NAME = "parse cache"
    SECTION = "requests"

    def __init__(self, path: str | None, warn: Callable[[str], None] = _warn) -> None:
        super().__init__(path, warn)
        self._classes: dict[str, type] | None = None

    def get(self, text: str) -> Any:
        if self.path is None:
            return None
        data = self._load().get(text)
        if data is None:
            return None
        if self._classes is None:
            self._classes = classes()
        try:
            return decode(data, self._classes, text)
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as err:
            self._drop(f"an entry is not a request the grammar would give ({err})")
            return None

    def put(self, text: str, request: Any) -> None:
        if self.path is None:
            return
        try:
            data = encode(request)
        except TypeError:
            return
        if len(text) + len(json.dumps(data)) > MAX_ENTRY_BYTES:
            return
        self._remember(text, data)
