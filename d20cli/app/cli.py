"""The typer application: help pages, the verbs as subcommands, and the other commands.

Each verb command is one line: its words and options go, as typed, to `run.run`,
which parses the options from the shared table (d20cli.app.options) so that the command line,
standard input and the shell accept exactly the same things. `__main__` sends plain verb
requests straight to `run` without building this app, to start quickly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from d20cli.app.commands import COMMANDS
from d20cli.app.commands.shared import command_options, command_output, usage_forms
from d20cli.app.completion import install as completion_install
from d20cli.app.completion.engine import (
    CHARACTERS,
    SHELLS,
    TABLES,
    Command,
    Option,
    request_options,
)
from d20cli.app.options import CommandLine
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.language.vocabulary import TABLE, TABLE_ACTIONS, VERB_HELP
from d20cli.present.output import Output


class _Panels(TyperGroup):
    """The app's group: `d20 --help` lists its commands in their panels (their
    rich_help_panel, set by d20cli.app.commands.shared.tidy_help), the request verbs first and the
    others in the order d20cli.app.commands.PANELS gives."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        from d20cli.app.commands import PANELS

        panels: dict[str, list[tuple[str, str]]] = {title: [] for title in PANELS}
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                title = getattr(command, "rich_help_panel", None) or "Commands"
                panels.setdefault(title, []).append((name, command.get_short_help_str(10**6)))
        for title, rows in panels.items():
            if rows:
                listed = PANELS.get(title, ())
                rows.sort(key=lambda row: listed.index(row[0]) if row[0] in listed else -1)
                with formatter.section(title):
                    formatter.write_dl(rows)


app = typer.Typer(
    name="d20",
    cls=_Panels,
    help=(
        "A dice roller for d20 tabletop games.\n\n"
        "d20 VERB WORDS... [OPTIONS] rolls one request, e.g. `d20 check +5 vs 15 adv "
        "expertise=d6 --system levelup`; a bare dice expression is a roll (`d20 2d6+3`). "
        "With no arguments on a terminal it opens the "
        "interactive shell; with standard input it runs one request per line. "
        "`d20 help VERB` explains the words a verb takes in each system; `d20 VERB --help` "
        "shows its options; `d20 systems` lists the rule systems; `d20 odds VERB ...` gives "
        "the exact odds instead of a roll.\n\n"
        "Every command takes --no-log, --no-color, --color WHEN and --system/-s ID."
    ),
    epilog=(
        "Exit status: 0 done; 1 a failed outcome with --exit-status; 2 bad input "
        "(one line on stderr says what and where); 3 the roll log could not be written; "
        "130 interrupted."
    ),
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["--help", "-h"]},
)


def _make_verb(verb: str, summary: str, examples: tuple[str, ...]) -> None:
    def command(ctx: typer.Context) -> None:
        from d20cli.app.run import run

        outcome = run([verb, *ctx.args], command_options(), Output())
        raise typer.Exit(int(outcome.status))

    command.__doc__ = summary
    app.command(
        verb,
        help=summary,
        add_help_option=False,  # `--help` goes to run.run: the verb's own help
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    )(command)


for _verb, (_summary, _examples) in VERB_HELP.items():
    _make_verb(_verb, _summary, _examples)


