"""Roll tables: the text of a table file (TOML) -> a `Table`, and what is wrong with it.

Pure: the caller reads the file (d20cli.store.tables) and passes its text. Two forms:

    die = "1d6"                      # any dice expression; its total picks the entry
    system = "mm"                    # optional: the system of `{check ...}` in entries
    [entries]
    "1-3" = "{1d4} rats"             # a face or a range of totals -> the entry's text
    "4" = "an owlbear"

    [[entry]]                        # the weighted form: no die
    weight = 2
    text = "a pouch of {2d6} silver"

A weighted table is rolled as one die of as many sides as its weights add up to
(`1dW`): entry N takes the next `weight` faces, in the order of the file, so `--dice`
names a face of that die. In an entry's text, each `{...}` is rolled (d20cli.language.
table_parts): a dice expression, `table:NAME` (another table) or a request (`check +5
vs 15`); there is no literal brace.

Problems are collected, each with the file's line where it is known (`Problem`): a file
that is not a table gives one and no table; gaps, overlaps, unreachable entries and
ranges outside the die give a table and its problems, which rolling refuses and `d20
table check` lists. Every size is bounded (MAX_* below), so a hostile file ends in an
error at once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from d20cli.dice.tree import Expr
from d20cli.errors import D20Error, ParseError
from d20cli.frozen import frozen
from d20cli.language.table_parts import Part, split_parts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_TABLE_FILE_BYTES = 256 * 1024  # a table file
MAX_TABLE_ENTRIES = 1000  # entries of one table
MAX_ENTRY_TEXT = 2000  # characters of one entry's text
MAX_WEIGHT = 1_000_000  # the weights of a table together (the sides of its die)
MAX_TABLE_FACES = 10_000  # the totals a table's die can show
MAX_FILE_ROLLS = 400  # `{...}` rolls in one file's entries together
MAX_TABLE_DEPTH = 12  # tables within tables
MAX_ROLLS = 1000  # rolls one roll of a table may make, its nested tables' included
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_KEYS = frozenset({"die", "system", "title", "entries", "entry"})
_RANGE = re.compile(r"\s*(-?\d{1,7})\s*(?:(?:-|\u2013|\.\.)\s*(-?\d{1,7})\s*)?")


@frozen
class Problem:
    """What is wrong with a table file, and where: `source` (the file) and its line."""

    source: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source} line {self.line}"
        return f"{where}: {self.message}"

    def error(self) -> ParseError:
        return ParseError(str(self))


@frozen
class Entry:
    """One entry: the totals `lo..hi` of the table's die that pick it (a weighted table's
    die is `1dW`), its weight (the faces it takes), the text as written and its parts."""

    key: str  # how the file names it: "1-3"; for a weighted entry its faces on 1dW
    lo: int
    hi: int
    text: str
    parts: tuple[Part, ...]
    line: int | None
    weight: int | None = None  # the weighted form's weight

    @property
    def refs(self) -> tuple[str, ...]:
        return tuple(p.body for p in self.parts if p.kind == "table")


@frozen
class Table:
    name: str
    source: str  # the file, as shown in messages
    die: str  # "1d6"; a weighted table's "1dW"
    expr: Expr
    entries: tuple[Entry, ...]
    weighted: bool = False
    system: str | None = None
    title: str | None = None
    system_line: int | None = None

    def entry_for(self, total: int) -> Entry | None:
        for entry in self.entries:
            if entry.lo <= total <= entry.hi:
                return entry
        return None


def range_key(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def read_table(text: str, name: str, source: str) -> tuple[Table | None, list[Problem]]:
    """The table in `text` (a TOML file's text) and its problems (None: not a table)."""
    problems: list[Problem] = []

    def fail(message: str, line: int | None = None) -> tuple[None, list[Problem]]:
        return None, [Problem(source, line, message)]

    data = _toml(text, source)
    if isinstance(data, Problem):
        return None, [data]
    lines = _Lines(text)
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        return fail(
            f"unknown key {unknown[0][:40]!r} (a table has die, system, title and "
            "[entries], or [[entry]] with weight and text)",
            lines.key(None, unknown[0]),
        )
    system, title = data.get("system"), data.get("title")
    for key, value in (("system", system), ("title", title)):
        if value is not None and not isinstance(value, str):
            return fail(f"{key} must be a string", lines.key(None, key))
    die_text = data.get("die")
    if "entries" in data and "entry" in data:
        return fail("a table has [entries] (with a die) or [[entry]] (weighted), not both")
    try:
        if "entry" in data:
            if die_text is not None:
                return fail(
                    "a weighted table ([[entry]] with weight) has no die", lines.key(None, "die")
                )
            table = _weighted(data["entry"], name, source, lines)
        elif "entries" in data:
            if not isinstance(die_text, str):
                return fail('[entries] needs a die: die = "1d6"', lines.key(None, "die"))
            table, problems = _faced(data["entries"], die_text, name, source, lines)
        else:
            return fail('no entries: give die = "1d6" and [entries], or [[entry]] tables')
    except _Bad as bad:
        return fail(bad.message, bad.line)
    rolls = sum(p.kind != "text" for e in table.entries for p in e.parts)
    if rolls > MAX_FILE_ROLLS:
        return fail(f"{rolls:,} rolls in braces; a table has at most {MAX_FILE_ROLLS:,}")
    return _with(table, system, title, lines), problems


class _Bad(Exception):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _with(table: Table, system: Any, title: Any, lines: _Lines) -> Table:
    from d20cli.frozen import replace

    return replace(table, system=system, title=title, system_line=lines.key(None, "system"))


def _toml(text: str, source: str) -> dict[str, Any] | Problem:
    import tomllib

    if len(text) > MAX_TABLE_FILE_BYTES:
        return Problem(source, None, f"the file is over {MAX_TABLE_FILE_BYTES // 1024} KB")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        return Problem(source, None, f"not valid TOML: {err}")
    except RecursionError:
        return Problem(source, None, "not valid TOML: nested too deeply")


def _parts(text: Any, where: str, line: int | None) -> tuple[str, tuple[Part, ...]]:
    if not isinstance(text, str):
        raise _Bad(f"{where}: the text must be a string", line)
    if len(text) > MAX_ENTRY_TEXT:
        raise _Bad(f"{where}: the text is over {MAX_ENTRY_TEXT:,} characters", line)
    try:
        return text, split_parts(text)
    except D20Error as err:
        raise _Bad(f"{where}: {err.message}", line) from None


def _count(items: Any, what: str, line: int | None) -> None:
    if len(items) > MAX_TABLE_ENTRIES:
        raise _Bad(f"{len(items):,} {what}; a table has at most {MAX_TABLE_ENTRIES:,}", line)
    if not items:
        raise _Bad(f"no {what}", line)


def _weighted(items: Any, name: str, source: str, lines: _Lines) -> Table:
    from d20cli.dice.tree import Dice

    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise _Bad("entry must be an array of tables: [[entry]] with weight and text", None)
    _count(items, "entries", lines.entry(0))
    entries: list[Entry] = []
    lo = 1
    for index, item in enumerate(items):
        line = lines.entry(index)
        where = f"entry {index + 1}"
        extra = sorted(set(item) - {"weight", "text"})
        if extra:
            raise _Bad(
                f"{where}: unknown key {extra[0][:40]!r} (an entry has weight and text)", line
            )
        weight = item.get("weight", 1)
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise _Bad(f"{where}: weight must be a whole number", line)
        if not 1 <= weight <= MAX_WEIGHT:
            raise _Bad(f"{where}: weight must be from 1 to {MAX_WEIGHT:,}, not {weight:,}", line)
        if lo - 1 + weight > MAX_WEIGHT:
            raise _Bad(f"the weights add up to more than {MAX_WEIGHT:,}", line)
        if "text" not in item:
            raise _Bad(f"{where}: no text", line)
        text, parts = _parts(item["text"], where, line)
        hi = lo + weight - 1
        entries.append(Entry(range_key(lo, hi), lo, hi, text, parts, line, weight))
        lo = hi + 1
    sides = lo - 1
    return Table(name, source, f"1d{sides}", Dice(1, sides), tuple(entries), weighted=True)


def _faced(
    items: Any, die_text: str, name: str, source: str, lines: _Lines
) -> tuple[Table, list[Problem]]:
    from d20cli.language.dice_grammar import parse_expression

    die_line = lines.key(None, "die")
    if not isinstance(items, dict):
        raise _Bad('entries must be a table: [entries] with "1-3" = "text"', None)
    _count(items, "entries", lines.header("entries"))
    if len(die_text) > 200:
        raise _Bad("the die is over 200 characters", die_line)
    try:
        expr = parse_expression(die_text)
    except D20Error as err:
        raise _Bad(f"die {die_text!r}: {err.message}", die_line) from None
    support = _support(expr, die_text, die_line)
    entries: list[Entry] = []
    for key, value in items.items():
        line = lines.key("entries", key)
        match = _RANGE.fullmatch(key)
        if match is None:
            raise _Bad(f'entry {key[:40]!r}: a key is a total or a range: "4", "1-3"', line)
        lo = int(match.group(1))
        hi = int(match.group(2)) if match.group(2) is not None else lo
        if hi < lo:
            raise _Bad(f"entry {key!r}: the range runs backwards", line)
        text, parts = _parts(value, f"entry {key!r}", line)
        entries.append(Entry(key.strip(), lo, hi, text, parts, line))
    table = Table(name, source, die_text.strip(), expr, tuple(sorted(entries, key=_start)))
    return table, _coverage(table, support)


def _start(entry: Entry) -> tuple[int, int]:
    return entry.lo, entry.hi


def _support(expr: Expr, die_text: str, line: int | None) -> list[int]:
    """The totals the die can show, lowest first: those of its exact distribution, or,
    when that is too costly (`1000000d6kh1`, which rolls as a `roll` of it does), every
    total from its lowest to its highest."""
    from d20cli.dice.distribution import distribution
    from d20cli.dice.weights import TooCostly

    lo, hi = expr.bounds()
    if hi - lo + 1 > MAX_TABLE_FACES:
        raise _Bad(f"die {die_text!r} can show more than {MAX_TABLE_FACES:,} totals", line)
    try:
        dist = distribution(expr, max_states=200_000)
    except TooCostly:
        return list(range(int(lo), int(hi) + 1))
    except D20Error as err:
        raise _Bad(f"die {die_text!r}: {err.message}", line) from None
    if dist.truncated:
        raise _Bad(f"die {die_text!r} may explode without end; a table's die cannot", line)
    return sorted(dist.counts)


def _coverage(table: Table, support: list[int]) -> list[Problem]:
    """Gaps, overlaps, unreachable entries and ranges outside the die."""
    problems: list[Problem] = []
    low, high = support[0], support[-1]
    for entry in table.entries:
        if entry.lo < low or entry.hi > high:
            problems.append(
                Problem(
                    table.source,
                    entry.line,
                    f"entry {entry.key!r} is outside the die {table.die} ({low}-{high})",
                )
            )
        elif not any(entry.lo <= t <= entry.hi for t in _within(support, entry)):
            problems.append(
                Problem(
                    table.source,
                    entry.line,
                    f"entry {entry.key!r} is unreachable: {table.die} never shows "
                    f"{'that total' if entry.lo == entry.hi else 'those totals'}",
                )
            )
    reach: Entry | None = None  # the entry that reaches highest so far
    for entry in table.entries:
        if reach is not None and entry.lo <= reach.hi:
            message = f"entry {entry.key!r} overlaps entry {reach.key!r}"
            problems.append(Problem(table.source, entry.line, message))
        if reach is None or entry.hi > reach.hi:
            reach = entry
    missing = [i for i, t in enumerate(support) if table.entry_for(t) is None]
    if missing:
        runs = [(support[a], support[b]) for a, b in _runs(missing)]
        shown_runs = ", ".join(range_key(a, b) for a, b in runs[:5])
        more = f" and {len(runs) - 5} more" if len(runs) > 5 else ""
        problems.append(
            Problem(
                table.source,
                None,
                f"a gap: no entry for {shown_runs}{more} (which {table.die} can show)",
            )
        )
    return problems


def _within(support: list[int], entry: Entry) -> list[int]:
    import bisect

    start = bisect.bisect_left(support, entry.lo)
    end = bisect.bisect_right(support, entry.hi)
    return support[start:end]


def _runs(values: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for v in values:
        if runs and runs[-1][1] == v - 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    return runs


class _Lines:
    """Where keys are in the file's text (tomllib keeps no positions): a heuristic over the
    lines, good for the plain layouts; None where it cannot tell."""

    _HEADER = re.compile(r"\s*\[\s*([A-Za-z0-9_-]+)\s*\]\s*(#.*)?$")
    _ARRAY = re.compile(r"\s*\[\[\s*entry\s*\]\]")
    _KEY = re.compile(r"""\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=""")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self._keys: dict[tuple[str | None, str], int] | None = None
        self._arrays: list[int] | None = None

    def _index(self) -> dict[tuple[str | None, str], int]:
        if self._keys is None:
            keys: dict[tuple[str | None, str], int] = {}
            section: str | None = None
            for number, line in enumerate(self.lines, 1):
                if line.lstrip().startswith("["):
                    header = self._HEADER.match(line)
                    section = header.group(1) if header else "[other]"
                    if header:
                        keys.setdefault(("[header]", section), number)
                    continue
                key = self._KEY.match(line)
                if key:
                    name = next(g for g in key.groups() if g is not None)
                    keys.setdefault((section, name), number)
            self._keys = keys
        return self._keys

    def key(self, section: str | None, key: str) -> int | None:
        return self._index().get((section, key))

    def header(self, section: str) -> int | None:
        return self._index().get(("[header]", section))

    def entry(self, index: int) -> int | None:
        if self._arrays is None:
            self._arrays = [n for n, line in enumerate(self.lines, 1) if self._ARRAY.match(line)]
        return self._arrays[index] if index < len(self._arrays) else None


def graph_problem(root: str, tables: Mapping[str, Table]) -> Problem | None:
    """What is wrong with the tables that `root` reaches, or None: a reference to a table
    that is not in `tables`, a table that reaches itself (a cycle), tables nested more
    than MAX_TABLE_DEPTH deep, or an entry that could make more than MAX_ROLLS rolls in all (its
    own, and its tables' at their worst). Checked before a die is rolled, so the rolls of
    one table are bounded whatever the files say."""
    rolls: dict[str, int] = {}
    path: list[str] = []

    def worst(name: str) -> int:
        """The most rolls one roll of `name` makes (its die, and its worst entry's)."""
        if name in rolls:
            return rolls[name]
        table = tables[name]
        path.append(name)
        most = 0
        for entry in table.entries:
            count = 0
            for part in entry.parts:
                if part.kind == "table":
                    ref = part.body
                    where = f"entry {entry.key!r}"
                    if ref not in tables:
                        raise _Found(
                            Problem(table.source, entry.line, f"{where}: no table {ref!r}")
                        )
                    if ref in path:
                        cycle = " -> ".join([*path[path.index(ref) :], ref])
                        raise _Found(
                            Problem(table.source, entry.line, f"{where}: a cycle: {cycle}")
                        )
                    if len(path) >= MAX_TABLE_DEPTH:
                        message = f"{where}: tables nest more than {MAX_TABLE_DEPTH} deep"
                        raise _Found(Problem(table.source, entry.line, message))
                    count += worst(ref)
                elif part.kind != "text":
                    count += 1
                if count >= MAX_ROLLS:
                    message = f"entry {entry.key!r} could make more than {MAX_ROLLS:,} rolls"
                    raise _Found(Problem(table.source, entry.line, message))
            most = max(most, count)
        path.pop()
        rolls[name] = most + 1
        return rolls[name]

    try:
        worst(root)
    except _Found as found:
        return found.problem
    return None


class _Found(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem
