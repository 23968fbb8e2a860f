"""The one cache policy of d20cli: every memo is bounded, in entries (and, where the
entries differ much in size, in a weight too: values held), and the bound is stated where
the memo is made, through this module (docs/performance.md lists them all).

`Bounded` is a dict that holds at most `size` entries (and at most `most` of weight, each
entry weighed by `weigh`): a new key stored into a full one empties it first. A run asks
again for what it asked recently, so an emptied memo fills again at once with what is in
use, and a hit costs what a dict's costs (nothing is bookkept on the way). `memo` bounds
a pure function's answers by count (functools.lru_cache, whose hits are as cheap, made in
C). SIZE is the bound of every memo that states no other. Light: this module imports
nothing but functools and sys.

Every memo is registered here (`CACHES`), by its name, with its module and its bounds:
`declare` names a `Bounded` (and `.new()` makes it; a memo made per run or per request is
declared once, at import), and `memo` registers the function it bounds. docs/performance.md's
table of caches is made from `CACHES` (scripts/make_docs.py), and tests/test_bounded_registry.py
fails on a memo made any other way."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from d20cli.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    K = TypeVar("K")
    V = TypeVar("V")
    F = TypeVar("F", bound=Callable[..., Any])

SIZE = 4096  # entries of a memo that states no other bound


class Cache(NamedTuple):
    """A memo as registered: `name` (how the docs and the benchmarks call it), the
    `module` that makes it, its bound in entries (`size`) and in weight (`most`), what it
    `holds` (key -> value), what it `buys` (measured: docs/performance.md) and its `kind`
    ("Bounded", or "memo": a function's answers)."""

    name: str
    module: str
    size: int
    most: int | None
    holds: str
    buys: str
    kind: str = "Bounded"

    def new(
        self,
        weigh: Callable[[Any], int] | None = None,
        kind: type[Bounded[Any, Any]] | None = None,
    ) -> Any:
        """A new memo of these bounds (`kind`: a subclass of `Bounded`)."""
        return (kind or Bounded)(self.size, self.most, weigh)


#: Every memo of the package, by name: what docs/performance.md's table is made from.
CACHES: dict[str, Cache] = {}


def _register(cache: Cache) -> Cache:
    if cache.size < 1 or (cache.most is not None and cache.most < 1):
        raise ValueError("a bounded memo holds at least one entry")
    kept = CACHES.setdefault(cache.name, cache)
    if kept != cache:
        raise ValueError(f"two memos are named {cache.name!r} ({kept.module}, {cache.module})")
    return cache


def declare(
    name: str, size: int = SIZE, most: int | None = None, *, holds: str, buys: str
) -> Cache:
    """Register a memo (made by `.new()`, in this module or per run): at import, so the
    registry is whole once the package is imported."""
    module = sys._getframe(1).f_globals["__name__"]
    return _register(Cache(name, module, size, most, holds, buys))


class Bounded(dict["K", "V"]):
    """A dict of at most `size` entries and, with `most`, at most that much weight in all
    (`weigh(value)` each): storing a new key that would pass either empties it first
    (`d[key] = value`, `keep`, `setdefault` and `update` alike; reading is a dict's own).
    An entry heavier than `most` alone is not kept."""

    __slots__ = ("most", "size", "weigh", "weight")

    def __init__(
        self, size: int = SIZE, most: int | None = None, weigh: Callable[[V], int] | None = None
    ) -> None:
        if size < 1 or (most is not None and (most < 1 or weigh is None)):
            raise ValueError("a bounded memo holds at least one entry (a weight needs `weigh`)")
        super().__init__()
        self.size, self.most, self.weigh = size, most, weigh
        self.weight = 0

    def __setitem__(self, key: K, value: V) -> None:
        weigh = self.weigh
        if weigh is None:
            if len(self) >= self.size and key not in self:
                self.clear()
            super().__setitem__(key, value)
            return
        heavy = weigh(value)
        if self.most is not None and heavy > self.most:
            self.pop(key, None)
            return
        if key in self:
            self.weight -= weigh(self[key])
        elif len(self) >= self.size or (self.most is not None and self.weight + heavy > self.most):
            self.clear()
        self.weight += heavy
        super().__setitem__(key, value)

    def __delitem__(self, key: K) -> None:
        if self.weigh is not None:
            self.weight -= self.weigh(self[key])
        super().__delitem__(key)

    def pop(self, key: K, *default: Any) -> Any:
        if key in self:
            value = self[key]
            del self[key]
            return value
        return super().pop(key, *default)

    def clear(self) -> None:
        super().clear()
        self.weight = 0

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


def memo(size: int = SIZE, *, holds: str = "", buys: str = "") -> Callable[[F], F]:
    """A pure function's answers, at most `size` of them (the least recently used go),
    registered by the function's module and name."""
    if size < 1:
        raise ValueError("a bounded memo holds at least one entry")

    def bound(function: F) -> F:
        module = function.__module__
        name = f"{module.rpartition('.')[2]}.{function.__qualname__}"
        _register(Cache(name, module, size, None, holds, buys, "memo"))
        return functools.lru_cache(maxsize=size)(function)  # type: ignore[return-value]

    return bound
