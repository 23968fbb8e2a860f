"""The roll log end to end: rolls from the command line, standard input and two processes
at once all land in the log, and the log commands read them back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def d20(
    args: list[str], env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k != "D20_NO_LOG"}
    environment["XDG_STATE_HOME"] = str(tmp_path / "state")
    environment["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    environment["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    return environment


def exported(env: dict[str, str]) -> list[dict[str, object]]:
    proc = d20(["log", "--export", "json"], env)
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, object]] = json.loads(proc.stdout)
    return rows


def test_two_processes_at_once_lose_no_row(env: dict[str, str]) -> None:
    cmd = [sys.executable, "-m", "d20cli", "roll", "1d20", "--repeat", "1000", "-q"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL) for _ in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    assert len(exported(env)) == 2000


def test_command_line_stdin_and_no_log(env: dict[str, str]) -> None:
    assert d20(["check", "+5", "vs", "15", "--dice", "12"], env).returncode == 0
    assert d20([], env, stdin="roll 1d6 --dice 4\nroll 1d8 --dice 2 --no-log\n").returncode == 0
    rows = exported(env)
    assert [(r["request"], r["total"]) for r in rows] == [("check +5 vs 15", 17), ("roll 1d6", 4)]
    assert rows[0]["outcome"] == "success"
    quiet = {**env, "D20_NO_LOG": "1"}
    assert d20(["roll", "1d4"], quiet).returncode == 0
    assert len(exported(env)) == 2


def test_rolls_as_a_character_are_logged_under_its_name(env: dict[str, str]) -> None:
    assert d20(["char", "add", "aria", "--system", "levelup"], env).returncode == 0
    assert d20(["char", "set", "aria", "stealth", "+7"], env).returncode == 0
    proc = d20(["check", "stealth", "vs", "15", "--as", "aria", "--dice", "9"], env)
    assert proc.returncode == 0, proc.stderr
    rows = exported(env)
    assert rows[-1]["character"] == "aria" and rows[-1]["total"] == 16
    # faces forced with --dice are not evidence about the dice: --stats leaves them out
    said = d20(["log", "--stats"], env).stdout.splitlines()  # after the log's size
    assert said[0].startswith("roll log: 1 row, ") and said[1:] == ["no d20s logged yet"]
    assert d20(["check", "stealth", "vs", "15", "--as", "aria", "-n", "50"], env).returncode == 0
    stats = d20(["log", "--stats"], env)
    assert stats.returncode == 0 and "aria: 51 rolls, " in stats.stdout  # the forced one too
    assert "\n  50 d20s: " in stats.stdout  # but not its d20


def test_processes_starting_together_on_a_new_database_all_keep_it(env: dict[str, str]) -> None:
    """Setting up a new state database (WAL mode, schema) meets a lock SQLite reports at
    once; a process must wait for it, not fall back to a state in memory."""
    cmd = [sys.executable, "-m", "d20cli", "roll", "1d20", "--repeat", "200", "-q"]
    procs = [
        subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0]
    assert not any("warning" in e for e in errors), errors
    assert len(exported(env)) == 800
