"""The roll log and the interactive shell's interruptions (issue 18): Ctrl-C during a long
`--repeat` keeps what was shown and it is in the log at once, while the shell goes on; a
terminal that closes (SIGHUP) loses no roll that was already shown."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from state_helpers import PROMPT, logged_rows, start_long_roll, totals
from state_helpers import spawn_shell as spawn

pexpect = pytest.importorskip("pexpect")


def logged(state: Path) -> int:
    return logged_rows(state / "d20cli" / "state.db")


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
