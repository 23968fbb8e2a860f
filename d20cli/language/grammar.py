"""The request language: one line, verb first, to a Request dataclass (d20cli.language.requests).

Knows words, not rules: `check +5 vs 15 adv expertise=d6` parses in every system; whether
the chosen system offers advantage or expertise is decided by d20cli.rules.

    check|save|attack|attempt|defend|resist|routine [LABEL] [RANK|SCORE {±N} | ±MOD]
        {vs TARGET | adv | dis | expertise[=d4|d6|d8] | dmg EXPR | reliable | unreliable
         | fortune | bonus | penalty | major-bonus | major-penalty}
    TARGET: N | very-easy .. nigh-impossible | defense N | rank N | routine ±N
    group MEMBER {, MEMBER} [vs TARGET]      MEMBER: [LABEL] [±MOD] {option}
    contest|opposed SIDE vs SIDE {vs SIDE}   SIDE: [LABEL] [±MOD] {option}
    compare N vs N      percent N[%]      luck {adv | dis | fortune}
    scores [N | players=N]      fortune [show | spend [USE] | boon | no-boon]      roll ...
    USE: reroll | hint | escape | value      (roll: dice_grammar; `;`, `[[...]]`: roll_parts)

Modifiers are signed (`+5`, `-1`, `+5+1d4`); an unsigned number in a modifier's place is a
SCORE (a Pen & Dagger ability score), and a signed number after a RANK or SCORE is the
rank adjustment. Errors are ParseError with a message and the 1-based column in the line.

Every word comes from d20cli.language.vocabulary (completion, help and the shell read it).
"""

from __future__ import annotations

import re
from typing import Any

import pyparsing as pp

from d20cli.errors import ParseError
from d20cli.frozen import frozen
from d20cli.language import dice_grammar
from d20cli.language.grammar_checks import (
    MAX_GROUP,
    check_group_size,
    check_member_commas,
    check_side_count,
    message,
)
from d20cli.language.grammar_checks import (
    MAX_SIDES as MAX_SIDES,
)
from d20cli.language.requests import (
    CheckRequest,
    CompareRequest,
    ContestRequest,
    FortuneRequest,
    GroupRequest,
    LuckRequest,
    PercentRequest,
    Request,
    ScoresRequest,
    Target,
)
from d20cli.language.roll_parts import parse_roll_line
from d20cli.language.vocabulary import (
    ADV_WORDS,
    CHECK_VERBS,
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
    OTHER_VERBS,
    PLAYERS,
    RANK_WORDS,
    TARGET_NAMES,
    VERBS,
    VS,
)

pp.ParserElement.enable_packrat()

# --- word tables (the grammar and completion both read these) ---------------------------


MAX_DIGITS = 9  # a number in a request has at most this many digits

assert set(VERBS) == set(CHECK_VERBS + CONTEST_VERBS + OTHER_VERBS)

# --- elements ----------------------------------------------------------------------------

_I = re.IGNORECASE


@frozen(slots=True)
class _Item:
    """One parsed word: its kind, value and 1-based column."""

    kind: str
    value: Any
    column: int


def _item(kind: str, value: Any = None) -> Any:
    def action(s: str, loc: int, toks: pp.ParseResults) -> _Item:
        return _Item(kind, toks[0] if value is None else value, loc + 1)

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
    if len(text.lstrip("+-")) > MAX_DIGITS:
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
label = pp.Regex(r"[a-z][\w'-]*", _I).set_name("a label word")
label.add_condition(lambda t: not _keyword_any.matches(str(t[0])))
label.add_parse_action(lambda s, loc, t: _Item("label", str(t[0]), loc + 1))

rank_word = (
    _kw(*RANK_WORDS)
    .set_name("a rank")
    .set_parse_action(lambda s, loc, t: _Item("rank", _word(t[0]), loc + 1))
)
score = integer.copy().set_name("an ability score").add_parse_action(_item("score"))
adjust = signed_integer.copy().set_name("a rank adjustment").add_parse_action(_item("adjust"))

