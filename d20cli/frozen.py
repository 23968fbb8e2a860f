"""A faster `__init__` for the frozen dataclasses built on every roll.

A frozen dataclass cannot assign its fields in `__init__` (its `__setattr__` refuses), so
the generated `__init__` sets each one through `object.__setattr__`. That is several times
slower than plain assignment: building the dice and the `Result` of a roll was a quarter
of a batch line's time on standard input. `quick_init` replaces that `__init__` with one of
the same signature that stores the fields directly: through the slot descriptors of a
slotted class, or into the instance dictionary of any other. The class is still a frozen
dataclass in every other way: assigning a field afterwards raises FrozenInstanceError, and
`fields`, `replace`, equality, hashing and repr are the dataclass's own.

Only plain fields are supported (each set by `__init__`, none keyword-only); a class that
has anything else keeps its own `__init__` and is refused here, at import.
"""

from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Give the frozen dataclass `cls` an `__init__` that stores its fields directly."""
    params = getattr(cls, "__dataclass_params__", None)
    if not is_dataclass(cls) or params is None or not params.frozen:
        raise TypeError(f"quick_init takes a frozen dataclass, not {cls.__name__}")
    slotted = "__slots__" in cls.__dict__
    env: dict[str, Any] = {"_NO_VALUE": _NO_VALUE}
    args: list[str] = []
    stores: list[str] = []
    for f in fields(cls):
        if not f.init or f.kw_only:
            raise TypeError(f"quick_init: {cls.__name__}.{f.name} is not a plain field")
        value = f.name
        if f.default is not MISSING:
            env[f"_default_{f.name}"] = f.default
            args.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not MISSING:
            env[f"_factory_{f.name}"] = f.default_factory
            args.append(f"{f.name}=_NO_VALUE")
            value = f"_factory_{f.name}() if {f.name} is _NO_VALUE else {f.name}"
        else:
            args.append(f.name)
        if slotted:
            env[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
            stores.append(f"_set_{f.name}(self, {value})")
        else:
            stores.append(f"{f.name!r}: {value}")
    body = stores if slotted else [f"self.__dict__.update({{{', '.join(stores)}}})"]
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(args)}):\n" + "".join(f"    {s}\n" for s in body)
    exec(source, env)  # as dataclasses itself builds __init__
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    setattr(cls, "__init__", init)  # noqa: B010 (mypy refuses to assign a method)
    return cls


class _NoValue:
    """Marks an argument left out, for a field whose default is made by a factory."""

    def __repr__(self) -> str:
        return "<factory>"


_NO_VALUE = _NoValue()
