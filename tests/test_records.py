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
