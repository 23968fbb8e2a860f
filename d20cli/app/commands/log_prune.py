"""`d20 log --prune --before DATE` and `--prune --keep N` (d20cli.app.commands.log): the checks
of the options, the question a terminal is asked, and what a prune says; and the vacuum
that follows a clear or a prune, so that the database's file shrinks. The pruning itself
is d20cli.store.log_retention's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from d20cli.errors import ExitStatus, ParseError

if TYPE_CHECKING:
    from d20cli.present.output import Output
    from d20cli.store.rolllog import Rolls


def check(prune: bool, before: str | None, keep: int | None, filters: tuple[Any, ...]) -> None:
    """ParseError for --before or --keep without --prune, for --prune with neither or
    with a filter (a prune is of the whole log), and for a --keep out of range."""
    from d20cli.store.config import log_problem

    if not prune:
        if (before, keep) != (None, None):
            raise ParseError("--before and --keep go with --prune: d20 log --prune --keep 10000")
        return
    if (before, keep) == (None, None):
        raise ParseError(
            "--prune takes --before DATE, --keep N or both: d20 log --prune --keep 10000"
        )
    if filters != (None,) * len(filters):
        raise ParseError("--prune takes --before and --keep, no filters: it prunes the whole log")
    problem = None if keep is None else log_problem("keep", keep)
    if problem is not None:
        raise ParseError(f"--keep {problem}")


def prune(store: Rolls, before: str | None, keep: int | None, yes: bool, out: Output) -> None:
    """Delete the rows before `before` (the log's time text) and past the newest `keep`,
    after a question unless `yes`; say how many went and how many are left, and vacuum."""
    from d20cli.store import log_retention
    from d20cli.store.sealing import Sessions

    what = [f"before {before.replace('T', ' ')[:19]} UTC"] if before is not None else []
    what += [f"older than the newest {keep:,}"] if keep is not None else []
    n = log_retention.prunable(store, before, keep)
    question = f"delete {n:,} logged rolls ({' or '.join(what)})?"
    if n and not yes and not typer.confirm(question, default=False):
        raise typer.Exit(int(ExitStatus.OK))
    gone = log_retention.prune(store, before, keep)
    sealed = Sessions(store.db).current() is not None
    vacuum(store, out)
    note = "; the open sealed session's rolls are kept" if sealed else ""
    left = store.count()
    out.text(
        f"deleted {gone:,} roll{'s' if gone != 1 else ''}; {left:,} left, "
        f"{store.db.disk_bytes():,} bytes on disk{note}"
    )


def vacuum(store: Rolls, out: Output) -> None:
    """Shrink the file after rows were deleted; a warning when it cannot."""
    why = store.db.vacuum()
    if why is not None:
        out.warn(f"the state database could not shrink ({why}); later rolls use its free room")
