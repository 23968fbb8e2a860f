"""`NamedTuple` without importing `typing`: the package's small records, made at start-up.

`typing` costs about 3 ms of every start (it imports `re`, `contextlib`, `warnings` and
builds its own classes), a sixteenth of `d20 check`'s: the modules a start imports use it
only for type checkers, under `if TYPE_CHECKING:` (a module's own `TYPE_CHECKING = False`,
which type checkers read as true), except to make a `class X(NamedTuple)`. This module's
`NamedTuple` makes the same class as `typing.NamedTuple`: a `collections.namedtuple` of the
annotated fields, with their defaults, `__annotations__`, the class's docstring and its
own methods and attributes, and the same refusals (a field without a default after one
with, another base, a namedtuple attribute redefined). It checks no annotation, which lets
these modules write `from __future__ import annotations` (typing's would compile each
string annotation). Type checkers see `typing.NamedTuple` itself. `Generic` is the same
for a generic class (`rolling.prepared`), whose parameters are written as strings.

The tuple class is made as `collections.namedtuple` makes it (its fields, defaults,
methods, docstrings and `__module__`), but for its `__new__`: namedtuple compiles the
source of one for each class (`eval`, 60 µs of its 100), where here the code of a
`__new__` of N fields is written out below (`_NEW`, compiled with this module) and each
class's is that code with its own field names put in (as `frozen` makes `__init__`): a
start makes about 20 records and compiles none of them (docs/performance.md, "Start-up").
"""

from __future__ import annotations

import sys
from operator import itemgetter
from types import FunctionType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any
    from typing import Generic as Generic
    from typing import NamedTuple as NamedTuple

try:
    from _collections import _tuplegetter  # type: ignore[import-not-found]
except ImportError:  # (not CPython)

    def _tuplegetter(index: int, doc: str) -> Any:
        return property(itemgetter(index), doc=doc)


