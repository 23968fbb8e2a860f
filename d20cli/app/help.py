"""Help at the edge: `d20 VERB --help` (the options that verb takes, grouped, from the one
option table d20cli.app.options), `d20 odds --help`, and `d20 help [TOPIC]` (the words,
d20cli.present.help_view). Plain text, wrapped to the terminal's width (80 columns on a
pipe), every wrapped line keeping its indent.
"""

from __future__ import annotations

from collections.abc import Sequence

from d20cli.app.commands import COMMANDS
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

ODDS_SUMMARY = COMMANDS["odds"]
ODDS_EXAMPLES: tuple[str, ...] = (
    "odds check +5 vs 15 adv expertise=d6",
    "odds roll 4d6dl1",
    "odds attack +7 vs 15 dmg 1d8+4",
    'odds compare "check +5 vs 15 adv" "check +5 vs 15 expertise=d8"',
    "odds group +3, +5, -1, +2, +0, +4 vs 12 --simulate 100000",
)


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
            "Usage: d20 odds VERB WORDS... [OPTIONS]",
            '       d20 odds compare "REQUEST" "REQUEST"... [OPTIONS]',
        ]
        summary, examples = ODDS_SUMMARY, ODDS_EXAMPLES
    else:
        usage = [f"Usage: d20 {verb} WORDS... [OPTIONS]"]
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
    """`d20 VERB --help` for the verb (or `odds`) a command line names; an unknown word is
    an error."""
    verb = verb.lower()
    if verb not in VERB_HELP and verb != "odds":
        out.error(ParseError(unknown_topic(verb, [*VERBS, *COMMANDS])))
        return ExitStatus.BAD_INPUT
    out.text("\n".join(verb_usage_lines(verb, help_width())))
    return ExitStatus.OK


def help_lines(topic: str | None, system: str | None = None) -> list[str]:
    """`d20 help [TOPIC]`: the overview, a verb's words in every system (the given system
    first), `odds`'s usage, or where a command's help is. ParseError for anything else."""
    width = help_width()
    if topic is None:
        return overview_lines(width)
    word = topic.lower()
    if word in VERB_HELP:
        from d20cli.language.vocabulary import SYSTEM_IDS

        order = list(SYSTEM_IDS)
        if system is not None:
            from d20cli.rules import system_id

            first = system_id(system)
            order = [first, *(s for s in order if s != first)]
        return verb_lines(word, width, order)
    if word == "odds":
        return verb_usage_lines("odds", width)
    if word in COMMANDS or word == "help":
        text = COMMANDS.get(word, "the words each verb takes, per system, with examples")
        return [*paragraph(f"d20 {word}: {text}", width, 0, 2), f"More: d20 {word} --help"]
    raise ParseError(unknown_topic(topic, [*VERBS, *COMMANDS]))


def run_help(words: Sequence[str], opts: Options, out: Output) -> ExitStatus:
    """`d20 help [TOPIC] [-s ID]` (the words after `help`, the options read): print the
    help; an unknown topic is an error (exit 2)."""
    try:
        if len(words) > 1:
            raise ParseError(f"help takes one verb or command, not {' '.join(words)[:60]!r}")
        system = opts.system or None
        out.text("\n".join(help_lines(words[0] if words else None, system)))
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
