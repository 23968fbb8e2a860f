"""The odds views (issue 17): cumulative columns (exactly, at least, at most), tails trimmed with
the mass beyond named, `--csv`, `mean` as a number and an exact fraction, and `odds
compare` of any number of requests with expected damage first for attacks."""

from __future__ import annotations

import csv
import io
import itertools
import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

import d20cli
from d20cli.app.cli import app
from d20cli.present.odds_view import cumulative

runner = CliRunner()


def _run(*words: str) -> str:
    res = runner.invoke(app, list(words))
    assert res.exit_code == 0, res.output
    return res.output


def test_cumulative_columns_against_brute_force() -> None:
    rolls = list(itertools.product(range(1, 7), repeat=3))
    dist = {t: Fraction(sum(1 for r in rolls if sum(r) == t), len(rolls)) for t in range(3, 19)}
    for t, exactly, at_least, at_most in cumulative(dist):
        assert exactly == dist[t]
        assert at_least == Fraction(sum(1 for r in rolls if sum(r) >= t), len(rolls))
        assert at_most == Fraction(sum(1 for r in rolls if sum(r) <= t), len(rolls))


def test_the_chart_has_exactly_at_least_at_most() -> None:
    text = _run("odds", "roll", "3d6", "--no-color")
    assert "total  exactly  at least   at most" in text
    row = next(line for line in text.splitlines() if line.split()[:1] == ["12"])
    assert row.split()[1:4] == ["11.57%", "37.50%", "74.07%"]


def test_explosion_tails_are_trimmed_and_named() -> None:
    text = _run("odds", "roll", "1d6!", "--no-color")
    assert "<0.01%" not in text.split("not shown")[0].split("at most")[1]
    assert "not shown: above" in text
    rows = [line.split()[0] for line in text.splitlines() if line[:8].strip().isdigit()]
    assert rows[0] == "1" and int(rows[-1]) < 66  # the far tail is left out


def test_json_cumulative_and_mean() -> None:
    data = json.loads(_run("odds", "roll", "2d6", "--json"))
    assert data["mean"] == 7 and isinstance(data["mean"], float)
    assert data["mean_exact"] == "7"  # not "7/1"
    assert data["at_least"]["7"] == "7/12" and data["at_most"]["7"] == "7/12"
    data = json.loads(_run("odds", "roll", "3d6", "--json"))
    assert data["mean"] == 10.5 and data["mean_exact"] == "21/2"
    odds = d20cli.odds("roll 4d6dl1")
    assert Fraction(odds.to_json()["mean_exact"]) == odds.mean


def test_csv() -> None:
    rows = list(csv.reader(io.StringIO(_run("odds", "roll", "3d6", "--csv"))))
    assert rows[0] == ["total", "exactly", "at least", "at most"]
    assert len(rows) == 17
    by_total = {int(r[0]): [float(x) for x in r[1:]] for r in rows[1:]}
    assert abs(by_total[12][1] - 0.375) < 1e-12 and abs(by_total[3][1] - 1) < 1e-12
    assert abs(sum(v[0] for v in by_total.values()) - 1) < 1e-12
    rows = list(csv.reader(io.StringIO(_run("odds", "group", "+3, +5 vs 12", "--csv"))))
    assert rows[0] == ["outcome", "probability"]


def test_compare_any_number_with_damage_first() -> None:
    attacks = [
        "attack +7 vs 15 dmg 2d6+4",
        "attack +2 vs 15 dmg 2d6+14",
        "attack +5 vs 15 dmg 1d12+6",
    ]
    text = _run("odds", "compare", *attacks, "--no-color")
    lines = text.splitlines()
    assert [line[:1] for line in lines[:3]] == ["A", "B", "C"]
    damage_row = next(i for i, line in enumerate(lines) if "expected damage" in line)
    # (an attack names its success Hit)
    outcome_row = next(i for i, line in enumerate(lines) if " Hit " in line)
    assert damage_row < outcome_row  # damage first: the number that decides
    assert "most damage: B (attack +2 vs 15 dmg 2d6+14)" in text
    means = [d20cli.odds(a).damage_mean for a in attacks]
    assert means[1] == max(m for m in means if m is not None)
    data = json.loads(_run("odds", "compare", *attacks, "--json"))
    assert [c["request"] for c in data["compare"]] == attacks
    one = runner.invoke(app, ["odds", "compare", "check +5 vs 15"])
    assert one.exit_code == 2 and "two or more" in one.output


