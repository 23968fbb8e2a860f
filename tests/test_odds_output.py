"""What `d20 odds` prints for people and programs (issue 42, items 11 and 15): every exact
fraction of the odds' JSON has its number beside it (`_decimal`); a tier table ends with
the chance of success or better; the tables fit a terminal of 40, 80 or 120 columns with
their columns aligned and no fraction broken."""

from __future__ import annotations

import io
import json
import re
from fractions import Fraction
from typing import Any

import pytest
from cli_helpers import d20, run_odds
from rich.console import Console

import d20cli
from d20cli.app.options import Options, split_line
from d20cli.present.odds_view import compare_lines, odds_lines, success_row
from d20cli.present.output import Output, plain_text
from d20cli.probability.engine import odds_of
from d20cli.probability.model import DECIMAL_FIELDS

# --- JSON: a number beside every exact fraction -------------------------------------------

JSON_CASES = [
    "check +5 vs 15",
    "check +5 vs 20 -s mm",
    "group +3, +5, -1, +2, +0, +4 vs 12",
    "attack +7 vs 15 dmg 1d8+4",
    "contest +1 vs +2 vs +3 -s reglamento",
    "roll 1d6!",
    "scores -s pd",
    "attempt adept -s pd",
]


def _odds_json(words: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status, out, err = d20(["odds", *split_line(words), "--json"], capsys)
    assert status == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def _same(exact: Any, number: Any) -> None:
    """`number` is the float of the exact fraction `exact` (or a map of them, key by key)."""
    if isinstance(exact, dict):
        assert isinstance(number, dict) and list(number) == list(exact)
        for key in exact:
            _same(exact[key], number[key])
        return
    assert isinstance(exact, str) and isinstance(number, float)
    assert number == float(Fraction(exact))


@pytest.mark.parametrize("words", JSON_CASES)
def test_every_fraction_of_the_odds_json_has_its_number_beside_it(
    words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _odds_json(words, capsys)
    fields = [key for key in data if key in DECIMAL_FIELDS]
    assert "odds" in fields
    keys = list(data)
    for key in fields:
        twin = f"{key}_decimal"
        assert twin in data, twin
        assert keys.index(twin) == keys.index(key) + 1  # beside it
        _same(data[key], data[twin])
    for key, value in data.items():  # no other field holds a fraction without its number
        if isinstance(value, str) and re.fullmatch(r"\d+/\d+", value):
            assert key in DECIMAL_FIELDS or key == "mean_exact", key  # (its number: "mean")


def test_odds_json_keeps_its_fractions_and_adds_numbers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _odds_json("check +5 vs 15", capsys)
    assert data["odds"]["success"] == "1/2"  # the contract as it was: exact strings
    assert data["success"] == "11/20"
    assert data["odds_decimal"] == {
        "critical_failure": 0.05,
        "failure": 0.4,
        "success": 0.5,
        "critical_success": 0.05,
    }
    assert data["success_decimal"] == 0.55
    assert data["at_least_decimal"]["15"] == 0.55
    # a program does arithmetic on the number: succeeding at least once in three tries
    assert 1 - (1 - data["success_decimal"]) ** 3 == pytest.approx(0.908875)


@pytest.mark.parametrize("words", ["roll 3d6", "check +5 vs 15 adv expertise=d6", "roll 4d6kh3-2"])
def test_odds_json_at_least_and_at_most_are_the_sums_of_the_distribution(
    words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The at-least and at-most columns (written from whole numbers over one denominator,
    without a Fraction each: issue 43 item 3) are the reduced sums of the distribution,
    and their numbers the floats of those sums."""
    data = _odds_json(words, capsys)
    dist = {int(t): Fraction(p) for t, p in data["distribution"].items()}
    for t in dist:
        at_least = sum((p for u, p in dist.items() if u >= t), Fraction(0))
        at_most = sum((p for u, p in dist.items() if u <= t), Fraction(0))
        assert data["at_least"][str(t)] == f"{at_least.numerator}/{at_least.denominator}"
        assert data["at_most"][str(t)] == f"{at_most.numerator}/{at_most.denominator}"
        assert data["at_least_decimal"][str(t)] == float(at_least)
        assert data["at_most_decimal"][str(t)] == float(at_most)
        assert data["distribution_decimal"][str(t)] == float(dist[t])


def test_odds_compare_json_has_the_numbers_per_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = d20(
        ["odds", "compare", "check +5 vs 15 adv", "check +5 vs 15", "--json"], capsys
    )
    assert status == 0
    first, second = json.loads(out)["compare"]
    assert first["success_decimal"] == float(Fraction(first["success"]))
    assert second["odds_decimal"]["success"] == 0.5


def test_roll_with_odds_gives_its_chances_as_numbers_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = d20(["check", "+5", "vs", "15", "--odds", "--dice", "10", "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert (data["chance"], data["chance_decimal"]) == ("1/2", 0.5)
    assert (data["success_chance"], data["success_chance_decimal"]) == ("11/20", 0.55)
    status, out, _ = d20(["roll", "2d6", "--odds", "--dice", "3,4", "--json"], capsys)
    data = json.loads(out)
    assert (data["chance"], data["chance_decimal"]) == ("1/6", 1 / 6)
    assert (data["at_most_chance"], data["at_most_chance_decimal"]) == ("7/12", 7 / 12)


def test_python_api_odds_json_has_the_numbers() -> None:
    chances = d20cli.odds("check +5 vs 15 adv").to_json()
    assert chances["success"] == "319/400"
    assert chances["success_decimal"] == 319 / 400


def test_a_tiny_chance_is_a_small_number_never_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _odds_json("roll 300d20", capsys)
    assert data["distribution_decimal"]["300"] == float(Fraction(data["distribution"]["300"]))
    assert data["distribution_decimal"]["300"] == 0.0  # 20^-300 is below the smallest float
    assert Fraction(data["distribution"]["300"]) > 0  # the fraction stays exact
    assert data["distribution_decimal"]["3150"] > 0


# --- the chance of success or better -----------------------------------------------------


def _text(words: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    status, out, err = d20(["odds", *split_line(words)], capsys)
    assert status == 0, err
    return out.splitlines()


@pytest.mark.parametrize(
    ("words", "row"),
    [
        ("check +5 vs 15", "Success or better  55.00%         11/20      1 in 1.8"),
        ("save +2 vs 14", "Success or better  45.00%          9/20      1 in 2.2"),
        ("attack +7 vs 15 dmg 1d8+4", "Hit or better  65.00%         13/20      1 in 1.5"),
        ("check +5 vs 15 -s mm", "Success or better  55.00%         11/20      1 in 1.8"),
        ("attack +8 vs defense 6 -s mm", "Hit or better  65.00%         13/20      1 in 1.5"),
        ("check +3 vs 12 -s reglamento", "Success or better  60.00%           3/5"),
        ("attempt adept -s pd", "Limited success or better  80.00%           4/5"),
        ("defend trained -s pd", "Limited success or better  75.00%           3/4"),
        ("group +3, +5, +1 vs 12", "Success or better  65.00%         13/20      1 in 1.5"),
    ],
)
def test_a_tier_table_ends_with_the_chance_of_success_or_better(
    words: str, row: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _text(words, capsys)
    last = next(i for i, line in enumerate(lines) if row in line)
    assert lines[last].startswith(f"  {row}")
    # it closes the tier table: every row above it, up to the head, is a tier
    assert all("%" in line for line in lines[1:last])
    assert last + 1 == len(lines) or "%" not in lines[last + 1] or "degrees" in lines[last + 1]


def test_the_success_row_is_the_sum_of_the_tiers_the_system_counts_as_success() -> None:
    for text, system, tiers in [
        ("attempt adept", "pendagger", ("limited_success", "normal_success", "major_success")),
        ("check +5 vs 15", "mm", ("success", "critical_success")),
        ("check +5 vs 15", "levelup", ("success", "critical_success")),
    ]:
        odds = odds_of(text, system)
        wanted = sum((odds.outcomes[t] for t in tiers), Fraction(0))
        if system == "pendagger":
            wanted += odds.outcomes["critical_success"]
        assert odds.success == wanted


@pytest.mark.parametrize(
    "words",
    [
        "luck -s pd",  # one tier is the success: its row says it
        "percent 45 -s mm",
        "routine +10 vs 20 -s mm",
        "contest +3 vs +1 -s reglamento",  # no success to speak of
        "check -3 vs 25",  # no chance of success at all
        "roll 2d6",
    ],
)
def test_no_success_row_where_it_would_say_nothing_new(
    words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not any("or better" in line for line in _text(words, capsys))


def test_group_odds_give_the_chance_to_succeed(capsys: pytest.CaptureFixture[str]) -> None:
    """A group's odds have a chance of success as a check's do: its JSON, and the note of
    `--odds` on a group roll."""
    assert _odds_json("group +3, +5 vs 12", capsys)["success"] == "21/50"
    status, out, _ = d20(["group", "+3,", "+5", "vs", "12", "--odds", "--dice", "10,2"], capsys)
    assert status == 0
    assert "you had 46.0% (42.0% to succeed)" in out


def test_odds_compare_has_a_success_row(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = d20(["odds", "compare", "check +5 vs 15 adv", "check +5 vs 15"], capsys)
    assert status == 0
    assert "  Success or better   79.75%   55.00% -24.75 pp" in out.splitlines()


def test_quiet_and_csv_odds_keep_their_tiers_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert _text("check +5 vs 15 -q", capsys) == [
        "critical_failure 0.05",
        "failure 0.4",
        "success 0.5",
        "critical_success 0.05",
    ]


# --- widths: the tables fit the terminal ----------------------------------------------------

WIDTH_CASES = [
    "check +5 vs 15",
    "check +5 vs 15 adv expertise=d6",
    "group +3, +5, -1, +2, +0, +4 vs 12",
    "check +5 vs 20 -s mm",
    "attempt adept -s pd",
    "attack +7 vs 15 dmg 1d8+4 crit-dmg=double",
    "contest +1 vs +2 vs +3 -s reglamento",
    "roll 3d6 vs 12",
    "group +1, +2, +3, +4, +5, +6, +7, +8, +9, +10, +11, +12, +13, +14 vs 18",
]

FRACTION = re.compile(r"\d[\d,]*/[\d,]+")


def _width(line: list[tuple[str, str]]) -> int:
    return sum(len(text) for text, _ in line)


@pytest.mark.parametrize("columns", [40, 80, 120])
@pytest.mark.parametrize("words", WIDTH_CASES)
def test_odds_tables_fit_the_terminal(words: str, columns: int) -> None:
    """Every line but the head (the request as typed, which rich wraps between words)
    fits the width by itself, badges' padding counted: rich never has to wrap it."""
    system = re.search(r"-s (\w+)", words)
    text = re.sub(r" -s \w+", "", words)
    odds = odds_of(text, system.group(1) if system else "levelup")
    for line in odds_lines(odds, totals=True, width=columns)[1:]:
        assert _width(line) <= columns, (words, columns, "".join(t for t, _ in line))


def _rendered(words: str, columns: int) -> list[str]:
    buffer = io.StringIO()
    console = Console(
        width=columns, file=buffer, color_system=None, force_terminal=False, highlight=False
    )
    out = Output(buffer, io.StringIO(), color=False, console=console)
    assert run_odds(split_line(words), Options(), out) == 0
    return buffer.getvalue().splitlines()


@pytest.mark.parametrize("columns", [40, 80, 110, 120])
@pytest.mark.parametrize("words", WIDTH_CASES)
def test_no_fraction_is_broken_and_the_columns_line_up(words: str, columns: int) -> None:
    """Through the command line's own output at that width: every fraction of the tier
    table is whole on one line; the tier rows' percents end in one column, and so do their
    fractions."""
    lines = _rendered(words, columns)
    system = re.search(r"-s (\w+)", words)
    odds = odds_of(re.sub(r" -s \w+", "", words), system.group(1) if system else "levelup")
    shown = " ".join(lines)
    for _, p in odds.ordered_outcomes():
        whole = f"{p.numerator}/{p.denominator}"
        if len(whole) <= 20:  # (a longer one is shown as ≈ 3.2e-130)
            assert re.search(rf"(?<![\d/]){whole}(?![\d/])", shown), whole
    rows = [line for line in lines if re.search(r"\d%", line)]
    tiers = rows[: len(odds.ordered_outcomes()) + (success_row(odds) is not None)]
    percents = {line.index("%") for line in tiers if "degrees" not in line}
    assert len(percents) == 1, tiers
    ends = {m.end() for line in lines for m in FRACTION.finditer(line) if line in tiers}
    folded = [
        m.end()
        for line in lines
        if line.startswith("      ") and "%" not in line
        for m in FRACTION.finditer(line)
    ]
    assert len(ends) <= 1 and len(set(folded)) <= 1, lines


def test_a_group_lines_up_at_110_columns() -> None:
    """The issue's case: fractions of up to 15 characters, longer than the 12 columns
    the fractions had: each column ends in one place on every row."""
    rows = _rendered("group +3, +5, -1, +2, +0, +4 vs 12", 110)[1:]
    assert len(rows) == 5  # four tiers and success or better
    for column in (r"\d%", FRACTION.pattern, r"1 in [\d.,]+"):
        ends = {next(re.finditer(column, row)).end() for row in rows}
        assert len(ends) == 1, (column, rows)


@pytest.mark.parametrize("columns", [40, 80, 120])
def test_compare_fits_the_terminal(columns: int) -> None:
    odds = [odds_of(t, "levelup") for t in ("check +5 vs 15 adv", "check +5 vs 15 expertise=d8")]
    lines = compare_lines(odds, width=columns)
    for line in lines[2:]:
        assert _width(line) <= columns
    numbers = [plain_text(line) for line in lines if "%" in plain_text(line)]
    assert len({line.index("%") for line in numbers}) == 1


def test_plain_text_keeps_the_columns_aligned(capsys: pytest.CaptureFixture[str]) -> None:
    """Without colour (a pipe), badges lose their padding: the success row loses it too."""
    lines = _text("check +5 vs 15", capsys)
    assert len({line.index("%") for line in lines[1:]}) == 1
    _, out, _ = d20(["odds", "compare", "check +5 vs 15 adv", "check +5 vs 15"], capsys)
    rows = out.splitlines()[2:]
    assert len({len(line) for line in rows}) == 1  # every row ends in the B-A column


def test_the_width_comes_from_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pipe: no limit; a terminal without colour: its width (COLUMNS); through rich:
    the console's."""
    assert Output(io.StringIO(), io.StringIO(), color=False).columns() is None

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "40")
    terminal = Terminal()
    out = Output(terminal, io.StringIO(), color=False)
    assert out.columns() == 40
    assert run_odds(["check", "+5", "vs", "15"], Options(), out) == 0
    assert all(len(line) <= 40 for line in terminal.getvalue().splitlines())
    console = Console(width=120, file=io.StringIO())
    assert Output(io.StringIO(), io.StringIO(), color=False, console=console).columns() == 120


# --- --summary of an attack with damage ---------------------------------------------------


def _summary(words: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status, out, err = d20([*split_line(words), "--summary", "--json"], capsys)
    assert status == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_summary_of_an_attack_with_damage_gives_the_damage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    words = "attack +7 vs 15 dmg 1d8+4 --repeat 1000 --seed 1"
    status, out, _ = d20([*split_line(words), "--summary"], capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[-2] == "  mean total 17.14  min 8  max 27"  # as before: the same draws
    assert re.fullmatch(
        r"  mean damage \d+\.\d\d per attack, \d+\.\d\d per hit  min \d+  max \d+", lines[-1]
    )
    data = _summary(words, capsys)
    damage = data["damage"]
    assert set(damage) == {"mean", "mean_per_hit", "min", "max", "hits"}
    hits = data["outcomes"]["success"] + data["outcomes"]["critical_success"]
    assert damage["hits"] == hits
    assert damage["mean"] == pytest.approx(damage["mean_per_hit"] * hits / 1000)
    assert 5 <= damage["min"] <= damage["max"] <= 20  # 1d8+4, or 2d8+4 on a critical hit


def test_summary_damage_is_drawn_from_the_exact_odds(capsys: pytest.CaptureFixture[str]) -> None:
    """Drawn a million times, the damage per attack is the odds' expected damage, and its
    least and most are the damage's own (a critical hit doubles the dice)."""
    damage = _summary("attack +7 vs 15 dmg 1d8+4 --repeat 1000000 --seed 7", capsys)["damage"]
    expected = float(odds_of("attack +7 vs 15 dmg 1d8+4", "levelup").damage_mean or 0)
    assert damage["mean"] == pytest.approx(expected, abs=0.03)  # (5.75; its sd is 0.005)
    assert (damage["min"], damage["max"]) == (5, 20)
    assert damage["hits"] == pytest.approx(650_000, rel=0.01)


def test_summary_damage_of_rolled_results(capsys: pytest.CaptureFixture[str]) -> None:
    """With --dice each result is rolled (not drawn): the damage is counted as rolled."""
    data = _summary("attack +7 vs 15 dmg 1d8+4 -n 3 --dice 20,5,5,3,10,2", capsys)
    # a critical hit (5+5+4 = 14), a miss (3+7 = 10 < 15), a hit (10+7 = 17: 2+4 = 6)
    assert data["damage"] == {"mean": 20 / 3, "mean_per_hit": 10.0, "min": 6, "max": 14, "hits": 2}
    _status, out, _ = d20(
        [*split_line("attack +7 vs 15 dmg 1d8+4 -n 3 --dice 20,5,5,3,10,2"), "--summary"], capsys
    )
    assert out.splitlines()[-1] == "  mean damage 6.67 per attack, 10.00 per hit  min 6  max 14"


def test_summary_of_an_attack_that_never_hits_still_has_its_damage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _summary("attack +7 vs 15 dmg 1d8+4 -n 2 --dice 2,3", capsys)
    assert data["damage"] == {
        "mean": 0.0,
        "mean_per_hit": None,
        "min": None,
        "max": None,
        "hits": 0,
    }
    _status, out, _ = d20(
        [*split_line("attack +7 vs 15 dmg 1d8+4 -n 2 --dice 2,3"), "--summary"], capsys
    )
    assert out.splitlines()[-1] == "  mean damage 0.00 per attack (no hit)"


@pytest.mark.parametrize(
    "words",
    [
        "check +5 vs 15 -n 100 --seed 1",
        "attack +7 vs 15 -n 100 --seed 1",
        "roll 2d6 -n 50 --seed 1",
    ],
)
def test_summary_without_damage_is_as_it_was(
    words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "damage" not in _summary(words, capsys)
    _status, out, _ = d20([*split_line(words), "--summary"], capsys)
    assert "damage" not in out


def test_summary_damage_in_another_system(capsys: pytest.CaptureFixture[str]) -> None:
    damage = _summary("attack +5 vs 15 dmg 1d8 -s reglamento -n 1000 --seed 2", capsys)["damage"]
    assert 1 <= damage["min"] <= damage["max"] <= 16
    assert damage["hits"] > 0
