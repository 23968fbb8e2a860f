"""d20cli.frozen.frozen: the same class as `@dataclass(frozen=True)` makes, as anyone can
see it (signature, fields, equality, hash, repr, replace, copy, pickle, frozenness), only
cheaper to make and to build."""

from __future__ import annotations

import copy
import importlib
import inspect
import pickle
import pkgutil
from dataclasses import (
    FrozenInstanceError,
    asdict,
    dataclass,
    field,
    fields,
    is_dataclass,
    replace,
)
from fractions import Fraction
from types import FunctionType
from typing import Any

import pytest

import d20cli
from d20cli import frozen as own_fields
from d20cli.frozen import frozen
from d20cli.results import Die, Result


def _parameters(init: object) -> list[tuple[str, object, object]]:
    sig = inspect.signature(init)  # type: ignore[arg-type]
    return [(p.name, p.kind, repr(p.default)) for p in sig.parameters.values()]


class Mixin:
    __slots__ = ()

    def twice(self) -> int:
        return 2 * self.count  # type: ignore[attr-defined, no-any-return]


def _twins(slots: bool, sparse: bool = False) -> tuple[Any, Any]:
    """One class twice: made by dataclasses and by frozen."""

    def body(field: Any) -> dict[str, Any]:
        def __post_init__(self: Any) -> None:
            if self.count < 0:
                raise ValueError("negative count")
            object.__setattr__(self, "size", len(self.name))

        return {
            "__annotations__": {
                "name": "str",
                "count": "int",
                "tags": "tuple[str, ...]",
                "extra": "dict[str, int]",
                "size": "int",
                "note": "str",
            },
            "count": 1,
            "tags": (),
            "extra": field(default_factory=dict, hash=False),
            "size": field(init=False, repr=False, compare=False, default=0),
            "note": field(default="", compare=False),
            "__post_init__": __post_init__,
            "__doc__": "A sample.",
            "__module__": __name__,
        }

    plain = dataclass(frozen=True, slots=slots)(type("Sample", (Mixin,), body(field)))
    made = frozen(slots=slots, sparse=sparse)(type("Sample", (Mixin,), body(own_fields.field)))
    return plain, made


@pytest.mark.parametrize(("slots", "sparse"), [(True, False), (False, False), (False, True)])
def test_the_same_class_as_the_dataclass(slots: bool, sparse: bool) -> None:
    plain, made = _twins(slots, sparse)
    assert _parameters(made.__init__) == _parameters(plain.__init__)
    assert [(f.name, f.init, f.repr, f.compare) for f in fields(made)] == [
        (f.name, f.init, f.repr, f.compare) for f in fields(plain)
    ]
    assert made.__match_args__ == plain.__match_args__
    assert is_dataclass(made) and made.__dataclass_params__.frozen
    assert ("__slots__" in made.__dict__) == slots
    for cls in (plain, made):
        a = cls("a")
        b = cls("bb", 2, ("x",), {"k": 1}, "n")
        c = cls(name="c", extra={"z": 3}, count=5)
        assert (a.name, a.count, a.tags, a.extra, a.size, a.note) == ("a", 1, (), {}, 1, "")
        assert (b.name, b.count, b.tags, b.extra, b.size) == ("bb", 2, ("x",), {"k": 1}, 2)
        assert (c.name, c.count, c.extra) == ("c", 5, {"z": 3})
        assert cls("a").extra is not cls("a").extra  # a new dict each time
        assert a == cls("a") and a != b and a == cls("a", note="other")  # note: compare=False
        assert a != ("a", 1, (), {}) and a.twice() == 2
        assert replace(b, count=7).count == 7 and replace(b, count=7).tags == ("x",)
        assert asdict(b)["extra"] == {"k": 1}
        with pytest.raises(FrozenInstanceError):
            a.count = 3
        with pytest.raises(FrozenInstanceError):
            del a.count
        with pytest.raises(ValueError, match="negative count"):
            cls("n", -1)  # __post_init__ runs
        with pytest.raises(TypeError):
            cls()
        with pytest.raises(TypeError):
            cls("a", nonsense=1)
        assert copy.copy(b) == b and copy.deepcopy(b) == b
    with pytest.raises(FrozenInstanceError):  # (a slotted dataclass of 3.11 says TypeError)
        made("a").other = 1
    # the same hash and the same text as the dataclass's own
    assert hash(plain("a", 3, ("t",))) == hash(made("a", 3, ("t",)))
    assert repr(plain("a", 3)) == repr(made("a", 3))


