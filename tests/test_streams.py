"""Standard output and standard error that cannot be written (issue 22).

- stdout on a full device (`> /dev/full`): one line on stderr, exit status 1, no traceback.
- stderr that cannot be written (`2> /dev/full`): the exit status is the request's own
  (2 for a bad request), not 1.
- a reader that goes away (`| head -1`): exit status 0 and nothing on stderr, for every
  command (typer's own handling made it 1 for `d20 log --export csv` and `d20 shell`).
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from d20cli.app.streams import GuardedStream, OutputFailed

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60
FULL = "d20: cannot write the output: No space left on device"


def env(state: Path | None = None) -> dict[str, str]:
    extra = {"PY": sys.executable, "PYTHONPATH": str(ROOT)}
    if state is not None:
        extra["XDG_STATE_HOME"] = str(state)
    return {**os.environ, **extra}


def d20(
    *args: str, stdin: str | None = None, stdout: str | None = None, stderr: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run d20 with stdout and/or stderr sent to a file (such as /dev/full)."""
    with open(stdout or os.devnull, "w") as out, open(stderr or os.devnull, "w") as err:
        return subprocess.run(
            [sys.executable, "-m", "d20cli", *args],
            input=stdin,
            stdout=out if stdout else subprocess.PIPE,
            stderr=err if stderr else subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env(),
            timeout=TIMEOUT,
        )


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["roll", "1d6"], None),
        (["check", "+5", "vs", "15", "--json"], None),
        (["roll", "1d6", "--repeat", "100000", "-q"], None),
        (["odds", "roll", "2d6"], None),
        (["-q"], "roll 1d6\n" * 1000),
        (["shell"], "roll 1d6\n"),
        (["systems"], None),
        (["--help"], None),
        (["log", "--export", "csv"], None),
        (["completion", "bash"], None),
    ],
    ids=lambda x: " ".join(x) if isinstance(x, list) else "",
)
def test_a_full_device_on_stdout_is_one_line_and_status_1(
    args: list[str], stdin: str | None
) -> None:
    run = d20(*args, stdin=stdin, stdout="/dev/full")
    assert run.returncode == 1, run.stderr
    assert run.stderr.splitlines() == [FULL]


def test_a_full_device_on_both_streams_is_status_1_and_silent() -> None:
    run = d20("roll", "1d6", stdout="/dev/full", stderr="/dev/full")
    assert run.returncode == 1


@pytest.mark.parametrize(
    ("args", "stdin", "status"),
    [
        (["roll", "2d"], None, 2),
        (["check", "+5", "vs", "15", "--dice", "x"], None, 2),
        (["roll", "2d", "--json"], None, 2),
        (["-q"], "roll 1d1\nroll 2d\n", 2),
        (["log", "--limit", "x"], None, 2),
        (["frobnicate"], None, 2),
        (["check", "+5", "vs", "15", "--dice", "1", "--exit-status"], None, 1),
        (["check", "+5", "vs", "15", "--dice", "20", "--exit-status"], None, 0),
    ],
    ids=lambda x: " ".join(x) if isinstance(x, list) else str(x),
)
def test_stderr_that_cannot_be_written_keeps_the_status(
    args: list[str], stdin: str | None, status: int
) -> None:
    run = d20(*args, stdin=stdin, stderr="/dev/full")
    assert run.returncode == status


def _pipe(command: str, state: Path | None = None) -> tuple[list[str], str]:
    script = f'{command}; echo "status=${{PIPESTATUS[*]}}" >&2\n'
    run = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env(state),
        timeout=TIMEOUT,
    )
    head, _, statuses = run.stderr.rpartition("status=")
    return statuses.split(), head + run.stdout


def test_every_command_ends_quietly_on_a_closed_pipe(tmp_path: Path) -> None:
    state = tmp_path / "state"
    fill = subprocess.run(
        [sys.executable, "-m", "d20cli", "roll", "4d6kh3", "--repeat", "3000", "-q"],
        capture_output=True,
        cwd=ROOT,
        env={**env(state), "D20_NO_LOG": ""},
        timeout=TIMEOUT,
    )
    assert fill.returncode == 0
    lines = tmp_path / "lines"
    lines.write_text("roll 4d6kh3\n" * 5000, encoding="utf-8")
    for command in (
        '"$PY" -m d20cli log --export csv | head -1',
        '"$PY" -m d20cli log --export json | head -1',
        '"$PY" -m d20cli log --limit 3000 --no-color | head -1',
        f'"$PY" -m d20cli shell < {lines} | head -1',
        f'"$PY" -m d20cli < {lines} | head -1',
        '"$PY" -m d20cli roll 1d6 --repeat 1000000 | head -1',
    ):
        statuses, text = _pipe(command, state)
        assert statuses[0] == "0", (command, text)
        assert "Traceback" not in text and "Error" not in text, (command, text)


class _Broken(io.StringIO):
    def __init__(self, code: int) -> None:
        super().__init__()
        self.code = code

    def write(self, text: str) -> int:
        raise OSError(self.code, os.strerror(self.code))


