"""`d20 log` for people and scripts (issue 18): plain lines on a pipe, `--tsv`, the table
only on a terminal and within its width, outcome labels, forced and seeded rolls marked,
the filters (`--since`, `--until`, `--system`, `--outcome`), the naturals of every die size
per character and per session in `--stats`, a closed pipe, and `--clear` off a terminal."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import log, log_in_terminal
from typer.testing import CliRunner

from d20cli.app.commands.log import app as log_app
from d20cli.app.commands.log import dice_words, when
from d20cli.errors import ParseError
from d20cli.store.rolllog import stamp
from d20cli.store.state import State, db_path

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def at(when: datetime) -> str:
    return stamp(int(when.timestamp() * 1000))


NOW = datetime.now(UTC)
D20 = '{{"sides": 20, "face": {}, "kept": {}, "role": "d20"}}'


def d20s(*faces: int, dropped: tuple[int, ...] = ()) -> str:
    dice = [D20.format(f, "true") for f in faces] + [D20.format(f, "false") for f in dropped]
    return "[" + ", ".join(dice) + "]"


ROWS: list[tuple[Any, ...]] = [
    # at, character, system, verb, request, dice, total, outcome, source
    (
        at(NOW - timedelta(days=3)),
        "aria",
        "levelup",
        "check",
        "check +5 vs 15 adv",
        d20s(12, dropped=(7,)),
        17,
        "success",
        "random",
    ),
    (
        at(NOW - timedelta(days=3, minutes=-5)),
        None,
        "levelup",
        "roll",
        "roll 4d6kh3",
        '[{"sides": 6, "face": 1, "kept": false}, {"sides": 6, "face": 6, "kept": true}, '
        '{"sides": 6, "face": 6, "kept": true}, {"sides": 6, "face": 1, "kept": true}]',
        13,
        None,
        "seed",
    ),
    (
        at(NOW - timedelta(hours=1)),
        "bo\tb",
        "pendagger",
        "attempt",
        "attempt adept",
        d20s(20),
        20,
        "critical_success",
        "dice",
    ),
    (
        at(NOW - timedelta(minutes=30)),
        "aria",
        "levelup",
        "attack",
        "attack +7 vs 15 dmg 1d8+4",
        '[{"sides": 20, "face": 1, "kept": true}, {"sides": 8, "face": 8, "kept": true}]',
        8,
        "critical_failure",
        "random",
    ),
]


@pytest.fixture(autouse=True)
def logged() -> Iterator[None]:
    store = State.open()
    store.rolls.add(ROWS)
    store.close()
    yield


def test_on_a_pipe_one_plain_line_per_roll_with_labels_and_marks() -> None:
    r = log()
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert len(lines) == 4 and "┃" not in r.stdout
    first = lines[0].split("  ")
    assert first[1:] == ["aria", "check +5 vs 15 adv", "d20 12 (7)", "17", "Success"]
    assert re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}", first[0])
    assert lines[1].split("  ")[1:] == ["-", "roll 4d6kh3", "d6 (1) 6 6 1", "13", "seeded"]
    assert lines[2].endswith("attempt adept  d20 20  20  Critical success  forced")
    assert "bo\\x09b" in lines[2]  # a tab in a name is shown, never raw
    assert lines[3].endswith("d20 1, d8 8  8  Fumble")  # an attack's name for it


def test_tsv_is_seven_fields_a_roll() -> None:
    r = log("--tsv")
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert [len(row) for row in rows] == [7, 7, 7, 7]
    assert rows[0][1:] == ["aria", "check +5 vs 15 adv", "d20 12 (7)", "17", "Success", ""]
    assert rows[1][1] == "" and rows[1][6] == "seeded" and rows[1][5] == ""
    assert rows[2][1] == "bo\\x09b" and rows[2][6] == "forced"
    assert datetime.fromisoformat(rows[3][0]) <= datetime.now(UTC)


def test_filters_by_time_system_and_outcome() -> None:
    def requests(*args: str) -> list[str]:
        r = log("--tsv", *args)
        assert r.exit_code == 0, r.stderr
        return [line.split("\t")[2] for line in r.stdout.splitlines()]

    assert requests("--since", "2h") == ["attempt adept", "attack +7 vs 15 dmg 1d8+4"]
    assert requests("--until", "2h") == ["check +5 vs 15 adv", "roll 4d6kh3"]
    day = (NOW - timedelta(days=3)).date().isoformat()
    assert len(requests("--since", day, "--until", day)) == 2  # the whole day
    assert requests("--system", "pd") == ["attempt adept"]
    assert requests("--outcome", "Critical success,critical_failure") == [
        "attempt adept",
        "attack +7 vs 15 dmg 1d8+4",
    ]
    assert requests("--outcome", "success", "-c", "aria") == ["check +5 vs 15 adv"]
    assert requests("--since", "2030-01-01") == []
    exported = json.loads(log("--export", "json", "--since", "2h", "-c", "aria").stdout)
    assert [row["request"] for row in exported] == ["attack +7 vs 15 dmg 1d8+4"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "last week"], "--since takes a date"),
        (["--until", "2026-13-45"], "--until takes a date"),
        (["--since", "٣h"], "--since takes a date"),
        (["--since", "0001-01-01"], "is not a time the log can hold"),
        (["--until", "9999-12-31"], "--until takes a date"),
        (["--since", "99999999w"], "--since takes a date"),
        (["--outcome", "zzz"], "no outcome is called 'zzz'"),
        (["--system", "gurps"], "unknown system 'gurps'"),
        (["--clear", "--since", "2h", "--yes"], "--clear deletes all rolls"),
    ],
)
def test_bad_filters_are_one_line_errors(args: list[str], message: str) -> None:
    r = log(*args)
    assert r.exit_code == 2 and r.stderr.startswith("d20: error: ") and message in r.stderr


def test_when_reads_dates_times_and_times_ago() -> None:
    now = datetime(2026, 5, 3, 12, 0, tzinfo=UTC)
    assert when("2h", now, "--since") == "2026-05-03T10:00:00.000+00:00"
    assert when("30m", now, "--since") == "2026-05-03T11:30:00.000+00:00"
    assert when("1w", now, "--since") == "2026-04-26T12:00:00.000+00:00"
    assert when("today", now, "--since") == "2026-05-03T00:00:00.000+00:00"
    assert when("yesterday", now, "--until", end=True) == "2026-05-03T00:00:00.000+00:00"
    assert when("2026-05-01", now, "--since") == "2026-05-01T00:00:00.000+00:00"
    assert when("2026-05-01", now, "--until", end=True) == "2026-05-02T00:00:00.000+00:00"
    assert when("2026-05-01 18:30", now, "--since") == "2026-05-01T18:30:00.000+00:00"
    assert when("2026-05-01T18:30+02:00", now, "--since") == "2026-05-01T16:30:00.000+00:00"
    with pytest.raises(ParseError):
        when("soon", now, "--since")


def test_days_and_times_without_an_offset_are_local(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table shows local time, so a day or time typed as it reads there is local too
    (a time copied from the table finds its row); a time with an offset keeps it."""
    import time

    monkeypatch.setenv("TZ", "IST-05:30")
    time.tzset()
    try:
        now = datetime(2026, 5, 3, 20, 0, tzinfo=UTC)  # 01:30 on 4 May in IST
        assert when("today", now, "--since") == "2026-05-03T18:30:00.000+00:00"
        assert when("yesterday", now, "--since") == "2026-05-02T18:30:00.000+00:00"
        assert when("2026-05-01", now, "--since") == "2026-04-30T18:30:00.000+00:00"
        assert when("2026-05-01", now, "--until", end=True) == "2026-05-01T18:30:00.000+00:00"
        assert when("2026-05-01 18:30", now, "--since") == "2026-05-01T13:00:00.000+00:00"
        assert when("2026-05-01T18:30Z", now, "--since") == "2026-05-01T18:30:00.000+00:00"
        assert when("2h", now, "--since") == "2026-05-03T18:00:00.000+00:00"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_dice_words() -> None:
    assert dice_words([]) == ""
    assert dice_words([{"summary": {"count": 5000}}]) == "5000 dice, summarised"
    many = [{"sides": 6, "face": 3, "kept": True}] * 100
    assert dice_words(many).endswith("… 60 more dice")


