"""Requests by shape: a request text with its numbers as slots (`check +5 vs 15` and
`check +3 vs 12` share the shape `check +# vs #`), so a new text of a known shape is
read without the grammar (d20cli.store.shape_cache keeps the file).

A template is the parsed request of one text as parse_cache's JSON, with a marker where
a slot's number lands (`{"@s": i}`, `{"@s": i, "neg": 1}` for `-N` read as one signed
number), each column as a place in the text's pieces (`{"@c": [segment, offset]}`), and
the slots whose number is part of the meaning (`expertise=d6`, the `20` of `1d20 adv`)
kept as they are (`fixed`): a text matches only with those digits.

`shape_probes.build` makes a template from a text the grammar has just parsed, by parsing
probes: every number changed at once (or, if that does not show each number's place, one
at a time) must change exactly one number of the request, at a field whose limits are
known here (`RULES`); else the number is fixed. With the text's own numbers and with the
probe's, the template must give exactly what the grammar gives, or the shape is not
cached. `fill` puts a text's numbers into a template and checks them as the grammar's
parse actions would (digits, dice sides, house numbers, repeats, `mi`/`ma` within the
faces, `u`, adv on one plain d20), then parse_cache.decode checks the whole request.
A fill the grammar would refuse is `Refused` (a miss: the caller parses the
text, so errors and carets always come from the grammar); a template that is not one
`build` could have written is ValueError (or KeyError, TypeError).

A label's words in brackets are a slot too, a word slot (`roll 2d6+3 [fire]` and `roll
1d8+1 [cold]` share the shape `roll #d#+# [#]`), when they are letters and single spaces,
at most MAX_WORD characters, and land at a field of `LABELS` (the grammar keeps a bracket's
text as it is, whatever its words: a probe with another label shows where it lands); any
other label stays part of the shape's pieces, as before. A word slot takes only a word and
a number slot only digits (`[5]` and `[fire]` share a shape, not a template).

Only ASCII, printable texts of at most MAX_SHAPE_TEXT characters with 1 to MAX_SLOTS slots,
their numbers written without leading zeros, have a shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from d20cli.dice import tree
from d20cli.dice.advantage import adv_problem
from d20cli.frozen import fields, is_frozen
from d20cli.language import parse_cache
from d20cli.language.requests import RollRequest, Target
from d20cli.language.vocabulary import (
    HOUSE_RANGE,
    MAX_NUMBER,
    MAX_NX,
    MAX_SIGNED,
    MAX_WORD_NUMBER,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

MAX_SHAPE_TEXT = 500  # characters of a text that has a shape
MAX_SLOTS = 40  # numbers and labels in it
MAX_WORD = 32  # characters of a label that is a slot

#: A slot: a run of digits, or a label's words (letters, single spaces) filling its brackets.
#: (A group: `split` keeps the slots between the pieces.)
_SLOTS = re.compile(
    rf"([0-9]+|(?<=\[)(?=[A-Za-z ]{{1,{MAX_WORD}}}\])[A-Za-z]+(?: [A-Za-z]+)*(?=\]))"
)
_VERB = re.compile(r"[\s,]")

#: Where a slot's number may land: (class, field) -> (lowest, highest, highest when read
#: with its '-' as one negative number, or None when it never is). The grammar's limits,
#: as d20cli.language.vocabulary states them (and tree.MAX_SIDES, the dice engine's).
#: Any other field keeps its slot fixed.
RULES: dict[tuple[str, str], tuple[int, int, int | None]] = {
    ("Number", "value"): (0, MAX_NUMBER, None),
    ("Dice", "count"): (0, MAX_NUMBER, None),
    ("Dice", "sides"): (1, tree.MAX_SIDES, None),
    ("Dice", "minimum"): (0, MAX_NUMBER, MAX_SIGNED),
    ("Dice", "maximum"): (0, MAX_NUMBER, MAX_SIGNED),
    ("Keep", "n"): (0, MAX_NUMBER, None),
    ("Compare", "value"): (0, MAX_NUMBER, MAX_SIGNED),
    ("Target", "value"): (0, MAX_WORD_NUMBER, MAX_WORD_NUMBER),
    ("CheckRequest", "score"): (0, MAX_WORD_NUMBER, None),
    ("CheckRequest", "adjust"): (0, MAX_WORD_NUMBER, MAX_WORD_NUMBER),
    ("CheckRequest", "crit"): (*HOUSE_RANGE, None),
    ("CheckRequest", "floor"): (*HOUSE_RANGE, None),
    ("CompareRequest", "first"): (0, MAX_WORD_NUMBER, MAX_WORD_NUMBER),
    ("CompareRequest", "second"): (0, MAX_WORD_NUMBER, MAX_WORD_NUMBER),
    ("PercentRequest", "percent"): (0, MAX_WORD_NUMBER, None),
    ("ScoresRequest", "players"): (0, MAX_WORD_NUMBER, None),
    ("RollRequest", "repeat"): (1, MAX_NX, None),
}

#: Where a word slot (a label's words) may land: the fields that keep a bracket's text as it
#: is typed (the dice grammar's `[label]` of a term, the check grammar's `[name]`).
LABELS: frozenset[tuple[str, str]] = frozenset(
    {("Dice", "label"), ("Number", "label"), ("CheckRequest", "name")}
)


class Refused(Exception):
    """A text's numbers do not fit its shape's template (the grammar decides)."""


def split(text: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The text's pieces around its slots and the slots (as typed: the numbers, and the
    labels' words, `is_word`), or None when it has no shape (see the module doc)."""
    if len(text) > MAX_SHAPE_TEXT or not text.isascii() or not text.isprintable():
        return None
    parts = _SLOTS.split(text)  # piece, slot, piece, ..., piece: one pass
    numbers = tuple(parts[1::2])
    if not numbers or len(numbers) > MAX_SLOTS:
        return None
    for number in numbers:  # (each is a whole run of digits, or a word)
        if number[0] == "0" and len(number) > 1:
            return None  # a leading zero
    return tuple(parts[0::2]), numbers


