"""`d20 verify LOG.json SEED`: check the `d20 log --export json` of a sealed session
against the seed `d20 unseal` printed (d20cli.app.seal_cli); docs/sealed-sessions.md
says what it proves and what it cannot.

- The commitment: SHA-256(nonce || seed) must be the commitment the log's rows carry,
  and the one the group was shown before play when it is given (`--commitment HEX`).
- Each roll of the session is rolled again from the seed, at its position, from the
  request as rolled that its row keeps (`replay`): its system, verb, request text, dice,
  total, outcome and house rules must be exactly what the seed gives. Nothing of the
  verifier's own config file, characters file or environment is read.
- The request text must spell the request rolled: no control or bidi character, and
  parsed (with no characters file or config) it must be the replay, but for what a text
  cannot show (house rules, which the row's `house` names; a character's entries where
  the text names them).
- Receipts (d20cli.dice.sealed): each row's receipt must follow from its own fields and
  the receipt of the row before it, and each receipt the table saw (`--receipts FILE`)
  must be the start of the receipt of the row at its position. Without them, verify
  cannot tell a request rewritten after play (and rolled again from the seed) from the
  one rolled.
- Positions: every position from 0 to the last must be there once, in order (a gap is
  a roll missing from the log; one out of order, a reordered row; one twice, a copy).
- The hash chain (d20cli.store.sealing): each row's `hash` must be the hash of its
  content and its `prev_hash` the hash of the row before; the first row that breaks it
  is named.

Exit status: 0 when everything verifies, 1 when it does not (as cmp and diff), 2 for
input that is not a roll log export, a seed or a receipts file (one line on standard
error). The export is read a piece at a time (CHUNK), up to MAX_BYTES, a row up to
MAX_ROW_BYTES; every row's fields are checked for their types before it is rolled. The
text output names the rows that fail and sums up the rest (`--rows`: every row).
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO

from d20cli.controls import visible
from d20cli.dice.sealed import (
    commitment,
    next_receipt,
    position_random,
    read_secret,
    receipt_body,
    receipts_start,
)
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.present.output import Output

if TYPE_CHECKING:
    from d20cli.results import Result

MAX_BYTES = 64 * 1024 * 1024  # of the export read
MAX_ROW_BYTES = 4 * 1024 * 1024  # of one row of it
CHUNK = 1024 * 1024  # the export is read (and parsed) this much at a time
MAX_RECEIPTS_BYTES = 4 * 1024 * 1024  # of a --receipts file
MAX_POSITION = 2**63 - 1
MAX_WORK = 20_000_000  # dice rolled again in all (the work budget of one command)
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
LATER_FIELDS: dict[str, tuple[type, ...]] = {"receipt": (str, type(None))}
COMPARED = ("system", "verb", "request", "dice", "total", "outcome", "house")


@dataclass(slots=True)
class Verdict:
    """What verify found of one row (`row`: its place in the file, from 1)."""

    row: int
    id: int
    position: int | None
    ours: bool  # a roll of the session the seed opens
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        verdict = "ok" if not self.problems else "failed"
        if not self.ours and not self.problems:
            verdict = "not checked"
        return {
            "row": self.row,
            "id": self.id,
            "position": self.position,
            "session": self.ours,
            "verdict": verdict,
            "problems": self.problems,
        }

    def line(self) -> str:
        where = f"row {self.row} (id {self.id}" + (
            f", position {self.position})" if self.position is not None else ")"
        )
        if self.problems:
            return f"{where}: FAILED: {'; '.join(self.problems)}"
        return f"{where}: " + ("ok" if self.ours else "not a roll of this session, not checked")


def _shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return visible(text if len(text) <= SHOWN else text[: SHOWN - 3] + "...")


def read_export(path: str) -> Iterator[dict[str, Any]]:
    """The rows of the export at `path` (`-`: standard input), read and parsed a piece at
    a time (a row is in memory while it is checked, never the whole file), each row's
    fields checked for their types; ParseError for anything that is not one, when it is
    reached."""
    name = visible(path)
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 (closed below)
    except OSError as err:
        raise ParseError(f"cannot read {name}: {err.strerror or err}") from None
    try:
        if path != "-" and os.fstat(f.fileno()).st_size > MAX_BYTES:
            raise _too_large(name)  # refused before it is read
        yield from _rows(_Text(_chunks(f, name)), name)
    finally:
        if path != "-":
            f.close()


def _too_large(name: str) -> ParseError:
    return ParseError(
        f"{name} is larger than {MAX_BYTES // 2**20} MiB, more than a roll log export "
        "verify reads (d20 log --export json --session N exports one session)"
    )


def _chunks(f: BinaryIO, name: str) -> Iterator[str]:
    """The text of `f`, CHUNK bytes at a time, at most MAX_BYTES."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    read = 0
    while True:
        try:
            data = f.read(CHUNK)
        except OSError as err:
            raise ParseError(f"cannot read {name}: {err.strerror or err}") from None
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as err:
            raise ParseError(f"{name} is not UTF-8 text (byte {read + err.start + 1})") from None
        read += len(data)
        if read > MAX_BYTES:
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
    if text.peek() != "[":
        try:
            decoder.raw_decode(text.buf, text.pos)
        except json.JSONDecodeError as err:
            if err.pos < len(text.buf):
                raise ParseError(f"{name} is not JSON ({visible(err.msg)[:80]})") from None
        except RecursionError:
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
    if not isinstance(row, dict):
        raise ParseError(f"row {i} of the export is not a JSON object")
    for name, kinds in FIELDS.items():
        if name not in row:
            raise ParseError(f"row {i} of the export has no {name!r} (d20 log --export json)")
        _check_type(i, name, row[name], kinds)
    for name, kinds in LATER_FIELDS.items():
        if name in row:  # (not set when it is not there: the row's hash is of what it has)
            _check_type(i, name, row[name], kinds)
    position = row["position"]
    if position is not None and not 0 <= position <= MAX_POSITION:
        raise ParseError(f"row {i} of the export: 'position' is {_shown(position)}")


