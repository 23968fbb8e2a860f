"""No parser internals ever reach a user: a corpus of bad requests (every verb in every
system, each with a value missing, a wrong word, words in the wrong order or a stray
character) run through the command line, each refused with one error line in words a
person reads (`d20: error ...`, then the request and a caret when there is a column),
exit status 2 and no traceback."""

from __future__ import annotations

import re

import pyparsing as pp
import pytest

from d20cli.language.grammar_checks import INTERNAL, elements, in_words, message
from d20cli.language.vocabulary import SYSTEM_IDS, VERBS
from tests.cli_helpers import d20, run_line

#: A request of each verb that the mutations below spoil.
BASES: dict[str, str] = {
    "group": "+3, +5 vs 12",
    "contest": "+3 vs +1",
    "opposed": "+3 vs +1",
    "luck": "adv",
    "percent": "50",
    "compare": "3 vs 4",
    "scores": "3",
    "fortune": "spend reroll",
    "roll": "1d20+5",
}

#: What is wrong with the request, and how: VERB and BASE are filled in.
MUTATIONS: dict[str, tuple[str, ...]] = {
    "missing value": (
        "VERB BASE vs",
        "VERB BASE crit",
        "VERB BASE crit=",
        "VERB BASE min",
        "VERB BASE dmg",
        "VERB BASE expertise=",
        "VERB BASE crit-dmg",
        "VERB BASE vs defense",
        "VERB BASE vs rank",
        "VERB BASE vs routine",
        "VERB BASE dmg 1d",
        "VERB BASE dmg (1d6",
        "VERB BASE dmg 2d6kh3r",
        "VERB BASE dmg max(1d6,",
        "VERB BASE dmg 1d6[fire",
    ),
    "wrong word": (
        "VERB BASE crit=x",
        "VERB BASE crit 30",
        "VERB BASE min=0",
        "VERB BASE expertise=d7",
        "VERB BASE crit-dmg=triple",
        "VERB BASE vs 15dc",
        "VERB BASE vs 1.5",
        "VERB BASE dmg 1d6xy",
        "VERB BASE dmg 1d0",
    ),
    "wrong order": (
        "VERB vs BASE",
        "VERB BASE 2 crit",
        "VERB BASE 15 vs",
        "VERB BASE d6=expertise",
        "VERB BASE 1d6 dmg",
    ),
    "stray character": (
        "VERB BASE $",
        "VERB ^BASE",
        "VERB BASE~",
        "VERB BASE &&",
        "VERB BASE )",
        "VERB BASE ]",
        "VERB BASE |",
        "VERB BASE \\",
    ),
}

#: What a message must never hold: pyparsing's names for its elements and a Python repr.
INTERNALS = re.compile(
    r"Suppress|[{}]|<SP>|<TAB>|Combine|Forward|Regex|Literal|ParseResults|Item\(|Target\("
    r"|W:\(|re\.compile|object at 0x|\\x[0-9a-f]{2}|Traceback|Error\b(?!s)"
)


def corpus(verb: str) -> list[list[str]]:
    """Every mutation of a request of `verb`, as the words of a command line."""
    base = BASES.get(verb, "+5 vs 15")
    lines = [s.replace("VERB", verb).replace("BASE", base) for m in MUTATIONS.values() for s in m]
    return [line.split() for line in lines]


def test_the_corpus_is_large() -> None:
    assert sum(len(corpus(verb)) for verb in VERBS) * len(SYSTEM_IDS) >= 300


def _one_error(err: str, words: list[str]) -> None:
    lines = err.splitlines()
    assert lines, f"no error for {words}"
    assert re.match(r"d20: error( at column [0-9]+)?: \S", lines[0]), lines[0]
    if len(lines) > 1:  # the request and a caret under the column
        assert len(lines) == 3 and lines[1].startswith("  "), err
        assert lines[2].strip() == "^", err
        assert "at column" in lines[0], err
    found = INTERNALS.search(lines[0])
    assert found is None, f"{found.group()!r} in {lines[0]!r}"


@pytest.mark.parametrize("system", SYSTEM_IDS)
@pytest.mark.parametrize("verb", VERBS)
def test_a_bad_request_is_one_error_in_words(
    verb: str, system: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for words in corpus(verb):
        status, out, err = d20([*words, "-s", system, "--no-log"], capsys)
        assert status == 2, (words, out, err)
        assert out == ""
        _one_error(err, words)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("check +5 vs 15 crit", "expected a number after 'crit' (crit N or crit=N"),
        ("check +5 vs 15 min", "expected a number after 'min' (min N or min=N"),
        ("check +5 vs 15 crit=", "expected a number, found the end"),
        ("check +5 vs 15 expertise=", "expected an expertise die: d4, d6, d8"),
    ],
)
def test_a_missing_value_is_named(
    line: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = d20([*line.split(), "--no-log"], capsys)
    assert status == 2
    assert words in err.splitlines()[0]


def _grammar_roots() -> list[pp.ParserElement]:
    from d20cli.language import dice_grammar
    from d20cli.language.check_grammar import LINES

    return [*LINES.values(), dice_grammar.roll_line]


def test_every_element_of_the_grammar_is_named_in_words() -> None:
    named = {str(e): in_words(e) for root in _grammar_roots() for e in elements(root)}
    assert len(named) > 200
    # a brace in quotes is a word a person types: "expected '}' to close the group"
    bad = {e: words for e, words in named.items() if INTERNAL.search(words) or not words}
    assert bad == {}


def test_an_element_nobody_named_is_named_by_what_it_reads() -> None:
    number = pp.Word(pp.nums).set_name("a number")
    value = pp.Suppress(pp.Literal("=")) - number | pp.White(" ").suppress() - number
    line = pp.Suppress(pp.Literal("crit")) - value
    with pytest.raises(pp.ParseBaseException) as info:
        line.parse_string("crit", parse_all=True)
    assert "Suppress" in str(info.value.msg)  # pyparsing's own picture of `value`
    assert message(info.value, "crit", line) == "expected '=' or a space, found the end"
    sign = pp.Suppress("x") - pp.Regex(r"[+-]")
    with pytest.raises(pp.ParseBaseException) as info:
        sign.parse_string("x", parse_all=True)
    assert message(info.value, "x", sign) == "expected '+' or '-', found the end"


@pytest.mark.parametrize("verb", VERBS)
def test_a_bad_line_of_the_shell_or_standard_input_is_in_words(verb: str) -> None:
    for words in corpus(verb):
        status, out, err, _ = run_line(" ".join(words))
        assert status == 2, (words, out, err)
        first = err.splitlines()[0]
        assert first.startswith("d20: error"), first
        found = INTERNALS.search(first)
        assert found is None, f"{found.group()!r} in {first!r}"
