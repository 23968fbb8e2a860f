"""The request classes (d20cli.language.requests): a check word's field is made from its
row of `vocabulary.CHECK_WORDS` when `CheckRequest` does not declare it."""

from __future__ import annotations

import json

import pytest

from d20cli.frozen import fields, frozen
from d20cli.language import requests
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CheckRequest
from d20cli.language.vocabulary import Word
from tests.cli_helpers import d20


def test_a_flag_or_counted_words_field_is_made_from_its_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A word declared by its row alone (here `bless`, a flag, and `omen`, counted) gets
    its field, after the class's own, and the request reports it given by its kind."""
    rows = (
        Word("bless", "bless", ("bless",), flag=True),
        Word("omen", "omen", ("omen",), "count", flag=True),
    )
    monkeypatch.setattr(requests, "CHECK_WORDS", rows)
    monkeypatch.setattr(requests, "CHECK_WORD", {row.kind: row for row in rows})

    @frozen
    @requests._word_fields
    class Asked:
        verb: str

    made = [(f.name, f.type, f.default) for f in fields(Asked)]
    assert made[1:] == [("bless", "bool", False), ("omen", "int", 0)]
    assert made[0][:2] == ("verb", "str")
    asked = Asked("check", bless=True, omen=2)  # type: ignore[call-arg]
    assert (asked.bless, asked.omen) == (True, 2)  # type: ignore[attr-defined]


def test_a_word_that_takes_a_value_declares_its_field(monkeypatch: pytest.MonkeyPatch) -> None:
    """A word that takes a value (`rank adept`) needs its grammar element and a typed field:
    made from its row, it is refused by name."""
    monkeypatch.setattr(requests, "CHECK_WORDS", (Word("omen", "omen", ("omen",)),))
    with pytest.raises(TypeError, match="'omen' needs its field on CheckRequest"):

        @requests._word_fields
        class Asked:
            verb: str


def test_every_check_words_field_and_count(capsys: pytest.CaptureFixture[str]) -> None:
    """Every row's field is on CheckRequest, the class's own fields first as declared (the
    Python API's order); `count` reads a counted word or a flag by its kind, as typed on
    the command line."""
    names = [f.name for f in fields(CheckRequest)]
    own = names[: names.index("word_kinds") + 1]  # the class's own, then the made ones
    assert own[:3] == ["verb", "text", "modifier"]
    made = [row.field for row in requests.CHECK_WORDS if row.field not in own]
    assert names[len(own) :] == made
    parsed = parse_request("check +5 vs 15 adv adv lucky")
    assert isinstance(parsed, CheckRequest)
    assert (parsed.count("adv"), parsed.count("lucky"), parsed.count("dis")) == (2, 1, 0)
    status, out, _ = d20(["check", "+5", "vs", "15", "lucky", "--dice", "1,12", "--json"], capsys)
    assert status == 0 and json.loads(out)["total"] == 17  # the 1 rolled once more: 12