def test_a_checks_totals_chart_only_when_asked_and_an_attacks_damage_chart() -> None:
    """Issue 17: a check's odds show its tiers; its totals chart only with --totals; an
    attack with damage shows the damage distribution (hits and criticals mixed, misses 0)."""
    import io

    from cli_helpers import run_odds

    from d20cli.app.options import Options
    from d20cli.present.output import Output

    def text(*words: str) -> str:
        out = io.StringIO()
        run_odds(list(words), Options(), Output(out, io.StringIO(), color=False))
        return out.getvalue()

    plain = text("check", "+5", "vs", "15")
    assert "Success" in plain and "total: mean" not in plain
    assert "total: mean 15.500" in text("check", "+5", "vs", "15", "--totals")
    attack = text("attack", "+7", "vs", "15", "dmg", "1d4+2")
    assert "damage: mean 3.050" in attack
    rows = {line.split()[0]: line.split()[1] for line in attack.splitlines()[8:]}
    assert rows["0"] == "35.00%" and rows["10"] == "0.31%"  # a critical's 2d4+2 at most


def test_damage_labels_give_per_type_subtotals_and_modifier_dice_their_label() -> None:
    """Issue 17's display fixes: `dmg 1d8[slashing]+3+2d6[fire]` gives per-type subtotals
    in text and JSON (doubled on a critical); `check +3+1d4[bless]` names its dice."""
    import io

    from d20cli.app.options import Options
    from d20cli.app.run import run as run_tokens
    from d20cli.present.output import Output
    from d20cli.results import Result

    def run(*tokens: str) -> str:
        out = io.StringIO()
        run_tokens(list(tokens), Options(), Output(out, io.StringIO(), color=False))
        return out.getvalue()

    attack = ("attack", "+5", "vs", "10", "dmg", "1d8[slashing]+3+2d6[fire]")
    assert "= 13  (slashing 5, fire 5, untyped 3)" in run(*attack, "--dice", "12,5,2,3")
    line = run(*attack, "--dice", "20,5,2,3,1,1,1", "--json")
    data = json.loads(line)
    assert data["damage"]["labels"] == {"slashing": 7, "fire": 6}
    assert Result.from_json(data).json_text() == line.strip()
    assert "d20 12  bless 3  +3  = 18" in run(
        "check", "+3+1d4[bless]", "vs", "10", "--dice", "12,3"
    )


# --- distributions side by side (`odds compare "roll 2d6" "roll 1d12"`, issue 46 item 3) ---


def test_compare_of_rolls_shows_both_distributions_side_by_side(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cli_helpers import d20

    status, out, _ = d20(["odds", "compare", "roll 2d6", "roll 1d12"], capsys)
    assert status == 0
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == ["total"])
    assert lines[start - 1].split() == ["exactly", "at", "least", "at", "most"]
    rows = {int(line.split()[0]): line.split() for line in lines[start + 1 :]}
    assert sorted(rows) == list(range(1, 13))
    # total 7: 2d6 6/36, 1d12 1/12; B-A -8.33 points; at least 7: 21/36 and 6/12;
    # at most 7: 21/36 and 7/12 (worked by hand)
    assert rows[7][:8] == ["7", "16.67%", "8.33%", "-8.33", "58.33%", "50.00%", "58.33%", "58.33%"]
    assert rows[1][:4] == ["1", "0.00%", "8.33%", "+8.33"]
    assert "█" in lines[start + 7]


def test_compared_totals_match_each_distribution() -> None:
    from d20cli.present.odds_view import compared_totals
    from d20cli.present.output import plain_text

    a = d20cli.odds("roll 1d4").distribution
    b = d20cli.odds("roll 1d4+1").distribution
    assert a is not None and b is not None
    lines = [plain_text(line) for line in compared_totals([a, b], ["A", "B"], width=None)]
    body = [line.split() for line in lines[3:]]
    assert [r[0] for r in body] == ["1", "2", "3", "4", "5"]
    assert body[0][1:8] == ["25.00%", "0.00%", "-25.00", "100.00%", "100.00%", "25.00%", "0.00%"]
    assert body[4][1:8] == ["0.00%", "25.00%", "+25.00", "0.00%", "25.00%", "100.00%", "100.00%"]
    # on a narrow terminal only the chance of exactly each total is kept
    narrow = [plain_text(line) for line in compared_totals([a, b], ["A", "B"], width=40)]
    assert narrow[1].split() == ["exactly"]
    assert all(len(line) <= 40 for line in narrow)


def test_a_check_compare_shows_totals_only_with_totals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cli_helpers import d20

    args = ["odds", "compare", "check +5 vs 15", "check +3 vs 15 adv"]
    assert "at least" not in d20(args, capsys)[1]
    assert "at least" in d20([*args, "--totals"], capsys)[1]
