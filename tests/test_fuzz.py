"""Fuzzing the request path in-process: whatever the words, a request ends with status 0
or 2, a status 2 carries a one-line `d20: error` message (and maybe the text with a
caret), nothing escapes as an exception (RecursionError, MemoryError, ...). How long an example
takes is not tested (the counted budgets bound it: tests/test_limits_budgets.py).

The inputs: arbitrary text (any unicode, control characters), very long lines, deep
parentheses, and near misses made by mutating valid requests (tokens dropped,
duplicated, swapped, junk inserted, numbers made huge), for every system and for
`odds`. tests/fuzz_corpus/ holds the seeds and the inputs the coverage-guided fuzzer
(fuzz/fuzz_requests.py) found worth keeping; every file there is replayed.

The whole program too (fuzz/fuzz_cli.py): the command line with its options, standard
input with any bytes, the characters file and the parse cache; tests/fuzz_cli_corpus/
holds its seeds and findings, every file replayed, and Hypothesis adds random bytes.
"""

from __future__ import annotations

import functools
import io
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d20cli.app.options import Options, split_line
from d20cli.app.run import run
from d20cli.present.output import Output

CORPUS = Path(__file__).parent / "fuzz_corpus"
SEEDS = sorted(p.read_text(encoding="utf-8") for p in CORPUS.glob("seed-*"))
SYSTEMS = ("", " -s levelup", " -s reglamento", " -s mm", " -s pendagger")
VERBS = (
    "roll",
    "check",
    "save",
    "attack",
    "group",
    "contest",
    "luck",
    "resist",
    "routine",
    "opposed",
    "compare",
    "percent",
    "attempt",
    "scores",
    "fortune",
    "odds roll",
    "odds check",
)
JUNK = (
    "(",
    ")",
    "d",
    "d0",
    "!",
    "!!",
    "r",
    "kh",
    "x",
    "vs",
    "adv",
    "dis",
    "#",
    "[",
    "]",
    "-",
    "+",
    "*",
    "/",
    ",",
    "'",
    '"',
    "\\",
    "--",
    "--json",
    "--dice",
    "--seed",
    "-s",
    "=",
    ">=",
    "\x00",
    "\x1b[31m",
    "\u202e",
    "\ufeff",
    "é",
    "🎲",
    "999999999999",
    "9" * 40,
    "-" * 30,
    "1d1000000",
)

FAST = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


def run_line(line: str) -> tuple[int, str, str]:
    """(status, stdout, stderr) of one line, exactly as a line of standard input runs."""
    out, err = io.StringIO(), io.StringIO()
    output = Output(out, err, color=False)
    tokens = split_line(line)
    status = int(run(tokens, Options(), output).status)  # (`odds ...` too)
    return status, out.getvalue(), err.getvalue()


def assert_clean(line: str) -> None:
    status, _, err = run_line(line)
    assert status in (0, 2), (line, status, err)
    assert "Traceback" not in err, (line, err)
    if status == 2:
        lines = err.splitlines()
        errors = [x for x in lines if x.startswith("d20: error")]
        assert errors, (line, err)
        # the message, then maybe the text and a caret under the column
        assert len(lines) <= 3, (line, err)


def _no_long_run(line: str) -> bool:
    """--repeat and --simulate may run as long as asked (Ctrl-C stops them)."""
    return not any(w in line for w in ("-n", "--r", "--si"))


# -- arbitrary text ---------------------------------------------------------------------

any_text = st.text(
    alphabet=st.characters(codec=None, exclude_categories=["Cs"]), max_size=120
).filter(_no_long_run)


@FAST
@given(st.sampled_from(VERBS), any_text, st.sampled_from(SYSTEMS))
def test_arbitrary_text_after_a_verb(verb: str, text: str, system: str) -> None:
    assert_clean(f"{verb} {text}{system}")


@FAST
@given(any_text)
def test_arbitrary_text_alone(text: str) -> None:
    assert_clean(text)


