"""What happened: frozen dataclasses that the renderers (rich, JSON) read.

One `Result` shape serves every verb; a field a verb does not use stays None. Field names
follow the JSON contract described in the README's JSON section. Renderers never decide
rules: every outcome, label and flag is filled in by a system.

Each class is its own codec, the only one for its shape: `json_text` writes it (the same
text `json.dumps(obj)` gives for its `to_json()` dict, with the keys in the same order, but
written directly, which is several times faster than building the dict and encoding it: a
batch of 100,000 lines on standard input spends most of its time here). JSON is written in
ASCII, every other character as a `\\u` escape, as `json.dumps` writes it: a JSON line
means the same on a stream of any encoding (written raw, a label `Größe` came out as
`Gr??e` on an ASCII terminal, and a note's dash as `--`), and is written at ASCII speed;
`to_json()` reads that text back, and `from_json(data)` rebuilds the object from it, so
`X.from_json(x.to_json())` writes the same JSON as `x` (the state database keeps the last
roll this way). A Result's evaluated `tree` (for the renderer) is not part of its JSON.

`SCHEMA_VERSION` numbers this JSON shape and the Python API (d20cli). `str(result)` is the
text the command line prints, written by the present layer (`Shown`, `show_as`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable

from d20cli.bounded import SIZE, memo
from d20cli.frozen import field, frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from json import JSONEncoder
    from typing import Any, TypeVar

    V = TypeVar("V")
    S = TypeVar("S", bound="Shown")


# `json` is imported at the first JSON a run writes or reads (its import compiles six
# regular expressions: 1.7 ms of a start that writes none, docs/performance.md).
@memo(
    1,
    holds="() → the JSON encoder of JSON lines, made at its first use",
    buys="start-up: a run that writes no JSON imports no `json` (1.7 ms)",
)
def json_encoder() -> JSONEncoder:
    """The encoder of JSON lines (ASCII, as `_string` writes a string)."""
    import json

    return json.JSONEncoder(check_circular=False)


def _first_string(text: str) -> str:
    """The first string a run writes as JSON: `_string` becomes json's own writer of a
    JSON string in ASCII (imported now), which writes this one."""
    global _string
    from json.encoder import encode_basestring_ascii

    _string = encode_basestring_ascii
    return _string(text)


#: A JSON string, in ASCII (json.encoder's `encode_basestring_ascii`, from the first use).
_string: Callable[[str], str] = _first_string

#: The version of the JSON a result writes (its keys, their types and meaning) and of the
#: Python API (the names in `d20cli.__all__` and their parameters). It goes up when a key
#: or a name is removed or changes meaning; an addition keeps it. tests/test_api.py holds
#: both shapes, so a change to either fails there until this is raised (and the README's
#: JSON and Python API sections are updated).
SCHEMA_VERSION = 1


class Shown:
    """A value whose text for people, `str(value)`, the present layer writes.

    The layers that make values may not import the one that shows them, so the present
    layer registers how each class reads (`show_as`) when it is imported; d20cli's public
    API imports it before it hands out a value. Until then `str()` is `repr()`."""

    __slots__ = ()

    def __str__(self) -> str:
        show = _SHOWN.get(type(self))
        return repr(self) if show is None else show(self)


_SET_DICT = object.__dict__["__setattr__"]  # (sets a frozen instance's dictionary)
#: What a Result keeps in its dictionary besides its fields, made from them once: its JSON
#: line, the values readers derive from it (`Result.derived`) and the copy `--odds` noted
#: (d20cli.app.tallies.with_chance); `_dice_text` too, which a copy with the same dice keeps.
MADE = ("_json_text", "_derived", "_with_chance")
_SHOWN: dict[type, Callable[[Any], str]] = {}


def show_as(cls: type[S], show: Callable[[S], str]) -> None:
    """Make `str(x)` of every `cls` instance `show(x)` (the present layer calls this)."""
    _SHOWN[cls] = show


_NULL = "null"


def _list(texts: Any) -> str:
    return f"[{', '.join(texts)}]"


_BOOL = {True: "true", False: "false", None: "null"}


def _parts(parts: Iterable[JsonText]) -> str:
    """A JSON list of result parts (dice, members, scores)."""
    return _list([part.json_text() for part in parts])


class JsonText(ABC):
    """A result part that writes its own JSON text; `to_json()` is that text read back."""

    __slots__ = ()

    @abstractmethod
    def json_text(self) -> str:
        """The part as one line of JSON."""

    def to_json(self) -> dict[str, Any]:
        import json

        data: dict[str, Any] = json.loads(self.json_text())
        return data


@frozen
class Die(JsonText):
    """One die that was rolled.

    role: what the die was for: "d20", "expertise", "modifier", "damage", "tiebreak",
    "luck", "roll" (a plain expression), "score", ...
    flags: extra marks for the renderer: "exploded" (this die exploded: another was
    rolled after it), "rerolled" (rolled again: this face was replaced), "min"/"max"
    (raised/lowered by mi/ma), "success"/"failure" (dice pools).
    """

    sides: int
    face: int
    kept: bool = True
    role: str = "roll"
    label: str | None = None
    flags: tuple[str, ...] = ()
    by: str | None = None  # who rolled it (pendagger scores: "player 2", "narrator")
    parts: tuple[int, ...] = ()  # a compounded die (`!!`): the faces its face adds up

    def json_text(self) -> str:
        """Written once and kept in the instance dictionary (as Result.dice_text): the
        d20s of every check are shared dice (rules.common.d20_die), written once a run."""
        text: str | None = self.__dict__.get("_json_text")
        if text is not None:
            return text
        text = (
            f'{{"sides": {self.sides}, "face": {self.face}, '
            f'"kept": {"true" if self.kept else "false"}, "role": {_string(self.role)}'
        )
        if self.label is not None:
            text += f', "label": {_string(self.label)}'
        if self.flags:
            text += f', "flags": {_list(map(_string, self.flags))}'
        if self.by is not None:
            text += f', "by": {_string(self.by)}'
        if self.parts:
            text += f', "parts": {_list(map(str, self.parts))}'
        text = self.__dict__["_json_text"] = text + "}"
        return text

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Die:
        return cls(
            int(data["sides"]),
            int(data["face"]),
            bool(data.get("kept", True)),
            str(data.get("role", "roll")),
            _optional_str(data.get("label")),
            tuple(str(f) for f in data.get("flags", ())),
            _optional_str(data.get("by")),
            tuple(int(f) for f in data.get("parts", ())),
        )


SHARED_LABEL = 64  # the longest label a die made by `shared_die` may carry


@memo(
    SIZE,
    holds="a die's fields → one shared `Die` (labels up to SHARED_LABEL characters)",
    buys="batch x1.21: equal dice are one object, their JSON written once",
)
def shared_die(
    sides: int, face: int, kept: bool, role: str, label: str | None, flags: tuple[str, ...]
) -> Die:
    """`Die(sides, face, kept, role, label, flags)`. A Die is immutable, so equal dice can
    be one object: a roll's dice are made once each and their JSON written once (the
    d20s of checks likewise, `rules.common.d20_die`). At most 4,096 are kept, and what is
    kept stays small: a die whose label is longer than SHARED_LABEL characters is made
    with `Die` itself (`dice_maker`)."""
    return Die(sides, face, kept, role, label, flags)


def dice_maker(label: str | None) -> Callable[..., Die]:
    """What makes the dice of a term with this label: `shared_die`, or `Die` for a label
    longer than SHARED_LABEL characters."""
    return shared_die if label is None or len(label) <= SHARED_LABEL else Die


@frozen(slots=True)
class DiceSummary(JsonText):
    """Stands in for the dice list when a roll has too many dice to list one by one."""

    count: int
    kept: int
    faces: dict[int, int]  # face -> how many dice show it (kept or not)
    sides: tuple[int, ...]  # the die sizes involved

    def json_text(self) -> str:
        faces = ", ".join(f'"{k}": {v}' for k, v in sorted(self.faces.items()))
        return (
            f'{{"count": {self.count}, "kept": {self.kept}, '
            f'"sides": {_list(map(str, self.sides))}, "faces": {{{faces}}}}}'
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DiceSummary:
        return cls(
            int(data["count"]),
            int(data["kept"]),
            {int(k): int(v) for k, v in dict(data["faces"]).items()},
            tuple(int(n) for n in data["sides"]),
        )


@frozen(slots=True)
class Damage(JsonText):
    total: int
    dice: tuple[Die, ...]
    critical: bool
    expression: str  # the damage expression as rolled, e.g. "2d8+4" on a critical hit
    labels: dict[str, int] | None = None  # per-type subtotals: {"slashing": 7, "fire": 5}
    untyped: int | None = None  # the rest of the total beside the labels: `+3` in `1d8[x]+3`

    def dice_text(self) -> str:
        """The JSON text of `dice`."""
        return _parts(self.dice)

    def json_text(self) -> str:
        text = (
            f'{{"total": {self.total}, "dice": {self.dice_text()}, '
            f'"critical": {_BOOL[self.critical]}, "expression": {_string(self.expression)}'
        )
        if self.labels:
            text += f', "labels": {json_encoder().encode(self.labels)}'
        if self.untyped is not None:
            text += f', "untyped": {self.untyped}'
        return text + "}"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Damage:
        labels = data.get("labels")
        untyped = data.get("untyped")
        return cls(
            int(data["total"]),
            _dice(data.get("dice", ())),
            bool(data.get("critical")),
            str(data.get("expression", "")),
            {str(k): int(v) for k, v in labels.items()} if isinstance(labels, dict) else None,
            None if untyped is None else int(untyped),
        )


@frozen(slots=True)
class Score(JsonText):
    """One pendagger ability score: who rolled which die, the dropped die, modifier, rank."""

    ability: str  # "1".."6" or an ability name
    dice: tuple[Die, ...]
    total: int
    modifier: int
    rank: str

    def json_text(self) -> str:
        return (
            f'{{"ability": {_string(self.ability)}, '
            f'"dice": {_parts(self.dice)}, "total": {self.total}, '
            f'"modifier": {self.modifier}, "rank": {_string(self.rank)}}}'
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Score:
        return cls(
            str(data["ability"]),
            _dice(data.get("dice", ())),
            int(data["total"]),
            int(data["modifier"]),
            str(data["rank"]),
        )


@frozen(sparse=True)
class Result(JsonText, Shown):
    """The result of one request: what was rolled and what it means under the system's
    rules. Immutable; `str(result)` is the text `d20 REQUEST --no-color` prints,
    `json_text()` the line `--json` prints, and `to_json()` that line as a dict.

    Every verb fills the first fields; a field a verb has no use for stays None:

    - request, system, verb: the request as rolled, the system's id, the verb.
    - dice: every die rolled, in roll order (`Die`: sides, face, kept, role, flags).
    - natural: the kept d20's face; modifier: what was added to it; total: the sum (a
      `roll`: the expression's value); target: the DC, AC or defense beaten or not.
    - outcome: the outcome id (`success`, `critical_failure`, `first_wins`, ...); label:
      its words ("Critical hit", "2 degrees of success"); success: True or False where
      the verb succeeds or fails; degree: Mutants & Masterminds' signed degree.
    - name: the request's label word (`stealth`); character: the character it was rolled
      through (`--as aria`, the name as the characters file spells it); damage: an
      attack's `Damage`; members: a group check's results; sides and winner (1-based,
      None on a tie): a contest's; scores: Pen & Dagger ability scores; dice_summary:
      instead of `dice` for a roll of more than 1,000 dice.
    - detail: system-specific extras, as they go into JSON; notes: remarks for people.
    """

    request: str
    system: str
    verb: str
    dice: tuple[Die, ...] = ()
    natural: int | None = None
    modifier: int | None = None
    total: int | None = None
    target: int | None = None
    outcome: str | None = None
    label: str | None = None  # the outcome's label: "Critical hit", "2 degrees of success"
    success: bool | None = None
    degree: int | None = None
    # Optional extras; None when the verb does not use them.
    name: str | None = None  # the label word of the request: "stealth"
    damage: Damage | None = None
    members: tuple[Result, ...] | None = None
    sides: tuple[Result, ...] | None = None
    winner: int | None = None  # with sides: the winning side, 1-based (None: a tie)
    scores: tuple[Score, ...] | None = None
    dice_summary: DiceSummary | None = None  # replaces `dice` for huge rolls
    character: str | None = None  # the character rolled through (`--as aria`)
    party: tuple[str, ...] | None = None  # the characters who rolled together (`--as party`)
    detail: dict[str, Any] = field(default_factory=dict)
    """System-specific extras that go into JSON as they are (pendagger: "rank", "row";
    mm: "dc_name"; roll: "expression", "labels"; fortune: "fortune"). JSON-ready values."""
    tree: Any = None
    """For `roll`: the evaluated expression tree (d20cli.dice), which the rich renderer
    walks to show each term with its dice. Not part of JSON."""
    notes: tuple[str, ...] = ()  # human notes: "natural 20 below the DC: a plain failure"

    def dice_text(self) -> str:
        """The JSON text of `dice`. Written once: the JSON line and the roll log both need
        it, so it is kept in the instance dictionary (as functools.cached_property keeps a
        value; the fields stay frozen)."""
        text: str | None = self.__dict__.get("_dice_text")
        if text is None:
            text = self.__dict__["_dice_text"] = _parts(self.dice)
        return text

    def derived(self, key: str, make: Callable[[Result], V]) -> V:
        """`make(self)`, made once and kept with the result (which is immutable) under
        `key`: what a reader derives from each result, such as its roll log row, is made
        once however often a batch gets the same Result (d20cli.rolling.dice_memo)."""
        kept: dict[str, Any] | None = self.__dict__.get("_derived")
        if kept is None:
            kept = self.__dict__["_derived"] = {}
        elif key in kept:
            value: V = kept[key]
            return value
        value = kept[key] = make(self)
        return value

    def noted(self, note: str, detail: dict[str, Any]) -> Result:
        """A copy with one more note and `detail`'s entries added to its detail: as
        `replace(self, notes=..., detail=...)`, ten times faster (a batch with --odds makes
        one on every line): the same fields, two of them new (Result has no
        __post_init__), in a copy of its dictionary (one memcpy; filling the new
        instance's own made it grow on the way), without what was made from the old
        fields (MADE); the dice's JSON text stays, the dice being the same."""
        return self._copied((*self.notes, note), detail)

    def with_detail(self, detail: dict[str, Any]) -> Result:
        """A copy with `detail`'s entries added to its detail (as `noted`, without a note):
        a sealed session's roll gets its position so (d20cli.app.sealed.mark_sealed)."""
        return self._copied(self.notes, detail)

    def _copied(self, notes: tuple[str, ...], detail: dict[str, Any]) -> Result:
        fields = self.__dict__.copy()
        for key in MADE:
            fields.pop(key, None)
        fields["notes"] = notes
        fields["detail"] = {**self.detail, **detail} if self.detail else detail.copy()
        copy = object.__new__(type(self))
        _SET_DICT(copy, "__dict__", fields)
        return copy

    def json_text(self) -> str:
        """The JSON line of the result, written once (kept as `dice_text` keeps its text: a
        batch that rolls a line again may get the very Result it made before, from
        d20cli.rolling.dice_memo)."""
        text: str | None = self.__dict__.get("_json_text")
        if text is None:
            text = self.__dict__["_json_text"] = _write_json(self)
        return text

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        """The Result whose JSON this is (keys not of the fields come back as `detail`),
        read key by key as RESULT_JSON declares them."""
        values = {key: _READ[kind](data.get(key), part) for key, kind, part in _READ_KEYS}
        detail = {k: v for k, v in data.items() if k not in _RESULT_KEYS}
        return cls(**values, detail=detail)


# --- a Result's JSON, declared once ------------------------------------------------------
# Each key is written as its kind says (a kind of `..._IF_SET` only when the field is not
# None); the writer is compiled from the table, as hand-written code, for speed.
TEXT = "text"  # a string
DICE = "dice"  # the dice, as `dice_text` writes them
NUMBER = "number"  # a number, or null
TEXT_OR_NULL = "text or null"
BOOL = "bool"  # true, false or null
TEXT_IF_SET = "text, if set"
TEXTS_IF_SET = "texts, if set"  # a list of strings
PART_IF_SET = "part, if set"  # a part (its class is the row's third item)
PARTS_IF_SET = "parts, if set"  # a list of parts
WINNER = "winner"  # with `sides` only: a number, or null (a tie)
DETAIL = "detail"  # the entries of `detail`, each its own key, as they are
TEXTS_IF_ANY = "texts, if any"  # a list of strings, left out when empty

#: A Result's JSON, key by key in the order written: the key (the field of that name), its
#: kind and, for a part, the part's class. `json_text` is compiled from it and `from_json`
#: reads by it; a key that is not here is an entry of `detail`.
RESULT_JSON: tuple[tuple[str, str, Any], ...] = (
    ("request", TEXT, None),
    ("system", TEXT, None),
    ("verb", TEXT, None),
    ("dice", DICE, None),
    ("natural", NUMBER, None),
    ("modifier", NUMBER, None),
    ("total", NUMBER, None),
    ("target", NUMBER, None),
    ("outcome", TEXT_OR_NULL, None),
    ("label", TEXT_OR_NULL, None),
    ("success", BOOL, None),
    ("degree", NUMBER, None),
    ("name", TEXT_IF_SET, None),
    ("character", TEXT_IF_SET, None),
    ("party", TEXTS_IF_SET, None),
    ("dice_summary", PART_IF_SET, DiceSummary),
    ("damage", PART_IF_SET, Damage),
    ("members", PARTS_IF_SET, Result),
    ("sides", PARTS_IF_SET, Result),
    ("winner", WINNER, None),
    ("scores", PARTS_IF_SET, Score),
    ("detail", DETAIL, None),
    ("notes", TEXTS_IF_ANY, None),
)

#: How each kind's value is written (V: the field's value) and when (None: always).
_WRITE: dict[str, tuple[str, str | None]] = {
    TEXT: ("_string(V)", None),
    DICE: ("self.dice_text()", None),
    NUMBER: ("_NULL if V is None else V", None),
    TEXT_OR_NULL: ("_NULL if V is None else _string(V)", None),
    BOOL: ("_BOOL[V]", None),
    TEXT_IF_SET: ("_string(V)", "V is not None"),
    TEXTS_IF_SET: ("_list(map(_string, V))", "V is not None"),
    PART_IF_SET: ("V.json_text()", "V is not None"),
    PARTS_IF_SET: ("_parts(V)", "V is not None"),
    WINNER: ("_NULL if V is None else V", "self.sides is not None"),
    TEXTS_IF_ANY: ("_list(map(_string, V))", "V"),
}
#: How each kind's value is read back (v: the JSON value, None when missing; part: the
#: row's class).
_READ: dict[str, Callable[[Any, Any], Any]] = {
    TEXT: lambda v, part: "" if v is None else str(v),
    DICE: lambda v, part: _dice(v or ()),
    NUMBER: lambda v, part: v,
    TEXT_OR_NULL: lambda v, part: _optional_str(v),
    BOOL: lambda v, part: v,
    TEXT_IF_SET: lambda v, part: _optional_str(v),
    TEXTS_IF_SET: lambda v, part: None if v is None else tuple(map(str, v)),
    PART_IF_SET: lambda v, part: None if v is None else part.from_json(v),
    PARTS_IF_SET: lambda v, part: None if v is None else tuple(map(part.from_json, v)),
    WINNER: lambda v, part: v,
    TEXTS_IF_ANY: lambda v, part: tuple(str(n) for n in v or ()),
}
_READ_KEYS = tuple(row for row in RESULT_JSON if row[1] != DETAIL)
#: The JSON keys a Result writes from its fields; any other key is a `detail` entry.
_RESULT_KEYS = frozenset(key for key, _, _ in _READ_KEYS)
_DETAIL = """\
    for key, value in self.detail.items():  # never one of the declared keys
        text = _string(value) if type(value) is str else JSON_ENCODER.encode(value)
        parts.append(f"{_string(key)}: {text}")"""


def _writer_source() -> str:
    """The source of `Result._json`: the keys always written in one f-string, then each
    other key (and detail's) appended when it is set."""
    head: list[str] = []
    body: list[str] = []
    for key, kind, _ in RESULT_JSON:
        if kind == DETAIL:
            body.append(_DETAIL)
            continue
        value, when = _WRITE[kind]
        field = f"self.{key}"
        text = f'"{key}": {{{value.replace("V", field)}}}'
        if when is None and not body:
            head.append(text)
        else:
            condition = when.replace("V", field) if when is not None else "True"
            body.append(f"    if {condition}:\n        parts.append(f'{text}')")
    first = ", ".join(head)
    return "\n".join(
        [
            "def _json(self):",
            f"    parts = [f'{{{{{first}']",
            *body,
            '    return ", ".join(parts) + "}"',
        ]
    )


def _compiled_writer(result: Result) -> str:
    """The first JSON line of a run: compile the writer (0.5 ms, which a run that writes
    no JSON never pays), put it in its place, and write the line with it."""
    global _write_json
    _string("")  # (json's own writer from now on)
    space: dict[str, Any] = {
        "_string": _string,
        "_NULL": _NULL,
        "_BOOL": _BOOL,
        "_list": _list,
        "_parts": _parts,
        "JSON_ENCODER": json_encoder(),
    }
    exec(compile(_writer_source(), "<d20cli.results.RESULT_JSON>", "exec"), space)
    _write_json = space["_json"]
    return _write_json(result)


#: A Result's JSON line, as RESULT_JSON declares it (`Result.json_text` keeps it).
_write_json: Callable[[Result], str] = _compiled_writer


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _dice(items: Iterable[dict[str, Any]]) -> tuple[Die, ...]:
    return tuple(Die.from_json(d) for d in items)
