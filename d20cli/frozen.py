"""`@frozen`: a frozen dataclass made cheaply, for the value classes built on every roll.

`@frozen` (or `@frozen(slots=True)`) makes exactly what `@dataclass(frozen=True)` (or
`@dataclass(frozen=True, slots=True)`) makes, as `dataclasses` sees it: `fields`,
`replace`, `asdict`, `is_dataclass` and `__match_args__` work on it as on the dataclass,
and `__dataclass_params__` says init, repr, eq and frozen. Three costs differ:

- Importing. `dataclasses` imports `inspect` (and with it `ast`, `dis`, `tokenize`): 8 to
  10 ms of every start, a sixth of a new request's. This module reads the fields itself
  (`field`, `fields`, `replace` and `MISSING` are its own, with the dataclass's meaning),
  and the package imports it instead; `dataclasses` is imported only when something asks
  a frozen class for `__dataclass_fields__` (`dataclasses.fields`, `replace`, `asdict`,
  `is_dataclass`, a test), and the Field objects it wants are made then.
- Making the class. `dataclasses` compiles six methods per class (`__init__`, `__repr__`,
  `__eq__`, `__hash__`, `__setattr__`, `__delattr__`), each from generated source: about
  1 ms a class, and a cold start makes 46 of them (30 ms, a third of a new request's start).
  Here `__init__` is compiled once, and the other five are shared functions that read the
  field names the class holds (`operator.attrgetter` in C builds the tuple to compare or
  hash, as the generated code would).
- Building an instance. A frozen dataclass's `__init__` sets each field through
  `object.__setattr__`, several times slower than plain assignment; the `__init__` here
  stores the fields directly, through the slot descriptors of a slotted class or into the
  instance dictionary of any other. Assigning a field afterwards still raises
  `FrozenInstanceError` (the `dataclasses` class, imported then).

A class whose bases include a dataclass is refused here, at import (a frozen dataclass's
subclass rules are `dataclasses`' own): declare it with `@dataclass(frozen=True)`.
`@sealable` makes the same for a class that defines its own `__setattr__` and
`__delattr__`, which say when its fields may be set (`Odds`: filled in by the engine,
then sealed read-only).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from types import CodeType, FunctionType

from d20cli.bounded import memo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar, dataclass_transform, overload

    T = TypeVar("T")
    K = TypeVar("K")
    V = TypeVar("V")
else:  # (at run time it leaves the function as it is)

    def dataclass_transform(**options: Any) -> Any:
        return lambda function: function


class _Missing:
    """No default (as dataclasses.MISSING)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a frozen class, with the meaning of `dataclasses.Field`."""

    __slots__ = (
        "compare",
        "default",
        "default_factory",
        "hash",
        "init",
        "name",
        "repr",
        "type",
    )
    name: str
    type: Any  # the annotation, as written (a string under `from __future__ import annotations`)
    default: Any
    default_factory: Any
    init: bool
    repr: bool
    hash: bool | None
    compare: bool

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, init={self.init})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
) -> Any:
    """A field's options, as `dataclasses.field` takes them (those the package uses: no
    `metadata`, no `kw_only`)."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    made = Field()
    made.name, made.type = "", None
    made.default, made.default_factory = default, default_factory
    made.init, made.repr, made.hash, made.compare = init, repr, hash, compare
    return made


def fields(class_or_instance: Any) -> tuple[Field, ...]:
    """The fields of a frozen class or instance, in order (as `dataclasses.fields`)."""
    try:
        found: tuple[Field, ...] = class_or_instance.__frozen_fields__
    except AttributeError:
        raise TypeError("must be called with a frozen class or instance") from None
    return found


