"""Numbers for people and for JSON, from exact fractions of any size (issue 21: `d20 odds`
of an astronomically small chance crashed in "1 in N" with an OverflowError)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from cli_helpers import run_odds
from hypothesis import given
from hypothesis import strategies as st

from d20cli.app.options import Options, split_line
from d20cli.number_format import (
    decimal,
    exact_fraction,
    exact_int,
    exact_ratio,
    len_digits,
    one_in,
    percent,
    scientific,
    short_fraction,
)
from d20cli.present.output import Output

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(1, 3), "3.3e-01"),
        (Fraction(3, 1000), "3.0e-03"),
        (Fraction(996, 100), "1.0e+01"),  # 9.96 rounds up to the next power of ten
        (Fraction(1, 10**400), "1.0e-400"),
        (Fraction(32, 10**131), "3.2e-130"),
        (Fraction(-5, 7), "-7.1e-01"),
        (Fraction(10**5000 + 7, 3), "3.3e+4999"),
        (Fraction(0), "0"),
        (123456, "1.2e+05"),
    ],
)
def test_scientific_notation_of_any_size(value: Fraction, text: str) -> None:
    assert scientific(value) == text


def test_scientific_notation_matches_python_where_floats_reach() -> None:
    for x in (Fraction(1, 7), Fraction(22, 7), Fraction(1, 3**200), Fraction(5**300, 3)):
        assert scientific(x, 3) == f"{float(x):.2e}"


def test_exact_digits_beyond_pythons_limit() -> None:
    n = 7**20_000  # 16,902 digits: str(n) raises under the default limit of 4,300
    with pytest.raises(ValueError):
        str(n)
    text = exact_int(n)
    assert len(text) == len_digits(n) == 16_902
    assert int(text[:4000]) == n // 10 ** (16_902 - 4000)
    assert text.endswith(str(n % 10**50).rjust(50, "0"))
    assert exact_int(-(10**5000)) == "-1" + "0" * 5000
    assert exact_fraction(Fraction(1, 10**5000)) == "1/1" + "0" * 5000
    assert [len_digits(k) for k in (0, 9, 10, 99, 100, 10**300 - 1, 10**300)] == [
        1,
        1,
        2,
        2,
        3,
        300,
        301,
    ]


@given(
    st.one_of(st.integers(1, 10**30), st.integers(1, 10**9).map(lambda k: k * 7**6000)),
    st.fractions(0, 1),
)
def test_a_chance_from_whole_numbers_is_written_as_its_fraction(d: int, share: Fraction) -> None:
    """`exact_ratio` (the odds' at-least and at-most columns, written from whole numbers
    over one denominator) gives the text and the number the reduced Fraction gives, past
    Python's digit limit too."""
    n = d * share.numerator // share.denominator
    p = Fraction(n, d)
    assert exact_ratio(n, d) == (exact_fraction(p), decimal(p))
    assert exact_int(-n) == ("-" + exact_int(n) if n else "0")


def test_short_fractions_stay_exact_and_long_ones_become_scientific() -> None:
    assert short_fraction(Fraction(193, 2400)) == "193/2400"
    assert short_fraction(Fraction(507915877, 100776960)) == "507915877/100776960"
    assert short_fraction(Fraction(1, 3**300)) == "\u2248 7.3e-144"


def test_one_in() -> None:
    assert one_in(Fraction(1, 400)) == "1 in 400"
    assert one_in(Fraction(10, 124)) == "1 in 12.4"
    assert one_in(Fraction(1, 999_999_999)) == "1 in 999,999,999"
    assert one_in(Fraction(1, 10**9)) == "1 in 1.0e+09"
    assert one_in(Fraction(3, 10**1000)) == "1 in 3.3e+999"
    assert one_in(Fraction(0)) == "never"


def test_percent_never_rounds_a_possibility_away() -> None:
    assert percent(Fraction(193, 2400)) == "8.04%"
    assert percent(Fraction(1, 10**500), width=8) == "  <0.01%"
    assert percent(1 - Fraction(1, 10**500), width=8) == " >99.99%"
    assert percent(Fraction(1), width=8) == " 100.00%"
    assert percent(Fraction(0), width=8) == "   0.00%"
    assert percent(Fraction(1, 10**9), 6) == "<0.000001%"


