"""The words of every verb but `roll` as pyparsing elements: `LINES` holds one element per
verb, whose parse gives the `Item`s that d20cli.language.grammar assembles into a Request.

Built on first use, apart from the grammar's entry point: a `roll` (d20cli.language
.roll_parts and dice_grammar) never builds these, which saves a new roll request about
6 ms of its start. Every word comes from d20cli.language.vocabulary.
"""

from __future__ import annotations

import re
from typing import Any

import pyparsing as pp

from d20cli.frozen import frozen
from d20cli.language import dice_grammar
from d20cli.language.grammar_checks import MAX_WORD_DIGITS, near_word_message, near_words
from d20cli.language.requests import Target
from d20cli.language.vocabulary import (
    ADV_WORDS,
    CHECK_VERBS,
    CHECK_WORDS,
    CIRCUMSTANCE_WORDS,
    CONTEST_VERBS,
    CRIT,
    CRIT_DMG,
    CRIT_DMG_MODES,
    DC_WORDS,
    DEFENSE_WORDS,
    DIS_WORDS,
    DMG,
    EXPERTISE,
    EXPERTISE_SIZES,
    FLAG_WORDS,
    FORTUNE_ACTIONS,
    FORTUNE_USES,
    GROUP_RULES,
    HOUSE_RANGE,
    KEYWORDS,
    LUCKY,
    MIN,
    PLAYERS,
    RANK_WORDS,
    TARGET_NAME,
    TARGET_NAMES,
    VERBS,
    VS,
    Word,
)

pp.ParserElement.enable_packrat()

# --- elements ----------------------------------------------------------------------------

_I = re.IGNORECASE


@frozen(slots=True)
class Item:
    """One parsed word: its kind, value and 1-based column."""

    kind: str
    value: Any
    column: int


def _item(kind: str, value: Any = None) -> Any:
    def action(s: str, loc: int, toks: pp.ParseResults) -> Item:
        return Item(kind, toks[0] if value is None else value, loc + 1)

    return action


def _kw(*words: str) -> pp.ParserElement:
    """Any of these words, whole (not followed by a letter, digit, '-' or '_'), in any
    case; a word written with '-' may also be typed with spaces (`very easy`,
    `major bonus`, as the rule texts print them): `_word` reads either back."""
    alternatives = "|".join(
        re.escape(w).replace(r"\-", r"(?:-|[ \t]+)") for w in sorted(words, key=len, reverse=True)
    )
    name = " or ".join(f"'{w}'" for w in words)
    return pp.Regex(rf"(?:{alternatives})(?![\w-])", _I).set_name(name)


def _word(token: Any) -> str:
    """A keyword as the tables spell it: lower case, spaces read as '-'."""
    return "-".join(str(token).lower().split())


def _to_int(s: str, loc: int, toks: pp.ParseResults) -> int:
    text = str(toks[0])
    if len(text.lstrip("+-")) > MAX_WORD_DIGITS:
        raise pp.ParseFatalException(s, loc, f"{text[:20]} is too large a number")
    return int(text)


integer = pp.Regex(r"[0-9]+(?![\w.])").set_name("a number").set_parse_action(_to_int)
signed_integer = (
    pp.Regex(r"[+-][0-9]+(?![\w.])").set_name("a signed number (+1, -2)").set_parse_action(_to_int)
)
any_integer = pp.Regex(r"[+-]?[0-9]+(?![\w.])").set_name("a number").set_parse_action(_to_int)

# A signed modifier: `+5`, `-1`, `+5+1d4` (the dice engine's expression after the sign).
modifier = (pp.FollowedBy(pp.Regex("[+-]")) + dice_grammar.signed_expression).set_name(
    "a signed modifier (+5, -1, +2+1d4)"
)
modifier.add_parse_action(_item("modifier"))

_keyword_any = _kw(*KEYWORDS, *VERBS)
_EQUALS = re.compile(r"=[^\s,]*")


