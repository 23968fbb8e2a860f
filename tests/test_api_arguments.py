"""Wrong arguments to the Python API (issue 31): every public function and class of
`d20cli`, given values of the wrong type or out of range, raises TypeError, ValueError
or a D20Error, never anything else (an AttributeError from deep inside, say); and a call
has the command line's work budget unless it raises it."""

from __future__ import annotations

import contextlib
import inspect
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import d20cli
from d20cli.rules.house import NO_HOUSE

ALLOWED = (TypeError, ValueError, d20cli.D20Error)

# Whole numbers away from the ones that are right and slow (`repeat=5_000_000` is a
# good argument: it rolls for a long time).
NUMBERS = st.one_of(
    st.integers(-3, 3), st.integers(10**12, 10**30), st.integers(-(10**30), -(10**12))
)
WRONG: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    NUMBERS,
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.binary(max_size=6),
    st.lists(st.integers(-5, 30), max_size=4),
    st.tuples(st.text(max_size=3), NUMBERS),
    st.dictionaries(st.text(max_size=4), st.one_of(st.text(max_size=4), NUMBERS), max_size=3),
    st.builds(object),
    st.builds(random.Random, st.integers()),
)
REQUESTS = st.sampled_from(
    ["check +5 vs 15", "2d6", "attack +5 vs 12 dmg 1d8", "3x 1d6", "group +2 +3 vs 12", "dex"]
)
CHARACTERS = st.builds(
    d20cli.Character,
    name=st.one_of(st.text(max_size=6), WRONG),
    system=st.one_of(st.sampled_from([None, "levelup", "mm"]), WRONG),
    entries=st.one_of(st.just({"dex": "+5"}), WRONG),
    groups=st.one_of(st.just({"saves": {"dex": "+2"}}), WRONG),
    macros=st.one_of(st.just({}), WRONG),
    house=st.one_of(st.just(NO_HOUSE), WRONG),
)
FUNCTIONS = [
    getattr(d20cli, name)
    for name in sorted(d20cli.__all__)
    if inspect.isfunction(getattr(d20cli, name))
]
CLASSES = [
    getattr(d20cli, name)
    for name in sorted(d20cli.__all__)
    if inspect.isclass(getattr(d20cli, name))
    and not issubclass(getattr(d20cli, name), BaseException)
]


def _value(name: str, data: st.DataObject) -> Any:
    """A value for the parameter `name`: often a wrong one, else a right one."""
    if name == "request":
        return data.draw(st.one_of(REQUESTS, WRONG))
    if name == "character":
        return data.draw(st.one_of(CHARACTERS, WRONG))
    return data.draw(WRONG)


def test_the_signatures_are_covered() -> None:
    assert {f.__name__ for f in FUNCTIONS} == {
        "chart",
        "import_character",
        "luck",
        "odds",
        "parse",
        "roll",
        "roll_all",
        "sweep",
        "systems",
        "version",
    }
    assert d20cli.Character in CLASSES


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_wrong_arguments_raise_the_documented_errors(function: Any, data: st.DataObject) -> None:
    params = inspect.signature(function).parameters
    kwargs = {}
    for name, param in params.items():
        required = param.default is inspect.Parameter.empty
        if required or data.draw(st.booleans(), label=f"give {name}"):
            kwargs[name] = _value(name, data)
    with contextlib.suppress(ALLOWED):
        function(**kwargs)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_wrong_arguments_to_a_class_raise_the_documented_errors(
    cls: Any, data: st.DataObject
) -> None:
    try:
        params = list(inspect.signature(cls).parameters)
    except ValueError:  # a class without a signature takes none of ours
        params = []
    args = [data.draw(WRONG) for _ in params[: data.draw(st.integers(0, len(params)))]]
    with contextlib.suppress(ALLOWED):
        cls(*args)


def test_a_character_of_the_wrong_shape_is_a_type_error() -> None:
    who = d20cli.Character("a", "levelup", {"dex": 5})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="entries map words to words"):
        d20cli.roll("check dex", character=who)
    with pytest.raises(TypeError, match="entries map words to words"):
        d20cli.odds("check dex vs 10", character=who)
    right = d20cli.Character("a", "levelup", {"dex": "+5"})
    assert d20cli.roll("check dex vs 10", character=right, dice=[7]).total == 12


def test_the_api_has_the_work_budget_of_the_command_line() -> None:
    # 60 runs of a million dice: refused before a die is rolled (no results are made)
    with pytest.raises(d20cli.BudgetError, match="20,000,000") as caught:
        d20cli.roll_all("1000x1000d6", repeat=60, seed=1)
    # the way out is the API's, not the command line's
    assert caught.value.message.endswith(
        "with repeat=60 rolls at least 60,000,000 dice in "
        "all, more than 20,000,000 (the work budget of one call); raise it with work=N"
    )
    with pytest.raises(d20cli.BudgetError, match=r"raise it with budget=N$"):
        d20cli.roll("1000000d6", budget=10)
    assert len(d20cli.roll_all("3x 2d6", repeat=2, seed=1, work=12)) == 6
    with pytest.raises(d20cli.BudgetError, match="more than 11"):
        d20cli.roll_all("3x 2d6", repeat=2, seed=1, work=11)
    with pytest.raises(ValueError, match="work must be"):
        d20cli.roll("2d6", work=0)