def _check_type(i: int, name: str, value: Any, kinds: tuple[type, ...]) -> None:
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ParseError(f"row {i} of the export: {name!r} is {_shown(value)}")


def replayed(row: dict[str, Any], seed: bytes, work: list[int]) -> dict[str, Any]:
    """The compared fields of the roll at the row's position rolled again from the
    seed and the row's request as rolled; D20Error (or ValueError, KeyError, TypeError
    for a request that is not one) when it cannot be. `work`: the dice the whole
    verification may still roll (one roll at most DEFAULT_BUDGET), counted down."""
    from d20cli.dice.roller import DEFAULT_BUDGET, RandomRoller
    from d20cli.language.parse_cache import classes, decode
    from d20cli.rules import get_system

    replay = row["replay"]
    if replay is None:
        raise ValueError("the row keeps no request to roll again")
    request = decode(replay, classes(), replay.get("text"))
    system = get_system(row["system"])
    roller = RandomRoller(position_random(seed, row["position"]), min(DEFAULT_BUDGET, work[0]))
    try:
        result = system.resolve(request, roller)
    finally:
        work[0] -= roller.count
    return logged_fields(result)


def logged_fields(result: Result) -> dict[str, Any]:
    """The fields of a roll-log row that the roll decides, as `d20 log --export json`
    writes them (what `verify` compares)."""
    from d20cli.store.database import clean, int64
    from d20cli.store.log_rows import row_dice
    from d20cli.store.rolllog import dice_text, house_text

    house = house_text(result)
    return {
        "system": result.system,
        "verb": result.verb,
        "request": clean(result.request),
        "dice": json.loads(clean(row_dice(result, dice_text))),
        "total": int64(result.total),
        "outcome": result.outcome,
        "house": None if house is None else json.loads(house),
    }


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)  # 1 is not true


