"""The edge of the typer commands (`systems`, `char`, `log`, `shell`, `completion`, and any
command added later): one set of global options and one error style for all of them.

Global options. `--no-log`, `--no-color`, `--color=WHEN` and `--system/-s ID` (and
`--json`, where the command has JSON output) are accepted anywhere on the line of every
command, read from the one option table (d20cli.app.options). A command that declares
the option itself (`char add --system`, `systems --json`) gets it as declared; a command
that takes its words through (`shell`) reads them with `split_options`; for any other the
option is taken off the line and applied for the length of the run through the setting
the whole program reads: D20_NO_LOG, NO_COLOR / FORCE_COLOR, D20_SYSTEM. So a new command
gets them with no code of its own.

Errors. What typer would print as "Usage: ... Error: No such option" is written in the
program's own style instead: `d20: error: ...`, a "did you mean" for a mistyped option
or command, the command line with a caret under the bad word, exit status 2.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from d20cli.app.options import OPTIONS, OptionSpec, did_you_mean
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.present.output import Output


@contextmanager
def command_errors(out: Output) -> Iterator[None]:
    """The body of a typer command: a D20Error it raises is one line on standard error
    (d20's style) and exit status 2."""
    try:
        yield
    except D20Error as err:
        out.error(err)
        import typer

        raise typer.Exit(int(ExitStatus.BAD_INPUT)) from None


#: The Options fields every command accepts.
GLOBAL_FIELDS: tuple[str, ...] = ("no_log", "no_color", "color", "system", "json")
_GLOBAL: dict[str, OptionSpec] = {
    name: spec for spec in OPTIONS if spec.field in GLOBAL_FIELDS for name in spec.names
}


def _option_spec(token: str) -> tuple[OptionSpec | None, bool]:
    """The global option `token` is (None if none), and whether its value is in the token
    (`--system=mm`, `-smm`)."""
    name, eq, _ = token.partition("=")
    if len(name) > 2 and not name.startswith("--") and name[:2] in _GLOBAL:
        return _GLOBAL[name[:2]], True
    return _GLOBAL.get(name), bool(eq)


def command_path(group: Any, argv: Sequence[str]) -> list[Any]:
    """The click commands `argv` names, outermost first (`char show` -> [app, char, show]):
    each word that names a subcommand of the one before it (global options and their
    values may come between)."""
    path = [group]
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            break
        commands = getattr(path[-1], "commands", None)
        if token.startswith("-"):
            spec, joined = _option_spec(token)
            if spec is not None and spec.value is not None and not joined:
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


def take_globals(group: Any, argv: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    """`argv` without the global options its command does not declare itself, and the
    values of those taken off (by Options field). ParseError for a bad value."""
    path = command_path(group, argv)
    # a command that takes its words through (`shell`) reads every option itself
    declared = set(_GLOBAL) if _takes_words(path[-1]) else _declared(path)
    kept: list[str] = []
    moved: list[str] = []  # options the command declares, put after its name
    values: dict[str, Any] = {}
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            rest = [token, *tokens]
            break
        spec, joined = _option_spec(token)
        if spec is None:
            kept.append(token)
            continue
        name = token.partition("=")[0] if not joined or token.startswith("--") else token[:2]
        raw = None if spec.value is None or joined else next(tokens, None)
        if name in declared:
            moved += [token] if raw is None else [token, raw]
            continue
        if spec.value is None:
            if "=" in token:
                raise ParseError(f"{name} takes no value")
            values[spec.field] = True
            continue
        if joined:
            raw = token.partition("=")[2] if token.startswith("--") else token[2:]
            raw = raw.removeprefix("=")
        if raw is None:
            raise ParseError(f"{name} needs a value ({spec.metavar})")
        values[spec.field] = spec.value(name, raw)
    else:
        rest = []
    if values.get("json"):
        command = " ".join(c.name for c in path[1:] if getattr(c, "name", None))
        raise ParseError(f"--json: `d20 {command}` has no JSON output")
    return [*kept, *moved, *rest], values


@contextmanager
def global_environment(values: dict[str, Any]) -> Iterator[None]:
    """The environment the taken-off global options stand for, for the length of a run
    (restored afterwards: a test that calls main() leaks nothing)."""
    changes: dict[str, str | None] = {}
    if values.get("no_log"):
        changes["D20_NO_LOG"] = "1"
    color = "never" if values.get("no_color") else values.get("color")
    if color == "never":
        changes.update({"NO_COLOR": "1", "FORCE_COLOR": None})
    elif color == "always":
        changes.update({"FORCE_COLOR": "1", "NO_COLOR": None})
    if values.get("system"):
        from d20cli.rules import system_id

        changes["D20_SYSTEM"] = system_id(values["system"])
    saved = {name: os.environ.get(name) for name in changes}
    try:
        for name, value in changes.items():
            _set(name, value)
        yield
    finally:
        for name, value in saved.items():
            _set(name, value)


def _set(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def _located(message: str, argv: Sequence[str], word: str | None) -> D20Error:
    """A ParseError with the command line and a caret under `word` (when it is there)."""
    line = " ".join(["d20", *argv])
    if word:
        column = 5
        for token in argv:
            if token == word or token.split("=", 1)[0] == word:
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
            f" (d20 {ctx.command_path.removeprefix('d20').strip()} --help lists them)"
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
    where = f"d20 {ctx.command_path.removeprefix('d20').strip()}: " if ctx is not None else ""
    first = message[:1].lower() + message[1:]
    return ParseError(f"{where}{first}".replace("d20 : ", ""))


def plain_metavars(command: Any) -> None:
    """Give every value of `command` and its subcommands a plain metavar (`N`, `NAME`)
    where typer would show a Python type (`<int range>`, `<list[str]>`)."""
    for param in getattr(command, "params", ()):
        if getattr(param, "is_flag", False) or getattr(param, "metavar", None):
            continue
        name = "N" if "int" in _type_text(param) else (param.name or "value").upper()
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
