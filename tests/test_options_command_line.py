"""The command line read once into an object (no option travels through the environment),
one error shape on every path (with --json, the JSON error object on stdout), and the
typer commands' help and errors written as the rest of the program writes them."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
from cli_helpers import d20, write_sheet

from d20cli.app.options import NO_OPTIONS, Options, read_command_line


def _typer_reads(command: str, helping: bool) -> bool:
    from d20cli.__main__ import _typer_reads as reads

    return reads(command, helping)


# -- A: read once, an object ----------------------------------------------------------------


def test_a_request_line_is_read_once_into_words_and_options() -> None:
    line = read_command_line(["-s", "mm", "check", "+5", "vs", "15", "-n", "2"], _typer_reads)
    assert (line.command, line.words, line.rest) == ("check", ("check", "+5", "vs", "15"), ())
    assert line.opts == Options(system="mm", repeat=2) and line.error is None


def test_a_typer_command_is_left_what_follows_its_name() -> None:
    line = read_command_line(["--no-log", "log", "--limit", "3", "-s", "mm"], _typer_reads)
    assert line.command == "log" and line.rest == ("--limit", "3", "-s", "mm")
    assert line.opts == Options(no_log=True)  # `-s` after `log` is log's own (a filter)


def test_help_and_version_are_noted_not_options() -> None:
    assert read_command_line(["check", "--help"], _typer_reads).asked == ("--help",)
    assert read_command_line(["--version"], _typer_reads).asked == ("--version",)
    line = read_command_line(["check", "--", "--help"], _typer_reads)
    assert line.asked == () and line.words == ("check", "--help")


def test_double_dash_before_the_command_ends_the_options() -> None:
    line = read_command_line(["--seed", "1", "--", "check", "-1", "--json"], _typer_reads)
    assert line.words == ("check", "-1", "--json") and line.opts == Options(seed=1)
    line = read_command_line(["--", "char", "list"], _typer_reads)
    assert (line.command, line.rest) == ("char", ("list",))


def test_a_bad_option_is_kept_with_the_line_not_raised() -> None:
    line = read_command_line(["-Z", "check"], _typer_reads)
    assert line.error is not None and line.opts == NO_OPTIONS
    assert line.error.text == "d20 -Z check" and line.error.column == 5


class _Watched(dict[str, str]):
    """os.environ that records every name written or removed."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.written: list[str] = []

    def __setitem__(self, name: str, value: str) -> None:
        self.written.append(name)
        super().__setitem__(name, value)

    def __delitem__(self, name: str) -> None:
        self.written.append(name)
        super().__delitem__(name)

    def pop(self, name: str, *default: Any) -> Any:
        self.written.append(name)
        return super().pop(name, *default)


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Watched]:
    env = _Watched(os.environ)
    monkeypatch.setattr(os, "environ", env)
    yield env


@pytest.mark.parametrize(
    "args",
    [
        ["--no-log", "--system", "mm", "--color", "never", "char", "list"],
        ["char", "list", "--no-log", "-s", "mm", "--no-color"],
        ["-s", "mm", "--color", "always", "systems", "--json"],
        ["--no-log", "init", "roll", "--seed", "1"],
        ["--no-log", "-s", "mm", "check", "+5", "vs", "15", "--seed", "1"],
    ],
)
def test_no_option_travels_through_the_environment(
    args: list[str], watched: _Watched, capsys: pytest.CaptureFixture[str]
) -> None:
    write_sheet('[aria]\nsystem = "levelup"\ninit = "+2"\n')
    status, _, err = d20(args, capsys)
    assert status == 0, err
    assert not [n for n in watched.written if n.startswith("D20_") or n.endswith("_COLOR")]


