"""`d20 help [VERB | COMMAND]` as the typer app runs it (the fast path, d20cli.__main__,
answers it itself): the guide of d20cli.app.help."""

from __future__ import annotations

import typer

from d20cli.app.commands.shared import command_options
from d20cli.errors import D20Error, ExitStatus
from d20cli.present.output import Output

app = typer.Typer()


@app.command(
    "help",
    add_help_option=False,
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def help_command(ctx: typer.Context) -> None:
    """The words each verb takes, per system, with examples: d20 help [VERB]."""
    from d20cli.app.cli import command_group
    from d20cli.app.help import run_help
    from d20cli.app.options import HELP_FLAGS, split_options

    out = Output()
    before = list(ctx.args)[: list(ctx.args).index("--")] if "--" in ctx.args else ctx.args
    if any(a in HELP_FLAGS for a in before):  # `help --help`: its own usage
        raise typer.Exit(int(run_help([], command_options(), out, asked=True)))
    try:
        words, opts = split_options(list(ctx.args))
    except D20Error as err:
        out.error(err, command_options().json)
        raise typer.Exit(int(ExitStatus.BAD_INPUT)) from None
    raise typer.Exit(int(run_help(words, command_options().merged(opts), out, command_group)))
