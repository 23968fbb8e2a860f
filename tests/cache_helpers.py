"""Cache files as tests make them: `written` writes one as this user's d20 would (its MAC
under the user's key, the current modules' stamp) holding whatever fields a test gives, so
a test reaches the checks behind the MAC; `fields_of` reads a file's data; `forged`
changes a file's data and keeps its MAC (which then no longer matches)."""

from __future__ import annotations

import marshal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from d20cli.store import request_cache


def written(
    path: Path,
    fields: dict[str, Any],
    stamp: str | None = None,
    splice: tuple[str, bytes] | None = None,
) -> None:
    """A cache file at `path` holding `fields` (a section of entries, or anything else),
    under the user's key and the stamp of the modules imported now (or `stamp`), in
    marshal's format as d20 writes it. `splice`: (a string among the fields, the bytes
    written wherever it stands: data marshal's dumps would not write); the file is then
    written in marshal's version 2, which holds no references, so that the bytes stand in
    the string's place and nothing else moves."""
    import d20cli.language.grammar  # noqa: F401  (its modules listed, as a run's are)

    modules = request_cache.imported_modules()
    head = {"stamp": stamp or request_cache._stamp(modules), "modules": modules}
    key = request_cache.cache_key() or request_cache.new_cache_key()
    path.parent.mkdir(parents=True, exist_ok=True)
    if splice is None:
        body = marshal.dumps({**head, **fields}, request_cache._MARSHAL)
    else:
        body = marshal.dumps({**head, **fields}, 2)
        old = marshal.dumps(splice[0], 2)
        assert old in body, splice[0]
        body = body.replace(old, splice[1])
    path.write_bytes(request_cache.sealed(body, key))


def fields_of(path: Path) -> Any:
    """The data of a cache file, with its MAC (in hex) under "mac"; the MAC not checked."""
    data = path.read_bytes()
    assert data.startswith(request_cache.MAGIC), data[:40]
    mac = data[len(request_cache.MAGIC) : request_cache._HEAD_BYTES]
    return {"mac": mac.hex(), **marshal.loads(data[request_cache._HEAD_BYTES :])}


def forged(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """The file at `path` with its data changed by `change` (given the data, which it
    changes in place), its MAGIC and MAC kept as they were: a forgery of the real file."""
    data = path.read_bytes()
    head = data[: request_cache._HEAD_BYTES]
    fields = marshal.loads(data[request_cache._HEAD_BYTES :])
    change(fields)
    path.write_bytes(head + marshal.dumps(fields, request_cache._MARSHAL))


def unshipped(*texts: str) -> None:
    """Fail unless no text's shape is among those shipped with d20
    (d20cli.language.common_shapes): a test of what a run learns or parses needs a text
    that the shipped shapes do not serve (pick another if the list has grown)."""
    from d20cli.language.common_shapes import TEMPLATES
    from d20cli.language.shapes import key, split

    for text in texts:
        parts = split(text)
        shape = None if parts is None else key(parts[0])
        assert shape not in TEMPLATES, f"{text!r}: its shape is shipped with d20"
