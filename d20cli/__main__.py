"""The `d20` entry point.

Plain requests (`d20 check +5 vs 15`, or a bare expression: `d20 2d6+3`) go straight to
the runner, without building the typer app, so a roll starts fast. Standard input that is
not a terminal is read as one request per line. Everything else (help, `systems`,
`shell`, `odds`, ...) goes to typer.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, NoReturn

from d20cli.app.commands import COMMANDS
from d20cli.app.streams import OutputFailed, guarded_streams, report
from d20cli.errors import D20Error, ExitStatus, NotSaved, StateError
from d20cli.language.vocabulary import TABLE, VERBS
from d20cli.rolling.rolls import is_bare

if TYPE_CHECKING:
    from d20cli.app.completion import Command

_HELP_FLAGS = ("--help", "-h", "--version")
_VERSION = ("--version",)


def _unknown_command(word: str) -> int:
    from d20cli.app.run import unknown_command
    from d20cli.present.output import Output

    Output().error(unknown_command(word, [*VERBS, *COMMANDS]))
    return int(ExitStatus.BAD_INPUT)


def _run(args: list[str]) -> int:
    """One request (or `odds ...`) from the command line, options anywhere in it."""
    from d20cli.app.context import Context
    from d20cli.app.options import Options
    from d20cli.app.run import run
    from d20cli.present.output import Output

    context = Context.for_command_line()
    try:
        return int(run(args, Options(), Output(), context).status)
    finally:
        context.close()


def dispatch(args: list[str]) -> int:
    from d20cli.app.options import split_options

    if args and args[0] in ("--install-completion", "--show-completion"):
        # typer's names for it: install (or print) the static completion script
        shell = args[1] if len(args) > 1 else os.path.basename(os.environ.get("SHELL", "bash"))
        extra = ["--install"] if args[0] == "--install-completion" else []
        from d20cli.app.cli import run_app

        return run_app(["completion", shell, *extra])

    requests = (*VERBS, "odds")  # what the runner reads without typer (--help too)
    roll = args and (args[0] in requests or is_bare(args[0]))  # `d20 2d6+3`: a roll
    if roll and not any(a in _VERSION for a in args):
        return _run(args)  # `--help` too: the verb's own help (d20cli.app.help)
    if args and args[0] == TABLE and not any(a in _HELP_FLAGS for a in args):
        return _run(args)  # `d20 table NAME` rolls; its --help is typer's
    if args and args[0] == "help":
        from d20cli.app.help import run_help
        from d20cli.present.output import Output

        return int(run_help(args[1:], Output()))
    if args and args[0].startswith("-") and not any(a in _VERSION for a in args):
        from d20cli.present.output import Output

        helping = any(a in _HELP_FLAGS for a in args)
        try:
            words, opts = split_options([a for a in args if a not in _HELP_FLAGS])
        except D20Error as err:
            if not any(a in COMMANDS for a in args):  # `d20 --no-log log --limit 3`: typer's
                Output().error(err)
                return int(ExitStatus.BAD_INPUT)
            words, opts = [], None
        if words and (
            words[0] in requests or is_bare(words[0]) or (words[0] == TABLE and not helping)
        ):
            return _run(args)  # options before the verb: `d20 -s mm check +5 vs 15`
        if words and words[0] == "help":
            from d20cli.app.help import run_help

            return int(run_help([a for a in args if a != "help"], Output()))
        if not words and not helping and opts is not None:
            if not sys.stdin.isatty():
                from d20cli.app.stdin import run_stdin

                return int(run_stdin(opts))
            if sys.stdout.isatty():
                from d20cli.app.shell import Commands, run_shell

                return int(run_shell(opts, Commands(_run_command, _describe_commands)))
    elif not args and not sys.stdin.isatty():
        from d20cli.app.options import Options
        from d20cli.app.stdin import run_stdin

        return int(run_stdin(Options()))
    elif not args and sys.stdout.isatty():
        from d20cli.app.options import Options
        from d20cli.app.shell import Commands, run_shell

        return int(run_shell(Options(), Commands(_run_command, _describe_commands)))
    elif args and args[0] not in VERBS and args[0] not in COMMANDS and not args[0].startswith("-"):
        if any(a == "--as" or a.startswith("--as=") for a in args):
            return _run(args)  # a character's macro in the verb's place: `d20 sneak --as aria`
        return _unknown_command(args[0])
    from d20cli.app.cli import run_app

    return run_app(args)


def _run_command(argv: list[str]) -> int:
    """A command of the typer app run from the shell (`char list`)."""
    from d20cli.app.cli import run_app

    return run_app(argv)


def _describe_commands() -> tuple[Command, ...]:
    """The typer app's commands, for the shell's completion."""
    from d20cli.app.cli import completion_commands
    from d20cli.language.vocabulary import VERB_HELP

    return completion_commands(VERB_HELP)


def _open_closed_streams() -> None:
    """A closed standard stream (`d20 <&-`, `d20 ... >&-`) reads as empty and writes
    nowhere, rather than failing: Python leaves it as None."""
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))  # noqa: SIM115


def main(argv: list[str] | None = None) -> int:
    """Run d20 on `argv`; the exit status. A failed write on standard output ends the run
    (quietly with 0 for a closed pipe, with one line and 1 for a full disk); a failed
    write on standard error is ignored (d20cli.app.streams); a roll log that cannot be
    written ends it with one line and NOT_SAVED (d20cli.errors.NotSaved)."""
    args = list(sys.argv[1:] if argv is None else argv)
    _open_closed_streams()
    with guarded_streams():
        try:
            status = dispatch(args)
            sys.stdout.flush()
        except OutputFailed as failure:
            return report(failure)
        except BrokenPipeError:  # a write that bypassed the guard: the reader went away
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return int(ExitStatus.OK)
        except KeyboardInterrupt:
            with contextlib.suppress(OutputFailed, ValueError, OSError):
                sys.stdout.flush()
            return int(ExitStatus.INTERRUPTED)
        except NotSaved as failed:  # the results it could not log were not shown
            from d20cli.present.output import Output

            Output().error(StateError(str(failed)))
            return int(ExitStatus.NOT_SAVED)
    return status


def entry() -> NoReturn:
    """The `d20` command (and `python -m d20cli`): `main`, then the process ends at once.

    By then the run has written and closed all it keeps (the state and the roll log are
    closed, the caches written whole) and `main` has flushed standard output, so what is
    left is the interpreter's teardown: freeing every module and object one by one, which
    took 15 to 25 ms after a request that imported pyparsing (a fifth of its start). So
    the streams are flushed once more and `os._exit` ends the process with the status.
    An exception that escapes `main` (a bug: its traceback) ends it the usual way."""
    status = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a stream already reported as failed
            stream.flush()
    os._exit(status)


if __name__ == "__main__":
    entry()
