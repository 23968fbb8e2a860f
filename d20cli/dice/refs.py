"""`Ref`: a character's value by name in a dice expression (`1d20+dex`, `@dex`).

The edge replaces every `Ref` by the character's value before anything is rolled
(d20cli.language.character_entries); one left in a tree is a DiceError wherever it
is rolled, bounded or weighed, which says how to give the name a value.
"""

from __future__ import annotations

import re

from d20cli.dice.arith import Bounded
from d20cli.errors import DiceError
from d20cli.frozen import frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

#: What a name in an expression looks like: a letter, then letters, digits or `_` (a `-`
#: after a name subtracts), at most 40 characters; lower case in the tree. (Compiled
#: where first used, by `re`'s own cache: most starts make no `Ref`.)
REF_NAME = r"[a-z][a-z0-9_]{0,39}"


@frozen(slots=True)
class Ref(Bounded):
    """A character's value by name, written `dex` or `@dex` (lower case in the tree)."""

    name: str

    precedence: ClassVar[int] = 4  # an atom (tree.py: _ATOM)

    def __post_init__(self) -> None:
        if not re.fullmatch(REF_NAME, self.name):
            raise ValueError(f"not a name: {self.name!r}")

    def __str__(self) -> str:
        return self.name

    def bounds(self) -> tuple[float, float]:
        raise self.unresolved()

    def unresolved(self) -> DiceError:
        """The error for this name left unresolved: there is no character to ask."""
        return DiceError(
            f"{self.name!r} names a character's value: roll with --as NAME "
            f"(d20 char set NAME {self.name} +2 gives a character one)"
        )