def _roll_again(verdict: Verdict, row: dict[str, Any], seed: bytes, work: list[int]) -> None:
    try:
        again = replayed(row, seed, work)
    except D20Error as err:
        verdict.problems.append(f"cannot be rolled again: {visible(err.message)}")
        return
    except (ValueError, KeyError, TypeError, RecursionError) as err:
        verdict.problems.append(f"its request cannot be read ({visible(str(err))[:80]})")
        return
    for name in COMPARED:
        if not _same(row[name], again[name]):
            verdict.problems.append(
                f"edited: {name} is {_shown(row[name])}, the seed gives {_shown(again[name])}"
            )
    problem = _text_problem(row)
    if problem is not None:
        verdict.problems.append(problem)


# --- the request's text against the request rolled ------------------------------------------

#: Fields a house rule may put into a request where its text gives none (d20cli.rules.house);
#: the row's `house`, which the seed's roll is compared with, names them.
HOUSE_FIELDS = frozenset(("crit", "lucky", "floor", "crit_dmg", "rule"))
#: Fields of the request rolled that its text does not decide (where its words are; the
#: text of a member, which is the request's own).
NOT_TEXT = frozenset(("columns", "text"))
#: What a typed label with no value of its own may be merged with: the character's entry
#: (d20cli.language.names): these are the fields that say it has a value of its own.
VALUES = ("modifier", "rank", "score")
PARSED = 4096  # request texts whose parse verify keeps


def _text_problem(row: dict[str, Any]) -> str | None:
    """Why the row's request text is not a true spelling of the request rolled (None: it
    is): the text must hold no control or bidi character and must parse, with no
    character file or config, into the request rolled, but for what the text cannot
    show: house rules (the row's `house` names them), and a character's entries where
    the text names them (a label a party member rolled, a name in an expression)."""
    from d20cli.controls import CONTROLS

    text = row["request"]
    if any(ord(c) in CONTROLS for c in text):
        return f"its request text holds control or bidi characters ({_shown(text)}): refused"
    typed = _parsed(text)
    if isinstance(typed, str):
        return f"its request text is not a request ({visible(typed)[:80]}): refused"
    where = _disagree(typed, row["replay"], row["character"] is not None, "")
    if where is None:
        return None
    return (
        f"its request text {_shown(text)} is not the request rolled (they differ at "
        f"{visible(where.lstrip('.'))[:60] or 'its kind'})"
    )


_PARSED: dict[str, Any] = {}


def _parsed(text: str) -> Any:
    """The parse cache's JSON of `text` parsed, or the parser's error message (str)."""
    from d20cli.language.grammar import parse_request
    from d20cli.language.parse_cache import encode

    found = _PARSED.get(text)
    if found is None:
        try:
            found = encode(parse_request(text))
        except D20Error as err:
            found = err.message
        except RecursionError:
            found = "nested too deeply"
        if len(_PARSED) >= PARSED:
            _PARSED.clear()
        _PARSED[text] = found
    return found


def _disagree(typed: Any, rolled: Any, character: bool, path: str) -> str | None:
    """Where the parsed text `typed` and the request `rolled` (parse cache JSON) differ
    (None: nowhere, but for what _text_problem allows). `character`: rolled as one."""
    if isinstance(typed, dict) and isinstance(rolled, dict):
        if "@t" in typed and "@t" in rolled:
            return _disagree_items(typed["@t"], rolled["@t"], character, path)
        kind = typed.get("@")
        if character and kind == "Ref":
            return None  # a name in an expression: the character's entry gave its value
        entry = character and kind == "CheckRequest" and not any(v in typed for v in VALUES)
        if kind != rolled.get("@"):
            return path
        for key in typed.keys() | rolled.keys():
            if key in NOT_TEXT or (key not in typed and (key in HOUSE_FIELDS or entry)):
                continue
            found = _disagree(typed.get(key), rolled.get(key), character, f"{path}.{key}")
            if found is not None:
                return found
        return None
    same = type(typed) is type(rolled) and typed == rolled
    return None if same else path


def _disagree_items(typed: list[Any], rolled: list[Any], character: bool, path: str) -> str | None:
    if character and len(typed) == 1 and len(rolled) > 1 and path.endswith(".members"):
        typed = typed * len(rolled)  # `group stealth vs 12 --as aria,bob`: one each
    if len(typed) != len(rolled):
        return path
    for i, (a, b) in enumerate(zip(typed, rolled, strict=True)):
        found = _disagree(a, b, character, f"{path}[{i}]")
        if found is not None:
            return found
    return None


