"""The typer application: help pages, the verbs as subcommands, and the other commands.

Each verb command is one line: its words and options go, as typed, to `run.run`,
which parses the options from the shared table (d20cli.app.options) so that the command line,
standard input and the shell accept exactly the same things. `__main__` sends plain verb
requests straight to `run` without building this app, to start quickly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from importlib import import_module
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from d20cli.app.commands import COMMANDS, GROUP, module_of
from d20cli.app.commands.shared import command_options
from d20cli.app.completion import install as completion_install
from d20cli.app.completion.engine import (
    CHARACTERS,
    FILES,
    SHELLS,
    TABLES,
    Command,
    Option,
    request_options,
)
from d20cli.app.options import CommandLine
from d20cli.errors import D20Error, ExitStatus
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
            dynamic = FILES if (p.metavar or "").startswith("FILE") else dynamic  # --page
            options.append(Option(names, str(p.help or ""), takes_value, values, dynamic))
        if name in ("shell", "gm"):  # they take the options of a request
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
        after += (("import", FILES),) if name == "char" else ()  # `char import FILE`
        after += ((TABLE, TABLES),) if name == "odds" else ()  # `odds table NAME`
        after += (("show", TABLES),) if name == TABLE else ()  # `table show NAME`
        help_text = (cmd.short_help or (cmd.help or "").split("\n", 1)[0]).strip()
        dynamic_arg = TABLES if name == TABLE else ""  # `table NAME`
        dynamic_arg = FILES if name == "verify" else dynamic_arg  # `verify LOG` (a file)
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


def command_group() -> Any:
    """The app's click group: its commands' subcommands, arguments and options, as
    `d20 COMMAND --help` shows them (`d20 help COMMAND` and the manual page read it)."""
    import typer.main

    return typer.main.get_command(app)


def _mount() -> None:
    """Mount every command of the registry (d20cli.app.commands), in its order: the module
    the row names makes a typer app, `app`, which is the group `d20 NAME` (GROUP) or holds
    the command NAME (COMMAND), with the row's help unless the command states its own."""
    for row in COMMANDS.values():
        made: typer.Typer = import_module(module_of(row)).app
        if row.mount == GROUP:
            app.add_typer(made, name=row.name, help=row.help)
            continue
        command = next(c for c in made.registered_commands if c.name == row.name)
        command.help = command.help or row.help
        app.registered_commands.append(command)


_mount()
