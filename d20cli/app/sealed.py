"""A run's rolls in a sealed session (`d20 seal`, d20cli.store.sealing): where their dice
come from, and what each logged roll keeps so that `d20 verify` can roll it again.

The run reads the session once (`open_stream`, only when the marker file says one may be
open: a run with no session pays one look at the disk). Each roll then takes the next
position p of the session's stream: its dice come from the generator of that position
(d20cli.dice.sealed.position_random), and the roll log keeps the session, p and the
request as rolled (after `--as`, its macros and entries, with the house rules in force:
the JSON of d20cli.language.parse_cache). A roll that fails takes no position: its dice
were never shown, and the next roll uses them.

Each logged roll also gets its receipt (d20cli.dice.sealed.next_receipt: a hash chain of
the session's rolls, from its commitment), kept in its row and shown with the roll
(`with_receipt`: `sealed #P receipt R`, and "receipt" {"position", "hash"} in JSON), so
that the table can hold the export to what it saw (`d20 verify --receipts`).

What would make a roll unverifiable is refused with a one-line error that says to
`d20 unseal` first: `--seed`, `--dice`, the roll log off (`--no-log`, D20_NO_LOG), and
the rolls that the log cannot replay (tables, initiative, a fortune reroll).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from d20cli.dice.roller import RandomRoller
from d20cli.dice.sealed import (
    RECEIPT_SHOWN,
    canonical,
    next_receipt,
    position_seed,
    receipt_body,
    receipts_start,
)
from d20cli.errors import ParseError, StateError
from d20cli.language.parse_cache import encode
from d20cli.store.seal_marker import marked
from d20cli.store.sealing import Session, Sessions

if TYPE_CHECKING:
    from d20cli.app.options import Options
    from d20cli.dice.roller import Roller
    from d20cli.language.requests import Request
    from d20cli.results import Result
    from d20cli.store.state import State

UNSEAL = "d20 unseal first"
REPLAYS = 4096  # requests whose replay text a run keeps


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


class SealedStream:
    """The open session's stream of dice for this run."""

    def __init__(self, session: Session, sessions: Sessions) -> None:
        self.session = session
        self.sessions = sessions
        self.next = session.next  # the position of the next roll
        self.saved = session.next  # the next position as the session table has it
        self.rng = random.Random()
        self._rollers: dict[int, RandomRoller] = {}
        # rolled and not yet logged: result id -> (result, position, replay)
        self.pending: dict[int, tuple[Result, int, str]] = {}
        # the replay text of the requests of this run (a batch repeats them), by id
        self._replays: dict[int, tuple[Request, str]] = {}
        # the receipt of the last roll logged, and of the logged results not yet shown
        self.head = session.head or receipts_start(session.commitment)
        self.receipts: dict[int, tuple[Result, int, str]] = {}
        self._canonical: dict[str, str] = {}  # replay text -> its canonical JSON

    def replay(self, request: Request) -> str:
        """`replay_text(request)`, made once per request of the run."""
        found = self._replays.get(id(request))
        if found is not None and found[0] is request:
            return found[1]
        if len(self._replays) >= REPLAYS:
            self._replays.clear()
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

    def wrap(
        self, resolve: Callable[[Request, Roller], Result]
    ) -> Callable[[Request, Roller], Result]:
        """`resolve` with each roll at the next position of the stream."""

        def sealed(request: Request, roller: Roller) -> Result:
            if request.verb == "fortune":  # shows or spends dice: rolls none but a reroll
                if getattr(request, "action", "show") == "spend" and (
                    getattr(request, "use", "reroll") == "reroll"
                ):
                    raise refused("a fortune reroll")
                return resolve(request, roller)
            position = self.next
            self.rng.seed(position_seed(self.session.seed, position))
            result = resolve(request, roller)
            self.next = position + 1
            self.pending[id(result)] = (result, position, self.replay(request))
            return result

        return sealed

    def take(
        self, result: Result, at: str, character: str | None
    ) -> tuple[int, int, str, str] | None:
        """What the roll log keeps of a result of this stream, logged at `at` for
        `character`: session, position, replay and receipt (None: a result that took no
        position)."""
        found = self.pending.pop(id(result), None)
        if found is None or found[0] is not result:
            return None
        _, position, replay = found
        self.head = next_receipt(self.head, self._body(result, position, at, character, replay))
        self.receipts[id(result)] = (result, position, self.head)
        return self.session.id, position, replay, self.head

    def _body(
        self, result: Result, position: int, at: str, character: str | None, replay: str
    ) -> bytes:
        from d20cli.store.database import clean

        shown = self._canonical.get(replay)
        if shown is None:
            if len(self._canonical) >= REPLAYS:
                self._canonical.clear()
            shown = self._canonical[replay] = canonical(json.loads(replay))
        return receipt_body(
            self.session.commitment,
            position,
            at,
            None if character is None else clean(character),  # as the log keeps them
            result.system,
            result.verb,
            clean(result.request),
            shown,
        )

    def with_receipt(self, result: Result) -> Result:
        """`result` with its receipt shown (`sealed #P receipt R`; JSON: "receipt"
        {"position": P, "hash": R}), once it is logged; itself when it took none."""
        found = self.receipts.pop(id(result), None)
        if found is None or found[0] is not result:
            return result
        _, position, receipt = found
        shown = receipt[:RECEIPT_SHOWN]
        return result.noted(
            f"sealed #{position} receipt {shown}",
            {"receipt": {"position": position, "hash": shown}},
        )

    def save(self, warn: Callable[[str], None]) -> None:
        """Keep the next position in the session table (after the log's rows)."""
        self.pending.clear()
        self.receipts.clear()
        if self.next == self.saved:
            return
        try:
            self.sessions.advance(self.session.id, self.next, self.head)
            self.saved = self.next
        except StateError as err:
            warn(f"cannot save the sealed session's position: {err.message}")


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


__all__ = ["SealedStream", "check_options", "open_stream", "refused"]
