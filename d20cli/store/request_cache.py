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
used), is written atomically (temporary file, then rename), and a file that cannot be read
is ignored and replaced: it is a cache, it holds nothing the user saved.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

from d20cli.language.parse_cache import classes, decode, encode
from d20cli.store.files import atomic_write, xdg_dir

MAX_ENTRIES = 256
#: The modules that define the language, relative to the package's folder.
_LANGUAGE_MODULES = (
    "language/grammar.py",
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
    if os.environ.get("D20_NO_CACHE"):
        return None
    return os.path.join(xdg_dir("XDG_CACHE_HOME", ".cache"), "d20cli", "requests.json")


def _stamp() -> str:
    """The version of the request language: its modules' sizes and modification times (an
    upgrade or an edit rewrites them; importlib.metadata would cost 17 ms at start-up)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = []
    for name in _LANGUAGE_MODULES:
        try:
            st = os.stat(os.path.join(here, name))
            parts.append(f"{st.st_size}-{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return "1:" + ",".join(parts)


class ParseCache:
    """The cache file of one run: read on first use, written once at the end if it grew."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._entries: dict[str, Any] | None = None
        self._stamp: str | None = None
        self._dirty = False
        self._classes: dict[str, type] | None = None

    def _load(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = {}
            self._stamp = _stamp()
            if self.path is not None:
                try:
                    with open(self.path, encoding="utf-8") as f:
                        raw = json.load(f)
                    if isinstance(raw, dict) and raw.get("stamp") == self._stamp:
                        entries = raw.get("requests")
                        if isinstance(entries, dict):
                            self._entries = entries
                except (OSError, ValueError):
                    pass
        return self._entries

    def get(self, text: str) -> Any:
        if self.path is None:
            return None
        data = self._load().get(text)
        if data is None:
            return None
        if self._classes is None:
            self._classes = classes()
        try:
            return decode(data, self._classes)
        except (KeyError, TypeError, ValueError):
            self._load().pop(text, None)
            self._dirty = True
            return None

    def put(self, text: str, request: Any) -> None:
        if self.path is None:
            return
        try:
            data = encode(request)
        except TypeError:
            return
        entries = self._load()
        entries.pop(text, None)
        entries[text] = data
        while len(entries) > MAX_ENTRIES:
            entries.pop(next(iter(entries)))
        self._dirty = True

    def save(self) -> None:
        """Write the cache if it changed (atomically; a failure is silently skipped: a
        cache that cannot be written only means the next start parses again)."""
        if not self._dirty or self.path is None or self._entries is None:
            return
        self._dirty = False
        text = json.dumps({"stamp": self._stamp, "requests": self._entries})
        with contextlib.suppress(OSError):
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            atomic_write(self.path, text)
