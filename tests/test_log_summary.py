"""Issue 42 item 12: `d20 log --stats` starts with a summary per character (rolls,
successes and failures, natural 20s and 1s, the mean d20, the fairness), the histograms
and the naturals come with `--details` (fewer than 100 d20s: no bars, a line that says
they cannot be judged yet), and on a terminal a view taller than the terminal goes
through a pager (`PAGER`, `less` with `LESS=FRX` by default, `--no-pager`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import log, log_in_terminal
from typer.testing import CliRunner

from d20cli.app.pager import screen_lines
from d20cli.store.state import State, db_path

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
AT = "2026-05-01T18:00:00.000+00:00"


def _rows(character: str | None, faces: list[int], outcome: str) -> list[tuple[Any, ...]]:
    def dice(face: int) -> str:
        return json.dumps([{"sides": 20, "face": face, "kept": True, "role": "d20"}])

    return [
        (AT, character, "levelup", "check", "check +1 vs 11", dice(f), f + 1, outcome, "random")
        for f in faces
    ]


@pytest.fixture(autouse=True)
def logged() -> Iterator[None]:
    store = State.open()
    # aria: 200 d20s, ten of each face; 120 successes, 80 failures
    faces = [f for f in range(1, 21) for _ in range(10)]
    store.rolls.add(_rows("aria", faces[:120], "success") + _rows("aria", faces[120:], "failure"))
    # bruno: 30 d20s, a 20 three times and a 1 once; and a contest (neither)
    store.rolls.add(_rows("bruno", [20, 20, 20, 1] + [10] * 25, "critical_success"))
    store.rolls.add(_rows("bruno", [5], "first_wins"))
    store.close()
    yield


def test_stats_start_with_a_summary_of_each_character() -> None:
    r = log("--stats")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("roll log: 230 rows, ")
    assert lines[1:] == [
        "aria: 200 rolls, 120 successes, 80 failures",
        "  200 d20s: 10 natural 20s, 10 natural 1s (10.0 expected each), mean 10.50 "
        "(10.5 expected)",
        "  fairness: consistent with a fair die, p = 1.0000",
        "bruno: 30 rolls, 29 successes, 0 failures",
        "  30 d20s: 3 natural 20s, 1 natural 1 (1.5 expected each), mean 10.53 (10.5 expected)",
        "  fairness: too few d20s to judge yet (30 of the 100 needed)",
        "more: d20 log --stats --details (each character's d20 faces, the naturals of every "
        "die and of each session)",
    ]
    one = log("--stats", "-c", "bruno").stdout.splitlines()
    assert [line for line in one if line.startswith(("aria", "bruno"))] == [lines[4]]


def test_details_draw_a_histogram_only_of_enough_d20s() -> None:
    r = log("--stats", "--details")
    assert r.exit_code == 0, r.output
    text = r.stdout
    assert text.startswith(log("--stats").stdout.rsplit("more:", 1)[0])  # the summary first
    assert "aria: 200 d20s, chi-square 0.00 (19 df), p = 1.0000" in text
    assert text.count("█" * 30) == 20  # aria's histogram: 20 faces, each as often
    said = "bruno: 30 d20s, too few to judge yet (a histogram from 100); faces 1 to 20: "
    assert said + "1 0 0 0 1 0 0 0 0 25 0 0 0 0 0 0 0 0 0 3" in text
    assert "bruno: 30 d20s, chi-square" not in text  # no histogram of 30 d20s
    assert "aria: naturals" in text and "naturals per session" in text


def test_the_json_has_each_characters_summary() -> None:
    r = log("--stats", "--json")
    found = {entry["character"]: entry for entry in json.loads(r.stdout)}
    assert found["bruno"]["summary"] == {
        "rolls": 30,
        "successes": 29,
        "failures": 0,
        "natural_20s": 3,
        "natural_1s": 1,
        "mean_d20": round(316 / 30, 6),
    }
    assert found["aria"]["rolls"] == 200 and found["aria"]["summary"]["mean_d20"] == 10.5
    assert log("--stats", "--details", "--json").stdout == r.stdout


def test_details_go_with_stats() -> None:
    r = log("--details")
    assert r.exit_code == 2 and "--details goes with --stats" in r.output


def test_screen_lines_count_wrapped_lines_without_colour_codes() -> None:
    assert screen_lines("a\nb\n", 80) == 2
    assert screen_lines("x" * 81 + "\n", 80) == 2
    assert screen_lines("\x1b[1m" + "x" * 80 + "\x1b[0m\n\n", 80) == 2


# --- the pager, in a real terminal ------------------------------------------------------


def _env(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("D20_NO_LOG", "LESS", "PAGER")}
    env.update(XDG_STATE_HOME=str(db_path().parent.parent), NO_COLOR="1", TERM="xterm")
    env.update(more)
    return env


def _fake_pager(tmp_path: Path) -> tuple[str, Path]:
    """A pager that writes what it reads, and then its LESS, to files."""
    script = tmp_path / "pager"
    script.write_text(f'#!/bin/sh\ncat > {tmp_path}/paged\necho "LESS=$LESS" > {tmp_path}/env\n')
    script.chmod(0o755)
    return str(script), tmp_path / "paged"


def _terminal(env: dict[str, str], rows: int, *args: str) -> str:
    return log_in_terminal(env, rows, 100, *args)


def test_a_view_taller_than_the_terminal_goes_through_the_pager(tmp_path: Path) -> None:
    pager, paged = _fake_pager(tmp_path)
    shown = _terminal(_env(PAGER=pager), 12, "--stats", "--details")
    assert "roll log" not in shown and "█" not in shown  # all of it went to the pager
    text = paged.read_text()
    assert text.startswith("roll log: 230 rows") and "naturals per session" in text
    assert (tmp_path / "env").read_text() == "LESS=FRX\n"  # git's default for less
    paged.unlink()
    shown = _terminal(_env(PAGER=pager, LESS="-S"), 12, "-l", "30")  # the recent rolls too
    assert "┃" not in shown and "┃ time" in paged.read_text()
    assert (tmp_path / "env").read_text() == "LESS=-S\n"  # the user's LESS is kept


@pytest.mark.parametrize(
    ("rows", "args", "more"),
    [
        (12, ("--no-pager",), {}),  # asked for none
        (12, (), {"PAGER": "cat"}),  # as git: cat is no pager
        (12, (), {"PAGER": ""}),
        (200, (), {}),  # it fits
    ],
)
def test_no_pager_when_asked_or_when_the_view_fits(
    tmp_path: Path, rows: int, args: tuple[str, ...], more: dict[str, str]
) -> None:
    pager, paged = _fake_pager(tmp_path)
    shown = _terminal(_env(**{"PAGER": pager, **more}), rows, "--stats", "--details", *args)
    assert "roll log: 230 rows" in shown and "naturals per session" in shown
    assert not paged.exists()


def test_no_pager_on_a_pipe(tmp_path: Path) -> None:
    pager, paged = _fake_pager(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "log", "--stats", "--details"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=_env(PAGER=pager, LINES="5"),
        timeout=60,
    )
    assert run.returncode == 0 and run.stdout.startswith("roll log: 230 rows")
    assert run.stderr == "" and not paged.exists()


def test_a_pager_that_cannot_start_is_a_warning(tmp_path: Path) -> None:
    shown = _terminal(_env(PAGER="no-such-pager-d20"), 12, "--stats", "--details")
    assert "d20: warning: the pager 'no-such-pager-d20' could not be started" in shown
    assert "roll log: 230 rows" in shown and "naturals per session" in shown


def test_less_pages_and_quits_on_q() -> None:
    pexpect = pytest.importorskip("pexpect")
    if shutil.which("less") is None:
        pytest.skip("no less here")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d20cli", "log", "--stats", "--details"],
        env=_env(),
        cwd=str(ROOT),
        dimensions=(12, 100),
        encoding="utf-8",
        timeout=60,
    )
    child.expect("roll log: 230 rows")
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "naturals per session" not in child.before  # quit on the first page


def test_a_terminal_that_does_not_say_its_height_counts_as_lines_or_24(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from d20cli.app import pager
    from d20cli.present.output import Output

    monkeypatch.setattr(pager.os, "get_terminal_size", lambda fd: os.terminal_size((80, 0)))
    monkeypatch.setenv("LINES", "30")
    assert pager.terminal_lines(Output()) == 30
