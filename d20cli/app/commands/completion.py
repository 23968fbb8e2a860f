"""`d20 completion SHELL [--install]`: the static completion script of the typer app's
commands (d20cli.app.cli.completion_script, d20cli.app.completion)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from d20cli.errors import D20Error, ExitStatus
from d20cli.present.output import Output

app = typer.Typer()


@app.command("completion")
def completion_command(
    shell: Annotated[str, typer.Argument(help="bash, zsh or fish")] = "bash",
    install: Annotated[
        bool, typer.Option("--install", help="Install it for your shell (writes a file).")
    ] = False,
) -> None:
    """Print the completion script for bash, zsh or fish (or --install it)."""
    from d20cli.app.cli import completion_script

    try:
        text = completion_script(shell, install)
    except D20Error as err:
        Output().error(err)
        raise typer.Exit(int(ExitStatus.BAD_INPUT)) from None
    if install:
        typer.echo(text)
    else:
        sys.stdout.write(text)
