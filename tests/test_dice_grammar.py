"""The dice-notation grammar: each notation feature, and each error with its column."""

from __future__ import annotations

import pyparsing as pp
import pytest

from d20cli.dice.tree import (
    Arithmetic,
    Compare,
    Dice,
    Explode,
    Group,
    Keep,
    Neg,
    Number,
    Pool,
    Reroll,
)
from d20cli.errors import ParseError
from d20cli.language.dice_grammar import (
    MAX_REQUEST,
    expression,
    parse_expression,
    parse_roll,
    signed_expression,
)


def P(text: str) -> object:
    return parse_expression(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4d6", Dice(4, 6)),
        ("d20", Dice(1, 20)),
        ("D20", Dice(1, 20)),
        ("dF.2", Dice(1, "F")),
        ("dF.1", Dice(1, (-1, 0, 0, 0, 0, 1))),
        ("4dF", Dice(4, "F")),
        ("4df", Dice(4, "F")),
        ("0d6", Dice(0, 6)),
        ("(1+1)d6", Dice(Arithmetic(Number(1), (("+", Number(1)),)), 6)),
        ("4d6kh3", Dice(4, 6, keep=Keep("kh", 3))),
        ("4d6k", Dice(4, 6, keep=Keep("kh", 1))),
        ("2d6r!=3", Dice(2, 6, reroll=Reroll(Compare("!=", 3)))),
        ("2d6r<>3", Dice(2, 6, reroll=Reroll(Compare("!=", 3)))),
        ("4d6<>5", Dice(4, 6, pool=Pool(Compare("!=", 5)))),
        ("1d6!<>5", Dice(1, 6, explode=Explode(Compare("!=", 5)))),
        ("1d6!!<>5", Dice(1, 6, explode=Explode(Compare("!=", 5), compound=True))),
        ("+5", Number(5)),
        ("(3d6,)kh1", Group((Dice(3, 6),), keep=Keep("kh", 1))),
        ("(1,2)", Group((Number(1), Number(2)))),
        ("7%3", Arithmetic(Number(7), (("%", Number(3)),))),
        ("4D6KL1", Dice(4, 6, keep=Keep("kl", 1))),
        ("4d6dh1", Dice(4, 6, keep=Keep("dh", 1))),
        ("4d6dl1", Dice(4, 6, keep=Keep("dl", 1))),
        ("1d6!", Dice(1, 6, explode=Explode())),
        ("1d6!!", Dice(1, 6, explode=Explode(compound=True))),
        ("1d6!>=5", Dice(1, 6, explode=Explode(Compare(">=", 5)))),
        ("1d6!=1", Dice(1, 6, explode=Explode(Compare("=", 1)))),
        ("1d6!<2", Dice(1, 6, explode=Explode(Compare("<", 2)))),
        ("1d6!>5", Dice(1, 6, explode=Explode(Compare(">", 5)))),
        ("1d6!!<=2", Dice(1, 6, explode=Explode(Compare("<=", 2), compound=True))),
        ("4d6r1", Dice(4, 6, reroll=Reroll(Compare("=", 1)))),
        ("4d6r<=2", Dice(4, 6, reroll=Reroll(Compare("<=", 2)))),
        ("4d6ro<3", Dice(4, 6, reroll=Reroll(Compare("<", 3), once=True))),
        ("4d6mi2", Dice(4, 6, minimum=2)),
        ("4d6ma5", Dice(4, 6, maximum=5)),
        ("6d10>=7", Dice(6, 10, pool=Pool(Compare(">=", 7)))),
        ("6d10=10", Dice(6, 10, pool=Pool(Compare("=", 10)))),
        ("6d10>=7f1", Dice(6, 10, pool=Pool(Compare(">=", 7), Compare("=", 1)))),
        ("6d10>7f<=2", Dice(6, 10, pool=Pool(Compare(">", 7), Compare("<=", 2)))),
        ("1d8[slashing]", Dice(1, 8, label="slashing")),
        ("3[bonus]", Number(3, "bonus")),
        ("-1d4", Neg(Dice(1, 4))),
        ("--1", Neg(Neg(Number(1)))),
        (
            "4d6kh3r1ma5",  # modifiers in any order
            Dice(4, 6, reroll=Reroll(Compare("=", 1)), maximum=5, keep=Keep("kh", 3)),
        ),
    ],
)
def test_notation(text: str, expected: object) -> None:
    assert P(text) == expected


def test_precedence_and_associativity() -> None:
    assert P("1+2*3") == Arithmetic(Number(1), (("+", Arithmetic(Number(2), (("*", Number(3)),))),))
    assert P("8-2-1") == Arithmetic(Number(8), (("-", Number(2)), ("-", Number(1))))
    assert P("(1 + 2) * 3") == Arithmetic(
        Arithmetic(Number(1), (("+", Number(2)),)), (("*", Number(3)),)
    )
    assert P("2*-3") == Arithmetic(Number(2), (("*", Neg(Number(3))),))


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("1d8[slashing] + 2d6[fire] + 3", "1d8[slashing]+2d6[fire]+3"),
        ("d20", "1d20"),
        ("4d6KH3", "4d6kh3"),
        ("1-(2-3)", "1-(2-3)"),
        ("(1+2)+3", "(1+2)+3"),
        ("((1d6))", "1d6"),
        ("-(1+2)", "-(1+2)"),
        ("4d6kh3r1", "4d6r1kh3"),
        ("1d6!=6", "1d6!=6"),
        ("4d6r=1", "4d6r1"),
    ],
)
def test_normalised_text(text: str, normal: str) -> None:
    e = parse_expression(text)
    assert str(e) == normal
    assert parse_expression(str(e)) == e


