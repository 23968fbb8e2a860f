"""Parsed requests as plain data (what JSON holds) and back: the codec of the disk caches
(d20cli.store.request_cache keeps them, with marshal) and of the requests the roll log
and a sealed session keep (as JSON).

Each dataclass is tagged by its name, and only the classes of `CLASSES` (the requests of
d20cli.language.requests and the dice-expression nodes of d20cli.dice.tree) may be named:
decoding runs no code but those classes' constructors, and never pickle. A field left at
its default is not written, and a string equal to the request's own text (a group
member's) is written as `{"@r": 1}`, so an entry is about as long as its request.

The file is not trusted (issue 22): `decode` checks an entry as strictly as the grammar
would have, without pyparsing. Every field must hold what its annotation says (an `int`,
a `Compare`, a tuple of `CheckRequest`, one of the `Literal` values); numbers keep the
grammar's limits (12 digits in a dice expression, 9 in a request's own words, dice of 1
to 1,000,000 sides, a repeat of 1 to 1,000, at most 1,000 members or sides, `adv`-like
counts no more than the text has characters); an expression nests at most 200 levels,
the JSON at most MAX_JSON_DEPTH; an entry has at most about 8 nodes per character of its
text; and the result must be a request whose text is the entry's key. Anything else is
`ValueError` (or `KeyError`/`TypeError`), never a request that the grammar would refuse.
"""

from __future__ import annotations

from collections.abc import Callable

