"""`d20 init ...`: the typer sub-app over d20cli.app.commands.initiative. Each subcommand passes
its words and options, as typed, to `run_init`, which reads them with the shared option
table, so `d20 init add ogre -1` reads -1 as a modifier, and the command line, standard
input and the shell take the same words."""

from __future__ import annotations

from typing import Annotated

import typer

from d20cli.app.commands.initiative import SUBCOMMANDS, WORDS, run_init
from d20cli.app.commands.shared import command_options, command_output, usage_forms

_SETTINGS = {
    "allow_extra_args": True,
    "ignore_unknown_options": True,
    "help_option_names": ["--help", "-h"],
}
_EPILOG = (
    "Options: --system/-s ID (the monsters' system, and the party's unless a character "
    "names its own), --seed N, --dice F,F,... (the party's dice in order, then the "
    "monsters', then roll-off d20s), --as NAME,NAME (who is in the party; default: every "
    "character), --json (the order as one JSON object), --no-color."
)

app = typer.Typer(
    name="init",
    help=(
        "Initiative at the table: `d20 init roll` rolls the party's, `d20 init add goblin "
        "+2 x3` adds monsters, `d20 init` shows the order, `d20 init next` moves the turn. "
        "Order: the higher total, then the higher modifier, then a roll-off (d20s, the "
        "highest first, again while tied)."
    ),
    add_completion=False,
    rich_markup_mode=None,
    context_settings=_SETTINGS,
    epilog=_EPILOG,
    subcommand_metavar="[COMMAND [ARGS]...]",  # bare `d20 init` shows the order
)


def _run(words: list[str]) -> None:
    raise typer.Exit(int(run_init(words, command_options(), command_output())))


@app.callback(invoke_without_command=True)
def init_main(
    ctx: typer.Context,
    json: Annotated[bool, typer.Option("--json", help="The order as one JSON object.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain text.")] = False,
    system: Annotated[str | None, typer.Option("--system", "-s", help="Rule system.")] = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Seed the dice.")] = None,
    dice: Annotated[str | None, typer.Option("--dice", help="Use these faces.")] = None,
    as_: Annotated[str | None, typer.Option("--as", help="The party: NAME,NAME.")] = None,
) -> None:
    """Show the initiative order (the round and whose turn it is)."""
    # options given before the subcommand (`d20 init --as aria,bob roll`) go to it, as
    # typed: run_init reads them with the shared option table
    given = {"--system": system, "--seed": seed, "--dice": dice, "--as": as_}
    ctx.obj = [*(["--json"] if json else []), *(["--no-color"] if no_color else [])]
    ctx.obj += [w for name, value in given.items() if value is not None for w in (name, value)]
    if ctx.invoked_subcommand is None:
        _run([*ctx.args, *ctx.obj])


def _make(sub: str, summary: str) -> None:
    def command(ctx: typer.Context) -> None:
        _run([sub, *ctx.args, *(ctx.obj or [])])

    command.__doc__ = summary
    words = f"{WORDS[sub]} [OPTIONS]".lstrip()
    app.command(
        sub,
        cls=usage_forms(words),
        help=summary,
        epilog=_EPILOG,
        context_settings=_SETTINGS,
    )(command)


for _sub, _summary in SUBCOMMANDS.items():
    _make(_sub, _summary)
