"""Exact distributions of exploding dice (one chain, keep/drop over explosions) and of
unique dice (`u`), for `d20cli.dice.distribution`'s calculator (the same decisions: see
its module docstring)."""

from __future__ import annotations

from collections.abc import Callable

from d20cli.dice.tree import Compare, Dice
from d20cli.dice.weights import Budget, Weights, add_into, convolve, keep, keep_cost, mapped
from d20cli.errors import DiceError


def chain(
    depth: int,
    link: Weights,
    point: Compare,
    value: Callable[[int], int],
    extra_value: Callable[[int], int],
) -> Weights:
    """One die's value summed over its explosion chain, capped at `depth` extra dice.

    R_cap = one roll (any face, no further explosion); R_j = stop + explode * R_{j+1},
    where `stop` and `explode` are the weights of the faces that do not / do match.
    The first die counts `value(face)`, the extra ones `extra_value(face)` (one less
    when penetrating).
    """
    total = sum(link.values())
    acc = mapped(link, extra_value if depth else value)
    for level in range(depth):
        first = level == depth - 1
        stop: Weights = {}
        boom: Weights = {}
        for f, w in link.items():
            add_into(boom if point.matches(f) else stop, (value if first else extra_value)(f), w)
        nxt = convolve(boom, acc)
        for v, w in stop.items():
            add_into(nxt, v, w * total ** (level + 1))
        acc = nxt
    return acc


# Each multiply-add of the splits' DP (its weights, powers of the die's faces, grow to
# n * (d + 1) digits of them): about 4 µs measured for `20d6!kh10`, so 8 steps.
_SPLIT_STEP = 8
_MOST_SPLITS = 1_000_000  # past this many splits the DP alone is past every budget


