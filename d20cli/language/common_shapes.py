"""The shapes of common requests (`roll 2d6+3 [fire]`, `check +5 vs 15 adv`),
shipped with d20 so that a new user's first lines of them start without pyparsing.

GENERATED from the grammar by scripts/make_common_shapes.py; do not edit. After a change
to the grammar, the shapes or the request classes, run `python scripts/make_common_shapes.py`
(tests/test_common_shapes.py fails while this module is out of date). Not formatted by
ruff (pyproject.toml): one template a line.

TEMPLATES: {shape: {variant: template}} (119 shapes, 121 templates), as the
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
    'roll 2d6',
    'roll 2d6+3',
    'roll 2d6-1',
    'roll 4d6kh3',
    'roll 4d6kh3+3',
    'roll 4d6kh3-1',
    'roll 2d20kl1',
    'roll 2d20kl1+3',
    'roll 2d20kl1-1',
    'roll 4d6dh1',
    'roll 4d6dh1+3',
    'roll 4d6dh1-1',
    'roll 4d6dl1',
    'roll 4d6dl1+3',
    'roll 4d6dl1-1',
    'roll 3d8!',
    'roll 3d8!+3',
    'roll 3d8!-1',
    'roll 3d8!!',
    'roll 3d8!!+3',
    'roll 3d8!!-1',
    'roll 3d8ro1',
    'roll 3d8ro1+3',
    'roll 3d8ro1-1',
    'roll 3d8r1',
    'roll 3d8r1+3',
    'roll 3d8r1-1',
    'roll 3d8ro<2',
    'roll 3d8ro<2+3',
    'roll 3d8ro<2-1',
    'roll 3d8mi2',
    'roll 3d8mi2+3',
    'roll 3d8mi2-1',
    'roll 3d8ma5',
    'roll 3d8ma5+3',
    'roll 3d8ma5-1',
    'roll 2d6 [fire]',
    'roll 2d6+3 [fire]',
    'roll 2d6-1 [fire]',
    'roll 4d6kh3 [fire]',
    'roll 4d6kh3+3 [fire]',
    'roll 4d6kh3-1 [fire]',
    'roll 4d6dl1 [fire]',
    'roll 4d6dl1+3 [fire]',
    'roll 4d6dl1-1 [fire]',
    'roll 3d8! [fire]',
    'roll 3d8!+3 [fire]',
    'roll 3d8!-1 [fire]',
    'roll 3d8!! [fire]',
    'roll 3d8!!+3 [fire]',
    'roll 3d8!!-1 [fire]',
    'roll 3d8ro1 [fire]',
    'roll 3d8ro1+3 [fire]',
    'roll 3d8ro1-1 [fire]',
    'roll 3d8r1 [fire]',
    'roll 3d8r1+3 [fire]',
    'roll 3d8r1-1 [fire]',
    'roll 3d8ro<2 [fire]',
    'roll 3d8ro<2+3 [fire]',
    'roll 3d8ro<2-1 [fire]',
    'roll d20',
    'roll d20+5',
    'roll d20-1',
    'roll 1d20+5 adv',
    'roll 1d20+5 dis',
    'roll 1d20-1 adv',
    'roll 1d20-1 dis',
    'roll 1d20+5 vs 15',
    'roll 1d20+5 adv vs 15',
    'roll 3d6 vs 12',
    'roll 1d100',
    'roll 6x 4d6kh3',
    'roll 4d6d1',
    'roll 1d8+1d6',
    'roll 1d8+1d6+3',
    'roll 1d8+1d6-1',
    'roll 2d6+3+1d6',
    'roll 1d8+3 [slashing] + 2d6 [fire]',
    'check +5 vs 15',
    'check +5 vs 15 adv',
    'check +5 vs 15 dis',
    'check +5',
    'check +5 adv',
    'check +5 dis',
    'check -1 vs 15',
    'check -1 vs 15 adv',
    'check -1 vs 15 dis',
    'check -1',
    'check -1 adv',
    'check -1 dis',
    'save +5 vs 15',
    'save +5 vs 15 adv',
    'save +5 vs 15 dis',
    'save +5',
    'save +5 adv',
    'save +5 dis',
    'save -1 vs 15',
    'save -1 vs 15 adv',
    'save -1 vs 15 dis',
    'save -1',
    'save -1 adv',
    'save -1 dis',
    'check +5 vs DC 15',
    'check -1 vs DC 12',
    'check +5 vs 15 expertise=d6',
    'check +5 vs 15 expertise=d8',
    'check +5 vs 15 adv expertise=d6',
    'check +5 vs 15 adv expertise=d8',
    'check +5 vs 15 dis expertise=d6',
    'attack +5 vs AC 15 dmg 1d8+3',
    'attack -1 vs AC 12 dmg 1d6-1',
    'attack -1 vs AC 12 dmg 1d6+1',
    'attack +5 vs AC 15 dmg 1d8-1',
    'attack +5 vs AC 15 dmg 1d8',
    'attack +5 vs AC 15 dmg 2d6+3 adv',
    'attack +5 vs AC 15 dmg 2d6+3 dis',
    'attack +5 vs 15 dmg 1d8+3',
    'attack -1 vs 12 dmg 1d6-1',
    'attack -1 vs 12 dmg 1d6+1',
    'attack +5 vs 15 dmg 1d8-1',
    'attack +5 vs AC 15',
    'attack +5 vs 15',
)

TEMPLATES: dict[str, dict[str, dict[str, Any]]] = {
    'attack +# vs #': {
        '': {'shape': 'attack +# vs #', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target', {'@c': [2, 1]}]}]}}},
    },
    'attack +# vs # dmg #d#+#': {
        '': {'shape': 'attack +# vs # dmg #d#+#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}]}}},
    },
    'attack +# vs # dmg #d#-#': {
        '': {'shape': 'attack +# vs # dmg #d#-#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}]}}},
    },
    'attack +# vs AC #': {
        '': {'shape': 'attack +# vs AC #', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}]}}},
    },
    'attack +# vs AC # dmg #d#': {
        '': {'shape': 'attack +# vs AC # dmg #d#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'damage': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}]}}},
    },
    'attack +# vs AC # dmg #d#+#': {
        '': {'shape': 'attack +# vs AC # dmg #d#+#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}]}}},
    },
    'attack +# vs AC # dmg #d#+# adv': {
        '': {'shape': 'attack +# vs AC # dmg #d#+# adv', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'adv': 1, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}, {'@t': ['adv', {'@c': [10, 1]}]}]}}},
    },
    'attack +# vs AC # dmg #d#+# dis': {
        '': {'shape': 'attack +# vs AC # dmg #d#+# dis', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'dis': 1, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}, {'@t': ['dis', {'@c': [10, 1]}]}]}}},
    },
    'attack +# vs AC # dmg #d#-#': {
        '': {'shape': 'attack +# vs AC # dmg #d#-#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}]}}},
    },
    'attack -# vs # dmg #d#+#': {
        '': {'shape': 'attack -# vs # dmg #d#+#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}]}}},
    },
    'attack -# vs # dmg #d#-#': {
        '': {'shape': 'attack -# vs # dmg #d#-#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}]}}},
    },
    'attack -# vs AC # dmg #d#+#': {
        '': {'shape': 'attack -# vs AC # dmg #d#+#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}]}}},
    },
    'attack -# vs AC # dmg #d#-#': {
        '': {'shape': 'attack -# vs AC # dmg #d#-#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'attack', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'damage': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 4}}]}]}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 7]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dmg', {'@c': [4, 1]}]}]}}},
    },
    'check +#': {
        '': {'shape': 'check +#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}]}}},
    },
    'check +# adv': {
        '': {'shape': 'check +# adv', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'adv': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['adv', {'@c': [2, 1]}]}]}}},
    },
    'check +# dis': {
        '': {'shape': 'check +# dis', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'dis': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['dis', {'@c': [2, 1]}]}]}}},
    },
    'check +# vs #': {
        '': {'shape': 'check +# vs #', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}]}}},
    },
    'check +# vs # adv': {
        '': {'shape': 'check +# vs # adv', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'adv': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['adv', {'@c': [4, 1]}]}]}}},
    },
    'check +# vs # adv expertise=d#': {
        '2=6': {'shape': 'check +# vs # adv expertise=d#', 'fixed': [[2, '6']], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'adv': 1, 'expertise': {'@t': [6]}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['adv', {'@c': [4, 1]}]}, {'@t': ['expertise', {'@c': [4, 5]}]}]}}},
        '2=8': {'shape': 'check +# vs # adv expertise=d#', 'fixed': [[2, '8']], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'adv': 1, 'expertise': {'@t': [8]}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['adv', {'@c': [4, 1]}]}, {'@t': ['expertise', {'@c': [4, 5]}]}]}}},
    },
    'check +# vs # dis': {
        '': {'shape': 'check +# vs # dis', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'dis': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dis', {'@c': [4, 1]}]}]}}},
    },
    'check +# vs # dis expertise=d#': {
        '2=6': {'shape': 'check +# vs # dis expertise=d#', 'fixed': [[2, '6']], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'dis': 1, 'expertise': {'@t': [6]}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dis', {'@c': [4, 1]}]}, {'@t': ['expertise', {'@c': [4, 5]}]}]}}},
    },
    'check +# vs # expertise=d#': {
        '2=6': {'shape': 'check +# vs # expertise=d#', 'fixed': [[2, '6']], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'expertise': {'@t': [6]}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['expertise', {'@c': [4, 1]}]}]}}},
        '2=8': {'shape': 'check +# vs # expertise=d#', 'fixed': [[2, '8']], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'expertise': {'@t': [8]}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['expertise', {'@c': [4, 1]}]}]}}},
    },
    'check +# vs DC #': {
        '': {'shape': 'check +# vs DC #', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}]}}},
    },
    'check -#': {
        '': {'shape': 'check -#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}]}}},
    },
    'check -# adv': {
        '': {'shape': 'check -# adv', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'adv': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['adv', {'@c': [2, 1]}]}]}}},
    },
    'check -# dis': {
        '': {'shape': 'check -# dis', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'dis': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['dis', {'@c': [2, 1]}]}]}}},
    },
    'check -# vs #': {
        '': {'shape': 'check -# vs #', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}]}}},
    },
    'check -# vs # adv': {
        '': {'shape': 'check -# vs # adv', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'adv': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['adv', {'@c': [4, 1]}]}]}}},
    },
    'check -# vs # dis': {
        '': {'shape': 'check -# vs # dis', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'dis': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dis', {'@c': [4, 1]}]}]}}},
    },
    'check -# vs DC #': {
        '': {'shape': 'check -# vs DC #', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'check', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 6]}]}, {'@t': ['target_name', {'@c': [2, 4]}]}, {'@t': ['target', {'@c': [2, 1]}]}]}}},
    },
    'roll #d#': {
        '': {'shape': 'roll #d#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}}},
    },
    'roll #d# [#]': {
        '': {'shape': 'roll #d# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'label': {'@w': 2}}}},
    },
    'roll #d# vs #': {
        '': {'shape': 'roll #d# vs #', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'target': {'@': 'Compare', 'op': '>=', 'value': {'@s': 2}}}},
    },
    'roll #d#!': {
        '': {'shape': 'roll #d#!', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode'}}}},
    },
    'roll #d#! [#]': {
        '': {'shape': 'roll #d#! [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode'}, 'label': {'@w': 2}}}},
    },
    'roll #d#!!': {
        '': {'shape': 'roll #d#!!', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode', 'compound': True}}}},
    },
    'roll #d#!! [#]': {
        '': {'shape': 'roll #d#!! [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode', 'compound': True}, 'label': {'@w': 2}}}},
    },
    'roll #d#!!+#': {
        '': {'shape': 'roll #d#!!+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode', 'compound': True}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}}]}]}}}},
    },
    'roll #d#!!+# [#]': {
        '': {'shape': 'roll #d#!!+# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode', 'compound': True}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}, 'label': {'@w': 3}}]}]}}}},
    },
    'roll #d#!!-#': {
        '': {'shape': 'roll #d#!!-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode', 'compound': True}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 2}}]}]}}}},
    },
    'roll #d#!!-# [#]': {
        '': {'shape': 'roll #d#!!-# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode', 'compound': True}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 2}, 'label': {'@w': 3}}]}]}}}},
    },
    'roll #d#!+#': {
        '': {'shape': 'roll #d#!+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode'}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}}]}]}}}},
    },
    'roll #d#!+# [#]': {
        '': {'shape': 'roll #d#!+# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode'}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}, 'label': {'@w': 3}}]}]}}}},
    },
    'roll #d#!-#': {
        '': {'shape': 'roll #d#!-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode'}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 2}}]}]}}}},
    },
    'roll #d#!-# [#]': {
        '': {'shape': 'roll #d#!-# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'explode': {'@': 'Explode'}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 2}, 'label': {'@w': 3}}]}]}}}},
    },
    'roll #d#+#': {
        '': {'shape': 'roll #d#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}}]}]}}}},
    },
    'roll #d#+# [#]': {
        '': {'shape': 'roll #d#+# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}, 'label': {'@w': 3}}]}]}}}},
    },
    'roll #d#+# [#] + #d# [#]': {
        '': {'shape': 'roll #d#+# [#] + #d# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}, 'label': {'@w': 3}}]}, {'@t': ['+', {'@': 'Dice', 'count': {'@s': 4}, 'sides': {'@s': 5}, 'label': {'@w': 6}}]}]}}}},
    },
    'roll #d#+# adv': {
        '0=1,1=20': {'shape': 'roll #d#+# adv', 'fixed': [[0, '1'], [1, '20']], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': 1, 'sides': 20}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}}]}]}}, 'adv': 1}},
    },
    'roll #d#+# adv vs #': {
        '0=1,1=20': {'shape': 'roll #d#+# adv vs #', 'fixed': [[0, '1'], [1, '20']], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': 1, 'sides': 20}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}}]}]}}, 'adv': 1, 'target': {'@': 'Compare', 'op': '>=', 'value': {'@s': 3}}}},
    },
    'roll #d#+# dis': {
        '0=1,1=20': {'shape': 'roll #d#+# dis', 'fixed': [[0, '1'], [1, '20']], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': 1, 'sides': 20}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}}]}]}}, 'adv': -1}},
    },
    'roll #d#+# vs #': {
        '': {'shape': 'roll #d#+# vs #', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}}]}]}}, 'target': {'@': 'Compare', 'op': '>=', 'value': {'@s': 3}}}},
    },
    'roll #d#+#+#d#': {
        '': {'shape': 'roll #d#+#+#d#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 2}}]}, {'@t': ['+', {'@': 'Dice', 'count': {'@s': 3}, 'sides': {'@s': 4}}]}]}}}},
    },
    'roll #d#+#d#': {
        '': {'shape': 'roll #d#+#d#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}]}]}}}},
    },
    'roll #d#+#d#+#': {
        '': {'shape': 'roll #d#+#d#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}]}, {'@t': ['+', {'@': 'Number', 'value': {'@s': 4}}]}]}}}},
    },
    'roll #d#+#d#-#': {
        '': {'shape': 'roll #d#+#d#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Dice', 'count': {'@s': 2}, 'sides': {'@s': 3}}]}, {'@t': ['-', {'@': 'Number', 'value': {'@s': 4}}]}]}}}},
    },
    'roll #d#-#': {
        '': {'shape': 'roll #d#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 2}}]}]}}}},
    },
    'roll #d#-# [#]': {
        '': {'shape': 'roll #d#-# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 2}, 'label': {'@w': 3}}]}]}}}},
    },
    'roll #d#-# adv': {
        '0=1,1=20': {'shape': 'roll #d#-# adv', 'fixed': [[0, '1'], [1, '20']], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': 1, 'sides': 20}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 2}}]}]}}, 'adv': 1}},
    },
    'roll #d#-# dis': {
        '0=1,1=20': {'shape': 'roll #d#-# dis', 'fixed': [[0, '1'], [1, '20']], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': 1, 'sides': 20}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 2}}]}]}}, 'adv': -1}},
    },
    'roll #d#d#': {
        '': {'shape': 'roll #d#d#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dl', 'n': {'@s': 2}}}}},
    },
    'roll #d#dh#': {
        '': {'shape': 'roll #d#dh#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dh', 'n': {'@s': 2}}}}},
    },
    'roll #d#dh#+#': {
        '': {'shape': 'roll #d#dh#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dh', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#dh#-#': {
        '': {'shape': 'roll #d#dh#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dh', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#dl#': {
        '': {'shape': 'roll #d#dl#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dl', 'n': {'@s': 2}}}}},
    },
    'roll #d#dl# [#]': {
        '': {'shape': 'roll #d#dl# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dl', 'n': {'@s': 2}}, 'label': {'@w': 3}}}},
    },
    'roll #d#dl#+#': {
        '': {'shape': 'roll #d#dl#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dl', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#dl#+# [#]': {
        '': {'shape': 'roll #d#dl#+# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dl', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #d#dl#-#': {
        '': {'shape': 'roll #d#dl#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dl', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#dl#-# [#]': {
        '': {'shape': 'roll #d#dl#-# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'dl', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #d#kh#': {
        '': {'shape': 'roll #d#kh#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'kh', 'n': {'@s': 2}}}}},
    },
    'roll #d#kh# [#]': {
        '': {'shape': 'roll #d#kh# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'kh', 'n': {'@s': 2}}, 'label': {'@w': 3}}}},
    },
    'roll #d#kh#+#': {
        '': {'shape': 'roll #d#kh#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'kh', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#kh#+# [#]': {
        '': {'shape': 'roll #d#kh#+# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'kh', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #d#kh#-#': {
        '': {'shape': 'roll #d#kh#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'kh', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#kh#-# [#]': {
        '': {'shape': 'roll #d#kh#-# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'kh', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #d#kl#': {
        '': {'shape': 'roll #d#kl#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'kl', 'n': {'@s': 2}}}}},
    },
    'roll #d#kl#+#': {
        '': {'shape': 'roll #d#kl#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'kl', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#kl#-#': {
        '': {'shape': 'roll #d#kl#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'keep': {'@': 'Keep', 'kind': 'kl', 'n': {'@s': 2}}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#ma#': {
        '': {'shape': 'roll #d#ma#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'maximum': {'@s': 2}}}},
    },
    'roll #d#ma#+#': {
        '': {'shape': 'roll #d#ma#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'maximum': {'@s': 2}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#ma#-#': {
        '': {'shape': 'roll #d#ma#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'maximum': {'@s': 2}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#mi#': {
        '': {'shape': 'roll #d#mi#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'minimum': {'@s': 2}}}},
    },
    'roll #d#mi#+#': {
        '': {'shape': 'roll #d#mi#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'minimum': {'@s': 2}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#mi#-#': {
        '': {'shape': 'roll #d#mi#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'minimum': {'@s': 2}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#r#': {
        '': {'shape': 'roll #d#r#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}}}}},
    },
    'roll #d#r# [#]': {
        '': {'shape': 'roll #d#r# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}}, 'label': {'@w': 3}}}},
    },
    'roll #d#r#+#': {
        '': {'shape': 'roll #d#r#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#r#+# [#]': {
        '': {'shape': 'roll #d#r#+# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #d#r#-#': {
        '': {'shape': 'roll #d#r#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#r#-# [#]': {
        '': {'shape': 'roll #d#r#-# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #d#ro#': {
        '': {'shape': 'roll #d#ro#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}, 'once': True}}}},
    },
    'roll #d#ro# [#]': {
        '': {'shape': 'roll #d#ro# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}, 'once': True}, 'label': {'@w': 3}}}},
    },
    'roll #d#ro#+#': {
        '': {'shape': 'roll #d#ro#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}, 'once': True}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#ro#+# [#]': {
        '': {'shape': 'roll #d#ro#+# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}, 'once': True}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #d#ro#-#': {
        '': {'shape': 'roll #d#ro#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}, 'once': True}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#ro#-# [#]': {
        '': {'shape': 'roll #d#ro#-# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '=', 'value': {'@s': 2}}, 'once': True}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #d#ro<#': {
        '': {'shape': 'roll #d#ro<#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '<', 'value': {'@s': 2}}, 'once': True}}}},
    },
    'roll #d#ro<# [#]': {
        '': {'shape': 'roll #d#ro<# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '<', 'value': {'@s': 2}}, 'once': True}, 'label': {'@w': 3}}}},
    },
    'roll #d#ro<#+#': {
        '': {'shape': 'roll #d#ro<#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '<', 'value': {'@s': 2}}, 'once': True}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#ro<#+# [#]': {
        '': {'shape': 'roll #d#ro<#+# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '<', 'value': {'@s': 2}}, 'once': True}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #d#ro<#-#': {
        '': {'shape': 'roll #d#ro<#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '<', 'value': {'@s': 2}}, 'once': True}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}}]}]}}}},
    },
    'roll #d#ro<#-# [#]': {
        '': {'shape': 'roll #d#ro<#-# [#]', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': {'@s': 0}, 'sides': {'@s': 1}, 'reroll': {'@': 'Reroll', 'point': {'@': 'Compare', 'op': '<', 'value': {'@s': 2}}, 'once': True}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 3}, 'label': {'@w': 4}}]}]}}}},
    },
    'roll #x #d#kh#': {
        '': {'shape': 'roll #x #d#kh#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': {'@s': 1}, 'sides': {'@s': 2}, 'keep': {'@': 'Keep', 'kind': 'kh', 'n': {'@s': 3}}}, 'repeat': {'@s': 0}}},
    },
    'roll d#': {
        '': {'shape': 'roll d#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Dice', 'count': 1, 'sides': {'@s': 0}}}},
    },
    'roll d#+#': {
        '': {'shape': 'roll d#+#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': 1, 'sides': {'@s': 0}}, 'rest': {'@t': [{'@t': ['+', {'@': 'Number', 'value': {'@s': 1}}]}]}}}},
    },
    'roll d#-#': {
        '': {'shape': 'roll d#-#', 'fixed': [], 'tree': {'@': 'RollRequest', 'text': {'@r': 1}, 'expr': {'@': 'Arithmetic', 'first': {'@': 'Dice', 'count': 1, 'sides': {'@s': 0}}, 'rest': {'@t': [{'@t': ['-', {'@': 'Number', 'value': {'@s': 1}}]}]}}}},
    },
    'save +#': {
        '': {'shape': 'save +#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}]}}},
    },
    'save +# adv': {
        '': {'shape': 'save +# adv', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'adv': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['adv', {'@c': [2, 1]}]}]}}},
    },
    'save +# dis': {
        '': {'shape': 'save +# dis', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'dis': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['dis', {'@c': [2, 1]}]}]}}},
    },
    'save +# vs #': {
        '': {'shape': 'save +# vs #', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['target', {'@c': [2, 1]}]}]}}},
    },
    'save +# vs # adv': {
        '': {'shape': 'save +# vs # adv', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'adv': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['adv', {'@c': [4, 1]}]}]}}},
    },
    'save +# vs # dis': {
        '': {'shape': 'save +# vs # dis', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Number', 'value': {'@s': 0}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'dis': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dis', {'@c': [4, 1]}]}]}}},
    },
    'save -#': {
        '': {'shape': 'save -#', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}]}}},
    },
    'save -# adv': {
        '': {'shape': 'save -# adv', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'adv': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['adv', {'@c': [2, 1]}]}]}}},
    },
    'save -# dis': {
        '': {'shape': 'save -# dis', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'dis': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['dis', {'@c': [2, 1]}]}]}}},
    },
    'save -# vs #': {
        '': {'shape': 'save -# vs #', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['target', {'@c': [2, 1]}]}]}}},
    },
    'save -# vs # adv': {
        '': {'shape': 'save -# vs # adv', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'adv': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['adv', {'@c': [4, 1]}]}]}}},
    },
    'save -# vs # dis': {
        '': {'shape': 'save -# vs # dis', 'fixed': [], 'tree': {'@': 'CheckRequest', 'verb': 'save', 'text': {'@r': 1}, 'modifier': {'@': 'Neg', 'operand': {'@': 'Number', 'value': {'@s': 0}}}, 'target': {'@': 'Target', 'kind': 'number', 'value': {'@s': 1}}, 'dis': 1, 'columns': {'@t': [{'@t': ['verb', {'@c': [0, 0]}]}, {'@t': ['modifier', {'@c': [0, 5]}]}, {'@t': ['target', {'@c': [2, 1]}]}, {'@t': ['dis', {'@c': [4, 1]}]}]}}},
    },
}
