"""`d20 char import FILE`: a character sheet saved by another program read, bounded, into a
character of the characters file (d20cli.store.characters), and `d20cli.import_character`.

The file is bounded before it is parsed: a regular file of at most MAX_SHEET_BYTES of UTF-8
(d20cli.store.files.read_text refuses a larger one without reading it), whose JSON nests
at most MAX_SHEET_DEPTH arrays and objects deep (counted on the text in one linear pass, in C,
before `json` sees it). Then the format is detected and read (d20cli.importers), every
entry's words are checked as a request would read them, and the character is made or
updated (`characters.import_entries`): entries the last import made are replaced,
entries written by hand are kept. Nothing is written when anything is wrong, nor in a
dry run.
"""

from __future__ import annotations

import itertools
import operator
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from d20cli.errors import D20Error, ParseError
from d20cli.frozen import frozen
from d20cli.importers import FORMATS, SYSTEMS, Sheet, read_sheet
from d20cli.store.characters import ImportChanges, import_entries
from d20cli.visible import visible

MAX_SHEET_BYTES = 8 * 1024 * 1024  # a sheet file (a D&D Beyond character of level 20: ~1 MB)
MAX_SHEET_DEPTH = 64  # arrays and objects in one another in a sheet's JSON (Foundry's: ~12)
_STRING = re.compile(r'"[^"]*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_WEIGHT = str.maketrans({"[": "\x02", "{": "\x02", "]": "\x00", "}": "\x00"})
#: A name on a sheet that may name a character: letters, digits, spaces, `'`, `.`, `-`, `_`.
_SHEET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 '._-]{0,39}")


def nesting(text: str) -> int:
    """How deep the arrays and objects of JSON `text` nest, from its text alone: escaped
    backslashes and quotes dropped, strings dropped, and the depth after each bracket left
    (each opening bracket weighs 2, a closing one 0: the running sum less the count is the
    depth) summed by C iterators, so no text is too long or too deep for it."""
    plain = text.replace("\\\\", "").replace('\\"', "")
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", plain))
    if not brackets:
        return 0
    weights = brackets.translate(_WEIGHT).encode("latin-1")
    return int(max(map(operator.sub, itertools.accumulate(weights), itertools.count(1))))


def read_json(path: str | os.PathLike[str]) -> Any:
    """The parsed JSON of the file at `path`, bounded (ParseError naming the file)."""
    import json

    from d20cli.store.files import read_text

    where = os.fspath(path)
    text = read_text(where, MAX_SHEET_BYTES, "a character sheet")
    depth = nesting(text)
    if depth > MAX_SHEET_DEPTH:
        raise ParseError(
            f"{visible(where)}: JSON nested {depth:,} deep; a character sheet nests at most "
            f"{MAX_SHEET_DEPTH}"
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ParseError(
            f"{visible(where)}, line {err.lineno}, column {err.colno}: not JSON ({err.msg}); "
            "d20 char import reads the JSON a program exported"
        ) from None
    except (ValueError, RecursionError) as err:  # a number of 5,000 digits
        raise ParseError(f"{visible(where)}: not JSON d20 reads ({err})"[:300]) from None


def load_sheet(
    path_or_data: str | os.PathLike[str] | Mapping[str, Any], system: str | None = None
) -> Sheet:
    """The sheet in a file (a path) or in parsed JSON (a mapping), read and checked: its
    entries' words read as requests, and `system` (an id or alias), when given, one that
    the format fits. ParseError for anything else."""
    if isinstance(path_or_data, Mapping):
        from d20cli.store.files import deeper_than

        if deeper_than(path_or_data, MAX_SHEET_DEPTH):
            raise ParseError(f"the data nests deeper than {MAX_SHEET_DEPTH}")
        data: Any = path_or_data
    elif isinstance(path_or_data, str | os.PathLike):
        data = read_json(path_or_data)
    else:
        raise ParseError(f"import a path or parsed JSON, not {type(path_or_data).__name__}")
    sheet = read_sheet(data)
    if system is not None:
        from d20cli.rules import system_id

        wanted = system_id(system)
        if wanted != sheet.system:
            raise ParseError(
                f"a {FORMATS[sheet.format]} is a {sheet.system} character, not {wanted}: "
                f"d20 imports it as {SYSTEMS[sheet.format]}"
            )
    _check_words(sheet)
    return sheet


def _check_words(sheet: Sheet) -> None:
    """Every entry's words read as a request would read them (a macro's: a request)."""
    from d20cli.language.grammar import parse_request

    for entry in sheet.entries:
        name = entry.key.split(".")[-1]
        text = entry.words if entry.key.startswith("macros.") else f"check {name} {entry.words}"
        try:
            parse_request(text)
        except D20Error as err:
            raise ParseError(
                f"the sheet's {entry.source}: the words {entry.words!r} do not read ({err.message})"
            ) from None


def character_name(sheet: Sheet, given: str | None) -> str:
    """The character's name: `given` (--as), else the sheet's name made a name (`Aria
    Brightwood` -> `aria-brightwood`). A sheet's name with anything else (control
    characters, markup, other letters) is an error asking for --as."""
    if given is not None:
        return given
    if not _SHEET_NAME.fullmatch(sheet.name.strip()):
        raise ParseError(
            f"the sheet's name '{visible(sheet.name[:60])}' cannot name a character (letters, "
            "digits, spaces, ' . - _; at most 40): give one with --as NAME"
        )
    made = re.sub(r"[^a-z0-9_-]+", "-", sheet.name.strip().lower().replace("'", ""))
    return made.strip("-") or "character"


@frozen
class Imported:
    """An import done (or, dry, shown): the sheet, the file it came from, the character's
    name and what changed in its table."""

    sheet: Sheet
    source: str
    changes: ImportChanges
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            **self.sheet.to_json(),
            "character": self.changes.name,
            "source": self.source,
            "dry_run": self.dry_run,
            "changes": self.changes.to_json(),
        }


def import_file(
    path: str,
    name: str | None = None,
    system: str | None = None,
    dry_run: bool = False,
    today: str | None = None,
    characters_file: Path | None = None,
) -> Imported:
    """`d20 char import FILE [--as NAME] [--system ID] [--dry-run]`."""
    import datetime

    sheet = load_sheet(path, system)
    who = character_name(sheet, name)
    source = str(Path(path).resolve())
    record: dict[str, Any] = {
        "format": sheet.format,
        "version": sheet.version,
        "source": source,
        "date": today or datetime.date.today().isoformat(),
        **{k: v for k, v in sheet.facts.items()},
    }
    changes = import_entries(
        who,
        sheet.system,
        sheet.words(),
        record,
        set_system=system is not None,
        dry_run=dry_run,
        path=characters_file,
    )
    return Imported(sheet, source, changes, dry_run)
