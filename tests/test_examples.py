"""examples/: the chat bot answers as it says, with the public API alone."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

import d20cli

BOT = Path(__file__).resolve().parent.parent / "examples" / "chatbot.py"


def chat(text: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, str(BOT)], input=text, capture_output=True, text=True, check=True
    )
    assert proc.stderr == ""
    return proc.stdout.splitlines()


def test_the_bot_rolls_with_its_seed_and_answers_only_commands() -> None:
    replies = chat(
        "ann: hello all\n"
        "ann: !seed 7\n"
        "ann: !check +5 vs 15 adv\n"
        "bo: !4d6kh3\n"
        "bo: !system pd\n"
        "bo: !attempt adept\n"
    )
    rng = random.Random(7)
    check = d20cli.roll("check +5 vs 15 adv", rng=rng)
    four = d20cli.roll("4d6kh3", rng=rng)
    attempt = d20cli.roll("attempt adept", system="pendagger", rng=rng)
    assert replies == [
        "ann seeded the dice with 7",
        "@ann",
        *str(check).splitlines(),
        "@bo",
        *str(four).splitlines(),
        "bo set the system to pendagger",
        "@bo",
        *str(attempt).splitlines(),
    ]


def test_the_bot_gives_odds_systems_and_errors() -> None:
    replies = chat("!odds check +5 vs 15\n!systems\n!roll 2d\n!system gurps\n!seed x\n")
    assert (
        replies[0] == "Critical failure 5.0%, Failure 40.0%, Success 50.0%, Critical success 5.0%"
    )
    assert replies[1:5] == [
        f"{s.id}: {', '.join(v.name for v in s.verbs)}" for s in d20cli.systems()
    ]
    assert replies[5:] == [
        "@you error at column 8: expected a number of sides after 'd', found the end",
        "  roll 2d",
        "         ^",
        "@you error: unknown system 'gurps'; the systems are levelup, reglamento, mm, pendagger",
        "@you a seed is a whole number",
    ]


def test_the_bot_uses_only_the_public_api() -> None:
    tree = ast.parse(BOT.read_text(encoding="utf-8"))
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
        if (getattr(node, "module", None) or alias.name).startswith("d20cli")
    ]
    assert imported == ["d20cli"]
    used = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "d20cli"
    }
    assert used and used <= set(d20cli.__all__)
