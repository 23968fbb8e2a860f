"""House-rule defaults: the house words that a character or the config file gives to every
roll, where the request itself gives none (docs/rules-decisions.md, "House rules").

A word on the request beats the character's, which beats the config file's
(`HouseDefaults.over`). A default is only put where the system takes that word for that
verb (`System.house_words`): `lucky` in the config does nothing to mm's routine check,
which rolls no die, and `crit-dmg` only reaches an attack that has damage. So a default
never turns a request that reads into an error. The words put in are in the result's
`house` field like typed ones.

Pure: no I/O. The app layer reads the defaults (d20cli.store.config, the characters file)
and calls `with_house` on each parsed request.
"""

from __future__ import annotations

from collections.abc import Sequence

from d20cli.frozen import field, fields, frozen, replace
from d20cli.language.requests import CheckRequest, ContestRequest, GroupRequest, LuckRequest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from d20cli.language.requests import Request
    from d20cli.rules.common import System

#: The house keys of a character or a config table, as written in the files and in
#: `d20 config set SYSTEM.KEY VALUE`, and the HouseDefaults field each sets.
HOUSE_KEYS: dict[str, str] = {
    "crit": "crit",
    "lucky": "lucky",
    "min": "floor",
    "crit-dmg": "crit_dmg",
    "group": "group",
}


@frozen
class HouseDefaults:
    """House words given by default (None: not given). crit: `crit N`; lucky: `lucky`
    (False from a character beats True from the config); floor: `min N`; crit_dmg:
    `crit-dmg=MODE`; group: a group rule word (`at-least-half`)."""

    crit: int | None = None
    lucky: bool | None = None
    floor: int | None = None
    crit_dmg: str | None = None
    group: str | None = None
    #: (field, where its value came from: a character's name, "config"), for the output
    sources: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def empty(self) -> bool:
        return self is NO_HOUSE or self == NO_HOUSE

    def source(self, name: str) -> str:
        """Where field `name`'s value came from ("" when not said)."""
        return next((where for key, where in self.sources if key == name), "")

    def over(self, other: HouseDefaults) -> HouseDefaults:
        """These defaults, with `other`'s where these give none (a character's over the
        config file's)."""
        if other.empty:
            return self
        values: dict[str, Any] = {}
        sources: list[tuple[str, str]] = []
        for f in fields(HouseDefaults):
            if f.name == "sources":
                continue
            mine = getattr(self, f.name)
            values[f.name] = getattr(other, f.name) if mine is None else mine
            where = (other if mine is None else self).source(f.name)
            if values[f.name] is not None and where:
                sources.append((f.name, where))
        return HouseDefaults(**values, sources=tuple(sources))

    def to_json(self) -> dict[str, Any]:
        """The keys given, as the files name them: {"crit": 19, "lucky": true}."""
        out: dict[str, Any] = {}
        for key, name in HOUSE_KEYS.items():
            value = getattr(self, name)
            if value is not None:
                out[key] = value
        return out

    @classmethod
    def from_keys(cls, values: dict[str, Any], source: str = "") -> HouseDefaults:
        """Defaults from house keys (`{"crit-dmg": "max"}`); the values already checked.
        source: where they are written (a character's name, "config")."""
        if not values:
            return NO_HOUSE
        named = {HOUSE_KEYS[key]: value for key, value in values.items()}
        sources = tuple((name, source) for name in named) if source else ()
        return cls(**named, sources=sources)


NO_HOUSE = HouseDefaults()


def offered_keys(system: System) -> tuple[str, ...]:
    """The house keys that mean something in `system` (in HOUSE_KEYS order): a word that
    one of its verbs takes, and `group` where it grades group checks."""
    taken: set[str] = set()
    for kinds in system.house_words.values():
        taken.update(kinds)
    if system.grade_group is not None:
        taken.add("group")
    return tuple(key for key in HOUSE_KEYS if key in taken)


def with_house(request: Request, system: System, defaults: HouseDefaults) -> Request:
    """`request` with the defaults put in where it gives none of its own and the system
    takes the word for its verb (group members and contest sides too)."""
    if defaults.empty:
        return request
    takes = system.house_words
    if isinstance(request, CheckRequest):
        return _check(request, takes.get(request.verb, frozenset()), defaults)
    if isinstance(request, GroupRequest):
        kinds = takes.get(request.verb, frozenset())
        members = tuple(_check(m, kinds, defaults) for m in request.members)
        rule = request.rule
        if rule is None and system.grade_group is not None:
            rule = defaults.group
        if rule == request.rule and all(
            a is b for a, b in zip(members, request.members, strict=True)
        ):
            return request
        return replace(request, members=members, rule=rule)
    if isinstance(request, ContestRequest):
        kinds = takes.get(request.verb, frozenset())
        sides = tuple(_check(s, kinds, defaults) for s in request.sides)
        if all(a is b for a, b in zip(sides, request.sides, strict=True)):
            return request
        return replace(request, sides=sides)
    if isinstance(request, LuckRequest):  # `lucky`, the one house word of a luck roll
        kinds = takes.get(request.verb, frozenset())
        if "lucky" not in kinds or request.lucky or not defaults.lucky:
            return request
        where = defaults.source("lucky")
        return replace(request, lucky=True, house_from=(("lucky", where),) if where else ())
    return request


def with_house_each(request: Request, system: System, each: Sequence[HouseDefaults]) -> Request:
    """A party's request (d20cli.language.character_entries.merge_party): member or
    side i with the defaults `each[i]` (that character's own over the config's)."""
    kinds = system.house_words.get(request.verb, frozenset())
    if isinstance(request, GroupRequest):
        rows = request.members
    elif isinstance(request, ContestRequest):
        rows = request.sides
    else:
        return request
    done = tuple(_check(row, kinds, d) for row, d in zip(rows, each, strict=True))
    if isinstance(request, GroupRequest):
        return replace(request, members=done)
    return replace(request, sides=done)


#: The house key of each request field a default may set.
_KEY_OF = {name: key for key, name in HOUSE_KEYS.items()}


def _check(request: CheckRequest, kinds: frozenset[str], defaults: HouseDefaults) -> CheckRequest:
    changes: dict[str, Any] = {}
    if "crit" in kinds and request.crit is None and defaults.crit is not None:
        changes["crit"] = defaults.crit
    if "lucky" in kinds and not request.lucky and defaults.lucky:
        changes["lucky"] = True
    if "min" in kinds and request.floor is None and defaults.floor is not None:
        changes["floor"] = defaults.floor
    if (
        "crit-dmg" in kinds
        and request.crit_dmg is None
        and request.damage is not None
        and defaults.crit_dmg is not None
    ):
        changes["crit_dmg"] = defaults.crit_dmg
    if not changes:
        return request
    came = tuple((_KEY_OF[name], defaults.source(name)) for name in changes)
    return replace(request, **changes, house_from=tuple((k, w) for k, w in came if w))
