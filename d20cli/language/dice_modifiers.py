"""The modifiers of a dice term in the dice grammar (d20cli.language.dice_grammar), built
from their classes' spellings (d20cli.dice.modifiers: `Rule.spellings`, `Rule.reads`): each
parses to a `(field, rule, column)` tuple that `dice_grammar` gathers into a `Dice`.

Roll20, Foundry and rpg-dice-roller spellings are accepted with their meaning:
`4d6d1` / `4d6d` drop the lowest (count 1 when omitted, also for `kh kl dh dl k`),
`2d6r1r2` rerolls on any of the chained points, `!p` penetrates, `u` asks for different
faces, `cs>19` / `cf<2` mark critical dice, `s` / `sa` / `sd` sort the dice shown.
"""

from __future__ import annotations

import re
from typing import Any

import pyparsing as pp

from d20cli.dice.modifiers import MODIFIERS, Modifier, Rule
from d20cli.dice.tree import Compare
from d20cli.language.vocabulary import DICE_DIGITS

MAX_DICE_DIGITS = DICE_DIGITS

_I = re.IGNORECASE


def _fail(s: str, loc: int, msg: str) -> pp.ParseFatalException:
    return pp.ParseFatalException(s, loc, msg)


def _to_int(s: str, loc: int, toks: pp.ParseResults) -> int:
    text = toks[0]
    if len(text) > MAX_DICE_DIGITS:
        raise _fail(s, loc, f"number too large (more than {MAX_DICE_DIGITS} digits)")
    return int(text)


def _int(name: str, tight: bool = False, signed: bool = False) -> pp.ParserElement:
    e = pp.Regex(r"-?[0-9]+" if signed else r"[0-9]+").set_name(name).set_parse_action(_to_int)
    return e.leave_whitespace() if tight else e


def _kw(word: str) -> pp.ParserElement:
    """A modifier keyword glued to the dice, not followed by another letter."""
    return pp.Regex(re.escape(word) + r"(?![a-z])", _I).set_name(f"'{word}'").leave_whitespace()


integer = _int("integer")
# `!=` and `<>` (rpg-dice-roller): every face but the value.
_op = (
    pp.Regex(r">=|<=|<>|!=|>|<|=")
    .set_name("a comparison")
    .leave_whitespace()
    .set_parse_action(lambda t: "!=" if t[0] == "<>" else t[0])
)


def _point(after: str) -> pp.ParserElement:
    """`op? integer` glued on; a bare number means `=`."""
    name = f"a face or compare point after '{after}' (like 1 or <=2)"
    return (pp.Opt(_op, default="=") + _int(name, tight=True, signed=True)).set_name(name)


def _build_compare(toks: pp.ParseResults) -> Compare:
    return Compare(toks[0], toks[1])


# --- modifiers: each yields a (field, rule, loc) tuple ----------------------------------
#
# Built from the rule classes (d20cli.dice.modifiers): each row of MODIFIERS, in its order,
# offers the spellings of its class and of its variants, longest first, each followed by
# what the class `reads`. Only the forms that other rollers write and this one refuses
# (`_REFUSED`) are written here.


def _word(word: str, alone: bool) -> pp.ParserElement:
    """A spelling glued to the dice, any case; `alone`: no letter may follow it (a
    letter that follows may start another modifier otherwise: `4d6khcs6`, `3d6usd`)."""
    ahead = r"(?![a-z])" if alone else ""
    return pp.Regex(re.escape(word) + ahead, _I).set_name(f"'{word}'").leave_whitespace()


def _pointed(word: str) -> pp.ParserElement:
    return _point(word).copy().set_parse_action(_build_compare)


def _comparison() -> pp.ParserElement:
    """`op integer`, the op required: an explosion's point, a pool's success point."""
    number = _int("a number after the comparison", tight=True, signed=True)
    return (_op - number).set_parse_action(_build_compare)


def _spelt(word: str, reads: str) -> pp.ParserElement:
    """`word` and what its class reads after it (`Rule.reads`)."""
    if reads == "point":
        return _word(word, alone=True) - _pointed(word)
    if reads == "number":
        return _word(word, alone=True) - _int(f"a number after '{word}'", tight=True, signed=True)
    if reads == "count":
        count = pp.Opt(_int(f"a number after '{word}'", tight=True), default=1)
        return _word(word, alone=len(word) == 1) + count
    if reads == "comparison":
        return _word(word, alone=False) + pp.Opt(_comparison())
    assert reads == "", reads
    return _word(word, alone=False)


def _element(row: Modifier) -> pp.ParserElement:
    """The grammar of one row of MODIFIERS: its refused forms, then the spellings of its
    class and variants."""
    spelt: dict[str, type[Rule]] = {word: cls for cls in row.variants() for word in cls.spellings}

    def action(s: str, loc: int, toks: pp.ParseResults) -> tuple[str, Rule, int]:
        if row.rule.reads == "target":
            rule = row.rule.spelt("", (toks[0], toks[2] if len(toks) > 2 else None))
        else:
            word = str(toks[0]).lower()
            rule = spelt[word].spelt(word, toks[1] if len(toks) > 1 else None)
        return (row.field, rule, loc)

    if row.rule.reads == "target":  # a pool: `>=7`, `>=7f1`
        fail = next(iter(row.rule.spellings))
        element = _comparison() + pp.Opt(_word(fail, alone=True) - _pointed(fail))
    else:
        words = sorted(spelt, key=len, reverse=True)
        element = pp.MatchFirst([_spelt(w, spelt[w].reads) for w in words])
    element = element.set_parse_action(action).set_name(row.what)
    refused = _REFUSED.get(row.field)
    return element if refused is None else refused | element


