"""A run's rolls in a sealed session (`d20 seal`, d20cli.store.sealing): where their dice
come from, and what each logged roll keeps so that `d20 verify` can roll it again.

The run reads the session once (`open_stream`, only when the marker file says one may be
open: a run with no session pays one look at the disk). Each roll then takes the next
position p of the session's stream: its dice come from the generator of that position
(d20cli.dice.sealed.position_random), and the roll log keeps the session, p and the
request as rolled (after `--as`, its macros and entries, with the house rules in force:
the JSON of d20cli.language.parse_cache). Positions are taken from the session table
before any die is drawn (StateError, and no roll, when that cannot be saved): a request
that fails after drawing a die (`roll 1d(1d20-20)`), or a roll whose row cannot be
saved, keeps its position, which no other roll gets; verify reports it missing. A request
that fails before drawing (bad words, a refused option) takes none.

A run holds the session (a lease, d20cli.store.seal_marker) from the positions it takes
to its next group commit: `d20 unseal` waits for it, and the run's next roll finds the
session closed and stops (a batch on standard input stops there). Positions are taken a
block at a time (1, 2, 4, ... up to MAX_BLOCK), and before a run takes another block
between two group commits it writes the log rows of the rolls made so far
(`write_rows`): a run killed at any moment leaves at most MAX_BLOCK positions with no
row, those of the block it was rolling in.

Each logged roll also gets its receipt (d20cli.dice.sealed.next_receipt: a hash chain of
the session's rolls, from its commitment), kept in its row and shown with the roll
(`with_receipt`: `sealed #P receipt R`, and "receipt" {"position", "hash"} in JSON), so
that the table can hold the export to what it saw (`d20 verify --receipts`).

In a session of scheme 2 the dice come from the seed and the table's salt (`dice_key`),
and the receipts start from both. A secret roll (`--secret`, `secret` set for the request
being rolled) is logged as any roll, with its blind in its receipt's body and `secret` 1
in its row; what the run shows of it is `secret_shown` (position and receipt only).

What would make a roll unverifiable is refused with a one-line error that says to
`d20 unseal` first: `--seed`, `--dice`, the roll log off (`--no-log`, D20_NO_LOG), and
the rolls that the log cannot replay (initiative, a fortune reroll). A table roll keeps
its tables' text for verify (`sealed_tables`, `replay_table`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from d20cli.bounded import Bounded, declare
from d20cli.dice.roller import RandomRoller
from d20cli.dice.sealed import (
    RECEIPT_SHOWN,
    canonical,
    dice_key,
    next_receipt,
    position_seed,
    receipt_body,
    receipts_start,
    secret_blind,
)
from d20cli.errors import ParseError, StateError
from d20cli.language.parse_cache import encode
from d20cli.store.seal_marker import Lease, marked
from d20cli.store.sealing import Session, Sessions

if TYPE_CHECKING:
    from d20cli.app.options import Options
    from d20cli.dice.roller import Roller
    from d20cli.language.requests import Request
    from d20cli.language.tables import Table
    from d20cli.results import Result
    from d20cli.rules.common import Fortune
    from d20cli.store.state import State

UNSEAL = "d20 unseal first"
#: A sealed run's memos (`SealedStream`), declared once.
REPLAYS = declare(
    "SealedStream._replays",
    holds="id(request) → the request and its replay text (a batch repeats them)",
    buys="a request's replay text is made once a run",
)
CANONICAL = declare(
    "SealedStream._canonical",
    holds="replay text → its canonical JSON (the receipt's)",
    buys="a repeated request's canonical JSON is made once a run",
)
ROLLERS = declare(
    "SealedStream._rollers",
    holds="budget → the stream's roller",
    buys="one roller for each budget, drawing from the stream",
)


def refused(what: str) -> ParseError:
    """The error for what a sealed session cannot verify."""
    return ParseError(
        f"{what} cannot be used in a sealed session (its rolls could not be verified): {UNSEAL}"
    )


def check_options(opts: Options, run_seed: int | None) -> None:
    """ParseError for options that would make a sealed session's rolls unverifiable."""
    if opts.seed is not None or run_seed is not None:
        raise refused("--seed")
    if opts.dice is not None:
        raise refused("--dice")
    if opts.no_log or not opts.logging():
        raise refused("--no-log (or D20_NO_LOG)")


def replay_text(request: Request) -> str:
    """The request as a verifier rolls it again: the parse cache's JSON of it."""
    return json.dumps(encode(request), separators=(",", ":"))


