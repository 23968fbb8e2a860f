"""The shape cache never changes what a request means (issue 20 item 2): for every shape
the tests cache, random fillings of its numbers (in and out of the grammar's
limits, leading zeros, edges) read from the shape's template give exactly what the
grammar gives, and nothing where the grammar refuses the text (so its errors and carets
are the grammar's: tests/test_shape_cache.py runs them through standard input)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from shape_fillings import SHAPES, fillings

from d20cli.errors import ParseError
from d20cli.language import shapes
from d20cli.language.grammar import parse_request
from d20cli.store.shape_cache import ShapeCache

# Random fillings of each shape (every limit's edges among them, tests/shape_fillings.py):
# 150 a run, 1,000 in the long profile (HYPOTHESIS_PROFILE=long, tests/conftest.py)
FILLINGS = 1000 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 150

# Shapes whose every number is part of their meaning (the grammar would read another
# number otherwise), or which are not cached at all: only the text itself is served.
NOT_FREE = {
    "roll 1d20+5 adv vs 15; 2d6+3",  # `;` parts keep their text; adv checked per part
    "roll 1d20+5 vs 15; 2d6+3",
    "roll I hit for [[1d8+3]] and [[1d6]] fire",
}


def cold(text: str) -> object:
    try:
        return parse_request(text)
    except ParseError as err:
        return err


@pytest.mark.parametrize("text", SHAPES)
def test_random_fillings_give_what_the_grammar_gives(text: str, tmp_path: Path) -> None:
    cache = ShapeCache(str(tmp_path / "shapes.cache"))
    cache.put(text, parse_request(text), parse_request)
    assert cache.get(text) in (None, parse_request(text))
    hits = refused = 0
    for filled in fillings(text, FILLINGS, seed=20):
        want = cold(filled)
        got = cache.get(filled)
        if got is None:
            refused += isinstance(want, ParseError)
            continue
        hits += 1
        assert not isinstance(want, ParseError), (filled, want)
        assert got == want, filled
        assert type(got) is type(want)
    if text not in NOT_FREE:
        assert hits >= 1, f"{text}: no filling served"
    assert hits + refused > 0


def test_every_verb_is_covered() -> None:
    from d20cli.language.vocabulary import VERBS

    verbs = {t.split()[0] for t in SHAPES}
    assert verbs >= set(VERBS) - {"luck", "fortune"}  # those two take no number


def test_a_shape_is_the_text_with_its_numbers_as_slots() -> None:
    parts = shapes.split("attack +7 vs 16 dmg 1d8+4")
    assert parts is not None
    pieces, numbers = parts
    assert numbers == ("7", "16", "1", "8", "4")
    assert shapes.key(pieces) == "attack +# vs # dmg #d#+#"
    assert shapes.key(shapes.split("check +3 vs 12")[0]) == shapes.key(  # type: ignore[index]
        shapes.split("check +5 vs 15")[0]  # type: ignore[index]
    )
    assert shapes.key(("roll ", " # a\\b")) == "roll # \\# a\\\\b"


def test_a_labels_words_are_a_slot() -> None:
    """Letters and single spaces filling a label's brackets, at most MAX_WORD of them, are
    a slot of their own; any other label stays in the shape's pieces."""
    parts = shapes.split("roll 1d8[slashing] + 2d6[fire] + 3")
    assert parts is not None
    assert parts[1] == ("1", "8", "slashing", "2", "6", "fire", "3")
    assert shapes.key(parts[0]) == "roll #d#[#] + #d#[#] + #"
    assert shapes.split("check +5 [sleight of hand] vs 15") == (
        ("check +", " [", "] vs ", ""),
        ("5", "sleight of hand", "15"),
    )
    word = "a" * shapes.MAX_WORD
    for label in (" fire", "fire ", "fire  x", "2nd hit", "fire1", word + "a"):
        found = shapes.split(f"roll 2d6 [{label}]")
        assert found is not None and all(not shapes.is_word(s) for s in found[1]), label
    assert shapes.split(f"roll 2d6 [{word}]") == (("roll ", "d", " [", "]"), ("2", "6", word))


def test_texts_of_other_labels_share_one_template(tmp_path: Path) -> None:
    """`roll 3d8ro1+2 [fire]` learnt serves `[cold]` and any other label's words as the
    grammar reads them; a number in the label's place (`[5]`, a template of its own, the
    number fixed) is not read as a label, nor a label as a number."""
    cache = ShapeCache(str(tmp_path / "shapes.cache"))
    for text in ("roll 3d8ro1+2 [fire]", "roll 1d6 [5]"):
        cache.builds = 0
        cache.put(text, parse_request(text), parse_request)
    for text in ("roll 4d6ro1+1 [cold]", "roll 2d10ro2+0 [Sneak Attack]", "roll 3d8ro1+2 [vs]"):
        assert cache.get(text) == parse_request(text), text
    assert len(cache._load()["roll #d#ro#+# [#]"]) == 1
    assert cache.get("roll 1d6 [5]") == parse_request("roll 1d6 [5]")
    assert cache.get("roll 1d6 [6]") is None  # (the number of a label is part of its text)
    held = cache._load()["roll #d# [#]"]
    assert list(held) == ["2=5"]
    cache.put("roll 1d6 [fire]", parse_request("roll 1d6 [fire]"), parse_request)
    assert sorted(cache._load()["roll #d# [#]"]) == ["", "2=5"]
    for text in ("roll 2d4 [cold]", "roll 1d6 [adv]"):
        assert cache.get(text) == parse_request(text), text
    assert cache.get("roll 2d4 [7]") is None


