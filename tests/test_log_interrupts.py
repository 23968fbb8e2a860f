"""The roll log and the interactive shell's interruptions (issue 18): Ctrl-C during a long
`--repeat` keeps what was shown and it is in the log at once, while the shell goes on; a
terminal that closes (SIGHUP) loses no roll that was already shown."""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import pytest
from state_helpers import logged_rows

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60
PROMPT = re.escape("d20 levelup>") + r"[^\n]*?\x1b\[\?25h"


def spawn(state: Path) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if k not in ("D20_NO_LOG", "D20_SYSTEM")}
    env.update(
        XDG_STATE_HOME=str(state),
        TERM="xterm",
        NO_COLOR="1",
        PROMPT_TOOLKIT_NO_CPR="1",
        PYTHONPATH=str(ROOT),
    )
    return pexpect.spawn(
        sys.executable,
        ["-m", "d20cli", "shell"],
        env=env,
        cwd=str(ROOT),
        dimensions=(30, 140),
        encoding="utf-8",
        timeout=TIMEOUT,
    )


def logged(state: Path) -> int:
    return logged_rows(state / "d20cli" / "state.db")


ROLL = re.compile(r"^\s*(?:\x1b\[[0-9;?]*[A-Za-z])*\s*([0-9]{1,2})\s*$")


def totals(text: str) -> int:
    """How many roll totals (a `-q` line each) a piece of terminal output shows."""
    return sum(1 for line in text.replace("\r", "\n").split("\n") if ROLL.match(line))


def start_long_roll(child: pexpect.spawn) -> str:
    child.expect(PROMPT)
    child.sendline("roll 1d20 --repeat 1000000 -q")
    child.expect(r"\n\s*[0-9]{1,2}\s*\r?\n")  # it is rolling and showing
    seen = child.before + child.after
    for _ in range(3):  # a few screens more
        child.expect(r"\n\s*[0-9]{1,2}\s*\r?\n")
        seen += child.before + child.after
    return str(seen)


def test_ctrl_c_in_the_shell_keeps_and_logs_what_was_shown(tmp_path: Path) -> None:
    state = tmp_path / "state"
    child = spawn(state)
    try:
        shown = start_long_roll(child)
        child.sendintr()
        child.expect(PROMPT)  # the shell goes on
        shown += child.before
        n = totals(shown.split("--repeat 1000000 -q", 1)[-1])
        assert n >= 4
        assert logged(state) >= n  # in the log already, before the session ends
        child.sendline("check +5 vs 15 --dice 12 -q")  # and it still rolls
        child.expect(r"(?<![0-9])17\r?\n")
        child.expect(PROMPT)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert logged(state) >= n + 1


def test_a_closed_terminal_loses_no_roll_that_was_shown(tmp_path: Path) -> None:
    state = tmp_path / "state"
    child = spawn(state)
    try:
        shown = start_long_roll(child)
        os.kill(child.pid, signal.SIGHUP)  # the terminal went away
        try:
            while True:  # what it wrote before it ended is what was shown
                shown += child.read_nonblocking(65536, timeout=10)
        except (pexpect.EOF, pexpect.TIMEOUT):
            pass
        child.wait()
    finally:
        child.close(force=True)
    n = totals(shown.split("--repeat 1000000 -q", 1)[-1])
    assert n >= 4
    assert logged(state) >= n