@FAST
@given(
    st.sampled_from(VERBS),
    st.sampled_from(("1+", "(", ")", "1d6", "-", "d", " ", "é", "\x00", "9", "1d2!+", "[a]")),
    st.integers(1, 20_000),
)
def test_very_long_lines(verb: str, unit: str, length: int) -> None:
    body = (unit * (length // len(unit) + 1))[:length]
    assert_clean(f"{verb} {body}")


@FAST
@given(
    st.sampled_from(("roll ", "odds roll ", "check +", "attack +1 vs 10 dmg ", "attempt ")),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.sampled_from(("1", "1d6", "2d6kh1", "-1", "")),
    st.sampled_from(("(", "-(", "((1)d")),
)
def test_deep_parentheses(prefix: str, opened: int, closed: int, core: str, unit: str) -> None:
    line = prefix + unit * min(opened, 10_000 // len(unit)) + core + ")" * closed
    assert_clean(line)


# -- near misses: mutations of valid requests -------------------------------------------


@st.composite
def near_misses(draw: st.DrawFn) -> str:
    tokens = split_line(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        if not tokens:
            tokens = [draw(st.sampled_from(VERBS))]
        i = draw(st.integers(0, len(tokens) - 1))
        action = draw(st.sampled_from(("drop", "dup", "swap", "junk", "huge", "glue", "cut")))
        if action == "drop" and len(tokens) > 1:
            del tokens[i]
        elif action == "dup":
            tokens.insert(i, tokens[i])
        elif action == "swap":
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif action == "junk":
            tokens.insert(i, draw(st.sampled_from(JUNK)))
        elif action == "huge":
            digits = draw(st.integers(10, 60))
            tokens[i] = "".join("9" * digits if c.isdigit() else c for c in tokens[i]).replace(
                "9" * digits + "9", "9" * digits
            )
        elif action == "glue" and i + 1 < len(tokens):
            tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
        else:
            cut = draw(st.integers(0, len(tokens[i])))
            tokens[i] = tokens[i][:cut] + draw(st.sampled_from(JUNK)) + tokens[i][cut:]
    line = " ".join(tokens) + draw(st.sampled_from(SYSTEMS))
    return line


@FAST
@given(near_misses().filter(_no_long_run))
def test_near_misses(line: str) -> None:
    assert_clean(line)


@FAST
@given(near_misses().filter(_no_long_run))
def test_near_misses_as_odds(line: str) -> None:
    if line.startswith("odds "):
        line = line[5:]
    assert_clean("odds " + line)


# -- the corpus the fuzzers found --------------------------------------------------------


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.name)
def test_corpus(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", "replace")
    lines = text.splitlines()
    line = lines[0] if lines else text
    if _no_long_run(line):
        assert_clean(line)


# -- findings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "roll " + "*".join(["999999999999"] * 760),
        "odds roll " + "*".join(["999999999999"] * 760),
        "roll " + "*".join(["1d1000000"] * 6),
        "check +" + "*".join(["999999999"] * 900) + " vs 5",
        "odds check +" + "*".join(["999999999"] * 900) + " vs 5",
        "attack +1 vs 10 --dice 15 dmg " + "*".join(["999999"] * 5),
    ],
)
def test_huge_totals_are_refused(line: str) -> None:
    """Products grew without bound: the roll log's INTEGER column overflowed, and the odds'
    mean overflowed a float; past +-10**18 a total is now an error naming the product."""
    status, _, err = run_line(line)
    assert status == 2
    assert "too large" in err


def test_the_roll_log_survives_a_total_beyond_64_bits(tmp_path: Path) -> None:
    from d20cli.store.state import State

    state = State.open(tmp_path / "state.db")
    row = ("2024-01-01T00:00:00", None, "levelup", "roll", "roll 1", "[]", 10**30, None, "dice")
    state.rolls.add([row])
    total = state.db.conn.execute("SELECT total FROM rolls").fetchone()[0]
    state.close()
    assert total is None
    assert sqlite3.connect(tmp_path / "state.db").execute("SELECT count(*) FROM rolls").fetchone()


# -- the whole program: command line, standard input, the files it reads ------------------

CLI_CORPUS = Path(__file__).parent / "fuzz_cli_corpus"


@functools.cache
def _fuzz_cli() -> Any:
    """fuzz/fuzz_cli.py, the whole-program harness (loaded without atheris)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "fuzz" / "fuzz_cli.py"
    spec = importlib.util.spec_from_file_location("fuzz_cli", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", sorted(CLI_CORPUS.iterdir()), ids=lambda p: p.name)
def test_cli_corpus(path: Path) -> None:
    """Every input the whole-program fuzzer kept: the command line (options included),
    standard input with any bytes, a characters file, a parse cache."""
    _fuzz_cli().check(path.read_bytes())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3), st.binary(max_size=300))
def test_any_bytes_anywhere(mode: int, data: bytes) -> None:
    _fuzz_cli().check(bytes([mode]) + data)