@dataclass
class Report:
    promise: str
    verdicts: list[Verdict]
    missing: list[tuple[int, int]]  # ranges of positions no row has
    chain_break: int | None  # the first row (from 1) that breaks the hash chain
    session: int | None
    rolls: int
    posted: str | None = None  # the commitment posted before play (--commitment)
    receipts: int = 0  # receipts seen at the table (--receipts) that match their row
    unmatched: list[int] = field(default_factory=list)  # of those, positions with no row

    @property
    def posted_ok(self) -> bool | None:
        return None if self.posted is None else self.posted == self.promise

    @property
    def others(self) -> int:
        """Rows that are not rolls of this session (not checked but for the chain)."""
        return sum(1 for v in self.verdicts if not v.ours)

    @property
    def ok(self) -> bool:
        return (
            self.session is not None
            and self.posted_ok is not False
            and not self.missing
            and self.chain_break is None
            and not self.unmatched
            and not any(v.problems for v in self.verdicts)
        )


class _Receipts:
    """The receipts of the session's rows (d20cli.dice.sealed), each checked against the
    row before it and against the receipts the table saw (`seen`: position -> the hex
    digits shown)."""

    def __init__(self, promise: str, seen: dict[int, str]) -> None:
        self.promise = promise
        self.seen = seen
        self.last: tuple[int, str | None] | None = None  # position and receipt of the last row
        self.matched = 0
        self.found: set[int] = set()

    def check(self, verdict: Verdict, row: dict[str, Any], position: int) -> None:
        receipt = row.get("receipt")
        before = self.last
        self.last = (position, receipt)
        if receipt is None or not re.fullmatch(r"[0-9a-f]{64}", receipt):
            verdict.problems.append(
                "it has no receipt (64 hex digits): nothing binds its request to what was shown"
            )
        else:
            prev = receipts_start(self.promise) if position == 0 else None
            if before is not None and before[0] == position - 1 and before[1] is not None:
                prev = before[1] if re.fullmatch(r"[0-9a-f]{64}", before[1]) else None
            if prev is not None and next_receipt(prev, _body(row, self.promise)) != receipt:
                verdict.problems.append(
                    "its receipt is not that of its request, time, character and position "
                    "after the roll before it (edited after it was rolled)"
                )
        shown = self.seen.get(position)
        if shown is not None:
            self.found.add(position)
            if receipt is not None and receipt.startswith(shown):
                self.matched += 1
            else:
                verdict.problems.append(
                    f"the table saw receipt {shown} for #{position}, the row has "
                    f"{_shown(receipt)} (changed after it was shown)"
                )

    def unmatched(self) -> list[int]:
        return sorted(set(self.seen) - self.found)


def _body(row: dict[str, Any], promise: str) -> bytes:
    return receipt_body(
        promise,
        row["position"],
        row["at"],
        row["character"],
        row["system"],
        row["verb"],
        row["request"],
        row["replay"],
    )


