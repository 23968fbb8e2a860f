"""The breakdown of a labelled roll or damage adds up to its total (issue 42, item 9): each
label's subtotal, then the rest (a flat number, an unlabelled die) as `untyped`; where a
labelled term's share of the total cannot be told, no untyped part."""

from __future__ import annotations

import json

import pytest
from cli_helpers import d20

import d20cli


@pytest.mark.parametrize(
    ("expression", "faces", "breakdown"),
    [
        ("2d6[slashing]+3+1d6[fire]", "1,2,3", "(slashing 3, fire 3, untyped 3)"),
        ("2d6[fire]-1", "1,2", "(fire 3, untyped -1)"),
        ("1d6[fire]+1d4", "5,2", "(fire 5, untyped 2)"),
        ("1d6[fire]+1d6[fire]", "3,4", "(fire 7)"),
        ("1d8[slashing]+3[slashing]", "4", "(slashing 7)"),
        ("1d20+3[dex]+2[prof]", "12", "(dex 3, prof 2)"),
        ("2*1d6[fire]", "3", "(fire 3)"),
        ("10-1d6[fire]", "3", "(fire 3)"),
        ("max(1d6[fire],2)+1", "3", "(fire 3)"),
    ],
)
def test_a_roll_breakdown_adds_up_or_gives_no_rest(
    expression: str, faces: str, breakdown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = d20(["roll", expression, "--dice", faces], capsys)
    assert status == 0
    assert out.splitlines()[1].endswith(f"  {breakdown}")


def test_a_flat_number_beside_labelled_dice_is_untyped_and_adds_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = d20(["roll", "2d6[slashing]+3+1d6[fire]", "--dice", "1,2,3", "--json"], capsys)
    data = json.loads(out)
    assert data["total"] == 9
    assert data["labels"] == {"slashing": 3, "fire": 3}
    assert data["untyped"] == 3
    assert sum(data["labels"].values()) + data["untyped"] == data["total"]


def test_no_untyped_field_when_the_labels_make_the_total(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = d20(["roll", "1d6[fire]+1d4[cold]", "--dice", "3,2", "--json"], capsys)
    assert "untyped" not in json.loads(out)
    _, out, _ = d20(["roll", "2*1d6[fire]", "--dice", "3", "--json"], capsys)
    assert "untyped" not in json.loads(out)


def test_attack_damage_says_its_untyped_part(capsys: pytest.CaptureFixture[str]) -> None:
    line = ["attack", "+5", "vs", "10", "dmg", "1d8[slashing]+3+1d6[fire]", "--dice", "15,4,2"]
    _, out, _ = d20(line, capsys)
    assert "= 9  (slashing 4, fire 2, untyped 3)" in out
    _, out, _ = d20([*line, "--json"], capsys)
    damage = json.loads(out)["damage"]
    assert (damage["labels"], damage["untyped"]) == ({"slashing": 4, "fire": 2}, 3)


def test_a_critical_hit_keeps_the_flat_part_untyped(capsys: pytest.CaptureFixture[str]) -> None:
    line = ["attack", "+5", "vs", "10", "dmg", "1d8[slashing]+3", "--dice", "20,4,2"]
    _, out, _ = d20(line, capsys)
    assert "= 9  (slashing 6, untyped 3)  critical: dice doubled" in out


def test_the_api_result_carries_the_untyped_part() -> None:
    result = d20cli.roll("2d6[slashing]+3+1d6[fire]", dice=[1, 2, 3])
    assert result.detail["untyped"] == 3
    hit = d20cli.roll("attack +5 vs 10 dmg 1d8[slashing]+3", dice=[15, 4])
    assert hit.damage is not None
    assert (hit.damage.labels, hit.damage.untyped) == ({"slashing": 4}, 3)
    assert d20cli.Damage.from_json(json.loads(hit.damage.json_text())) == hit.damage
