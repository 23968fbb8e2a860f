"""`d20 verify LOG.json SEED`: check the `d20 log --export json` of a sealed session
against the seed `d20 unseal` printed (d20cli.app.commands.seal); docs/sealed-sessions.md
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
- The scheme (d20cli.dice.sealed): a row of scheme 2 carries the session's `salt`, which
  its dice and receipts are made with (every row of the session the same), and `secret`
  for a secret roll, whose receipt's body holds its blind. The salt the table gave
  (`--salt TEXT`) must be the export's; a position the table saw as a secret roll must be
  one. A row without `scheme` is of scheme 1 (d20 before salts) and verifies as it did.

The functions that verify an export, with no I/O, are the ones `d20 verify` and the
verify page (d20cli.app.commands.verify_page, in a browser) both run: `verify_rows(rows,
seed text, seen, posted, secret_seen, salt)` gives the `Report` of the rows (each a dict
of the export, read by d20cli.app.commands.verify_files.export_rows from its text; the
receipts the table saw and the positions it saw as secret rolls by verify_files.
receipts_of), through `check` (the seed's bytes); `report_json` and `report_lines` say
it; `verdict_json` is the page's entry point (texts in, the verdict as JSON out).

Exit status: 0 when everything verifies, 1 when it does not (as cmp and diff), 2 for
input that is not a roll log export, a seed or a receipts file (one line on standard
error). The export is read a piece at a time (d20cli.app.commands.verify_files), up to 64 MiB, a
row up to 4 MiB; every row's fields are checked for their types and nesting before it is
rolled. The work is counted: what the grammar parses (d20cli.app.commands.verify_text.Texts:
past it, refused) and the dice rolled again (MAX_VERIFY_WORK, a table roll's die TABLE_WORK:
past it, the rows fail). The text output names the rows that fail and sums up the rest
(`--rows`: every row).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from d20cli.app.commands.verify_files import read_export, read_seen, shown
from d20cli.app.commands.verify_text import OverBudget, Texts, text_problem
from d20cli.dice.sealed import (
    canonical,
    commitment,
    dice_key,
    next_receipt,
    position_random,
    read_secret,
    receipt_body,
    receipts_start,
    salt_problem,
    secret_blind,
)
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.present.output import Output
from d20cli.visible import visible

if TYPE_CHECKING:
    from d20cli.results import Result

MAX_VERIFY_WORK = 2_000_000  # dice rolled again in all (an evening rolls some thousands)
#: What a die of a table roll counts against MAX_VERIFY_WORK: each picks an entry and rolls its
#: text's `{...}` rolls (about 25 microseconds a die, where another roll's takes about 1)
TABLE_WORK = 25
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


def replayed(
    row: dict[str, Any], seed: bytes, work: list[int], texts: Texts | None = None
) -> dict[str, Any]:
    """The compared fields of the roll at the row's position rolled again from the
    dice's key (`seed`: d20cli.dice.sealed.dice_key, the seed itself in scheme 1) and the
    row's request as rolled; D20Error (or ValueError, KeyError, TypeError for a request
    that is not one) when it cannot be. `work`: the dice the whole verification may still
    roll (one roll at most DEFAULT_BUDGET), counted down; `texts`: what the whole
    verification parses (a table roll's tables, read once each)."""
    return logged_fields(replay_result(row, seed, work, texts))


def replay_result(
    row: dict[str, Any], seed: bytes, work: list[int], texts: Texts | None = None
) -> Result:
    """The roll at the row's position rolled again (`replayed`), as a Result."""
    from d20cli.app.commands.sealed_init import INIT_REPLAY, replay_init
    from d20cli.app.sealed import TABLE_REPLAY, replay_table
    from d20cli.dice.roller import DEFAULT_BUDGET, RandomRoller
    from d20cli.language.parse_cache import classes, decode
    from d20cli.rules import get_system

    replay = row["replay"]
    if replay is None:
        raise ValueError("the row keeps no request to roll again")
    weight = TABLE_WORK if replay.get("@") == TABLE_REPLAY else 1
    budget = min(DEFAULT_BUDGET, max(work[0], 0) // weight)
    roller = RandomRoller(position_random(seed, row["position"]), budget)
    try:
        if weight != 1:  # a table roll, with its tables' text
            result = replay_table(replay, roller, (texts or Texts()).tables)
        elif replay.get("@") == INIT_REPLAY:  # init roll or add, with the order it met
            result = replay_init(replay, roller)
        else:
            request = decode(replay, classes(), replay.get("text"))
            result = get_system(row["system"]).resolve(request, roller)
    finally:
        work[0] -= roller.count * weight
    return result


def logged_fields(result: Result) -> dict[str, Any]:
    """The fields of a roll-log row that the roll decides, as `d20 log --export json`
    writes them (what `verify` compares)."""
    from d20cli.store.row_fields import clean, dice_text, house_text, int64, row_dice

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


def _roll_again(
    verdict: Verdict, row: dict[str, Any], seed: bytes, work: list[int], texts: Texts
) -> None:
    try:
        again = replayed(row, seed, work, texts)
    except OverBudget:
        raise
    except D20Error as err:
        verdict.problems.append(f"cannot be rolled again: {visible(err.message)}")
        return
    except (ValueError, KeyError, TypeError, RecursionError) as err:
        verdict.problems.append(f"its request cannot be read ({visible(str(err))[:80]})")
        return
    for name in COMPARED:
        if not _same(row[name], again[name]):
            verdict.problems.append(
                f"edited: {name} is {shown(row[name])}, the seed gives {shown(again[name])}"
            )
    problem = text_problem(row, texts)
    if problem is not None:
        verdict.problems.append(problem)


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
    scheme: int = 1  # of the session's rows (d20cli.dice.sealed)
    salt: str | None = None  # the session's salt, as its rows carry it
    secret: list[int] = field(default_factory=list)  # positions of its secret rolls
    given: str | None = None  # the salt the table gave (--salt)

    @property
    def salt_ok(self) -> bool | None:
        """Whether the export's salt is the one the table gave (None: none given)."""
        return None if self.given is None else self.given == self.salt

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
            and self.salt_ok is not False
            and not self.missing
            and self.chain_break is None
            and not self.unmatched
            and not any(v.problems for v in self.verdicts)
        )


class _Receipts:
    """The receipts of the session's rows (d20cli.dice.sealed), each checked against the
    row before it and against the receipts the table saw (`seen`: position -> the hex
    digits shown)."""

    def __init__(self, promise: str, seen: dict[int, str], seed: bytes = b"") -> None:
        self.promise = promise
        self.seen = seen
        self.seed = seed  # (a secret roll's blind is made from it)
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
            scheme, salt = row.get("scheme", 1), row.get("salt")
            prev = receipts_start(self.promise, scheme, salt) if position == 0 else None
            if before is not None and before[0] == position - 1 and before[1] is not None:
                prev = before[1] if re.fullmatch(r"[0-9a-f]{64}", before[1]) else None
            if prev is not None:
                self._chained(verdict, row, prev, receipt)
        saw = self.seen.get(position)
        if saw is not None:
            self.found.add(position)
            if receipt is not None and receipt.startswith(saw):
                self.matched += 1
            else:
                verdict.problems.append(
                    f"the table saw receipt {saw} for #{position}, the row has "
                    f"{shown(receipt)} (changed after it was shown)"
                )

    def _chained(self, verdict: Verdict, row: dict[str, Any], prev: str, receipt: str) -> None:
        """Whether the row's receipt follows from its fields and the receipt before it. A
        receipt of d20 0.1.0 (no session number in it) is read only when no receipts of
        the table are compared: it cannot bind the session the table saw."""
        blind = secret_blind(self.seed, row["position"]) if row.get("secret") else None
        if next_receipt(prev, _body(row, self.promise, row["session"], blind)) == receipt:
            return
        old = row.get("scheme", 1) == 1  # (0.1.0 made receipts of scheme 1 alone)
        if not old or next_receipt(prev, _body(row, self.promise, None)) != receipt:
            verdict.problems.append(
                "its receipt is not that of its request, time, character, position and "
                "session after the roll before it (edited after it was rolled)"
            )
        elif self.seen:
            verdict.problems.append(
                "its receipt is of d20 0.1.0, which does not bind the session number: "
                "receipts seen at the table cannot be held to it"
            )

    def unmatched(self) -> list[int]:
        return sorted(set(self.seen) - self.found)


def _body(
    row: dict[str, Any], promise: str, session: int | None, blind: str | None = None
) -> bytes:
    return receipt_body(
        promise,
        row["position"],
        session,
        row["at"],
        row["character"],
        row["system"],
        row["verb"],
        row["request"],
        canonical(row["replay"]),
        blind,
    )


def check(
    rows: Iterable[dict[str, Any]],
    seed: bytes,
    nonce: bytes,
    seen: dict[int, str] | None = None,
    secret_seen: Iterable[int] = (),
    salt: str | None = None,
) -> Report:
    """Everything verify checks of the rows (module doc); `seen`: the receipts the table
    saw, by position; `secret_seen`: the positions it saw as secret rolls; `salt`: the
    salt it gave (None: not compared). Pure: no I/O."""
    from d20cli.store.sealing import GENESIS, HASH, PREV_HASH, row_hash

    promise = commitment(seed, nonce)
    receipts = _Receipts(promise, seen or {}, seed)
    secrets = set(secret_seen)
    scheme: tuple[int, str | None] | None = None  # the session's scheme and salt
    secret: list[int] = []
    keys: dict[tuple[int, str | None], bytes] = {}
    session: int | None = None
    verdicts: list[Verdict] = []
    chain_break: int | None = None
    prev = GENESIS
    seen_at: dict[int, int] = {}  # position -> row
    last = -1
    work = [MAX_VERIFY_WORK]
    texts = Texts()
    for i, row in enumerate(rows, 1):
        texts.row = i
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
            verdict.problems.append(f"its session is {shown(row['session'])}, not {session}")
        if position is None:
            verdict.problems.append("it has no position")
            continue
        if position in seen_at:
            verdict.problems.append(f"row {seen_at[position]} has the same position (a copy)")
        elif position < last:
            verdict.problems.append(f"out of order: it comes after position {last}")
        seen_at.setdefault(position, i)
        last = max(last, position)
        its = (row.get("scheme", 1), row.get("salt"))
        if scheme is None:
            scheme = its
        elif its != scheme:
            verdict.problems.append(
                f"its scheme and salt are {shown(list(its))}, not the session's "
                f"{shown(list(scheme))} (edited)"
            )
        if row.get("secret"):
            secret.append(position)
        elif position in secrets:
            verdict.problems.append(
                f"the table saw #{position} as a secret roll; the row is not one (edited)"
            )
        key = keys.get(its)
        if key is None:
            key = keys[its] = dice_key(seed, *its)
        _roll_again(verdict, row, key, work, texts)
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
        scheme=1 if scheme is None else scheme[0],
        salt=None if scheme is None else scheme[1],
        secret=secret,
        given=salt,
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


# --- the command ---------------------------------------------------------------------------


def run_verify(
    path: str,
    secret: str,
    as_json: bool,
    out: Output,
    posted: str | None = None,
    receipts: str | None = None,
    each: bool = False,
    salt: str | None = None,
) -> ExitStatus:
    """`d20 verify LOG.json SEED [--commitment HEX] [--receipts FILE] [--salt TEXT]
    [--rows]`: the exit status (module doc). `each`: a line for every row, not only for
    those that failed."""
    try:
        if posted is not None:
            posted = posted.strip().lower()
            if not re.fullmatch(r"[0-9a-f]{64}", posted):
                raise ParseError(
                    "--commitment must be the commitment as d20 seal printed it: 64 hex digits"
                )
        if read_secret(secret) is None:
            raise _bad_seed()
        if receipts == "-" and path == "-":
            raise ParseError("LOG and --receipts cannot both read standard input")
        salt = given_salt(salt, "--salt")
        seen, hidden = (None, set[int]()) if receipts is None else read_seen(receipts)
        report = verify_rows(read_export(path), secret, seen, posted, hidden, salt)
    except D20Error as err:
        out.error(err, as_json)
        return ExitStatus.BAD_INPUT
    if as_json:
        out.json(report_json(report, seen is not None))
    else:
        out.text("\n".join(report_lines(report, each, seen is not None)))
    return ExitStatus.OK if report.ok else ExitStatus(1)


def _bad_seed() -> ParseError:
    return ParseError(
        "SEED must be the seed as d20 unseal printed it: 64 hex digits, ':', 32 hex digits"
    )


def given_salt(text: str | None, name: str) -> str | None:
    """The salt the table gave, as typed (`name`: what a message calls it), without the
    spaces around it; None for none; ParseError for text that cannot be a salt."""
    if text is None:
        return None
    salt = text.strip()
    problem = salt_problem(salt)
    if problem is not None:
        raise ParseError(f"{name} is not a salt: {problem}")
    return salt


def verify_rows(
    rows: Iterable[dict[str, Any]],
    secret: str,
    seen: dict[int, str] | None = None,
    posted: str | None = None,
    secret_seen: Iterable[int] = (),
    salt: str | None = None,
) -> Report:
    """The verification of an export's rows (verify_files.export_rows) with the seed as
    `d20 unseal` printed it, the receipts the table saw (`seen`, by position, and
    `secret_seen`, the positions it saw as secret rolls: verify_files.receipts_of), the
    commitment posted before play (64 hex digits) and the salt the table gave (given_salt;
    None: neither compared), both checked by the caller: what `d20 verify` and the verify
    page both run (`check`). ParseError for a seed that is not one, or rows that are not
    an export's."""
    found = read_secret(secret)
    if found is None:
        raise _bad_seed()
    seed, nonce = found
    report = check(rows, seed, nonce, seen, secret_seen, salt)
    return dataclasses.replace(report, posted=posted)


def verdict_json(
    export: str, secret: str, receipts: str = "", posted: str = "", salt: str = ""
) -> str:
    """The verify page's verdict (d20cli.app.commands.verify_page): the export's text, the
    seed, the text of the receipts the table saw, the commitment posted before play and
    the salt the table gave ("": none given) in; the JSON of what `d20 verify --json` says
    (`verdict`), its lines for people with every row (`lines`, as `--rows`) and its exit
    status (`status`) out, or for input that is not an export, a seed, receipts or a salt,
    `status` 2 and the `error` `d20 verify` would print. Pure: no file, no database, no
    clock."""
    from d20cli.app.commands.verify_files import export_rows, receipts_of

    try:
        given = posted.strip().lower() or None
        if given is not None and not re.fullmatch(r"[0-9a-f]{64}", given):
            raise ParseError("the commitment posted before play must be 64 hex digits")
        if read_secret(secret) is None:
            raise _bad_seed()
        table_salt = given_salt(salt, "the salt the table gave") if salt.strip() else None
        seen, hidden = receipts_of(receipts) if receipts.strip() else (None, set[int]())
        rows = export_rows([export.removeprefix("\ufeff")])
        report = verify_rows(rows, secret, seen, given, hidden, table_salt)
    except D20Error as err:
        return json.dumps({"status": int(ExitStatus.BAD_INPUT), "error": visible(err.message)})
    return json.dumps(
        {
            "status": int(ExitStatus.OK if report.ok else ExitStatus(1)),
            "verdict": report_json(report, seen is not None),
            "lines": report_lines(report, True, seen is not None),
        }
    )


def report_json(report: Report, receipts: bool) -> dict[str, Any]:
    """verify's `--json` of a report (`receipts`: the table's were compared)."""
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
        "scheme": report.scheme,
        "salt": report.salt,
        "salt_given_ok": report.salt_ok,
        "secret_rolls": report.secret,
        "rows": [v.to_json() for v in report.verdicts],
    }


def _salt_words(report: Report) -> str:
    """What the summary says of the salt (nothing for scheme 1, which had none)."""
    if report.scheme < 2:
        return ""
    if report.salt is None:
        return "; no salt (the seed alone: its player could have chosen it)"
    return f"; salt {shown(report.salt)}" + (" (as the table gave it)" if report.salt_ok else "")


def _secret_words(report: Report) -> str:
    if not report.secret:
        return ""
    marks = ", ".join(f"#{p}" for p in report.secret[:20]) + (
        ", ..." if len(report.secret) > 20 else ""
    )
    return f"; {_count(len(report.secret), 'secret roll')} ({marks}), each the roll made then"


def report_lines(report: Report, each: bool, receipts: bool) -> list[str]:
    """verify's text of a report: the rows that failed (`each`: every row) and a summary."""
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
    if report.salt_ok is False:
        lines.append(
            f"the table gave the salt {shown(report.given)}; the export's rolls were made "
            + ("with no salt" if report.salt is None else f"with {shown(report.salt)}")
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
            + _salt_words(report)
            + _secret_words(report)
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
    if report.salt_ok is False:
        why.append("the salt is not the one the table gave")
    lines.append(f"NOT verified: {', '.join(why)}")
    return lines