@pytest.mark.parametrize(
    "text",
    [
        "check +05 vs 15",  # a leading zero
        "check +٣ vs 15",  # digits other than 0-9
        "check −5 vs 15",  # the Unicode minus the grammar reads as '-'
        "check\t+5 vs 15",
        "luck adv",  # no number
        "roll " + "1+" * 300 + "1",  # too long
    ],
)
def test_texts_without_a_shape(text: str) -> None:
    assert shapes.split(text) is None


def test_numbers_that_are_part_of_the_meaning_stay_fixed(tmp_path: Path) -> None:
    """`expertise=d6`: only d4, d6, d8 are read; the d20 of `1d20 adv`: adv needs one plain
    d20; two rank adjustments add up: those numbers must be the same to use the shape."""
    cache = ShapeCache(str(tmp_path / "shapes.cache"))
    for text in ("check +5 vs 15 adv expertise=d6", "roll 1d20+5 adv", "attempt trained +1 -2"):
        cache.builds = 0
        cache.put(text, parse_request(text), parse_request)
    assert cache.get("check +7 vs 11 adv expertise=d6") == parse_request(
        "check +7 vs 11 adv expertise=d6"
    )
    assert cache.get("check +7 vs 11 adv expertise=d8") is None
    assert cache.get("roll 1d20+9 adv") == parse_request("roll 1d20+9 adv")
    assert cache.get("roll 1d12+9 adv") is None
    assert cache.get("roll 2d20+9 adv") is None
    assert cache.get("attempt trained +1 -2") == parse_request("attempt trained +1 -2")
    assert cache.get("attempt trained +3 -2") is None


def test_columns_follow_the_numbers_lengths(tmp_path: Path) -> None:
    cache = ShapeCache(str(tmp_path / "shapes.cache"))
    cache.put("check +5 vs 15 adv", parse_request("check +5 vs 15 adv"), parse_request)
    got = cache.get("check +12345 vs 1 adv")
    assert got == parse_request("check +12345 vs 1 adv")
    assert got.column("adv") == 19  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    [
        "check +5 vs 1000000000",  # 10 digits: the grammar's limit is 9
        "roll 1d0",
        "roll 1d1000001",
        "roll 1001x 1d6",
        "roll 0x 1d6",
        "check +5 crit 21 vs 15",
        "roll 4d6mi7",
        "roll 1d20+1000000000000",
    ],
)
def test_a_filling_the_grammar_refuses_is_not_served(text: str, tmp_path: Path) -> None:
    cache = ShapeCache(str(tmp_path / "shapes.cache"))
    parts = shapes.split(text)
    assert parts is not None
    # the same shape with small numbers, learnt first
    small = shapes.join(parts[0], tuple("2" for _ in parts[1]))
    cache.put(small, parse_request(small), parse_request)
    assert shapes.key(parts[0]) in cache._load()
    with pytest.raises(ParseError):
        parse_request(text)
    assert cache.get(text) is None


def _filled(fill: object, *args: object) -> object:
    try:
        return fill(*args)  # type: ignore[operator]
    except shapes.Refused:
        return shapes.Refused


@pytest.mark.parametrize("text", SHAPES)
def test_a_ready_template_fills_as_the_template_does(text: str, tmp_path: Path) -> None:
    """`shapes.Ready` (a template filled once, made into constructors) gives exactly what
    `shapes.fill` (walk, decode, check) gives for every filling, and refuses the same."""
    cache = ShapeCache(str(tmp_path / "shapes.cache"))
    cache.put(text, parse_request(text), parse_request)
    held = cache._load().get(shapes.key(shapes.split(text)[0]))  # type: ignore[index]
    if held is None:
        assert text in NOT_FREE
        return
    served = 0
    for entry in held.values():
        ready = shapes.Ready(entry)
        for filled in [text, *fillings(text, FILLINGS, seed=21)]:
            parts = shapes.split(filled)
            if parts is None or shapes.key(parts[0]) != entry["shape"]:
                continue
            want = _filled(shapes.fill, entry, *parts, filled)
            got = _filled(ready.fill, *parts, filled)
            assert got == want and type(got) is type(want), filled
            served += want is not shapes.Refused
    assert served >= 1


@given(st.text(alphabet="0123456789d+- #x", max_size=40))
def test_a_shape_splits_at_every_run_of_digits(text: str) -> None:
    """`split` cuts the text at each whole run of digits (0-9), and a text with a number
    written with a leading zero has no shape."""
    parts = shapes.split(text)
    numbers = re.findall(r"[0-9]+", text)
    if not numbers or re.search(r"(?<![0-9])0[0-9]", text):
        assert parts is None
        return
    assert parts is not None
    pieces, found = parts
    assert list(found) == numbers and list(pieces) == re.split(r"[0-9]+", text)
    assert shapes.join(pieces, found) == text