adv = _kw(*ADV_WORDS).set_parse_action(_item("adv", 1))
dis = _kw(*DIS_WORDS).set_parse_action(_item("dis", 1))
_size = (
    pp.Regex(r"d([0-9]+)(?!\w)", _I)
    .set_name("an expertise die: " + ", ".join(f"d{n}" for n in EXPERTISE_SIZES))
    .set_parse_action(lambda s, loc, t: int(t[0][1:][: MAX_DIGITS + 1]))
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
    lambda s, loc, t: _Item("expertise", t[1] if len(t) > 1 else EXPERTISE_SIZES[0], loc + 1)
)
flag = _kw(*FLAG_WORDS).set_parse_action(lambda s, loc, t: _Item(_word(t[0]), 1, loc + 1))
circumstance = _kw(*CIRCUMSTANCE_WORDS).set_parse_action(
    lambda s, loc, t: _Item("circumstance", _word(t[0]), loc + 1)
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
    "a target: a number, a DC name, defense N, rank N or routine +N"
)
_target_name = (
    _kw(*TARGET_NAMES)
    .set_parse_action(lambda s, loc, t: _Item("target_name", _word(t[0]), loc + 1))
    .set_name("DC or AC")
)
target_clause = (pp.Suppress(_kw(VS)) - pp.Opt(_target_name) + target).set_name("'vs' and a target")
target_clause.set_parse_action(
    lambda s, loc, t: [x if isinstance(x, _Item) else _Item("target", x, loc + 1) for x in t]
)


def _house_number(word: str) -> pp.ParserElement:
    """`crit N`, `crit=N` (also `min`): N from 2 to 20, else an error saying so."""
    lo, hi = HOUSE_RANGE

    def check(s: str, loc: int, toks: pp.ParseResults) -> _Item:
        value = int(toks[-1])
        if not lo <= value <= hi:
            raise pp.ParseFatalException(s, loc, f"{word} N takes N from {lo} to {hi}, not {value}")
        return _Item(word, value, loc + 1)

    equals = pp.Suppress(pp.Literal("=").leave_whitespace()) - integer.copy().leave_whitespace()
    return (
        (_kw(word) - (equals | (pp.White(" \t").suppress() - integer)))
        .set_name(f"'{word} N'")
        .set_parse_action(check)
    )


house = (
    _house_number(CRIT) | _house_number(MIN) | _kw(LUCKY).set_parse_action(_item(LUCKY, True))
).set_name("a house word")
crit_dmg = (
    pp.Suppress(pp.Regex(rf"{CRIT_DMG}(?![\w-])", _I))
    - pp.Suppress(pp.Opt(pp.Literal("=")))
    - _kw(*CRIT_DMG_MODES).set_name("a crit-dmg mode: " + ", ".join(CRIT_DMG_MODES))
).set_name(f"'{CRIT_DMG}=MODE'")
crit_dmg.set_parse_action(lambda s, loc, t: _Item(CRIT_DMG, str(t[0]).lower(), loc + 1))
member_option = (adv | dis | expertise | flag | circumstance | house).set_name("an option")
check_option = (target_clause | damage | crit_dmg | member_option).set_name("an option")

check_head = pp.Opt(label) + pp.Opt((rank_word | score) + pp.ZeroOrMore(adjust) | modifier)
check_body = check_head + pp.ZeroOrMore(check_option)

member = pp.Group(
    ((label + pp.Opt(modifier)) | modifier).set_name("a member: a label or a modifier")
    + pp.ZeroOrMore(member_option)
).set_name("a group member")
group_rule = _kw(*GROUP_RULES).set_parse_action(
    lambda s, loc, t: _Item("group_rule", _word(t[0]), loc + 1)
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
    pp.Group(
        ((label + pp.Opt(modifier)) | modifier).set_name("a side: a label or a modifier")
        + pp.ZeroOrMore(member_option)
    )
    | pp.Regex(r"\d+(?![\w.])").set_parse_action(_bare_number_side)
).set_name("a side")
contest_body = side + pp.OneOrMore(pp.Suppress(_kw(VS)) - side)

