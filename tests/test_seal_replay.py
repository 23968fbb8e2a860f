"""The replay that `d20 verify` makes is the roll that was made: for any seed, position
and request (of every system), a roll through the sealed stream and the verifier's
replay from its logged fields give the same dice, total and outcome, and the request's
text parses into the request rolled (Hypothesis)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from d20cli.app.commands.verify import MAX_VERIFY_WORK, logged_fields, replayed
from d20cli.app.commands.verify_text import Texts, text_problem
from d20cli.app.sealed import SealedStream, replay_text
from d20cli.dice.roller import DEFAULT_BUDGET
from d20cli.dice.sealed import commitment
from d20cli.language.grammar import parse_request
from d20cli.rules import get_system
from d20cli.rules.house import HouseDefaults, with_house
from d20cli.store.sealing import Session

REQUESTS = (
    ("levelup", "check +5 vs 15 adv expertise=d6"),
    ("levelup", "save +3 vs 14 dis"),
    ("levelup", "attack +7 vs 15 dmg 1d8+4 crit 19"),
    ("levelup", "group +3, +5 adv, -1 vs 12"),
    ("levelup", "check +2 vs 10 lucky min 10"),
    ("levelup", "roll 4d6kh3"),
    ("levelup", "roll 10d6!>5 + 2d8r1"),
    ("levelup", "roll 200d6"),
    ("levelup", "roll 3d6 + 1d4 - 2"),
    ("reglamento", "contest +3 vs +1"),
    ("reglamento", "luck"),
    ("reglamento", "check +2 vs 10"),
    ("mm", "check +8 vs 15"),
    ("mm", "opposed +8 vs +6"),
    ("mm", "percent 45"),
    ("mm", "compare 8 vs 6"),
    ("mm", "resist +6 vs rank 8"),
    ("pendagger", "attempt adept"),
    ("pendagger", "defend trained"),
    ("pendagger", "luck"),
    ("pendagger", "scores 4"),
)
HOUSES = (HouseDefaults(), HouseDefaults(crit=19, lucky=True, floor=8))


@settings(max_examples=150, deadline=None)
@given(
    st.binary(min_size=32, max_size=32),
    st.integers(0, 2**40),
    st.sampled_from(REQUESTS),
    st.sampled_from(HOUSES),
)
def test_a_sealed_roll_replays_exactly(
    seed: bytes, position: int, request: tuple[str, str], house: HouseDefaults
) -> None:
    system_id, text = request
    system = get_system(system_id)
    ready = with_house(parse_request(text), system, house)
    nonce = bytes(16)
    session = Session(1, seed, nonce, commitment(seed, nonce), "", None, position)
    stream = SealedStream(session, None)  # type: ignore[arg-type] # no saving here
    stream.end = position + 1  # the position taken from the session table already
    result = stream.wrap(system.resolve)(ready, stream.roller(DEFAULT_BUDGET))
    taken = stream.take(result, "2026-12-01T21:00:00.000+00:00", None)
    assert taken is not None and taken[:3] == (1, position, replay_text(ready))
    assert stream.next == position + 1
    row: dict[str, Any] = {
        **logged_fields(result),
        "position": position,
        "replay": json.loads(replay_text(ready)),
    }
    again = replayed(row, seed, [MAX_VERIFY_WORK])
    assert again == {k: row[k] for k in again}
    assert text_problem({**row, "character": None}, Texts()) is None  # its text spells it
