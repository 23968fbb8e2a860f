"""The modifiers of a dice term (d20cli.dice.modifiers): each one's steps live on its
Rule class, and rolling, exact odds, bounds, the budget and the grammar read them there."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import ClassVar

import pytest

import d20cli
from d20cli.dice.distribution import distribution
from d20cli.dice.evaluate import evaluate, never_ends
from d20cli.dice.modifiers import (
    MODIFIERS,
    UNIQUE,
    Compare,
    Explode,
    Modifier,
    Rule,
    rule_classes,
)
from d20cli.dice.roller import ForcedRoller
from d20cli.dice.tree import Dice
from d20cli.errors import BudgetError, ParseError
from d20cli.language.dice_grammar import parse_expression
from tests.cli_helpers import d20

SPELLINGS = [
    (cls, word, values)
    for cls in rule_classes()
    if issubclass(cls, Explode)
    for word, values in cls.spellings.items()
]


def test_every_set_modifier_is_a_rule_of_its_term() -> None:
    """`Dice.rules` holds a rule for every modifier set, `u`, `mi`/`ma` and a sort too
    (their fields hold a plain value: its rule is `Rule.of` it), in the order of
    MODIFIERS: the steps of rolling and exact odds loop over them."""
    e = parse_expression("4d6r1mi2kh3>=4ucs6sa")
    assert isinstance(e, Dice)
    assert [type(r).__name__ for r in e.rules] == [
        *("Reroll", "Minimum", "Keep", "Pool", "Unique", "Crit", "Sort")
    ]
    assert UNIQUE in e.rules and (e.minimum, e.unique, e.sort) == (2, True, "a")
    fields = [m.field for m in MODIFIERS if m.rule_of(getattr(e, m.field)) is not None]
    assert fields == ["reroll", "minimum", "keep", "pool", "unique", "crit", "sort"]
    assert Dice(4, 6).rules == ()


EVERY_SPELLING = [
    (row, cls, word) for row in MODIFIERS for cls in row.variants() for word in cls.spellings
]


def _written(cls: type[Rule], word: str) -> str:
    """A term with `word`, as its class reads it (`Rule.reads`)."""
    after = {"point": "2", "number": "3", "count": "1", "comparison": ">=5", "": ""}
    if cls.reads == "target":
        return f"4d6>=5{word}1"
    return f"4d6{word}{after[cls.reads]}"


@pytest.mark.filterwarnings("ignore::d20cli.errors.NotationWarning")  # `k1`, `cs`: peers differ
@pytest.mark.parametrize(
    ("row", "cls", "word"), EVERY_SPELLING, ids=[f"{c.__name__}-{w}" for _, c, w in EVERY_SPELLING]
)
def test_the_grammar_reads_every_spelling_from_its_class(
    row: Modifier, cls: type[Rule], word: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every spelling a modifier's class declares (`Rule.spellings`) parses, in any case,
    to a rule of that class in its row's field, whose text form reads back to it; the
    command line and the Python API roll it."""
    text = _written(cls, word)
    for typed in (text, text.upper()):
        e = parse_expression(typed)
        assert isinstance(e, Dice)
        rule = row.rule_of(getattr(e, row.field))
        assert type(rule) is cls, typed
        assert parse_expression(str(e)) == e
    status, out, err = d20(["roll", text, "--seed", "3", "--json"], capsys)
    assert status == 0 and "error" not in err  # (a warning where peers read it otherwise)
    assert json.loads(out)["expression"] == str(parse_expression(text))
    assert d20cli.roll(f"roll {text}", seed=3).total == json.loads(out)["total"]


def test_a_kind_written_twice_says_so_or_joins(capsys: pytest.CaptureFixture[str]) -> None:
    """A modifier written twice on one term is refused by its row's name, unless its
    class joins the two (`Rule.joined`: chained rerolls, `cs` with `cf`)."""
    assert str(parse_expression("2d6r1r2")) == "2d6r1r2"
    assert str(parse_expression("1d20cf1cs>19")) == "1d20cs>19cf1"
    for text, said in (
        ("4d6mi2mi3", "'mi'"),
        ("4d6sdsa", "a sort"),
        ("1d20cf1cf2", "a 'cf' marker"),
    ):
        with pytest.raises(ParseError, match=f"already have {said}"):
            parse_expression(text)
    status, _, err = d20(["roll", "2d6r1ro2"], capsys)
    assert status == 2 and "cannot mix 'r' and 'ro'" in err


