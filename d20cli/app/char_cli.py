"""`d20 char ...` (characters) and `d20 log` (the roll log): thin typer sub-apps over
d20cli.store.characters and d20cli.store.rolllog. Errors are one line on standard error and exit
status 2, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

from d20cli.controls import visible
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.present.output import Output

char_app = typer.Typer(
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

log_app = typer.Typer(
    name="log",
    help="The roll log: recent rolls, exports, and a fairness test of the d20s.",
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["--help", "-h"]},
)


@contextmanager
def _errors(out: Output) -> Iterator[None]:
    try:
        yield
    except D20Error as err:
        out.error(err)
        raise typer.Exit(int(ExitStatus.BAD_INPUT)) from None


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


@char_app.command("add")
def char_add(
    name: Annotated[str, typer.Argument(help="The character's name, e.g. aria.")],
    system: Annotated[
        str | None, typer.Option("--system", "-s", help="The system the character plays.")
    ] = None,
) -> None:
    """Add a character: `d20 char add aria --system levelup`."""
    from d20cli.store import character_edits

    out = Output()
    with _errors(out):
        c = character_edits.add(name, system)
    out.text(f"added {c.name}" + (f" ({c.system})" if c.system else ""))


@char_app.command(
    "set",
    # everything after the key is the value: `-1`, `-n 2` and `--as` inside it are words
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
def char_set(
    name: Annotated[str, typer.Argument(help="The character.")],
    key: Annotated[
        str, typer.Argument(help="ENTRY, GROUP.ENTRY (saves.dex), macros.NAME or system.")
    ],
    value: Annotated[list[str], typer.Argument(help="The request words, e.g. +7 expertise=d6.")],
) -> None:
    """Set an entry, a macro or the system: `d20 char set aria stealth +7 expertise=d6`,
    `d20 char set aria macros.sneak check stealth vs 15 adv`."""
    from d20cli.store import character_edits

    out = Output()
    if value[:1] == ["--"]:  # `char set aria saves.dex -- -1`, as before no `--` was needed
        value = value[1:]
    with _errors(out):
        written = character_edits.set_entry(name, key, value)
    out.text(f"{name}: {written} = {' '.join(value)}")


@char_app.command(
    "unset", context_settings={"ignore_unknown_options": True, "allow_extra_args": False}
)
def char_unset(
    name: Annotated[str, typer.Argument(help="The character.")],
    key: Annotated[
        str, typer.Argument(help="ENTRY, GROUP.ENTRY, macros.NAME or a house key (lucky).")
    ],
) -> None:
    """Remove an entry, a macro or a house key: `d20 char unset aria macros.sneak`,
    `d20 char unset aria lucky`."""
    from d20cli.store import character_edits

    out = Output()
    with _errors(out):
        character_edits.unset_entry(name, key)
    out.text(f"{name}: removed {key}")


@char_app.command("show")
def char_show(
    name: Annotated[str, typer.Argument(help="The character.")],
    json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain text.")] = False,
) -> None:
    """Show a character's entries and macros."""
    from d20cli.store import characters

    out = Output()
    with _errors(out):
        data = characters.show(name)
    if json:
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
    _console(out, no_color).print(table)


@char_app.command("list")
def char_list(
    json: Annotated[bool, typer.Option("--json", help="A JSON array.")] = False,
) -> None:
    """List the characters."""
    from d20cli.store import characters

    out = Output()
    with _errors(out):
        found = characters.list_characters()
    if json:
        out.json([c.to_json() for c in found])
        return
    if not found:
        out.text(f"no characters yet (d20 char add NAME --system ID; file: {_path()})")
        return
    for c in found:
        entries, macros = len(c.entry_names()), len(c.macros)
        out.text(f"{c.name:<16} {c.system or '-':<10} {entries} entries, {macros} macros")


def _path() -> str:
    from d20cli.store.characters import characters_path

    return str(characters_path())


@char_app.command("rm")
def char_rm(name: Annotated[str, typer.Argument(help="The character to remove.")]) -> None:
    """Remove a character."""
    from d20cli.store import character_edits

    out = Output()
    with _errors(out):
        character_edits.remove(name)
    out.text(f"removed {name}")


@char_app.command("path")
def char_path() -> None:
    """Print where the characters file is (edit it by hand if you like)."""
    Output().text(_path())


# --- d20 log ----------------------------------------------------------------------------

