"""d20cli.frozen.quick_init: the same `__init__` as the dataclass's own, only faster, and the
class stays a frozen dataclass in every other way."""

from __future__ import annotations

import inspect
from dataclasses import FrozenInstanceError, dataclass, field, fields, replace

import pytest

from d20cli.dice.evaluate import EvalArithmetic, EvalDice, EvalNeg, EvalNumber
from d20cli.frozen import quick_init
from d20cli.results import Damage, DiceSummary, Die, Result, Score
from d20cli.rules.common import CheckRoll, D20Roll, Evaluated, Grade

QUICK = [Die, DiceSummary, Damage, Score, Result, CheckRoll, D20Roll, Evaluated, Grade]
QUICK += [EvalNumber, EvalDice, EvalNeg, EvalArithmetic]


def _parameters(init: object) -> list[tuple[str, object, object]]:
    sig = inspect.signature(init)  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


def _twins(slots: bool) -> tuple[type, type]:
    """One class twice: with the dataclass's own __init__ and with quick_init's."""

    def make() -> type:
        @dataclass(frozen=True, slots=slots)
        class Sample:
            name: str
            count: int = 1
            tags: tuple[str, ...] = ()
            extra: dict[str, int] = field(default_factory=dict)

            def __post_init__(self) -> None:
                if self.count < 0:
                    raise ValueError("negative count")

        return Sample

    return make(), quick_init(make())


@pytest.mark.parametrize("slots", [True, False])
def test_the_same_init_as_the_dataclass(slots: bool) -> None:
    plain, quick = _twins(slots)
    assert [p[:2] for p in _parameters(quick.__init__)] == [
        p[:2] for p in _parameters(plain.__init__)
    ]
    for cls in (plain, quick):
        a = cls("a")
        b = cls("b", 2, ("x",), {"k": 1})
        c = cls(name="c", extra={"z": 3}, count=5)
        assert (a.name, a.count, a.tags, a.extra) == ("a", 1, (), {})
        assert (b.name, b.count, b.tags, b.extra) == ("b", 2, ("x",), {"k": 1})
        assert (c.name, c.count, c.extra) == ("c", 5, {"z": 3})
        assert cls("a").extra is not cls("a").extra  # a new dict each time
        assert a == cls("a") and a != b
        assert replace(b, count=7).count == 7 and replace(b, count=7).tags == ("x",)
        with pytest.raises(FrozenInstanceError):
            a.count = 3
        with pytest.raises(ValueError, match="negative count"):
            cls("n", -1)  # __post_init__ runs
        with pytest.raises(TypeError):
            cls()
        with pytest.raises(TypeError):
            cls("a", nonsense=1)
    assert repr(plain("a")).split("(", 1)[1] == repr(quick("a")).split("(", 1)[1]


@pytest.mark.parametrize("cls", QUICK, ids=lambda c: c.__name__)
def test_every_quick_class_takes_its_fields(cls: type) -> None:
    names = [p[0] for p in _parameters(cls.__init__)][1:]
    assert names == [f.name for f in fields(cls)]
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_results_stay_frozen() -> None:
    die = Die(20, 17, True, "d20")
    result = Result("check +5 vs 15", "levelup", "check", (die,), total=22)
    with pytest.raises(FrozenInstanceError):
        die.face = 1  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        result.total = 1  # type: ignore[misc]
    assert result.detail == {} and result.dice == (die,)
    assert hash(die) == hash(Die(20, 17, True, "d20")) and die == Die(20, 17, True, "d20")


def test_only_plain_frozen_dataclasses() -> None:
    @dataclass
    class Loose:
        a: int

    @dataclass(frozen=True)
    class KeywordOnly:
        a: int = field(kw_only=True)

    @dataclass(frozen=True)
    class Derived:
        a: int
        b: int = field(init=False, default=0)

    for cls in (Loose, KeywordOnly, Derived):
        with pytest.raises(TypeError):
            quick_init(cls)