def is_frozen(value: Any) -> bool:
    """Whether `value` is an instance of a frozen class (not the class itself)."""
    return hasattr(type(value), "__frozen_fields__")


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of a frozen instance with some fields changed, made through its `__init__`
    (as `dataclasses.replace`; any other dataclass is handed to that)."""
    specs = getattr(type(obj), "__frozen_fields__", None)
    if specs is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for f in specs:
        if not f.init:
            if f.name in changes:
                raise ValueError(
                    f"field {f.name} is declared with init=False, "
                    "it cannot be specified with replace()"
                )
        elif f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


if TYPE_CHECKING:

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


@dataclass_transform(field_specifiers=(field, Field))
def sealable(cls: type[T], /) -> type[T]:
    """`@frozen` for a class filled in after it is made, then sealed: it defines its own
    `__setattr__` and `__delattr__`, which say when its fields may be set (type checkers
    read its fields as writable)."""
    if "__setattr__" not in cls.__dict__ or "__delattr__" not in cls.__dict__:
        raise TypeError(f"sealable: {cls.__name__} defines no __setattr__ and __delattr__")
    return _make(cls, slots=False)


def _is_dataclass_class(cls: type) -> bool:
    """Whether `cls` itself is a dataclass (or a frozen class), read without making the
    lazy view of a frozen class."""
    return "__dataclass_fields__" in cls.__dict__ or "__frozen_fields__" in cls.__dict__


def _read_fields(cls: type) -> tuple[Field, ...]:
    """The class's fields from its annotations and class attributes, as dataclasses
    reads them (ClassVar annotations are not fields; a field's options are this module's
    `field`: a `dataclasses.field` in the body would be read as a default, and refused)."""
    # (as dataclasses reads them: inspect.get_annotations would import inspect, 8 ms)
    annotations: dict[str, Any] = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    found: list[Field] = []
    for name, annotation in annotations.items():
        if isinstance(annotation, str) and _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        if type(value).__name__ == "Field" and not isinstance(value, Field):
            raise TypeError(f"frozen: {cls.__name__}.{name}: use d20cli.frozen.field")
        spec = value if isinstance(value, Field) else None
        f: Field = field(default=value) if spec is None else spec
        f.name, f.type = name, annotation
        if f.default is not MISSING and type(f.default).__hash__ is None:
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        if spec is not None:  # as dataclasses leaves it: the default as a class attribute
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        found.append(f)
    return tuple(found)


def _is_classvar(annotation: str) -> bool:
    """Whether a string annotation is a ClassVar, as dataclasses reads it (`ClassVar` or
    `typing.ClassVar`, then a character that is not part of a name)."""
    text = annotation.lstrip().removeprefix("typing.")
    return text.startswith("ClassVar") and not (text[8:9].isalnum() or text[8:9] == "_")


def _slots_of(cls: type) -> Iterator[str]:
    slots = cls.__dict__.get("__slots__")
    if slots is None:
        return
    if isinstance(slots, str):
        yield slots
    else:
        yield from slots


def _slotted(cls: type, names: Iterable[str]) -> type:
    """The class again with __slots__ for its fields (as dataclasses' slots=True)."""
    names = tuple(names)
    inherited = {s for base in cls.__mro__[1:-1] for s in _slots_of(base)}
    body = dict(cls.__dict__)
    body["__slots__"] = tuple(n for n in names if n not in inherited)
    for name in names:
        body.pop(name, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    qualname = getattr(cls, "__qualname__", None)
    made = type(cls)(cls.__name__, cls.__bases__, body)
    if qualname is not None:
        made.__qualname__ = qualname
    return made


class _DataclassView:
    """`__dataclass_fields__` and `__dataclass_params__` of a frozen class, made (with
    `dataclasses`' own Field objects) the first time anything asks, then kept on the
    class in its place."""

    def __init__(self, owner: type, what: str) -> None:
        self.owner, self.what = owner, what

    def __get__(self, instance: Any, cls: type | None = None) -> Any:
        import dataclasses

        owner = self.owner
        made: dict[str, Any] = {}
        for f in owner.__frozen_fields__:  # type: ignore[attr-defined]
            kw = {} if f.default is MISSING else {"default": f.default}
            if f.default_factory is not MISSING:
                kw["default_factory"] = f.default_factory
            df = dataclasses.field(
                init=f.init,
                repr=f.repr,
                hash=f.hash,
                compare=f.compare,
                **kw,
            )
            df.name, df.type = f.name, f.type
            df._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
            made[f.name] = df
        # the parameters of a frozen dataclass, as this Python's dataclasses writes them
        sample: Any = dataclasses.dataclass(frozen=True)(type("_Frozen", (), {}))
        params = sample.__dataclass_params__
        type.__setattr__(owner, "__dataclass_fields__", made)
        type.__setattr__(owner, "__dataclass_params__", params)
        return made if self.what == "__dataclass_fields__" else params


def _make(cls: type[T], slots: bool, sparse: bool = False) -> type[T]:
    if any(_is_dataclass_class(base) for base in cls.__mro__[1:]):
        raise TypeError(f"frozen: {cls.__name__} has a dataclass base; use dataclass(frozen=True)")
    own = dict(cls.__dict__)  # what the class body defined (before a slotted copy)
    all_fields = _read_fields(cls)
    seen_default = False
    for f in all_fields:
        if not f.init:
            continue
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    made: Any = _slotted(cls, (f.name for f in all_fields)) if slots else cls
    made.__frozen_fields__ = all_fields
    made.__dataclass_fields__ = _DataclassView(made, "__dataclass_fields__")
    made.__dataclass_params__ = _DataclassView(made, "__dataclass_params__")
    if "__match_args__" not in own:
        setattr(made, "__match_args__", tuple(f.name for f in all_fields if f.init))  # noqa: B010
    names = frozenset(f.name for f in all_fields)
    setattr(made, "__init__", _LazyInit(made, all_fields, slots, sparse))  # noqa: B010 (mypy: a method)
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
    if "__setattr__" not in own:  # (a class that seals itself later keeps its own)
        made.__setattr__ = _setattr(made, names)
    if "__delattr__" not in own:
        made.__delattr__ = _delattr(made, names)
    if slots:  # as dataclasses does for a frozen slotted class: copy and pickle work
        made.__getstate__ = _getstate
        made.__setstate__ = _setstate
    return made  # type: ignore[no-any-return]


class _LazyInit:
    """A frozen class's `__init__` until anything first asks the class for it (to make an
    instance, or to read it: `inspect.signature`, `cls.__init__`): then it is made
    (`_init`) and put on the class in its place. A start makes about 60 frozen classes and
    builds instances of about 20 (a check or a roll): the others' `__init__` is never
    made, which saves about 4 ms of a start (docs/performance.md)."""

    __slots__ = ("all_fields", "owner", "slotted", "sparse")

    def __init__(self, owner: type, all_fields: tuple[Field, ...], slotted: bool, sparse: bool):
        self.owner, self.all_fields, self.slotted, self.sparse = owner, all_fields, slotted, sparse

    def __get__(self, instance: Any, cls: type | None = None) -> Any:
        owner = self.owner
        init: Any = owner.__dict__.get("__init__")
        if init is self:  # (another thread may have made it meanwhile: the same function)
            init = _init(owner, self.all_fields, self.slotted, self.sparse)
            type.__setattr__(owner, "__init__", init)
        return init if instance is None else init.__get__(instance, cls)


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
            raise frozen_error(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    return __setattr__


def _delattr(owner: type, names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is owner or name in names:
            raise frozen_error(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    return __delattr__


def frozen_error(message: str) -> AttributeError:
    """dataclasses.FrozenInstanceError (imported here: assigning a field is a bug)."""
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(fields(self), state, strict=True):
        object.__setattr__(self, f.name, value)


def _init(
    cls: type, all_fields: tuple[Field, ...], slotted: bool, sparse: bool = False
) -> Callable[..., None]:
    """An `__init__` with the dataclass's signature that stores the fields directly (a
    field with `init=False` gets its default, as the dataclass's own would give it).

    Its source is written with the fields by position (argument `f0`, default `_d0`,
    factory `_f0`, slot setter `_s0`, dictionary key `'#0'`), so classes of one form
    share it: it is compiled once per form (`_init_code`), and each class's function is
    that code with its own field names put back (argument names and keys), its own
    defaults and its own globals."""
    env: dict[str, Any] = {"_NO_VALUE": _NO_VALUE}
    args: list[str] = []  # the arguments' names, as written in the source
    names: list[str] = []  # ... and as the class names them
    defaults: list[Any] = []
    stores: list[tuple[int, str]] = []  # (field index, value)
    for i, f in enumerate(all_fields):
        has_factory = f.default_factory is not MISSING
        if has_factory:
            env[f"_f{i}"] = f.default_factory
        if f.default is not MISSING:
            env[f"_d{i}"] = f.default
        if not f.init:
            if f.default is not MISSING:
                stores.append((i, f"_d{i}"))
            elif has_factory:
                stores.append((i, f"_f{i}()"))
            continue
        args.append(f"f{i}")
        names.append(f.name)
        value = f"f{i}"
        if f.default is not MISSING:
            defaults.append(f.default)
        elif has_factory:
            defaults.append(_NO_VALUE)
            value = f"_f{i}() if f{i} is _NO_VALUE else f{i}"
        stores.append((i, value))
    if slotted:
        for i, _ in stores:
            env[f"_s{i}"] = cls.__dict__[all_fields[i].name].__set__
        body = [f"_s{i}(self, {value})" for i, value in stores]
    else:
        # The instance's dictionary, made whole and then set (filling the one the instance
        # starts with makes it grow on the way). A sparse class (Result: 24 fields, half of
        # them left at their defaults, made on every roll) starts from a copy of a
        # dictionary of the defaults (one memcpy) and stores only the values that are not
        # their default: a third cheaper to make than a display of 24 entries, which grows
        # four times as it is filled.
        env["_set_dict"] = object.__dict__["__setattr__"]
        if not sparse:
            pairs = ", ".join(f"'#{i}': {value}" for i, value in stores)
            body = [f"_set_dict(self, '__dict__', {{{pairs}}})"]
        else:
            env["_template"] = {f.name: _default_of(f) for f in all_fields if _stored(f)}
            body = ["_dict_ = _template.copy()"]
            for i, value in stores:
                if value == f"_d{i}":  # init=False: the template holds it
                    continue
                if value == f"f{i}" and f"_d{i}" in env:
                    body.append(f"if f{i} is not _d{i}: _dict_['#{i}'] = f{i}")
                else:
                    body.append(f"_dict_['#{i}'] = {value}")
            body.append("_set_dict(self, '__dict__', _dict_)")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(args)}):\n" + "".join(
        f"    {line}\n" for line in body or ["pass"]
    )
    code = _init_code(source)
    named = dict(zip(args, names, strict=True))
    keys = {f"#{i}": f.name for i, f in enumerate(all_fields)}

    def named_key(const: Any) -> Any:  # a key, or the tuple of a dictionary display's keys
        if isinstance(const, tuple):
            return tuple(named_key(c) for c in const)
        return keys.get(const, const) if isinstance(const, str) else const

    code = code.replace(
        co_varnames=tuple(named.get(name, name) for name in code.co_varnames),
        co_consts=tuple(named_key(c) for c in code.co_consts),
    )
    init: Callable[..., None] = FunctionType(code, env, "__init__", tuple(defaults) or None)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


@memo(
    256,
    holds="an __init__'s source, written with its fields by position -> its compiled code",
    buys="start-up: a class whose form another class has is made without compiling",
)
def _init_code(source: str) -> CodeType:
    """The code of the one function `source` defines (as dataclasses builds `__init__`:
    compiled from source)."""
    made: dict[str, Any] = {}
    exec(source, made)  # (not `compile`: its first call costs a start 2 ms, see above)
    code: CodeType = made["__init__"].__code__
    return code


def _default_of(f: Field) -> Any:
    """A field's default (None for one made by a factory or required: always stored)."""
    return None if f.default is MISSING else f.default


def _stored(f: Field) -> bool:
    """Whether `__init__` gives the field a value (one with init=False and no default
    is left unset, as dataclasses leaves it)."""
    return f.init or f.default is not MISSING or f.default_factory is not MISSING


class _NoValue:
    """Marks an argument left out, for a field whose default is made by a factory."""

    def __repr__(self) -> str:
        return "<factory>"


_NO_VALUE = _NoValue()


class FrozenDict(dict["K", "V"]):
    """A dict that cannot be changed once made (`d[k] = v`, `del`, `update`, `pop`, ...
    raise TypeError), for a value shared by every caller that asks for it: the odds the
    engine remembers (d20cli.probability.model.Odds.sealed). It is a dict to every reader
    (`isinstance`, `==`, `json.dumps`, `dict(d)` for a copy one may change); copying and
    pickling make another FrozenDict of the same items."""

    __slots__ = ()

    def _refused(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("these values are shared and read-only: change a copy, dict(...)")

    __setitem__ = __delitem__ = __ior__ = _refused
    clear = pop = popitem = setdefault = update = _refused

    def __reduce__(self) -> tuple[type[FrozenDict[K, V]], tuple[dict[K, V]]]:
        return (type(self), (dict(self),))

    def __copy__(self) -> FrozenDict[K, V]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict[K, V]:
        import copy

        return type(self)(copy.deepcopy(dict(self), memo))