#: What a class body may not define (collections.namedtuple's own).
_PROHIBITED = frozenset(
    {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
    | {"_make", "_replace", "_asdict", "_source"}
)
#: What a class body defines that is not copied onto the tuple class.
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__", "__qualname__"})


class _RecordMeta(type):
    """Makes `class X(NamedTuple)` the namedtuple of X's annotated fields (as typing's
    NamedTupleMeta does, without reading the annotations)."""

    def __new__(cls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if bases != (_Record,):
            raise TypeError("a NamedTuple inherits from NamedTuple alone")
        annotations: dict[str, Any] = ns.get("__annotations__", {})
        defaults: list[Any] = []
        for field in annotations:
            if field in ns:
                defaults.append(ns[field])
            elif defaults:
                raise TypeError(f"non-default namedtuple field {field} cannot follow default field")
        made = _tuple_class(name, tuple(annotations), tuple(defaults), ns["__module__"])
        made.__annotations__ = dict(annotations)
        for key, value in ns.items():
            if key in _PROHIBITED:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in annotations:
                setattr(made, key, value)
        made.__qualname__ = ns.get("__qualname__", name)
        return made


_Record = type.__new__(_RecordMeta, "NamedTuple", (), {"__module__": __name__})

_t = tuple.__new__
#: `__new__(cls, ...)` of a record of N fields: the tuple of its N arguments (each
#: record's is one of these with its own field names put in, `_tuple_class`).
_NEW = (
    lambda _c: _t(_c, ()),
    lambda _c, a: _t(_c, (a,)),
    lambda _c, a, b: _t(_c, (a, b)),
    lambda _c, a, b, c: _t(_c, (a, b, c)),
    lambda _c, a, b, c, d: _t(_c, (a, b, c, d)),
    lambda _c, a, b, c, d, e: _t(_c, (a, b, c, d, e)),
    lambda _c, a, b, c, d, e, f: _t(_c, (a, b, c, d, e, f)),
    lambda _c, a, b, c, d, e, f, g: _t(_c, (a, b, c, d, e, f, g)),
    lambda _c, a, b, c, d, e, f, g, h: _t(_c, (a, b, c, d, e, f, g, h)),
    lambda _c, a, b, c, d, e, f, g, h, i: _t(_c, (a, b, c, d, e, f, g, h, i)),
    lambda _c, a, b, c, d, e, f, g, h, i, j: _t(_c, (a, b, c, d, e, f, g, h, i, j)),
    lambda _c, a, b, c, d, e, f, g, h, i, j, k: _t(_c, (a, b, c, d, e, f, g, h, i, j, k)),
    lambda _c, a, b, c, d, e, f, g, h, i, j, k, m: _t(_c, (a, b, c, d, e, f, g, h, i, j, k, m)),
)
MAX_FIELDS = len(_NEW) - 1


def _tuple_class(name: str, fields: tuple[str, ...], defaults: tuple[Any, ...], module: str) -> Any:
    """The class `collections.namedtuple(name, fields, defaults=defaults, module=module)`
    makes, its `__new__` from `_new_code`."""
    for field in fields:
        if field.startswith("_"):
            raise ValueError(f"Field names cannot start with an underscore: {field!r}")
    count = len(fields)
    if count > MAX_FIELDS:
        raise TypeError(f"a NamedTuple here has at most {MAX_FIELDS} fields")
    listed = ", ".join(fields)
    code = _NEW[count].__code__.replace(co_varnames=("_cls", *fields), co_name="__new__")
    new: Any = FunctionType(code, globals(), "__new__", defaults or None)
    new.__doc__ = f"Create new instance of {name}({listed})"
    shown = "(" + ", ".join(f"{field}=%r" for field in fields) + ")"

    def _make(cls: Any, iterable: Iterable[Any]) -> Any:
        result = tuple.__new__(cls, iterable)
        if len(result) != count:
            raise TypeError(f"Expected {count} arguments, got {len(result)}")
        return result

    _make.__doc__ = f"Make a new {name} object from a sequence or iterable"

    def _replace(self: Any, /, **kwds: Any) -> Any:
        result = self._make(map(kwds.pop, fields, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    _replace.__doc__ = f"Return a new {name} object replacing specified fields with new values"

    def __repr__(self: Any) -> str:
        "Return a nicely formatted representation string"
        return str(self.__class__.__name__ + shown % self)

    def _asdict(self: Any) -> dict[str, Any]:
        "Return a new dict which maps field names to their values."
        return dict(zip(self._fields, self, strict=False))

    def __getnewargs__(self: Any) -> tuple[Any, ...]:
        "Return self as a plain tuple.  Used by copy and pickle."
        return tuple(self)

    methods: tuple[Callable[..., Any], ...] = (new, _make, _replace, __repr__, _asdict)
    for method in (*methods, __getnewargs__):
        method.__qualname__ = f"{name}.{method.__name__}"
    namespace: dict[str, Any] = {
        "__doc__": f"{name}({listed})",
        "__slots__": (),
        "_fields": fields,
        "_field_defaults": dict(zip(fields[count - len(defaults) :], defaults, strict=True)),
        "__new__": new,
        "_make": classmethod(_make),
        "_replace": _replace,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__getnewargs__": __getnewargs__,
        "__match_args__": fields,
    }
    for index, field in enumerate(fields):
        namespace[field] = _tuplegetter(index, sys.intern(f"Alias for field number {index}"))
    made = type(name, (tuple,), namespace)
    made.__module__ = module
    return made


class _Generic:
    """`typing.Generic` at run time, for a class whose parameters only its annotations
    read: `Generic["T"]` is this class (type checkers read the string as the type
    variable `T`, declared under TYPE_CHECKING)."""

    __slots__ = ()

    def __class_getitem__(cls, params: Any) -> type:
        return cls


if not TYPE_CHECKING:
    NamedTuple = _Record
    Generic = _Generic
