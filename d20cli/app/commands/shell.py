"""`d20 shell [OPTIONS]` as the typer app runs it (the fast path, d20cli.__main__, opens
the shell itself): the interactive shell (d20cli.app.shell), with the options of a
request for the whole session."""

from __future__ import annotations

import typer

from d20cli.app.commands import COMMANDS
from d20cli.app.commands.shared import command_options, usage_forms
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.present.output import Output

app = typer.Typer()


@app.command(
    "shell",
    cls=usage_forms("[OPTIONS]"),
    help=COMMANDS["shell"].help + " Takes the options of a request, for the whole session "
    "(-s ID, --seed N, --json, --no-log, ...).",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def shell_command(ctx: typer.Context) -> None:
    """The interactive shell: one request per line, TAB completion, history, `again`."""
    from d20cli.app.cli import completion_commands, run_app
    from d20cli.app.options import split_options
    from d20cli.app.shell import Commands, run_shell
    from d20cli.language.vocabulary import VERB_HELP

    base = command_options()
    try:
        words, opts = split_options(list(ctx.args))
        if words:
            raise ParseError(f"shell takes options only, not {' '.join(words)[:40]!r}")
    except D20Error as err:
        Output().error(err, base.json or "--json" in ctx.args)
        raise typer.Exit(int(ExitStatus.BAD_INPUT)) from None
    commands = Commands(run_app, lambda: completion_commands(VERB_HELP))
    raise typer.Exit(run_shell(base.merged(opts), commands))
