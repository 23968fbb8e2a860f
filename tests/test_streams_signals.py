"""Pipes, signals and odd bytes, on the real program (`python -m d20cli` in a subprocess).

`roll 1d6 --repeat 1000000 | head -1` is in tests/test_scripting.py; here: a closed pipe
in the other modes (quiet, colour-less text, standard-input batches), Ctrl-C during a
long --repeat (exit 130, every printed line complete, no traceback), standard input with
invalid UTF-8 or Windows line endings, and command-line bytes that are not UTF-8.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60


def env() -> dict[str, str]:
    return {**os.environ, "PY": sys.executable, "PYTHONUNBUFFERED": "0"}


def d20(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=env(),
        timeout=TIMEOUT,
    )


def assert_quiet(stderr: bytes) -> None:
    text = stderr.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    assert "Exception ignored" not in text, text
    assert "BrokenPipe" not in text, text


@pytest.mark.parametrize(
    "command",
    [
        '"$PY" -m d20cli roll 4d6kh3 --repeat 1000000 -q | head -1',
        '"$PY" -m d20cli check +5 vs 15 --repeat 1000000 --no-color | head -1',
        'yes "roll 1d20+5" | head -200000 | "$PY" -m d20cli | head -1',
        'yes "check +1 vs 10" | head -200000 | "$PY" -m d20cli --json | head -1',
    ],
)
def test_a_closed_pipe_ends_quietly(command: str) -> None:
    script = f'set -o pipefail; {command}; echo "status=${{PIPESTATUS[*]}}" >&2\n'
    run = subprocess.run(
        ["bash", "-c", script], capture_output=True, cwd=ROOT, env=env(), timeout=TIMEOUT
    )
    assert len(run.stdout.splitlines()) == 1
    assert_quiet(run.stderr)
    statuses = run.stderr.decode().strip().rsplit("status=", 1)[1].split()
    # the d20 process (the one before the last head) ends with 0
    assert statuses[-2] == "0", run.stderr


@pytest.mark.parametrize("extra", [[], ["--json"], ["-q"]])
def test_ctrl_c_stops_a_long_repeat_with_130(extra: list[str]) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "d20cli", "roll", "2d6+3", "--repeat", "1000000", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env(),
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # it is running and printing
        assert first.endswith(b"\n")
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert_quiet(err)
    printed = first + out
    assert printed.endswith(b"\n")  # the lines already printed are complete lines
    assert len(printed.splitlines()) > 1


def test_invalid_utf8_on_stdin_reports_that_line_and_goes_on() -> None:
    run = d20("-q", stdin=b"roll 1d1\nroll 1d1+\xff\xfe1\nroll 1d1+1\n\xc3\x28\nroll 1d1+2\n")
    assert run.returncode == 2
    assert run.stdout.split() == [b"1", b"2", b"3"]
    err = run.stderr.decode()
    assert "line 2 is not valid UTF-8" in err
    assert "line 4 is not valid UTF-8" in err
    assert_quiet(run.stderr)


def test_a_giant_line_on_stdin_is_refused_at_once_and_the_next_lines_run() -> None:
    """Issue 22: a 100 MB line took a minute (the partial line was copied on every read
    and its length checked only at the newline). Now it is reported as soon as it passes
    the limit, the rest of it is skipped in linear time, and the next lines run."""
    giant = b"roll " + b"1+" * 20_000_000 + b"1"  # 40 MB
    lines = [b"roll 1d1", giant, b"roll 1d1+1", "é".encode() * 10_001, b"roll 1d1+2"]
    run = d20("-q", stdin=b"\n".join(lines) + b"\n")
    assert run.returncode == 2
    assert run.stdout.split() == [b"1", b"2", b"3"]
    err = run.stderr.decode().splitlines()
    assert err == [
        "d20: error: line 2 is longer than 10,000 characters; it was skipped",
        "d20: error: line 4 is longer than 10,000 characters; it was skipped",
    ]
    assert_quiet(run.stderr)


def test_windows_line_endings_on_stdin() -> None:
    run = d20(
        "-q", stdin=b"roll 1d1\r\nroll 1d1+1\r\n\r\n# a comment\r\ncheck +5 vs 15 --dice 10\r\n"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [b"1", b"2", b"15"]


def test_a_byte_order_mark_and_nul_bytes_on_stdin() -> None:
    run = d20("-q", stdin=b"\xef\xbb\xbfroll 1d1\nroll 1d1\x00+1\nroll 1d1+2\n")
    assert run.returncode == 2
    assert run.stdout.split() == [b"1", b"3"]
    assert_quiet(run.stderr)


def test_command_line_bytes_that_are_not_utf8() -> None:
    """Such bytes reach Python as lone surrogates; printing them, and writing them to the
    roll log (a UnicodeEncodeError in SQLite before the fix), must not crash."""
    env_log = {k: v for k, v in env().items() if k != "D20_NO_LOG"}
    for args in (
        [b"roll", b"1d6", b"# \xff"],
        [b"roll", b"1d6[\xfe]"],
        [b"check", b"\xff"],
        [b"attempt", b"adept", b"-s", b"pd", b"# \xff"],
    ):
        run = subprocess.run(
            [sys.executable.encode(), b"-m", b"d20cli", *args],
            capture_output=True,
            cwd=ROOT,
            env=env_log,
            timeout=TIMEOUT,
        )
        assert run.returncode in (0, 2), (args, run.stderr)
        assert_quiet(run.stderr)


# -- state: kill -9 in the middle of a write, a bad state directory, a corrupt file ------

WRITER = """
import sys
from pathlib import Path
from d20cli.store.state import State