from d20cli.bounded import Bounded, declare, memo
from d20cli.dice import modifiers, tree
from d20cli.frozen import MISSING, Field, fields, is_frozen
from d20cli.language import requests
from d20cli.language.vocabulary import (  # the grammar's limits, as the grammar reads them
    CHECK_WORDS,
    MAX_NUMBER,
    MAX_NX,
    MAX_PARTS,
    MAX_REQUEST,
    MAX_TREE_DEPTH,
    MAX_WORD_NUMBER,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

#: The classes a cached request may be built of: the explicit registry.
CLASSES: tuple[type, ...] = (
    requests.Target,
    requests.CheckRequest,
    requests.GroupRequest,
    requests.ContestRequest,
    requests.CompareRequest,
    requests.PercentRequest,
    requests.LuckRequest,
    requests.ScoresRequest,
    requests.FortuneRequest,
    requests.RollRequest,
    tree.Compare,
    *modifiers.rule_classes(),  # Reroll, Explode, Keep, Pool, Crit and their variants
    tree.Number,
    tree.Dice,
    tree.Neg,
    tree.Arithmetic,
    tree.Call,
    tree.Group,
    tree.Ref,
)
REQUESTS: tuple[type, ...] = CLASSES[1:10]
EXPRESSIONS: tuple[type, ...] = (
    tree.Number,
    tree.Dice,
    tree.Neg,
    tree.Arithmetic,
    tree.Call,
    tree.Group,
    tree.Ref,
)

MAX_JSON_DEPTH = 700  # levels of an entry's JSON (a 200-level expression takes ~600)
NODES_PER_CHARACTER = 8
# the fields that count words, one a word (`vocabulary.Word.merge`)
COUNTS = frozenset(word.field for word in CHECK_WORDS if word.merge == "count")
ROOT = {"@r": 1}  # the request's own text

_ALIASES: dict[str, tuple[Any, ...]] = {
    "CompareOp": modifiers.COMPARE_OPS,
    "KeepKind": modifiers.KEEP_KINDS,
    "SortOrder": modifiers.SORT_ORDERS,
}


def classes() -> dict[str, type]:
    """The registry by name."""
    return {cls.__name__: cls for cls in CLASSES}


def encode(value: Any, root: str | None = None, every_field: bool = False) -> Any:
    """A Request (or any part of one) as JSON-ready data, classes tagged by name; fields
    at their defaults left out (`every_field`: written too, as the shape cache's probes
    compare them: d20cli.language.shape_probes), and `root` (the request's text, by
    default its own `text`, which is written as it is) written as ROOT wherever else a
    string equals it. The one codec of both disk caches, the roll log's requests and a
    sealed session's."""
    if root is None:
        root = getattr(value, "text", None)
        if isinstance(root, str):
            top: dict[str, Any] = encode(value, root, every_field)
            top["text"] = root
            return top
    if is_frozen(value):
        data: dict[str, Any] = {"@": type(value).__name__}
        for f in fields(value):
            if not f.init:  # fields computed in __post_init__ are computed again on load
                continue
            item = getattr(value, f.name)
            if not every_field and _is_default(f, item):
                continue
            data[f.name] = encode(item, root, every_field)
        return data
    if isinstance(value, tuple):
        return {"@t": [encode(v, root, every_field) for v in value]}
    if isinstance(value, str) and value == root:
        return dict(ROOT)
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _is_default(f: Field, item: Any) -> bool:
    """Whether `item` is the field's default (a field at its default is not written)."""
    if f.default is not MISSING:
        return bool(item == f.default)
    return f.default_factory is not MISSING and bool(item == f.default_factory())


def decode(data: Any, classes: dict[str, type], text: str | None = None) -> Any:
    """The inverse of `encode`, checked (see the module doc) when `text`, the entry's
    key, is given: then the result is a request whose text is `text`. KeyError, TypeError
    or ValueError on anything unexpected."""
    if text is None:
        root = data.get("text") if isinstance(data, dict) else None
        root = root if isinstance(root, str) else ""
        return _Decoder(classes, root, checked=False).value(data, 0, None, False)
    if not isinstance(text, str) or not 0 < len(text) <= MAX_REQUEST:
        raise ValueError("an entry's text must be a request of 1 to 10,000 characters")
    request = _Decoder(classes, text, checked=True).value(data, 0, None, False)
    if not isinstance(request, REQUESTS) or getattr(request, "text", None) != text:
        raise ValueError("an entry must be the request its text names")
    return request


class _Decoder:
    def __init__(self, classes: dict[str, type], text: str, checked: bool) -> None:
        self.classes = classes
        self.text = text
        self.checked = checked
        self.nodes = NODES_PER_CHARACTER * len(text) + 64
        self.longest = max(len(text), 32)  # a verb or word kind may not be in the text
        self.levels: dict[int, int] = {}  # an expression's levels, by id
        self.keep: list[Any] = []

    def value(self, data: Any, depth: int, field: str | None, in_request: bool) -> Any:
        """One value; `field`: the field it fills (its limits), `in_request`: a field of a
        request class (9-digit numbers) rather than of an expression."""
        if depth > MAX_JSON_DEPTH:
            raise ValueError("an entry nests too deeply")
        if isinstance(data, dict):
            if self.checked:
                self.nodes -= 1
                if self.nodes < 0:
                    raise ValueError("an entry is larger than its text allows")
            if "@r" in data:
                if data != ROOT:
                    raise ValueError("a bad reference")
                return self.text
            if "@t" in data:
                items = data["@t"]
                if not isinstance(items, list) or len(data) != 1:
                    raise ValueError("a bad tuple")
                if self.checked and len(items) > (
                    MAX_PARTS if field in ("members", "sides") else len(self.text) + 1
                ):
                    raise ValueError(f"too many items in {field}")
                # a custom die's faces (`d{0,1,2}`) are signed numbers, not sides
                inner = "faces" if field == "sides" and not in_request else field
                out = []
                for item in items:
                    out.append(self.value(item, depth + 1, inner, in_request))
                return tuple(out)
            return self.instance(data, depth)
        if isinstance(data, list):
            raise ValueError("lists are not cached")
        if self.checked:
            self.scalar(data, field, in_request)
        return data

    def instance(self, data: dict[str, Any], depth: int) -> Any:
        cls = self.classes[data["@"]]
        in_request = cls in REQUESTS or cls is requests.Target
        kwargs: dict[str, Any] = {}
        for key, raw in data.items():
            if key != "@":
                kwargs[key] = self.value(raw, depth + 1, key, in_request)
        if self.checked:
            _check_fields(cls, kwargs)
        obj = cls(**kwargs)
        if self.checked and cls in EXPRESSIONS:
            level = 1 + max((self.levels.get(id(x), 0) for x in tree.children(obj)), default=0)
            if level > MAX_TREE_DEPTH:
                raise ValueError("an expression nests too deeply")
            self.levels[id(obj)] = level
            self.keep.append(obj)  # ids stay unique while the decoder lives
        return obj

    def scalar(self, data: Any, field: str | None, in_request: bool) -> None:
        if isinstance(data, bool) or data is None:
            return
        if isinstance(data, str):
            if len(data) > self.longest:
                raise ValueError(f"a string in {field} is longer than the request")
            return
        if not isinstance(data, int):
            raise ValueError(f"{field}: a {type(data).__name__} is never cached")
        low, high = limits(field, in_request, len(self.text))
        if not low <= data <= high:
            raise ValueError(f"{field} {data} is outside {low:,}..{high:,}")


def limits(field: str | None, in_request: bool, length: int) -> tuple[int, int]:
    """The limits `decode` holds an int of `field` to, in an entry of a text of `length`
    characters (`in_request`: a field of a request class rather than of an expression)."""
    if field == "repeat":
        return 1, MAX_NX
    if field == "columns":
        return 0, length + 1
    if field in COUNTS:  # one word each; a roll's `adv` is the net count (adv - dis)
        return -length, length
    if in_request:
        return -MAX_WORD_NUMBER, MAX_WORD_NUMBER
    if field == "sides":
        return 1, tree.MAX_SIDES
    if field == "faces":  # 12 characters with the sign
        return -MAX_NUMBER // 10, MAX_NUMBER
    return -MAX_NUMBER, MAX_NUMBER


def text_limits(field: str | None) -> bool:
    """Whether `limits` of `field` depend on the text's length."""
    return field == "columns" or field in COUNTS


Test: TypeAlias = "Callable[[Any], bool]"

_FIELDS: Bounded[type, dict[str, Test]] = declare(
    "parse_cache._FIELDS",
    len(CLASSES),
    holds="a cached class → the test of each field's values (one per class of the registry)",
    buys="a cache entry's decode: 101 µs instead of 111 µs (x1.1)",
).new()


def _check_fields(cls: type, kwargs: dict[str, Any]) -> None:
    """ValueError unless each field holds what its annotation says."""
    tests = _FIELDS.get(cls)
    if tests is None:
        tests = _FIELDS[cls] = {f.name: _test(str(f.type)) for f in fields(cls) if f.init}
    for name, value in kwargs.items():
        test = tests.get(name)
        if test is None:
            raise ValueError(f"{cls.__name__} has no field {name!r}")
        if not test(value):
            raise ValueError(f"{cls.__name__}.{name} cannot be {type(value).__name__}")


def _split(annotation: str, sep: str) -> tuple[str, ...]:
    """`A | B[C | D] | None` split at "|" -> ["A", "B[C | D]", "None"]: top level only."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(annotation):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(annotation[start:i].strip())
            start = i + 1
    parts.append(annotation[start:].strip())
    return tuple(parts)


@memo(
    256,
    holds="a field's annotation, as written -> the test of a value it accepts",
    buys="10,000 new lines on standard input (benchmarks/bench_new_lines.py): 5.9 s -> "
    "5.1 s of CPU",
)
def _test(annotation: str) -> Test:
    """The test of a value of this annotation (`int | None`, `tuple[Expr, ...]`, a class
    of the registry, a word list's alias, a Literal), made once for each annotation."""
    alternatives = tuple(_test_one(alt) for alt in _split(annotation, "|"))
    if len(alternatives) == 1:
        return alternatives[0]
    return lambda value: any(test(value) for test in alternatives)


def _test_one(alt: str) -> Test:
    if alt == "None":
        return lambda value: value is None
    if alt == "int":
        return lambda value: isinstance(value, int) and not isinstance(value, bool)
    if alt == "bool":
        return lambda value: isinstance(value, bool)
    if alt == "str":
        return lambda value: isinstance(value, str)
    if alt == "Expr":
        return lambda value: isinstance(value, EXPRESSIONS)
    if alt == "Columns":
        return _test("tuple[tuple[str, int], ...]")
    if alt in _ALIASES:
        words = _ALIASES[alt]
        return lambda value: isinstance(value, str) and value in words
    if alt.startswith("Literal["):
        allowed = frozenset(alt[8:-1].replace(" ", "").split(","))
        return lambda value: isinstance(value, str) and repr(value) in allowed
    if alt.startswith("tuple["):
        inner = alt[6:-1]
        if inner.endswith(", ..."):
            each = _test(inner[:-5])
            return lambda value: isinstance(value, tuple) and all(each(v) for v in value)
        kinds = tuple(_test(k) for k in _split(inner, ","))
        return lambda value: (
            isinstance(value, tuple)
            and len(value) == len(kinds)
            and all(test(v) for test, v in zip(kinds, value, strict=True))
        )
    cls = next((c for c in CLASSES if c.__name__ == alt), None)
    if cls is None:
        return lambda value: False
    return lambda value: isinstance(value, cls)