@pytest.mark.parametrize(("cls", "word", "values"), SPELLINGS)
def test_the_grammar_reads_every_explosion_spelling_from_its_class(
    cls: type[Explode], word: str, values: dict[str, bool], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each spelling an explosion class states parses to that class with those fields,
    any case, with or without a compare point, and is written back the same way: on the
    command line and through the Python API."""
    for text in (f"2d6{word}", f"2d6{word.upper()}>=5"):
        e = parse_expression(text)
        assert isinstance(e, Dice) and type(e.explode) is cls
        assert {name: getattr(e.explode, name) for name in values} == values
        assert str(e) == text.lower()
    status, out, err = d20(["roll", f"1d6{word}", "--dice", "6,2", "--json"], capsys)
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert (data["expression"], data["total"]) == (f"1d6{word}", 8 if "p" not in word else 7)
    assert d20cli.roll(f"roll 1d6{word}", dice=[3]).total == 3


def test_a_variant_is_one_class() -> None:
    """An explosion that chains at most twice, declared as one class (here inside the
    test, so no grammar reads it): rolling, its stop check, its bounds, the budget and its
    exact odds all follow from `chain_limit`."""

    class ExplodeTwice(Explode):
        __slots__ = ()
        chain_limit: ClassVar[int | None] = 2
        spellings: ClassVar[dict[str, dict[str, bool]]] = {
            "!2": {"compound": False, "penetrate": False}
        }

    e = Dice(1, 6, explode=ExplodeTwice())
    assert str(e) == "1d6!2"
    assert evaluate(e, ForcedRoller([6, 6, 6])).total == 18  # the third die stops the chain
    assert never_ends(Dice(1, 1, explode=ExplodeTwice())) is None  # `1d1!2` ends
    assert e.bounds() == (1.0, 18.0)
    d = distribution(e)
    assert d.truncated == 0 and d.max == 18
    assert d.probability(18) == Fraction(1, 216) and d.probability(3) == Fraction(1, 6)
    assert d.probability(9) == Fraction(1, 36)  # 6 then 3
    assert sum(d.fractions().values()) == 1
    with pytest.raises(BudgetError):  # three dice a die at most: charged before rolling
        evaluate(Dice(400, 6, explode=ExplodeTwice()), ForcedRoller([1] * 400, budget=1000))


def test_a_rule_step_is_a_no_op_unless_its_class_overrides_it() -> None:
    class Marker(Rule):
        __slots__ = ()

    rule = Marker()
    assert not rule.one_by_one and not rule.finishes and rule.rolls_again(Dice(1, 6)) is None
    assert rule.link({1: 1, 2: 1}) == {1: 1, 2: 1}
    assert rule.select([3, 1]) is None and rule.tally([[0]], [3], [True], None, 1) is None


@pytest.mark.parametrize(
    "text",
    ["5d8!", "3d6!>=5", "2d10!<3", "4d6!!=6", "3d6!<>1", "2dF!", "1d%!>95", "3d{1,2,2}!>=2"],
)
def test_an_explosion_expects_the_dice_its_faces_give(text: str) -> None:
    """The dice an explosion rolls on average (the budget's check before rolling) are
    counted from its faces: the ones its point matches, among every face of one die."""
    e = parse_expression(text)
    assert isinstance(e, Dice) and e.explode is not None
    point = e.explode_point()
    assert point == (e.explode.point or Compare("=", e.hi))
    faces = e.face_values()
    exploding = sum(1 for v in faces if point.matches(v))
    expected = e.explode.expected_dice(e, 7)
    assert (expected.num, expected.den) == (7 * len(faces), len(faces) - exploding)


def test_an_explosion_past_the_budget_is_refused_before_rolling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = d20(["--no-log", "roll", "600000d2!"], capsys)
    assert status == 2 and out == ""
    assert err.startswith("d20: error: '600000d2!' needs more than 1,000,000 dice")
    assert "with its explosions it rolls about 1,200,000 on average" in err
    status, out, _ = d20(
        ["--no-log", "--json", "roll", "3d{1,2,2}!>=2", "--dice", "1,1,2,1"], capsys
    )
    assert status == 0 and json.loads(out)["total"] == 5
