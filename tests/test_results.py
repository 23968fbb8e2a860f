"""Results write their own JSON text (d20cli.results): it must be exactly what the standard
encoder gives for the same object (same keys, same order, same separators, same escapes),
for every verb of every system and for any text a user can put in a label or comment."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from d20cli.__main__ import main
from d20cli.app.options import Options
from d20cli.app.run import results_of
from d20cli.results import Damage, DiceSummary, Die, Result, Score, json_encoder

REQUESTS = {
    "levelup": [
        "check +5 vs 15 adv",
        "check stealth +5 vs 15 adv expertise=d6 expertise=d8",
        "attack +7 vs 15 dmg 1d8+4",
        "attack +7 vs 15 dmg 2d6+1d4+3",
        "group +3, +4, -1 vs 12",
        "save -1 vs 12 dis",
        "roll 4d6kh3",
        'roll 1d20+5 [atk] + 2d6 [dmg] # a "quoted" comment, é',
        "roll 2000d6",
        "roll 3x 1d10!",
        "roll 10d6mi2ma5r1",
    ],
    "mm": [
        "check +8 vs 20",
        "attack +10 vs 18",
        "opposed +5 vs +3",
        "opposed a +1 vs b +1 vs c +1 vs d +1",
        "compare 8 vs 8",
        "percent 45",
    ],
    "reglamento": [
        "check +3 vs 12",
        "attack +5 vs 14 dmg 1d8+2",
        "luck",
        "contest +5 vs +3",
        "contest +0 vs +0 adv vs +0 dis",
    ],
    "pendagger": [
        "attempt adept",
        "attempt 14",
        "attempt trained +1",
        "scores 4",
        "luck",
        "attempt adept fortune reliable",
        "luck fortune adv",
    ],
}
CASES = [(system, text) for system, texts in REQUESTS.items() for text in texts]
RESULT_KEYS = {f.name for f in fields(Result)}


def canonical(text: str) -> str:
    """What the standard encoder writes for the object the text holds."""
    return json_encoder().encode(json.loads(text))


@pytest.mark.parametrize(("system", "text"), CASES)
def test_json_text_is_the_standard_encoding(system: str, text: str) -> None:
    for seed in range(25):
        for result in results_of(text, Options(system=system, seed=seed)):
            line = result.json_text()
            assert line == canonical(line)
            data = result.to_json()
            assert list(data)[:12] == [
                "request", "system", "verb", "dice", "natural", "modifier", "total",
                "target", "outcome", "label", "success", "degree",
            ]  # fmt: skip
            assert data["total"] == result.total and data["outcome"] == result.outcome
            assert not set(result.detail) & RESULT_KEYS  # extras never shadow a field


@pytest.mark.parametrize(("system", "text"), CASES)
def test_a_result_reads_back_from_its_json_whole(system: str, text: str) -> None:
    """One codec: `Result.from_json` rebuilds what `json_text` wrote, every field and part
    (dice, damage, members, sides, winner, scores, a dice summary, detail, notes)."""
    for seed in range(5):
        for result in results_of(text, Options(system=system, seed=seed)):
            back = Result.from_json(result.to_json())
            assert back.json_text() == result.json_text()
            assert back == Result.from_json(json.loads(back.json_text()))
            if result.tree is None:
                assert back == result


texts = st.text()
maybe_text = st.none() | texts
dice = st.builds(
    Die,
    sides=st.integers(1, 1000),
    face=st.integers(1, 1000),
    kept=st.booleans(),
    role=texts,
    label=maybe_text,
    flags=st.lists(texts, max_size=3).map(tuple),
    by=maybe_text,
)


@given(dice)
def test_any_die(die: Die) -> None:
    line = die.json_text()
    assert line == canonical(line)
    data = die.to_json()
    assert (data["sides"], data["face"], data["kept"], data["role"]) == (
        die.sides,
        die.face,
        die.kept,
        die.role,
    )
    assert data.get("label") == die.label and data.get("by") == die.by
    assert tuple(data.get("flags", ())) == die.flags


@given(
    request=texts,
    verb=texts,
    dice_=st.lists(dice, max_size=3).map(tuple),
    total=st.none() | st.integers(-(10**18), 10**18),
    success=st.none() | st.booleans(),
    label=maybe_text,
    detail=st.dictionaries(
        texts.filter(lambda k: k not in RESULT_KEYS),
        st.none() | st.booleans() | st.integers() | texts | st.lists(st.integers()),
        max_size=3,
    ),
    notes=st.lists(texts, max_size=2).map(tuple),
    damage=st.none()
    | st.builds(Damage, st.integers(), st.lists(dice).map(tuple), st.booleans(), texts),
)
def test_any_result(
    request: str,
    verb: str,
    dice_: tuple[Die, ...],
    total: int | None,
    success: bool | None,
    label: str | None,
    detail: dict[str, object],
    notes: tuple[str, ...],
    damage: Damage | None,
) -> None:
    result = Result(
        request,
        "levelup",
        verb,
        dice_,
        total=total,
        success=success,
        label=label,
        detail=detail,
        notes=notes,
        damage=damage,
    )
    line = result.json_text()
    assert line == canonical(line)
    data = result.to_json()
    assert (data["request"], data["verb"], data["total"], data["label"]) == (
        request,
        verb,
        total,
        label,
    )
    assert data["success"] is success
    assert len(data["dice"]) == len(dice_)
    assert {k: data[k] for k in detail} == detail
    assert tuple(data.get("notes", ())) == notes
    assert ("damage" in data) == (damage is not None)


def test_summary_and_scores() -> None:
    summary = DiceSummary(count=5, kept=3, faces={6: 2, 1: 3}, sides=(6,))
    score = Score("strength", (Die(6, 4, role="score", by="player 1"),), 14, 1, "good")
    for part in (summary, score):
        line = part.json_text()
        assert line == canonical(line)
    assert summary.to_json() == {"count": 5, "kept": 3, "sides": [6], "faces": {"1": 3, "6": 2}}
    assert score.to_json()["dice"][0]["by"] == "player 1"


@pytest.mark.parametrize("winner", [None, 1, 3])
def test_winner_goes_with_sides(winner: int | None) -> None:
    side = Result("contest +1 vs +2 vs +3", "reglamento", "check", total=12)
    result = Result(
        "contest +1 vs +2 vs +3", "reglamento", "contest", sides=(side,) * 3, winner=winner
    )
    line = result.json_text()
    assert line == canonical(line)
    data = result.to_json()
    assert data["winner"] == winner  # null on a tie: there, but null
    keys = list(data)
    assert keys.index("winner") == keys.index("sides") + 1
    assert Result.from_json(data) == result
    assert "winner" not in Result("check +1", "levelup", "check").to_json()


def test_equal_dice_are_one_object_and_a_long_label_is_not_kept() -> None:
    """A roll's dice come from `shared_die` (made and written in JSON once); a die whose
    label is longer than SHARED_LABEL is made afresh, so the shared ones stay small."""
    import random

    from d20cli.dice.evaluate import evaluate
    from d20cli.dice.roller import RandomRoller
    from d20cli.language.dice_grammar import parse_expression
    from d20cli.results import SHARED_LABEL, shared_die

    def dice(text: str) -> list[Die]:
        tree = evaluate(parse_expression(text), RandomRoller(random.Random(3)))
        return [d for t in tree.terms() for d in t.term_dice()]

    short, long = "fire", "x" * (SHARED_LABEL + 1)
    first, again = dice(f"4d6kh3[{short}]"), dice(f"4d6kh3[{short}]")
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert first[0] is shared_die(6, first[0].face, first[0].kept, "roll", short, ())
    assert [d.kept for d in first].count(False) == 1
    first, again = dice(f"4d6kh3[{long}]"), dice(f"4d6kh3[{long}]")
    assert first == again and not any(a is b for a, b in zip(first, again, strict=True))
    assert [d.json_text() for d in first] == [d.json_text() for d in again]
    assert first[0].label == long


def test_json_matches_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    """The JSON contract (docs/scripting.md), through the command line."""
    status = main(["check", "+5", "vs", "15", "adv", "--json", "--dice", "17,4", "-s", "levelup"])
    assert status == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj == {
        "request": "check +5 vs 15 adv",
        "system": "levelup",
        "verb": "check",
        "dice": [
            {"sides": 20, "face": 17, "kept": True, "role": "d20"},
            {"sides": 20, "face": 4, "kept": False, "role": "d20"},
        ],
        "natural": 17,
        "modifier": 5,
        "total": 22,
        "target": 15,
        "outcome": "success",
        "label": "Success",
        "success": True,
        "degree": None,
    }


def test_the_declared_keys_are_the_ones_written_in_order() -> None:
    """RESULT_JSON is the writer's and the reader's one list: a result with every key set
    writes them in its order, and reads back whole."""
    from d20cli.results import DETAIL, RESULT_JSON

    die = Die(20, 17)
    side = Result("check +1", "mm", "check")
    full = Result(
        "r",
        "s",
        "v",
        (die,),
        1,
        2,
        3,
        4,
        "success",
        "Success",
        True,
        1,
        "stealth",
        Damage(3, (die,), False, "1d6"),
        (side,),
        (side,),
        None,
        (Score("1", (die,), 10, 0, "B"),),
        DiceSummary(1, 1, {17: 1}, (20,)),
        "aria",
        ("aria",),
        {"x": 1},
        None,
        ("a note",),
    )
    written = list(json.loads(full.json_text()))
    assert written == [k if kind != DETAIL else "x" for k, kind, _ in RESULT_JSON]
    assert Result.from_json(full.to_json()).json_text() == full.json_text()


def test_json_is_imported_at_the_first_json_a_result_writes_or_reads() -> None:
    """`json` costs 1.7 ms of a start: a result rolled and shown (the Python API, as the
    command line without --json) imports none; its JSON line and `to_json()` import it
    then, and are the standard encoding."""
    probe = (
        "import sys, d20cli\n"
        "r = d20cli.roll('attack +20 vs 5 dmg 1d8[feu é]+2d6[cold]', seed=3)\n"
        "shown = str(r)\n"
        "print('json' in sys.modules)\n"
        "line = r.json_text()\n"
        "print('json' in sys.modules)\n"
        "import json\n"
        "print(json.loads(line) == r.to_json(), json.dumps(r.to_json()) == line)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    ).stdout.split("\n")
    assert out[:3] == ["False", "True", "True True"]
