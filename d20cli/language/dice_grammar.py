"""The dice-notation grammar (pyparsing): text -> `d20cli.dice` syntax trees.

Grammar only: parse actions build dataclasses and nothing else (no rolling, no printing).
Keywords are case-insensitive (`4D6KH3` = `4d6kh3`).

    expression  := sum
    sum         := product (('+' | '-') product)*
    product     := unary (('*' | '/' | '%') unary)*     (% modulo, as avrae)
    unary       := '-'* atom
    atom        := dice | function | group | '(' sum ')' | integer label?
    function    := ('abs'|'ceil'|'floor'|'max'|'min'|'round') '(' sum (',' sum)* ')'
    group       := '{' sum (',' sum)* '}' (keep/drop | pool target)*
    dice        := (integer | '(' sum ')')? 'd' sides modifier* label?
    sides       := integer | '%' | 'F' | '{' signed (',' signed)* '}' | '(' sum ')'
                   (custom faces `d{0,0,1,2}`, rolled by position; computed `1d(1d4+2)`)
    modifier    := 'r' point | 'ro' point            reroll (again while it matches / once)
                 | '!' point? | '!!' point?          explode / compound (default: highest face)
                 | 'mi' integer | 'ma' integer       per-die floor / ceiling
                 | ('kh'|'kl'|'dh'|'dl'|'k'|'d') integer?  keep / drop (k = kh, d = dl; count 1)
                 | op integer ('f' point)?           dice pool: successes minus failures
                 | '!p' point? | '!!p' point?        penetrating explosion (extra dice -1)
                 | 'u'                               unique faces
                 | 'cs' point | 'cf' point           critical markers (no effect on the total)
                 | 's' | 'sa' | 'sd'                 sort the dice shown
    point       := op? integer                       (a bare number means '=')
    op          := '>=' | '<=' | '>' | '<' | '='
    label       := '[' text ']'
    roll line   := 'roll' (integer 'x')? expression ('adv' | 'dis' | target)* ('#' comment)?
    target      := ('vs' | op) signed-integer     success by total (`vs` means '>=')

Modifiers follow the dice with no space between them and may come in any order, each at
most once but rerolls, which chain (`2d6r1r2`; their grammar is in `dice_modifiers`);
evaluation order is fixed, see `d20cli.dice`. A compare point written right
after `!` belongs to the explosion: `6d10!>=7` explodes on 7+; a pool of exploding dice
is `6d10!=10>=7`.

Decisions: `0d6` is a valid term totalling 0 (no dice); a die has 1..1,000,000 sides
(`d0` and `d1000001` are errors at the sides' column); numbers have at most 12 digits;
input is at most 10,000 characters and parentheses nest at most 100 levels deep (and
the tree at most 200 levels), both ParseErrors, never a RecursionError; `Nx` repeats
1..1,000 times; `adv`/`dis` need exactly one plain `1d20` in the expression (`adv` and
`dis` together cancel; either one repeated is still one).

Public API: `expression` and `signed_expression` (pyparsing elements yielding exactly
one `dice.Expr` token, for other grammars to embed; the signed one also accepts a
leading `+`), `parse_expression(text)`, `parse_roll(line)`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pyparsing as pp

from d20cli.dice.advantage import adv_problem
from d20cli.dice.evaluate import unique_problem
from d20cli.dice.modifiers import MODIFIERS, Rule
from d20cli.dice.tree import (
    LIST_LIMIT,
    MAX_SIDES,
    MAX_TOTAL,
    Arithmetic,
    Call,
    Compare,
    Dice,
    Expr,
    Group,
    Neg,
    Number,
    Ref,
    walk,
)
from d20cli.errors import ParseError, not_a_digit
from d20cli.language.dice_modifiers import (
    MAX_DICE_DIGITS,
    _fail,
    _int,
    group_modifier,
    integer,
    label,
    modifier,
)
from d20cli.language.grammar_checks import expected, plain, roll_target
from d20cli.language.requests import RollRequest
from d20cli.language.vocabulary import (
    COMPLETION_WORDS,
    MAX_NX,
    MAX_REQUEST,
    MAX_TREE_DEPTH,
    VERBS,
)

pp.ParserElement.enable_packrat()

MAX_PAREN_DEPTH = 100
MAX_ITEMS = 100  # the most arguments of a function or expressions in a group
MAX_LIST_FACES = LIST_LIMIT  # the most faces of a custom die

_I = re.IGNORECASE


# --- terms ----------------------------------------------------------------------------

expression = pp.Forward()
expression.set_name("an expression")

_close = pp.Literal(")").set_name("')' (unbalanced parenthesis)")
# `(...)` around one expression; with a comma it is avrae's set (`_paren_set`).
_group = pp.Suppress("(") + expression + ~pp.Literal(",") - pp.Suppress(_close)


def _build_faces(s: str, loc: int, toks: pp.ParseResults) -> tuple[int, ...]:
    if len(toks) > MAX_LIST_FACES:
        raise _fail(s, loc, f"a custom die has at most {MAX_LIST_FACES:,} faces, not {len(toks):,}")
    return tuple(toks)  # one token: the tuple of faces


_custom_faces = (
    pp.Literal("{").leave_whitespace().suppress()
    - pp.DelimitedList(_int("a face value", signed=True), ",")
    - pp.Suppress(pp.Literal("}").set_name("'}' to close the faces"))
).set_parse_action(_build_faces)
_computed_sides = pp.Literal("(").leave_whitespace().suppress() - expression - pp.Suppress(_close)


#: rpg-dice-roller's Fudge dice: `dF.2` is `dF` (two faces each of -1, 0, +1), `dF.1` has
#: one -1, four blanks and one +1.
_FUDGE_ONE = (-1, 0, 0, 0, 0, 1)


def _fudge(s: str, loc: int, toks: pp.ParseResults) -> Any:
    variant = str(toks[0])[2:]
    if variant in ("", "2"):
        return "F"
    if variant == "1":
        return _FUDGE_ONE
    raise _fail(s, loc, f"dF.{variant[:6]}: a Fudge die is dF (dF.2) or dF.1")


_sides = (
    _int("a number of sides after 'd'", tight=True)
    | pp.Literal("%").leave_whitespace()  # 1 to 100 (avrae's tens die: peer_readings)
    | pp.Regex(r"F(\.[0-9]+)?", _I).leave_whitespace().set_parse_action(_fudge)
    | _custom_faces
    | _computed_sides
).set_name("a number of sides after 'd'")

# How a message names each modifier.
_MOD_NAMES = {m.field: m.what for m in MODIFIERS}


def _build_dice(s: str, loc: int, toks: pp.ParseResults) -> Dice:
    items = list(toks)
    count: int | Expr = 1
    if items[0] != "d":
        count = items.pop(0)
    items.pop(0)  # the 'd'
    sides_loc = items.pop(0)
    sides = items.pop(0)
    if isinstance(sides, int) and not 1 <= sides <= MAX_SIDES:
        raise _fail(s, sides_loc, f"a die needs 1 to {MAX_SIDES:,} sides, not {sides}")
    rules: dict[str, Any] = {}
    for kind, value, at in items:
        old = rules.get(kind)
        if old is not None:  # written again: chained rerolls (`2d6r1r2`), `cs` and `cf`
            joined = old.joined(value) if isinstance(old, Rule) else None
            if not isinstance(joined, Rule):
                what = "a label" if kind == "label" else _MOD_NAMES[kind]
                raise _fail(s, at, joined or f"the dice already have {what}")
            value = joined
        rules[kind] = value
    mods = {k: v.held() if isinstance(v, Rule) else v for k, v in rules.items()}
    if "explode" in mods:
        # rpg-dice-roller clamps before it explodes and leaves the extra dice alone, and
        # explodes before it rerolls: the same words would roll other numbers here.
        clash = [w for k, w in (("minimum", "'mi'"), ("maximum", "'ma'")) if k in mods]
        if clash:
            raise _fail(
                s,
                loc,
                f"{' and '.join(clash)} with an explosion roll differently in other rollers "
                "(rpg-dice-roller clamps the first dice before they explode and never the "
                "extra dice): roll them as two terms",
            )
        if "reroll" in mods:
            raise _fail(
                s,
                loc,
                "a reroll with an explosion rolls differently in other rollers "
                "(rpg-dice-roller explodes first, then rerolls): use one of them",
            )
    if isinstance(sides, tuple):
        lo, hi = min(sides), max(sides)
    elif isinstance(sides, int | str):
        lo, hi = (-1, 1) if sides == "F" else (1, 100 if sides == "%" else int(sides))
    else:  # computed sides: checked once they are rolled
        lo, hi = -MAX_TOTAL, MAX_TOTAL
    for kind in ("minimum", "maximum"):
        v = mods.get(kind)
        if v is not None and not lo <= v <= hi:
            raise _fail(s, loc, f"'{kind[:2]}{v}' is outside the die's faces {lo}..{hi}")
    if mods.get("minimum", lo) > mods.get("maximum", hi):
        raise _fail(s, loc, "'mi' is above 'ma'")
    try:
        term = Dice(count, sides, **mods)
    except ValueError as exc:
        raise _fail(s, loc, str(exc)) from None
    if term.unique and isinstance(count, int) and count > term.unique_faces():
        raise _fail(s, loc, unique_problem(term, count) or "")
    return term


_d_glued = pp.CaselessLiteral("d").leave_whitespace().set_parse_action(lambda: "d")
# A bare `d` only starts dice when a size follows, so words like `dis` or `dmg` in an
# embedding grammar are not mistaken for dice.
_d_alone = pp.Regex(r"d(?![a-eg-z])", _I).set_name("dice").set_parse_action(lambda: "d")
_sides_at = pp.Empty().leave_whitespace().set_parse_action(lambda s, loc, t: loc)

dice_term = (
    ((integer | _group) + _d_glued | _d_alone)
    - _sides_at
    + _sides
    + pp.ZeroOrMore(modifier)
    + pp.Opt(label)
).set_name("dice")
dice_term.set_parse_action(_build_dice)


def _build_number(toks: pp.ParseResults) -> Number:
    return Number(toks[0], toks[1][1] if len(toks) > 1 else None)


number = (integer + pp.Opt(label)).set_name("a number").set_parse_action(_build_number)

#: Words of the request language, never read as a character's value unless written `@word`.
_NOT_NAMES = frozenset(w.lower() for w in (*COMPLETION_WORDS, *VERBS))


def _build_ref(s: str, loc: int, toks: pp.ParseResults) -> Ref:
    word = str(toks[0])
    if not word.startswith("@") and word.lower() in _NOT_NAMES:
        raise pp.ParseException(s, loc, f"{word!r} is a word of the request language")
    if len(word) > 40:
        raise _fail(s, loc, "a name is at most 40 characters")
    return Ref(word.removeprefix("@").lower())


# A character's value by name (`1d20+dex`, `@dex`: the @ for a name that reads as dice or
# as a word of the language). Letters, digits and `_`: a `-` after a name subtracts.
name_ref = (
    pp.Regex(r"@?[a-z][a-z0-9_]*(?![\w'(])", _I)
    .set_name("a number, dice or a name")
    .set_parse_action(_build_ref)
)


def _negative_half(arg: Expr) -> bool:
    """Can `arg`, inside round(), be a negative half (`round((1d6-4)/2)`)? Roll20 and
    Foundry round -2.5 to -2 (JavaScript's Math.round), rpg-dice-roller to -3 (mathjs)."""
    nodes = [node for node, _ in walk(arg)]
    if any(isinstance(n, Ref) for n in nodes):
        return False  # a character's value: its bounds are known once it is resolved
    divides = any(isinstance(n, Arithmetic) and any(op == "/" for op, _ in n.rest) for n in nodes)
    return divides and arg.bounds()[0] < 0


def _build_call(s: str, loc: int, toks: pp.ParseResults) -> Call:
    name, *args = toks
    try:
        call = Call(name.lower(), tuple(args))
    except ValueError as exc:
        raise _fail(s, loc, str(exc)) from None
    if call.name == "round" and _negative_half(call.args[0]):
        raise _fail(
            s,
            loc,
            "round() of a value that can be a negative half differs between rollers "
            "(Roll20 and Foundry round -2.5 to -2, rpg-dice-roller to -3): write floor(X+1/2) "
            "to round halves up, or ceil(X-1/2) to round them down",
        )
    return call


_call = (
    pp.Regex(r"(abs|ceil|floor|max|min|round)(?=\()", _I).set_name("a function")
    + pp.Suppress("(")
    - pp.DelimitedList(expression, ",", max=MAX_ITEMS)
    - pp.Suppress(_close)
).set_parse_action(_build_call)


def _build_set(s: str, loc: int, toks: pp.ParseResults) -> Group:
    """avrae's set `(1d4, 2+2, 3d6kl1)kh1`: a group as `{...}` makes it, of whole
    expressions (`(3d6,)kh1`, a set of one, keeps 3d6 whole, as in avrae)."""
    return _build_braces(s, loc, toks, one=True)


def _build_braces(s: str, loc: int, toks: pp.ParseResults, one: bool = False) -> Group:
    items = [t for t in toks if not isinstance(t, tuple)]
    mods: dict[str, Any] = {}
    for kind, value, at in (t for t in toks if isinstance(t, tuple)):
        if kind in mods:
            raise _fail(s, at, f"the group already has {_MOD_NAMES[kind]}")
        mods[kind] = value
    if len(items) == 1 and mods and not one:
        raise _fail(
            s,
            loc,
            "a group of one expression with keep/drop or a target (rpg-dice-roller: per "
            "die) is not supported: put it on the dice, like 4d6>3+2d8>3",
        )
    return Group(tuple(items), **mods)


_braces = (
    pp.Suppress("{")
    - pp.DelimitedList(expression, ",", max=MAX_ITEMS)
    - pp.Suppress(pp.Literal("}").set_name("'}' to close the group"))
    + pp.ZeroOrMore(group_modifier)
).set_parse_action(_build_braces)

_paren_set = (
    pp.Suppress("(")
    + expression
    + pp.Suppress(",")
    - pp.Opt(pp.DelimitedList(expression, ",", max=MAX_ITEMS - 1, allow_trailing_delim=True))
    - pp.Suppress(_close)
    + pp.ZeroOrMore(group_modifier)
).set_parse_action(_build_set)

atom = (dice_term | _call | _braces | _paren_set | _group | number | name_ref).set_name(
    "a number, dice or '('"
)


def _build_unary(s: str, loc: int, toks: pp.ParseResults) -> Expr:
    *signs, e = toks
    if len(signs) > MAX_PAREN_DEPTH:
        raise _fail(s, loc, f"more than {MAX_PAREN_DEPTH} '-' signs in a row")
    for _ in signs:
        e = Neg(e)
    return e  # type: ignore[no-any-return]


# A unary `+` does nothing (avrae: `+5`, `2*+3`); a `-` negates.
unary = (pp.ZeroOrMore(pp.Literal("-") | pp.Suppress("+")) + atom).set_name("a number, dice or '('")
unary.set_parse_action(_build_unary)


def _build_chain(toks: pp.ParseResults) -> Expr:
    first, *rest = toks
    if not rest:
        return first  # type: ignore[no-any-return]
    return Arithmetic(first, tuple(zip(rest[::2], rest[1::2], strict=True)))


# `%` is avrae's modulo: the remainder with the divisor's sign (Python's), 7%3 is 1.
product = (unary + pp.ZeroOrMore(pp.one_of("* / %") - unary)).set_parse_action(_build_chain)
expression <<= (product + pp.ZeroOrMore(pp.one_of("+ -") - product)).set_parse_action(_build_chain)

signed_expression = (pp.Opt(pp.Suppress("+")) + expression).set_name("a signed expression")

# --- the roll line --------------------------------------------------------------------


def _repeat(s: str, loc: int, toks: pp.ParseResults) -> int:
    n = int(toks[0][:-1][: MAX_DICE_DIGITS + 1])
    if not 1 <= n <= MAX_NX:
        raise _fail(s, loc, f"repeat {n} times? it must be 1 to {MAX_NX:,}")
    return n


_repeat_el = pp.Regex(r"[0-9]+x", _I).set_name("a repeat like 6x").set_parse_action(_repeat)
_adv_word = pp.Regex(r"(advantage|adv|disadvantage|dis)(?![a-z])", _I).set_name("adv or dis")
_adv_word.set_parse_action(lambda s, loc, t: ("adv", t[0].lower(), loc))
_comment = pp.Regex(r"#.*").set_parse_action(lambda t: ("comment", t[0][1:].strip(), 0))


def _build_target(s: str, loc: int, toks: pp.ParseResults) -> tuple[str, Compare, int]:
    op = toks[0].lower()
    return ("target", Compare(">=" if op == "vs" else op, toks[1]), loc)


# `roll 3d6 vs 12` (12 or more), `roll 1d100 <= 45`: a target for the total. A compare
# glued to the dice (`6d10>=7`) is a pool; after a space it is the total's target.
_target = (
    pp.Regex(r"vs(?![a-z])|>=|<=|>|<|=", _I).set_name("a target like 'vs 12' or '<= 45'")
    - _int("a target number", signed=True)
).set_parse_action(_build_target)

roll_line = (
    pp.CaselessKeyword("roll").suppress()
    - pp.Opt(_repeat_el)
    + expression
    + pp.ZeroOrMore(_adv_word | _target)
    + pp.Opt(_comment)
)

# --- entry points ---------------------------------------------------------------------


def check_input(text: str) -> int:
    """Reject over-long input, over-deep parentheses and digits other than 0-9; return the
    parentheses' depth."""
    if len(text) > MAX_REQUEST:
        raise ParseError(
            f"the input is longer than {MAX_REQUEST:,} characters", text, MAX_REQUEST + 1
        )
    if not text.isascii():
        at = _foreign_digit(text)
        if at is not None:
            raise ParseError(not_a_digit(text[at]), text, at + 1)
    depth = deepest = 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
            if depth > MAX_PAREN_DEPTH:
                raise ParseError(
                    f"parentheses nest more than {MAX_PAREN_DEPTH} levels deep", text, i + 1
                )
            deepest = max(deepest, depth)
        elif ch in ")}":
            depth -= 1
    return deepest


def code_chars(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """Each character of `text` from `start`, with its index, that is request code: not
    inside a `[label]` (which may hold any character), and not in or after a `# comment`."""
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(depth - 1, 0)
        elif ch == "#" and not depth:
            return
        elif not depth:
            yield i, ch


def _foreign_digit(text: str) -> int | None:
    """Where the first digit other than 0-9 (٣, ５, ²) stands outside the free text of a
    request (a label, a comment). Numbers in requests are written with 0-9 only (a regex
    digit class and `int()` took any Unicode digit)."""
    return next((i for i, ch in code_chars(text) if not ch.isascii() and ch.isnumeric()), None)


_FRAMES_PER_LEVEL = 40  # pyparsing's recursion per level of parentheses (measured: ~31)


@contextmanager
def parse_guard(text: str) -> Iterator[None]:
    """Check `text` (length, depth) and give pyparsing the stack it needs for it.

    pyparsing recurses about 31 frames per level of parentheses, so 100 levels need more
    than Python's default limit of 1,000 frames. The limit is raised only for the parse
    and restored afterwards; a RecursionError still becomes a ParseError. Other grammars
    that embed `expression` can wrap their own parse in this too.
    """
    deepest = check_input(text)
    old = sys.getrecursionlimit()
    frame, used = sys._getframe(), 0
    while frame is not None:
        used += 1
        frame = frame.f_back  # type: ignore[assignment]
    need = used + 500 + _FRAMES_PER_LEVEL * deepest
    if need > old:
        sys.setrecursionlimit(need)
    try:
        yield
    except RecursionError:
        raise ParseError("the expression nests too deeply", text, 1) from None
    finally:
        if need > old:
            sys.setrecursionlimit(old)


def _tree_depth(e: Expr) -> int:
    return max(depth for _, depth in walk(e))


def _check_depth(e: Expr, text: str) -> None:
    if _tree_depth(e) > MAX_TREE_DEPTH:
        raise ParseError(f"the expression nests more than {MAX_TREE_DEPTH} levels deep", text, 1)


def _message(exc: pp.ParseBaseException, text: str) -> str:
    """A message a person understands, from pyparsing's."""
    msg = str(exc.msg)
    loc = exc.loc
    found = text[loc:].split(None, 1)[0] if text[loc:].strip() else ""
    if msg.startswith("Expected end of text"):
        if found.startswith("."):
            return "numbers must be whole (integers only)"
        if found.startswith(")"):
            return "unbalanced parenthesis: ')' without a matching '('"
        if _WORDS_ONLY.fullmatch(text[loc:]):  # `roll 1d20+5 stealth`: a comment, as peers
            return (
                f"unexpected '{found[:30]}': words after a roll are a comment, written after "
                f"'#': {text[:loc].rstrip()[:40]} # {text[loc:].strip()[:30]}"
            )
        target = roll_target(text, loc)
        return f"unexpected '{found}'" + (f": {target}" if target else "")
    if msg.startswith("Expected "):
        msg = "expected " + msg[len("Expected ") :]
        if "')' (unbalanced parenthesis)" in msg:
            return "unbalanced parenthesis: expected ')'"
        if msg.startswith("expected {") or msg.startswith("expected an expression"):
            msg = "expected a number, dice or '('"
        else:
            msg = "expected " + expected(exc, roll_line)
        if not found:
            return f"{msg}, found the end"
        target = roll_target(text, loc)
        return f"{msg}, found '{found[:20]}'" + (f" ({target})" if target else "")
    return plain(msg)


#: The rest of a roll that is words only (Avrae, Roll20 and Foundry read them as a comment).
_WORDS_ONLY = re.compile(r"[a-z][a-z' -]*", re.IGNORECASE)


def _error(exc: pp.ParseBaseException, text: str) -> ParseError:
    loc = min(max(exc.loc, 0), len(text))
    return ParseError(_message(exc, text), text, loc + 1)


def parse_expression(text: str) -> Expr:
    """The whole of `text` as one dice expression (ParseError with a 1-based column)."""
    try:
        with parse_guard(text):
            toks = expression.parse_string(text, parse_all=True)
    except pp.ParseBaseException as exc:
        raise _error(exc, text) from None
    e: Expr = toks[0]
    _check_depth(e, text)
    return e


def parse_roll(line: str) -> RollRequest:
    """`roll [Nx] EXPR [adv|dis] [# comment]` -> RollRequest (ParseError located in line)."""
    try:
        with parse_guard(line):
            toks = roll_line.parse_string(line, parse_all=True)
    except pp.ParseBaseException as exc:
        raise _error(exc, line) from None
    items = list(toks)
    repeat = 1
    if isinstance(items[0], int):
        repeat = items.pop(0)
    expr: Expr = items.pop(0)
    _check_depth(expr, line)
    adv_words = [(w, at) for kind, w, at in items if kind == "adv"]
    targets = [(t, at) for kind, t, at in items if kind == "target"]
    if len(targets) > 1:
        raise ParseError("a roll takes one target", line, targets[1][1] + 1)
    comments = [c for kind, c, _ in items if kind == "comment"]
    adv = 0
    if adv_words:
        problem = adv_problem(expr)
        if problem is not None:
            raise ParseError(problem, line, adv_words[0][1] + 1)
        has_adv = any(w.startswith("adv") for w, _ in adv_words)
        has_dis = any(w.startswith("dis") for w, _ in adv_words)
        adv = int(has_adv) - int(has_dis)
    comment = comments[0] if comments and comments[0] else None
    target = targets[0][0] if targets else None
    return RollRequest(text=line, expr=expr, repeat=repeat, adv=adv, comment=comment, target=target)
