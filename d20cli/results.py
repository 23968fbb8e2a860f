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

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from json.encoder import encode_basestring_ascii as _string  # a JSON string, in ASCII
from typing import Any, TypeVar

from d20cli.bounded import SIZE, memo
from d20cli.frozen import field, frozen

JSON_ENCODER = json.JSONEncoder(check_circular=False)  # for JSON lines (ASCII, as `_string`)

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


S = TypeVar("S", bound=Shown)
_SET_DICT = object.__dict__["__setattr__"]  # (sets a frozen instance's dictionary)
#: What a Result keeps in its dictionary besides its fields, made from them once: its JSON
#: line, the values readers derive from it (`Result.derived`) and the copy `--odds` noted
#: (d20cli.app.tallies.with_chance); `_dice_text` too, which a copy with the same dice keeps.
MADE = ("_json_text", "_derived", "_with_chance")
V = TypeVar("V")
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
            text += f', "labels": {JSON_ENCODER.encode(self.labels)}'
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
            text = self.__dict__["_json_text"] = self._json()
        return text

    def _json(self) -> str:
        parts = [
            f'{{"request": {_string(self.request)}, "system": {_string(self.system)}, '
            f'"verb": {_string(self.verb)}, "dice": {self.dice_text()}, '
            f'"natural": {_NULL if self.natural is None else self.natural}, '
            f'"modifier": {_NULL if self.modifier is None else self.modifier}, '
            f'"total": {_NULL if self.total is None else self.total}, '
            f'"target": {_NULL if self.target is None else self.target}, '
            f'"outcome": {_NULL if self.outcome is None else _string(self.outcome)}, '
            f'"label": {_NULL if self.label is None else _string(self.label)}, '
            f'"success": {_BOOL[self.success]}, '
            f'"degree": {_NULL if self.degree is None else self.degree}'
        ]
        if self.name is not None:
            parts.append(f'"name": {_string(self.name)}')
        if self.character is not None:
            parts.append(f'"character": {_string(self.character)}')
        if self.party is not None:
            parts.append(f'"party": {_list(map(_string, self.party))}')
        if self.dice_summary is not None:
            parts.append(f'"dice_summary": {self.dice_summary.json_text()}')
        if self.damage is not None:
            parts.append(f'"damage": {self.damage.json_text()}')
        if self.members is not None:
            parts.append(f'"members": {_parts(self.members)}')
        if self.sides is not None:
            parts.append(f'"sides": {_parts(self.sides)}')
            parts.append(f'"winner": {_NULL if self.winner is None else self.winner}')
        if self.scores is not None:
            parts.append(f'"scores": {_parts(self.scores)}')
        for key, value in self.detail.items():  # never one of the keys above
            text = _string(value) if type(value) is str else JSON_ENCODER.encode(value)
            parts.append(f"{_string(key)}: {text}")
        if self.notes:
            parts.append(f'"notes": {_list(map(_string, self.notes))}')
        return ", ".join(parts) + "}"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        """The Result whose JSON this is (keys not of the fields come back as `detail`)."""

        def parts(key: str, make: Any) -> Any:
            value = data.get(key)
            return None if value is None else tuple(make(x) for x in value)

        damage, summary = data.get("damage"), data.get("dice_summary")
        return cls(
            request=str(data.get("request", "")),
            system=str(data.get("system", "")),
            verb=str(data.get("verb", "")),
            dice=_dice(data.get("dice", ())),
            natural=data.get("natural"),
            modifier=data.get("modifier"),
            total=data.get("total"),
            target=data.get("target"),
            outcome=data.get("outcome"),
            label=data.get("label"),
            success=data.get("success"),
            degree=data.get("degree"),
            name=data.get("name"),
            character=_optional_str(data.get("character")),
            party=None if data.get("party") is None else tuple(map(str, data["party"])),
            damage=None if damage is None else Damage.from_json(damage),
            members=parts("members", Result.from_json),
            sides=parts("sides", Result.from_json),
            winner=data.get("winner"),
            scores=parts("scores", Score.from_json),
            dice_summary=None if summary is None else DiceSummary.from_json(summary),
            detail={k: v for k, v in data.items() if k not in _RESULT_KEYS},
            notes=tuple(str(n) for n in data.get("notes", ())),
        )


#: The JSON keys a Result writes from its fields; any other key is a `detail` entry.
_RESULT_KEYS = frozenset(
    (
        "request",
        "system",
        "verb",
        "dice",
        "natural",
        "modifier",
        "total",
        "target",
        "outcome",
        "label",
        "success",
        "degree",
        "name",
        "character",
        "party",
        "damage",
        "members",
        "sides",
        "winner",
        "scores",
        "dice_summary",
        "notes",
    )
)


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _dice(items: Iterable[dict[str, Any]]) -> tuple[Die, ...]:
    return tuple(Die.from_json(d) for d in items)
