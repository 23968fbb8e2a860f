"""Request texts of every verb and system, and random fillings of their numbers, for the
shape cache's tests (tests/test_shapes.py)."""

from __future__ import annotations

import random

from d20cli.language.shapes import is_word, join, split

SHAPES = [
    "check +5 vs 15",
    "check -1 vs 10",
    "check +3 vs 15 ADV",
    "check +5 vs 15 adv expertise=d6",
    "check stealth +7 vs 15",
    "check +5 adv lucky crit 19 min 2 vs 15",
    "check +4 vs tough bonus",
    "check +5+1d4 vs DC 15 reliable",
    "save +1 vs 12",
    "save -1 vs 12 dis",
    "attack +7 vs 16 dmg 1d8+4",
    "attack +7 vs AC 15 dmg 2d6+3 crit-dmg=max",
    "attack +8 vs defense 6",
    "resist +2 vs toughness 8",
    "resist +6 vs rank 8",
    "routine +10 vs 20",
    "defend +4 vs routine +3",
    "attempt 14",
    "attempt 14 -1",
    "attempt 14 reliable",
    "attempt trained +1 vs 14",
    "attempt trained +1 -2 vs 14",
    "attempt adept +2 fortune vs 12",
    "group +3, +5 adv, -1 vs 12",
    "group stealth +3, +5 vs 12 more-than-half",
    "contest +3 vs +1",
    "opposed +8 vs +6 vs +4",
    "contest +1 vs bob +2 adv vs -3 dis",
    "compare 8 vs 6",
    "compare -2 vs 6",
    "percent 45",
    "percent 45%",
    "scores 5",
    "scores players=5",
    "roll 1d20+5",
    "roll 1d20+1",
    "roll 1d20+5 adv",
    "roll 1d20-2 dis vs 15",
    "roll 4d6kh3",
    "roll 6x 4d6kh3 # stats",
    "roll 4d6dl1",
    "roll 2d6!",
    "roll 1d10!>=9",
    "roll 2d6!!p",
    "roll 2d6r1",
    "roll 2d6ro<2",
    "roll 6d10>=7f1",
    "roll 6d10!=10>=7f1",
    "roll 4d6mi2ma5",
    "roll 4dFmi-1",
    "roll 2d{-3,0,3}mi-2",
    "roll 3d6 vs 12",
    "roll 1d100 <= 45",
    "roll 2d6 > -7",
    "roll 1d20%3+5",
    "roll dF.1+2",
    "roll (1d4, 2+2)kh1",
    "roll 2d6r<>3",
    "check adv +5 vs 15",
    "attempt doomed reliable +1",
    "roll 4dF+1",
    "roll 3d6u",
    "roll 1d{0,1,2}+3",
    "roll (1d6+2)*3 - 1d4[fire] / 2",
    "roll max(1d6, 1d8)+2",
    "roll {4d6, 3d8}kh1",
    "roll (2)d6+1",
    "roll 1d20+5 adv vs 15; 2d6+3",
    "roll 1d20+5 vs 15; 2d6+3",
    "roll I hit for [[1d8+3]] and [[1d6]] fire",
    "roll 8d6cs>5cf<2",
    "roll 2d6+3 [fire]",
    "roll 3d8ro1+2 [fire]",
    "roll 1d8[slashing] + 2d6[fire] + 3",
    "attack +5 vs AC 15 dmg 1d8+3 [slashing]",
    "check +5 [stealth] vs 15",
    "check [sleight of hand] +5 vs 15 adv",
    "save +3 [dex] vs 14",
    "roll 1d6 [5]",
]

_EDGES = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 19, 20, 21, 99, 100, 101, 999, 1000, 1001]
_EDGES += [10**6 - 1, 10**6, 10**6 + 1, 10**9 - 1, 10**9, 10**11 - 1, 10**11]
_EDGES += [10**12 - 1, 10**12, 10**13]


#: A label slot's fillings besides its own: other words, the grammar's keywords, the
#: longest, numbers, and labels that are no slot (spaces at an edge, two spaces, a digit).
_LABELS = ["cold", "Necrotic", "sleight of hand", "adv", "dis", "vs", "DC", "AC", "d", "x"]
_LABELS += ["kh", "crit", "min", "expertise", "a" * 32, "a" * 33, "5", "0", "12"]
_LABELS += [" fire", "fire ", "fi  re", "2nd hit", "fire1"]


def number(rng: random.Random, original: str) -> str:
    """One slot's filling: often the original (so fixed slots match), often an edge of a
    limit, sometimes a leading zero or a long number; a label's, another label."""
    roll = rng.random()
    if is_word(original):
        return original if roll < 0.3 else rng.choice(_LABELS)
    if roll < 0.3:
        return original
    if roll < 0.35:
        return "0" + str(rng.randint(0, 99))
    if roll < 0.65:
        return str(rng.choice(_EDGES))
    if roll < 0.9:
        return str(rng.randint(0, 30))
    return str(rng.randint(0, 10 ** rng.randint(1, 14)))


def fillings(text: str, count: int, seed: int) -> list[str]:
    """`count` texts of the shape of `text`, its numbers filled at random."""
    parts = split(text)
    assert parts is not None, text
    pieces, numbers = parts
    rng = random.Random(f"{seed}:{text}")
    return [join(pieces, tuple(number(rng, n) for n in numbers)) for _ in range(count)]
