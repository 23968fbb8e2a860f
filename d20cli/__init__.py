"""d20cli: a dice roller for d20 tabletop role-playing games."""

from __future__ import annotations


def version() -> str:
    """The installed version, read from the package metadata (never hard-coded)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version("d20cli")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"
