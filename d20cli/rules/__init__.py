"""The rule systems: one module per system holds all of its rules.

`get_system(name)` accepts an id (`levelup`, `reglamento`, `mm`, `pendagger`) or an alias
(`a5e`, `mutants`, `pd`, ...) and imports only that system's module. `SYSTEMS` (all four, in
order) is computed on first use. No system module imports pyparsing.
"""

from __future__ import annotations

from d20cli.errors import RulesError
from d20cli.language.vocabulary import ALIASES, DEFAULT_SYSTEM, SYSTEM_IDS
from d20cli.rules.common import System, imported

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ALIASES",
    "DEFAULT_SYSTEM",
    "SYSTEMS",
    "SYSTEM_IDS",
    "System",
    "get_system",
    "system_id",
]


def system_id(name: str) -> str:
    """The system id for an id or alias; RulesError listing the known ids otherwise."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-").replace(".", "-")
    if key in SYSTEM_IDS:
        return key
    if key in ALIASES:
        return ALIASES[key]
    known = ", ".join(SYSTEM_IDS)
    raise RulesError(f"unknown system {name!r}; the systems are {known}")


def get_system(name: str) -> System:
    """The system with this id or alias (imports only its module, once: `imported`)."""
    module = imported(f"d20cli.rules.{name if name in SYSTEM_IDS else system_id(name)}", "SYSTEM")
    system: System = module.SYSTEM
    return system


def __getattr__(name: str) -> Any:
    if name == "SYSTEMS":
        return tuple(get_system(sid) for sid in SYSTEM_IDS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