def is_word(slot: str) -> bool:
    """Whether a slot of `split` is a label's words (else it is a number)."""
    return not slot[0].isdigit()


def key(pieces: tuple[str, ...]) -> str:
    """The shape: the pieces joined by '#' ('#' and '\\' in a piece escaped)."""
    joined = "#".join(pieces)
    if "\\" not in joined and joined.count("#") == len(pieces) - 1:
        return joined  # (no piece holds '#' or '\\': nothing to escape)
    return "#".join(p.replace("\\", "\\\\").replace("#", "\\#") for p in pieces)


def join(pieces: tuple[str, ...], numbers: tuple[str, ...]) -> str:
    out = [pieces[0]]
    for number, piece in zip(numbers, pieces[1:], strict=True):
        out += (number, piece)
    return "".join(out)


def starts(pieces: tuple[str, ...], numbers: tuple[str, ...]) -> list[tuple[int, int]]:
    """Each segment's start and length: piece 0, number 0, piece 1, ... (2n + 1)."""
    out, at = [], 0
    for i, piece in enumerate(pieces):
        out.append((at, len(piece)))
        at += len(piece)
        if i < len(numbers):
            out.append((at, len(numbers[i])))
            at += len(numbers[i])
    return out


def instances(value: Any, cls: type | tuple[type, ...]) -> Iterator[Any]:
    """Every instance of `cls` (a class or a tuple of classes) in a request (any depth,
    the request itself too)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, cls):
            yield node
        if isinstance(node, tuple):
            stack.extend(v for v in node if not isinstance(v, _LEAVES))
        elif is_frozen(node):
            stack.extend(
                v
                for f in fields(node)
                if f.init and not isinstance(v := getattr(node, f.name), _LEAVES)
            )


_LEAVES = (int, str, type(None))  # (what holds no request part: not walked into)


# --- filling a template --------------------------------------------------------------------


class _Filler:
    def __init__(self, pieces: tuple[str, ...], numbers: tuple[str, ...]) -> None:
        self.numbers = numbers
        self.segments = starts(pieces, numbers)
        self.used: set[int] = set()

    def value(self, node: Any, cls: str, field: str, depth: int) -> Any:
        if depth > parse_cache.MAX_JSON_DEPTH:
            raise ValueError("a template nests too deeply")
        if isinstance(node, list):
            raise ValueError("lists are not in a template")
        if not isinstance(node, dict):
            return node
        if "@s" in node:
            return self.slot(node, cls, field)
        if "@w" in node:
            return self.word(node, cls, field)
        if "@c" in node:
            return self.column(node, field)
        if "@t" in node:
            items = node["@t"]
            if not isinstance(items, list) or len(node) != 1:
                raise ValueError("a bad tuple")
            inner = field if field == "columns" else field + "[]"  # an item, not the field
            return {"@t": [self.value(x, cls, inner, depth + 1) for x in items]}
        here = node.get("@", cls)
        if not isinstance(here, str):
            raise ValueError("a bad class name")
        return {k: v if k == "@" else self.value(v, here, k, depth + 1) for k, v in node.items()}

    def slot(self, node: dict[str, Any], cls: str, field: str) -> int:
        i, neg = node["@s"], node.get("neg", 0)
        if (
            set(node) - {"@s", "neg"}
            or type(i) is not int
            or not 0 <= i < len(self.numbers)
            or neg not in (0, 1)
            or i in self.used
        ):
            raise ValueError("a bad slot")
        self.used.add(i)
        low, high, neg_high = RULES[(cls, field)]
        if neg and neg_high is None:
            raise ValueError(f"{cls}.{field} is never negative")
        digits = self.numbers[i]
        if is_word(digits):
            raise Refused("a label where a number goes")
        if len(digits) > 12:
            raise Refused(f"{digits[:20]} has too many digits")
        n = int(digits)
        if not low <= n <= (neg_high if neg and neg_high is not None else high):
            raise Refused(f"{n} does not fit {cls}.{field}")
        return -n if neg else n

    def word(self, node: dict[str, Any], cls: str, field: str) -> str:
        i = node["@w"]
        if (
            len(node) != 1
            or type(i) is not int
            or not 0 <= i < len(self.numbers)
            or i in self.used
            or (cls, field) not in LABELS
        ):
            raise ValueError("a bad word slot")
        self.used.add(i)
        word = self.numbers[i]
        if not is_word(word):
            raise Refused("a number where a label goes")
        return word

    def column(self, node: dict[str, Any], field: str) -> int:
        place = node["@c"]
        if field != "columns" or len(node) != 1 or not isinstance(place, list) or len(place) != 2:
            raise ValueError("a bad column")
        k, offset = place
        if type(k) is not int or type(offset) is not int or not 0 <= k < len(self.segments):
            raise ValueError("a bad column")
        start, length = self.segments[k]
        if not (offset == 0 if k % 2 else 0 <= offset <= length):
            raise ValueError("a bad column")
        return start + offset + 1


def fill(entry: Any, pieces: tuple[str, ...], numbers: tuple[str, ...], text: str) -> Any:
    """The request `text` (whose pieces and numbers these are) means, from its shape's
    template `entry`. Refused when the numbers do not fit (the grammar would refuse or
    read the text otherwise); ValueError, KeyError or TypeError for a bad template."""
    if not isinstance(entry, dict) or set(entry) != {"shape", "fixed", "tree"}:
        raise ValueError("not a template")
    if entry["shape"] != key(pieces):
        raise ValueError("a template of another shape")
    fixed = entry["fixed"]
    if not isinstance(fixed, list):
        raise ValueError("a bad template")
    held: set[int] = set()
    for pair in fixed:
        i, digits = pair
        if type(i) is not int or not 0 <= i < len(numbers) or not isinstance(digits, str):
            raise ValueError("a bad fixed slot")
        held.add(i)
        if numbers[i] != digits:
            raise Refused("a number of this shape's meaning differs")
    filler = _Filler(pieces, numbers)
    data = filler.value(entry["tree"], "", "", 0)
    if held & filler.used or len(held) + len(filler.used) != len(numbers):
        raise ValueError("a template's slots do not match its shape")
    try:  # the limits of the grammar, checked again on the whole request
        request = parse_cache.decode(data, parse_cache.classes(), text)
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as err:
        raise Refused(str(err)) from None
    _check(request, text)
    return request


def _check(request: Any, text: str, found: Iterable[Any] | None = None) -> None:
    """The checks of the dice grammar's parse actions that depend on numbers, on the
    dice and rolls of the request (`found`: those a `Ready` template built)."""
    rolls = []
    if found is None:
        found = instances(request, (tree.Dice, RollRequest))
    for d in found:
        if isinstance(d, RollRequest):
            rolls.append(d)
            continue
        sides = d.sides
        if isinstance(sides, int) and not 1 <= sides <= tree.MAX_SIDES:
            raise Refused("sides")
        if isinstance(sides, tuple):
            lo, hi = min(sides), max(sides)
        elif isinstance(sides, int | str):
            lo, hi = (-1, 1) if sides == "F" else (1, 100 if sides == "%" else int(sides))
        else:
            lo, hi = -tree.MAX_TOTAL, tree.MAX_TOTAL
        for v in (d.minimum, d.maximum):
            if v is not None and not lo <= v <= hi:
                raise Refused("mi/ma outside the faces")
        low = d.minimum if d.minimum is not None else lo
        if low > (d.maximum if d.maximum is not None else hi):
            raise Refused("mi above ma")
        if d.unique and isinstance(d.count, int) and d.count > d.unique_faces():
            raise Refused("u")
    for r in rolls:
        if r.adv and adv_problem(r.expr) is not None:
            raise Refused("adv")
    if request.verb != _VERB.split(text.lstrip(), maxsplit=1)[0].lower():
        raise Refused("a request of another verb")


# --- a template made ready: compiled into one function ----------------------------------

#: A ready template's function: (pieces, numbers, text) -> (the request, the dice and roll
#: requests it built, which `_check` reads).
Build: TypeAlias = "Callable[[tuple[str, ...], tuple[str, ...], str], tuple[Any, tuple[Any, ...]]]"


class Ready:
    """A template `fill` has read once, compiled into one function: filling it again
    calls the request's constructors with the text's numbers, in one generated function
    (as results.RESULT_JSON's writer is generated), without walking the template's JSON
    or decoding it. Every check `fill` makes that a text's numbers can change is made
    here too (the fixed digits, each slot's limits as the grammar and parse_cache.decode
    state them, the entry's size against the text's length, the constructors' own checks
    and `_check`); the rest (the classes, the fields' types, the nesting) depend on the
    template alone and passed when `fill` read it. So `Ready(...).fill` gives what `fill`
    gives, or Refused where it refuses (a property test holds them equal).

    The generated source holds only names it made and integers it checked: every class,
    field value and string of the template is a constant of the function's namespace, and
    a field name that is not one of its class's fields is ValueError."""

    __slots__ = ("build", "fixed", "longest", "nodes", "source", "widest")

    def __init__(self, entry: Any) -> None:
        """`entry`: a template `fill` has just filled without error."""
        self.fixed = tuple((i, digits) for i, digits in entry["fixed"])
        self.nodes = 0  # the JSON objects a filled entry holds (parse_cache's node count)
        self.longest = 0  # its longest string
        self.widest = 0  # its longest tuple (but members and sides, bounded alone)
        code = _Code()
        value = self._part(code, entry["tree"], "", "", False, parse_cache.classes())
        self.source = code.source(value)
        space = dict(code.space)
        exec(self.source, space)  # (the source holds no text of the template: see above)
        self.build: Build = space["build"]

    def fill(self, pieces: tuple[str, ...], numbers: tuple[str, ...], text: str) -> Any:
        for i, digits in self.fixed:
            if numbers[i] != digits:
                raise Refused("a number of this shape's meaning differs")
        if self.nodes > parse_cache.NODES_PER_CHARACTER * len(text) + 64:
            raise Refused("an entry is larger than its text allows")
        if self.longest > max(len(text), 32) or self.widest > len(text) + 1:
            raise Refused("a string or tuple longer than the text allows")
        try:
            request, found = self.build(pieces, numbers, text)
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as err:
            raise Refused(str(err)) from None
        _check(request, text, found)
        return request

    def _part(
        self,
        code: _Code,
        node: Any,
        cls: str,
        field: str,
        in_request: bool,
        classes: dict[str, type],
    ) -> str:
        """A part of the template: the expression of its value in the generated function
        (a constant's name when no number of the text changes it, else a local's), its
        statements written into `code` in the order the template is walked."""
        if not isinstance(node, dict):
            if isinstance(node, str):
                self.longest = max(self.longest, len(node))
            return code.constant(node)
        if "@s" in node:
            rule = RULES[(cls, field)]
            return code.slot(node["@s"], node.get("neg", 0), rule, field, in_request)
        if "@w" in node:
            if (cls, field) not in LABELS:
                raise ValueError(f"{cls}.{field} holds no label")
            return code.word(node["@w"])
        if "@c" in node:
            k, offset = node["@c"]
            return code.column(k, offset)
        self.nodes += 1
        if "@r" in node:
            return "text"
        if "@t" in node:
            items = node["@t"]
            if field not in ("members", "sides"):
                self.widest = max(self.widest, len(items))
            inner = field if field == "columns" else field + "[]"
            parts = [self._part(code, x, cls, inner, in_request, classes) for x in items]
            if not any(code.varies(p) for p in parts):
                return code.constant(tuple(code.space[p] for p in parts))
            return code.local("(" + "".join(f"{p}, " for p in parts) + ")")
        made = classes[node["@"]]
        inside = made in parse_cache.REQUESTS or made is Target
        names = {f.name for f in fields(made) if f.init}
        kwargs: list[tuple[str, str]] = []
        for name, value in node.items():
            if name != "@":
                if name not in names:
                    raise ValueError(f"{node['@']} has no field {name[:40]!r}")
                kwargs.append((name, self._part(code, value, node["@"], name, inside, classes)))
        if not any(code.varies(p) for _, p in kwargs):
            return code.constant(made(**{name: code.space[p] for name, p in kwargs}))
        call = f"{code.constant(made)}({', '.join(f'{name}={p}' for name, p in kwargs)})"
        return code.local(call, found=issubclass(made, _CHECKED))


_CHECKED = (tree.Dice, RollRequest)  # (what `_check` reads)


class _Code:
    """The generated function of a `Ready` template as it is written: its statements, its
    namespace of constants (`k0`, `k1`, ...) and its locals (`v0`, `v1`, ...)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.space: dict[str, Any] = {"Refused": Refused, "limits": parse_cache.limits}
        self.found: list[str] = []  # the locals holding what `_check` reads
        self.made = 0

    def _name(self, prefix: str) -> str:
        self.made += 1
        return f"{prefix}{self.made}"

    def constant(self, value: Any) -> str:
        name = self._name("k")
        self.space[name] = value
        return name

    def varies(self, name: str) -> bool:
        return name not in self.space

    def local(self, expression: str, found: bool = False) -> str:
        name = self._name("v")
        self.lines.append(f"    {name} = {expression}")
        if found:
            self.found.append(name)
        return name

    def slot(
        self, i: int, neg: int, rule: tuple[int, int, int | None], field: str, inside: bool
    ) -> str:
        """The number of slot `i` (negated with `neg`), held to the grammar's limits
        (`rule`) and to those parse_cache.decode holds the field's values to
        (parse_cache.limits), one range of digits where those do not depend on the text's
        length."""
        if type(i) is not int or neg not in (0, 1):
            raise ValueError("a bad slot")
        low, high, neg_high = rule
        top = neg_high if neg and neg_high is not None else high
        digits, n = self._name("d"), self._name("n")
        what = self.constant(field)
        if not parse_cache.text_limits(field):
            least, most = parse_cache.limits(field, inside, 0)  # (the value, sign included)
            if neg:
                low, top = max(low, -most), min(top, -least)
            else:
                low, top = max(low, least), min(top, most)
        self.lines += [
            f"    {digits} = numbers[{i}]",
            f"    if len({digits}) > 12:",
            f"        raise Refused({digits}[:20] + ' has too many digits')",
            f"    {n} = int({digits})",
            f"    if not {int(low)} <= {n} <= {int(top)}:",
            f"        raise Refused(f'{{{n}}} does not fit {{{what}}}')",
        ]
        value = self.local(f"-{n}") if neg else n
        if not parse_cache.text_limits(field):
            return value
        self.lines += [
            f"    least, most = limits({what}, {inside}, len(text))",
            f"    if not least <= {value} <= most:",
            f"        raise Refused(f'{{{what}}} {{{value}}} is outside {{least:,}}..{{most:,}}')",
        ]
        return value

    def word(self, i: int) -> str:
        """The label's words of slot `i` (a number there is Refused)."""
        if type(i) is not int:
            raise ValueError("a bad slot")
        word = self._name("w")
        self.lines += [
            f"    {word} = numbers[{i}]",
            f"    if {word}[0].isdigit():",
            "        raise Refused('a number where a label goes')",
        ]
        return word

    def column(self, k: int, offset: int) -> str:
        """Where segment `k` of the text (`starts`: piece 0, number 0, piece 1, ...) starts,
        plus `offset`, counted from 1."""
        if type(k) is not int or type(offset) is not int or k < 0:
            raise ValueError("a bad column")
        if k == 0:
            return self.constant(offset + 1)
        lengths = [f"len({'numbers' if j % 2 else 'pieces'}[{j // 2}])" for j in range(k)]
        return self.local(" + ".join([*lengths, str(offset + 1)]))

    def source(self, value: str) -> str:
        found = "".join(f"{name}, " for name in self.found)
        return "\n".join(
            [
                "def build(pieces, numbers, text):",
                *self.lines,
                f"    return {value}, ({found})",
            ]
        )
