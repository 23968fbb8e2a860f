"""Numbers are written with the ASCII digits 0-9, everywhere in the command language.

Python's `int()` and a regex `\\d` take any Unicode digit, so `roll ١d٦` rolled 1d6 and
`check +５ vs 15` added 5, while `--dice ²` (a digit to str.isdigit, not to int()) ended in
StopIteration, a traceback that also stopped a batch on standard input and the shell.
Now any other digit is a one-line error with its column, exit status 2."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from d20cli.app.options import Options, split_line, split_options
from d20cli.app.run import run as run_tokens
from d20cli.errors import ParseError
from d20cli.present.output import Output

ROOT = Path(__file__).resolve().parent.parent


def run(line: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    outcome = run_tokens(split_line(line), Options(), Output(out, err, color=False))
    return int(outcome.status), out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("line", "column", "char"),
    [
        ("roll ١d٦", 6, "١"),
        ("roll 1d٦", 8, "٦"),
        ("roll 1d²", 8, "²"),
        ("roll ٣x 1d6", 6, "٣"),
        ("roll 1d6+½", 10, "½"),
        ("check +５ vs 15", 8, "５"),
        ("check +5 vs １５", 13, "１"),
        ("check +5 vs 15 expertise=d٦", 27, "٦"),
        ("group +1, +٢ vs 5", 12, "٢"),
        ("attempt ١٤ -1 -s pd", 9, "١"),
        ("check stealth٣ +1 vs 5", 14, "٣"),
        ("odds roll ١d٦", 6, "١"),
    ],
)
def test_a_digit_other_than_0_to_9_in_a_request_is_an_error_at_its_column(
    line: str, column: int, char: str
) -> None:
    if line.startswith("odds "):
        from cli_helpers import run_odds

        out, err = io.StringIO(), io.StringIO()
        status = int(run_odds(split_line(line[5:]), Options(), Output(out, err, color=False)))
        text = err.getvalue()
    else:
        status, _, text = run(line)
    assert status == 2
    first = text.splitlines()[0]
    assert first.startswith(f"d20: error at column {column}: '{char}' (U+"), first
    assert "is not a digit: numbers are written with 0-9" in first
    assert "Traceback" not in text


def test_free_text_may_hold_any_character() -> None:
    status, out, err = run("roll 1d6[fire٣] --dice 4")
    assert status == 0, err
    assert "fire٣" in out
    status, _, err = run("roll 1d6 # round ٣ --dice 4")
    assert status == 0, err


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        (["--dice", "²"], "--dice: '²' (U+00B2) at column 1 of '²' is not a digit"),
        (["--dice", "17,4,٣"], "--dice: '٣' (U+0663) at column 6 of '17,4,٣' is not a digit"),
        (["--seed", "٣"], "--seed: '٣' (U+0663) at column 1"),
        (["--repeat", "１０"], "--repeat: '１' (U+FF11) at column 1"),
        (["--players", "٤"], "--players: '٤' (U+0664) at column 1"),
        (["--budget=５"], "--budget: '５' (U+FF15) at column 1"),
        (["--simulate", "1٠"], "--simulate: '٠' (U+0660) at column 2"),
        (["--dice", "1," + "9" * 5000], "--dice: 999999999999... (5,000 digits) is not a die"),
        (["--seed", "9" * 5000], "--seed takes a number of at least 0, not one of 5,000 digits"),
        (["--repeat", "9" * 5000], "--repeat takes a number from 1 to 10,000,000, not one of"),
        (["--dice", "1,a"], "'a' is not a die face"),
    ],
)
def test_option_values_take_ascii_digits_only(tokens: list[str], message: str) -> None:
    with pytest.raises(ParseError) as caught:
        split_options(tokens)
    assert message in caught.value.message


def test_large_but_ascii_option_values_still_work() -> None:
    _, opts = split_options(["--seed", "9" * 100, "--dice", "+3,-1,1_000", "--repeat", "1_0"])
    assert opts.seed == int("9" * 100)
    assert opts.dice == (3, -1, 1000)
    assert opts.repeat == 10


def test_d20_budget_takes_ascii_digits_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("D20_BUDGET", "５000")
    with pytest.raises(ParseError, match=r"D20_BUDGET: '５' .* is not a digit"):
        Options().dice_budget()
    monkeypatch.setenv("D20_BUDGET", "9" * 5000)
    with pytest.raises(ParseError, match="D20_BUDGET must be a number from 1 to"):
        Options().dice_budget()
    monkeypatch.setenv("D20_BUDGET", "5,000")
    assert Options().dice_budget() == 5000


def test_a_bad_digit_on_stdin_ends_only_its_own_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "d20cli", "-q"],
        input="roll 1d1\nroll 1d1 --dice ²\nroll ١d٦\nroll 1d1+1\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout.split() == ["1", "2"]
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("d20:")]
    assert len(errors) == 2


@pytest.mark.parametrize("args", [["check", "+5", "vs", "15", "--dice", "²"], ["log", "-l", "٣"]])
def test_the_command_line_gives_status_2_without_a_traceback(args: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip()


def test_the_shell_goes_on_after_a_bad_digit() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "d20cli", "shell"],
        input="check +5 vs 15 --dice ²\nroll 1d1 -q\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr
    assert "--dice: '²' (U+00B2) at column 1" in proc.stderr
    assert proc.stdout.split()[-1] == "1"