def _splits(i: int, d: int, penetrate: bool) -> int:
    """How many splits `exploded_keep`'s DP holds after i dice: for each number of chains
    cut at the cap, the totals of extra dice they can make (see split_sizes)."""
    if not penetrate:
        return d * i * (i + 1) // 2 + i + 1
    return sum((d - 1) * x * (x + 1) // 2 + x + 1 for x in range(i + 1)) if d else i + 1


def split_sizes(n: int, d: int, penetrate: bool) -> list[tuple[int, ...]]:
    """The dice sizes of each split `exploded_keep` makes for n dice exploding at most d
    times, without their weights: (exploding, stopping) dice, or for penetrating dice
    (first exploding, first stopping, extra exploding, extra stopping)."""
    if not penetrate:  # c chains cut at the cap: K from c(d+1) up to c(d+1) + (n-c)d
        return [
            (k, n - c)
            for c in range(n + 1)
            for k in range(c * (d + 1), c * (d + 1) + (n - c) * d + 1)
        ]
    return [  # x first dice explode, c of them cut at the cap, each other stops once
        (x, n - x, k, x - c)
        for x in range(n + 1)
        for c in range(x + 1)
        for k in range(c * d, c * d + (x - c) * (d - 1) + 1)
        if d or c == x
    ]


def exploded_keep_cost(e: Dice, n: int, d: int, faces: list[int], bits: int) -> int:
    """Steps of `exploded_keep` (the splits' DP, then a keep DP per split), from the sizes
    alone, so that a request too costly is refused before any of it is done.

    When the exploding faces' values are all above (or all below) the others', as for
    `!` on the highest face, each split's keep DP places one kind of dice before the
    other: a keep over the first kind (each of its states carrying the other kind's
    dice), then (if the keep is not full) over the second.
    Otherwise a keep over both kinds at once is charged, which costs more."""
    assert e.keep is not None and e.explode is not None
    penetrate = e.explode.penetrate
    ops = sum(_splits(i, d, penetrate) for i in range(n)) * (d + 2)
    dp = _SPLIT_STEP * ops
    if _splits(n, d, penetrate) > _MOST_SPLITS:
        return dp + _splits(n, d, penetrate)
    keep = e.keep
    point = e.explode_point()
    boom = {e.value(f, False) for f in faces if point.matches(f)}
    stop = {e.value(f, False) for f in faces if not point.matches(f)}

    def cost(values: set[int], count: int, kept: int) -> int:
        span = max(values) - min(values) if values else 0
        span = span if e.pool is None else min(span, 2)
        return keep_cost(len(values), [count], kept, span, bits) if kept > 0 else 0

    apart = boom and stop and (min(boom) > max(stop) or max(boom) < min(stop))
    if apart and not penetrate:
        boom_first = (min(boom) > max(stop)) == (keep.kind in ("kh", "dl"))
        total = dp
        for sizes in split_sizes(n, d, penetrate):
            k = keep.kept_count(sum(sizes))
            (n1, g1), (n2, g2) = ((sizes[0], boom), (sizes[1], stop))[:: 1 if boom_first else -1]
            # each state of the first keep weighs the other kind's n2 dice (their powers)
            carry = 1 + n2 * bits // 100
            total += cost(g1, n1, min(k, n1)) * carry + cost(g2, n2, k - n1) + 1
        return total
    every = boom | stop
    if penetrate:
        every |= {v - 1 for v in every}  # an extra die counts one less
        rest = stop | {v - 1 for v in boom | stop}  # every value but a first die's boom
        first = bool(rest and boom) and (min(boom) > max(rest)) == (keep.kind in ("kh", "dl"))
        if first and (min(boom) > max(rest) or max(boom) < min(rest)):
            # A keep that reaches the first dice's exploding faces before any other value
            # (`6d8!pkh3`): they are placed first, as above; then the three other kinds
            # (first dice that stopped, extra dice that exploded, extra dice that
            # stopped) over the rest of the values, each state weighing the first ones.
            span = max(rest) - min(rest) if e.pool is None else min(max(rest) - min(rest), 2)
            total = dp
            for sizes in split_sizes(n, d, penetrate):
                k = keep.kept_count(sum(sizes))
                n1, others = sizes[0], list(sizes[1:])
                carry = 1 + sum(others) * bits // 100
                after = k - n1
                then = keep_cost(len(rest), others, after, span, bits) if after > 0 else 0
                total += cost(boom, n1, min(k, n1)) * carry + then + 1
            return total
    span = max(every) - min(every) if e.pool is None else min(max(every) - min(every), 2)

    def kinds(sizes: tuple[int, ...]) -> list[int]:
        """Exploding and stopping dice (a penetrating first die and extra die of a kind
        are placed at neighbouring values, so the DP's states grow as for two kinds)."""
        return list(sizes) if not penetrate else [sizes[0] + sizes[2], sizes[1] + sizes[3]]

    return dp + sum(
        keep_cost(len(every), kinds(sizes), keep.kept_count(sum(sizes)), span, bits)
        for sizes in split_sizes(n, d, penetrate)
    )


def exploded_keep(
    budget: Budget,
    depth: int,
    e: Dice,
    n: int,
    link: Weights,
    point: Compare,
    score: Callable[[int], int],
    highest: bool,
) -> Weights:
    """Keep/drop over non-compound explosions: every extra die is a die of its own. The
    caller has charged its cost (exploded_keep_cost); `budget`'s deadline is watched.

    Each die's chain is k dice on exploding faces and (unless cut at the cap) one die on
    a face that stopped it. Given the totals K (exploding) and M (stopping) over all n
    dice, those dice are independent draws from the two face sets, so the keep DP runs
    on that two-kind multiset, weighted by how many ways the chains give (K, M).
    """
    assert e.keep is not None and e.explode is not None
    total = sum(link.values())
    d = depth
    # The kinds of dice: (first dice, extra dice) if penetrating, else one kind; each
    # split into the faces that explode and those that stop a chain.
    kinds = [False, True] if e.explode.penetrate else [False]
    groups: list[Weights] = []
    for extra in kinds:
        boom: Weights = {}
        stop: Weights = {}
        for f, w in link.items():
            add_into(boom if point.matches(f) else stop, e.value(f, extra), w)
        groups += [boom, stop]
    # per die: k exploding dice then a stopping one (weight total**(d-k) pads the
    # denominator to total**(d+1)), or d+1 exploding dice, cut at the cap
    per_die: dict[tuple[int, ...], int]
    if e.explode.penetrate:  # the first die, then k extra exploding and one stopping
        per_die = {(0, 1, 0, 0): total**d, (1, 0, d, 0): 1}
        per_die.update({(1, 0, k, 1): total ** (d - 1 - k) for k in range(d)})
    else:
        per_die = {(k, 1): total ** (d - k) for k in range(d + 1)}
        per_die[(d + 1, 0)] = 1
    splits: dict[tuple[int, ...], int] = {(0,) * len(groups): 1}
    for _ in range(n):
        nxt: dict[tuple[int, ...], int] = {}
        for a, w1 in splits.items():
            for b, w2 in per_die.items():
                key = tuple(x + y for x, y in zip(a, b, strict=True))
                nxt[key] = nxt.get(key, 0) + w1 * w2
        splits = nxt
        budget.on_time()
    out: Weights = {}
    for sizes, ways in splits.items():
        kept = e.keep.kept_count(sum(sizes))
        parts = list(zip(sizes, groups, strict=True))
        for v, w in keep(parts, kept, highest, score, budget).items():
            add_into(out, v, w * ways)
    return out


def unique(e: Dice, n: int, link: Weights, score: Callable[[int], int], highest: bool) -> Weights:
    """`u`: n different faces, every set of them equally likely (a duplicate is rolled
    again, so the faces left stay uniform). A DP over the faces from the best kept
    value to the worst, with states (faces chosen, score of the kept ones)."""
    faces = sorted(link, key=e.clamp, reverse=highest)
    if n > len(faces):
        raise DiceError(f"'{e}' cannot show {n} different faces: its die has only {len(faces)}")
    k = n if e.keep is None else e.keep.kept_count(n)
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for i, f in enumerate(faces):
        v = score(e.clamp(f))
        left = len(faces) - i - 1
        nxt: dict[tuple[int, int], int] = {}
        for (c, t), w in states.items():
            if c + left >= n:  # skipping f still leaves enough faces
                nxt[(c, t)] = nxt.get((c, t), 0) + w
            if c < n:
                key = (c + 1, t + v if c < k else t)
                nxt[key] = nxt.get(key, 0) + w
        states = nxt
    return {t: w for (c, t), w in states.items() if c == n}
