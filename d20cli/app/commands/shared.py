"""The edge of the typer commands (`systems`, `char`, `log`, `shell`, `completion`, and any
command added later): one set of global options and one error style for all of them.

Global options. `--no-log`, `--no-color`, `--color=WHEN` and `--system/-s ID` (and
`--json`, where the command has JSON output) are accepted anywhere on the line of every
command, read by the one reader of options (d20cli.app.options, which reads the command
line once). Those before the command's name, and those after it that the command does
not declare itself, become the Options the command is given (ctx.obj, read with
`command_options` and `command_output`); a command that declares one (`char add
--system`, `systems --json`) gets it as declared, and one that takes its words through
(`shell`, `init`) reads them itself. No option travels through the environment: the
environment holds only what the user set (D20_SYSTEM, NO_COLOR, ...). So a new command
gets them with no code of its own.

Errors. What typer would print as "Usage: ... Error: No such option" is written in the
program's own style instead: `d20: error: ...`, a "did you mean" for a mistyped option
or command, the command line with a caret under the bad word, exit status 2.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from d20cli.app.options import (
    NO_OPTIONS,
    OPTIONS,
    CommandLine,
    Options,
    OptionSpec,
    did_you_mean,
    int_value,
    option_spec,
    read_command,
)
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.frozen import replace
from d20cli.present.output import Output


@contextmanager
def command_errors(out: Output) -> Iterator[None]:
    """The body of a typer command: a D20Error it raises is one line on standard error
    (d20's style) and exit status 2."""
    try:
        yield
    except D20Error as err:
        out.error(err, command_options().json)
        import typer

        raise typer.Exit(int(ExitStatus.BAD_INPUT)) from None


#: The Options fields every command accepts.
GLOBAL_FIELDS: tuple[str, ...] = ("no_log", "no_color", "color", "system", "json")


def command_path(group: Any, argv: Sequence[str]) -> list[Any]:
    """The click commands `argv` names, outermost first (`char show` -> [app, char, show]):
    each word that names a subcommand of the one before it (options and the values of
    the option table's options may come between)."""
    path = [group]
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            break
        commands = getattr(path[-1], "commands", None)
        if token.startswith("-"):
            spec = option_spec(token)
            if spec is not None and spec.value is not None and token in spec.names:
                next(tokens, None)  # its value
            continue
        if not commands or token not in commands:
            break
        path.append(commands[token])
    return path


def _declared(path: Sequence[Any]) -> set[str]:
    names: set[str] = set()
    for command in path:
        for param in getattr(command, "params", ()):
            names.update(getattr(param, "opts", ()))
            names.update(getattr(param, "secondary_opts", ()))
    return names


def _takes_words(command: Any) -> bool:
    settings = getattr(command, "context_settings", None) or {}
    return bool(settings.get("allow_extra_args") and settings.get("ignore_unknown_options"))


def typer_line(group: Any, line: CommandLine) -> tuple[list[str], Options]:
    """What typer reads of `line` (a command of the typer app), and the Options its
    commands are given (ctx.obj): the program's options (--no-log, --no-color, --color,
    --system, --json) typed before the command's name, and those after it that the
    command does not declare itself; a command that declares one (`char add --system`,
    `char show --json`) reads it as its own, and one that takes its words through
    (`shell`, `init`) reads them all. ParseError for a bad value, or --json on a command
    with no JSON output."""

    def takes(spec: OptionSpec, name: str, words: Sequence[str]) -> bool:
        if spec.field not in GLOBAL_FIELDS:
            return False
        command = command_path(group, [line.command, *words])[-1]
        return not _takes_words(command) and name not in _declared([command])

    rest, more = read_command(line.rest, takes)
    opts = line.opts.merged(more)
    args = [*line.asked, *([line.command] if line.command else []), *rest]
    path = command_path(group, args)
    if line.asked or _takes_words(path[-1]) or getattr(path[-1], "commands", None):
        return args, opts  # help; a command that reads its words; typer's unknown command
    command = " ".join(c.name for c in path[1:] if getattr(c, "name", None))
    if opts.json and "--json" not in _declared(path):
        raise ParseError(f"--json: `d20 {command}` has no JSON output")
    for spec in OPTIONS:  # a request's option typed before the command: never ignored
        if spec.field not in GLOBAL_FIELDS and getattr(opts, spec.field) != getattr(
            NO_OPTIONS, spec.field
        ):
            raise ParseError(f"{spec.names[0]} is not an option of `d20 {command}`")
    return args, opts


def command_options() -> Options:
    """The Options of the typer command that runs: the program's options read off the
    line (ctx.obj), with the ones the command declares itself (--json, --system,
    --no-color: its parameters of those names) over them."""
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    if ctx is None:
        return NO_OPTIONS
    root = ctx.find_root().obj
    opts = root if isinstance(root, Options) else NO_OPTIONS
    given = {
        name: value
        for c in _contexts(ctx)
        for name, value in c.params.items()
        if name in ("json", "system", "no_color") and value not in (None, False)
    }
    return replace(opts, **given) if given else opts


def _contexts(ctx: Any) -> list[Any]:
    found = []
    while ctx is not None:
        found.append(ctx)
        ctx = ctx.parent
    return found[::-1]


def command_output() -> Output:
    """The output of the typer command that runs, in colour or not as its options say
    (--color, --no-color; else NO_COLOR, FORCE_COLOR, the config file, the terminal)."""
    choice = command_options().color_choice()
    return Output(color=None if choice == "auto" else choice == "always")


def _located(message: str, argv: Sequence[str], word: str | None) -> D20Error:
    """A ParseError with the command line and a caret under `word` (when it is there); a
    URL in it masked (`options.secret_masked`: a webhook's holds its key)."""
    from d20cli.app.options import secret_masked

    argv = secret_masked(argv)
    line = " ".join(["d20", *argv])
    if word:
        column = 5
        for token in argv:
            joined = len(word) == 2 and token[:2] == word and not token.startswith("--")
            if token == word or token.split("=", 1)[0] == word or joined:  # `-l0` too
                return ParseError(message, line, column)
            column += len(token) + 1
    return ParseError(message)


def usage_error(err: Any, argv: Sequence[str]) -> D20Error:
    """typer's (click's) usage error as the program's own: what, a "did you mean", and a
    caret under the bad word."""
    kind = type(err).__name__
    ctx = getattr(err, "ctx", None)
    command = getattr(ctx, "command", None)
    if kind == "NoSuchOption":
        name = str(err.option_name)
        known = sorted(_declared([command])) if command is not None else []
        hint = did_you_mean(name, known) or (
            f" (d20 {ctx.command_path.removeprefix('d20').strip()} --help lists the options)"
            if ctx is not None
            else ""
        )
        return _located(f"unknown option {name[:40]}{hint}", argv, name)
    message = str(err.format_message()).strip().rstrip(".")
    if message.startswith("No such command"):
        word = message.split("'")[1] if "'" in message else ""
        known = list(getattr(command, "commands", {}) or {})
        hint = did_you_mean(word, known) or (f" (commands: {', '.join(known)})" if known else "")
        return _located(f"unknown command {word[:40]!r}{hint}", argv, word)
    param = getattr(err, "param", None)
    if kind == "BadParameter" and param is not None:
        return _bad_value(param, argv)
    where = f"d20 {ctx.command_path.removeprefix('d20').strip()}: " if ctx is not None else ""
    needs = re.fullmatch(r"Option '(\S+)' requires an argument", message)
    if needs:
        return _located(f"{needs[1]} needs a value", argv, needs[1])
    flag = re.fullmatch(r"Option '(\S+)' does not take a value", message)
    if flag:  # as the option table says it
        return _located(f"{flag[1]} takes no value", argv, flag[1])
    extra = re.fullmatch(r"Got unexpected extra argument(?:s|\(s\))? \((.*)\)", message)
    if extra:  # the words after the command's own
        more = f"{where[:-2]} --help shows what it takes" if where else "see --help"
        return _located(f"{where}unexpected {extra[1][:40]!r} ({more})", argv, extra[1].split()[0])
    missing = re.fullmatch(r"Missing argument '(\S+)'", message)
    if missing:
        return ParseError(f"{where}missing argument {missing[1].upper()}")  # as --help names it
    first = message[:1].lower() + message[1:]
    return ParseError(f"{where}{first}".replace("d20 : ", ""))


def _bad_value(param: Any, argv: Sequence[str]) -> D20Error:
    """The program's own message for a value typer refused ("Input should be a valid
    integer"): the option, what it takes, what was typed, a caret under it."""
    names = [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())]
    typed, value = _typed_value(names, argv)
    shown = typed or (param.name or "value").upper()
    lo, hi = getattr(param, "min", None), getattr(param, "max", None)
    message = f"{shown} takes {param.metavar or 'a value'}, not {value[:40]!r}"
    if "int" in _type_text(param) or "int" in str(getattr(param, "type_descriptor", "")):
        message = f"{shown} takes a whole number, not {value[:40]!r}"
        if lo is not None:  # the reader of the option table's numbers says it
            try:
                int_value(lo, hi)(shown, value)
            except ParseError as err:
                message = err.message
    return _located(message, argv, typed)


