"""`d20 party`: the characters who roll together (`--as party`), kept in the characters
file as `[party] members = [...]`. A group check through the party gives each member one
roll of their own entry (`d20 group stealth vs 15 --as party`); a contest gives side i to
member i (`d20 contest athletics vs acrobatics --as aria,bob`)."""

from __future__ import annotations

from typing import Annotated

import typer

from d20cli.app.commands.shared import command_errors as _errors
from d20cli.app.commands.shared import command_options, command_output
from d20cli.present.output import Output
from d20cli.visible import visible

app = typer.Typer(
    name="party",
    help=(
        "The party: the characters who roll together. `d20 party add aria bob`, then "
        "`d20 group stealth vs 15 --as party`."
    ),
    invoke_without_command=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["--help", "-h"]},
)


def _show(members: tuple[str, ...], json: bool, out: Output) -> None:
    if json:
        out.json({"party": list(members)})
    elif members:
        out.text("party: " + ", ".join(visible(m) for m in members))
    else:
        out.text("no party yet (d20 party add aria bob)")


@app.callback()
def party_main(
    ctx: typer.Context,
    json: Annotated[bool, typer.Option("--json", help="The party as JSON.")] = False,
) -> None:
    """Show the party (with no command)."""
    if ctx.invoked_subcommand is not None:
        return
    from d20cli.store import characters

    out = command_output()
    with _errors(out):
        members = characters.party()
    _show(members, command_options().json, out)


@app.command("add")
def party_add(
    names: Annotated[list[str], typer.Argument(help="Characters to add, in turn order.")],
) -> None:
    """Add characters to the party: `d20 party add aria bob cleo`."""
    from d20cli.store import characters

    out = command_output()
    with _errors(out):
        members = characters.party_edit(add=names)
    _show(members, False, out)


@app.command("rm")
def party_rm(
    names: Annotated[list[str], typer.Argument(help="Characters to take out of the party.")],
) -> None:
    """Take characters out of the party (they stay characters)."""
    from d20cli.store import characters

    out = command_output()
    with _errors(out):
        members = characters.party_edit(remove=names)
    _show(members, False, out)


@app.command("clear")
def party_clear() -> None:
    """Empty the party."""
    from d20cli.store import characters

    out = command_output()
    with _errors(out):
        members = characters.party_edit(clear=True)
    _show(members, False, out)
