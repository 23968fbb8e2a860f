"""d20cli.bounded: the one cache policy; its bound holds however the memo is filled."""

from __future__ import annotations

import pytest

from d20cli.bounded import SIZE, Bounded, memo


def test_a_full_memo_is_emptied_before_a_new_key() -> None:
    kept: Bounded[int, int] = Bounded(3)
    for n in range(3):
        kept[n] = n
    kept[1] = 10  # a key it holds: replaced, nothing goes
    assert kept == {0: 0, 1: 10, 2: 2}
    assert kept.keep(3, 30) == 30
    assert kept == {3: 30}


def test_the_bound_holds_through_every_way_of_storing() -> None:
    kept: Bounded[int, int] = Bounded(5)
    for n in range(100):
        kept[n] = n
        assert len(kept) <= 5
        kept.keep(-n, n)
        assert len(kept) <= 5
        assert kept.setdefault(1000 + n, n) == n
        assert len(kept) <= 5
        kept.update({2000 + n: n, 3000 + n: n})
        assert len(kept) <= 5
    assert kept.setdefault(3099, -1) == 99  # a key it holds keeps its value


def test_the_default_bound_and_a_size_below_one_refused() -> None:
    assert Bounded().size == SIZE
    with pytest.raises(ValueError):
        Bounded(0)
    with pytest.raises(ValueError):
        memo(0)


def test_a_memo_keeps_at_most_its_size() -> None:
    calls: list[int] = []

    @memo(4)
    def square(n: int) -> int:
        calls.append(n)
        return n * n

    assert [square(n) for n in (1, 2, 1, 2)] == [1, 4, 1, 4]
    assert calls == [1, 2]
    for n in range(50):
        square(n)
    assert square.cache_info().currsize == 4  # type: ignore[attr-defined]


def test_a_weight_bound_holds_too() -> None:
    kept: Bounded[str, list[int]] = Bounded(100, most=10, weigh=len)
    for n in range(50):
        kept[f"k{n}"] = [0] * (n % 4)
        assert kept.weight == sum(map(len, kept.values())) <= 10
    kept["k1"] = [0] * 3  # replacing an entry weighs it again
    assert kept.weight == sum(map(len, kept.values()))
    kept["huge"] = [0] * 11  # heavier than the bound alone: not kept
    assert "huge" not in kept and kept.weight <= 10
    del kept["k1"]
    assert kept.pop("k2", None) is not None or "k2" not in kept
    assert kept.weight == sum(map(len, kept.values()))
    kept.clear()
    assert kept.weight == 0
    with pytest.raises(ValueError):
        Bounded(10, most=5)  # a weight bound with nothing to weigh by
