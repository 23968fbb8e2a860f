"""A character's entries, resolved on the parsed request.

`check stealth vs 15 --as aria` is parsed first: the grammar reads `stealth` as the label
of the check and no modifier. Then `merge_entries` looks the label up in the character
(`Entries`: d20cli.store.characters.Character is one) and merges the entry's words
(`+7 expertise=d6`), parsed as the same verb's words, into the request:

- a label with no rank or score of its own is looked up; one with a modifier of its own
  is looked up when the character has an entry of that name (`check goblin +3` needs
  none), and the typed modifier is a situational bonus that adds to the entry's
  (`check stealth +2 vs 15` with stealth `+7 expertise=d6` rolls +7+2 with the expertise
  die; the request keeps it as `situational`, for the output to show);
- as each word's `vocabulary.Word.merge` says: words that count (adv, dis, reliable,
  unreliable) add up and lists (expertise grants, circumstances) are joined, the
  entry's first, as if its words stood after the label;
- a word that holds one value (a target, dmg, crit, min, crit-dmg, lucky, fortune) keeps
  the request's value when both give one: the request beats the character;
- after a check-like verb, each group member and each side of a contest resolve the same
  way (members and sides look in the character's `checks`, see Character.lookup).

Names inside expressions (`1d20+dex`, `attack +dex+prof vs 15 dmg 1d8+@str`, the grammar
reads them as `Ref` nodes) are replaced by the value of the entry of that name, looked up
as for the verb: a number or an expression, itself resolved (entries may use entries; a
circle is an error naming it). A plain number keeps the name as its label (`3[dex]`).

The resolved request's `text` is the line as typed with each entry's words shown after
its label (`check stealth +7 expertise=d6 vs 15`), and its columns point into that text,
so the output, the roll log and an error's caret show what was rolled. The meaning never
comes from that text: it is the merge above (tests check that parsing the shown text
gives the same request wherever the two do not both give a one-value word).

Pure: no I/O. The parse function is the caller's (the edge passes its cached parser).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from d20cli.dice.tree import Arithmetic, Call, Dice, Expr, Group, Neg, Number, Ref, walk
from d20cli.errors import D20Error, ParseError, closest
from d20cli.frozen import fields, replace
from d20cli.language.requests import (
    CheckRequest,
    ContestRequest,
    GroupRequest,
    Request,
    RollRequest,
)
from d20cli.language.vocabulary import CHECK_WORDS, MAX_TREE_DEPTH, MAX_TREE_NODES
from d20cli.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Entries(Protocol):
        """What resolving needs of a character: its name and its entries by label word."""

        @property
        def name(self) -> str: ...

        def lookup(self, word: str, verb: str) -> str | None: ...

        def entry_names(self) -> list[str]: ...


Parse = Callable[[str], Request]

#: Fields that count how often a word was given: the entry's and the request's add up.
_COUNTS = tuple(word.field for word in CHECK_WORDS if word.merge == "count")
#: Fields that list words in order: the entry's come first (its words stand first).
_LISTS = tuple(word.field for word in CHECK_WORDS if word.merge == "list")
#: Fields the merge does not take from an entry.
_OWN = frozenset(
    (
        "verb",
        "text",
        "name",
        "repeat",
        "columns",
        "word_kinds",
        "entry",
        "situational",
        "house_from",
    )
)
#: What a typed value of its own is that replaces an entry's: then the label is not looked
#: up. (A typed modifier adds to the entry's instead.)
_VALUES = ("rank", "score")


class _Inserts:
    """The entry words shown in the text: where each goes and how columns move."""

    def __init__(self) -> None:
        self.at: list[tuple[int, str]] = []  # (0-based offset after the label, " words")

    def add(self, offset: int, words: str) -> None:
        self.at.append((offset, " " + words))

    def shift(self, column: int) -> int:
        """The column (1-based) in the shown text of a word typed at `column`."""
        return column + sum(len(w) for at, w in self.at if at < column)

    def moved(self, offset: int) -> int:
        """Where 0-based `offset` of the typed text is in the shown text."""
        return offset + sum(len(w) for at, w in self.at if at < offset)

    def text(self, typed: str) -> str:
        out, last = [], 0
        for at, words in sorted(self.at):
            out += [typed[last:at], words]
            last = at
        return "".join([*out, typed[last:]])


def merge_entries(request: Request, entries: Entries, parse: Parse) -> Request:
    """`request` with its label words and the names in its expressions resolved through
    `entries` (see the module)."""
    return _values(_labels(request, entries, parse), entries, parse)


def _labels(request: Request, entries: Entries, parse: Parse) -> Request:
    """`request` with the entries of its label words merged in."""
    if isinstance(request, CheckRequest):
        verb = request.verb
        sides: Sequence[CheckRequest] = (request,)
    elif isinstance(request, GroupRequest):
        verb, sides = "check", request.members
    elif isinstance(request, ContestRequest):
        verb, sides = "check", request.sides
    else:
        return request
    inserts = _Inserts()
    found: list[tuple[CheckRequest, CheckRequest | None, int]] = []
    for side in sides:
        entry = _entry_of(side, verb, entries, parse)
        offset = 0
        if entry is not None:
            label = side.column("label") or 1
            offset = label - 1 + len(side.name or "")
            inserts.add(offset, entry.text.split(None, 1)[1])
        found.append((side, entry, offset))
    if not inserts.at:
        return request
    text = inserts.text(request.text)
    merged = tuple(_merge(side, entry, offset, inserts, text) for side, entry, offset in found)
    if isinstance(request, CheckRequest):
        return merged[0]
    columns = tuple((kind, inserts.shift(col)) for kind, col in request.columns)
    if isinstance(request, GroupRequest):
        return replace(request, text=text, members=merged, columns=columns)
    return replace(request, text=text, sides=merged, columns=columns)


def merge_party(request: Request, party: Sequence[Entries], parse: Parse) -> Request:
    """`request` rolled by a party (`--as party`, `--as aria,bob`): a group check with one
    member gets one member per character, each with that character's entry (`group
    stealth vs 15`); a group or a contest with as many members or sides as characters
    gets member i, side i, through character i. Other requests are an error: a party
    rolls together."""
    if isinstance(request, GroupRequest):
        rows, kind = request.members, "members"
    elif isinstance(request, ContestRequest):
        rows, kind = request.sides, "sides"
    else:
        raise ParseError(
            f"a party rolls group checks and contests, not a {request.verb}: "
            "give one character, --as NAME",
            request.text,
            1,
        )
    if len(rows) == 1 and kind == "members":
        rows = tuple(rows) * len(party)
    if len(rows) != len(party):
        who = ", ".join(e.name for e in party)
        raise ParseError(
            f"the {kind} of this {request.verb} are {len(rows)} and the party is {len(party)} "
            f"({who}): give one {kind[:-1]} per character"
            + (", or one member that each rolls" if kind == "members" else ""),
            request.text,
            1,
        )
    done = []
    for row, entries in zip(rows, party, strict=True):
        entry = _entry_of(row, "check", entries, parse)
        merged = _merge(row, entry, 0, _Inserts(), row.text, placed=False)
        done.append(_check_values(merged, "check", _Values(entries, parse)))
    if isinstance(request, GroupRequest):
        return replace(request, members=tuple(done))
    return replace(request, sides=tuple(done))


def _entry_of(side: CheckRequest, verb: str, entries: Entries, parse: Parse) -> CheckRequest | None:
    """The parsed words of the entry `side`'s label names (None: nothing to look up)."""
    word = side.name
    if word is None or any(getattr(side, f) is not None for f in _VALUES):
        return None
    words = entries.lookup(word, verb)
    if words is None and side.modifier is not None:
        near = closest(word, entries.entry_names())
        if near.startswith("; did you mean"):  # `check +5 vs 15 stelth`: a typo of an entry
            raise ParseError(
                f"{entries.name} has no entry {word!r}{near} (a label of its own is written "
                f"[{word}])",
                side.text,
                side.column("label"),
            )
        return None  # a label of its own with its modifier: `check goblin +3`
    if words is None:
        raise ParseError(
            f"{entries.name} has no entry {word!r}{closest(word, entries.entry_names())}",
            side.text,
            side.column("label"),
        )
    words = " ".join(words.split("#", 1)[0].split())
    where = f"{entries.name}'s entry {word!r} ({words!r})"
    if not words:
        raise ParseError(f"{where} holds no words", side.text, side.column("label"))
    try:
        entry = parse(f"{verb} {words}")
    except D20Error as err:
        raise ParseError(f"in {where}: {err.message}", side.text, side.column("label")) from err
    if not isinstance(entry, CheckRequest) or entry.name is not None or entry.repeat != 1:
        raise ParseError(
            f"{where} must be the words of a {verb} (a modifier and options), not a label",
            side.text,
            side.column("label"),
        )
    return entry


def _merge(
    side: CheckRequest,
    entry: CheckRequest | None,
    offset: int,
    inserts: _Inserts,
    text: str,
    placed: bool = True,
) -> CheckRequest:
    """`side` with `entry` merged in. `placed`: the entry's words are shown in `text` after
    the label (`offset`), so their columns point there; else they have none."""
    columns = {kind: inserts.shift(col) for kind, col in side.columns}
    if entry is None:
        return replace(side, text=text, columns=tuple(columns.items()))
    changes: dict[str, Any] = {}
    for f in fields(CheckRequest):
        if f.name in _OWN or not f.init:
            continue
        mine, theirs = getattr(side, f.name), getattr(entry, f.name)
        if f.name in _COUNTS or f.name in _LISTS:
            changes[f.name] = theirs + mine
        elif f.name == "modifier" and mine is not None and theirs is not None:
            changes["modifier"] = _plus(theirs, mine)  # a situational bonus adds up
            changes["situational"] = _signed(mine)
        elif mine in (None, False) and theirs not in (None, False):
            changes[f.name] = theirs
    # the entry's words stand after the label: `verb ` is where they start in its text
    moved = inserts.moved(offset) - len(entry.verb)
    for kind, col in entry.columns if placed else ():
        if kind != "verb" and (kind not in columns or col + moved < columns[kind]):
            columns[kind] = col + moved
    order = [kind for kind, _ in sorted(columns.items(), key=lambda kc: kc[1])]
    if placed:  # the words shown after the label, for the output to name
        changes["entry"] = entry.text.split(None, 1)[1]
    return replace(
        side, text=text, columns=tuple((kind, columns[kind]) for kind in order), **changes
    )


def _plus(entry: Expr, typed: Expr) -> Expr:
    """The entry's modifier with the typed one added: `+7` and `+2` make `7+2`, and `-1`
    makes `7-1`."""
    if isinstance(typed, Neg):
        return Arithmetic(entry, (("-", typed.operand),))
    return Arithmetic(entry, (("+", typed),))


def _signed(e: Expr) -> str:
    """A modifier as typed after a label: `+2`, `-1`, `+1d4`."""
    text = str(e)
    return text if text.startswith("-") else f"+{text}"


# --- names inside expressions ----------------------------------------------------------


def _values(request: Request, entries: Entries, parse: Parse) -> Request:
    """`request` with each name in its expressions (`1d20+dex`, `dmg 1d8+@str`) replaced
    by the value of the character's entry of that name, looked up as for the verb."""
    values = _Values(entries, parse)
    if isinstance(request, RollRequest):
        return _roll_values(request, values)
    if isinstance(request, CheckRequest):
        return _check_values(request, request.verb, values)
    if isinstance(request, GroupRequest):
        members = tuple(_check_values(m, "check", values) for m in request.members)
        return replace(request, members=members)
    if isinstance(request, ContestRequest):
        sides = tuple(_check_values(m, "check", values) for m in request.sides)
        return replace(request, sides=sides)
    return request


def _roll_values(request: RollRequest, values: _Values) -> RollRequest:
    if not request.parts:
        return replace(request, expr=values.expr(request.expr, "roll"))
    parts = tuple(_roll_values(p, values) for p in request.parts)
    return replace(request, expr=parts[0].expr, parts=parts)


def _check_values(side: CheckRequest, verb: str, values: _Values) -> CheckRequest:
    modifier = side.modifier and values.expr(side.modifier, verb)
    damage = side.damage and values.expr(side.damage, verb)
    if modifier is side.modifier and damage is side.damage:
        return side
    return replace(side, modifier=modifier, damage=damage)


class _Shape(NamedTuple):
    """An expression with its names replaced, and how big it is: its nodes and levels."""

    expr: Expr
    nodes: int
    depth: int


class _Values:
    """The names of one request's expressions resolved through a character's entries.

    Each entry's value is worked out once per request (entries that use an entry several
    times share it), and its size is counted before the tree that holds it is built: a
    resolved expression may hold MAX_TREE_NODES nodes and MAX_TREE_DEPTH levels, as many
    as the longest typed request. Entries that use entries several times grow as a power
    of how deep they go (`e0 = "+e1+e1+e1"`, `e1 = "+e2+e2+e2"`, ...: 3**13 terms at 13
    levels), so the size, not the depth alone, is what is bounded."""

    def __init__(self, entries: Entries, parse: Parse) -> None:
        self.entries, self.parse = entries, parse
        self.known: dict[tuple[str, str], _Shape] = {}

    def expr(self, e: Expr, verb: str) -> Expr:
        """`e` with its names replaced (itself when it has none)."""
        return self._resolve(e, verb, (), None).expr

    def _resolve(self, e: Expr, verb: str, chain: tuple[str, ...], name: str | None) -> _Shape:
        """`e` resolved; `chain`: the names whose values are being read (to find a circle);
        `name`: the entry `e` is the value of (None: the request's own expression)."""
        nodes, depth, refs = 0, 0, []
        for node, level in walk(e):
            if isinstance(node, Ref):
                refs.append((node.name, level))
            else:
                nodes, depth = nodes + 1, max(depth, level)
        if not refs:
            return _Shape(e, nodes, depth)
        shapes: dict[str, _Shape] = {}
        for ref, level in refs:
            if ref not in shapes:
                shapes[ref] = self._value(ref, verb, chain)
            nodes += shapes[ref].nodes
            depth = max(depth, level - 1 + shapes[ref].depth)
        what = "this expression" if name is None else f"{self.entries.name}'s entry {name!r}"
        if nodes > MAX_TREE_NODES:
            big = max(shapes, key=lambda ref: shapes[ref].nodes)
            raise ParseError(
                f"{what} grows to more than {MAX_TREE_NODES:,} terms with the entries it "
                f"uses put in ({big!r} holds {shapes[big].nodes:,}): an entry that uses others "
                "several times repeats them each time; write its value out or use fewer levels"
            )
        if depth > MAX_TREE_DEPTH:
            raise ParseError(
                f"{what} nests more than {MAX_TREE_DEPTH} levels deep with the entries it "
                "uses put in: use fewer levels of entries"
            )
        return _Shape(_substitute(e, lambda ref: shapes[ref.name].expr), nodes, depth)

    def _value(self, name: str, verb: str, chain: tuple[str, ...]) -> _Shape:
        """The value of the entry `name`: a number (shown with the name as its label,
        `3[dex]`) or an expression, itself with its names resolved."""
        entries = self.entries
        if name in chain:
            cycle = " -> ".join((*chain[chain.index(name) :], name))
            raise ParseError(f"{entries.name}'s entries refer to each other in a circle: {cycle}")
        if (name, verb) in self.known:
            return self.known[name, verb]
        words = entries.lookup(name, verb)
        if words is None:
            raise ParseError(
                f"{entries.name} has no entry {name!r}{closest(name, entries.entry_names())}"
            )
        words = " ".join(words.split("#", 1)[0].split())
        where = f"{entries.name}'s entry {name!r} ({words!r})"
        try:
            entry = self.parse(f"check {words}") if words else None
        except D20Error as err:
            raise ParseError(f"in {where}: {err.message}") from err
        if isinstance(entry, CheckRequest) and entry.word_kinds == {"score"} and entry.name is None:
            entry = replace(entry, modifier=Number(entry.score or 0), score=None)  # `prof = 2`
        if (
            not isinstance(entry, CheckRequest)
            or entry.modifier is None
            or entry.word_kinds != {"modifier"}
            or entry.name is not None
        ):
            raise ParseError(
                f"{where} is not a value: a name in an expression stands for a number or a "
                "dice expression (`+3`, `+dex+prof`), not for other words"
            )
        if len(chain) >= MAX_TREE_DEPTH:
            raise ParseError(
                f"{entries.name}'s entries use one another more than {MAX_TREE_DEPTH} deep "
                f"(through {name!r})"
            )
        shape = self._resolve(entry.modifier, verb, (*chain, name), name)
        if isinstance(shape.expr, Number) and shape.expr.label is None:
            shape = shape._replace(expr=Number(shape.expr.value, name))
        self.known[name, verb] = shape
        return shape


def _substitute(e: Expr, value_of: Callable[[Ref], Expr]) -> Expr:
    """`e` with every Ref replaced by `value_of(ref)` (rebuilt only where something changed)."""
    if isinstance(e, Ref):
        return value_of(e)
    if isinstance(e, Neg):
        return Neg(_substitute(e.operand, value_of))
    if isinstance(e, Arithmetic):
        rest: list[tuple[str, Expr]] = []
        for op, x in e.rest:
            y = _substitute(x, value_of)
            if isinstance(x, Ref) and isinstance(y, Neg) and op in "+-":  # `1d8+str`, str -1
                op, y = "-" if op == "+" else "+", y.operand  # shown `1d8-1`, not `1d8+-1`
            rest.append((op, y))
        return Arithmetic(_substitute(e.first, value_of), tuple(rest))
    if isinstance(e, Call):
        return replace(e, args=tuple(_substitute(x, value_of) for x in e.args))
    if isinstance(e, Group):
        return replace(e, items=tuple(_substitute(x, value_of) for x in e.items))
    if isinstance(e, Dice):
        count = e.count if isinstance(e.count, int) else _substitute(e.count, value_of)
        sides = e.sides
        if not isinstance(sides, int | str | tuple):
            sides = _substitute(sides, value_of)
        return replace(e, count=count, sides=sides)
    return e