def _label_word(s: str, loc: int, toks: pp.ParseResults) -> Item:
    """A label word. A word and `=` that look like a mistyped word of the language
    (`expertis=d6`) are an error with "did you mean"; a word alone (`advantge`) is
    looked at once the request is read (grammar.check_labels), as a character may have it."""
    word = str(toks[0])
    equals = _EQUALS.match(s, loc + len(word))
    if equals is not None:
        typed = word + equals.group()
        near = near_words(typed)
        if near:
            raise pp.ParseFatalException(s, loc, near_word_message(typed, near))
    return Item("label", word, loc + 1)


label_word = pp.Regex(r"[a-z][\w'-]*", _I).set_name("a label word")
label_word.add_condition(lambda t: not _keyword_any.matches(str(t[0])))
# never a label: a target's DC or AC without its `vs` (`check +5 DC 15`: the error says
# `vs DC 15`), nor the first word of the spaced group rule (`at least half`)
_NOT_LABELS = re.compile(r"(?:dc|ac)(?![\w'-])|at[ \t]+least[ \t]+half\b", re.IGNORECASE)
label_word.add_condition(lambda s, loc, t: _NOT_LABELS.match(s, loc) is None)
label_word.add_parse_action(_label_word)
# A label in brackets or quotes is a label whatever its words (`[advantge]`, `"sleight of
# hand"`): at most 64 characters.
_enclosed = pp.Regex(r"\[([^\[\]\n]{1,64})\]|\"([^\"\n]{1,64})\"|'([^'\n]{1,64})'")
_enclosed.add_condition(lambda t: bool(str(t[0])[1:-1].strip()))
_enclosed.set_parse_action(lambda s, loc, t: Item("label", str(t[0])[1:-1].strip(), loc + 1))
label = (label_word | _enclosed).set_name("a label word")

rank_word = (
    _kw(*RANK_WORDS)
    .set_name("a rank")
    .set_parse_action(lambda s, loc, t: Item("rank", _word(t[0]), loc + 1))
)
score = integer.copy().set_name("an ability score").add_parse_action(_item("score"))
adjust = signed_integer.copy().set_name("a rank adjustment").add_parse_action(_item("adjust"))

adv = _kw(*ADV_WORDS).set_parse_action(_item("adv", 1))
dis = _kw(*DIS_WORDS).set_parse_action(_item("dis", 1))
_size = (
    pp.Regex(r"d([0-9]+)(?!\w)", _I)
    .set_name("an expertise die: " + ", ".join(f"d{n}" for n in EXPERTISE_SIZES))
    .set_parse_action(lambda s, loc, t: int(t[0][1:][: MAX_WORD_DIGITS + 1]))
)


def _check_size(s: str, loc: int, toks: pp.ParseResults) -> None:
    if toks[0] not in EXPERTISE_SIZES:
        sizes = ", ".join(f"d{n}" for n in EXPERTISE_SIZES)
        raise pp.ParseFatalException(s, loc, f"an expertise die is {sizes}, not d{toks[0]}")


_size.add_parse_action(_check_size)
expertise = (
    _kw(EXPERTISE) + pp.Opt(pp.Suppress(pp.Literal("=").leave_whitespace()) - _size)
).set_name("'expertise'")
expertise.set_parse_action(
    lambda s, loc, t: Item("expertise", t[1] if len(t) > 1 else EXPERTISE_SIZES[0], loc + 1)
)
#: The kind of each flag word's spelling (`vocabulary.Word.flag`).
_FLAG_KINDS = {s: w.kind for w in CHECK_WORDS if w.flag for s in w.spellings}
flag = _kw(*FLAG_WORDS).set_parse_action(
    lambda s, loc, t: Item(_FLAG_KINDS[_word(t[0])], True, loc + 1)
)
circumstance = _kw(*CIRCUMSTANCE_WORDS).set_parse_action(
    lambda s, loc, t: Item("circumstance", _word(t[0]), loc + 1)
)
damage = (pp.Suppress(_kw(DMG)) - dice_grammar.expression).set_name("'dmg' and an expression")
damage.set_parse_action(_item("dmg"))

