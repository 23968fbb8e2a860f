"""What `d20 verify` reads (d20cli.app.commands.verify): the `d20 log --export json` of a sealed
session, a piece at a time, each row's fields checked for their types; and the receipts
the table saw (`--receipts FILE`). Anything that is not one is a ParseError with one
line that says what and where."""

from __future__ import annotations

import codecs
import json
import os
import re
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from d20cli.dice.sealed import MIN_SEEN, SCHEMES
from d20cli.errors import ParseError
from d20cli.language.parse_cache import MAX_JSON_DEPTH
from d20cli.store.files import MAX_EXPORT_BYTES, deeper_than, open_named
from d20cli.visible import visible

MAX_ROW_BYTES = 4 * 1024 * 1024  # of one row of it
CHUNK = 1024 * 1024  # the export is read (and parsed) this much at a time
MAX_RECEIPTS_BYTES = 4 * 1024 * 1024  # of a --receipts file
MAX_EXPORT_POSITION = 2**63 - 1
SHOWN = 40  # characters of a value from the file that a message shows

#: The fields of an exported row that verify reads, and the JSON types each may hold.
FIELDS: dict[str, tuple[type, ...]] = {
    "id": (int,),
    "system": (str,),
    "verb": (str,),
    "request": (str,),
    "dice": (list,),
    "total": (int, type(None)),
    "outcome": (str, type(None)),
    "house": (dict, type(None)),
    "session": (int, type(None)),
    "position": (int, type(None)),
    "replay": (dict, type(None)),
    "commitment": (str, type(None)),
    "at": (str,),
    "character": (str, type(None)),
    "prev_hash": (str,),
    "hash": (str,),
}
#: Fields an export of an older d20cli does not have (a row without one reads null).
LATER_FIELDS: dict[str, tuple[type, ...]] = {
    "receipt": (str, type(None)),
    "scheme": (int,),  # scheme 2 on: d20cli.dice.sealed
    "salt": (str, type(None)),
    "secret": (bool,),
}


def shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return visible(text if len(text) <= SHOWN else text[: SHOWN - 3] + "...")


def read_export(path: str) -> Iterator[dict[str, Any]]:
    """The rows of the export at `path` (`-`: standard input), read and parsed a piece at
    a time (a row is in memory while it is checked, never the whole file), each row's
    fields checked for their types; ParseError for anything that is not one, when it is
    reached."""
    name = visible(path)
    try:
        f = open_named(path)
    except OSError as err:
        raise ParseError(f"cannot read {name}: {err.strerror or err}") from None
    try:
        if path != "-" and os.fstat(f.fileno()).st_size > MAX_EXPORT_BYTES:
            raise _too_large(name)  # refused before it is read
        yield from export_rows(_chunks(f, name), name)
    finally:
        if path != "-":
            f.close()


def export_rows(pieces: Iterable[str], name: str = "the export") -> Iterator[dict[str, Any]]:
    """The rows of an export's text, given in pieces (a file's, as read; the whole text
    the verify page was given), each row's fields checked for their types; ParseError for
    anything that is not one, when it is reached (at most MAX_EXPORT_BYTES characters)."""
    yield from _rows(_Text(_bounded(pieces, name)), name)


def _bounded(pieces: Iterable[str], name: str) -> Iterator[str]:
    read = 0
    for piece in pieces:
        read += len(piece)
        if read > MAX_EXPORT_BYTES:
            raise _too_large(name)
        yield piece


def _too_large(name: str) -> ParseError:
    return ParseError(
        f"{name} is larger than {MAX_EXPORT_BYTES // 2**20} MiB, more than a roll log export "
        "verify reads (d20 log --export json --session N exports one session)"
    )


