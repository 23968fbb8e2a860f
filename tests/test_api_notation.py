"""The Python API reads a bare expression as the command line's `roll` reads it: every
expression of the README's notation table and of tests/peer_notation_corpus, rolled with
one seed through `d20 roll EXPR` and through `d20cli.roll_all(EXPR)`, gives the same
results, or is refused by both."""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

import pytest

import d20cli
from d20cli.app.options import Options
from d20cli.app.run import run
from d20cli.errors import D20Error
from d20cli.present.output import Output
from tests.cli_helpers import d20

ROOT = Path(__file__).parent.parent
CORPUS = Path(__file__).parent / "peer_notation_corpus" / "corpus.txt"
SEED = 11
# The peer-read forms warn (NotationWarning, tested in test_peer_readings): not here.
pytestmark = pytest.mark.filterwarnings("ignore::d20cli.errors.NotationWarning")


def _readme_requests() -> list[str]:
    """The notation reference's requests (docs/notation.md, where the README's notation
    table lives): every example of "Every form", and the requests of "In detail" (a bare
    expression, or a whole `roll ...` line)."""
    page = (ROOT / "docs" / "notation.md").read_text(encoding="utf-8")
    forms = page.split("## Every form\n", 1)[1].split("\n#", 1)[0]
    detail = page.split("## In detail\n", 1)[1].split("\n#", 1)[0]
    cells = []
    for row in [r for r in forms.splitlines() if r.startswith("| ")][2:]:
        cells += re.findall(r"`([^`]+)`", row.rsplit(" | ", 1)[1])
    for row in [r for r in detail.splitlines() if r.startswith("| ")][2:]:
        cells += re.findall(r"`([^`]+)`", row.split(" | ", 1)[0].removeprefix("| "))
    return [" ".join(shlex.split(c)) for c in cells if re.search(r"[0-9a-z%]", c, re.I)]


def _corpus_requests() -> list[str]:
    out = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            out.append(line.split(" | ", 2)[1].strip())
    return out


def _api_request(request: str) -> str:
    """What a program passes: the expression bare, or the roll line as written. Text with
    inline rolls that starts with a word (`I hit for [[1d8+3]]`) is a roll line only with
    its verb: bare, its first word reads as a verb or a macro."""
    if request.startswith("roll ") or re.match(r"[a-z]+\s", request, re.IGNORECASE):
        return request if request.startswith("roll ") else "roll " + request
    return request


REQUESTS = sorted(set(_readme_requests() + _corpus_requests()))


def test_the_lists_are_read() -> None:
    assert "max(1d6,1d8)" in REQUESTS and "{4d6,3d8}kh1" in REQUESTS
    assert "d{0,0,1,2}" in REQUESTS and "roll 1d20+5 adv vs 15; 2d6+3" in REQUESTS
    assert len(REQUESTS) > 100


@pytest.mark.parametrize(
    "expression", ["max(1d6,1d8)", "{4d6,3d8}kh1", "d{0,0,1,2}", "abs(1d6-4)", "--1"]
)
def test_the_api_reads_a_bare_expression(expression: str) -> None:
    assert d20cli.roll(expression, seed=SEED) == d20cli.roll("roll " + expression, seed=SEED)
    assert d20cli.odds(expression) == d20cli.odds("roll " + expression)


def test_a_plain_word_still_reads_as_a_verb() -> None:
    with pytest.raises(D20Error, match="unknown verb 'chekc'"):
        d20cli.roll("chekc +5 vs 15")


@pytest.mark.parametrize("request_text", REQUESTS)
def test_the_command_line_and_the_api_agree(
    request_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    words = shlex.split(request_text) if request_text.startswith("roll ") else [request_text]
    if words[0] == "roll":
        words = words[1:]
    args = ["roll", "--seed", str(SEED), "--json", "--no-log", "--", *words]
    status, out, _ = d20(args, capsys)
    try:
        api = [r.to_json() for r in d20cli.roll_all(_api_request(request_text), seed=SEED)]
    except D20Error as err:
        assert status == 2, f"the API refuses ({err.message}); the command line rolls"
        return
    assert status == 0, f"the command line refuses: {out}"
    assert [json.loads(line) for line in out.splitlines()] == api


@pytest.mark.parametrize("request_text", REQUESTS)
def test_standard_input_and_the_shell_read_it_as_the_command_line(
    request_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A line of standard input or of the shell (both are `run` on the line's text) gives
    what the command line gives: the same results, or an error for both. A bare
    expression is a roll there too."""
    words = shlex.split(request_text) if request_text.startswith("roll ") else [request_text]
    if words[0] == "roll":
        words = words[1:]
    status, out, _ = d20(["roll", "--seed", str(SEED), "--json", "--no-log", "--", *words], capsys)
    line = _api_request(request_text)  # as typed on a line: text that starts with a word
    # needs its `roll`, as in the API
    shown, err = io.StringIO(), io.StringIO()
    opts = Options(seed=SEED, json=True, no_log=True)
    outcome = run(line, opts, Output(shown, err, color=False))
    assert int(outcome.status) == status, err.getvalue()
    if status == 0:
        assert shown.getvalue() == out