def test_a_guarded_stdout_raises_something_that_is_not_an_oserror() -> None:
    """typer catches OSError(EPIPE) and exits 1; OutputFailed passes it by."""
    guarded = GuardedStream(_Broken(errno.EPIPE), fail=True)
    assert guarded.write("") == 0  # click's probe of a stream
    with pytest.raises(OutputFailed) as caught:
        guarded.write("x")
    assert not isinstance(caught.value, OSError)
    assert caught.value.closed_pipe
    with pytest.raises(OutputFailed) as caught:
        GuardedStream(_Broken(errno.ENOSPC), fail=True).write("x")
    assert not caught.value.closed_pipe
    assert caught.value.strerror == os.strerror(errno.ENOSPC)


def test_a_guarded_stderr_ignores_write_errors() -> None:
    guarded = GuardedStream(_Broken(errno.ENOSPC), fail=False)
    assert guarded.write("d20: error\n") == len("d20: error\n")
    guarded.flush()
    assert guarded.getvalue() == ""  # everything else is the wrapped stream's


class _CountingStream(io.StringIO):
    """A stream that records the size of each write it gets."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[int] = []

    def write(self, text: str) -> int:
        self.writes.append(len(text))
        return super().write(text)


def test_held_output_is_written_at_a_long_line_not_held_in_memory() -> None:
    """A batch holds short lines (a write per 1,024), but a long one (a group of a
    thousand members is 2 MB of JSON) is written at once with what was held: a thousand
    of them held took 2 GB."""
    from d20cli.present.output import Output

    stream = _CountingStream()
    out = Output(stream, io.StringIO(), False, flush_lines=False)
    out.json_line('{"a": 1}')
    assert stream.writes == []  # short lines wait
    for _ in range(3):
        out.json_line('{"a": "' + "x" * Output.HOLD_LONG + '"}')
    assert len(stream.writes) >= 3
    assert stream.getvalue().count("\n") == 4  # all of it, in order, nothing held
    out.json_line('{"b": 2}')
    out.flush()
    assert stream.getvalue().endswith('{"b": 2}\n') and stream.getvalue().startswith('{"a": 1}\n')


class _PieceStream(io.StringIO):
    """A stream that records each write's text, and which writes a flush followed."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[str] = []
        self.flushed: list[int] = []

    def write(self, text: str) -> int:
        self.pieces.append(text)
        return super().write(text)

    def flush(self) -> None:
        self.flushed.append(len(self.pieces))


def test_held_lines_are_written_in_whole_lines_that_fit_the_pipe() -> None:
    """Held lines go out in pieces of whole lines of at most WRITE_CHUNK bytes (a longer
    line alone), each flushed, so an interrupted write never leaves half a line."""
    from d20cli.present.output import WRITE_CHUNK, Output

    lines = [
        *(f"{n:04d}" + "x" * 995 for n in range(9)),  # 1,000 characters each (and "\n")
        "é" * 900,  # 1,800 bytes of UTF-8 (900 characters): fits beside a line of 1,000
        "\U0001f3b2" * 1100,  # 1,100 characters but 4,400 bytes: alone
        "y" * (WRITE_CHUNK + 10),  # longer than a piece: alone
        *("z" * 10 for _ in range(5)),
    ]
    stream = _PieceStream()
    out = Output(stream, io.StringIO(), False, flush_lines=False)
    for line in lines:
        out.text(line)
    out.flush()
    assert stream.getvalue() == "".join(line + "\n" for line in lines)
    for piece in stream.pieces:
        assert piece.endswith("\n")  # whole lines
        assert len(piece.encode()) <= WRITE_CHUNK or piece.count("\n") == 1
    assert [len(p.splitlines()) for p in stream.pieces] == [4, 4, 2, 1, 1, 5]
    assert stream.flushed[-1] == len(stream.pieces)  # the last piece is flushed too
    assert all(n in stream.flushed for n in range(1, len(stream.pieces)))  # and each one


def test_the_process_ends_only_after_all_it_wrote(tmp_path: Path) -> None:
    """The `d20` command ends the process with `os._exit` once `main` returns (no
    interpreter teardown): every line of a long batch still reaches the pipe, the error
    of a bad line and its status come through, and every roll is in the roll log."""
    import sqlite3

    lines = "roll 1d6\n" * 20_000 + "roll 1d0\n" + "check +5 vs 15 lucky\n" * 5  # (learnt)
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "--json"],
        input=lines,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**env(tmp_path), "D20_NO_LOG": ""},  # the roll log on, in tmp_path
        timeout=TIMEOUT,
    )
    assert run.returncode == 2
    out = run.stdout.splitlines()
    assert len(out) == 20_006 and '"error"' in out[20_000] and out[-1].endswith("}")
    assert run.stderr.startswith("d20: error at line 20001,") and "Traceback" not in run.stderr
    db = sqlite3.connect(tmp_path / "d20cli" / "state.db")
    try:
        assert db.execute("SELECT count(*) FROM rolls").fetchone() == (20_005,)
    finally:
        db.close()
    # the database and the caches' key, nothing else (no -wal, -shm or temporary left)
    assert sorted(p.name for p in (tmp_path / "d20cli").iterdir()) == ["cache-key", "state.db"]