def _chunks(f: BinaryIO, name: str) -> Iterator[str]:
    """The text of `f`, CHUNK bytes at a time, at most MAX_EXPORT_BYTES."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    read = 0
    start = True  # no text decoded yet
    while True:
        try:
            data = f.read(CHUNK)
        except OSError as err:
            raise ParseError(f"cannot read {name}: {err.strerror or err}") from None
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as err:
            raise ParseError(f"{name} is not UTF-8 text (byte {read + err.start + 1})") from None
        if start and text:
            text, start = text.removeprefix("\ufeff"), False  # a byte order mark is allowed
        read += len(data)
        if read > MAX_EXPORT_BYTES:
            raise _too_large(name)
        if text:
            yield text
        if not data:
            return


_SPACE = re.compile(r"[ \t\n\r]*")


class _Text:
    """The export's text as it is read: what is left of the last piece, and the next."""

    def __init__(self, chunks: Iterator[str]) -> None:
        self.chunks = chunks
        self.buf = ""
        self.pos = 0
        self.done = False

    def more(self) -> bool:
        """Read the next piece (False: the text has ended)."""
        chunk = None if self.done else next(self.chunks, None)
        if chunk is None:
            self.done = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ("" at the end)."""
        while True:
            found = _SPACE.match(self.buf, self.pos)
            self.pos = found.end() if found else self.pos
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def value(self, decoder: json.JSONDecoder) -> tuple[Any, bool]:
        """The JSON value that starts here (True: read whole; False: longer than
        MAX_ROW_BYTES). JSONDecodeError or RecursionError when it is not JSON."""
        while True:
            try:
                value, end = decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if len(self.buf) - self.pos > MAX_ROW_BYTES:
                    return None, False
                if not self.more():
                    raise
                continue
            if end == len(self.buf) and self.more():  # (a number may go on)
                continue
            self.pos = end
            return value, True


def _rows(text: _Text, name: str) -> Iterator[dict[str, Any]]:
    decoder = json.JSONDecoder()
    first = text.peek()
    if first != "[":
        if not first:
            raise ParseError(f"{name} is empty, not a roll log export (d20 log --export json)")
        while len(text.buf) < MAX_ROW_BYTES and text.more():  # (the start of it, at most)
            pass
        try:  # a value that goes on past what was read is not an export either
            decoder.raw_decode(text.buf, text.pos)
        except json.JSONDecodeError as err:
            if err.pos < len(text.buf) or text.done:
                raise ParseError(f"{name} is not JSON ({visible(err.msg)[:80]})") from None
        except (ValueError, RecursionError):
            pass
        raise ParseError(f"{name} is not a roll log export (d20 log --export json)")
    text.pos += 1
    i = 0
    after = text.peek()
    while after != "]":
        i += 1
        if i > 1:
            if after != ",":
                raise ParseError(f"{name} is not JSON: " + _after(i - 1, after))
            text.pos += 1
            text.peek()
        try:
            row, whole = text.value(decoder)
        except RecursionError:
            raise ParseError(f"{name} is nested too deeply for a roll log export") from None
        except json.JSONDecodeError as err:
            raise ParseError(f"{name} is not JSON: row {i}: {visible(err.msg)[:80]}") from None
        except ValueError as err:  # a number of more digits than Python reads
            raise ParseError(f"{name}: row {i}: {visible(str(err))[:80]}") from None
        if not whole:
            raise ParseError(
                f"row {i} of {name} is larger than {MAX_ROW_BYTES // 2**20} MiB, more than "
                "a roll log's row holds"
            )
        _check_row(i, row)
        yield row
        after = text.peek()
    text.pos += 1
    if text.peek():
        raise ParseError(f"{name} is not JSON: something follows the closing ']'")


def _after(i: int, found: str) -> str:
    if not found:
        return f"it ends after row {i}, before its closing ']'"
    return f"row {i} is followed by {visible(found)!r}, not ',' or ']'"


def _check_row(i: int, row: Any) -> None:
    from d20cli.store.row_fields import MAX_ROW_DEPTH

    if not isinstance(row, dict):
        raise ParseError(f"row {i} of the export is not a JSON object")
    for name, kinds in FIELDS.items():
        if name not in row:
            raise ParseError(f"row {i} of the export has no {name!r} (d20 log --export json)")
        _check_type(i, name, row[name], kinds)
    for name, kinds in LATER_FIELDS.items():
        if name in row:  # (not set when it is not there: the row's hash is of what it has)
            _check_type(i, name, row[name], kinds)
    depths = (("dice", MAX_ROW_DEPTH), ("house", MAX_ROW_DEPTH), ("replay", MAX_JSON_DEPTH))
    for name, most in depths:
        if deeper_than(row[name], most):
            raise ParseError(f"row {i} of the export: {name!r} nests more than {most} levels deep")
    scheme = row.get("scheme", 1)
    if scheme not in SCHEMES:
        raise ParseError(
            f"row {i} of the export is of scheme {shown(scheme)}, which this d20 does not know "
            f"({', '.join(map(str, SCHEMES))}): a newer d20 made it"
        )
    position = row["position"]
    if position is not None and not 0 <= position <= MAX_EXPORT_POSITION:
        raise ParseError(f"row {i} of the export: 'position' is {shown(position)}")


def _check_type(i: int, name: str, value: Any, kinds: tuple[type, ...]) -> None:
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ParseError(f"row {i} of the export: {name!r} is {shown(value)}")


# --- the receipts the table saw ------------------------------------------------------------
#
# Each line is read once, by patterns that cannot backtrack over what they read (possessive
# quantifiers: a run of spaces is taken whole or not at all), so a line costs time in
# proportion to its length, whatever it holds; a JSON line is decoded by `json` (its
# nesting bounded by the recursion limit: RecursionError is a ParseError).

#: A receipt as a roll printed it (`sealed #12 (session 3) receipt 3f2a9c01b4d7e5f6`; a
#: Discord post writes the digits as code, between backquotes), or
#: noted by hand (`#12 3f2a9c01b4d7e5f6`, `12: 3f2a9c01b4d7e5f6`): its position and hex
#: digits. From 8 hex digits on a line is taken for a receipt, and one of fewer than
#: MIN_SEEN is refused: it binds too little.
_NOTED = re.compile(
    r"(?:sealed\s++)?#?+([0-9]{1,19}+)(?:\s*+:\s*+|\s++)(?:receipt\s++)?([0-9a-f]{8,64}+)"
)
_PRINTED = re.compile(
    r"sealed\s++#([0-9]{1,19}+)\s++(?:\(session\s++[0-9]{1,19}+\)\s++)?receipt\s++`?"
    r"([0-9a-f]{8,64}+)\b"
)
_HEX = re.compile(r"[0-9a-f]{1,64}")


def read_seen(path: str) -> tuple[dict[int, str], set[int]]:
    """The receipts in the file at `path` (`-`: standard input), by position: lines as a
    sealed roll printed them (any other text on the line, or other lines of the saved
    output, are passed over), JSON lines of `--json` rolls, or `#P HEX` noted by hand.
    ParseError for a file with none, for a receipt of fewer than MIN_SEEN hex digits, for
    a JSON line nested past the recursion limit, and for two receipts for one position
    that differ."""
    name = visible(path)
    try:
        f = open_named(path)
        try:
            data = f.read(MAX_RECEIPTS_BYTES + 1)
        finally:
            if path != "-":
                f.close()
    except OSError as err:
        raise ParseError(f"cannot read {name}: {err.strerror or err}") from None
    if len(data) > MAX_RECEIPTS_BYTES:
        raise ParseError(f"{name} is larger than {MAX_RECEIPTS_BYTES // 2**20} MiB of receipts")
    return receipts_of(data.decode("utf-8", "replace"), name)


def read_receipts(path: str) -> dict[int, str]:
    """The receipts in the file at `path` (`read_seen`), by position."""
    return read_seen(path)[0]


def receipts_of(text: str, name: str = "the receipts") -> tuple[dict[int, str], set[int]]:
    """The receipts in `text` (the lines `read_seen` reads), by position, and the
    positions shown as secret rolls (a line `secret roll, sealed #P ...`, or a JSON line
    with `"secret": true`); ParseError as there (`name`: what a message calls the text).
    Pure: what `d20 verify` and the verify page both read."""
    if len(text) > MAX_RECEIPTS_BYTES:
        raise ParseError(f"{name} is larger than {MAX_RECEIPTS_BYTES // 2**20} MiB of receipts")
    found: dict[int, str] = {}
    secret: set[int] = set()
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        hidden = _is_secret(line)
        for position, digits in _receipts_in(line, n, name):
            if hidden:
                secret.add(position)
            if len(digits) < MIN_SEEN:
                raise ParseError(
                    f"line {n} of {name}: receipt #{position} has {len(digits)} hex digits "
                    f"({digits}); verify needs at least {MIN_SEEN}, as a sealed roll prints "
                    "them (fewer bind too little)"
                )
            had = found.setdefault(position, digits)
            short = min(len(had), len(digits))
            if had[:short] != digits[:short]:
                raise ParseError(
                    f"line {n} of {name}: receipt #{position} is {digits}, but an earlier line "
                    f"gives {had}"
                )
            found[position] = max(had, digits, key=len)
    if not found:
        raise ParseError(
            f"{name} holds no receipts: lines such as 'sealed #12 receipt 3f2a9c01b4d7e5f6' (as "
            "a sealed roll prints them) or '#12 3f2a9c01b4d7e5f6'"
        )
    return found, secret


def _is_secret(line: str) -> bool:
    """Whether a line of the receipts shows a secret roll (d20cli.present.render.secret_line,
    its JSON, or a post of one)."""
    if line.startswith("{"):
        return '"secret": true' in line or '"secret":true' in line
    return "secret roll" in line.lower()


def _receipts_in(line: str, n: int, name: str) -> list[tuple[int, str]]:
    if line.startswith("{"):
        try:
            data = json.loads(line)
        except RecursionError:
            raise ParseError(f"line {n} of {name} is JSON nested too deeply") from None
        except ValueError:
            data = None
        receipt = data.get("receipt") if isinstance(data, dict) else None
        if isinstance(receipt, dict):
            position, digits = receipt.get("position"), receipt.get("hash")
            if (
                isinstance(position, int)
                and isinstance(digits, str)
                and _HEX.fullmatch(digits)
                and 0 <= position <= MAX_EXPORT_POSITION
            ):
                return [(position, digits)]
        return []
    printed = [(int(p), h) for p, h in _PRINTED.findall(line.lower())]
    if printed:
        return printed
    noted = _NOTED.fullmatch(line.lower())
    return [] if noted is None else [(int(noted.group(1)), noted.group(2))]
