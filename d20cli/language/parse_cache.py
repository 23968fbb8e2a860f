"""Parsed requests as JSON and back: the codec of the cache of parsed requests
(d20cli.store.request_cache keeps the file).

Each dataclass is tagged by its name, and only the classes of `CLASSES` (the requests of
d20cli.language.requests and the dice-expression nodes of d20cli.dice.tree) may be named:
decoding runs no code but those classes' constructors, and never pickle.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from d20cli.dice import tree
from d20cli.language import requests

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
    tree.Reroll,
    tree.Explode,
    tree.Keep,
    tree.Pool,
    tree.Crit,
    tree.Number,
    tree.Dice,
    tree.Neg,
    tree.Arithmetic,
    tree.Call,
    tree.Group,
)


def classes() -> dict[str, type]:
    """The registry by name."""
    return {cls.__name__: cls for cls in CLASSES}


def encode(value: Any) -> Any:
    """A Request (or any part of one) as JSON-ready data, classes tagged by name."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data: dict[str, Any] = {"@": type(value).__name__}
        for f in dataclasses.fields(value):
            if f.init:  # fields computed in __post_init__ are computed again on load
                data[f.name] = encode(getattr(value, f.name))
        return data
    if isinstance(value, tuple):
        return {"@t": [encode(v) for v in value]}
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def decode(data: Any, classes: dict[str, type]) -> Any:
    """The inverse of `encode`; KeyError/TypeError/ValueError on anything unexpected."""
    if isinstance(data, dict):
        if "@t" in data:
            return tuple(decode(v, classes) for v in data["@t"])
        cls = classes[data["@"]]
        kwargs = {k: decode(v, classes) for k, v in data.items() if k != "@"}
        return cls(**kwargs)
    if isinstance(data, list):
        raise ValueError("lists are not cached")
    return data
