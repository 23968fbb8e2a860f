"""d20cli.records: NamedTuple and Generic as the package's modules use them at run time,
without importing typing; the classes it makes behave as typing.NamedTuple's."""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing

import pytest

from d20cli import records

TYPE_CHECKING = False
if TYPE_CHECKING:
    T = typing.TypeVar("T")


class Light(records.NamedTuple):
    """A point on the map."""

    x: int
    y: int = 0
    label: str = ""

    @property
    def far(self) -> bool:
        return abs(self.x) + abs(self.y) > 10

    def moved(self, dx: int) -> Light:
        return self._replace(x=self.x + dx)


class Typed(typing.NamedTuple):
    """A point on the map."""

    x: int
    y: int = 0
    label: str = ""


def test_a_record_is_the_namedtuple_typing_would_make() -> None:
    light, typed = Light(3, label="camp"), Typed(3, label="camp")
    assert tuple(light) == tuple(typed) == (3, 0, "camp")
    assert Light._fields == Typed._fields
    assert Light._field_defaults == Typed._field_defaults == {"y": 0, "label": ""}
    assert Light.__annotations__ == {"x": "int", "y": "int", "label": "str"}  # unread
    assert Light.__doc__ == Typed.__doc__ == "A point on the map."
    assert Light.__module__ == Typed.__module__ and Light.__qualname__ == "Light"
    assert Light.__mro__[1:] == Typed.__mro__[1:] == (tuple, object)
    assert repr(light) == "Light(x=3, y=0, label='camp')"
    assert light._asdict() == typed._asdict()
    assert light == (3, 0, "camp") and hash(light) == hash(typed)


def test_its_tuple_class_behaves_as_collections_makes_it() -> None:
    """The class is made without collections.namedtuple's compiling of `__new__`: every
    part of it is the same as typing's (signature, defaults, keywords, errors, methods,
    docstrings, names, pickling and copying)."""
    import copy
    import inspect

    ours, theirs = inspect.signature(Light), inspect.signature(Typed)
    assert ours == theirs.replace(  # (typing annotates `__new__`; records reads no annotation)
        parameters=[p.replace(annotation=p.empty) for p in theirs.parameters.values()]
    )
    assert Light.__new__.__defaults__ == Typed.__new__.__defaults__ == (0, "")
    assert Light.__new__.__doc__ == "Create new instance of Light(x, y, label)"
    assert Light(y=2, x=1) == Typed(y=2, x=1) == (1, 2, "")
    for call in (lambda cls: cls(), lambda cls: cls(1, z=2), lambda cls: cls(1, 2, "a", 4)):
        with pytest.raises(TypeError) as ours:
            call(Light)
        with pytest.raises(TypeError) as theirs:
            call(Typed)
        assert str(ours.value).replace("Light", "Typed") == str(theirs.value)
    assert Light._make([1, 2, "a"]) == Typed._make([1, 2, "a"])
    with pytest.raises(TypeError, match="Expected 3 arguments, got 2"):
        Light._make([1, 2])
    assert Light(1)._replace(y=5) == Light(1, 5)
    with pytest.raises(ValueError, match="unexpected field names: \\['z'\\]"):
        Light(1)._replace(z=5)
    assert Light.__match_args__ == Typed.__match_args__ == ("x", "y", "label")
    assert Light(1).__getnewargs__() == (1, 0, "")
    assert Light.x.__doc__ == Typed.x.__doc__ == "Alias for field number 0"
    assert Light.__slots__ == () and not hasattr(Light(1), "__dict__")
    for method in ("__new__", "_replace", "__repr__", "_asdict", "__getnewargs__"):
        assert getattr(Light, method).__qualname__ == f"Light.{method}"
        assert getattr(Light, method).__doc__ == getattr(Typed, method).__doc__.replace(
            "Typed", "Light"
        )
    assert copy.copy(Light(4)) == Light(4) and type(copy.deepcopy(Light(4))) is Light
    match Light(7, 8):
        case Light(x, y):
            assert (x, y) == (7, 8)


def test_its_own_methods_and_properties_are_kept() -> None:
    assert Light(1).moved(20) == Light(21) and Light(1).moved(20).far
    assert not Light(1).far
    assert pickle.loads(pickle.dumps(Light(2, 5))) == Light(2, 5)


def test_it_refuses_what_typing_refuses() -> None:
    with pytest.raises(TypeError, match="non-default"):

        class _Order(records.NamedTuple):
            a: int = 1
            b: int  # type: ignore[misc]

    with pytest.raises(AttributeError, match="_replace"):

        class _Over(records.NamedTuple):
            a: int

            def _replace(self) -> None: ...  # type: ignore[misc]

    with pytest.raises(ValueError, match="underscore"):

        class _Hidden(records.NamedTuple):
            _a: int

    with pytest.raises(TypeError, match="alone"):

        class _Mixed(records.NamedTuple, dict):  # type: ignore[misc,type-arg]
            a: int


def test_generic_is_subscriptable_and_adds_nothing() -> None:
    class Box(records.Generic["T"]):
        pass

    assert Box.__mro__[1:] == (records._Generic, object)
    assert Box[int] is Box


def test_the_module_imports_no_typing() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import d20cli.records, sys; print('typing' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == "False"
