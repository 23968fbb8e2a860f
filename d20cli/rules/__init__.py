"""The rule systems: one module per system holds all of its rules.

`get_system(name)` accepts an id (`levelup`, `reglamento`, `mm`, `pendagger`) or an alias
(`a5e`, `mutants`, `pd`, ...) and imports only that system's module. `SYSTEMS` (all four, in
order) is computed on first use. No system module imports pyparsing.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from d20cli.bounded import declare
from d20cli.errors import RulesError
from d20cli.language.vocabulary import ALIASES, DEFAULT_SYSTEM, SYSTEM_IDS
from d20cli.rules.common import System

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


#: The systems imported, by id (`get_system`: an odds line of a batch asks for one each).
_LOADED: dict[str, System] = declare(
    "rules.get_system",
    len(SYSTEM_IDS),
    holds="system id → its System (the module imported)",
    buys="`get_system` of a system imported: 0.7 µs instead of 1.5 µs (import_module)",
).new()


def get_system(name: str) -> System:
    """The system with this id or alias (imports only its module)."""
    sid = system_id(name)
    system = _LOADED.get(sid)
    if system is None:
        system = _LOADED[sid] = import_module(f"d20cli.rules.{sid}").SYSTEM
    return system


def __getattr__(name: str) -> Any:
    if name == "SYSTEMS":
        return tuple(get_system(sid) for sid in SYSTEM_IDS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
