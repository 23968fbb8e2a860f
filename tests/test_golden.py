"""Golden tests of the rich output: one request per verb, printed through a rich Console
at a fixed width of 80 with forced dice. `D20_UPDATE_GOLDEN=1 pytest tests/test_golden.py`
rewrites the files after a deliberate change; review the diff before committing it."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from cli_helpers import run_odds
from rich.console import Console

from d20cli.app.options import Options
from d20cli.app.run import run as run_tokens
from d20cli.present.output import Output

GOLDEN = Path(__file__).parent / "golden"

CASES: dict[str, str] = {
    "roll": "roll 4d6kh3 + 1d8[fire] + 2 --dice 6,5,2,4,7",
    "roll-repeat": "roll 3x 2d6 --dice 1,2,3,4,5,6",
    "roll-huge": "roll 2000d6 --seed 1",
    "levelup-check": "check +5 vs 15 adv expertise=d6 --dice 17,4,3",
    "levelup-check-nat20-below": "check -3 vs 25 --dice 20",
    "levelup-save": "save +2 vs 14 --dice 1",
    "levelup-attack": "attack +7 vs 15 dmg 1d8+4 --dice 20,6,3",
    "levelup-group": "group +3, +5 adv, -1 vs 12 --dice 10,15,3,4",
    "levelup-summary": "check +5 vs 15 --repeat 1000 --summary --seed 1",
    "reglamento-check": "check +3 vs 12 -s reglamento --dice 20",
    "reglamento-contest": "contest +3 vs +1 -s reglamento --dice 12,11",
    "reglamento-luck": "luck -s reglamento --dice 11",
    "mm-check": "check +8 vs tough bonus -s mm --dice 10",
    "mm-attack": "attack +8 vs defense 6 -s mm --dice 20",
    "mm-resist": "resist +6 vs rank 8 -s mm --dice 3",
    "mm-routine": "routine +10 vs 20 -s mm",
    "mm-opposed": "opposed +8 vs +8 -s mm --dice 10,10,15",
    "mm-compare": "compare 8 vs 8 -s mm --dice 11",
    "mm-percent": "percent 45 -s mm --dice 9",
    "pendagger-attempt": "attempt adept reliable -s pendagger --dice 14",
    "pendagger-score": "attempt 14 -1 -s pd --dice 1",
    "pendagger-luck": "luck -s pd --dice 10",
    "pendagger-scores": "scores --players 3 -s pd --seed 2",
    "pendagger-defend": "defend trained unreliable -s pd --dice 20",
    "pendagger-fortune-gain": "attempt adept fortune -s pd --dice 20",
    "pendagger-fortune-show": "fortune -s pd",
}

ODDS_CASES: dict[str, str] = {
    "odds-check": "check +5 vs 15 adv expertise=d6",
    "odds-mm": "check +5 vs 20 -s mm",
    "odds-compare": 'compare "check +5 vs 15 adv" "check +5 vs 15 expertise=d8"',
}


#: Odds at the widths of a narrow, a middling and a wide terminal: every table fits, its
#: columns aligned, and no fraction is broken across lines.
WIDTH_CASES: dict[str, tuple[str, int]] = {
    "odds-check-40": ("check +5 vs 15", 40),
    "odds-check-120": ("check +5 vs 15", 120),
    "odds-group-40": ("group +3, +5, -1, +2, +0, +4 vs 12", 40),
    "odds-group-80": ("group +3, +5, -1, +2, +0, +4 vs 12", 80),
    "odds-group-110": ("group +3, +5, -1, +2, +0, +4 vs 12", 110),
    "odds-group-120": ("group +3, +5, -1, +2, +0, +4 vs 12", 120),
    "odds-pendagger-40": ("attempt adept -s pd", 40),
    "odds-attack-40": ("attack +7 vs 15 dmg 1d8+4", 40),
    "odds-compare-40": ('compare "check +5 vs 15 adv" "check +5 vs 15 expertise=d8"', 40),
}


def _render(words: str, odds: bool = False, width: int = 80) -> str:
    buffer = io.StringIO()
    console = Console(
        width=width, file=buffer, color_system=None, force_terminal=False, highlight=False
    )
    out = Output(buffer, io.StringIO(), color=False, console=console)
    from d20cli.app.options import split_line

    tokens = split_line(words)
    if odds:
        run_odds(tokens, Options(), out)
    else:
        run_tokens(tokens, Options(), out)
    return buffer.getvalue()


def _check(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("D20_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run with D20_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_output(name: str) -> None:
    _check(name, _render(CASES[name]))


@pytest.mark.parametrize("name", sorted(ODDS_CASES))
def test_golden_odds(name: str) -> None:
    _check(name, _render(ODDS_CASES[name], odds=True))


@pytest.mark.parametrize("name", sorted(WIDTH_CASES))
def test_golden_odds_widths(name: str) -> None:
    words, width = WIDTH_CASES[name]
    _check(name, _render(words, odds=True, width=width))


def test_colour_marks_dropped_dice_and_badges() -> None:
    buffer = io.StringIO()
    console = Console(width=80, file=buffer, color_system="standard", force_terminal=True)
    out = Output(buffer, io.StringIO(), color=True, console=console)
    run_tokens(["check", "+5", "vs", "15", "adv", "--dice", "17,4"], Options(), out)
    text = buffer.getvalue()
    assert "\x1b[" in text  # styled
    assert "\x1b[2;9m~4~" in text  # the dropped die: dim and struck through
    assert "Success" in text