def _bare_k(s: str, loc: int, toks: pp.ParseResults) -> None:
    """`4d6k<3`: avrae's keep-the-dice-below-3, which no other peer has. (`4d6k3` is the
    keep-highest of Roll20, Foundry and rpg-dice-roller, `Keep.spellings`; avrae's
    keep-the-dice-showing-3 is said in a note: d20cli.language.peer_readings.)"""
    rest = str(toks[0])[1:]
    raise _fail(
        s, loc, f"avrae's 'k{rest}' (keep the dice {rest}) is not supported: use kh/kl N or a pool"
    )


def _unique_point(s: str, loc: int, toks: pp.ParseResults) -> None:
    point = str(toks[0])[1:]
    raise _fail(
        s,
        loc,
        f"rpg-dice-roller's 'u{point}' (unique only among the faces {point}) is not supported; "
        f"for a pool of unique dice put the target first: " + _rewritten(s, loc, "u", "") + "u",
    )


def _refused(pattern: str, action: Any) -> pp.ParserElement:
    return pp.Regex(pattern, _I).leave_whitespace().set_parse_action(action)


_HINTS = {
    "f": "'f' (failures) needs a success target first, like 6d10>=7f1",
    "x": "'x' (Foundry's explosion) is written '!' here, like 1d10!; a repeat goes first: "
    "'roll 6x 4d6kh3'",
    "xo": "'xo' (Foundry's single explosion) is not supported: use '!'",
    "min": "'min' (Foundry's and rpg-dice-roller's minimum) is written 'mi' here, like 4d6mi2",
    "max": "'max' (Foundry's and rpg-dice-roller's maximum) is written 'ma' here, like 4d6ma5",
    "uo": "'uo' (rerolling a duplicate once) is not supported: 'u' rerolls until the faces differ",
    "ra": "reroll-and-add ('ra') is not supported: use 'r' or an explosion",
    "cs": "'cs' needs a face or compare point, like cs>19",
    "cf": "'cf' needs a face or compare point, like cf<2",
}


def _rewritten(s: str, loc: int, word: str, new: str) -> str:
    """The dice term around `loc` with `word` (at `loc`) written `new`: `1d20rr<20` ->
    `1d20r<20`."""
    start = loc
    while start > 0 and not s[start - 1].isspace() and s[start - 1] not in "+-*/(),{}":
        start -= 1
    end = loc + len(word)
    while end < len(s) and not s[end].isspace() and s[end] not in "+-*/(),{}[":
        end += 1
    return s[start:loc] + new + s[loc + len(word) : end]


def _avrae(s: str, loc: int, word: str) -> str | None:
    """What avrae's operators `rr`, `e` and `p` are written here, with the rewrite."""
    after = s[loc + len(word) : loc + len(word) + 1]
    if word == "rr":
        return "'rr' (avrae's reroll until none match) is written 'r' here: " + _rewritten(
            s, loc, "rr", "r"
        )
    if word == "e":
        new = "!" if after in "<>" else "!="
        return "'e' (avrae's explode on) is written '!' here: " + _rewritten(s, loc, "e", new)
    if word in ("pl", "ph"):
        new = "dl" if word == "pl" else "dh"
        return f"'{word}' (avrae's drop) is written '{new}' here: " + _rewritten(s, loc, word, new)
    if word == "p":
        return "avrae's 'p' (drop the dice matching) is not supported: use dl/dh N"
    return None


def _unknown(s: str, loc: int, toks: pp.ParseResults) -> None:
    word = toks[0]
    hint = _avrae(s, loc, word.lower()) or _HINTS.get(word.lower())
    raise _fail(s, loc, hint or f"unknown modifier '{word}'")


_bad_mod = pp.Regex(r"[a-z]+", _I).leave_whitespace().set_parse_action(_unknown)

#: The forms of other rollers refused with a message, tried before a row's spellings.
_REFUSED: dict[str, pp.ParserElement] = {
    "keep": _refused(r"k[<>]=?-?[0-9]+", _bare_k),
    "unique": _refused(r"u(?:>=|<=|<>|!=|[<>=])-?[0-9]+", _unique_point)
    | _refused(r"uo[a-z]*", _unknown),  # `uo`: rerolling a duplicate once (_HINTS)
}
_ELEMENTS = {row.field: _element(row) for row in MODIFIERS}

modifier = (pp.MatchFirst([_ELEMENTS[row.field] for row in MODIFIERS]) | _bad_mod).set_name(
    "a dice modifier"
)

#: What may follow a group `{4d6,3d8}`: keep/drop of whole expressions, a pool target.
group_modifier = (_ELEMENTS["keep"] | _ELEMENTS["pool"]).set_name("keep/drop or a target")

label = (
    pp.Suppress("[")
    - pp.Regex(r"[^\[\]]+").set_name("a label")
    - pp.Suppress(pp.Literal("]").set_name("']' to close the label"))
).set_parse_action(lambda t: ("label", t[0].strip(), 0))