def _odds(line: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_odds(split_line(line), Options(), Output(out, err, color=False))
    return int(status), out.getvalue(), err.getvalue()


def _group(members: int, member: str = "+0") -> str:
    return "group " + ", ".join([member] * members) + " vs 20"


def test_odds_of_a_huge_group_are_readable_text_and_exact_json() -> None:
    status, text, err = _odds(_group(1000))
    assert status == 0, err
    assert "Traceback" not in err
    lines = text.splitlines()[1:]  # the first echoes the request
    assert max(len(line) for line in lines) < 100  # no 1,300-digit fraction in the text
    success = next(line for line in lines if line.lstrip().startswith("Critical success"))
    assert "<0.01%" in success and "\u2248 9.3e-1302" in success and "1 in 1.1e+1301" in success
    failure = next(line for line in lines if line.lstrip().startswith("Failure"))
    assert ">99.99%" in failure

    status, text, err = _odds(_group(1000) + " --json")
    assert status == 0, err
    odds = json.loads(text)["odds"]
    assert odds["critical_success"] == "1/" + exact_int(20**1000)  # every digit
    assert sum(Fraction(v) for v in odds.values()) == 1


def test_odds_fractions_past_pythons_digit_limit_are_written_in_full() -> None:
    """d997 with advantage: each member's chance has a denominator of 400 x 997; 900 of
    them make fractions of over 5,000 digits (str() of one raised ValueError)."""
    status, text, err = _odds(_group(900, "+d997 adv") + " --json")
    assert status == 0, err
    odds = json.loads(text)["odds"]
    assert max(len(v) for v in odds.values()) > 5000
    assert all(v.count("/") == 1 and v.replace("/", "").isdigit() for v in odds.values())


def test_long_explosions_show_their_cap_without_rounding_it_to_zero() -> None:
    status, text, err = _odds("roll 35d10!")
    assert status == 0, err
    assert "the cap leaves out <0.000001%" in text


def test_odds_from_the_command_line_end_without_a_traceback() -> None:
    members = ", ".join(["+0"] * 1000)
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "odds", "group", *members.split(" "), "vs", "20"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "1 in 1.1e+1301" in run.stdout


def test_the_chance_beside_a_roll_of_a_huge_group() -> None:
    from d20cli.app.run import run as run_tokens

    out, err = io.StringIO(), io.StringIO()
    line = _group(1000) + " --odds --seed 1 --json"
    outcome = run_tokens(split_line(line), Options(), Output(out, err, color=False))
    assert int(outcome.status) == 0, err.getvalue()
    data = json.loads(out.getvalue())
    assert data["outcome"] == "failure"
    assert data["chance"] == exact_fraction(Fraction(data["chance"]))
    assert any("you had >99.9%" in note for note in data["notes"])


def test_a_summary_whose_weights_float_cannot_hold_is_rolled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--repeat N --summary draws from the exact distribution with random.choices, which
    weighs in floats; past 2^1000 the request is rolled N times instead."""
    from d20cli.app.context import Context
    from d20cli.app.tallies import sampled_tally
    from d20cli.probability import engine as odds

    tiny = Fraction(1, 2**2000)
    joint = odds.JointOutcomes({("success", 20, None): tiny, ("failure", 1, None): 1 - tiny}, {})
    monkeypatch.setattr(odds, "joint_outcomes", lambda request, system: joint)
    opts = Options(repeat=10, summary=True)
    assert sampled_tally("check +0 vs 10", opts, Context()) is None
    out, err = io.StringIO(), io.StringIO()
    from d20cli.app.run import run as run_tokens

    outcome = run_tokens(
        split_line("check +0 vs 10 --repeat 10 --summary --json"),
        Options(),
        Output(out, err, color=False),
    )
    assert int(outcome.status) == 0, err.getvalue()
    assert json.loads(out.getvalue())["rolls"] == 10
