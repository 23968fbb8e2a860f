"""The peers' documented examples (tests/peer_notation_corpus/corpus.txt): each parses to
d20cli's form of the same meaning, or is an error that names the difference, or is listed
read as most d20 players expect with a note that names the peer reading it otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from d20cli.errors import ParseError
from d20cli.language.dice_grammar import parse_expression
from d20cli.language.grammar import parse_request
from d20cli.language.peer_readings import readings

CORPUS = Path(__file__).parent / "peer_notation_corpus" / "corpus.txt"
#: How a roll's note names each peer.
_PEER_NAMES = {"roll20": "Roll20", "foundry": "Foundry", "avrae": "avrae", "rpg-dice-roller": "rpg"}


def _entries() -> list[tuple[str, str, str]]:
    out = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        peer, example, expected = (part.strip() for part in line.split(" | ", 2))
        out.append((peer, example, expected))
    return out


@pytest.mark.parametrize(("peer", "example", "expected"), _entries())
def test_peer_example(peer: str, example: str, expected: str) -> None:
    if expected.startswith(("rolls=", "inline=")):  # roll lines: `;` and `[[...]]`
        kind, want = expected.split("=", 1)
        request = parse_request("roll " + example)
        assert [str(p.expr) for p in request.parts] == [w.strip() for w in want.split(" ; ")]
        assert (request.template is not None) == (kind == "inline")
        return
    kind, want = expected[0], expected[1:].strip()
    if kind == "=":
        assert str(parse_expression(example)) == want
        assert parse_expression(example) == parse_expression(want)
    elif kind == "!":
        with pytest.raises(ParseError) as info:
            parse_expression(example)
        assert want in info.value.message
        assert info.value.column >= 1
    else:
        assert kind == "~", expected
        line = "roll " + example
        notes = [r.note for r in readings(parse_request(line), line)]
        assert any(_PEER_NAMES[peer] in note for note in notes), (example, notes)