def check(
    rows: Iterable[dict[str, Any]],
    seed: bytes,
    nonce: bytes,
    seen: dict[int, str] | None = None,
) -> Report:
    """Everything verify checks of the rows (module doc); `seen`: the receipts the table
    saw, by position."""
    from d20cli.store.sealing import GENESIS, HASH, PREV_HASH, row_hash

    promise = commitment(seed, nonce)
    receipts = _Receipts(promise, seen or {})
    session: int | None = None
    verdicts: list[Verdict] = []
    chain_break: int | None = None
    prev = GENESIS
    seen_at: dict[int, int] = {}  # position -> row
    last = -1
    work = [MAX_WORK]
    for i, row in enumerate(rows, 1):
        mine = row["commitment"] == promise
        if mine and session is None:
            session = row["session"]
        verdict = Verdict(i, row["id"], row["position"] if mine else None, mine)
        verdicts.append(verdict)
        if row[PREV_HASH] != prev:
            verdict.problems.append(
                "the hash chain breaks: its prev_hash is not the hash of the row before it "
                "(a row was removed, added or moved)"
            )
        if row_hash(row) != row[HASH]:
            verdict.problems.append("the hash chain breaks: its hash is not that of its content")
        if verdict.problems and chain_break is None:
            chain_break = i
        prev = row[HASH]
        if not mine:
            continue
        position = row["position"]
        if row["session"] != session:
            verdict.problems.append(f"its session is {_shown(row['session'])}, not {session}")
        if position is None:
            verdict.problems.append("it has no position")
            continue
        if position in seen_at:
            verdict.problems.append(f"row {seen_at[position]} has the same position (a copy)")
        elif position < last:
            verdict.problems.append(f"out of order: it comes after position {last}")
        seen_at.setdefault(position, i)
        last = max(last, position)
        _roll_again(verdict, row, seed, work)
        receipts.check(verdict, row, position)
    return Report(
        promise,
        verdicts,
        _gaps(sorted(seen_at)),
        chain_break,
        session,
        len(seen_at),
        receipts=receipts.matched,
        unmatched=receipts.unmatched(),
    )


def _gaps(positions: list[int]) -> list[tuple[int, int]]:
    """The ranges of positions from 0 to the last that are not in `positions` (sorted)."""
    gaps: list[tuple[int, int]] = []
    expected = 0
    for p in positions:
        if p > expected:
            gaps.append((expected, p - 1))
        expected = p + 1
    return gaps


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _span(lo: int, hi: int) -> str:
    return f"position {lo}" if lo == hi else f"positions {lo}-{hi}"


# --- the receipts the table saw ------------------------------------------------------------

#: A receipt as a roll printed it (`sealed #12 receipt 3f2a9c01b4d7`), or noted by hand
#: (`#12 3f2a9c01b4d7`, `12 3f2a9c01`): its position and at least 8 of its hex digits.
_RECEIPT = re.compile(r"(?:sealed\s+)?#?([0-9]{1,19})\s*(?::|\s)\s*(?:receipt\s+)?([0-9a-f]{8,64})")
_PRINTED = re.compile(r"sealed\s+#([0-9]{1,19})\s+receipt\s+([0-9a-f]{8,64})\b")


def read_receipts(path: str) -> dict[int, str]:
    """The receipts in the file at `path` (`-`: standard input), by position: lines as a
    sealed roll printed them (any other text on the line, or other lines of the saved
    output, are passed over), JSON lines of `--json` rolls, or `#P HEX` noted by hand.
    ParseError for a file with none, or with two receipts for one position that differ."""
    name = visible(path)
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_RECEIPTS_BYTES + 1)
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_RECEIPTS_BYTES + 1)
    except OSError as err:
        raise ParseError(f"cannot read {name}: {err.strerror or err}") from None
    if len(data) > MAX_RECEIPTS_BYTES:
        raise ParseError(f"{name} is larger than {MAX_RECEIPTS_BYTES // 2**20} MiB of receipts")
    found: dict[int, str] = {}
    for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        for position, digits in _receipts_in(line.strip()):
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
            f"{name} holds no receipts: lines such as 'sealed #12 receipt 3f2a9c01b4d7' (as a "
            "sealed roll prints them) or '#12 3f2a9c01'"
        )
    return found


def _receipts_in(line: str) -> list[tuple[int, str]]:
    if line.startswith("{"):
        try:
            data = json.loads(line)
        except ValueError:
            data = None
        receipt = data.get("receipt") if isinstance(data, dict) else None
        if isinstance(receipt, dict):
            position, digits = receipt.get("position"), receipt.get("hash")
            if (
                isinstance(position, int)
                and isinstance(digits, str)
                and re.fullmatch(r"[0-9a-f]{8,64}", digits)
                and 0 <= position <= MAX_POSITION
            ):
                return [(position, digits)]
        return []
    printed = [(int(p), h) for p, h in _PRINTED.findall(line.lower())]
    if printed:
        return printed
    noted = _RECEIPT.fullmatch(line.lower())
    return [] if noted is None else [(int(noted.group(1)), noted.group(2))]


# --- the command ---------------------------------------------------------------------------


