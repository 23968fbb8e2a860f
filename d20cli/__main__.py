"""The `d20` entry point.

The command line is read once (d20cli.app.options.read_command_line): its options, and
its first word, which says where it goes. Plain requests (`d20 check +5 vs 15`) go
straight to the runner, without building the typer app, so a roll starts fast; so do
`odds`, `table NAME`, `help` and `shell`. With no word, standard input that is not a
terminal is read as one request per line, and a terminal opens the shell. Every other
command (`char`, `log`, `systems`, ...) goes to the typer app with the options read
(d20cli.app.cli.run_command).
"""

from __future__ import annotations

import os
import sys

from d20cli.app.commands import COMMANDS, RUNNER_TYPER_HELP, TYPER
from d20cli.app.streams import OutputFailed, guarded_streams, report
from d20cli.errors import D20Error, ExitStatus, NotSaved, ParseError, StateError
from d20cli.language.vocabulary import TABLE, VERBS
from d20cli.rolling.rolls import is_bare

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from d20cli.app.completion.engine import Command
    from d20cli.app.options import CommandLine, Options


def _unknown_command(word: str, as_json: bool) -> int:
    from d20cli.app.run import unknown_command
    from d20cli.present.output import Output

    Output().error(unknown_command(word), as_json)
    return int(ExitStatus.BAD_INPUT)


def _typer_reads(command: str, helping: bool) -> bool:
    """Whether the typer app reads the line of `command`; else the runner reads it, as a
    request's line (a verb, `odds`, `table NAME`, `help`, `shell`, a word that is no
    command), without importing typer."""
    row = COMMANDS.get(command)
    if row is None:
        return False
    return row.reader == TYPER or (helping and row.reader == RUNNER_TYPER_HELP)


def _failed(line: CommandLine) -> int:
    from d20cli.present.output import Output

    assert line.error is not None
    Output().error(line.error, line.json())
    return int(ExitStatus.BAD_INPUT)


def _run(line: CommandLine) -> int:
    """One request (or `odds ...`, `table NAME`) from the command line, options anywhere
    in it; with --help, the verb's own help (d20cli.app.help)."""
    from d20cli.app.context import Context
    from d20cli.app.options import HELP_FLAGS, check_taken
    from d20cli.app.run import ReadLine, run
    from d20cli.present.output import Output

    if line.error is not None:
        return _failed(line)
    out = Output()
    words = list(line.words)
    if any(a in HELP_FLAGS for a in line.asked):
        from d20cli.app.help import verb_help

        return int(verb_help(words[0], out))
    try:
        check_taken(words[0].lower(), line.opts, line.tokens)
    except D20Error as err:
        out.error(err, line.json())
        return int(ExitStatus.BAD_INPUT)
    context = Context.for_command_line()
    try:
        return int(run(ReadLine(words, line.opts), line.opts, out, context).status)
    finally:
        context.close()


def _without_words(opts: Options) -> int:
    """`d20` with options only: standard input, one request per line, or the shell on a
    terminal (else typer's help)."""
    if not sys.stdin.isatty():
        from d20cli.app.stdin import run_stdin

        return int(run_stdin(opts))
    if sys.stdout.isatty():
        from d20cli.app.shell import Commands, run_shell

        return int(run_shell(opts, Commands(_run_command, _describe_commands)))
    from d20cli.app.cli import run_app

    return run_app([])


def dispatch(args: list[str]) -> int:
    """Read the command line once (d20cli.app.options) and send it where its first word
    says: the runner for a request, or the typer app for any other command."""
    if args and args[0] in ("--install-completion", "--show-completion"):
        # typer's names for it: install (or print) the static completion script
        shell = args[1] if len(args) > 1 else os.path.basename(os.environ.get("SHELL", "bash"))
        extra = ["--install"] if args[0] == "--install-completion" else []
        from d20cli.app.cli import run_app

        return run_app(["completion", shell, *extra])
    from d20cli.app.options import read_command_line

    line = read_command_line(args, _typer_reads)
    command = line.command
    if "--version" in line.asked:
        from d20cli import version

        sys.stdout.write(f"d20 {version()}\n")
        return int(ExitStatus.OK)
    row = COMMANDS.get(command)
    if row is not None and row.reader == RUNNER_TYPER_HELP and line.asked and line.words:
        from d20cli.app.cli import run_app

        return run_app(args)  # `d20 table list --help`: the command's own help, typer's
    if (command and _typer_reads(command, bool(line.asked))) or (not command and line.asked):
        from d20cli.app.cli import run_command

        return run_command(line)  # `d20 char list`, `d20 --help`
    if line.error is not None and (command in VERBS or command in COMMANDS or not command):
        return _failed(line)
    if not command:
        return _without_words(line.opts)
    if command == "help":
        from d20cli.app.help import run_help
        from d20cli.app.options import HELP_FLAGS
        from d20cli.present.output import Output

        asked = any(a in HELP_FLAGS for a in line.asked)  # `d20 help --help`
        return int(run_help(line.words[1:], line.opts, Output(), _command_group, asked))
    if command == "shell":
        return _shell(line)
    if command in VERBS or command in ("odds", TABLE) or line.opts.as_ or is_bare(command):
        return _run(line)  # `--as`: a character's macro in the verb's place; `d20 2d6+3`
    if _a_macro_in_force(command):
        return _run(line)  # `d20 char use aria`, then `d20 sneak`
    return _unknown_command(command, line.json())


def _a_macro_in_force(word: str) -> bool:
    """Whether `word` is a macro of the character in force without --as (`D20_CHARACTER`,
    else the config file's `character`), as completion offers it."""
    from d20cli.store.characters import is_party, load
    from d20cli.store.config import default_character

    name = default_character()
    if not name or is_party(name):
        return False
    try:
        return load(name).macro(word) is not None
    except D20Error:
        return False


def _shell(line: CommandLine) -> int:
    """`d20 shell [OPTIONS]`: the shell, with the options of a request for the session."""
    if len(line.words) > 1:
        from d20cli.present.output import Output

        rest = " ".join(line.words[1:])[:40]
        Output().error(ParseError(f"shell takes options only, not {rest!r}"), line.json())
        return int(ExitStatus.BAD_INPUT)
    from d20cli.app.shell import Commands, run_shell

    return int(run_shell(line.opts, Commands(_run_command, _describe_commands)))


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


def _command_group() -> Any:
    """The typer app's click group, for `d20 help COMMAND` (imported only then)."""
    from d20cli.app.cli import command_group

    return command_group()


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
            try:
                sys.stdout.flush()
            except (OutputFailed, ValueError, OSError):
                pass
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
        try:
            stream.flush()
        except Exception:  # a stream already reported as failed
            pass
    os._exit(status)


if __name__ == "__main__":
    entry()
