"""The modifiers of a dice term in the dice grammar (d20cli.language.dice_grammar): each
parses to a `(kind, value, column)` tuple that `dice_grammar` gathers into a `Dice`.

Roll20, Foundry and rpg-dice-roller spellings are accepted with their meaning:
`4d6d1` / `4d6d` drop the lowest (count 1 when omitted, also for `kh kl dh dl k`),
`2d6r1r2` rerolls on any of the chained points, `!p` penetrates, `u` asks for different
faces, `cs>19` / `cf<2` mark critical dice, `s` / `sa` / `sd` sort the dice shown.
"""

from __future__ import annotations

import re
from typing import Any

import pyparsing as pp

from d20cli.dice.modifiers import rule_classes
from d20cli.dice.tree import Compare, Explode, Keep, KeepKind, Pool, Reroll
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


# --- modifiers: each yields a (kind, value, loc) tuple -----------------------------------


def _mod(kind: str, build: Any) -> Any:
    def action(s: str, loc: int, toks: pp.ParseResults) -> tuple[str, Any, int]:
        return (kind, build(toks), loc)

    return action


_reroll = (
    (_kw("ro") - _point("ro").copy().set_parse_action(_build_compare)).set_parse_action(
        _mod("reroll", lambda t: Reroll(t[1], once=True))
    )
    | (_kw("r") - _point("r").copy().set_parse_action(_build_compare)).set_parse_action(
        _mod("reroll", lambda t: Reroll(t[1]))
    )
).set_name("reroll")


def _explosion() -> pp.ParserElement:
    """`!`, `!!`, `!p`, `!!p` and any variant's: the spellings of every explosion class
    (`Explode.spellings`), longest first, then an optional compare point."""
    spelt = {
        word.lower(): (cls, values)
        for cls in rule_classes()
        if issubclass(cls, Explode)
        for word, values in cls.spellings.items()
    }
    words = "|".join(re.escape(w) for w in sorted(spelt, key=len, reverse=True))

    def build(t: pp.ParseResults) -> Explode:
        cls, values = spelt[t[0].lower()]
        return cls(t[1] if len(t) > 1 else None, **values)

    return (
        pp.Regex(words, _I).leave_whitespace()
        + pp.Opt(
            (_op - _int("a number after the comparison", tight=True, signed=True)).set_parse_action(
                _build_compare
            )
        )
    ).set_parse_action(_mod("explode", build))


_explode = _explosion()


def _limit(word: str, kind: str) -> pp.ParserElement:
    number = _int(f"a number after '{word}'", tight=True, signed=True)
    return (_kw(word) - number).set_parse_action(_mod(kind, lambda t: t[1]))


def _glued(word: str) -> pp.ParserElement:
    """A keyword that another letter may follow (`4d6khcs6`, `3d6usd`): the alternatives
    are ordered so the longest spelling is tried first."""
    return pp.Regex(re.escape(word), _I).set_name(f"'{word}'").leave_whitespace()


def _keep(word: str, kind: KeepKind) -> pp.ParserElement:
    """`kh3`, or `kh` alone: a count of 1 (a one-letter `k` or `d` no letter may follow)."""
    count = pp.Opt(_int(f"a number after '{word}'", tight=True), default=1)
    return ((_glued(word) if len(word) > 1 else _kw(word)) + count).set_parse_action(
        _mod("keep", lambda t: Keep(kind, t[1]))
    )


def _bare_k(s: str, loc: int, toks: pp.ParseResults) -> None:
    """`4d6k<3`: avrae's keep-the-dice-below-3, which no other peer has. (`4d6k3` is the
    keep-highest of Roll20, Foundry and rpg-dice-roller, read by `_keep("k", "kh")`;
    avrae's keep-the-dice-showing-3 is said in a note: d20cli.language.peer_readings.)"""
    rest = str(toks[0])[1:]
    raise _fail(
        s, loc, f"avrae's 'k{rest}' (keep the dice {rest}) is not supported: use kh/kl N or a pool"
    )


_k_selector = pp.Regex(r"k[<>]=?-?[0-9]+", _I).leave_whitespace()
_k_selector.set_parse_action(_bare_k)


_keep_drop = _keep("kh", "kh") | _keep("kl", "kl") | _keep("dh", "dh") | _keep("dl", "dl")
_keep_drop = _keep_drop | _k_selector | _keep("k", "kh") | _keep("d", "dl")  # Roll20: `4d6d1`

_pool = (
    (_op - _int("a number after the comparison", tight=True, signed=True)).set_parse_action(
        _build_compare
    )
    + pp.Opt(_kw("f") - _point("f").copy().set_parse_action(_build_compare))
).set_parse_action(_mod("pool", lambda t: Pool(t[0], t[2] if len(t) > 2 else None)))


def _unique_point(s: str, loc: int, toks: pp.ParseResults) -> None:
    point = str(toks[0])[1:]
    raise _fail(
        s,
        loc,
        f"rpg-dice-roller's 'u{point}' (unique only among the faces {point}) is not supported; "
        f"for a pool of unique dice put the target first: " + _rewritten(s, loc, "u", "") + "u",
    )


_unique = pp.Regex(r"u(?:>=|<=|<>|!=|[<>=])-?[0-9]+", _I).leave_whitespace()
_unique.set_parse_action(_unique_point)
_unique = _unique | pp.Regex("u(?!o)", _I).leave_whitespace().set_parse_action(
    _mod("unique", lambda t: True)
)

_crit = (
    (_kw("cs") - _point("cs").copy().set_parse_action(_build_compare)).set_parse_action(
        _mod("crit_success", lambda t: t[1])
    )
    | (_kw("cf") - _point("cf").copy().set_parse_action(_build_compare)).set_parse_action(
        _mod("crit_failure", lambda t: t[1])
    )
).set_name("a critical marker")

_sort = pp.Regex(r"s[ad]?", _I).leave_whitespace().set_name("a sort")
_sort.set_parse_action(lambda s, loc, t: ("sort", "d" if t[0].lower() == "sd" else "a", loc))

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

modifier = (
    _reroll
    | _explode
    | _limit("mi", "minimum")
    | _limit("ma", "maximum")
    | _keep_drop
    | _pool
    | _unique
    | _crit
    | _sort
    | _bad_mod
).set_name("a dice modifier")

#: What may follow a group `{4d6,3d8}`: keep/drop of whole expressions, a pool target.
group_modifier = (_keep_drop | _pool).set_name("keep/drop or a target")

label = (
    pp.Suppress("[")
    - pp.Regex(r"[^\[\]]+").set_name("a label")
    - pp.Suppress(pp.Literal("]").set_name("']' to close the label"))
).set_parse_action(lambda t: ("label", t[0].strip(), 0))