_named_dc = (
    _kw(*DC_WORDS).set_name("a DC name").set_parse_action(lambda t: Target("named", 0, _word(t[0])))
)
_defense = (pp.Suppress(_kw("defense")) - any_integer).set_parse_action(
    lambda t: Target("defense", t[0])
)
_named_defense = (_kw(*DEFENSE_WORDS) - any_integer).set_parse_action(
    lambda t: Target("defense", t[1], _word(t[0]))
)
_rank_target = (pp.Suppress(_kw("rank")) - any_integer).set_parse_action(
    lambda t: Target("rank", t[0])
)
_routine = (pp.Suppress(_kw("routine")) - any_integer).set_parse_action(
    lambda t: Target("routine", t[0])
)
_number = integer.copy().add_parse_action(lambda t: Target("number", t[0]))
target = (_defense | _named_defense | _rank_target | _routine | _named_dc | _number).set_name(
    TARGET_NAME
)
_target_name = (
    _kw(*TARGET_NAMES)
    .set_parse_action(lambda s, loc, t: Item("target_name", _word(t[0]), loc + 1))
    .set_name("DC or AC")
)
target_clause = (pp.Suppress(_kw(VS)) - pp.Opt(_target_name) + target).set_name("'vs' and a target")
target_clause.set_parse_action(
    lambda s, loc, t: [x if isinstance(x, Item) else Item("target", x, loc + 1) for x in t]
)


def _house_number(word: str) -> pp.ParserElement:
    """`crit N`, `crit=N` (also `min`): N from 2 to 20, else an error saying so."""
    lo, hi = HOUSE_RANGE

    def check(s: str, loc: int, toks: pp.ParseResults) -> Item:
        value = int(toks[-1])
        if not lo <= value <= hi:
            raise pp.ParseFatalException(s, loc, f"{word} N takes N from {lo} to {hi}, not {value}")
        return Item(word, value, loc + 1)

    equals = pp.Suppress(pp.Literal("=").leave_whitespace()) - integer.copy().leave_whitespace()
    value = (equals | (pp.White(" \t").suppress() - integer)).set_name(
        f"a number after '{word}' ({word} N or {word}=N, N from {lo} to {hi})"
    )
    return (_kw(word) - value).set_name(f"'{word} N'").set_parse_action(check)


lucky = _kw(LUCKY).set_parse_action(_item(LUCKY, True))
house = (_house_number(CRIT) | _house_number(MIN) | lucky).set_name("a house word")
crit_dmg = (
    pp.Suppress(pp.Regex(rf"{CRIT_DMG}(?![\w-])", _I))
    - pp.Suppress(pp.Opt(pp.Literal("=")))
    - _kw(*CRIT_DMG_MODES).set_name("a crit-dmg mode: " + ", ".join(CRIT_DMG_MODES))
).set_name(f"'{CRIT_DMG}=MODE'")
crit_dmg.set_parse_action(lambda s, loc, t: Item(CRIT_DMG, str(t[0]).lower(), loc + 1))


def _valued(word: Word) -> pp.ParserElement:
    """The element of a word that declares its values (`Word.values`): `NAME=VALUE`, or
    the name alone for the first value; a die's value read as its sides."""
    name = word.spellings[0]
    value = _kw(*word.values).set_name(f"one of {', '.join(word.values)} after '{name}='")
    element = _kw(*word.spellings) + pp.Opt(pp.Suppress(pp.Literal("=").leave_whitespace()) - value)

    def action(s: str, loc: int, toks: pp.ParseResults) -> Item:
        typed = _word(toks[1]) if len(toks) > 1 else word.values[0]
        return Item(word.kind, int(typed[1:]) if word.dice() else typed, loc + 1)

    return element.set_name(f"'{name}[=VALUE]'").set_parse_action(action)