MAX_BLOCK = 64  # positions a run takes at once (a batch: doubling from 1 up to this)
MAX_TABLE_BYTES = 256_000_000  # of tables' text one run's table rolls keep in the log


def closed_message(sid: int) -> str:
    return (
        f"the sealed session {sid} was closed (d20 unseal) while this run was rolling; "
        "no roll is made from it"
    )


def mark_sealed(result: Result, sid: int, position: int) -> Result:
    """A sealed roll says so: `"sealed": {"session", "position"}` in its JSON and a line
    under its text (d20cli.present.render.sealed_lines)."""
    return result.with_detail({"sealed": {"session": sid, "position": position}})


def secret_shown(result: Result) -> dict[str, object]:
    """What a run shows of a secret roll (its JSON, and d20cli.present.render.secret_line's
    text): that it is secret, its system, session, position and receipt; nothing of its
    request or result."""
    shown: dict[str, object] = {"secret": True, "system": result.system}
    for key in ("sealed", "receipt"):
        if key in result.detail:
            shown[key] = result.detail[key]
    return shown


class SealedStream:
    """The open session's stream of dice for this run. Each roll takes the next position:
    the run takes them from the session table before drawing (`Sessions.take`, a block
    at a time, holding a `Lease` that keeps the session from being closed meanwhile) and
    gives back the ones it did not draw from at each group commit (`save`)."""

    def __init__(self, session: Session, sessions: Sessions) -> None:
        self.session = session
        self.sessions = sessions
        self.next = session.next  # the position of the next roll
        self.end = session.next  # the positions before this one are taken for this run
        self.block = 1  # how many positions the next `take` asks for
        self.table_bytes = 0  # of the tables' text this run's table rolls keep
        self.lease = Lease()
        # writes the run's buffered log rows (NotSaved when it cannot): before a later
        # block of positions is taken, so that a run killed at any moment leaves at most
        # one block (MAX_BLOCK positions) with no row in the log
        self.write_rows: Callable[[], None] | None = None
        # why no more rolls are made from this stream (the session was closed, or its
        # positions cannot be saved): a batch stops, a shell reads the session again
        self.ended: str | None = None
        self.rng = random.Random()
        self._rollers: Bounded[int, RandomRoller] = ROLLERS.new()
        # rolled and not yet logged: result id -> (result, position, replay, secret)
        self.pending: dict[int, tuple[Result, int, str, bool]] = {}
        # the replay text of the requests of this run (a batch repeats them), by id
        self._replays: Bounded[int, tuple[Request, str]] = REPLAYS.new()
        # the receipt of the last roll logged, and of the logged results not yet shown
        self.head = session.head or receipts_start(session.commitment, session.scheme, session.salt)
        self.receipts: dict[int, tuple[Result, int, str]] = {}
        self._canonical: Bounded[str, str] = CANONICAL.new()  # replay text -> its canonical JSON
        # the dice's key (the seed, and in scheme 2 the table's salt)
        self.key = dice_key(session.seed, session.scheme, session.salt)
        # whether the request being rolled is secret (`--secret`: set for each request)
        self.secret = False

    def start(self) -> str:
        """R_{-1} of the session's receipts."""
        s = self.session
        return receipts_start(s.commitment, s.scheme, s.salt)

    def replay(self, request: Request) -> str:
        """`replay_text(request)`, made once per request of the run."""
        found = self._replays.get(id(request))
        if found is not None and found[0] is request:
            return found[1]
        text = replay_text(request)
        self._replays[id(request)] = (request, text)
        return text

    def roller(self, budget: int) -> RandomRoller:
        """The roller of a request (one per dice budget), drawing from the stream."""
        roller = self._rollers.get(budget)
        if roller is None:
            roller = self._rollers[budget] = RandomRoller(self.rng, budget)
        roller.count = 0
        return roller

    def position(self) -> int:
        """The position of the next roll, taken from the session table first when this run
        holds no more (StateError: none can be taken, and no roll is made)."""
        if self.next < self.end:
            return self.next
        if self.ended is not None:
            raise StateError(self.ended)
        first = not self.lease.held  # the first take since the last group commit
        if not first and self.write_rows is not None:
            self.write_rows()  # the rows of the blocks taken before this one
        self.lease.hold()  # (StateError: another run holds it too long; this roll is refused)
        try:
            taken = self.sessions.take(self.session.id, self.block)
        except StateError as err:
            taken, why = None, f"{err.message}; no roll is made in the sealed session"
        else:
            why = closed_message(self.session.id)
        if taken is None:
            self.ended = why
            if first:  # nothing of this run's is waiting to be written: let the session go
                self.lease.release()
            raise StateError(why)
        start, head = taken
        if first:  # the chain goes on from the last row written, perhaps by another run
            self.head = head or self.start()
        self.next, self.end = start, start + self.block
        self.block = min(self.block * 2, MAX_BLOCK)
        return start

    def roll(
        self, make: Callable[[], Result], roller: Roller, replay: Callable[[], str], size: int = 0
    ) -> Result:
        """`make()`, rolled by `roller` (this stream's) at the next position; `replay()`:
        what the log keeps for verify to roll it again (`size`: the characters of tables'
        text in it, bounded by MAX_TABLE_BYTES a run). A request that fails after drawing
        a die uses its position (its dice are never drawn again: the log has no roll
        there, which verify reports); one that drew none uses none."""
        if size:
            if self.table_bytes + size > MAX_TABLE_BYTES:
                raise ParseError(
                    f"a sealed run keeps at most {MAX_TABLE_BYTES:,} characters of tables' "
                    "text in the roll log (each table roll keeps its tables); roll the rest "
                    "in another run"
                )
            self.table_bytes += size
        position = self.position()
        self.rng.seed(position_seed(self.key, position))
        drawn = roller.count
        try:
            result = make()
        except BaseException:
            if roller.count != drawn:
                self.next = position + 1
            raise
        self.next = position + 1
        result = mark_sealed(result, self.session.id, position)
        self.pending[id(result)] = (result, position, replay(), self.secret)
        return result

    def wrap(
        self, resolve: Callable[[Request, Roller], Result], fortune: Fortune | None = None
    ) -> Callable[[Request, Roller], Result]:
        """`resolve` with each roll at the next position of the stream (`roll`); the verb
        of the system's `fortune` dice takes none."""
        kept = None if fortune is None else fortune.verb

        def sealed(request: Request, roller: Roller) -> Result:
            if request.verb == kept:  # shows or spends dice: rolls none but a reroll
                if getattr(request, "action", "show") == "spend" and (
                    getattr(request, "use", "reroll") == "reroll"
                ):
                    raise refused("a fortune reroll")
                return resolve(request, roller)
            return self.roll(lambda: resolve(request, roller), roller, lambda: self.replay(request))

        return sealed

    def take(
        self, result: Result, at: str, character: str | None
    ) -> tuple[int, int, str, str, int | None] | None:
        """What the roll log keeps of a result of this stream, logged at `at` for
        `character`: session, position, replay, receipt and `secret` (1 for a secret roll,
        else None) (None: a result that took no position)."""
        found = self.pending.pop(id(result), None)
        if found is None or found[0] is not result:
            return None
        _, position, replay, secret = found
        body = self._body(result, position, at, character, replay, secret)
        self.head = next_receipt(self.head, body)
        self.receipts[id(result)] = (result, position, self.head)
        return self.session.id, position, replay, self.head, 1 if secret else None

    def _body(
        self,
        result: Result,
        position: int,
        at: str,
        character: str | None,
        replay: str,
        secret: bool = False,
    ) -> bytes:
        from d20cli.store.database import clean

        shown = self._canonical.get(replay)
        if shown is None:
            shown = self._canonical[replay] = canonical(json.loads(replay))
        return receipt_body(
            self.session.commitment,
            position,
            self.session.id,
            at,
            None if character is None else clean(character),  # as the log keeps them
            result.system,
            result.verb,
            clean(result.request),
            shown,
            secret_blind(self.session.seed, position) if secret else None,
        )

    def with_receipt(self, result: Result) -> Result:
        """`result` with its receipt (JSON: "receipt" {"position": P, "hash": R}; shown on
        the marker line, d20cli.present.render.sealed_lines), once it is logged; itself
        when it took none."""
        found = self.receipts.pop(id(result), None)
        if found is None or found[0] is not result:
            return result
        _, position, receipt = found
        return result.with_detail(
            {"receipt": {"position": position, "hash": receipt[:RECEIPT_SHOWN]}}
        )

    def save(self, warn: Callable[[str], None]) -> None:
        """At a group commit (after the log's rows): give back the positions taken and not
        drawn from, and let the session be closed again (the lease)."""
        self.pending.clear()
        self.receipts.clear()
        try:
            if self.end > self.next:
                end, self.end = self.end, self.next
                self.sessions.give_back(self.session.id, end, self.next)
        except StateError as err:
            warn(f"{err.message}: verify reports them missing")
        finally:
            self.block = 1
            self.lease.release()