def test_a_class_body_keeps_its_own_eq_hash_and_repr() -> None:
    @frozen
    class Own:
        a: int

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 7

        def __repr__(self) -> str:
            return "own"

    assert Own(1) == Own(2) and hash(Own(1)) == 7 and repr(Own(1)) == "own"

    @frozen
    class EqOnly:
        a: int

        def __eq__(self, other: object) -> bool:
            return isinstance(other, EqOnly)

    assert hash(EqOnly(1)) == hash(EqOnly(1))  # a dataclass hashes it all the same


def test_a_subclass_that_is_not_a_dataclass_may_add_attributes() -> None:
    @frozen
    class Base:
        a: int

    class Child(Base):
        pass

    child = Child(1)
    child.extra = 2  # type: ignore[attr-defined]
    with pytest.raises(FrozenInstanceError):
        child.a = 3  # type: ignore[misc]


def test_refused_where_dataclasses_own_rules_apply() -> None:
    @dataclass(frozen=True)
    class Base:
        a: int

    with pytest.raises(TypeError, match="dataclass base"):
        frozen(type("Derived", (Base,), {"__annotations__": {"b": "int"}}))
    with pytest.raises(TypeError, match=r"use d20cli\.frozen\.field"):  # (its own options only)
        frozen(type("Foreign", (), {"__annotations__": {"a": "int"}, "a": field(default=1)}))


def _package_classes() -> list[type]:
    found: list[type] = []
    for module in pkgutil.walk_packages(d20cli.__path__, "d20cli."):
        if module.name.endswith("__main__"):
            continue
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            mine = isinstance(value, type) and value.__module__ == module.name
            if mine and is_dataclass(value) and value.__dataclass_params__.frozen:  # type: ignore[union-attr]
                found.append(value)
    return found


def test_every_frozen_class_of_the_package_is_frozen_and_takes_its_fields() -> None:
    classes = _package_classes()
    assert len(classes) > 60
    for cls in classes:
        names = [p[0] for p in _parameters(cls.__init__)][1:]
        assert names == [f.name for f in fields(cls) if f.init], cls
        assert cls.__setattr__ is not object.__setattr__, cls


def test_results_stay_frozen() -> None:
    die = Die(20, 17, True, "d20")
    result = Result("check +5 vs 15", "levelup", "check", (die,), total=22)
    with pytest.raises(FrozenInstanceError):
        die.face = 1  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        result.total = 1  # type: ignore[misc]
    assert result.detail == {} and result.dice == (die,)
    assert hash(die) == hash(Die(20, 17, True, "d20")) and die == Die(20, 17, True, "d20")
    for value in (die, result):  # slotted and not
        assert pickle.loads(pickle.dumps(value)) == value and copy.deepcopy(value) == value


def test_a_class_without_a_docstring_is_described_by_its_fields() -> None:
    @frozen
    class Bare:
        a: int
        b: str = ""

    assert Bare.__doc__ == "Bare(a, b)"
    assert Die.__doc__ is not None and "Die(" not in Die.__doc__  # its own text is kept


def test_its_own_field_fields_and_replace_mean_what_the_dataclass_ones_do() -> None:
    """The package imports `field`, `fields` and `replace` from d20cli.frozen (so a start
    never imports dataclasses): the same answers as dataclasses' on the same class."""
    from d20cli import frozen as own

    plain, made = _twins(slots=False)
    assert [(f.name, f.init, f.repr, f.compare, f.hash) for f in own.fields(made)] == [
        (f.name, f.init, f.repr, f.compare, f.hash) for f in fields(plain)
    ]
    assert own.fields(made("a")) == own.fields(made)  # an instance answers as its class
    b = made("bb", 2, ("x",))
    assert own.replace(b, count=7) == replace(b, count=7) == made("bb", 7, ("x",))
    with pytest.raises(ValueError, match="init=False"):
        own.replace(b, size=3)  # as dataclasses.replace refuses it
    assert own.replace(plain("a"), count=4) == plain("a", 4)  # a dataclass: handed over
    with pytest.raises(TypeError):
        own.fields(object())
    with pytest.raises(ValueError, match="both default and default_factory"):
        own.field(default=1, default_factory=list)
    with pytest.raises(ValueError, match="mutable default"):
        frozen(type("Bad", (), {"__annotations__": {"a": "list[int]"}, "a": []}))
    with pytest.raises(TypeError, match="non-default argument"):
        frozen(type("Order", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1}))
    # a ClassVar is not a field, and a default stays a class attribute as dataclasses leaves it
    kept = frozen(
        type("Kept", (), {"__annotations__": {"k": "ClassVar[int]", "a": "int"}, "k": 3, "a": 1})
    )
    assert [f.name for f in own.fields(kept)] == ["a"] and kept.k == 3 and kept.a == 1


