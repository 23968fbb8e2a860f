"""`d20 table ...` as the typer app shows it: its usage forms and options for `d20 table
--help`. The runner reads a table line itself (d20cli.app.commands.table); this command
hands it there when the typer app is the reader (the shell)."""

from __future__ import annotations

import typer

from d20cli.app.commands.shared import command_options, usage_forms
from d20cli.present.output import Output

#: `d20 table --help` (its first line is the registry's one line of help).
HELP = """Roll tables: roll one (table NAME), list, show or check them.

A table is NAME.toml in $XDG_CONFIG_HOME/d20cli/tables/ (or a file's path): a
die and [entries] ("1-3" = "{1d4} rats"), or [[entry]] tables with weight and
text. Braces in an entry roll dice ({2d6}), another table ({table:NAME}) or a
request ({check +5 vs 15}, with the table's system). --dice gives the faces in
roll order: the table's die, then each roll in the entry, left to right, a nested
table's rolls before the next. The README's "Roll tables" section has the rest.

Examples:

  d20 table loot

  d20 table examples/tables/road.toml --repeat 3 --seed 7

  d20 table list

  d20 table show loot

  d20 table check loot.toml

  d20 odds table loot
"""

app = typer.Typer()


def _table_options(width: int) -> list[str]:
    """The options of `d20 table NAME`, as `d20 VERB --help` groups them."""
    from d20cli.app.help import option_lines

    return option_lines("table", width)[1:]  # (its first line is blank)


@app.command(
    "table",
    help=HELP,
    cls=usage_forms(
        "NAME|FILE [OPTIONS]", "list", "show NAME|FILE", "check FILE...", epilog=_table_options
    ),
    context_settings={
        "allow_extra_args": True,
        "ignore_unknown_options": True,
        "help_option_names": ["--help", "-h"],
    },
)
def table_command(ctx: typer.Context) -> None:
    """`d20 table ...`: the line to the runner (d20cli.app.run)."""
    from d20cli.app.run import run

    outcome = run(["table", *ctx.args], command_options(), Output())
    raise typer.Exit(int(outcome.status))