def test_stats_count_the_naturals_of_every_die_per_character_and_session() -> None:
    r = log("--stats", "--json")
    assert r.exit_code == 0, r.stderr
    found = {entry["character"]: entry for entry in json.loads(r.stdout)}
    assert set(found) == {None, "aria"}  # forced dice (bo's) are no evidence
    aria = found["aria"]
    assert aria["naturals"]["d20"] == {"rolled": 3, "ones": 1, "tops": 0, "expected": 0.15}
    assert aria["naturals"]["d8"] == {"rolled": 1, "ones": 0, "tops": 1, "expected": 0.125}
    assert found[None]["naturals"] == {"d6": {"rolled": 4, "ones": 2, "tops": 2, "expected": 4 / 6}}
    assert found[None]["rolls"] == 0 and found[None]["p_value"] is None
    # three days apart: two sessions; aria rolled in both
    assert [len(s["naturals"]) for s in aria["sessions"]] == [1, 2]
    assert aria["sessions"][0]["naturals"]["d20"]["rolled"] == 2
    text = log("--stats", "--details").stdout
    assert "aria: naturals" in text and "naturals per session" in text


def test_clear_off_a_terminal_needs_yes() -> None:
    r = log("--clear")
    assert r.exit_code == 2 and "not on a terminal, give --yes" in r.stderr
    assert log("--tsv").stdout.count("\n") == 4  # nothing deleted
    assert "deleted 4 rolls" in log("--clear", "--yes").stdout


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "D20_NO_LOG"}
    env["XDG_STATE_HOME"] = str(db_path().parent.parent)
    return env


