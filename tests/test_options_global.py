"""One option set and one error style for every command: short options as in other Unix
tools, "did you mean", --color, global options on every command, typer's errors in the
program's own style, and output in any encoding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from d20cli.__main__ import main
from d20cli.app.options import Options, split_options
from d20cli.errors import ParseError


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- short options, --, did you mean ---------------------------------------------------------


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        (["-n3"], Options(repeat=3)),
        (["-smm"], Options(system="mm")),
        (["-s=mm"], Options(system="mm")),
        (["-qn", "2"], Options(quiet=True, repeat=2)),
        (["-qn2"], Options(quiet=True, repeat=2)),
        (["-nq"], None),  # -n takes "q" as its value: not a number
        (["--color=always"], Options(color="always")),
        (["--color", "never"], Options(color="never")),
    ],
)
def test_short_options_bundle_and_join_their_value(
    tokens: list[str], expected: Options | None
) -> None:
    if expected is None:
        with pytest.raises(ParseError, match="-n takes a whole number"):
            split_options(tokens)
    else:
        assert split_options(["roll", "1d6", *tokens]) == (["roll", "1d6"], expected)


def test_double_dash_ends_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["roll", "1d6", "-q", "--seed", "1", "--", "-1"], capsys)
    assert status == 0 and out.strip().lstrip("-").isdigit()


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["check", "+5", "vs", "15", "--jsn"], "did you mean --json?"),
        (["roll", "1d6", "--sed", "3"], "did you mean --seed?"),
        (["systems", "--jsn"], "did you mean --json?"),
        (["log", "--limt", "3"], "did you mean --limit?"),
        (["char", "shwo"], "did you mean show?"),
    ],
)
def test_a_mistyped_option_gets_did_you_mean(
    args: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(args, capsys)
    assert status == 2 and not out
    assert err.startswith("d20: error") and hint in err
    assert "^" in err  # the caret under the bad word


def test_color_always_and_never(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["roll", "1d6", "--seed", "1", "--color=always"], capsys)
    assert "\x1b[" in out
    _, out, _ = run(["roll", "1d6", "--seed", "1", "--color", "never"], capsys)
    assert "\x1b[" not in out
    status, _, err = run(["roll", "1d6", "--color=sometimes"], capsys)
    assert status == 2 and "auto, always or never" in err


# -- every error in the program's style --------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["systems", "--bogus"], "unknown option --bogus"),
        (["log", "--limit", "x"], "--limit"),
        (["char", "add"], "missing argument"),
        (["char", "bogus"], "unknown command 'bogus'"),
        (["completion", "bash", "--json"], "has no JSON output"),
        (["systems", "-s", "gurps"], "unknown system 'gurps'"),
        (["shell", "--seed", "x"], "--seed takes a whole number"),
        (["check", "+5", "vs", "15", "--seed"], "--seed needs a value"),
        (["chekc", "+5"], "did you mean check?"),
        (["-n", "0", "roll", "1d6"], "-n takes a number from 1"),
    ],
)
def test_every_error_is_one_line_in_the_programs_style(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(args, capsys)
    assert status == 2
    first = err.splitlines()[0]
    assert first.startswith("d20: error") and message in first, err
    assert "Usage:" not in err and "Traceback" not in err and "Try 'd20" not in err


def test_option_errors_point_at_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(["roll", "1d6", "--budget", "zero"], capsys)
    text, caret = err.splitlines()[1:3]
    assert caret.index("^") == text.index("--budget")


# -- global options on every command ----------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["systems", "--no-log", "--no-color"],
        ["systems", "--color=never", "-s", "mm"],
        ["char", "list", "--no-log", "-s", "mm"],
        ["log", "--no-log", "--color", "never"],
        ["completion", "bash", "--no-log", "--no-color", "-s", "pd"],
        ["--no-log", "systems"],
        ["--color", "never", "--no-log", "log", "--limit", "1"],
        ["-smm", "char", "list"],
        ["odds", "roll", "2d6", "--no-color", "-s", "mm"],
    ],
)
def test_global_options_are_accepted_by_every_command(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = dict(os.environ)
    status, out, err = run(args, capsys)
    assert status == 0, err
    assert out and "\x1b[" not in out
    assert dict(os.environ) == before  # applied for the run only


def test_systems_with_a_system_shows_that_one(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["systems", "-s", "mm"], capsys)
    assert out.startswith("mm  Mutants") and "levelup" not in out
    _, out, _ = run(["systems", "--system", "pd", "--json"], capsys)
    assert [s["id"] for s in json.loads(out)] == ["pendagger"]
    _, out, _ = run(["-s", "reg", "--json", "systems"], capsys)  # before the command
    assert [s["id"] for s in json.loads(out)] == ["reglamento"]


def test_the_shell_takes_request_options(capsys: pytest.CaptureFixture[str]) -> None:
    from d20cli.app.cli import run_app

    sys_stdin = sys.stdin
    import io

    sys.stdin = io.StringIO("roll 1d1\n")
    try:
        status = run_app(["shell", "--json", "-s", "mm", "--no-log"])
    finally:
        sys.stdin = sys_stdin
    out = capsys.readouterr().out
    assert status == 0
    assert json.loads(out.splitlines()[-1])["system"] == "mm"


# -- output in any encoding -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["odds", "roll", "2d6"], {"PYTHONIOENCODING": "ascii"}),
        (["attempt", "adept", "-s", "pd", "--seed", "1"], {"LANG": "C", "LC_ALL": "C"}),
        (
            ["attempt", "adept", "-s", "pd", "--seed", "1"],
            {"PYTHONIOENCODING": "ascii", "LC_ALL": "C"},
        ),
        (["check", "+5", "vs", "15", "--odds", "--seed", "1"], {"PYTHONIOENCODING": "ascii"}),
        (["systems"], {"PYTHONIOENCODING": "latin-1"}),
        (["help", "check"], {"PYTHONIOENCODING": "ascii"}),
    ],
)
def test_output_in_any_encoding(args: list[str], env: dict[str, str], tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        env={**os.environ, "PYTHONUTF8": "0", **env},
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"Traceback" not in done.stderr
    assert done.stdout.strip()
    if env.get("PYTHONIOENCODING") == "ascii":
        done.stdout.decode("ascii")  # nothing but ASCII


# -- -q means the same for every verb; nothing silently ignored -------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["roll", "2d6", "--dice", "3,4"], "7"),
        (["check", "+5", "vs", "15", "--dice", "12"], "17"),
        (["attack", "+5", "vs", "15", "dmg", "1d8+1", "--dice", "12,3"], "17 4"),
        (["luck", "-s", "reglamento", "--dice", "4"], "4"),
        (["compare", "8", "vs", "6", "-s", "mm"], "first_wins 1"),  # and the winning side
        (["scores", "-s", "pd", "--dice", ",".join(["6", "6", "6", "1"] * 6)], "18 " * 5 + "18"),
        (["odds", "check", "+5", "vs", "15"], None),
        (["odds", "roll", "2d6"], "mean 7.0"),
    ],
)
def test_quiet_prints_the_total_or_the_outcome(
    args: list[str], expected: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run([*args, "-q"], capsys)
    assert status == 0, err
    if expected is None:  # odds of a check: a line per tier
        assert out.splitlines() == [
            "critical_failure 0.05",
            "failure 0.4",
            "success 0.5",
            "critical_success 0.05",
        ]
    else:
        assert out.strip() == expected


def test_summary_without_repeat_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["check", "+5", "vs", "15", "--summary"], capsys)
    assert status == 2 and not out
    assert "--summary tallies the runs of --repeat N" in err


def test_odds_on_a_roll_gives_the_chance_of_its_total(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["roll", "2d6", "--odds", "--dice", "3,4"], capsys)
    assert "a total of 7 \u2014 you had 16.7% (58.3% at most)" in out
    _, out, _ = run(["roll", "2d6", "--odds", "--dice", "3,4", "--json"], capsys)
    assert json.loads(out)["chance"] == "1/6"


def test_odds_it_cannot_give_is_a_note_not_silence(capsys: pytest.CaptureFixture[str]) -> None:
    faces = ",".join(["6", "6", "6", "1"] * 6)
    status, out, _ = run(["scores", "-s", "pd", "--odds", "--dice", faces], capsys)
    assert status == 0 and "--odds: this request has no outcome or total" in out


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["check", "+5", "vs", "15", "--players", "3"], "--players"),
        (["roll", "1d6", "--csv"], "--csv"),
        (["roll", "1d6", "--simulate", "10"], "--simulate"),
        (["odds", "roll", "2d6", "--dice", "3,4"], "--dice"),
        (["odds", "roll", "2d6", "-n", "3"], "-n"),
        (["roll", "1d6", "--boon"], "--boon"),
    ],
)
def test_an_option_the_verb_does_not_take_is_an_error(
    args: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(args, capsys)
    assert status == 2 and not out
    first, text, caret = err.splitlines()[:3]
    assert "is not an option of `d20" in first and "--help lists the options" in first
    assert caret.index("^") == text.index(option)


def test_global_options_are_taken_by_odds_too(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["odds", "roll", "2d6", "--no-log", "--color=never", "-q"], capsys)
    assert status == 0 and out.strip() == "mean 7.0"