def test_classes_of_one_form_share_a_compiled_init_with_their_own_names() -> None:
    """`__init__` is compiled once per form (its fields by position) and each class gets
    its own argument names, defaults, keys and errors (d20cli.frozen._init_code)."""

    @frozen
    class Spell:
        name: str
        level: int = 1

    assert Spell("shield").__dict__ == {"name": "shield", "level": 1}
    before = own_fields._init_code.cache_info()

    @frozen
    class Weapon:
        kind: str
        reach: int = 5

    assert Weapon.__init__ is Weapon.__dict__["__init__"]  # made at the first ask
    after = own_fields._init_code.cache_info()
    assert after.hits == before.hits + 1 and after.misses == before.misses
    assert str(inspect.signature(Weapon.__init__)) == "(self, kind, reach=5)"
    assert Weapon("whip", reach=10).__dict__ == {"kind": "whip", "reach": 10}
    assert Spell("shield").__dict__ == {"name": "shield", "level": 1}
    with pytest.raises(TypeError, match="'kind'"):
        Weapon()  # type: ignore[call-arg]
    assert Weapon.__init__.__qualname__.endswith("Weapon.__init__")


def test_an_init_is_made_when_the_class_is_first_asked_for_it() -> None:
    """A frozen class's `__init__` is made at the first instance, or the first read of
    it, never before (d20cli.frozen._LazyInit: most classes a start makes are never
    built); whichever comes first, the class then holds the same plain function."""
    made = []
    for slots in (False, True):

        @frozen(slots=slots)
        class Token:
            name: str
            size: int = 1

        assert not isinstance(Token.__dict__["__init__"], FunctionType)
        made.append(Token)
    built, read = made
    assert built("orc", 2).size == 2 and built("orc") == built("orc", 1)
    assert isinstance(built.__dict__["__init__"], FunctionType)
    assert str(inspect.signature(read)) == "(name, size=1)"
    assert isinstance(read.__dict__["__init__"], FunctionType)
    assert read("elf").name == "elf"
    with pytest.raises(TypeError, match="'name'"):
        read()  # type: ignore[call-arg]


def test_a_sealable_class_is_set_until_it_seals_itself() -> None:
    """`@sealable` (the odds): its fields are set while it is filled in, refused once it
    is sealed, and `dataclasses` reads it as a dataclass (fields, asdict, replace)."""
    from d20cli.frozen import sealable
    from d20cli.probability.model import Odds

    odds = Odds("roll 1d2", "levelup", "roll")
    odds.outcomes = {"one": Fraction(1, 2), "two": Fraction(1, 2)}
    assert is_dataclass(odds) and asdict(odds)["verb"] == "roll"
    assert replace(odds, verb="check").outcomes == odds.outcomes
    odds.sealed()
    with pytest.raises(FrozenInstanceError, match="sealed"):
        odds.success = Fraction(1)
    with pytest.raises(FrozenInstanceError, match="sealed"):
        del odds.notes
    with pytest.raises(TypeError, match="defines no __setattr__"):
        sealable(type("Plain", (), {"__annotations__": {"a": "int"}}))


def test_a_classvar_annotation_is_read_as_dataclasses_reads_it() -> None:
    """`_is_classvar` is the pattern dataclasses matches string annotations with
    (`\\s*(?:typing\\.)?ClassVar\\b`), without compiling a pattern at start-up."""
    import re

    pattern = re.compile(r"\s*(?:typing\.)?ClassVar\b")
    texts = ("ClassVar[int]", "  typing.ClassVar[str]", "ClassVar", "ClassVar ", "ClassVars")
    texts += ("ClassVar_x", "ClassVar9", "int", "typing.ClassVarX", "tuple[ClassVar]", "ClassVar.x")
    for text in texts:
        assert own_fields._is_classvar(text) == bool(pattern.match(text)), text
