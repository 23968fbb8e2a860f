"""What a system says of a word or a verb it lacks (d20cli.rules.hints): derived from every
system's declarations (`System.takes`, `System.verbs`, `System.instead`), so a word or a
verb added to one system is named in the others' errors without an edit there (issue 41,
item 1)."""

from __future__ import annotations

import pytest

import d20cli
from d20cli import rules
from d20cli.errors import D20Error
from d20cli.frozen import replace
from d20cli.language.vocabulary import CHECK_WORD, CHECK_WORDS, VERBS, Word
from d20cli.rules import SYSTEM_IDS, get_system, hints
from tests.cli_helpers import d20


def _first_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    status, out, err = d20([*args, "--no-log"], capsys)
    assert (status, out) == (2, "")
    return err.splitlines()[0]


def test_a_word_of_another_system_names_it_and_what_to_use(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _first_error(["check", "adept", "-s", "levelup"], capsys) == (
        "d20: error at column 7: levelup has no ranks (pendagger's); "
        "a levelup roll takes a signed modifier: check +5 vs 15"
    )
    assert _first_error(["check", "+5", "vs", "15", "bonus", "-s", "reglamento"], capsys) == (
        "d20: error at column 16: reglamento has no circumstance words (mm's); "
        "use adv or dis (or a modifier)"
    )


def test_a_word_the_system_has_on_another_verb_names_that_verb(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _first_error(["save", "+1", "vs", "10", "dmg", "1d6", "-s", "levelup"], capsys)
    assert first == "d20: error at column 15: only attack takes dmg EXPR in levelup"


def test_a_verb_of_another_system_names_it_and_what_to_use(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _first_error(["save", "+1", "vs", "10", "-s", "mm"], capsys) == (
        "d20: error at column 1: mm has no 'save'; its verbs are check, attack, resist, "
        "routine, opposed, compare, percent, roll (save is levelup's and reglamento's; "
        "use resist)"
    )
    with pytest.raises(D20Error, match=r"\(contest is reglamento's; use opposed\)"):
        d20cli.roll("contest +1 vs +2", system="mm")


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_every_word_a_verb_lacks_is_named_with_its_owners(sid: str) -> None:
    system = get_system(sid)
    others = [get_system(o) for o in SYSTEM_IDS if o != sid]
    for verb, kinds in system.takes.items():
        for word in CHECK_WORDS:
            if word.kind in kinds:
                continue
            message = hints.word_hint(system, verb, word.kind)
            if message in system.lacks.values():
                continue
            owners = [o.id for o in others if any(word.kind in k for k in o.takes.values())]
            if message.startswith("only "):  # another verb of the system takes it
                assert any(word.kind in k for k in system.takes.values())
            elif len(owners) < len(others):
                assert all(f"{o}'s" in message for o in owners), message


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_every_verb_a_system_lacks_is_named_with_its_owners(sid: str) -> None:
    system = get_system(sid)
    for verb in VERBS:
        if verb in system.verbs:
            continue
        hint = hints.verb_hint(system, verb)
        assert hint is not None and hint.startswith(f"{verb} is ")
        for other in SYSTEM_IDS:
            assert (f"{other}'s" in hint) == (other != sid and verb in get_system(other).verbs)


def test_a_new_word_of_one_system_is_named_in_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A word `bless` declared and taken by levelup alone: reglamento's error names it
    levelup's, and says what reglamento has instead, with no edit in reglamento."""
    monkeypatch.setitem(CHECK_WORD, "bless", Word("bless", "bless", ("bless",), named="bless"))
    levelup = get_system("levelup")
    blessed = replace(levelup, takes={**levelup.takes, "check": levelup.takes["check"] | {"bless"}})
    real = rules.get_system
    monkeypatch.setattr(rules, "get_system", lambda s: blessed if s == "levelup" else real(s))
    message = hints.word_hint(get_system("reglamento"), "check", "bless")
    assert message == "reglamento has no bless (levelup's); use adv or dis (or a modifier)"
    assert hints.word_hint(blessed, "save", "bless") == "only check takes bless in levelup"
