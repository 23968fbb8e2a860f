"""Cache files as tests make them: `written` writes one as this user's d20 would (its MAC
under the user's key, the current modules' stamp) holding whatever fields a test gives, so
a test reaches the checks behind the MAC; `fields_of` reads a file's JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from d20cli.store import request_cache


def written(
    path: Path, fields: dict[str, Any], stamp: str | None = None, splice: tuple[str, str] = ("", "")
) -> None:
    """A cache file at `path` holding `fields` (a section of entries, or anything else),
    under the user's key and the stamp of the modules imported now (or `stamp`); `splice`:
    (old, new) replaced in its JSON text before it is sealed (JSON no encoder would write)."""
    import d20cli.language.grammar  # noqa: F401  (its modules listed, as a run's are)

    modules = request_cache.imported_modules()
    head = {"stamp": stamp or request_cache._stamp(modules), "modules": modules}
    key = request_cache.cache_key() or request_cache.new_cache_key()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps({**head, **fields})
    if splice[0]:
        body = body.replace(*splice)
    path.write_text(request_cache.sealed(body, key))


def fields_of(path: Path) -> Any:
    """The JSON of a cache file (its MAC among the fields)."""
    return json.loads(path.read_text())
