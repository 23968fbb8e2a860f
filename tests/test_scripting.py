"""`d20` in shell scripts: exit statuses (--exit-status, bad input), a reader that goes away
(`| head -1`), and JSON lines that stream one by one. Each test runs the real program in a
subprocess (`python -m d20cli`, the same entry point as the installed `d20`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
D20 = [sys.executable, "-m", "d20cli"]
TIMEOUT = 60


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv("D20_SYSTEM", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


def d20(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*D20, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )


@pytest.mark.parametrize(
    ("words", "win", "lose"),
    [
        ("check +5 vs 15", "12", "3"),
        ("save +3 vs 14", "11", "10"),
        ("attack +7 vs 15", "8", "7"),
        ("attempt adept -s pendagger", "9", "3"),
        ("percent 45 --system mm", "9", "10"),
        ("group +3, +5 vs 12", "9,7", "9,6"),
        ("luck -s reglamento", "11", "10"),
    ],
)
def test_exit_status_is_0_on_success_and_1_on_failure(words: str, win: str, lose: str) -> None:
    for faces, status in ((win, 0), (lose, 1)):
        run = d20(*words.split(), "--exit-status", "-q", "--dice", faces)
        assert run.returncode == status, (words, faces, run.stdout, run.stderr)
        assert run.stderr == ""


def test_without_exit_status_a_failure_still_exits_0() -> None:
    assert d20("check", "+5", "vs", "15", "--dice", "3").returncode == 0


def test_if_in_a_shell_script() -> None:
    script = (
        'd20() { "$PY" -m d20cli "$@"; }\n'
        "if d20 check +5 vs 15 --exit-status -q --dice 15 >/dev/null; then echo hit; fi\n"
        "if d20 check +5 vs 15 --exit-status -q --dice 2 >/dev/null; then :; else echo miss; fi\n"
        'd20 check +5 vs --exit-status 2>/dev/null; echo "bad=$?"\n'
    )
    run = subprocess.run(
        ["/bin/sh", "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PY": sys.executable},
        timeout=TIMEOUT,
    )
    assert run.stdout.split() == ["hit", "miss", "bad=2"], run.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["check", "+5", "vs"],
        ["check", "+5", "vs", "15", "--repeat", "zero"],
        ["check", "+5", "vs", "15", "--dice", "21"],
        ["check", "+5", "vs", "15", "--system", "nope"],
        ["frobnicate"],
    ],
)
def test_bad_input_exits_2_with_one_message_and_no_traceback(args: list[str]) -> None:
    run = d20(*args)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.startswith("d20: error")
    assert "Traceback" not in run.stderr


def test_bad_line_on_stdin_exits_2_and_the_rest_still_run() -> None:
    run = d20("-q", stdin="roll 1d1\ncheck +5 vs\nroll 1d1+1\n")
    assert run.returncode == 2
    assert run.stdout.split() == ["1", "2"]


@pytest.mark.parametrize(
    ("redirect", "status"),
    [
        ("<&-", 0),  # no input at all: nothing to roll
        ("check +5 vs 15 --dice 12 --exit-status <&- >&-", 0),
        ("check +5 vs 15 --dice 2 --exit-status >&- 2>&-", 1),
        ("check +5 vs >&-", 2),
        ("--help >&-", 0),
    ],
)
def test_a_closed_stream_is_no_traceback(redirect: str, status: int) -> None:
    """`d20 ... >&-` in a script still gives its exit status; Python leaves a closed
    stream as None."""
    run = subprocess.run(
        ["bash", "-c", f'"$PY" -m d20cli {redirect}'],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PY": sys.executable},
        timeout=TIMEOUT,
    )
    assert run.returncode == status, run.stderr
    assert "Traceback" not in run.stderr


def test_errors_keep_their_place_among_the_results() -> None:
    """`d20 < file 2>&1`: an error comes out after the results of the lines before it."""
    run = subprocess.run(
        [*D20, "-q"],
        input="roll 1d1\ncheck +5 vs\nroll 1d1+1\n",
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        timeout=TIMEOUT,
    )
    lines = run.stdout.splitlines()
    assert lines[0] == "1" and lines[1].startswith("d20: error") and lines[-1] == "2"


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_reader_going_away_ends_quietly(extra: list[str]) -> None:
    """`d20 roll 1d6 --repeat 1000000 | head -1`: no BrokenPipeError text, exit 0."""
    script = f'"$PY" -m d20cli roll 1d6 --repeat 1000000 {" ".join(extra)} | head -1\n'
    script += 'echo "status=${PIPESTATUS[0]}" >&2\n'
    run = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PY": sys.executable},
        timeout=TIMEOUT,
    )
    assert len(run.stdout.splitlines()) == 1
    assert run.stderr.strip() == "status=0", run.stderr


def stop(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait(timeout=TIMEOUT)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def test_json_lines_are_flushed_one_by_one() -> None:
    """The first JSON line can be read while the process is still rolling."""
    proc = subprocess.Popen(
        [*D20, "roll", "1d20", "--repeat", "1000000", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["verb"] == "roll" and 1 <= first["total"] <= 20
        second = json.loads(proc.stdout.readline())
        assert second["request"] == "roll 1d20"
        assert proc.poll() is None  # still running: the lines were not held back
    finally:
        stop(proc)


def test_json_lines_from_stdin_stream_too() -> None:
    proc = subprocess.Popen(
        [*D20, "--json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("check +5 vs 15 --dice 10\n")
        proc.stdin.flush()
        line = json.loads(proc.stdout.readline())  # answered before stdin is closed
        assert line["total"] == 15 and line["outcome"] == "success"
        proc.stdin.write("roll 1d1\n")
        proc.stdin.close()
        assert json.loads(proc.stdout.readline())["total"] == 1
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        stop(proc)


def test_stdin_lines_holds_no_more_than_the_limit_of_a_giant_line(tmp_path: Path) -> None:
    """Reading a 30 MB line keeps at most a read's worth of it in memory, and a line of
    exactly the limit (in characters, not bytes; a carriage return aside) still passes."""
    import tracemalloc

    from d20cli.app.stdin import stdin_lines
    from d20cli.language.vocabulary import MAX_REQUEST

    path = tmp_path / "input"
    exact = "é" * MAX_REQUEST
    with open(path, "wb") as f:
        f.write(b"roll 1d1\n")
        for _ in range(30):
            f.write(b"x" * 1_000_000)
        f.write(b"\nroll 1d1+1\r\n" + exact.encode() + b"\r\n" + exact.encode() + b"e\n")
        f.write(b"y" * (MAX_REQUEST + 1))  # the last line, without a newline
    tracemalloc.start()
    try:
        with open(path, "rb") as f:
            got = [
                line if isinstance(line, str) else f"error: {line.message}"
                for line in stdin_lines(f)
            ]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == [
        "roll 1d1",
        "error: line 2 is longer than 10,000 characters; it was skipped",
        "roll 1d1+1\r",
        exact + "\r",
        "error: line 5 is longer than 10,000 characters; it was skipped",
        "error: line 6 is longer than 10,000 characters; it was skipped",
    ]
    assert peak < 2_000_000, peak


def test_a_batch_freezes_what_exists_when_a_line_has_imported_modules() -> None:
    """Standard input's lines tell the cycle collector that what exists is there for good
    (gc.freeze) before the first line, and again only after a line that imported a module;
    so a collection during a long batch looks only at what its lines made."""
    import gc
    import types

    from d20cli.app.stdin import frozen_as_imported

    gc.unfreeze()
    lines = frozen_as_imported(iter(["roll 1d6", "roll 1d8", "roll 1d10"]))
    try:
        assert next(lines) == "roll 1d6"
        assert gc.get_freeze_count() > 0  # the start's objects
        gc.unfreeze()
        assert next(lines) == "roll 1d8"
        assert gc.get_freeze_count() == 0  # nothing imported since: not told again
        sys.modules["d20cli_test_imported"] = types.ModuleType("d20cli_test_imported")
        assert next(lines) == "roll 1d10"
        assert gc.get_freeze_count() > 0  # a line imported a module: told again
    finally:
        sys.modules.pop("d20cli_test_imported", None)
        gc.unfreeze()


def test_a_batch_leaves_nothing_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    """When standard input's batch ends, what it froze is the collector's again (a process
    that goes on, as a test's does, collects it)."""
    import gc
    import io

    from d20cli.app.options import Options
    from d20cli.app.stdin import run_stdin

    gc.unfreeze()
    monkeypatch.setattr(sys, "stdin", io.StringIO("roll 1d1\nroll 2d1\n"))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert run_stdin(Options(json=True)) == 0
    assert [json.loads(line)["total"] for line in out.getvalue().splitlines()] == [1, 2]
    assert gc.get_freeze_count() == 0
