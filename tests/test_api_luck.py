"""`d20cli.luck` (issue 46, the luck ledger through the API): results of the library or
rows of `d20 log --export json` priced by their exact odds, the same report as
`d20 log --luck --json` for the same rolls."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import d20, log

import d20cli

ROLLS = [
    ("attack +7 vs AC 15 dmg 1d8+4", 4),
    ("check +3 vs 12 adv", 9),
    ("check +0 vs 11", 2),
    ("save +6 vs 18", 5),
]


def _without_places(data: Any) -> Any:
    """A report's JSON without what only the log knows of a roll: its id and time."""
    if isinstance(data, dict):
        return {
            k: _without_places(v)
            for k, v in data.items()
            if k not in ("id", "at", "from", "to", "from_id")
        }
    if isinstance(data, list):
        return [_without_places(v) for v in data]
    return data


@pytest.fixture
def logged(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The ROLLS rolled with their seeds (three times each) and logged, and one with
    forced dice (left out)."""
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    for request, seed in ROLLS:
        status, _, err = d20([*request.split(), "--seed", str(seed), "-n", "3", "-q"], capsys)
        assert status == 0, err
    status, _, err = d20(["check", "+0", "vs", "11", "--dice", "20", "-q"], capsys)
    assert status == 0, err


def _cli_luck() -> Any:
    result = log("--luck", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_an_export_file_gives_the_report_of_log_luck(logged: None, tmp_path: Path) -> None:
    export = log("--export", "json")
    assert export.exit_code == 0, export.output
    path = tmp_path / "rolls.json"
    path.write_text(export.output, encoding="utf-8")
    report = d20cli.luck(path)
    assert isinstance(report, d20cli.Ledger)
    assert report.to_json() == _cli_luck()
    assert report.forced == 1 and len(report.priced) == 12
    assert d20cli.luck(str(path)).to_json() == report.to_json()
    rows = json.loads(export.output)
    assert d20cli.luck(sorted(rows, key=lambda r: (r["at"], r["id"]))).priced == report.priced


def test_results_of_the_library_give_the_report_of_log_luck(logged: None) -> None:
    """The same requests rolled by the library with the same seeds: the same report, but
    for what only the log knows (ids and times)."""
    results = [r for request, seed in ROLLS for r in d20cli.roll_all(request, seed=seed, repeat=3)]
    report = d20cli.luck(results)
    assert _without_places(report.to_json()) == _without_places(
        {**_cli_luck(), "forced_left_out": 0}
    )
    whole = report.whole()
    assert whole.successes() is not None and whole.damage() is not None
    assert [g.name for g in report.by("verb")] == ["attack", "check", "save"]
    least = whole.least_likely()
    assert least is not None and least.chance == min(r.chance for r in report.priced if r.chance)


def test_the_report_is_immutable() -> None:
    report = d20cli.luck([d20cli.roll("check +5 vs 15", dice=[d]) for d in (20, 1)])
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.forced = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.priced[0].chance = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        report.priced[0].tiers["success"] = 0  # type: ignore[index]
    assert isinstance(report.priced, tuple) and isinstance(report.whole().rolls, tuple)
    assert report.whole().streaks() == report.whole().streaks()


def test_a_result_priced_as_rolled_with_house_rules_and_a_character() -> None:
    aria = d20cli.Character("aria", "levelup", {"stealth": "+7"})
    rolled = d20cli.roll("check stealth vs 15", character=aria, dice=[8])
    report = d20cli.luck([rolled])
    (priced,) = report.priced
    assert (priced.character, priced.outcome, priced.success) == ("aria", "success", True)
    assert priced.success_chance == d20cli.odds("check +7 vs 15").success


def test_rows_that_are_not_as_rolled_are_left_out_and_said() -> None:
    good = d20cli.roll("check +0 vs 11", dice=[15]).to_json()
    row = {
        "id": 1,
        "at": "2026-05-01T18:00:00.000+00:00",
        "character": None,
        "system": "levelup",
        "verb": "check",
        "request": "check +0 vs 11",
        "dice": good["dice"],
        "total": 15,
        "outcome": "success",
        "source": "random",
    }
    wrong_total = {**row, "id": 2, "total": 9}
    not_a_row = {"request": 3}
    report = d20cli.luck([row, wrong_total, not_a_row, {**row, "id": 4, "source": "dice"}])
    assert len(report.priced) == 1 and report.forced == 1
    assert dict(report.left_out) == {"not read as rolled": 2}


def test_bad_arguments_and_files(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        d20cli.luck([3])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        d20cli.luck(d20cli.roll("d20"))  # type: ignore[arg-type]
    with pytest.raises(d20cli.StateError, match="cannot be read"):
        d20cli.luck(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}', encoding="utf-8")
    with pytest.raises(d20cli.ParseError, match="not a roll log export"):
        d20cli.luck(bad)
