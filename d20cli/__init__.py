"""d20cli: a dice roller for d20 tabletop role-playing games, as a command (`d20`) and as a
Python library.

    >>> import d20cli
    >>> d20cli.roll("check +5 vs 15 adv", dice=[17, 4]).outcome
    'success'

The library's names (`__all__`) are documented where they live, in d20cli.api, and are
imported from there the first time one is used: every `import d20cli.x` runs this file
first, and the command line's start-up must not pay for what only programs use.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from d20cli.api import (
        SCHEMA_VERSION,
        BudgetError,
        Character,
        D20Error,
        Damage,
        DiceError,
        DiceSummary,
        Die,
        Ledger,
        NotationWarning,
        Odds,
        OutcomeInfo,
        ParseError,
        Priced,
        Request,
        Result,
        Roller,
        RulesError,
        Score,
        Sheet,
        StateError,
        Sweep,
        SystemInfo,
        VerbInfo,
        chart,
        import_character,
        luck,
        odds,
        parse,
        roll,
        roll_all,
        sweep,
        systems,
    )

__all__ = [
    "SCHEMA_VERSION",
    "BudgetError",
    "Character",
    "D20Error",
    "Damage",
    "DiceError",
    "DiceSummary",
    "Die",
    "Ledger",
    "NotationWarning",
    "Odds",
    "OutcomeInfo",
    "ParseError",
    "Priced",
    "Request",
    "Result",
    "Roller",
    "RulesError",
    "Score",
    "Sheet",
    "StateError",
    "Sweep",
    "SystemInfo",
    "VerbInfo",
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
]


def version() -> str:
    """The installed version, read from the package metadata (never hard-coded)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version("d20cli")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    """A public name, imported from d20cli.api on first use (then kept here)."""
    if name in __all__:
        from d20cli import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'd20cli' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