def _typed_value(names: Sequence[str], argv: Sequence[str]) -> tuple[str, str]:
    """The option of `names` as typed in `argv` and its value ("" for none found)."""
    tokens = list(argv)
    for i, token in enumerate(tokens):
        name, eq, inline = token.partition("=")
        if name in names:
            return name, inline if eq else (tokens[i + 1] if i + 1 < len(tokens) else "")
        if len(token) > 2 and token[:2] in names and not token.startswith("--"):
            return token[:2], token[2:]
    return "", ""


def tidy_help(group: Any) -> None:
    """The help pages of the typer app as the rest of the program writes them: every
    value with a plain metavar (`plain_metavars`), every command's summary whole in its
    group's list (never cut short with "..."), and the commands of `d20 --help` in their
    panels (d20cli.app.commands.PANELS; the request verbs under "Rolling")."""
    from d20cli.app.commands import PANELS

    plain_metavars(group)
    panel_of = {name: title for title, names in PANELS.items() for name in names}
    for name, command in (getattr(group, "commands", None) or {}).items():
        command.rich_help_panel = panel_of.get(name, next(iter(PANELS)))
    _whole_summaries(group)


def _whole_summaries(group: Any) -> None:
    for command in (getattr(group, "commands", None) or {}).values():
        if not command.short_help:
            command.short_help = command.get_short_help_str(10**6)  # its first sentence
        _whole_summaries(command)


