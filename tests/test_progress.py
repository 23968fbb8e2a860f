"""Issue 42 item 14: long work shows its progress on a terminal's standard error (a bar
for `--repeat`, `--summary` and `--simulate`, a spinner for exact odds), after a delay,
never on a pipe, with -q or with --json, and without changing any result."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from d20cli.present import progress
from d20cli.present.progress import Meter, wanted

ROOT = Path(__file__).resolve().parent.parent


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_bar_is_wanted_only_on_a_terminal_without_q_or_json() -> None:
    assert wanted(Terminal(), quiet=False, as_json=False)
    assert not wanted(Terminal(), quiet=True, as_json=False)
    assert not wanted(Terminal(), quiet=False, as_json=True)
    assert not wanted(io.StringIO(), quiet=False, as_json=False)


def test_a_meter_counts_steps_and_draws_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("D20_PROGRESS_DELAY", "0")
    stream = Terminal()
    with Meter(stream, "rolling", 10, color=False) as meter:
        meter.step(4)
        meter.step()
        assert meter.drawn.wait(60)  # (waits for the thread; no time is measured)
        drawn = stream.getvalue()
    assert meter.done == 5 and "rolling" in drawn and "/10" in drawn
    wiped = stream.getvalue()[len(drawn) :]
    assert "\x1b[2K" in wiped  # transient: the bar's line is erased at the end


def test_work_with_no_steps_shows_a_spinner(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("D20_PROGRESS_DELAY", "0")
    stream = Terminal()
    with Meter(stream, "working out the odds", color=False, counted=False) as meter:
        assert meter.drawn.wait(60)
    text = stream.getvalue()
    assert "working out the odds" in text and "0:00:0" in text  # the time taken
    assert "/" not in text.replace("\x1b", "")  # no count of an unknown total


def test_quick_work_draws_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("D20_PROGRESS_DELAY", raising=False)
    monkeypatch.setattr(progress, "DELAY", 3600.0)  # (work that ends before the delay)
    stream = Terminal()
    with Meter(stream, "rolling", 10) as meter:
        meter.step(10)
    assert stream.getvalue() == "" and not meter.drawn.is_set()


@pytest.mark.parametrize(("given", "delay"), [("0", 0.0), ("2", 2.0), ("x", 0.5), ("-1", 0.5)])
def test_the_delay_can_be_set(monkeypatch: pytest.MonkeyPatch, given: str, delay: float) -> None:
    monkeypatch.setenv("D20_PROGRESS_DELAY", given)
    assert progress.delay() == delay


# --- the command line -------------------------------------------------------------------


def _env(**more: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(D20_PROGRESS_DELAY="0", NO_COLOR="1", TERM="xterm", D20_NO_LOG="1")
    env.update(more)
    return env


LONG = ["check", "+5", "vs", "15", "-n", "20000", "--seed", "3"]


@pytest.mark.parametrize(
    "args",
    [
        LONG,
        [*LONG, "--summary"],
        ["check", "+5", "vs", "15", "-n", "2000000", "--summary"],
        ["odds", "check", "+5", "vs", "15", "--simulate", "20000"],
        ["odds", "roll", "100d20"],
    ],
)
def test_nothing_on_standard_error_on_a_pipe(args: list[str]) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=_env(),
        timeout=300,
    )
    assert run.returncode == 0 and run.stdout and run.stderr == ""


def _terminal(command: str) -> str:
    """What a real terminal shows of a shell `command` (d20 is `$D20`)."""
    pexpect = pytest.importorskip("pexpect")
    env = _env(D20=f"{sys.executable} -m d20cli")
    child = pexpect.spawn(
        "/bin/sh", ["-c", command], env=env, cwd=str(ROOT), encoding="utf-8", timeout=300
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    shown: str = child.before
    return shown


def test_a_long_repeat_to_a_file_shows_the_bar(tmp_path: Path) -> None:
    out = tmp_path / "rolls.txt"
    shown = _terminal(f"$D20 check +5 vs 15 -n 50000 --seed 3 > {out}")
    assert "rolling" in shown and "/50000" in shown
    rolled = out.read_text()
    assert rolled.count("\n") == 50001  # the request's line, then a line a roll
    plain = _terminal(f"D20_PROGRESS_DELAY=3600 $D20 check +5 vs 15 -n 50000 --seed 3 > {out}")
    assert plain == "" and out.read_text() == rolled  # the same rolls, bar or not


def test_a_summary_and_a_simulation_show_the_bar_then_the_output() -> None:
    shown = _terminal("$D20 check +5 vs 15 -n 2000000 --summary")  # drawn from the odds
    assert "tallying" in shown and "/2000000" in shown
    assert shown.rindex("/2000000") < shown.index("Success")  # the tally, after the bar
    shown = _terminal("$D20 odds check +5 vs 15 --simulate 20000 --seed 1")
    assert "simulating" in shown and "/20000" in shown
    assert shown.rindex("/20000") < shown.index("Success")


@pytest.mark.parametrize(
    "command",
    [
        "$D20 check +5 vs 15 -n 20000 -q > /dev/null",
        "$D20 check +5 vs 15 -n 20000 --json > /dev/null",
        "$D20 check +5 vs 15 -n 2000000 --summary -q",
        "$D20 odds check +5 vs 15 --simulate 20000 --json > /dev/null",
        "$D20 check +5 vs 15 -n 3000",  # printed on the terminal: its lines are the progress
    ],
)
def test_no_bar_with_q_or_json_or_lines_on_the_terminal(command: str) -> None:
    shown = _terminal(command)
    assert "rolling" not in shown and "tallying" not in shown and "simulating" not in shown
    assert "━" not in shown  # (the bar's line)