# --- tables -------------------------------------------------------------------------------
#
# A table roll's replay keeps the text of every table file it may reach, so that verify
# rolls it again without the files: {"@": "TableRoll", "text": "table road", "table":
# "road", "system": the run's system (a table that names none rolls its requests there),
# "files": {name: the file's TOML text}}. The files together may hold MAX_TABLE_TEXT
# characters (each roll's row keeps them).

TABLE_REPLAY = "TableRoll"
MAX_TABLE_TEXT = 64 * 1024


def sealed_tables(word: str, text: str, system: str) -> tuple[str, dict[str, Table], str]:
    """The table `word` names and those it reaches, read from their files' text, and the
    replay of a roll of it (ParseError when they cannot be sealed)."""
    from d20cli.language.tables import MAX_TABLE_FILE_BYTES
    from d20cli.store.files import read_text
    from d20cli.store.tables import load

    root, found = load(word)
    files = {
        name: read_text(table.source, MAX_TABLE_FILE_BYTES, "a table file")
        for name, table in found.items()
    }
    if sum(len(t) for t in files.values()) > MAX_TABLE_TEXT:
        raise refused(f"a table whose files hold more than {MAX_TABLE_TEXT:,} characters")
    tables = _tables(root, files, {name: table.source for name, table in found.items()})
    replay = {"@": TABLE_REPLAY, "text": text, "table": root, "system": system, "files": files}
    return root, tables, json.dumps(replay, separators=(",", ":"))


