"""`d20 gm [OPTIONS]`: the game master's screen, full-screen in the terminal
(d20cli.app.gm, built on Textual, which is imported only when this command runs), with
the options of a request for the whole session, as `d20 shell` takes them."""

from __future__ import annotations

import sys

import typer

from d20cli.app.commands import COMMANDS
from d20cli.app.commands.shared import command_options, usage_forms
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.present.output import Output

app = typer.Typer()


@app.command(
    "gm",
    cls=usage_forms("[OPTIONS]"),
    help=COMMANDS["gm"].help + " Takes the options of a request, for the whole session "
    "(-s ID, --seed N, --no-log, ...).",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def gm_command(ctx: typer.Context) -> None:
    """The GM screen: the order with HP bars and conditions, the party, the roll log and a
    command line."""
    from d20cli.app.cli import completion_commands, run_app
    from d20cli.app.options import split_options
    from d20cli.app.shell import Commands
    from d20cli.language.vocabulary import VERB_HELP

    base = command_options()
    try:
        words, opts = split_options(list(ctx.args))
        if words:
            raise ParseError(f"gm takes options only, not {' '.join(words)[:40]!r}")
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise ParseError(
                "d20 gm is a full-screen program: run it in a terminal "
                "(in a script, use d20 init ... and d20 init --json)"
            )
    except D20Error as err:
        Output().error(err, base.json or "--json" in ctx.args)
        raise typer.Exit(int(ExitStatus.BAD_INPUT)) from None
    from d20cli.app.gm import run_gm

    commands = Commands(run_app, lambda: completion_commands(VERB_HELP))
    raise typer.Exit(run_gm(base.merged(opts), commands))
