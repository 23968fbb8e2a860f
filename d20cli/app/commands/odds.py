"""`d20 odds ...` as the typer app runs it (the fast path, d20cli.__main__, hands an odds
line to the runner itself): the exact odds of a request (d20cli.app.run)."""

from __future__ import annotations

import typer

from d20cli.app.commands.shared import command_options
from d20cli.present.output import Output

app = typer.Typer()


@app.command(
    "odds",
    add_help_option=False,
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def odds_command(ctx: typer.Context) -> None:
    """The exact probability of every outcome of a request, instead of a roll."""
    from d20cli.app.run import run

    raise typer.Exit(int(run(["odds", *ctx.args], command_options(), Output()).status))
