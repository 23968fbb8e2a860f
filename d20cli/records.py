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
"""

from __future__ import annotations

import collections

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from typing import Generic as Generic
    from typing import NamedTuple as NamedTuple

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
        make: Any = collections.namedtuple  # (its arguments are not literals here)
        made = make(name, list(annotations), defaults=defaults, module=ns["__module__"])
        made.__annotations__ = dict(annotations)
        for key, value in ns.items():
            if key in _PROHIBITED:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in annotations:
                setattr(made, key, value)
        made.__qualname__ = ns.get("__qualname__", name)
        return made


_Record = type.__new__(_RecordMeta, "NamedTuple", (), {"__module__": __name__})


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
