"""The peers' notation decided (issue 33, item 5): each is read with the peer's meaning,
rolled and given exact odds that agree with rolling every face, or refused on the command
line and in the API with a message that names the rewrite; never a different number.
The decisions are listed in tests/peer_notation_corpus/corpus.txt and the README."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from fractions import Fraction

import pytest
from cli_helpers import d20

import d20cli
from d20cli.dice.evaluate import evaluate
from d20cli.dice.roller import ForcedRoller
from d20cli.language.dice_grammar import parse_expression

# The peer-read forms warn (NotationWarning): said where they are tested, quiet elsewhere.
pytestmark = pytest.mark.filterwarnings("ignore::d20cli.errors.NotationWarning")

#: Accepted with the peer's meaning: (expression, the sides of the dice it rolls in order
#: (faces 1..n, or a list of faces), what the faces make).
ACCEPTED: list[tuple[str, list[int | list[int]], object]] = [
    ("(1d4, 2+2, 1d6kl1)kh1", [4, 6], lambda a, b: max(a, 4, b)),
    ("(1d4+1, 3, 1d6)kl1", [4, 6], lambda a, b: min(a + 1, 3, b)),
    ("(1d6,)kh1", [6], lambda a: a),
    ("(1, 1d4, 2)", [4], lambda a: 3 + a),
    ("1d20%3", [20], lambda a: a % 3),
    ("(1d6-4)%3", [6], lambda a: (a - 4) % 3),
    ("1d6%-4", [6], lambda a: a % -4),
    ("2*1d6%4", [6], lambda a: 2 * a % 4),
    ("+1d6", [6], lambda a: a),
    ("1d4+ +1d4", [4, 4], lambda a, b: a + b),
    ("2d6<>3", [6, 6], lambda a, b: (a != 3) + (b != 3)),
    ("2d6>=5f!=1", [6, 6], lambda a, b: sum(1 if x >= 5 else 0 if x == 1 else -1 for x in (a, b))),
    ("dF.1", [[-1, 0, 0, 0, 0, 1]], lambda a: a),
]
#: Fudge dice, whose forced faces are their values.
FUDGE = [("2dF.2", [[-1, 0, 1], [-1, 0, 1]], lambda a, b: a + b)]


def _brute(sides: list[int | list[int]], value: object) -> dict[int, Fraction]:
    faces = [list(range(1, s + 1)) if isinstance(s, int) else s for s in sides]
    counts = Counter(value(*combo) for combo in itertools.product(*faces))  # type: ignore[operator]
    total = sum(counts.values())
    return {t: Fraction(n, total) for t, n in sorted(counts.items())}


@pytest.mark.parametrize(("text", "sides", "value"), ACCEPTED + FUDGE)
def test_an_accepted_notation_has_the_peers_odds(
    text: str, sides: list[int | list[int]], value: object
) -> None:
    odds = d20cli.odds("roll " + text)
    assert odds.distribution == _brute(sides, value)
    assert parse_expression(str(parse_expression(text))) == parse_expression(text)


@pytest.mark.parametrize(("text", "sides", "value"), ACCEPTED)
def test_an_accepted_notation_rolls_the_peers_number(
    text: str, sides: list[int | list[int]], value: object
) -> None:
    faces = [list(range(1, s + 1)) if isinstance(s, int) else s for s in sides]
    for combo in itertools.islice(itertools.product(*faces), 40):
        pairs = zip(combo, sides, strict=True)
        positions = [f if isinstance(s, int) else s.index(f) + 1 for f, s in pairs]
        forced = evaluate(parse_expression(text), ForcedRoller(positions))
        assert forced.total == value(*combo), (text, combo)  # type: ignore[operator]


def test_the_rewrite_rr_names_is_the_one_that_works() -> None:
    with pytest.raises(d20cli.ParseError) as info:
        d20cli.roll("1d20rr<20")
    assert info.value.message.endswith("1d20r<20")
    assert d20cli.roll("1d20r<20", dice=[3, 20]).total == 20


def test_df_variants_never_say_numbers_are_whole() -> None:
    for text in ("dF.1", "dF.2", "dF.3"):
        try:
            d20cli.parse(text)
        except d20cli.ParseError as err:
            assert "whole" not in err.message
            assert "dF.1" in err.message


#: Refused, with words of the message (the peers' two meanings or the rewrite).
REFUSED = [
    ("4d6k<3", "avrae's 'k<3'"),
    ("4d6u=5", "put the target first: 4d6=5u"),
    ("2d%u>80", "put the target first: 2d%>80u"),
    ("6d6u>=4f1", "put the target first: 6d6>=4f1u"),
    ("1d6!mi3", "'mi' with an explosion"),
    ("3d6ma5!!", "'ma' with an explosion"),
    ("2d6r1!", "a reroll with an explosion"),
    ("round(-5/2)", "floor(X+1/2)"),
    ("round((1d6-4)/2)", "negative half"),
    ("1d20rr<20", "written 'r' here: 1d20r<20"),
    ("4d6e6", "written '!' here: 4d6!=6"),
    ("4d6pl1+2", "written 'dl' here: 4d6dl1"),
]


@pytest.mark.parametrize(("text", "words"), REFUSED)
def test_a_refused_notation_names_the_rewrite(
    text: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(d20cli.ParseError) as info:
        d20cli.roll("roll " + text)
    assert words in info.value.message
    with pytest.raises(d20cli.ParseError):
        d20cli.odds("roll " + text)
    status, out, err = d20(["roll", text], capsys)
    assert (status, out) == (2, "")
    assert words in err
    status, out, _ = d20(["odds", "roll", text, "--json"], capsys)
    assert status == 2
    assert words in json.loads(out)["error"]


#: Read as most d20 players expect, with a note naming the peer that reads it otherwise:
#: (expression, forced faces, total, words of the note).
NOTED = [
    ("5d10>7", [7, 3, 2, 3, 2], 0, "Roll20 reads it as 7 or more: write >=7"),
    ("5d10<3", [7, 3, 2, 3, 2], 2, "Roll20 reads it as 3 or less: write <=3"),
    ("1d20r<2", [2], 2, "Roll20 reads it as 2 or less"),
    ("1d20cs>19", [19], 19, "Roll20 reads it as 19 or more: write >=19"),
    ("3d6cs>=5", [6, 5, 1], 12, "Foundry's cs counts the dice as successes: write 3d6>=5"),
    ("d%", [57], 57, "avrae's d% is a tens die (00 to 90)"),
    ("4d6k3", [1, 2, 3, 4], 9, "avrae's k3 keeps the dice showing 3: write kh3"),
    ("{1d20+5,1d20+2}>15", [10, 14], 1, "Roll20 reads it as 15 or more: write >=15"),
]


@pytest.mark.parametrize(("text", "faces", "total", "words"), NOTED)
def test_a_form_a_peer_reads_otherwise_is_said(
    text: str, faces: list[int], total: int, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 42 items 3 and 4: a form a major peer reads as another number rolls as most
    d20 players expect, with a one-line note that names that peer and the rewrite (an
    error under --strict); never a different number without a word."""
    dice = ",".join(map(str, faces))
    status, out, err = d20(["roll", text, "--dice", dice, "--json"], capsys)
    assert status == 0 and json.loads(out)["total"] == total
    notes = err.splitlines()  # one a form (`1d20cs>19`: Roll20's `>`, Foundry's `cs`)
    assert all(n.startswith("d20: warning: ") for n in notes)
    assert any(words in n for n in notes)
    status, out, err = d20(["roll", text, "--strict"], capsys)
    assert (status, out) == (2, "") and words in err and "(--strict)" in err
    with pytest.warns(d20cli.NotationWarning, match=re.escape(words)):
        assert d20cli.roll(text, dice=faces).total == total
    with pytest.raises(d20cli.ParseError, match=r"\(strict=True\)"):
        d20cli.roll(text, strict=True)


def test_a_note_is_said_once_a_run() -> None:
    import subprocess
    import sys

    batch = "roll 5d10>7\nroll 5d10>7\nroll 2d10>7 # twice\n"
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "-q"], input=batch, capture_output=True, text=True
    )
    status, out, err = run.returncode, run.stdout, run.stderr
    assert status == 0 and len(out.splitlines()) == 3
    assert len([n for n in err.splitlines() if "Roll20" in n]) == 2  # one a form


def test_each_rewrite_rolls() -> None:
    for text in ("4d6=5u", "6d6>=4f1u", "4d6dl1+2", "4d6!=6", "4d6kh3", "1d100"):
        d20cli.parse(text)