def run_verify(
    path: str,
    secret: str,
    as_json: bool,
    out: Output,
    posted: str | None = None,
    receipts: str | None = None,
    each: bool = False,
) -> ExitStatus:
    """`d20 verify LOG.json SEED [--commitment HEX] [--receipts FILE] [--rows]`: the exit
    status (module doc). `each`: a line for every row, not only for those that failed."""
    try:
        if posted is not None:
            posted = posted.strip().lower()
            if not re.fullmatch(r"[0-9a-f]{64}", posted):
                raise ParseError(
                    "--commitment must be the commitment as d20 seal printed it: 64 hex digits"
                )
        found = read_secret(secret)
        if found is None:
            raise ParseError(
                "SEED must be the seed as d20 unseal printed it: 64 hex digits, ':', 32 hex digits"
            )
        if receipts == "-" and path == "-":
            raise ParseError("LOG and --receipts cannot both read standard input")
        seen = None if receipts is None else read_receipts(receipts)
        seed, nonce = found
        report = check(read_export(path), seed, nonce, seen)
    except D20Error as err:
        out.error(err, as_json)
        return ExitStatus.BAD_INPUT
    report = dataclasses.replace(report, posted=posted)
    if as_json:
        out.json(_json(report, seen is not None))
    else:
        out.text("\n".join(_lines(report, each, seen is not None)))
    return ExitStatus.OK if report.ok else ExitStatus(1)


def _json(report: Report, receipts: bool) -> dict[str, Any]:
    return {
        "verified": report.ok,
        "commitment": report.promise,
        "commitment_found": report.session is not None,
        "posted_commitment_ok": report.posted_ok,
        "session": report.session,
        "rolls": report.rolls,
        "missing": [list(gap) for gap in report.missing],
        "chain_ok": report.chain_break is None,
        "chain_break": report.chain_break,
        "receipts_matched": report.receipts if receipts else None,
        "receipts_without_row": report.unmatched,
        "other_rows": report.others,
        "rows": [v.to_json() for v in report.verdicts],
    }


def _lines(report: Report, each: bool, receipts: bool) -> list[str]:
    lines = [v.line() for v in report.verdicts if each or v.problems]
    lines += [f"{_span(lo, hi)}: MISSING from the log" for lo, hi in report.missing]
    lines += [
        f"receipt #{p} (seen at the table): no row of the log has position {p}"
        for p in report.unmatched
    ]
    if report.others and not each:
        lines.append(
            f"{_count(report.others, 'other row')} of the log (not rolls of this session): "
            "not checked but for the hash chain"
        )
    if report.session is None:
        lines.append(
            f"no row of the log carries the commitment of this seed ({report.promise}): "
            "a wrong seed, or the log of another session"
        )
    if report.posted_ok is False:
        lines.append(
            f"the seed does not open the commitment posted before play ({report.posted}): "
            f"it opens {report.promise}"
        )
    failed = sum(1 for v in report.verdicts if v.problems)
    if report.ok:
        lines.append(
            f"verified: {_count(report.rolls, 'roll')} of session {report.session}, every one "
            f"as the seed gives it; commitment {report.promise}"
            + (" (as posted)" if report.posted_ok else "")
            + "; hash chain intact; "
            + (
                f"{_count(report.receipts, 'receipt')} seen at the table match"
                if receipts
                else "no receipts from the table compared (--receipts)"
            )
        )
        return lines
    why = []
    if failed:
        why.append(f"{failed} row{'s' if failed != 1 else ''} failed")
    if report.missing:
        count = sum(hi - lo + 1 for lo, hi in report.missing)
        why.append(f"{count} roll{'s' if count != 1 else ''} missing")
    if report.chain_break is not None:
        why.append(f"the hash chain breaks at row {report.chain_break}")
    if report.unmatched:
        why.append(f"{_count(len(report.unmatched), 'receipt')} seen at the table with no row")
    if report.session is None:
        why.append("the seed does not match the log's commitment")
    if report.posted_ok is False:
        why.append("the seed does not open the posted commitment")
    lines.append(f"NOT verified: {', '.join(why)}")
    return lines