def _version(value: bool) -> None:
    if value:
        from d20cli import version

        typer.echo(f"d20 {version()}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main_callback(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """A dice roller for d20 tabletop games."""
    if ctx.invoked_subcommand is None:
        from d20cli.app.stdin import run_stdin

        if sys.stdin.isatty():
            typer.echo(ctx.get_help())
            raise typer.Exit()
        raise typer.Exit(int(run_stdin(command_options())))


def _add_sub_apps() -> None:
    from d20cli.app.commands.char import char_app
    from d20cli.app.commands.config import config_app
    from d20cli.app.commands.log import log_app
    from d20cli.app.commands.party import party_app

    app.add_typer(char_app, name="char", help=COMMANDS["char"])
    app.add_typer(party_app, name="party", help=COMMANDS["party"])
    app.add_typer(log_app, name="log", help=COMMANDS["log"])
    app.add_typer(config_app, name="config", help=COMMANDS["config"])
    from d20cli.app.commands.init import init_app

    app.add_typer(init_app, name="init", help=COMMANDS["init"])


_add_sub_apps()


@app.command("systems", help=COMMANDS["systems"])
def systems_command(
    json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
    system: Annotated[
        str | None,
        typer.Option("--system", "-s", metavar="ID", help="Show only this system."),
    ] = None,
) -> None:
    """List the rule systems with their verbs, outcome tiers and an example per verb."""
    from d20cli.app.commands.shared import command_errors
    from d20cli.present.systems_view import show_systems
    from d20cli.rules import system_id

    out, opts = command_output(), command_options()  # `d20 -s mm systems` too
    with command_errors(out):
        only = system_id(opts.system) if opts.system is not None else None
    show_systems(out, opts.json, only)


def _table_options(width: int) -> list[str]:
    """The options of `d20 table NAME`, as `d20 VERB --help` groups them."""
    from d20cli.app.help import option_lines

    return option_lines("table", width)[1:]  # (its first line is blank)


@app.command(
    "table",
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
    """Roll tables: roll one (table NAME), list, show or check them.

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
    from d20cli.app.run import run

    outcome = run(["table", *ctx.args], command_options(), Output())
    raise typer.Exit(int(outcome.status))


def run_app(argv: list[str]) -> int:
    """Run the typer app on argv (without the program name); return the exit status."""
    from d20cli.app.options import read_command_line

    return run_command(read_command_line(argv, lambda command, helping: True))


def run_command(line: CommandLine) -> int:
    """Run the typer app on a command line read by d20cli.app.options; return the exit
    status. The options every command takes, and errors in the program's own style, are
    d20cli.app.commands.shared's."""
    import typer.main
    from typer import Abort
    from typer._click.exceptions import ClickException, UsageError

    from d20cli.app.commands.shared import tidy_help, typer_line, usage_error
    from d20cli.present.help_view import help_width

    out = Output()
    argv = list(line.tokens)
    try:
        if line.error is not None:
            raise line.error
        group: Any = typer.main.get_command(app)
        tidy_help(group)
        args, opts = typer_line(group, line)
        width = help_width()  # the terminal's, as every help page (click's stops at 80)
        code = group.main(
            args=args,
            prog_name="d20",
            standalone_mode=False,
            obj=opts,
            terminal_width=width,
            max_content_width=width,
        )
    except UsageError as err:
        if type(err).__name__ == "NoArgsIsHelpError" and err.ctx is not None:
            typer.echo(err.ctx.get_help())  # `d20 char`: its help, as with --help
            return 0
        out.error(usage_error(err, argv), line.json())
        return int(ExitStatus.BAD_INPUT)
    except ClickException as err:
        out.error(D20Error(err.format_message()), line.json())
        return int(ExitStatus.BAD_INPUT)
    except D20Error as err:
        out.error(err, line.json())
        return int(ExitStatus.BAD_INPUT)
    except Abort:
        return 1
    except SystemExit as stop:
        code = stop.code
    if code is None:
        return 0
    return code if isinstance(code, int) else int(ExitStatus.BAD_INPUT)


@app.command(
    "shell",
    cls=usage_forms("[OPTIONS]"),
    help=COMMANDS["shell"] + " Takes the options of a request, for the whole session "
    "(-s ID, --seed N, --json, --no-log, ...).",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def shell_command(ctx: typer.Context) -> None:
    """The interactive shell: one request per line, TAB completion, history, `again`."""
    from d20cli.app.options import split_options
    from d20cli.app.shell import Commands, run_shell

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


def completion_commands(verbs: Iterable[str]) -> tuple[Command, ...]:
    """The typer app's commands that are not verbs, with their options and subcommands, and
    what their values name (the system ids, characters, roll tables, export formats)."""
    import typer.main

    from d20cli.app.commands.log import EXPORT_FORMATS
    from d20cli.language.vocabulary import SYSTEM_IDS

    group: Any = typer.main.get_command(app)
    skip = set(verbs)
    out: list[Command] = []
    for name, cmd in group.commands.items():
        if name in skip or getattr(cmd, "hidden", False):
            continue
        options: list[Option] = []
        arguments: tuple[str, ...] = ()
        for p in cmd.params:
            if p.param_type_name == "argument":
                choices = getattr(getattr(p, "type", None), "choices", None)
                if choices and not arguments:
                    arguments = tuple(str(c) for c in choices)
                continue
            names = tuple(n for n in (*p.opts, *p.secondary_opts) if n.startswith("-"))
            takes_value = not getattr(p, "is_flag", False)
            values = SYSTEM_IDS if "--system" in names else ()
            values = EXPORT_FORMATS if "--export" in names else values
            dynamic = CHARACTERS if {"--as", "--character"} & set(names) else ""
            options.append(Option(names, str(p.help or ""), takes_value, values, dynamic))
        if name == "shell":  # it takes the options of a request
            options = list(request_options())
        if name == "completion":
            arguments = SHELLS
        if name == "odds":
            arguments = ("compare", TABLE)  # `odds compare "A" "B"`, `odds table NAME`
        if name == TABLE:
            arguments = TABLE_ACTIONS
        subs: dict[str, Any] = dict(getattr(cmd, "commands", {}) or {})
        after = tuple(  # `char show NAME`, `char rm NAME`: an existing character's name
            (sub, CHARACTERS)
            for sub, c in subs.items()
            if sub != "add"
            and any(p.param_type_name == "argument" and p.name == "name" for p in c.params[:1])
        )
        after += ((TABLE, TABLES),) if name == "odds" else ()  # `odds table NAME`
        after += (("show", TABLES),) if name == TABLE else ()  # `table show NAME`
        help_text = (cmd.short_help or (cmd.help or "").split("\n", 1)[0]).strip()
        dynamic_arg = TABLES if name == TABLE else ""  # `table NAME`
        out.append(
            Command(name, help_text, tuple(options), arguments, tuple(subs), dynamic_arg, after)
        )
    return tuple(out)


def completion_script(shell: str, install: bool = False) -> str:
    """The completion script for `shell` (or, with `install`, the message saying where it
    was installed), with this app's commands."""
    commands = completion_commands(VERB_HELP)
    if install:
        return completion_install.install_script(shell, commands)
    return completion_install.script(shell, commands)


@app.command("completion", help=COMMANDS["completion"])
def completion_command(
    shell: Annotated[str, typer.Argument(help="bash, zsh or fish")] = "bash",
    install: Annotated[
        bool, typer.Option("--install", help="Install it for your shell (writes a file).")
    ] = False,
) -> None:
    """Print the completion script for bash, zsh or fish (or --install it)."""

    try:
        text = completion_script(shell, install)
    except D20Error as err:
        Output().error(err)
        raise typer.Exit(int(ExitStatus.BAD_INPUT)) from None
    if install:
        typer.echo(text)
    else:
        sys.stdout.write(text)


@app.command(
    "odds",
    help=COMMANDS["odds"],
    add_help_option=False,
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def odds_command(ctx: typer.Context) -> None:
    """The exact probability of every outcome of a request, instead of a roll."""
    from d20cli.app.run import run

    raise typer.Exit(int(run(["odds", *ctx.args], command_options(), Output()).status))


@app.command(
    "help",
    help=COMMANDS["help"],
    add_help_option=False,
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def help_command(ctx: typer.Context) -> None:
    """The words each verb takes, per system, with examples: d20 help [VERB]."""
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


def command_group() -> Any:
    """The app's click group: its commands' subcommands, arguments and options, as
    `d20 COMMAND --help` shows them (`d20 help COMMAND` and the manual page read it)."""
    import typer.main

    return typer.main.get_command(app)


def _add_seal_commands() -> None:
    from d20cli.app.commands.seal import register

    register(app)  # seal, unseal, verify (after the others in `d20 --help`)


_add_seal_commands()