def test_typer_commands_get_the_options_read_before_their_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = d20(["-s", "mm", "char", "add", "aria"], capsys)
    assert status == 0 and out.strip() == "added aria (mm)"
    status, out, _ = d20(["--json", "char", "list"], capsys)
    assert status == 0 and json.loads(out)[0]["system"] == "mm"
    status, out, _ = d20(["--json", "char", "show", "aria"], capsys)
    assert status == 0 and json.loads(out)["name"] == "aria"


def test_no_log_reaches_the_runner_and_the_typer_app(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from d20cli.app.cli import run_app

    monkeypatch.delenv("D20_NO_LOG", raising=False)
    assert d20(["--no-log", "check", "+5", "vs", "15"], capsys)[0] == 0
    assert run_app(["--no-log", "roll", "1d6"]) == 0  # the typer app's verb command
    assert run_app(["roll", "1d6", "--no-log"]) == 0
    capsys.readouterr()
    status, out, _ = d20(["log", "--json"], capsys)
    assert status == 0 and json.loads(out) == []
    assert run_app(["roll", "1d6"]) == 0
    capsys.readouterr()
    assert len(json.loads(d20(["log", "--json"], capsys)[1])) == 1


def test_color_reaches_a_typer_command(capsys: pytest.CaptureFixture[str]) -> None:
    write_sheet('[aria]\nsystem = "levelup"\nstealth = "+7"\n')
    _, out, _ = d20(["--color", "always", "char", "show", "aria"], capsys)
    assert "\x1b[" in out
    _, out, _ = d20(["char", "show", "aria", "--color", "never"], capsys)
    assert "\x1b[" not in out and "stealth" in out


# -- B: one error shape, JSON on every path --------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["frob", "--json"], "unknown command 'frob'"),
        (["char", "show", "nope", "--json"], "no character 'nope'"),
        (["--json", "char", "show", "nope"], "no character 'nope'"),
        (["log", "--limit", "x", "--json"], "--limit takes a whole number"),
        (["check", "+5", "vs", "15", "-Z", "--json"], "unknown option -Z"),
        (["--json", "-Z", "check"], "unknown option -Z"),
        (["char", "bogus", "--json"], "unknown command 'bogus'"),
        (["char", "add", "bob", "--json"], "has no JSON output"),
        (["help", "nope", "--json"], "nope"),
        (["systems", "-s", "gurps", "--json"], "unknown system 'gurps'"),
        (["shell", "extra", "--json"], "shell takes options only"),
    ],
)
def test_every_error_is_one_line_and_a_json_object_with_json(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = d20(args, capsys)
    assert status == 2
    assert err.startswith("d20: error") and message in err.splitlines()[0], err
    obj = json.loads(out)
    assert set(obj) == {"error", "line", "column", "input", "kind"} and message in obj["error"]


def test_a_column_is_given_with_its_caret(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = d20(["log", "--session", "x", "--json"], capsys)
    assert status == 2
    first, shown, caret = err.splitlines()
    assert first.startswith("d20: error at column 9:") and shown == "  d20 log --session x --json"
    assert caret == " " * 10 + "^"
    assert (
        json.loads(out)["column"] == 9 and json.loads(out)["input"] == "d20 log --session x --json"
    )


def test_a_typer_command_keeps_its_own_options_and_gives_up_the_programs() -> None:
    from d20cli.app.options import read_command

    def takes(spec: Any, name: str, words: Any) -> bool:
        return spec.field in ("no_log", "system") and name != "-s"

    words, opts = read_command(["--limit", "3", "--no-log", "-s", "mm", "--", "--no-log"], takes)
    assert words == ["--limit", "3", "-s", "mm", "--", "--no-log"]
    assert opts == Options(no_log=True)


def test_a_joined_short_value_gets_its_caret(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = d20(["log", "-l0"], capsys)
    assert status == 2 and err.splitlines()[1:] == ["  d20 log -l0", " " * 10 + "^"], err


# -- C: help and errors in the program's own words -------------------------------------------


def _command_paths() -> list[list[str]]:
    import typer.main

    from d20cli.app.cli import app

    paths: list[list[str]] = []

    def walk(command: Any, path: list[str]) -> None:
        paths.append(path)
        for name, sub in (getattr(command, "commands", None) or {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return paths


def test_no_help_page_shows_a_python_name_or_a_cut_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for path in _command_paths():
        status, out, err = d20([*path, "--help"], capsys)
        assert status == 0, (path, err)
        assert not re.search(r"\b[A-Z]+_\b|<[a-z]", out), (path, out)  # `--as AS_`, `<int>`
        assert not re.search(r"[a-z]\.\.\.$", out, re.M), (path, out)  # a summary cut short
    assert "--as NAME" in d20(["init", "--help"], capsys)[1]
    assert "-s, --system ID" in d20(["char", "add", "--help"], capsys)[1]


def test_the_commands_are_listed_in_their_groups(capsys: pytest.CaptureFixture[str]) -> None:
    out = d20(["--help"], capsys)[1]
    titles = [line for line in out.splitlines() if line.endswith(":") and not line[0].isspace()]
    assert titles == [
        "Options:",
        "Rolling:",
        "At the table:",
        "Files and state:",
        "Sealed sessions:",
    ]
    rolling = out.split("Rolling:")[1].split("At the table:")[0]
    assert "check" in rolling and "odds" in rolling and "seal " not in rolling
    assert "verify" in out.split("Sealed sessions:")[1]


@pytest.mark.parametrize(
    "args",
    [
        ["log", "--limit", "x"],
        ["log", "--limit=-5"],
        ["log", "--session", "1.5"],
        ["unseal", "--show", "x"],
    ],
)
def test_no_library_message_reaches_the_user(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = d20(args, capsys)
    assert status == 2 and len(err.splitlines()[0]) < 100
    assert "Input should" not in err and "invalid value for" not in err
    assert re.search(r"--\w+ takes a (whole )?number", err), err


@pytest.mark.parametrize(
    ("args", "wanted", "unwanted"),
    [
        (["version"], "did you mean --version?", "verify"),
        (["initiative"], "did you mean init?", "commands:"),
        (["-V"], "unknown option -V; did you mean --version?", "column 1"),
        (["-Z"], "d20 --help lists the options", "VERB"),
        (["check", "+5", "vs", "15", "-Z"], "d20 check --help lists the options", "VERB"),
        (["char", "-Z"], "d20 char --help lists the options", "VERB"),
    ],
)
def test_suggestions_are_right(
    args: list[str], wanted: str, unwanted: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = d20(args, capsys)
    assert status == 2 and wanted in err and unwanted not in err, err


def test_char_list_counts_agree_with_their_nouns(capsys: pytest.CaptureFixture[str]) -> None:
    write_sheet(
        '[aria]\nsystem = "levelup"\nstealth = "+7"\n[aria.macros]\nsneak = "check stealth"\n'
        '[bruno]\nstealth = "+1"\nfists = "+3"\n'
    )
    out = d20(["char", "list"], capsys)[1]
    assert "1 entry, 1 macro" in out and "2 entries, 0 macros" in out


def test_a_request_option_before_a_command_that_takes_none_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = d20(["--seed", "3", "char", "list"], capsys)
    assert status == 2 and "--seed is not an option of `d20 char list`" in err
    write_sheet('[aria]\nsystem = "levelup"\ninit = "+2"\n')
    status, out, err = d20(["--seed", "3", "init", "roll"], capsys)  # init takes it
    assert status == 0 and "aria" in out, err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["char", "list", "extra"], "d20 char list: unexpected 'extra'"),
        (["log", "--json=1"], "--json takes no value"),
        (["log", "--since"], "--since needs a value"),
        (["char", "add"], "d20 char add: missing argument NAME"),
    ],
)
def test_typer_usage_errors_in_the_programs_words(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = d20(args, capsys)
    assert status == 2 and message in err.splitlines()[0], err
    assert "(s)" not in err and "Got " not in err and "'name'" not in err
