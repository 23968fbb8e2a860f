"""`d20 char ...` (characters): a thin typer sub-app over d20cli.store.characters, and the
helpers it shares with `d20 log` (d20cli.app.commands.log). Errors are one line on standard error
and exit status 2, never a traceback."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from d20cli.app.commands.shared import command_errors as _errors
from d20cli.app.commands.shared import command_options, command_output
from d20cli.present.output import Output
from d20cli.visible import visible

app = typer.Typer(
    name="char",
    help=(
        "Characters: named modifiers and macros, kept in characters.toml in the config "
        "directory. Roll as one with `--as NAME`: `d20 check stealth vs 15 --as aria`."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["--help", "-h"]},
)


def _cell(text: str) -> str:
    """Text from a file or a user in a rich table: control characters made visible, square
    brackets escaped so that they are never read as markup."""
    from rich.markup import escape

    return escape(visible(text))


def _console(out: Output, no_color: bool = False) -> Any:
    if no_color and out.color:
        out = out.without_color()
    return out.console()


# --- d20 char ---------------------------------------------------------------------------


@app.command("add")
def char_add(
    name: Annotated[str, typer.Argument(help="The character's name, e.g. aria.")],
    system: Annotated[
        str | None, typer.Option("--system", "-s", help="The system the character plays.")
    ] = None,
) -> None:
    """Add a character: `d20 char add aria --system levelup`."""
    from d20cli.store import characters

    out = command_output()
    with _errors(out):
        c = characters.add(name, command_options().system)  # `d20 -s mm char add` too
    out.text(f"added {c.name}" + (f" ({c.system})" if c.system else ""))


@app.command(
    "set",
    # everything after the key is the value: `-1`, `-n 2` and `--as` inside it are words
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
def char_set(
    name: Annotated[str, typer.Argument(help="The character.")],
    key: Annotated[
        str,
        typer.Argument(
            help="ENTRY, GROUP.ENTRY (saves.dex), macros.NAME, system, or a house key: "
            "lucky, crit, min, crit-dmg, group."
        ),
    ],
    value: Annotated[
        list[str] | None, typer.Argument(help="The request words, e.g. +7 expertise=d6.")
    ] = None,
) -> None:
    """Set an entry, a macro, the system or a house rule for all of the character's
    rolls: `d20 char set aria stealth +7 expertise=d6`, `d20 char set aria macros.sneak
    check stealth vs 15 adv`, `d20 char set aria lucky`, `d20 char set aria crit 19`."""
    from d20cli.store import characters

    out = command_output()
    value = value or []  # `char set aria lucky`: a house key alone
    if value[:1] == ["--"]:  # `char set aria saves.dex -- -1`, as before no `--` was needed
        value = value[1:]
    with _errors(out):
        written = characters.set_entry(name, key, value)
    out.text(f"{name}: {written} = {' '.join(value) or 'true'}")  # `char set aria lucky`


@app.command("unset", context_settings={"ignore_unknown_options": True, "allow_extra_args": False})
def char_unset(
    name: Annotated[str, typer.Argument(help="The character.")],
    key: Annotated[
        str, typer.Argument(help="ENTRY, GROUP.ENTRY, macros.NAME or a house key (lucky).")
    ],
) -> None:
    """Remove an entry, a macro or a house key: `d20 char unset aria macros.sneak`,
    `d20 char unset aria lucky`."""
    from d20cli.store import characters

    out = command_output()
    with _errors(out):
        characters.unset_entry(name, key)
    out.text(f"{name}: removed {key}")


@app.command("show")
def char_show(
    name: Annotated[str, typer.Argument(help="The character.")],
    json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain text.")] = False,
) -> None:
    """Show a character's entries and macros."""
    from d20cli.store import characters

    out = command_output()
    with _errors(out):
        data = characters.show(name)
    if command_options().json:
        out.json(data)
        return
    from rich.table import Table

    title = _cell(f"{data['name']}  [{data['system'] or 'any system'}]")
    table = Table(title=title, title_justify="left")
    table.add_column("entry")
    table.add_column("words")
    table.add_column("group")
    for key, words in data["entries"].items():
        table.add_row(_cell(key), _cell(words), "")
    for group, entries in data["groups"].items():
        for key, words in entries.items():
            table.add_row(_cell(key), _cell(words), _cell(group))
    for key, words in data["macros"].items():
        table.add_row(_cell(key), _cell(words), "macro")
    for key, value in data.get("house", {}).items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        table.add_row(_cell(key), _cell(shown), "house")
    _console(out, no_color).print(table)


@app.command("list")
def char_list(
    json: Annotated[bool, typer.Option("--json", help="A JSON array.")] = False,
) -> None:
    """List the characters."""
    from d20cli.store import characters

    out = command_output()
    with _errors(out):
        found = characters.list_characters()
    if command_options().json:
        out.json([c.to_json() for c in found])
        return
    if not found:
        out.text(f"no characters yet (d20 char add NAME --system ID; file: {_path()})")
        return
    out.text(f"{'character':<16} {'system':<10} entries and macros")
    for c in found:
        entries, macros = len(c.entry_names()), len(c.macros)
        counts = f"{entries} {'entry' if entries == 1 else 'entries'}, "
        counts += f"{macros} macro{'' if macros == 1 else 's'}"
        out.text(f"{c.name:<16} {c.system or '-':<10} {counts}")


def _path() -> str:
    from d20cli.store.characters import characters_path

    return str(characters_path())


