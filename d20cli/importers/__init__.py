"""Character sheets from other programs, read into a character's entries (`d20 char import`,
`d20cli.import_character`): one module per format, each pure (parsed JSON in; entries and
the reasons for what it did not map out; no I/O).

- `a5e`: a Foundry VTT actor of the official Level Up A5E system (`system` id `a5e`), as
  Foundry's "Export Data" writes it: `{name, type, system: {...}, items: [...]}`.
- `mm3`: a Foundry VTT actor of Mutants & Masterminds 3e (`Zakarik/foundry-mm3`, actor
  type `personnage`).
- `beyond`: a D&D Beyond character as its character service gives it (the JSON the user
  saved: `{"success": true, "data": {...}}`, or the character object itself).

`read_sheet(data)` detects the format (`detect`) and hands the data to its module, which
returns a `Sheet`: the character's name on the sheet, the system it plays, its `Entry`s
(a key such as `checks.stealth` and the request words it holds, with the sheet fields it
came from) and what was `NotMapped` and why. A field the reader needs that is missing or
of the wrong type is a ParseError that names it (`Fields`); so is a schema version the
reader does not know, with the versions it knows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from d20cli.errors import ParseError
from d20cli.importers.sheet import (
    FORMATS,
    MAX_KEY,
    SYSTEMS,
    Entry,
    Fields,
    NotMapped,
    Sheet,
    kind_of,
)
from d20cli.visible import visible


def detect(data: Any) -> str:
    """The format of parsed JSON (an id of FORMATS), else ParseError saying what it is."""
    if not isinstance(data, Mapping):
        raise ParseError(f"not a character sheet: the JSON is {kind_of(data)}, not an object")
    from d20cli.importers import a5e, beyond, mm3

    for fmt, module in (("a5e", a5e), ("mm3", mm3), ("beyond", beyond)):
        if module.looks_like(data):
            return fmt
    kind = data.get("type") if isinstance(data.get("type"), str) else None
    said = f" (a '{visible(kind[:40])}' document)" if kind else ""
    raise ParseError(
        f"not a character sheet d20 reads{said}: it reads a " + ", a ".join(FORMATS.values())
    )


def read_sheet(data: Any, fmt: str | None = None) -> Sheet:
    """The sheet in parsed JSON, in its format (`fmt`, else detected)."""
    from d20cli.importers import a5e, beyond, mm3

    fmt = fmt or detect(data)
    readers = {"a5e": a5e.read, "mm3": mm3.read, "beyond": beyond.read}
    return readers[fmt](data)


__all__ = [
    "FORMATS",
    "MAX_KEY",
    "SYSTEMS",
    "Entry",
    "Fields",
    "NotMapped",
    "Sheet",
    "detect",
    "read_sheet",
]
