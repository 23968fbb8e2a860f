"""The one cache policy of d20cli: every memo is bounded in entries, and the bound is
stated where the memo is made, through this module (docs/performance.md lists them all).

`Bounded` is a dict that holds at most `size` entries: a new key stored into a full one
empties it first. A run asks again for what it asked recently, so an emptied memo fills
again at once with what is in use, and a hit costs what a dict's costs (nothing is
bookkept on the way). `memo` bounds a pure function's answers the same way by count
(functools.lru_cache, whose hits are as cheap, made in C). SIZE is the bound of every
memo that states no other. Light: this module imports nothing but functools."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])

SIZE = 4096  # entries of a memo that states no other bound


class Bounded(dict[K, V]):
    """A dict of at most `size` entries: storing a new key into a full one empties it
    first (`d[key] = value`, `keep`, `setdefault` and `update` alike; reading is a
    dict's own)."""

    __slots__ = ("size",)

    def __init__(self, size: int = SIZE) -> None:
        if size < 1:
            raise ValueError("a bounded memo holds at least one entry")
        super().__init__()
        self.size = size

    def __setitem__(self, key: K, value: V) -> None:
        if len(self) >= self.size and key not in self:
            self.clear()
        super().__setitem__(key, value)

    def keep(self, key: K, value: V) -> V:
        """`self[key] = value`, and `value`."""
        self[key] = value
        return value

    def setdefault(self, key: K, default: V) -> V:
        if key in self:
            return self[key]
        return self.keep(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value


def memo(size: int = SIZE) -> Callable[[F], F]:
    """A pure function's answers, at most `size` of them (the least recently used go)."""
    if size < 1:
        raise ValueError("a bounded memo holds at least one entry")
    return functools.lru_cache(maxsize=size)  # type: ignore[return-value]