#: What `log --export` writes (completion offers these).
EXPORT_FORMATS: tuple[str, ...] = ("json", "csv")


@log_app.callback(invoke_without_command=True)
def log_main(
    limit: Annotated[int, typer.Option("--limit", "-l", min=1, help="How many rolls.")] = 20,
    character: Annotated[
        str | None, typer.Option("--character", "-c", help="Only this character's rolls.")
    ] = None,
    stats: Annotated[
        bool, typer.Option("--stats", help="Fairness of the d20s: face counts, chi-square.")
    ] = False,
    export: Annotated[
        str | None, typer.Option("--export", help="Print every roll as json or csv.")
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Delete the logged rolls.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="With --clear: do not ask.")] = False,
    json: Annotated[bool, typer.Option("--json", help="JSON instead of a table.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain text.")] = False,
) -> None:
    """Show recent rolls; --stats tests the d20s, --export json|csv prints them all."""
    from d20cli.store import rolllog
    from d20cli.store.state import shared

    out = Output()
    with _errors(out):
        if sum((stats, export is not None, clear)) > 1:
            raise ParseError("use one of --stats, --export and --clear at a time")
        if export is not None and export.lower() not in EXPORT_FORMATS:
            raise ParseError(f"--export takes json or csv, not {export!r}")
        store = shared(out.warn)
        if clear:
            who = f"{character}'s" if character else "all"
            n = rolllog.count(store, character)
            question = visible(f"delete {who} {n:,} logged rolls?")
            if not yes and not typer.confirm(question, default=False):
                raise typer.Exit(int(ExitStatus.OK))
            out.text(f"deleted {store.clear_rolls(character):,} rolls")
        elif export is not None:
            _export(store, export.lower(), character, out)
        elif stats:
            _stats(store, character, out, json, no_color)
        else:
            _recent(store, limit, character, out, json, no_color)


def _recent(
    store: Any, limit: int, character: str | None, out: Output, json: bool, no_color: bool
) -> None:
    from d20cli.store import rolllog

    found = rolllog.recent(store, limit, character)
    if json:
        out.json([r.to_json() for r in found])
        return
    if not found:
        out.text("no rolls logged yet" + (f" for {character}" if character else ""))
        return
    from rich.table import Table

    table = Table()
    for column in ("time (UTC)", "character", "system", "request", "total", "outcome"):
        table.add_column(column, justify="right" if column == "total" else "left")
    for r in found:
        table.add_row(
            r.at.replace("T", " ")[:19],
            _cell(r.character or ""),
            _cell(r.system),
            _cell(r.request),
            "" if r.total is None else str(r.total),
            _cell(r.outcome or ""),
        )
    _console(out, no_color).print(table)


def _export(store: Any, kind: str, character: str | None, out: Output) -> None:
    import json as json_module

    from d20cli.store import rolllog

    stream = out.stdout
    if kind == "json":
        stream.write("[")
        for i, r in enumerate(rolllog.rows(store, character)):
            stream.write(("," if i else "") + "\n" + json_module.dumps(r.to_json()))
        stream.write("\n]\n")
    else:
        import csv

        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(rolllog.COLUMNS)
        for r in rolllog.rows(store, character):
            writer.writerow(rolllog.csv_row(r))
    stream.flush()


def _stats(store: Any, character: str | None, out: Output, json: bool, no_color: bool) -> None:
    from d20cli.store import rolllog

    found = rolllog.fairness(store, character)
    if json:
        out.json([f.to_json() for f in found])
        return
    if not found:
        out.text("no d20s logged yet" + (f" for {character}" if character else ""))
        return
    from rich.table import Table

    console = _console(out, no_color)
    for f in found:
        p = f.p_value
        title = (
            f"{f.character or '(no character)'}: {f.rolls:,} d20s, "
            f"chi-square {f.chi_square:.2f} (19 df), p = {p:.4f}"
            if p is not None
            else f"{f.character or '(no character)'}: no d20s"
        )
        table = Table(
            title=_cell(title), title_justify="left", caption=f.verdict, caption_justify="left"
        )
        table.add_column("face", justify="right")
        table.add_column("count", justify="right")
        table.add_column("expected", justify="right")
        table.add_column("")
        top = max(f.counts) or 1
        for face, n in enumerate(f.counts, 1):
            bar = "█" * round(30 * n / top)
            table.add_row(str(face), f"{n:,}", f"{f.expected:,.1f}", bar)
        console.print(table)