@pytest.mark.parametrize(
    "args",
    [["log", "--export", "json"], ["log", "--export", "csv"], ["log", "--tsv", "-l", "20000"]],
)
def test_a_closed_pipe_ends_the_log_quietly(tmp_path: Path, args: list[str]) -> None:
    store = State.open()
    store.rolls.add(ROWS * 5000)
    store.close()
    run = subprocess.run(
        f"{sys.executable} -m d20cli {' '.join(args)} | head -1; "
        "echo status=${PIPESTATUS[0]} >&2",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        cwd=ROOT,
        env=_env(tmp_path),
        timeout=120,
    )
    assert run.stdout.count(b"\n") == 1
    assert run.stderr.decode().strip() == "status=0"


#: A time zone five and a half hours east of UTC, as a POSIX TZ (no tz database needed).
EAST = "IST-05:30"


def _local(at_text: str, fmt: str) -> str:
    """`at_text` (the log's UTC time) as EAST's local time."""
    return (datetime.fromisoformat(at_text) + timedelta(hours=5, minutes=30)).strftime(fmt)


def _terminal_log(env: dict[str, str], width: int, *args: str) -> list[str]:
    return log_in_terminal(env, 200, width, *args).splitlines()


@pytest.mark.parametrize("width", [40, 60, 80, 120, 130])
def test_on_a_terminal_the_table_fits_its_width(tmp_path: Path, width: int) -> None:
    """Issue 42 item 11: at 40 columns `d20 log -l 3`'s table broke its borders. At every
    width its lines fit, each row is framed, and the last column has a header."""
    env = {**_env(tmp_path), "NO_COLOR": "1", "TERM": "xterm", "TZ": EAST}
    for args in ((), ("-l", "3")):
        lines = _terminal_log(env, width, *args)
        assert max(len(line) for line in lines) <= width, "\n".join(lines)
        assert lines[0].startswith("┏") and lines[0].endswith("┓")
        assert lines[-1].startswith("└") and lines[-1].endswith("┘")
        # every line of the table has as many column borders as the header line
        assert {line.count("│") for line in lines[3:-1]} == {lines[1].count("┃")}
        text = "\n".join(lines)
        assert "Critical" in text and "Fumble" in text
        assert ("source" in lines[1]) == (width >= 60)  # below: after the outcome
        assert "forced" in text
        if width >= 130 and not args:  # room for every column, each label whole
            assert "Critical success" in text and "d20 12 (7)" in text


def test_the_table_and_the_plain_lines_show_local_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 42 item 12: the log's times in local time for people (TZ), UTC in --tsv,
    --json and the exports."""
    import time

    newest = ROWS[3][0]
    text = "\n".join(_terminal_log({**_env(tmp_path), "NO_COLOR": "1", "TZ": EAST}, 120))
    assert _local(newest, "%Y-%m-%d %H:%M:%S") in text
    text = "\n".join(_terminal_log({**_env(tmp_path), "NO_COLOR": "1", "TZ": EAST}, 80))
    assert _local(newest, "%m-%d %H:%M") in text  # (no year below 100 columns)
    monkeypatch.setenv("TZ", EAST)
    time.tzset()
    try:
        plain = log().stdout.splitlines()
        assert plain[3].startswith(_local(newest, "%Y-%m-%d %H:%M:%S") + "  aria  ")
        assert log("--tsv").stdout.splitlines()[3].startswith(newest + "\t")
        assert json.loads(log("--json").stdout)[-1]["at"] == newest
        exported = json.loads(log("--export", "json").stdout)
        assert exported[-1]["at"] == newest
        assert newest in log("--export", "csv").stdout
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_answering_no_to_clear_says_nothing_was_deleted(tmp_path: Path) -> None:
    """Issue 42 item 12: `n` to `log --clear` on a terminal ended with no word."""
    pexpect = pytest.importorskip("pexpect")
    store = State.open()
    store.rolls.add(ROWS)
    count = store.rolls.count()
    store.close()
    env = {**_env(tmp_path), "NO_COLOR": "1", "TERM": "xterm"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d20cli", "log", "--clear"],
        env=env,
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(r"delete all [0-9,]+ logged rolls\?")
    child.sendline("n")
    child.expect("nothing deleted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    store = State.open()
    assert store.rolls.count() == count
    store.close()


@pytest.mark.parametrize("other", [["--export", "csv"], ["--export", "json"], ["--stats"]])
def test_a_limit_that_would_not_be_kept_is_refused(other: list[str]) -> None:
    """Issue 42 item 12: `log --export csv -l 3` exported every roll, -l ignored."""
    r = CliRunner().invoke(log_app, [*other, "-l", "3"])
    assert r.exit_code == 2
    assert "-l/--limit is for the recent rolls" in r.output
