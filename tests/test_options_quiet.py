"""`-q` prints one shape a verb: the same fields for every result of it, whatever the
dice (a miss and a hit of an attack with damage, a tie and a win of a contest), as
`d20 help VERB` says."""

from __future__ import annotations

import pytest
from cli_helpers import d20

from d20cli.language.vocabulary import VERB_HELP
from d20cli.present.help_view import verb_lines
from d20cli.rules.verb_help import QUIET

#: A request of every verb, with the faces of two results that differ in kind (a miss
#: and a hit, a tie and a win, no DC), and the fields `-q` prints for each.
CASES = [
    ("attack +7 vs 15 dmg 1d8+4", "2,20,3,4", ["9 -", "27 11"]),
    ("attack +7 vs 15", "2,12", ["9 -", "19 -"]),
    ("attack +3 vs 12 dmg 1d6 -s reglamento", "2,15,4", ["5 -", "18 4"]),
    ("attack adept -s pendagger", "2,15", ["2 -", "15 -"]),
    ("attack +8 vs 16 -s mm", "2,12", ["10 -", "20 -"]),
    ("contest +1 vs +2 -s reglamento", "10,9,12,3", ["tie -", "first_wins 1"]),
    ("contest +1 vs +2 vs +3 -s reglamento", "12,11,10,10,10,10", ["tie -", "side_wins 3"]),
    ("opposed +8 vs +6 -s mm", "5,10,10,5", ["second_wins 2", "first_wins 1"]),
    ("compare 8 vs 6 -s mm", "", ["first_wins 1", "first_wins 1"]),
    ("group +3, +5 vs 12", "9,7,1,1", ["critical_success", "critical_failure"]),
    ("group +3, +5", "9,7,1,1", ["-", "-"]),
    ("check +5 vs 15", "3,20", ["8", "25"]),
    ("check +5", "3,20", ["8", "25"]),
    ("save +3 vs 14", "1,20", ["4", "23"]),
    ("luck -s reglamento", "3,14", ["3", "14"]),
    ("percent 45 -s mm", "3,14", ["15", "70"]),
    ("roll 2d6", "1,2,6,6", ["3", "12"]),
]


@pytest.mark.parametrize(("words", "faces", "lines"), CASES)
def test_every_result_of_a_verb_has_the_same_fields(
    words: str, faces: str, lines: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*words.split(), "-n", "2", "-q", "--no-log"]
    status, out, err = d20([*args, "--dice", faces] if faces else args, capsys)
    assert (status, err) == (0, "")
    assert out.splitlines() == lines


def test_help_says_what_q_prints_for_every_verb() -> None:
    assert set(QUIET) == set(VERB_HELP)
    for verb in VERB_HELP:
        text = " ".join(" ".join(verb_lines(verb, 80)).split())
        assert f"With -q, each result prints {QUIET[verb]}." in text, verb
