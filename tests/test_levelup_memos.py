"""The memos of the rules keep nothing on the values they are given: a frozen request
stays as it was made (its dictionary holds its fields and nothing else), and what a memo
keeps is bounded (d20cli.bounded)."""

from __future__ import annotations

from d20cli.bounded import SIZE
from d20cli.dice.roller import make_roller
from d20cli.frozen import fields
from d20cli.language.grammar import parse_request
from d20cli.rules import get_system, levelup


def test_a_rolled_request_holds_its_fields_alone() -> None:
    request = parse_request("attack +7 vs 15 adv expertise=d6 dmg 1d8+4")
    for _ in range(2):  # the second roll reads the memo
        get_system("levelup").resolve(request, make_roller(7, None))
    assert set(vars(request)) == {f.name for f in fields(request)}


def test_the_words_memo_is_bounded_and_by_identity() -> None:
    request = parse_request("check +5 vs 15 expertise=d4")
    twin = parse_request("check +5 vs 15 expertise=d4")
    assert levelup._words(request) is levelup._words(request)
    assert levelup._words(twin) == levelup._words(request)
    assert levelup._READ.size == SIZE
