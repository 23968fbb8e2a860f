"""Learning a request shape's template (d20cli.language.shapes) from a text the grammar
has just parsed, by parsing probes: the text with its slots changed must differ from it
in exactly those slots, each number at one field of `shapes.RULES` and each label's words
at one field of `shapes.LABELS` (else the slot is fixed). A label's probe is another
label, its words with letters put in front. The grammar comes in as `parse`, so this
module never imports it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from d20cli.errors import ParseError
from d20cli.frozen import MISSING, fields
from d20cli.language import parse_cache
from d20cli.language.requests import RollRequest
from d20cli.language.shapes import (
    LABELS,
    RULES,
    Refused,
    fill,
    instances,
    is_word,
    join,
    key,
    split,
    starts,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ADV_WORDS = re.compile(r"adv|dis", re.IGNORECASE)


def _encode(value: Any, root: str) -> Any:
    """parse_cache's JSON with every field written (defaults too, so a probe that changes
    a default does not change the JSON's keys)."""
    return parse_cache.encode(value, root, every_field=True)


Path = tuple[str | int, ...]


def _diff(a: Any, b: Any, cls: str, field: str, path: Path, out: list[Any]) -> bool:
    """Collect the leaves where `a` and `b` differ (columns aside): (path, class, field,
    a, b). False when they differ in form."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys() or a.get("@") != b.get("@"):
            return False
        if "@t" in a:
            if len(a["@t"]) != len(b["@t"]):
                return False
            if field == "columns":
                return True
            return all(
                _diff(x, y, cls, field + "[]", (*path, i), out)
                for i, (x, y) in enumerate(zip(a["@t"], b["@t"], strict=True))
            )
        here = a.get("@", cls)
        return all(_diff(a[k], b[k], here, k, (*path, k), out) for k in a if k != "@")
    if isinstance(a, dict) or isinstance(b, dict) or type(a) is not type(b):
        return False
    if a != b:
        out.append((path, cls, field, a, b))
    return True


def _at(data: Any, path: Path) -> tuple[Any, str | int]:
    """The container of the leaf at `path` and its key there."""
    for step in path[:-1]:
        data = data["@t"][step] if isinstance(step, int) else data[step]
    last = path[-1]
    return (data["@t"] if isinstance(last, int) else data), last


def _site(base: Any, probe: Any, value: int | str, new: int | str) -> tuple[Path, bool] | None:
    """Where a slot lands: the one leaf that changed from `value` to `new` (or, for a
    number, from -value to -new), at a field of RULES (of LABELS, for a label's words).
    None if it is not so."""
    found: list[Any] = []
    if not _diff(base, probe, "", "", (), found) or len(found) != 1:
        return None
    path, cls, field, a, b = found[0]
    if isinstance(value, str) or isinstance(new, str):
        return (path, False) if (cls, field) in LABELS and (a, b) == (value, new) else None
    if isinstance(a, bool) or not isinstance(a, int) or isinstance(b, bool):
        return None
    rule = RULES.get((cls, field))
    if rule is None:
        return None
    if (a, b) == (value, new):
        return path, False
    if (a, b) == (-value, -new) and rule[2] is not None:
        return path, True
    return None


def _new_word(word: str, i: int) -> str:
    """A label's probe: other words, of its slot `i` alone."""
    return "q" * (i + 1) + word


def _all_at_once(
    base: Any, pieces: tuple[str, ...], numbers: tuple[str, ...], parse: Callable[[str], Any]
) -> dict[int, tuple[Path, bool, int | str]] | None:
    """Each slot's place from one probe that changes every slot to a value of its own
    (no two slots share one): each leaf that changed must be one slot's (value, new) or
    (-value, -new) at a field of RULES (a label's, at a field of LABELS), and each slot
    must own exactly one. None if not."""
    if any(len(n) > 12 for n in numbers if not is_word(n)):
        return None
    values: list[int | str] = [n if is_word(n) else int(n) for n in numbers]
    news: list[int | str] = []
    for i, v in enumerate(values):
        if isinstance(v, str):
            news.append(_new_word(v, i))
            continue
        new = next(
            p for p in (v + 1, v + 2, v + 3, *range(v + 4, v + 8 + len(values))) if p not in news
        )
        news.append(new)
    probe_text = join(pieces, tuple(map(str, news)))
    try:
        probe = _encode(parse(probe_text), probe_text)
    except ParseError:
        return None
    found: list[Any] = []
    if not _diff(base, probe, "", "", (), found):
        return None
    sites: dict[int, tuple[Path, bool, int | str]] = {}
    for path, cls, field, a, b in found:
        if type(a) is str and type(b) is str and (cls, field) in LABELS:
            owners = [
                (i, False)
                for i, (v, new) in enumerate(zip(values, news, strict=True))
                if (a, b) == (v, new)
            ]
            if len(owners) != 1 or owners[0][0] in sites:
                return None
            sites[owners[0][0]] = (path, False, b)
            continue
        rule = RULES.get((cls, field))
        if rule is None or type(a) is not int or type(b) is not int:
            return None
        owners = [
            (i, neg)
            for i, (v, new) in enumerate(zip(values, news, strict=True))
            for neg in (False, True)
            if isinstance(v, int)
            and isinstance(new, int)
            and (a, b) == ((-v, -new) if neg else (v, new))
            and (not neg or rule[2] is not None)
        ]
        if len(owners) != 1 or owners[0][0] in sites:
            return None
        i, neg = owners[0]
        sites[i] = (path, neg, news[i])
    return sites if len(sites) == len(values) else None


def _probes(value: int) -> list[int]:
    return [p for p in (value + 1, value - 1) if p >= 0]


def _remembered(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """`parse` that reads each text once (the last check repeats the first probe)."""
    seen: dict[str, Any] = {}

    def once(text: str) -> Any:
        if text not in seen:
            try:
                seen[text] = parse(text)
            except ParseError as err:
                seen[text] = err
        found = seen[text]
        if isinstance(found, ParseError):
            raise found
        return found

    return once


def build(
    text: str, request: Any, parse: Callable[[str], Any]
) -> tuple[str, dict[str, Any]] | None:
    """The shape of `text` and its template, from `request` (what `parse`, the grammar,
    gave for `text`); `parse` reads the probes. None when the text has no shape or the
    template would not give exactly what the grammar gives."""
    parts = split(text)
    if parts is None or getattr(request, "text", None) != text:
        return None
    pieces, numbers = parts
    parse = _remembered(parse)
    if (
        isinstance(request, RollRequest)
        and _ADV_WORDS.search(text)
        and any(r.adv == 0 for r in instances(request, RollRequest))
    ):
        return None  # `adv dis` cancel: the grammar's check would not show
    try:
        base = _encode(request, text)
    except TypeError:
        return None
    template = _encode(request, text)
    free: dict[int, int | str] = {}  # slot -> the probe value that showed where it lands
    # First every slot changed at once (one parse serves a common shape), then, if that
    # does not show each slot's place, one slot at a time.
    sites = _all_at_once(base, pieces, numbers, parse)
    if sites is not None:
        for i, (path, neg, new) in sites.items():
            box, last = _at(template, path)
            box[last] = _marker(i, neg, isinstance(new, str))
            free[i] = new
    for i, number in enumerate(numbers):
        if sites is not None or (len(number) > 12 and not is_word(number)):
            continue
        value: int | str = number if is_word(number) else int(number)
        for new in [_new_word(number, i)] if isinstance(value, str) else _probes(value):
            changed = (*numbers[:i], str(new), *numbers[i + 1 :])
            probe_text = join(pieces, changed)
            try:
                probe = _encode(parse(probe_text), probe_text)
            except ParseError:
                continue
            site = _site(base, probe, value, new)
            if site is not None:
                box, last = _at(template, site[0])
                box[last] = _marker(i, site[1], isinstance(value, str))
                free[i] = new
            break
    if not _mark_columns(template, pieces, numbers):
        return None
    template = _compact(template)
    entry = {
        "shape": key(pieces),
        "fixed": [[i, n] for i, n in enumerate(numbers) if i not in free],
        "tree": template,
    }
    # The check: the text's own numbers give the request; every free slot changed at
    # once gives what the grammar gives (or both refuse).
    try:
        if fill(entry, pieces, numbers, text) != request:
            return None
    except (Refused, KeyError, TypeError, ValueError):
        return None
    if free:
        probe_numbers = tuple(str(free[i]) if i in free else n for i, n in enumerate(numbers))
        probe_text = join(pieces, probe_numbers)
        try:
            cold = parse(probe_text)
        except ParseError:
            cold = None
        try:
            warm = fill(entry, pieces, probe_numbers, probe_text)
        except (Refused, KeyError, TypeError, ValueError):
            warm = None
        if warm != cold:
            return None
    return entry["shape"], entry


def _marker(i: int, neg: bool, word: bool) -> dict[str, int]:
    """A template's slot: a label's words (`@w`), or a number (`@s`, `neg`: read with its
    '-' as one negative number)."""
    if word:
        return {"@w": i}
    return {"@s": i, "neg": 1} if neg else {"@s": i}


def _mark_columns(data: Any, pieces: tuple[str, ...], numbers: tuple[str, ...]) -> bool:
    """Each column in `data` as {"@c": [segment, offset]}; False if one points inside a
    number (never by the grammar)."""
    segments = starts(pieces, numbers)
    for columns in _columns_of(data):
        for pair in columns:
            x = pair["@t"][1] - 1
            place = _place(segments, x)
            if place is None:
                return False
            pair["@t"][1] = {"@c": list(place)}
    return True


def _place(segments: list[tuple[int, int]], x: int) -> tuple[int, int] | None:
    for k, (start, length) in enumerate(segments):
        if k % 2 and x == start:
            return k, 0
        if not k % 2 and start <= x < start + length:
            return k, x - start
    last, (start, length) = len(segments) - 1, segments[-1]
    return (last, length) if x == start + length else None


def _columns_of(data: Any) -> Iterator[list[Any]]:
    """The lists of (kind, column) pairs anywhere in a request's JSON."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "columns" and isinstance(v, dict):
                    yield v["@t"]
                else:
                    stack.append(v)
        elif isinstance(node, list):
            stack.extend(node)


def _compact(node: Any) -> Any:
    """The template without the fields at their defaults (as parse_cache writes them)."""
    if isinstance(node, dict):
        if "@t" in node and len(node) == 1:
            return {"@t": [_compact(x) for x in node["@t"]]}
        out = {k: _compact(v) for k, v in node.items()}
        name = node.get("@")
        if isinstance(name, str):
            for f in fields(parse_cache.classes()[name]):
                if not f.init or f.name not in out:
                    continue
                if f.default is not MISSING:
                    default = f.default
                elif f.default_factory is not MISSING:
                    default = f.default_factory()
                else:
                    continue
                if out[f.name] == _encode(default, "\0"):
                    del out[f.name]
        return out
    return node
