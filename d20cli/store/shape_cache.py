"""A small cache of request shapes on disk, so a new request of a known shape (`check +3
vs 12` after `check +5 vs 15`) starts without pyparsing.

The cache of parsed requests (d20cli.store.request_cache) serves a text seen before; at
the table most texts are new, but of a few shapes: the same words with other numbers.
This file maps a shape (the text with its numbers as slots, d20cli.language.shapes) to a
template of its request. A new text of a known shape is read from the template filled
with its numbers and checked as the grammar would check them; whenever the grammar might
read it otherwise or refuse it, the text is parsed (errors and carets come from the
grammar only). A shape is learnt from a text the grammar has just parsed, by parsing a
few probes of it (one parse, for most shapes): the first MAX_BUILDS new shapes of a run,
and after them a shape the run meets a second time, so a batch of new lines learns the
shapes it repeats and does not pay for probing a shape it meets once.

Where: $XDG_CACHE_HOME/d20cli/shapes.json (default ~/.cache/d20cli/shapes.json);
`D20_NO_CACHE=1` turns it off with the request cache. Bounded like the request cache:
at most MAX_CACHE_ENTRIES shapes (the most recently learnt), MAX_CACHE_FILE_BYTES in all and
MAX_ENTRY_BYTES each, trimmed in one linear pass, written atomically; keyed by the
modules that wrote it (the grammar's, d20cli/language/shapes.py and the probes'), so any
change to them empties it.

The file is not trusted: it is used only under the MAC of this user's key, as the request
cache is (a template's slots swapped in a file copied from elsewhere or edited would read
`check +2 vs 18` as +18 vs 2); a file that is too big, fails the MAC, is not JSON or not
a cache of shapes, or holds an entry that is not a template of its own shape, is dropped
as a whole and rebuilt, told to the debug log only (`D20_DEBUG=1`); a template filled is
checked as strictly as a cached request (parse_cache.decode) and by the grammar's own
limits, and anything doubtful is parsed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from d20cli.bounded import declare
from d20cli.language import shapes
from d20cli.language.shape_probes import build
from d20cli.store.files import env_flag, xdg_dir
from d20cli.store.request_cache import MAX_ENTRY_BYTES, CacheFile, debug

MAX_BUILDS = 4  # new shapes learnt in one run at their first sight (after: at the second)
_MET = declare(
    "shape_cache.met",
    holds="a shape this run has met once and not learnt -> True",
    buys="3,000 new lines in one run: 7.3 s -> 1.9 s of CPU (the shapes they repeat learnt)",
)
_KEYS = frozenset({"shape", "fixed", "tree"})


def shape_path() -> str | None:
    """The shapes file (None when the caches are off)."""
    if env_flag("D20_NO_CACHE"):
        return None
    return os.path.join(xdg_dir("XDG_CACHE_HOME", ".cache"), "d20cli", "shapes.json")


class ShapeCache(CacheFile):
    """The templates of request shapes, by shape."""

    NAME = "shape cache"
    SECTION = "shapes"

    def __init__(self, path: str | None, debug: Callable[[str], None] = debug) -> None:
        super().__init__(path, debug)
        self.builds = 0
        self.met = _MET.new()

    def _bad_entries(self, entries: dict[str, Any]) -> str | None:
        for shape, entry in entries.items():
            if not (
                isinstance(entry, dict)
                and entry.keys() == _KEYS
                and entry["shape"] == shape
                and isinstance(entry["fixed"], list)
                and isinstance(entry["tree"], dict)
            ):
                return "an entry is not a template of its shape"
        return None

    def get(self, text: str) -> Any:
        """The request `text` means, from its shape's template; None when there is none or
        it does not fit (then the grammar reads the text)."""
        if self.path is None:
            return None
        parts = shapes.split(text)
        if parts is None:
            return None
        pieces, numbers = parts
        entry = self._load().get(shapes.key(pieces))
        if entry is None:
            return None
        try:
            return shapes.fill(entry, pieces, numbers, text)
        except shapes.Refused:
            return None
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as err:
            self._drop(f"an entry is not a template of its shape ({err})")
            return None

    def put(self, text: str, request: Any, parse: Callable[[str], Any]) -> None:
        """Learn the shape of `text`, which the grammar (`parse`) read as `request`."""
        parts = None if self.path is None else shapes.split(text)
        if parts is None:
            return
        if self.builds >= MAX_BUILDS:  # past the first few: a shape met a second time
            key = shapes.key(parts[0])
            if key not in self.met:
                self.met[key] = True
                return
        self.builds += 1
        built = build(text, request, parse)
        if built is None:
            return
        shape, entry = built
        if len(json.dumps(entry)) > MAX_ENTRY_BYTES:
            return
        self._remember(shape, entry)
