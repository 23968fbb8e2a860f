"""Help at the edge: `d20 VERB --help` (the options that verb takes, grouped, from the one
option table d20cli.app.options), `d20 odds --help`, and `d20 help [TOPIC]` (the words,
d20cli.present.help_view). Plain text, wrapped to the terminal's width (80 columns on a
pipe), every wrapped line keeping its indent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from d20cli.app.commands import COMMANDS, RUNNER
from d20cli.app.options import (
    HELP_FLAGS,
    OPTION_GROUPS,
    OPTIONS,
    Options,
    OptionSpec,
    split_options,
)
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.language.vocabulary import VERB_HELP, VERBS
from d20cli.present.help_view import (
    example_lines,
    help_width,
    overview_lines,
    paragraph,
    rows,
    unknown_topic,
    verb_lines,
)
from d20cli.present.output import Output

ODDS_SUMMARY = COMMANDS["odds"].help
ODDS_EXAMPLES: tuple[str, ...] = COMMANDS["odds"].examples


def option_name(spec: OptionSpec) -> str:
    """`-s, --system ID`: the short name first, then the long one, then the value."""
    names = sorted(spec.names, key=len)
    text = ", ".join(names)
    return f"{text} {spec.metavar}" if spec.metavar else text


def option_lines(verb: str, width: int) -> list[str]:
    """The options `d20 VERB` takes (verb "odds": `d20 odds`), in their groups."""
    lines: list[str] = []
    taken = [s for s in OPTIONS if s.taken_by(verb)]
    names = max(len(option_name(s)) for s in taken)
    for group, title in OPTION_GROUPS:
        pairs = [(option_name(s), s.help) for s in taken if s.group == group]
        if group == OPTION_GROUPS[0][0]:
            pairs.append(("-h, --help", "this help (d20 help VERB explains the words)"))
        if pairs:
            lines += ["", f"{title} options:", *rows(pairs, width, names=names)]
    return lines


def verb_usage_lines(verb: str, width: int) -> list[str]:
    """`d20 VERB --help` (or `d20 odds --help`)."""
    if verb == "odds":
        usage = [
            *paragraph("Usage: d20 odds VERB WORDS... [OPTIONS]", width, 0, 16),
            *paragraph('d20 odds compare "REQUEST" "REQUEST"... [OPTIONS]', width, 7, 24),
        ]
        summary, examples = ODDS_SUMMARY, ODDS_EXAMPLES
    else:
        usage = paragraph(f"Usage: d20 {verb} WORDS... [OPTIONS]", width, 0, 11 + len(verb))
        summary, examples = VERB_HELP[verb]
    lines = [*usage, "", *paragraph(summary, width, 2)]
    lines += ["", "Examples:", *example_lines(examples, width)]
    lines += option_lines(verb, width)
    topic = "VERB" if verb == "odds" else verb
    lines += [
        "",
        *paragraph(
            f"Options may come anywhere after the verb; `--` ends them. "
            f"The words: d20 help {topic}.",
            width,
        ),
    ]
    return lines


class CommandInfo(NamedTuple):
    """A command that is not a verb, as `d20 help COMMAND` and the manual page show it: its
    line and usage, its subcommands, arguments and options (name, help), from the typer
    app that `d20 COMMAND --help` reads, and the registry's paragraph and examples
    (d20cli.app.commands)."""

    name: str
    summary: str
    usage: str
    about: str
    subcommands: tuple[tuple[str, str], ...]
    arguments: tuple[tuple[str, str], ...]
    options: tuple[tuple[str, str], ...]
    examples: tuple[str, ...]


def _first_paragraph(text: str | None) -> str:
    return " ".join((text or "").split("\n\n")[0].split())


def command_info(name: str, group: Any = None) -> CommandInfo:
    """What the registry and the typer app say about the command `name` (in COMMANDS).
    `group`: the app's click group (d20cli.app.cli.command_group()), which the callers above
    the app pass in; without it, the registry alone (the shell's help)."""
    cmd = group.commands[name] if group is not None else None
    subcommands = tuple(
        (sub, _first_paragraph(c.help)) for sub, c in getattr(cmd, "commands", {}).items()
    )
    arguments: list[tuple[str, str]] = []
    options: list[tuple[str, str]] = []
    for p in cmd.params if cmd is not None else ():
        if p.param_type_name == "argument":
            arguments.append((p.name.upper(), _first_paragraph(getattr(p, "help", ""))))
            continue
        names = ", ".join(sorted((*p.opts, *p.secondary_opts), key=len))
        value = "" if getattr(p, "is_flag", False) else f" {p.metavar or p.name.upper()}"
        options.append((names + value, _first_paragraph(p.help)))
    if name == "shell":  # it takes the options of a request
        options = [(option_name(s), s.help) for s in OPTIONS if s.taken_by("check")]
    words = " ".join(a for a, _ in arguments)
    usage = (
        f"d20 {name}"
        + (" COMMAND [ARGS]..." if subcommands else "")
        + (f" {words}" if words else "")
    )
    guide = COMMANDS[name]
    return CommandInfo(
        name,
        guide.help,
        guide.usage or f"{usage} [OPTIONS]",
        guide.about,
        subcommands,
        tuple(arguments),
        tuple(options),
        guide.examples,
    )


def command_lines(name: str, width: int, group: Any = None) -> list[str]:
    """`d20 help COMMAND`: what the command is for, its usage, subcommands, arguments,
    options and examples."""
    info = command_info(name, group)
    lines = [*paragraph(f"d20 {name}: {info.summary}", width, 0, 2), ""]
    lines += [*paragraph(info.about, width), ""]
    lines += paragraph(f"Usage: {info.usage}", width, 0, len("Usage: "))
    for title, pairs in (
        ("Commands", info.subcommands),
        ("Arguments", info.arguments),
        ("Options", info.options),
    ):
        if pairs:
            lines += ["", f"{title}:", *rows(pairs, width)]
    lines += ["", "Examples:", *example_lines(info.examples, width)]
    if name == "help":  # (its --help says no more)
        return lines
    return [*lines, "", f"More: d20 {name} --help"]


def help_usage_lines(width: int) -> list[str]:
    """`d20 help --help`: the help command's own usage, what it shows, and examples."""
    info = command_info("help")
    lines = [*paragraph(f"Usage: {info.usage}", width, 0, len("Usage: ")), ""]
    lines += paragraph(info.summary, width, 2)
    lines += ["", *paragraph(info.about, width, 2)]
    return [*lines, "", "Examples:", *example_lines(info.examples, width)]


def show_verb_help(tokens: Sequence[str], out: Output) -> ExitStatus:
    """`d20 VERB ... --help`: the verb's usage and options (the first token is the verb,
    or `odds`); an unknown first word is an error."""
    plain = [t for t in tokens if t not in HELP_FLAGS]
    try:
        words, _ = split_options(plain)
    except D20Error:
        words = [t for t in plain if not t.startswith("-")]
    return verb_help(words[0] if words else "", out)


def verb_help(verb: str, out: Output) -> ExitStatus:
    """`d20 VERB --help` for the verb (or `odds`) a command line names; a command's name
    (a line of standard input: `table --help`) gives what `d20 help COMMAND` says; an
    unknown word is an error."""
    verb = verb.lower()
    if verb in COMMANDS and COMMANDS[verb].reader != RUNNER:  # `table --help` as a line
        out.text("\n".join(command_lines(verb, help_width())))
        return ExitStatus.OK
    if verb == "help":
        out.text("\n".join(help_usage_lines(help_width())))
        return ExitStatus.OK
    if verb not in VERB_HELP and verb != "odds":
        out.error(ParseError(unknown_topic(verb, [*VERBS, *COMMANDS])))
        return ExitStatus.BAD_INPUT
    out.text("\n".join(verb_usage_lines(verb, help_width())))
    return ExitStatus.OK


def help_lines(
    topic: str | None,
    system: str | None = None,
    *,
    only: bool = False,
    group: Callable[[], Any] | None = None,
) -> list[str]:
    """`d20 help [TOPIC]`: the overview, a verb's words in every system (the given system
    only, or with `only` False first, as the shell's help shows them), `odds`'s usage and
    options, or what a command is for (command_lines; `group` gives the typer app's click
    group, for its subcommands and options). ParseError for anything else."""
    width = help_width()
    if topic is None:
        return overview_lines(width)
    word = topic.lower()
    if word in VERB_HELP:
        from d20cli.language.vocabulary import SYSTEM_IDS

        order = list(SYSTEM_IDS)
        if system is not None:  # that system only, or first (the shell's)
            from d20cli.rules import system_id

            first = system_id(system)
            order = [first] if only else [first, *(s for s in order if s != first)]
        return verb_lines(word, width, order)
    if word == "odds":
        about = paragraph(COMMANDS["odds"].about, width)
        return [
            *paragraph(f"d20 odds: {ODDS_SUMMARY}", width, 0, 2),
            "",
            *about,
            "",
            *verb_usage_lines("odds", width),
        ]
    if word in COMMANDS:
        return command_lines(word, width, group() if group is not None else None)
    raise ParseError(unknown_topic(topic, [*VERBS, *COMMANDS]))


def run_help(
    words: Sequence[str],
    opts: Options,
    out: Output,
    group: Callable[[], Any] | None = None,
    asked: bool = False,
) -> ExitStatus:
    """`d20 help [TOPIC] [-s ID]` (the words after `help`, the options read): print the
    help; an unknown topic is an error (exit 2). `group`: what gives the typer app's click
    group, for a command's subcommands and options (typer is imported only for a
    command's help). `asked`: `d20 help --help`, the help command's own usage."""
    if asked:
        out.text("\n".join(help_usage_lines(help_width())))
        return ExitStatus.OK
    try:
        if len(words) > 1:
            raise ParseError(f"help takes one verb or command, not {' '.join(words)[:60]!r}")
        system = opts.system or None
        out.text("\n".join(help_lines(words[0] if words else None, system, only=True, group=group)))
    except D20Error as err:
        out.error(err, opts.json)
        return ExitStatus.BAD_INPUT
    return ExitStatus.OK


#: Commands people type for an option of the program.
_OPTION_COMMANDS: dict[str, str] = {"version": "--version"}


def command_hint(word: str) -> str:
    """What to say after "unknown command WORD": "; did you mean init?" (a command or
    verb it is close to, or one it starts with: `initiative`), else the commands."""
    import difflib

    known = [*VERBS, *COMMANDS]
    typed = word.lower()
    if typed.lstrip("-") in _OPTION_COMMANDS:
        return f"; did you mean {_OPTION_COMMANDS[typed.lstrip('-')]}?"
    close = [k for k in known if len(k) >= 4 and typed.startswith(k)]
    close = close or difflib.get_close_matches(typed, known, n=3)
    if close:
        return f"; did you mean {' or '.join(close)}?"
    return f" (commands: {', '.join(known)})"