def usage_forms(*forms: str, epilog: Callable[[int], list[str]] | None = None) -> Any:
    """The class of a typer command that reads its own words (ctx.args, which typer does
    not see as arguments): its usage is `forms`, each after the command's path
    (`table NAME|FILE [OPTIONS]`, then `table list`, ...), in `d20 COMMAND --help` (the
    class's `forms`). `epilog`: the lines after the help for a width (the options
    `table` reads as a request's), laid out when the help is shown, to the terminal's
    width."""
    from typer.core import TyperCommand

    class WithForms(TyperCommand):
        def collect_usage_pieces(self, ctx: Any) -> list[str]:
            return [forms[0]]

        def format_usage(self, ctx: Any, formatter: Any) -> None:
            formatter.write_usage(ctx.command_path, forms[0])
            for form in forms[1:]:
                formatter.write_usage(ctx.command_path, form, prefix=" " * len("Usage: "))

        def format_epilog(self, ctx: Any, formatter: Any) -> None:
            if epilog is None:
                super().format_epilog(ctx, formatter)
                return
            formatter.write_paragraph()
            with formatter.indentation():
                indent = " " * formatter.current_indent
                for line in epilog(formatter.width - formatter.current_indent):
                    formatter.write(f"{indent}{line}\n" if line else "\n")

    WithForms.forms = forms  # type: ignore[attr-defined]
    return WithForms


def plain_metavars(command: Any) -> None:
    """Give every value of `command` and its subcommands a plain metavar (`N`, `NAME`)
    where typer would show a Python type (`<int range>`, `<list[str]>`)."""
    for param in getattr(command, "params", ()):
        if getattr(param, "is_flag", False) or getattr(param, "metavar", None):
            continue
        specs = [option_spec(n) for n in getattr(param, "opts", ())]
        spec = next((s for s in specs if s is not None), None)
        if spec is not None and spec.metavar:  # `--as NAME`, `--system ID`: as requests say
            name = spec.metavar
        elif "int" in _type_text(param):
            name = "N"
        else:
            name = (param.name or "value").rstrip("_").upper()
        if param.param_type_name == "argument":
            _plain_argument(param, name)
        else:
            param.metavar = name
    for sub in (getattr(command, "commands", None) or {}).values():
        plain_metavars(sub)


def _type_text(param: Any) -> str:
    """What typer would show as the parameter's type (`<int range>`), or ""."""
    try:
        return str(param.display_type(None))
    except (AttributeError, TypeError):
        return str(getattr(getattr(param, "type", None), "name", "") or "")


def _plain_argument(param: Any, name: str) -> None:
    """An argument shown as NAME (VALUE... for many) in help and usage, not `<str>` and
    `{NAME}`: typer's own display methods, replaced on this one parameter."""
    many = getattr(param, "nargs", 1) != 1
    shown = name + ("..." if many else "")
    usage = shown if param.required else f"[{shown}]"
    param.display_type_rich = lambda ctx: ""
    param._rich_display_name = lambda: shown
    param._usage_display_name = lambda: usage