compare_body = (
    any_integer.copy().add_parse_action(_item("first"))
    - pp.Suppress(_kw(VS))
    - any_integer.copy().add_parse_action(_item("second"))
)
percent_body = integer.copy().add_parse_action(_item("percent")) + pp.Opt(
    pp.Suppress(pp.Literal("%").leave_whitespace())
)
luck_body = pp.ZeroOrMore(adv | dis | flag)
scores_body = pp.Opt(
    (pp.Suppress(_kw(PLAYERS) + pp.Literal("=")) - integer) | integer
).set_parse_action(lambda s, loc, t: [_Item("players", t[0], loc + 1)] if t else [])
fortune_use = _kw(*FORTUNE_USES).set_parse_action(
    lambda s, loc, t: _Item("use", str(t[0]).lower(), loc + 1)
)
fortune_body = pp.Opt(
    _kw("spend").set_parse_action(lambda s, loc, t: _Item("action", "spend", loc + 1))
    + pp.Opt(fortune_use)
    | _kw(*FORTUNE_ACTIONS).set_parse_action(
        lambda s, loc, t: _Item("action", str(t[0]).lower(), loc + 1)
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

# --- assembling requests --------------------------------------------------------------------


def _columns(items: list[_Item], verb_column: int) -> tuple[tuple[str, int], ...]:
    seen: dict[str, int] = {"verb": verb_column}
    for item in items:
        seen.setdefault(item.kind, item.column)
    return tuple(seen.items())


def _check(verb: str, text: str, items: list[_Item], verb_column: int) -> CheckRequest:
    fields: dict[str, Any] = {}
    counts = {"adv": 0, "dis": 0, "reliable": 0, "unreliable": 0}
    grants: list[int] = []
    words: list[str] = []
    for item in items:
        kind = item.kind
        if kind in counts:
            counts[kind] += 1
        elif kind == "adjust":  # several rank adjustments add up: `attempt trained +1 -1`
            fields["adjust"] = fields.get("adjust", 0) + int(item.value)
        elif kind == "target_name":
            if item.value == "ac" and verb != "attack":
                raise ParseError(
                    f"AC is what an attack is made against; a {verb} is against a DC: vs DC 15",
                    text,
                    item.column,
                )
        elif kind == "expertise":
            grants.append(int(item.value))
        elif kind == "circumstance":
            words.append(str(item.value))
        elif kind == "fortune":
            fields["fortune"] = True
        elif kind == LUCKY:
            fields["lucky"] = True
        else:
            key = {"label": "name", "dmg": "damage", MIN: "floor", CRIT_DMG: "crit_dmg"}.get(
                kind, kind
            )
            if key in fields:
                what = {"target": "one target (vs ...)", "damage": "one dmg expression"}
                raise ParseError(
                    f"a {verb} takes only {what.get(key, 'one ' + kind)}", text, item.column
                )
            fields[key] = item.value
    return CheckRequest(
        verb=verb,
        text=text,
        expertise=tuple(grants),
        circumstances=tuple(words),
        columns=_columns(items, verb_column),
        adv=counts["adv"],
        dis=counts["dis"],
        reliable=counts["reliable"],
        unreliable=counts["unreliable"],
        **fields,
    )


def _flatten(toks: pp.ParseResults) -> list[Any]:
    out: list[Any] = []
    for t in toks:
        out.append(_flatten(t) if isinstance(t, pp.ParseResults) else t)
    return out


def _build(verb: str, text: str, toks: pp.ParseResults, verb_column: int) -> Request:
    parts = _flatten(toks)
    if verb in CHECK_VERBS:
        return _check(verb, text, parts, verb_column)
    if verb in CONTEST_VERBS:
        sides = tuple(_check("check", text, p, verb_column) for p in parts)
        return ContestRequest(verb, text, sides, columns=(("verb", verb_column),))
    if verb == "group":
        groups = [p for p in parts if isinstance(p, list)]
        named = [p for p in parts if isinstance(p, _Item) and p.kind == "target_name"]
        if named and named[0].value == "ac":
            raise ParseError(
                "AC is what an attack is made against; a group check is against a DC: vs DC 12",
                text,
                named[0].column,
            )
        targets = [p for p in parts if isinstance(p, _Item) and p.kind == "target"]
        rules = [p for p in parts if isinstance(p, _Item) and p.kind == "group_rule"]
        for twice in (targets[1:2] or rules[1:2])[:1]:
            what = "one target (vs ...)" if twice.kind == "target" else "one group rule"
            raise ParseError(f"a group check takes only {what}", text, twice.column)
        if len(groups) > MAX_GROUP:
            extra = next((p for p in groups[MAX_GROUP] if isinstance(p, _Item)), None)
            raise ParseError(
                f"a group check has at most {MAX_GROUP:,} members, not {len(groups):,}",
                text,
                extra.column if extra is not None else None,
            )
        check_member_commas(text)
        members = tuple(_check("check", text, g, verb_column) for g in groups)
        return GroupRequest(
            verb,
            text,
            members,
            targets[0].value if targets else None,
            rules[0].value if rules else None,
            columns=_columns(targets + rules, verb_column),
        )
    items: dict[str, _Item] = {p.kind: p for p in parts}
    columns = _columns(list(items.values()), verb_column)
    if verb == "compare":
        return CompareRequest(
            verb, text, items["first"].value, items["second"].value, columns=columns
        )
    if verb == "percent":
        return PercentRequest(verb, text, items["percent"].value, columns=columns)
    if verb == "luck":
        counts = {k: sum(1 for p in parts if p.kind == k) for k in ("adv", "dis")}
        for p in parts:
            if p.kind in ("reliable", "unreliable"):
                raise ParseError(
                    f"a luck roll takes adv, dis or fortune, not {p.kind}", text, p.column
                )
        return LuckRequest(
            verb, text, counts["adv"], counts["dis"], "fortune" in items, columns=columns
        )
    if verb == "scores":
        players = items["players"].value if "players" in items else None
        return ScoresRequest(verb, text, players, columns=columns)
    if verb == "fortune":
        action = items["action"].value if "action" in items else "show"
        use = items["use"].value if "use" in items else FORTUNE_USES[0]
        return FortuneRequest(verb, text, action, use, columns=columns)
    raise AssertionError(verb)


# --- entry point ---------------------------------------------------------------------------


#: Minus signs as the rule texts print them (the Unicode minus, an en dash) read as '-'.
_MINUS_SIGNS = str.maketrans({"\u2212": "-", "\u2013": "-"})


def parse_request(line: str) -> Request:
    """Parse one request line (verb first) into a Request. ParseError (message, line,
    1-based column) when the words do not form a request. A Unicode minus or an en dash
    is read as '-' (`d20–4`, as the rule texts print it); the request's text keeps '-'."""
    line = line.translate(_MINUS_SIGNS)
    stripped = line.lstrip()
    verb_column = len(line) - len(stripped) + 1
    if not stripped:
        raise ParseError("nothing to roll: give a verb, e.g. check +5 vs 15", line, 1)
    first = re.split(r"[\s,]", stripped, maxsplit=1)[0]
    verb = first.lower()
    if verb not in VERBS:
        raise ParseError(
            f"unknown verb {first[:30]!r}; the verbs are {', '.join(VERBS)}", line, verb_column
        )
    if verb == "roll":
        return parse_roll_line(line)
    if verb == "group":
        check_group_size(line)
    elif verb in CONTEST_VERBS:
        check_side_count(line, verb)
    try:
        with dice_grammar.parse_guard(line):
            toks = LINES[verb].parse_string(line, parse_all=True)
    except pp.ParseBaseException as exc:
        loc = min(max(exc.loc, 0), len(line))
        raise ParseError(message(exc, line), line, loc + 1) from None
    return _build(verb, line, toks, verb_column)