def test_roll_line() -> None:
    r = parse_roll("roll 6x 4d6kh3 # stats")
    assert (r.repeat, r.expr, r.comment, r.adv) == (6, Dice(4, 6, keep=Keep("kh", 3)), "stats", 0)
    assert r.text == "roll 6x 4d6kh3 # stats"
    assert r.verb == "roll"
    assert parse_roll("ROLL 2X1d6").repeat == 2
    assert parse_roll("roll 1d20+5 adv").adv == 1
    assert parse_roll("roll 1d20+5 dis").adv == -1
    assert parse_roll("roll 1d20+5 adv dis").adv == 0
    assert parse_roll("roll 1d20 adv adv").adv == 1
    assert parse_roll("roll 1d20[attack]+5 advantage # sneak").comment == "sneak"
    assert parse_roll("roll 1d6 #").comment is None
    assert parse_roll("roll 1d6[#1]").expr == Dice(1, 6, label="#1")


def test_embedding_elements() -> None:
    (e,) = expression.parse_string("1d8+4", parse_all=True)
    assert e == Arithmetic(Dice(1, 8), (("+", Number(4)),))
    (e,) = signed_expression.parse_string("+5+1d4", parse_all=True)
    assert e == Arithmetic(Number(5), (("+", Dice(1, 4)),))
    (e,) = signed_expression.parse_string("-1", parse_all=True)
    assert e == Neg(Number(1))
    # Words after an expression stay for the embedding grammar; `dis`/`dmg` are no dice.
    words = pp.ZeroOrMore(pp.Word(pp.alphas))
    toks = (signed_expression + words).parse_string("+5 dis dmg", parse_all=True)
    assert list(toks) == [Number(5), "dis", "dmg"]
    toks = (pp.Opt(signed_expression) + words).parse_string("dmg", parse_all=True)
    assert list(toks) == ["dmg"]


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("2d", 3, "expected a number of sides after 'd'"),
        ("1d20+", 6, "expected a number, dice or '('"),
        ("d0", 2, "a die needs 1 to 1,000,000 sides, not 0"),
        ("d1000001", 2, "a die needs 1 to 1,000,000 sides"),
        ("(1d6", 5, "unbalanced parenthesis"),
        ("1d6)", 4, "unbalanced parenthesis"),
        ("1d6kx2", 4, "unknown modifier 'kx'"),
        ("1d6r", 5, "after 'r'"),
        ("6d10f1", 5, "'f' (failures) needs a success target first"),
        ("1d6kh1kh2", 7, "already have keep/drop"),
        ("1.5", 2, "integers only"),
        ("4 d6", 3, "unexpected 'd6'"),
        ("", 1, "expected a number, dice or '('"),
        ("1d6[fire", 9, "']'"),
        ("1d6mi7", 1, "outside the die's faces"),
        ("1d6mi5ma2", 1, "'mi' is above 'ma'"),
        ("1" * 13, 1, "number too large"),
    ],
)
def test_expression_errors(text: str, column: int, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_expression(text)
    assert message in info.value.message
    assert info.value.column == column
    assert info.value.text == text


@pytest.mark.parametrize(
    ("line", "column", "message"),
    [
        ("roll 2d", 8, "expected a number of sides after 'd'"),
        ("roll 1d20+5 foo", 13, "unexpected 'foo'"),
        ("roll 2d20 adv", 11, "exactly one d20"),
        ("roll 1d6+2 dis", 12, "needs a d20"),
        ("roll 1d20! adv", 12, "cannot combine"),
        ("roll 0x 1d6", 6, "1 to 1,000"),
        ("roll", 5, "expected"),
    ],
)
def test_roll_errors(line: str, column: int, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_roll(line)
    assert message in info.value.message
    assert info.value.column == column
    assert info.value.text == line


def test_limits_are_parse_errors_not_recursion_errors() -> None:
    deep = "(" * 100 + "1d6" + ")" * 100
    assert parse_expression(deep) == Dice(1, 6)
    with pytest.raises(ParseError) as info:
        parse_expression("(" * 101 + "1" + ")" * 101)
    assert info.value.column == 101
    assert "nest" in info.value.message
    with pytest.raises(ParseError) as info:
        parse_expression("1+" * (MAX_REQUEST // 2) + "1")
    assert "longer than 10,000" in info.value.message
    with pytest.raises(ParseError, match="'-' signs"):
        parse_expression("-" * 200 + "1")
    long_sum = parse_expression("+".join(["1"] * 4000))
    assert long_sum.min_total() == 4000
    assert len(str(long_sum)) == 7999
