"""The request language: one line, verb first, to a Request dataclass (d20cli.language.requests).

Knows words, not rules: `check +5 vs 15 adv expertise=d6` parses in every system; whether
the chosen system offers advantage or expertise is decided by d20cli.rules.

    check|save|attack|attempt|defend|resist|routine [LABEL] [RANK|SCORE {±N} | ±MOD]
        {vs TARGET | adv | dis | expertise[=d4|d6|d8] | dmg EXPR | reliable | unreliable
         | fortune | bonus | penalty | major-bonus | major-penalty}
    TARGET: N | very-easy .. nigh-impossible | defense N | rank N | routine ±N
    group MEMBER {, MEMBER} [vs TARGET]      MEMBER: [LABEL] [±MOD] {option}
    contest|opposed SIDE vs SIDE {vs SIDE}   SIDE: [LABEL] [±MOD] {option}
    compare N vs N      percent N[%] [lucky]      luck {adv | dis | fortune | lucky}
    scores [N | players=N]      fortune [show | spend [USE] | boon | no-boon]      roll ...
    USE: reroll | hint | escape | value      (roll: dice_grammar; `;`, `[[...]]`: roll_parts)

The words after the verb come in any order (`check adv +5 vs 15`), a member's or a side's
within it; the order counts only where a word could read two ways: after `dmg EXPR` a
signed number would join the expression, so the modifier comes before `dmg` (an error says
so), as does the label. A bare label word close to a word of the language (`advantge`) is
a NearWordError with "did you mean" (grammar_checks.check_labels); one in brackets or
quotes (`[advantge]`, `"sleight of hand"`) is a label. Modifiers are signed (`+5`, `-1`,
`+5+1d4`); an unsigned number in a modifier's place is a SCORE (a Pen & Dagger ability
score), and a signed number after a RANK or SCORE is the
rank adjustment. Errors are ParseError with a message and the 1-based column in the line.

Every word comes from d20cli.language.vocabulary (completion, help and the shell read it).
The pyparsing elements of every verb but `roll` are in d20cli.language.check_grammar,
built at the first request that needs them (a `roll` is read by roll_parts alone).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pyparsing as pp

from d20cli.dice.tree import Arithmetic, Neg, Number
from d20cli.errors import ParseError
from d20cli.language import dice_grammar
from d20cli.language.grammar_checks import MAX_CONTEST_SIDES as MAX_CONTEST_SIDES
from d20cli.language.grammar_checks import (
    MAX_GROUP,
    check_group_size,
    check_labels,
    check_member_commas,
    check_side_count,
    message,
)
from d20cli.language.grammar_checks import MAX_WORD_DIGITS as MAX_WORD_DIGITS
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
)
from d20cli.language.roll_parts import parse_roll_line
from d20cli.language.vocabulary import (
    CHECK_VERBS,
    CHECK_WORD,
    CHECK_WORDS,
    CONTEST_VERBS,
    FORTUNE_USES,
    LUCKY,
    OTHER_VERBS,
    VERBS,
)

if TYPE_CHECKING:
    from d20cli.language.check_grammar import Item

assert set(VERBS) == set(CHECK_VERBS + CONTEST_VERBS + OTHER_VERBS)

# --- assembling requests --------------------------------------------------------------------


def _columns(items: list[Item], verb_column: int) -> tuple[tuple[str, int], ...]:
    seen: dict[str, int] = {"verb": verb_column}
    for item in items:
        seen.setdefault(item.kind, item.column)
    return tuple(seen.items())


def _plain_number(expr: Any) -> int | None:
    """The value of a modifier of signed numbers alone (`+1`, `-2`, `+1 -2`), else None."""
    if isinstance(expr, Arithmetic):
        values = [_plain_number(x) for x in (expr.first, *(x for _, x in expr.rest))]
        ops = [op for op, _ in expr.rest]
        if any(v is None for v in values) or not set(ops) <= {"+", "-"}:
            return None
        first, *rest = (v or 0 for v in values)
        return first + sum(-v if op == "-" else v for op, v in zip(ops, rest, strict=True))
    negative = isinstance(expr, Neg)
    if negative:
        expr = expr.operand
    if not isinstance(expr, Number) or expr.label is not None:
        return None
    return -expr.value if negative else expr.value


#: A sign after a space inside a damage expression: `dmg 1d8 +7`.
_SPACED_SIGN = re.compile(r"\s[+-][0-9(d]", re.IGNORECASE)


def _in_order(verb: str, text: str, items: list[Item]) -> list[Item]:
    """The words of a check, typed in any order, as the canonical order reads them: with a
    rank or score anywhere, a signed number is a rank adjustment (`attempt doomed reliable
    +1`, `attempt +1 doomed`). ParseError where the order counts: a label after `dmg`
    (its expression ends at the next word, so a word after it would name the attack)."""
    from d20cli.language.check_grammar import Item  # (built: this parse used it)

    kinds = {item.kind for item in items}
    if "rank" in kinds or "score" in kinds:
        out = []
        for item in items:
            number = _plain_number(item.value) if item.kind == "modifier" else None
            out.append(item if number is None else Item("adjust", number, item.column))
        items = out
    damage = next((item for item in items if item.kind == "dmg"), None)
    if damage is not None and not kinds & {"modifier", "label", "rank", "score"}:
        after = [item.column for item in items if item.column > damage.column]
        words = text[damage.column - 1 : min(after, default=len(text) + 1) - 1].rstrip()
        spaced = _SPACED_SIGN.search(words)
        if spaced is not None:
            sign = words[spaced.start() + 1 :].split()[0]
            raise ParseError(
                f"is {sign} the {verb}'s modifier or the damage's? The modifier comes "
                f"before dmg ({verb} {sign} ... dmg ...); for the damage, no space: "
                f"{words.replace(' ' + sign, sign)}",
                text,
                damage.column + spaced.start() + 1,
            )
    if damage is not None:
        for item in items:
            if item.kind == "label" and item.column > damage.column:
                raise ParseError(
                    f"the {verb}'s name comes before dmg: {verb} {item.value} ... dmg ... "
                    f"(a damage type is a [label] on the dice: dmg 1d8[{item.value}])",
                    text,
                    item.column,
                )
    return items


def _check(verb: str, text: str, items: list[Item], verb_column: int) -> CheckRequest:
    """The CheckRequest of a check's words: each sets the field its `vocabulary.Word`
    declares, by the word's merge ("count": how many times, "list": in order, "one":
    once; a flag word set twice is set)."""
    items = _in_order(verb, text, items)
    fields: dict[str, Any] = {}
    for item in items:
        kind = item.kind
        word = CHECK_WORD.get(kind)
        if kind == "adjust":  # several rank adjustments add up: `attempt trained +1 -1`
            fields["adjust"] = fields.get("adjust", 0) + int(item.value)
        elif kind == "target_name":
            if item.value == "ac" and verb != "attack":
                raise ParseError(
                    f"AC is what an attack is made against; a {verb} is against a DC: vs DC 15",
                    text,
                    item.column,
                )
        elif word is not None and word.merge == "count":
            fields[word.field] = fields.get(word.field, 0) + 1
        elif word is not None and word.merge == "list":
            fields.setdefault(word.field, []).append(item.value)
        elif item.value is True:  # a flag word (`fortune`, `lucky`): once is as twice
            fields[word.field if word is not None else kind] = True
        else:
            key = word.field if word is not None else "name" if kind == "label" else kind
            if key == "modifier" and key in fields:
                raise ParseError(
                    f"a {verb} takes one modifier: write them as one, like +5+2",
                    text,
                    item.column,
                )
            if key in fields:
                what = {"target": "one target (vs ...)", "damage": "one dmg expression"}
                raise ParseError(
                    f"a {verb} takes only {what.get(key, 'one ' + kind)}", text, item.column
                )
            fields[key] = item.value
    for name in _LISTS:
        if name in fields:
            fields[name] = tuple(fields[name])
    return CheckRequest(verb=verb, text=text, columns=_columns(items, verb_column), **fields)


#: The fields that list their words in order.
_LISTS = tuple(word.field for word in CHECK_WORDS if word.merge == "list")


def _member(verb: str, text: str, items: list[Item], verb_column: int) -> CheckRequest:
    """A group member or a contest side: a check with a label or a modifier."""
    if not any(item.kind in ("label", "modifier") for item in items):
        what = "group member" if verb == "group" else "side"
        raise ParseError(
            f"a {what} needs a label or a modifier (+3 adv)",
            text,
            items[0].column if items else None,
        )
    return _check("check", text, items, verb_column)


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
        sides = tuple(_member(verb, text, p, verb_column) for p in parts)
        return ContestRequest(verb, text, sides, columns=(("verb", verb_column),))
    if verb == "group":
        groups = [p for p in parts if isinstance(p, list)]
        named = [p for p in parts if not isinstance(p, list) and p.kind == "target_name"]
        if named and named[0].value == "ac":
            raise ParseError(
                "AC is what an attack is made against; a group check is against a DC: vs DC 12",
                text,
                named[0].column,
            )
        targets = [p for p in parts if not isinstance(p, list) and p.kind == "target"]
        rules = [p for p in parts if not isinstance(p, list) and p.kind == "group_rule"]
        for twice in (targets[1:2] or rules[1:2])[:1]:
            what = "one target (vs ...)" if twice.kind == "target" else "one group rule"
            raise ParseError(f"a group check takes only {what}", text, twice.column)
        if len(groups) > MAX_GROUP:
            extra = next((p for p in groups[MAX_GROUP] if not isinstance(p, list)), None)
            raise ParseError(
                f"a group check has at most {MAX_GROUP:,} members, not {len(groups):,}",
                text,
                extra.column if extra is not None else None,
            )
        check_member_commas(text)
        members = tuple(_member(verb, text, g, verb_column) for g in groups)
        return GroupRequest(
            verb,
            text,
            members,
            targets[0].value if targets else None,
            rules[0].value if rules else None,
            columns=_columns(targets + rules, verb_column),
        )
    items: dict[str, Item] = {p.kind: p for p in parts}
    columns = _columns(list(items.values()), verb_column)
    if verb == "compare":
        return CompareRequest(
            verb, text, items["first"].value, items["second"].value, columns=columns
        )
    if verb == "percent":
        return PercentRequest(
            verb, text, items["percent"].value, columns=columns, lucky=LUCKY in items
        )
    if verb == "luck":
        counts = {k: sum(1 for p in parts if p.kind == k) for k in ("adv", "dis")}
        for p in parts:
            if p.kind not in _LUCK_WORDS:
                raise ParseError(
                    f"a luck roll takes adv, dis, fortune or lucky, not {p.kind}",
                    text,
                    p.column,
                )
        return LuckRequest(
            verb,
            text,
            counts["adv"],
            counts["dis"],
            "fortune" in items,
            columns=columns,
            lucky=LUCKY in items,
        )
    if verb == "scores":
        players = items["players"].value if "players" in items else None
        return ScoresRequest(verb, text, players, columns=columns)
    if verb == "fortune":
        action = items["action"].value if "action" in items else "show"
        use = items["use"].value if "use" in items else FORTUNE_USES[0]
        return FortuneRequest(verb, text, action, use, columns=columns)
    raise AssertionError(verb)


#: The words a luck roll takes (its grammar reads every flag word, to say this).
_LUCK_WORDS = ("adv", "dis", "fortune", LUCKY)


def lines() -> dict[str, pp.ParserElement]:
    """The element of each verb but `roll` (d20cli.language.check_grammar), built at the
    first request that needs one."""
    from d20cli.language.check_grammar import LINES

    return LINES


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
    element = lines()[verb]
    try:
        with dice_grammar.parse_guard(line):
            toks = element.parse_string(line, parse_all=True)
    except pp.ParseBaseException as exc:
        loc = min(max(exc.loc, 0), len(line))
        raise ParseError(message(exc, line, element), line, loc + 1) from None
    request = _build(verb, line, toks, verb_column)
    check_labels(request, line)
    return request