@app.command("rm")
def char_rm(name: Annotated[str, typer.Argument(help="The character to remove.")]) -> None:
    """Remove a character (from the party and the initiative order too)."""
    from d20cli.store import characters

    out = command_output()
    with _errors(out):
        gone = characters.remove(name)
    out.text(f"removed {visible(gone)}")
    with _errors(out):
        _leave_order(gone, out)


def _leave_order(name: str, out: Output) -> None:
    """Take a removed character out of the initiative order, when it is there (the turn
    passes on if it was theirs)."""
    from d20cli.store import initiative
    from d20cli.store.state import State, db_path

    if not db_path().exists():  # nothing kept yet: no order to leave
        return
    state = State.open(None, out.warn)
    try:
        left = initiative.remove_character(state, name)
    finally:
        state.close()
    if left is not None:
        turn = f": {visible(left.turn)}'s turn" if left.turn else ""
        out.text(f"removed {visible(name)} from the initiative order{turn}")


@app.command("use")
def char_use(
    name: Annotated[
        str | None, typer.Argument(help="The character (or party, or aria,bob); none stops.")
    ] = None,
) -> None:
    """Roll as a character when a request gives no --as: `d20 char use aria` (kept in the
    config file as `character`; D20_CHARACTER beats it, `--as none` skips it for one
    request); `d20 char use none` stops; with no name, say who it is."""
    from d20cli.store import characters, config

    out = command_output()
    with _errors(out):
        if name is None:
            who = config.default_character()
            out.text(f"using {visible(who)}" if who else "no character in use (d20 char use NAME)")
            return
        if name.strip().lower() == "none":
            if config.load_config().character is not None:
                config.unset_key("character")
            out.text("no character in use")
            return
        _, value, left = config.set_key("character", name, characters.config_value)
    out.text(f"using {visible(str(value))}: a request without --as rolls as {visible(str(value))}")
    if left is not None:
        out.warn(left)


@app.command("import")
def char_import(
    file: Annotated[str, typer.Argument(help="The sheet: a JSON file another program exported.")],
    as_: Annotated[
        str | None,
        typer.Option("--as", help="The character's name (default: the sheet's, as a name)."),
    ] = None,
    system: Annotated[
        str | None,
        typer.Option(
            "--system", "-s", help="The system (the sheet's: levelup or mm); changes a character's."
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what the import would do; write nothing.")
    ] = False,
    json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain text.")] = False,
) -> None:
    """Import a character from a sheet another program saved: a Foundry VTT Level Up A5E
    or Mutants & Masterminds 3e actor (its Export Data), or a D&D Beyond character's JSON.
    Makes or updates the character with an entry for every check, save, skill, initiative
    and attack; entries you wrote by hand stay: `d20 char import aria.json --as aria`."""
    from d20cli.store.character_import import import_file

    out = command_output()
    with _errors(out):
        done = import_file(file, as_, system or command_options().system, dry_run)
    if command_options().json:
        out.json(done.to_json())
        return
    _import_report(done, out, no_color)


def _import_report(done: Any, out: Output, no_color: bool) -> None:
    """What an import made, for people: the format, a table of the entries, what was not
    mapped and why, and what changed in the file."""
    from rich.table import Table

    sheet, changes = done.sheet, done.changes
    name = visible(changes.name)
    out.text(f"found a {sheet.format_name} (schema {sheet.version}): '{visible(sheet.name[:60])}'")
    table = Table(title=_cell(f"{changes.name}  [{sheet.system}]"), title_justify="left")
    table.add_column("entry")
    table.add_column("words")
    table.add_column("from the sheet")
    for entry in sheet.entries:
        table.add_row(_cell(entry.key), _cell(entry.words), _cell(entry.source))
    console = _console(out, no_color)
    console.print(table)
    if sheet.not_mapped:
        out.text(f"not mapped ({len(sheet.not_mapped)}):")
        for n in sheet.not_mapped:
            out.text(f"  {visible(n.field)}: {visible(n.reason)}")
    for key, words in changes.added if not changes.created else ():
        out.text(f"added {visible(key)} = {visible(words)}")
    for key, was, words in changes.changed:
        out.text(f"changed {visible(key)}: {visible(was)} -> {visible(words)}")
    for key, words in changes.removed:
        out.text(f"removed {visible(key)} (no longer on the sheet; was {visible(words)})")
    for key, mine, words in changes.kept:
        said = f" (the sheet: {visible(words)})" if words else " (no longer on the sheet)"
        out.text(f"kept your {visible(key)} = {visible(mine)}{said}")
    count = len(sheet.entries) - len(changes.kept)
    if done.dry_run:
        out.text(f"dry run: {name} not written ({count} entries would be)")
    elif changes.created:
        out.text(f"made {name} ({sheet.system}): {count} entries")
    else:
        moved = len(changes.added) + len(changes.changed) + len(changes.removed)
        out.text(
            f"updated {name}: {moved} changed, {changes.unchanged} as they were, "
            f"{len(changes.kept)} of yours kept"
        )


@app.command("export")
def char_export(
    name: Annotated[str, typer.Argument(help="The character.")],
    format: Annotated[
        str, typer.Option("--format", "-f", help="toml, json or md (a card to print or paste).")
    ] = "toml",
) -> None:
    """A character's entries as a file of its own: TOML (as characters.toml keeps it), JSON,
    or a Markdown card to print or paste: `d20 char export aria --format md > aria.md`."""
    from d20cli.store import character_export, characters

    out = command_output()
    with _errors(out):
        character = characters.load(name)
        text = character_export.export(character, format)
    out.text(text.rstrip("\n"))


@app.command("path")
def char_path() -> None:
    """Print where the characters file is (edit it by hand if you like)."""
    command_output().text(_path())
