"""A label word with no value (`check stealth vs 15` without a character) is said on
stderr before the result, and with `--strict` (the API's `strict=True`) is an error
(issue 33, item 7)."""

from __future__ import annotations

import io
import json

import pytest
from cli_helpers import d20, write_sheet

import d20cli
from d20cli.app.options import Options, split_line
from d20cli.app.run import run as run_tokens
from d20cli.present.output import Output

NOTE = "'stealth' has no value here, so it adds nothing"


def _one_stream(line: str) -> tuple[int, str]:
    """A line run with standard output and standard error written to one stream, in
    the order they are written."""
    both = io.StringIO()
    status = int(run_tokens(split_line(line), Options(), Output(both, both, color=False)).status)
    return status, both.getvalue()


@pytest.mark.parametrize("line", ["check stealth vs 15 --dice 9", "odds check stealth vs 15"])
def test_the_note_comes_before_the_result(line: str) -> None:
    status, text = _one_stream(line)
    assert status == 0
    assert NOTE in text
    assert text.index(NOTE) < text.index("check stealth vs 15  [levelup]")


def test_a_bad_request_gets_its_error_alone() -> None:
    status, text = _one_stream("check stealth vs 15 expertise=d6 --system mm")
    assert status == 2
    assert NOTE not in text


@pytest.mark.parametrize(
    ("args", "column"),
    [
        (["check", "stealth", "vs", "15"], 7),
        (["group", "+2,", "stealth", "vs", "15"], 11),
        (["contest", "+2", "vs", "orc", "-s", "reglamento"], 15),
        (["odds", "check", "stealth", "vs", "15"], 7),
    ],
)
def test_strict_makes_it_an_error(
    args: list[str], column: int, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = d20([*args, "--strict"], capsys)
    assert status == 2
    assert out == ""
    assert "has no value here (--strict)" in err
    assert f"column {column}" in err
    status, out, _ = d20([*args, "--strict", "--json"], capsys)
    assert status == 2
    assert json.loads(out)["column"] == column


def test_strict_rolls_nothing_it_would_log(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = d20(["check", "stealth", "vs", "15", "--strict"], capsys)
    assert status == 2
    status, out, _ = d20(["log", "--json"], capsys)
    assert "stealth" not in out


def test_strict_lets_a_valued_label_and_a_character_through(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = d20(
        ["check", "stealth", "+2", "vs", "15", "--strict", "--dice", "9"], capsys
    )
    assert (status, err) == (0, "")
    assert "= 11" in out
    write_sheet('[aria]\nstealth = "+7"\n')
    args = ["check", "stealth", "vs", "15", "--strict", "--as", "aria", "--dice", "9"]
    status, out, err = d20(args, capsys)
    assert status == 0, err
    assert "= 16" in out


def test_the_api_takes_strict() -> None:
    assert d20cli.roll("check stealth vs 15", dice=[9]).total == 9
    for call in (
        lambda: d20cli.roll("check stealth vs 15", dice=[9], strict=True),
        lambda: d20cli.roll_all("check stealth vs 15", strict=True),
        lambda: d20cli.odds("check stealth vs 15", strict=True),
        lambda: d20cli.parse("group +1, stealth vs 15", strict=True),
    ):
        with pytest.raises(d20cli.ParseError, match=r"has no value here \(strict=True\)"):
            call()
    assert d20cli.roll("check stealth +1 vs 15", dice=[9], strict=True).total == 10
    zed = d20cli.Character(name="zed", entries={"stealth": "+3"})
    assert d20cli.roll("check stealth vs 15", dice=[9], strict=True, character=zed).total == 12


# --- a stray word is never a silent label (issue 42 item 5) -------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ["check", "+5", "vs", "15", "x3"],
            "'x3' does not repeat a roll here: to roll it 3 times, add -n 3",
        ),
        (["check", "+5", "vs", "15", "3x"], "unexpected '3x': to roll it 3 times, add -n 3"),
        (["roll", "1d20+5", "stealth"], "a comment, written after '#': roll 1d20+5 # stealth"),
        (["attack", "+5", "vs", "15", "damage", "1d8"], "'damage' is written dmg here (dmg 1d8)"),
    ],
)
def test_a_stray_word_says_what_was_meant(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = d20([*args, "--dice", "10"], capsys)
    assert (status, out) == (2, "")
    assert words in err.splitlines()[0]


STRAY = "'stelth' after the target is the roll's label: it names the roll and adds nothing"


def test_a_word_after_the_target_is_said_and_refused_under_strict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = d20(["check", "+5", "vs", "15", "stelth", "--dice", "10"], capsys)
    assert status == 0 and "= 15 vs 15" in out and STRAY in err
    status, out, err = d20(["check", "+5", "vs", "15", "stelth", "--strict"], capsys)
    assert (status, out) == (2, "") and STRAY in err and "(--strict)" in err
    # in brackets or before the modifier it is a label, said nowhere
    for args in (["check", "+5", "vs", "15", "[stelth]"], ["check", "goblin", "+5", "vs", "15"]):
        status, out, err = d20([*args, "--dice", "10", "--strict"], capsys)
        assert (status, err) == (0, ""), err


def test_a_word_near_an_entry_of_the_character_is_asked_about(
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_sheet('[aria]\nstealth = "+7"\n')
    args = ["check", "+5", "vs", "15", "stelth", "--as", "aria", "--dice", "10"]
    status, out, err = d20(args, capsys)
    assert (status, out) == (2, "")
    assert "aria has no entry 'stelth'; did you mean stealth?" in err
