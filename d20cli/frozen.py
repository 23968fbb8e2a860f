"""`@frozen`: a frozen dataclass made cheaply, for the value classes built on every roll.

`@frozen` (or `@frozen(slots=True)`) makes exactly what `@dataclass(frozen=True)` (or
`@dataclass(frozen=True, slots=True)`) makes, as `dataclasses` sees it: `fields`,
`replace`, `asdict`, `is_dataclass` and `__match_args__` are the dataclass's own, and
`__dataclass_params__` says init, repr, eq and frozen. Two costs differ:

- Making the class. `dataclasses` compiles six methods per class (`__init__`, `__repr__`,
  `__eq__`, `__hash__`, `__setattr__`, `__delattr__`), each from generated source: about
  1 ms a class, and a cold start makes 46 of them (30 ms, a third of a new request's start).
  Here `dataclasses` only reads the fields; `__init__` is compiled once, and the other five
  are shared functions that read the field names the class holds (`operator.attrgetter`
  in C builds the tuple to compare or hash, as the generated code would).
- Building an instance. A frozen dataclass's `__init__` sets each field through
  `object.__setattr__`, several times slower than plain assignment; the `__init__` here
  stores the fields directly, through the slot descriptors of a slotted class or into the
  instance dictionary of any other. Assigning a field afterwards still raises
  `FrozenInstanceError`.

A class whose bases include a dataclass is refused here, at import (a frozen dataclass's
subclass rules are `dataclasses`' own): declare it with `@dataclass(frozen=True)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields, is_dataclass
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


@overload
def frozen(cls: type[T], /) -> type[T]: ...


@overload
def frozen(*, slots: bool = False, sparse: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def frozen(cls: type[T] | None = None, /, *, slots: bool = False, sparse: bool = False) -> Any:
    """`@dataclass(frozen=True, slots=slots)`, made as the module's docstring says.
    `sparse`: a class with many fields, most left at their defaults, made very often (a
    Result): its instances start from a copy of a dictionary of the defaults."""

    def make(cls: type[T]) -> type[T]:
        return _make(cls, slots, sparse)

    return make if cls is None else make(cls)


def _make(cls: type[T], slots: bool, sparse: bool = False) -> type[T]:
    if any(is_dataclass(base) for base in cls.__mro__[1:]):
        raise TypeError(f"frozen: {cls.__name__} has a dataclass base; use dataclass(frozen=True)")
    own = dict(cls.__dict__)  # what the class body defined (before a slotted copy)
    if not cls.__doc__:  # (dataclasses would read it from inspect.signature: 6 ms at first)
        cls.__doc__ = cls.__name__
    made: Any = dataclass(init=False, repr=False, eq=False, slots=slots)(cls)
    params = made.__dataclass_params__
    params.init = params.repr = params.eq = params.frozen = True
    all_fields = fields(made)
    names = frozenset(f.name for f in all_fields)
    setattr(made, "__init__", _init(made, all_fields, slots, sparse))  # noqa: B010 (mypy: a method)
    if not own.get("__doc__"):  # as dataclasses writes it: the class and its fields
        made.__doc__ = f"{made.__name__}({', '.join(f.name for f in all_fields if f.init)})"
    if "__repr__" not in own:
        made.__repr__ = _repr(tuple(f.name for f in all_fields if f.repr))
    compared = _values(tuple(f.name for f in all_fields if f.compare))
    if "__eq__" not in own:
        made.__eq__ = _eq(compared)
    explicit_hash = own.get("__hash__", MISSING)
    if explicit_hash is MISSING or (explicit_hash is None and "__eq__" in own):
        hashed = tuple(f.name for f in all_fields if (f.compare if f.hash is None else f.hash))
        made.__hash__ = _hash(_values(hashed))
    made.__setattr__ = _setattr(made, names)
    made.__delattr__ = _delattr(made, names)
    if slots:  # as dataclasses does for a frozen slotted class: copy and pickle work
        made.__getstate__ = _getstate
        made.__setstate__ = _setstate
    return made  # type: ignore[no-any-return]


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these fields' values of an instance."""
    if not names:
        return lambda self: ()
    if len(names) == 1:
        name = names[0]
        return lambda self: (getattr(self, name),)
    return attrgetter(*names)


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _eq(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, object], bool]:
    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _setattr(owner: type, names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is owner or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    return __setattr__


def _delattr(owner: type, names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is owner or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    return __delattr__


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(fields(self), state, strict=True):
        object.__setattr__(self, f.name, value)


def _init(
    cls: type, all_fields: tuple[Field[Any], ...], slotted: bool, sparse: bool = False
) -> Callable[..., None]:
    """An `__init__` with the dataclass's signature that stores the fields directly (a
    field with `init=False` gets its default, as the dataclass's own would give it)."""
    env: dict[str, Any] = {"_NO_VALUE": _NO_VALUE}
    args: list[str] = []
    stores: list[tuple[str, str]] = []
    for f in all_fields:
        if f.kw_only:
            raise TypeError(f"frozen: {cls.__name__}.{f.name} is keyword-only")
        has_factory = f.default_factory is not MISSING
        if has_factory:
            env[f"_factory_{f.name}"] = f.default_factory
        if f.default is not MISSING:
            env[f"_default_{f.name}"] = f.default
        if not f.init:
            if f.default is not MISSING:
                stores.append((f.name, f"_default_{f.name}"))
            elif has_factory:
                stores.append((f.name, f"_factory_{f.name}()"))
            continue
        value = f.name
        if f.default is not MISSING:
            args.append(f"{f.name}=_default_{f.name}")
        elif has_factory:
            args.append(f"{f.name}=_NO_VALUE")
            value = f"_factory_{f.name}() if {f.name} is _NO_VALUE else {f.name}"
        else:
            args.append(f.name)
        stores.append((f.name, value))
    if slotted:
        for name, _ in stores:
            env[f"_set_{name}"] = cls.__dict__[name].__set__
        body = [f"_set_{name}(self, {value})" for name, value in stores]
    else:
        # The instance's dictionary, made whole and then set (filling the one the instance
        # starts with makes it grow on the way). A sparse class (Result: 24 fields, half of
        # them left at their defaults, made on every roll) starts from a copy of a
        # dictionary of the defaults (one memcpy) and stores only the values that are not
        # their default: a third cheaper to make than a display of 24 entries, which grows
        # four times as it is filled, but a line of source per field to compile (1 ms).
        env["_set_dict"] = object.__dict__["__setattr__"]
        if not sparse:
            pairs = ", ".join(f"{name!r}: {value}" for name, value in stores)
            body = [f"_set_dict(self, '__dict__', {{{pairs}}})"]
        else:
            env["_template"] = {f.name: _default_of(f) for f in all_fields if _stored(f)}
            body = ["_dict_ = _template.copy()"]
            for name, value in stores:
                if value == f"_default_{name}":  # init=False: the template holds it
                    continue
                if value == name and f"_default_{name}" in env:
                    body.append(f"if {name} is not _default_{name}: _dict_[{name!r}] = {name}")
                else:
                    body.append(f"_dict_[{name!r}] = {value}")
            body.append("_set_dict(self, '__dict__', _dict_)")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(args)}):\n" + "".join(
        f"    {line}\n" for line in body or ["pass"]
    )
    exec(source, env)  # as dataclasses itself builds __init__
    init: Callable[..., None] = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _default_of(f: Field[Any]) -> Any:
    """A field's default (None for one made by a factory or required: always stored)."""
    return None if f.default is MISSING else f.default


def _stored(f: Field[Any]) -> bool:
    """Whether `__init__` gives the field a value (one with init=False and no default
    is left unset, as dataclasses leaves it)."""
    return f.init or f.default is not MISSING or f.default_factory is not MISSING


class _NoValue:
    """Marks an argument left out, for a field whose default is made by a factory."""

    def __repr__(self) -> str:
        return "<factory>"


_NO_VALUE = _NoValue()
