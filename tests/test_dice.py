"""Evaluating dice expressions with forced faces, and the `roll` verb."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from d20cli.dice.evaluate import EvalArithmetic, EvalDice, Evaluated, evaluate
from d20cli.dice.roller import ForcedRoller, RandomRoller
from d20cli.dice.tree import LIST_LIMIT, Dice
from d20cli.errors import BudgetError, DiceError, ParseError
from d20cli.language.dice_grammar import parse_expression, parse_roll
from d20cli.rules.roll import resolve_roll


def roll(text: str, faces: Sequence[int]) -> Evaluated:
    roller = ForcedRoller(faces)
    tree = evaluate(parse_expression(text), roller)
    roller.finish()  # every forced face was used
    return tree


def shown(tree: Evaluated) -> list[tuple[int, bool, tuple[str, ...]]]:
    return [(d.face, d.kept, d.flags) for d in tree.dice()]


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("1d20+5", [12], 17),
        ("2d6+3", [1, 6], 10),
        ("4d6kh3", [1, 5, 3, 5], 13),
        ("4d6kh3", [1, 5, 3, 5], 13),
        ("4d6kl1", [5, 2, 3, 2], 2),
        ("4d6dh1", [6, 2, 3, 4], 9),
        ("4d6dl1", [1, 5, 3, 5], 13),
        ("2d6kh5", [3, 4], 7),
        ("d100", [100], 100),
        ("4dF", [-1, 0, 1, 1], 1),
        ("(1+1)d6", [2, 3], 5),
        ("(1d2)d6", [2, 4, 5], 9),
        ("7/2", [], 3),
        ("-7/2", [], -4),
        ("7/-2", [], -4),
        ("1d6/2", [5], 2),
        ("0-1d6/4", [5], -1),
        ("2*3+4*5", [], 26),
        ("2*(3+4)", [], 14),
        ("--3", [], 3),
        ("1d4-1d6", [4, 6], -2),
    ],
)
def test_totals(text: str, faces: list[int], total: int) -> None:
    assert roll(text, faces).total == total


def test_keep_drop_marks_dice() -> None:
    assert shown(roll("4d6kh3", [1, 5, 3, 5])) == [
        (1, False, ()),
        (5, True, ()),
        (3, True, ()),
        (5, True, ()),
    ]
    # ties: kh keeps the earlier die, kl too
    assert [d.kept for d in roll("2d20kh1", [9, 9]).dice()] == [True, False]
    assert [d.kept for d in roll("2d20kl1", [9, 9]).dice()] == [True, False]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("4d6kh2", [True, True, False, False]),
        ("4d6dl1", [True, True, True, False]),
        ("4d6kl2", [True, False, False, True]),
        ("4d6dh1", [True, False, True, True]),
        ("4d6kh3", [True, True, True, False]),
    ],
)
def test_keep_and_drop_ties_keep_the_earlier_die(text: str, kept: list[bool]) -> None:
    faces = [3, 5, 3, 3] if text == "4d6kh3" else [3, 5, 3, 1]
    assert [d.kept for d in roll(text, faces).dice()] == kept


def test_zero_dice() -> None:
    for text in ("0d6", "0d6kh1", "0d6!", "(1-1)d6"):
        tree = roll(text, [])
        assert (tree.total, tree.die_count, tree.dice()) == (0, 0, [])


def test_explode() -> None:
    tree = roll("1d6!", [6, 6, 2])
    assert tree.total == 14
    assert shown(tree) == [(6, True, ("exploded",)), (6, True, ("exploded",)), (2, True, ())]
    assert roll("2d6!>=5", [5, 1, 3]).total == 9
    assert roll("1d6!=1", [1, 1, 4]).total == 6
    assert roll("1d6!<2", [1, 3]).total == 4
    # exploded dice are separate dice for keep/drop
    assert roll("1d6!kh1", [6, 3]).total == 6


def test_compound_explode_is_one_die_for_keep_and_pools() -> None:
    tree = roll("2d6!!kh1", [6, 3, 5])
    assert tree.total == 9
    # one die in what is shown too (issue 17): its face is the sum, its parts kept
    assert shown(tree) == [(9, True, ("compounded",)), (5, False, ())]
    assert [d.parts for d in tree.dice()] == [(6, 3), ()]
    pool = roll("2d6!!=6>=8", [6, 4, 6, 1])
    assert pool.total == 1  # 10 succeeds, 7 does not
    # the success mark goes once on the compounded die that succeeded
    assert [(d.face, d.flags) for d in pool.dice()] == [
        (10, ("compounded", "success")),
        (7, ("compounded",)),
    ]


def test_reroll() -> None:
    tree = roll("4d6r1", [1, 1, 2, 3, 4, 5])
    assert tree.total == 14
    assert shown(tree)[:3] == [(1, False, ("rerolled",)), (1, False, ("rerolled",)), (2, True, ())]
    tree = roll("4d6ro1", [1, 1, 3, 4, 5])
    assert tree.total == 13
    assert shown(tree)[:2] == [(1, False, ("rerolled",)), (1, True, ())]
    assert roll("2d6r<=2", [2, 1, 3, 6]).total == 9
    assert roll("2d6ro<3", [2, 2, 6]).total == 8


def test_min_max() -> None:
    tree = roll("3d6mi2ma5", [1, 6, 3])
    assert tree.total == 10
    assert shown(tree) == [(2, True, ("min",)), (5, True, ("max",)), (3, True, ())]
    # with an explosion, peers clamp at another step: refused (tests/test_peer_readings.py)
    with pytest.raises(ParseError, match="'ma' with an explosion"):
        parse_expression("1d6!ma5")


def test_pools() -> None:
    tree = roll("6d10>=7", [7, 10, 1, 2, 8, 6])
    assert tree.total == 3
    assert [d.flags for d in tree.dice()] == [
        ("success",),
        ("success",),
        (),
        (),
        ("success",),
        (),
    ]
    tree = roll("6d10>=7f1", [7, 10, 1, 2, 8, 1])
    assert tree.total == 1
    assert tree.dice()[2].flags == ("failure",)
    assert roll("3d6<3f<=6", [1, 4, 6]).total == -1
    assert roll("3d6=6", [6, 6, 5]).total == 2
    assert roll("3d6>5kh2", [6, 6, 6]).total == 2


def test_fudge_dice() -> None:
    dice = roll("4dF", [-1, 0, 1, 1]).dice()
    assert [d.sides for d in dice] == [3] * 4
    assert all("fudge" in d.flags for d in dice)
    with pytest.raises(DiceError, match=r"outside -1\.\.1"):
        roll("1dF", [2])


def test_division_by_zero_names_the_term() -> None:
    with pytest.raises(DiceError, match=r"division by zero in '1d6/\(2-2\)'"):
        roll("1d6/(2-2)", [3])


@pytest.mark.parametrize(
    "text",
    ["1d1!", "1d2r<3", "1d6!>=1", "dFr<=1", "1d6r>0", "1d6!!<7", "dF!>=-1", "1d100r>=63r<87"],
)
def test_never_ending_is_an_error_before_rolling(text: str) -> None:
    roller = ForcedRoller([])
    with pytest.raises(DiceError, match="forever") as info:
        evaluate(parse_expression(text), roller)
    assert str(parse_expression(text)) in info.value.message
    assert roller.used == 0


def test_budget_names_the_term() -> None:
    with pytest.raises(BudgetError) as info:
        evaluate(parse_expression("1d20+2000000d6"), RandomRoller(random.Random(1)))
    assert info.value.message.startswith("'2000000d6' needs more than 1,000,000 dice")
    with pytest.raises(BudgetError, match="'3d6'"):
        evaluate(parse_expression("3d6"), ForcedRoller([1, 2, 3], budget=2))


def test_explosion_chain_is_bounded_by_the_budget() -> None:
    with pytest.raises(BudgetError, match="'1d6!'"):
        evaluate(parse_expression("1d6!"), ForcedRoller([6] * 20, budget=10))


def test_bad_sides_and_counts_are_dice_errors() -> None:
    with pytest.raises(DiceError, match="'1d0'"):
        evaluate(Dice(1, 0), ForcedRoller([]))
    with pytest.raises(DiceError, match="negative"):
        roll("(1-3)d6", [])


def test_evaluated_tree_walk() -> None:
    tree = roll("1d8[slashing]+2d6[fire]+3", [8, 1, 2])
    assert isinstance(tree, EvalArithmetic)
    assert tree.total == 14
    assert [t.expr.label for t in tree.terms()] == ["slashing", "fire"]
    assert all(isinstance(t, EvalDice) for t in tree.terms())
    assert tree.labels() == {"slashing": 8, "fire": 3}
    assert [d.label for d in tree.dice()] == ["slashing", "fire", "fire"]
    assert tree.die_count == 3


def test_resolve_roll() -> None:
    request = parse_roll("roll 1d8[slashing] + 2d6[fire] + 3[bonus] # torch")
    result = resolve_roll(request, ForcedRoller([8, 1, 2]), "levelup")
    assert (result.verb, result.system, result.total) == ("roll", "levelup", 14)
    assert result.request == "roll 1d8[slashing] + 2d6[fire] + 3[bonus] # torch"
    assert result.detail == {
        "expression": "1d8[slashing]+2d6[fire]+3[bonus]",
        "labels": {"slashing": 8, "fire": 3, "bonus": 3},
        "comment": "torch",
    }
    assert [d.role for d in result.dice] == ["roll"] * 3
    assert result.tree is not None
    assert result.to_json()["comment"] == "torch"


@pytest.mark.parametrize(
    ("line", "faces", "total", "kept"),
    [
        ("roll 1d20+5 adv", [3, 17], 22, [False, True]),
        ("roll 1d20+5 dis", [3, 17], 8, [True, False]),
        ("roll 1d20+5 adv dis", [3], 8, [True]),
    ],
)
def test_advantage(line: str, faces: list[int], total: int, kept: list[bool]) -> None:
    request = parse_roll(line)
    roller = ForcedRoller(faces)
    result = resolve_roll(request, roller, "levelup")
    roller.finish()
    assert result.total == total
    assert [d.kept for d in result.dice] == kept
    if request.adv:
        assert [d.role for d in result.dice] == ["d20", "d20"]
        assert result.detail["expression"] == ("2d20kh1+5" if request.adv > 0 else "2d20kl1+5")


def test_advantage_keeps_other_dice_roles() -> None:
    result = resolve_roll(parse_roll("roll 1d4+1d20 adv"), ForcedRoller([2, 5, 9]), "levelup")
    assert [d.role for d in result.dice] == ["roll", "d20", "d20"]
    assert result.total == 11


def test_huge_roll_is_summarised() -> None:
    request = parse_roll("roll 1000000d6")
    result = resolve_roll(request, RandomRoller(random.Random(7)), "levelup")
    assert result.dice == ()
    summary = result.dice_summary
    assert summary is not None
    assert (summary.count, summary.kept, summary.sides) == (1_000_000, 1_000_000, (6,))
    assert sum(summary.faces.values()) == 1_000_000
    assert set(summary.faces) == {1, 2, 3, 4, 5, 6}
    assert result.total == sum(face * n for face, n in summary.faces.items())
    data = result.to_json()
    assert data["dice"] == [] and data["dice_summary"]["count"] == 1_000_000


def test_list_limit_boundary() -> None:
    at = resolve_roll(parse_roll(f"roll {LIST_LIMIT}d6kh1"), RandomRoller(random.Random(1)), "x")
    assert len(at.dice) == LIST_LIMIT and at.dice_summary is None
    over = resolve_roll(
        parse_roll(f"roll {LIST_LIMIT + 1}d6kh1"), RandomRoller(random.Random(1)), "x"
    )
    assert over.dice == () and over.dice_summary is not None
    assert over.dice_summary.kept == 1


def test_seeded_rolls_are_reproducible() -> None:
    expr = parse_expression("10d20!kh5+4dF")
    a = evaluate(expr, RandomRoller(random.Random(42)))
    b = evaluate(expr, RandomRoller(random.Random(42)))
    assert a.dice() == b.dice() and a.total == b.total


@pytest.mark.parametrize(
    ("text", "faces", "dice"),
    [
        ("(1d4)d6", [2, 3, 4], [(4, 2), (6, 3), (6, 4)]),
        (
            "((1d2)d4)d6",
            [2, 1, 3, 1, 2, 3, 4],
            [(2, 2), (4, 1), (4, 3), (6, 1), (6, 2), (6, 3), (6, 4)],
        ),
        (
            "(1d4)d6 + (1d2+1)d8",
            [2, 3, 4, 1, 5, 6],
            [(4, 2), (6, 3), (6, 4), (2, 1), (8, 5), (8, 6)],
        ),
    ],
)
def test_a_computed_count_shows_its_own_dice_first(
    text: str, faces: list[int], dice: list[tuple[int, int]]
) -> None:
    """The count's dice are rolled first (`--dice` order), and a result lists them first."""
    assert [(d.sides, d.face) for d in roll(text, faces).dice()] == dice
    result = resolve_roll(parse_roll(f"roll {text}"), ForcedRoller(faces), "levelup")
    assert [(d.sides, d.face) for d in result.dice] == dice


def test_a_computed_count_is_rendered_with_its_dice() -> None:
    from d20cli.present.render import tree_segments

    tree = roll("(1d4)d6 + 2", [2, 3, 4])
    assert "".join(text for text, _ in tree_segments(tree)) == "(1d4 (2))d6 (3 4) + 2"
