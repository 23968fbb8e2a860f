"""`d20 verify LOG.json SEED`: check the `d20 log --export json` of a sealed session
against the seed `d20 unseal` printed (d20cli.app.seal_cli).

- The commitment: SHA-256(nonce || seed) must be the commitment the log's rows carry,
  and the one the group was shown before play when it is given (`--commitment HEX`).
- Each roll of the session is rolled again from the seed, at its position, from the
  request as rolled that its row keeps (`replay`): its system, verb, request text, dice,
  total, outcome and house rules must be exactly what the seed gives. Nothing of the
  verifier's own config file, characters file or environment is read.
- Positions: every position from 0 to the last must be there once, in order (a gap is
  a roll missing from the log; one out of order, a reordered row; one twice, a copy).
- The hash chain (d20cli.store.sealing): each row's `hash` must be the hash of its
  content and its `prev_hash` the hash of the row before; the first row that breaks it
  is named.

Exit status: 0 when everything verifies, 1 when it does not (as cmp and diff), 2 for
input that is not a roll log export or a seed (one line on standard error). The file is
read up to MAX_BYTES (a regular file, or `-`: standard input); every row's fields are
checked for their types and nesting before anything is rolled.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from d20cli.controls import visible
from d20cli.dice.sealed import commitment, position_random, read_secret
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.language.parse_cache import MAX_JSON_DEPTH
from d20cli.present.output import Output
from d20cli.store.files import deeper_than, read_bytes
from d20cli.store.log_rows import MAX_ROW_DEPTH

if TYPE_CHECKING:
    from d20cli.results import Result

MAX_BYTES = 64 * 1024 * 1024  # of the export read
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
    "prev_hash": (str,),
    "hash": (str,),
}
COMPARED = ("system", "verb", "request", "dice", "total", "outcome", "house")


@dataclass
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


def read_export(path: str) -> list[dict[str, Any]]:
    """The rows of the export at `path` (`-`: standard input), their fields checked;
    ParseError for anything that is not one."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                raise OSError(f"an export is at most {MAX_BYTES:,} bytes")
        else:
            data = read_bytes(path, MAX_BYTES, "an export")
    except OSError as err:
        raise ParseError(f"cannot read {visible(path)}: {err.strerror or err}") from None
    try:
        rows = json.loads(data.decode("utf-8").removeprefix("\ufeff"))
    except UnicodeDecodeError as err:
        raise ParseError(f"{visible(path)} is not UTF-8 text (byte {err.start + 1})") from None
    except RecursionError:
        raise ParseError(f"{visible(path)} is nested too deeply for a roll log export") from None
    except ValueError as err:
        raise ParseError(f"{visible(path)} is not JSON ({visible(str(err))[:80]})") from None
    if not isinstance(rows, list):
        raise ParseError(f"{visible(path)} is not a roll log export (d20 log --export json)")
    for i, row in enumerate(rows, 1):
        _check_row(i, row)
    return rows


def _check_row(i: int, row: Any) -> None:
    if not isinstance(row, dict):
        raise ParseError(f"row {i} of the export is not a JSON object")
    for name, kinds in FIELDS.items():
        if name not in row:
            raise ParseError(f"row {i} of the export has no {name!r} (d20 log --export json)")
        value = row[name]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise ParseError(f"row {i} of the export: {name!r} is {_shown(value)}")
    depths = (("dice", MAX_ROW_DEPTH), ("house", MAX_ROW_DEPTH), ("replay", MAX_JSON_DEPTH))
    for name, most in depths:
        if deeper_than(row[name], most):
            raise ParseError(f"row {i} of the export: {name!r} nests more than {most} levels deep")
    position = row["position"]
    if position is not None and not 0 <= position <= MAX_POSITION:
        raise ParseError(f"row {i} of the export: 'position' is {_shown(position)}")


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


@dataclass
class Report:
    promise: str
    verdicts: list[Verdict]
    missing: list[tuple[int, int]]  # ranges of positions no row has
    chain_break: int | None  # the first row (from 1) that breaks the hash chain
    session: int | None
    rolls: int
    posted: str | None = None  # the commitment posted before play (--commitment)

    @property
    def posted_ok(self) -> bool | None:
        return None if self.posted is None else self.posted == self.promise

    @property
    def ok(self) -> bool:
        return (
            self.session is not None
            and self.posted_ok is not False
            and not self.missing
            and self.chain_break is None
            and not any(v.problems for v in self.verdicts)
        )


def check(rows: list[dict[str, Any]], seed: bytes, nonce: bytes) -> Report:
    """Everything verify checks of the rows (module doc)."""
    from d20cli.store.sealing import GENESIS, HASH, PREV_HASH, row_hash

    promise = commitment(seed, nonce)
    ours = [row["commitment"] == promise for row in rows]
    session = next((row["session"] for row, mine in zip(rows, ours, strict=True) if mine), None)
    verdicts: list[Verdict] = []
    chain_break: int | None = None
    prev = GENESIS
    seen: dict[int, int] = {}  # position -> row
    last = -1
    work = [MAX_WORK]
    for i, (row, mine) in enumerate(zip(rows, ours, strict=True), 1):
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
        if position in seen:
            verdict.problems.append(f"row {seen[position]} has the same position (a copy)")
        elif position < last:
            verdict.problems.append(f"out of order: it comes after position {last}")
        seen.setdefault(position, i)
        last = max(last, position)
        _roll_again(verdict, row, seed, work)
    return Report(promise, verdicts, _gaps(sorted(seen)), chain_break, session, len(seen))


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


def run_verify(
    path: str, secret: str, as_json: bool, out: Output, posted: str | None = None
) -> ExitStatus:
    """`d20 verify LOG.json SEED [--commitment HEX]`: the exit status (module doc)."""
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
        rows = read_export(path)
    except D20Error as err:
        out.error(err, as_json)
        return ExitStatus.BAD_INPUT
    seed, nonce = found
    report = dataclasses.replace(check(rows, seed, nonce), posted=posted)
    if as_json:
        out.json(_json(report))
    else:
        out.text("\n".join(_lines(report)))
    return ExitStatus.OK if report.ok else ExitStatus(1)


def _json(report: Report) -> dict[str, Any]:
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
        "rows": [v.to_json() for v in report.verdicts],
    }


def _lines(report: Report) -> list[str]:
    lines = [v.line() for v in report.verdicts]
    lines += [f"{_span(lo, hi)}: MISSING from the log" for lo, hi in report.missing]
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
            + "; hash chain intact"
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
    if report.session is None:
        why.append("the seed does not match the log's commitment")
    if report.posted_ok is False:
        why.append("the seed does not open the posted commitment")
    lines.append(f"NOT verified: {', '.join(why)}")
    return lines
