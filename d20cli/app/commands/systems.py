"""`d20 systems`: the rule systems with their verbs, words, outcome tiers and examples
(d20cli.present.systems_view)."""

from __future__ import annotations

from typing import Annotated

import typer

from d20cli.app.commands.shared import command_errors, command_options, command_output

app = typer.Typer()


@app.command("systems")
def systems_command(
    json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
    system: Annotated[
        str | None,
        typer.Option("--system", "-s", metavar="ID", help="Show only this system."),
    ] = None,
) -> None:
    """List the rule systems with their verbs, outcome tiers and an example per verb."""
    from d20cli.present.systems_view import show_systems
    from d20cli.rules import system_id

    out, opts = command_output(), command_options()  # `d20 -s mm systems` too
    with command_errors(out):
        only = system_id(opts.system) if opts.system is not None else None
    show_systems(out, opts.json, only)