state = State.open(Path(sys.argv[1]))
i = 0
while True:
    i += 1
    def change(conn, i=i):
        conn.execute(
            "INSERT INTO settings (key, value) VALUES ('n', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(i),))
        conn.execute(
            "INSERT INTO rolls (at, system, verb, request, dice, total) "
            "VALUES ('t', 'levelup', 'roll', 'roll 1d6', '[]', ?)", (i,))
    state.db.write("a test row", change)
    state.fortune.set("p", i % 3)
    if i == 20:
        print("writing", flush=True)
"""


def _kill_during(args: list[str], delay: float, stdin: bytes | None = None) -> None:
    proc = subprocess.Popen(
        args,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env={k: v for k, v in env().items() if k != "D20_NO_LOG"},
    )
    assert proc.stdout is not None
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
    proc.stdout.readline()  # it has started writing
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    proc.stdout.close()


def test_kill_9_in_the_middle_of_writes_leaves_a_consistent_database(tmp_path: Path) -> None:
    import sqlite3

    from d20cli.store.state import State

    db = tmp_path / "state.db"
    last = 0
    for delay in (0.0, 0.013, 0.037, 0.071, 0.15):
        _kill_during([sys.executable, "-c", WRITER, str(db)], delay)
        warnings: list[str] = []
        state = State.open(db, warnings.append)
        assert state.db.persistent and not warnings
        conn = state.db.conn
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        n = int(conn.execute("SELECT value FROM settings WHERE key = 'n'").fetchone()[0])
        rows = conn.execute("SELECT count(*) FROM rolls").fetchone()[0]
        # (this writer's rows: an earlier one, killed later on a busy machine, may have
        # counted further)
        most = conn.execute("SELECT max(total) FROM rolls WHERE rowid > ?", (last,)).fetchone()
        # each transaction wrote the counter and a row together: all of it or none
        assert rows == last + n and (most[0] or 0) == n
        assert 0 <= state.fortune.held("p") <= 2
        last = rows
        conn.execute("DELETE FROM settings")  # the next writer counts from 1 again
        state.close()
    sqlite3.connect(db).close()


def test_kill_9_during_pendagger_fortune_rolls(tmp_path: Path) -> None:
    """Many `attempt adept fortune --dice 20 -s pd` lines (each may add a fortune die and
    writes the roll log), killed at random points: the database opens, passes its
    integrity check, and holds a fortune count within the rules."""
    from d20cli.store.state import State

    lines = (
        b"roll 1d1\n" + b"attempt adept fortune --dice 20 -s pd\nfortune spend -s pd\n" * 800
    )  # < a pipe's buffer
    for delay in (0.05, 0.2, 0.4):
        _kill_during([sys.executable, "-m", "d20cli", "-q"], delay, stdin=lines)
        warnings: list[str] = []
        state = State.open(None, warnings.append)
        assert state.db.persistent, warnings
        assert state.db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        count = state.db.conn.execute("SELECT count FROM fortune").fetchall()
        assert all(0 <= c <= 4 for (c,) in count)
        state.close()
    run = d20("attempt", "adept", "--dice", "20", "-s", "pd")
    assert run.returncode == 0 and not run.stderr


def test_a_truncated_shell_history_still_loads() -> None:
    """kill -9 while the shell appends to its history leaves half a record; prompt_toolkit
    reads what is whole (and bad bytes as U+FFFD) without an error."""
    from prompt_toolkit.history import FileHistory

    from d20cli.store.state import history_path

    path = history_path()
    path.parent.mkdir(parents=True)
    whole = "\n# 2024-01-01 10:00:00\n+roll 1d20\n\n# 2024-01-01 10:00:01\n+check +5 vs 15\n"
    path.write_bytes(whole.encode() + b"\n# 2024-01-01 10:0")
    assert list(FileHistory(str(path)).load_history_strings()) == ["check +5 vs 15", "roll 1d20"]
    path.write_bytes(whole.encode() + b"\n# 2024\n+roll 1d\xc3")
    loaded = list(FileHistory(str(path)).load_history_strings())
    assert loaded[0].startswith("roll 1d") and loaded[1:] == ["check +5 vs 15", "roll 1d20"]


def test_an_unusable_state_directory_warns_and_the_roll_still_happens(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the state directory should be")
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "attempt", "adept", "fortune", "--dice", "20", "-s", "pd"],
        capture_output=True,
        cwd=ROOT,
        env={**env(), "XDG_STATE_HOME": str(blocker)},
        timeout=TIMEOUT,
    )
    assert run.returncode == 0, run.stderr
    assert b"Critical success" in run.stdout or b"success" in run.stdout.lower()
    assert b"d20: warning: cannot create the state directory" in run.stderr
    assert_quiet(run.stderr)


def test_a_corrupt_database_is_moved_aside_and_reported_by_the_program() -> None:
    from d20cli.store.state import db_path

    path = db_path()
    path.parent.mkdir(parents=True)
    junk = b"this is not a database" * 100
    path.write_bytes(junk)
    run = d20("attempt", "adept", "fortune", "--dice", "20", "-s", "pd")
    assert run.returncode == 0, run.stderr
    assert b"could not be read" in run.stderr and b".corrupt-" in run.stderr
    assert_quiet(run.stderr)
    moved = list(path.parent.glob("state.db.corrupt-*"))
    assert len(moved) == 1 and moved[0].read_bytes() == junk  # kept, never overwritten
    again = d20("fortune", "-s", "pd")
    assert again.returncode == 0 and not again.stderr  # the new database works
