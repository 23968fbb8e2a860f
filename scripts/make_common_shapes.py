"""Write d20cli/language/common_shapes.py: the shapes of common requests, shipped with d20
(issue 43 item 2), so a new user's first lines of the forms players type are read
without importing pyparsing, building the grammar or probing a shape.

Each sentence of SENTENCES below is parsed by the grammar
(d20cli.language.grammar.parse_request) and its template built exactly as the shape
cache learns one (d20cli.language.shape_probes.build); the module holds those templates
by shape and variant, as the shape cache's file holds them (d20cli.store.shape_cache:
`variant`). Nothing in it is written by hand: the grammar is the one source of the
language, and tests/test_common_shapes.py holds the module equal to what this script
writes now (and every template, filled with random numbers, equal to the grammar).

Run it after a change to the grammar, to the shapes (d20cli/language/shapes.py,
shape_probes.py) or to the request classes:

    python scripts/make_common_shapes.py           # write the module
    python scripts/make_common_shapes.py --check   # exit 1 if it is out of date

A sentence whose shape cannot be built (the grammar refuses it, or its template would
not give exactly what the grammar gives) is an error of this list: the script says which
and writes nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODULE = ROOT / "d20cli" / "language" / "common_shapes.py"


def _dice() -> list[str]:
    """Dice expressions as players type them: the count and sides of a die, each common
    modifier (none; keep and drop highest and lowest; explode, compound; reroll once and
    reroll; each die at least, at most), with no constant, `+N` or `-N`; and those that
    damage rolls use (all but kl, dh, mi and ma) with a label too (a label's words are a
    slot of the shape, d20cli.language.shapes: `[fire]` stands for any of them)."""
    modifiers = ("", "kh3", "kl1", "dh1", "dl1", "!", "!!", "ro1", "r1", "ro<2", "mi2", "ma5")
    unlabelled = {"kl1", "dh1", "mi2", "ma5"}
    dice = {"": "2d6", "kh3": "4d6", "kl1": "2d20", "dh1": "4d6", "dl1": "4d6"}
    out = []
    for label in ("", " [fire]"):
        for modifier in modifiers:
            if label and modifier in unlabelled:
                continue
            base = dice.get(modifier, "3d8") + modifier
            for constant in ("", "+3", "-1"):
                out.append(f"roll {base}{constant}{label}")
    return out


#: The common sentences, in the order they are built (a shape met again is built again:
#: the last of a shape and variant is kept; each must give the same template).
SENTENCES: tuple[str, ...] = (
    *_dice(),
    # a lone die, d20s, targets, repeats and sums of two dice terms
    "roll d20",
    "roll d20+5",
    "roll d20-1",
    "roll 1d20+5 adv",
    "roll 1d20+5 dis",
    "roll 1d20-1 adv",
    "roll 1d20-1 dis",
    "roll 1d20+5 vs 15",
    "roll 1d20+5 adv vs 15",
    "roll 3d6 vs 12",
    "roll 1d100",
    "roll 6x 4d6kh3",
    "roll 4d6d1",
    "roll 1d8+1d6",
    "roll 1d8+1d6+3",
    "roll 1d8+1d6-1",
    "roll 2d6+3+1d6",
    "roll 1d8+3 [slashing] + 2d6 [fire]",
    # checks, saves and attacks of the default system
    *(
        f"{verb} {modifier}{target}{adv}"
        for verb in ("check", "save")
        for modifier in ("+5", "-1")
        for target in (" vs 15", "")
        for adv in ("", " adv", " dis")
    ),
    "check +5 vs DC 15",
    "check -1 vs DC 12",
    "check +5 vs 15 expertise=d6",
    "check +5 vs 15 expertise=d8",
    "check +5 vs 15 adv expertise=d6",
    "check +5 vs 15 adv expertise=d8",
    "check +5 vs 15 dis expertise=d6",
    "attack +5 vs AC 15 dmg 1d8+3",
    "attack -1 vs AC 12 dmg 1d6-1",
    "attack -1 vs AC 12 dmg 1d6+1",
    "attack +5 vs AC 15 dmg 1d8-1",
    "attack +5 vs AC 15 dmg 1d8",
    "attack +5 vs AC 15 dmg 2d6+3 adv",
    "attack +5 vs AC 15 dmg 2d6+3 dis",
    "attack +5 vs 15 dmg 1d8+3",
    "attack -1 vs 12 dmg 1d6-1",
    "attack -1 vs 12 dmg 1d6+1",
    "attack +5 vs 15 dmg 1d8-1",
    "attack +5 vs AC 15",
    "attack +5 vs 15",
)


def templates() -> dict[str, dict[str, Any]]:
    """{shape: {variant: template}} of SENTENCES, sorted; SystemExit naming the sentences
    whose shape cannot be built."""
    from d20cli.errors import ParseError
    from d20cli.language.grammar import parse_request
    from d20cli.language.shape_probes import build
    from d20cli.store.shape_cache import MAX_VARIANTS, variant

    found: dict[str, dict[str, Any]] = {}
    bad: list[str] = []
    for text in SENTENCES:
        try:
            built = build(text, parse_request(text), parse_request)
        except ParseError as err:
            bad.append(f"{text!r}: the grammar refuses it ({err})")
            continue
        if built is None:
            bad.append(f"{text!r}: its shape cannot be built")
            continue
        shape, entry = built
        held = found.setdefault(shape, {})
        name = variant(entry)
        if name in held and held[name] != entry:
            bad.append(f"{text!r}: another template of the same shape and numbers")
        held[name] = entry
        if len(held) > MAX_VARIANTS:
            bad.append(f"{text!r}: more than {MAX_VARIANTS} templates of its shape")
    if bad:
        raise SystemExit("make_common_shapes: " + "\n  ".join(["not a common shape:", *bad]))
    return {shape: dict(sorted(found[shape].items())) for shape in sorted(found)}


def source() -> str:
    """The module's text: the templates as a Python literal, one template a line (a change
    of the grammar shows in the diff as the templates it changed)."""
    data = templates()
    sentences = "".join(f"    {text!r},\n" for text in SENTENCES)
    shapes = []
    for shape, held in data.items():
        rows = "".join(f"        {name!r}: {entry!r},\n" for name, entry in held.items())
        shapes.append(f"    {shape!r}: {{\n{rows}    }},\n")
    variants = sum(len(held) for held in data.values())
    return f'''"""The shapes of common requests (`roll 2d6+3 [fire]`, `check +5 vs 15 adv`),
