"""The check grammar's elements made from the vocabulary's rows: a word that declares its
values (`Word.values`) gets its element (`check_grammar._valued`) and its `CheckRequest`
field (`Word.value_field`) from its row alone."""

from __future__ import annotations

import pyparsing as pp
import pytest

from d20cli.language import parse_cache
from d20cli.language.check_grammar import Item, _valued
from d20cli.language.vocabulary import Word

_DIE = Word("boost", "boost", ("boost",), values=("d4", "d6", "d8"))
_MODE = Word("style", "style", ("style",), values=("plain", "wild"))


def test_a_valued_word_s_field_is_made_from_its_row() -> None:
    """A die's field holds its sides, a word's one of its words; None when not given."""
    assert _DIE.value_field() == ("int | None", None)
    assert _MODE.value_field() == ("Literal['plain', 'wild'] | None", None)
    assert _DIE.typed() == ("boost", "boost=d4", "boost=d6", "boost=d8")
    with pytest.raises(TypeError, match="needs its field"):
        Word("list", "things", ("list",), "list", values=("a",)).value_field()


@pytest.mark.parametrize(
    ("word", "text", "value"),
    [
        (_DIE, "boost=d6", 6),
        (_DIE, "BOOST=D8", 8),
        (_DIE, "boost", 4),  # the name alone: its first value
        (_MODE, "style=wild", "wild"),
        (_MODE, "style", "plain"),
    ],
)
def test_a_valued_word_s_element_reads_its_value(word: Word, text: str, value: object) -> None:
    element = _valued(word)
    assert list(element.parse_string(text, parse_all=True)) == [Item(word.kind, value, 1)]


@pytest.mark.parametrize("text", ["boost=d10", "boost=", "boost=6"])
def test_a_valued_word_refuses_another_value(text: str) -> None:
    with pytest.raises(pp.ParseBaseException, match="one of d4, d6, d8 after 'boost='"):
        _valued(_DIE).parse_string(text, parse_all=True)


def test_the_codec_checks_a_word_s_value_by_its_field() -> None:
    """A cached request's valued word holds one of its words, as the grammar reads it."""
    test = parse_cache._test(_MODE.value_field()[0])
    assert test("wild") and test(None)
    assert not test("tame") and not test(3)