def _tables(root: str, files: dict[str, str], sources: dict[str, str]) -> dict[str, Table]:
    from d20cli.language.tables import graph_problem, read_table

    tables: dict[str, Table] = {}
    for name, text in files.items():
        table, problems = read_table(text, name, sources.get(name, name))
        if table is None or problems:
            raise problems[0].error() if problems else ParseError(f"{name} is not a table")
        tables[name] = table
    problem = graph_problem(root, tables)
    if problem is not None:
        raise problem.error()
    return tables


def read_tables(root: str, files: dict[str, str]) -> dict[str, Table]:
    """The tables of a table roll's replay, from their text (ParseError: they are not)."""
    return _tables(root, files, {})


def replay_table(
    replay: dict[str, object],
    roller: Roller,
    read: Callable[[str, dict[str, str]], dict[str, Table]] = read_tables,
) -> Result:
    """A table roll rolled again from its replay (verify), its tables read by `read`;
    ParseError (or ValueError) for a replay that is not one."""
    from d20cli.rules import get_system
    from d20cli.rules.tables import roll_table

    files, root, text, system = (replay.get(k) for k in ("files", "table", "text", "system"))
    if not (
        isinstance(files, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
        and isinstance(root, str)
        and root in files
        and isinstance(text, str)
        and isinstance(system, str)
    ):
        raise ValueError("not a table roll's replay")
    if sum(len(t) for t in files.values()) > MAX_TABLE_TEXT:
        raise ValueError("its tables are larger than a sealed table roll keeps")
    tables = read(root, files)
    return roll_table(root, tables, roller, lambda key: get_system(key or system), text)


def open_stream(state: Callable[[], State]) -> SealedStream | None:
    """The open session's stream (None: no session is open). `state` opens the run's
    state database, which is only done when the marker file is there."""
    if not marked():
        return None
    db = state().db
    if not db.persistent:  # fail closed: never roll unsealed while a session may be open
        why = db.unusable or "it lives in memory"
        raise StateError(
            f"a sealed session may be open, but the state database cannot be read ({why}); "
            "no roll is made"
        )
    sessions = Sessions(db)
    session = sessions.current()
    if session is None:  # fail closed: the session's rolls are never made unsealed
        raise StateError(
            "a sealed session was open, but the state database holds none (was it moved "
            "aside?); no roll is made: d20 unseal clears this"
        )
    return SealedStream(session, sessions)


__all__ = [
    "SealedStream",
    "check_options",
    "mark_sealed",
    "open_stream",
    "refused",
    "replay_table",
    "sealed_tables",
    "secret_shown",
]