shipped with d20 so that a new user's first lines of them start without pyparsing.

GENERATED from the grammar by scripts/make_common_shapes.py; do not edit. After a change
to the grammar, the shapes or the request classes, run `python scripts/make_common_shapes.py`
(tests/test_common_shapes.py fails while this module is out of date). Not formatted by
ruff (pyproject.toml): one template a line.

TEMPLATES: {{shape: {{variant: template}}}} ({len(data)} shapes, {variants} templates), as the
shape cache's file holds them (d20cli.store.shape_cache), each built by
d20cli.language.shape_probes.build from one of SENTENCES as the grammar parsed it. The
shape cache reads them when the user's file has none of a text's shape that fills
(imported at that first need only: about 1.3 ms from its bytecode).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The sentences the templates were built from.
SENTENCES: tuple[str, ...] = (
{sentences})

TEMPLATES: dict[str, dict[str, dict[str, Any]]] = {{
{"".join(shapes)}}}
'''


def main(argv: list[str]) -> int:
    text = source()
    if "--check" in argv:
        if MODULE.read_text("utf-8") != text:
            name = MODULE.relative_to(ROOT)
            print(f"{name} is out of date: run python scripts/make_common_shapes.py")
            return 1
        return 0
    MODULE.write_text(text, "utf-8")
    print(f"wrote {MODULE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