#: The words of a check's own options (a group member's and a contest side's too): the
#: elements above, and one made from each row that declares its values.
_OPTIONS = [adv, dis, expertise, flag, circumstance, house]
_OPTIONS += [_valued(word) for word in CHECK_WORDS if word.values]
member_option = pp.MatchFirst(_OPTIONS).set_name("an option")
check_option = (target_clause | damage | crit_dmg | member_option).set_name("an option")

# The words of a check in any order (`check adv +5 vs 15`, `attempt doomed reliable +1`):
# the label, the modifier or the rank or score (with its adjustments) are read wherever
# they stand; grammar._check says which may stand only once, and where the order counts.
check_value = (rank_word | score) + pp.ZeroOrMore(adjust) | modifier
check_body = pp.ZeroOrMore(check_option | check_value | label)

member = pp.Group(pp.OneOrMore(member_option | modifier | label)).set_name(
    "a group member: a label or a modifier"
)
group_rule = _kw(*GROUP_RULES).set_parse_action(
    lambda s, loc, t: Item("group_rule", _word(t[0]), loc + 1)
)
group_body = (
    member
    + pp.ZeroOrMore(pp.Suppress(",") - member)
    + pp.ZeroOrMore(target_clause | group_rule.set_name("a group rule"))
)


def _bare_number_side(s: str, loc: int, toks: pp.ParseResults) -> None:
    number = str(toks[0])[:20]
    raise pp.ParseFatalException(
        s,
        loc,
        f"a side is a label or a signed modifier (+{number}, -{number}), not the bare "
        f"number {number}: sides have no target",
    )


side = (
    pp.Group(pp.OneOrMore(member_option | modifier | label)).set_name(
        "a side: a label or a modifier"
    )
    | pp.Regex(r"\d+(?![\w.])").set_parse_action(_bare_number_side)
).set_name("a side")
contest_body = side + pp.OneOrMore(pp.Suppress(_kw(VS)) - side)

compare_body = (
    any_integer.copy().add_parse_action(_item("first"))
    - pp.Suppress(_kw(VS))
    - any_integer.copy().add_parse_action(_item("second"))
)
# `lucky` is read after a percent so that the rules can say why it does not apply there
percent_body = (
    integer.copy().add_parse_action(_item("percent"))
    + pp.Opt(pp.Suppress(pp.Literal("%").leave_whitespace()))
    + pp.Opt(lucky)
)
luck_body = pp.ZeroOrMore(adv | dis | flag | lucky)
scores_body = pp.Opt(
    (pp.Suppress(_kw(PLAYERS) + pp.Literal("=")) - integer) | integer
).set_parse_action(lambda s, loc, t: [Item("players", t[0], loc + 1)] if t else [])
fortune_use = _kw(*FORTUNE_USES).set_parse_action(
    lambda s, loc, t: Item("use", str(t[0]).lower(), loc + 1)
)
fortune_body = pp.Opt(
    _kw("spend").set_parse_action(lambda s, loc, t: Item("action", "spend", loc + 1))
    + pp.Opt(fortune_use)
    | _kw(*FORTUNE_ACTIONS).set_parse_action(
        lambda s, loc, t: Item("action", str(t[0]).lower(), loc + 1)
    )
)

BODIES: dict[str, pp.ParserElement] = {
    **{verb: check_body for verb in CHECK_VERBS},
    **{verb: contest_body for verb in CONTEST_VERBS},
    "group": group_body,
    "compare": compare_body,
    "percent": percent_body,
    "luck": luck_body,
    "scores": scores_body,
    "fortune": fortune_body,
}
LINES: dict[str, pp.ParserElement] = {
    verb: (pp.Suppress(_kw(verb)) + body).set_name(f"a {verb} request")
    for verb, body in BODIES.items()
}
for _name, _element in list(globals().items()):
    if isinstance(_element, pp.ParserElement) and not _element.customName:
        _element.set_name(_name.strip("_").replace("_", " "))
