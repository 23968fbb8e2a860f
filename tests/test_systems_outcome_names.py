"""One name per outcome (issue 33): a roll's label, its odds, `--summary`, the roll log
and `d20 systems` name an outcome alike, the name `System.outcome_names` gives it for the
verb ("Critical hit" for an attack's critical_success, "Critical save" for a save's). A
label may add the roll's own detail after the name (` — 2 degrees of failure`,
` (2 of 3 succeed)`); a `side_wins` label names its side."""

from __future__ import annotations

import re

import pytest
from cli_helpers import d20

import d20cli
from d20cli.language.vocabulary import SYSTEM_IDS
from d20cli.rules import get_system

#: Every verb example of every system that rolls an outcome.
EXAMPLES = [
    (sid, example)
    for sid in SYSTEM_IDS
    for verb, (_, example) in get_system(sid).verbs.items()
    if verb not in ("roll", "fortune", "scores")
]
EXAMPLES += [
    ("levelup", "roll 1d20+5 vs 15"),
    ("reglamento", "contest hero +3 vs orc +1"),
    ("reglamento", "contest +1 vs +2 vs carol +3"),
    ("mm", "opposed hero +8 vs orc +6"),
    ("mm", "resist +6 vs rank 8"),
    ("mm", "routine +10 vs 20"),
]


def name_in(label: str, outcome: str, names: dict[str, str]) -> bool:
    """Whether `label` is the outcome's name, with a roll's detail after it or not."""
    if outcome == "side_wins":
        return re.fullmatch(r"Side [0-9]+( \(.+\))? wins", label) is not None
    name = names[outcome]
    return label == name or label.startswith((f"{name} — ", f"{name} ("))


@pytest.mark.parametrize(("sid", "text"), EXAMPLES)
def test_a_roll_is_labelled_with_its_outcome_s_name(sid: str, text: str) -> None:
    system = get_system(sid)
    seen = set()
    for seed in range(120):
        result = d20cli.roll(text, system=sid, seed=seed)
        if result.outcome is None:
            continue
        names = system.outcome_names(result.verb)
        assert result.label is not None and name_in(result.label, result.outcome, names), (
            text,
            result.outcome,
            result.label,
        )
        seen.add(result.outcome)
    assert seen


@pytest.mark.parametrize(("sid", "text"), EXAMPLES)
def test_odds_name_each_outcome_as_its_roll_does(sid: str, text: str) -> None:
    chances = d20cli.odds(text, system=sid)
    names = get_system(sid).outcome_names(chances.verb)
    for outcome in chances.outcomes:  # (the odds of side_wins: any side)
        label = chances.labels[outcome]
        assert name_in(label, outcome, names) or label == names[outcome], (text, outcome)


def test_roll_and_odds_name_an_outcome_alike(capsys: pytest.CaptureFixture[str]) -> None:
    def out(*words: str) -> str:
        status, text, err = d20([*words, "--no-log"], capsys)
        assert (status, err) == (0, "")
        return text

    assert "Critical hit" in out("attack", "+7", "vs", "15", "--dice", "20")
    assert "Critical hit" in out("odds", "attack", "+7", "vs", "15")
    assert "Critical success" not in out("odds", "attack", "+7", "vs", "15")
    assert "Critical save" in out("odds", "save", "+1", "vs", "15")
    three = out("odds", "contest", "+3", "vs", "+1", "vs", "+2", "-s", "reglamento")
    assert "Side N" not in three and "One side wins" in three
    two = out("contest", "hero", "+3", "vs", "orc", "+1", "-s", "reglamento", "--dice", "3,10")
    assert two.splitlines()[-1].strip() == "Second side wins (orc)"
    odds_two = out("odds", "contest", "hero", "+3", "vs", "orc", "+1", "-s", "reglamento")
    assert "Second side wins (orc)" in odds_two and "First side wins (hero)" in odds_two
    mm = out("check", "+5", "vs", "20", "-s", "mm", "--dice", "8")
    assert mm.splitlines()[-1].endswith("Failure — 2 degrees of failure")
    summary = out("attack", "+7", "vs", "15", "-n", "40", "--seed", "1", "--summary")
    assert "Miss" in summary and "Failure" not in summary


def test_the_roll_log_names_an_outcome_as_its_roll_did(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("D20_NO_LOG", "0")
    for words in (
        ["attack", "+7", "vs", "15", "--dice", "20"],
        ["attack", "+7", "vs", "15", "--dice", "1"],
        ["save", "+1", "vs", "15", "--dice", "20"],
        ["check", "+5", "vs", "20", "-s", "mm", "--dice", "8"],
        ["luck", "-s", "reglamento", "--dice", "14"],
    ):
        assert d20(words, capsys)[0] == 0
    status, out, _ = d20(["log", "--tsv"], capsys)
    assert status == 0
    labels = [line.split("\t")[5] for line in out.splitlines()]
    assert labels == ["Critical hit", "Fumble", "Critical save", "Failure", "Favorable outcome"]
    status, out, _ = d20(["log", "--tsv", "--outcome", "fumble"], capsys)
    assert [line.split("\t")[5] for line in out.splitlines()] == ["Fumble"]


def test_systems_list_a_verb_s_own_names(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = d20(["systems", "-s", "levelup"], capsys)
    assert status == 0
    assert re.search(r"outcomes: Fumble Miss Hit Critical hit", out)
