"""What a roll says about its request on every line, kept light (imported on every start):
the label words that add nothing (`stray_labels`, `unvalued_words`) and the quick look for
a form a major peer reads otherwise (`may_hold`). The notes themselves, and the forms,
are d20cli.language.peer_readings, imported only when `may_hold` finds something.

Pure: the parsed request and its text in, the words and their columns out.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Text that may hold a form a peer reads otherwise (most requests hold none).
_MAYBE = re.compile(r"[<>%]|cs|k[0-9]", re.IGNORECASE)


def may_hold(text: str) -> bool:
    """Whether `text` may hold a form a peer reads otherwise (a quick look: most requests
    hold none)."""
    return _MAYBE.search(text) is not None


def stray_labels(request: Any, text: str) -> list[tuple[str, int]]:
    """The label word of a check-like request typed bare after its target (`check +5 vs 15
    stelth`), with its column: a stray word that names the roll and adds nothing, where
    a label stands before the modifier (`check goblin +3 vs 12`) or in brackets."""
    name = getattr(request, "name", None)
    if name is None:  # (most requests: no columns to read)
        return []
    columns = dict(getattr(request, "columns", ()))
    label, target = columns.get("label"), columns.get("target")
    if name is None or label is None or target is None or label < target:
        return []
    if text[label - 1 : label] in "[\"'":  # a label whatever its words
        return []
    return [(name, label)]


def unvalued_words(request: Any) -> list[tuple[str, int | None]]:
    """The label words of a request (or of its group members and contest sides) that stand
    alone, with no modifier, rank or score, each with its column: `stealth` in
    `check stealth vs 15` (rolled at +0 unless a character gives it a value)."""
    parts = [request, *getattr(request, "members", ()), *getattr(request, "sides", ())]
    return [
        (part.name, dict(part.columns).get("label"))
        for part in parts
        if getattr(part, "name", None) is not None
        and getattr(part, "modifier", 0) is None
        and getattr(part, "rank", 0) is None
        and getattr(part, "score", 0) is None
    ]
