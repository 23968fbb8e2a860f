"""`d20 help` and `d20 help VERB`: the request words of each verb in each system, with
examples that run; and the plain-text layout every help page uses (rows of a name and its
meaning, wrapped to the terminal's width with their indent kept).

The verbs and their one-line help come from d20cli.language.vocabulary; what each system
says about a verb (its words, word lists, examples) from d20cli.rules.verb_help.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterable, Sequence

from d20cli.language.vocabulary import SYSTEM_IDS, VERB_HELP

#: Help is laid out for the terminal's width (COLUMNS), within these bounds.
MIN_WIDTH = 40
MAX_WIDTH = 100
#: The widest name column of a row; a longer name puts its meaning on the next line.
NAME_COLUMN = 22


def help_width() -> int:
    """The width help is wrapped to: the terminal's (COLUMNS), 80 on a pipe."""
    columns = shutil.get_terminal_size((80, 24)).columns
    return max(MIN_WIDTH, min(MAX_WIDTH, columns))


def paragraph(text: str, width: int, indent: int = 0, hanging: int | None = None) -> list[str]:
    """`text` wrapped to `width`, every line indented by `indent` (the lines after the
    first by `hanging`, if given); words are never broken (a long one overflows)."""
    rest = indent if hanging is None else hanging
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=" " * indent,
        subsequent_indent=" " * rest,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [""]


def rows(
    pairs: Iterable[tuple[str, str]], width: int, indent: int = 2, names: int | None = None
) -> list[str]:
    """Two columns: each name, and its meaning wrapped under itself (the meaning's lines
    keep its column). A name wider than NAME_COLUMN (or a third of the width) has its
    meaning on the next line.
    `names`: the width of the name column (default: the widest name)."""
    pairs = list(pairs)
    if not pairs:
        return []
    widest = names if names is not None else max(len(name) for name, _ in pairs)
    column = min(widest, NAME_COLUMN, width // 3) + 2  # (narrower on a narrow terminal)
    lines: list[str] = []
    for name, meaning in pairs:
        start = indent + column
        longest = max((len(word) for word in meaning.split()), default=0)
        if longest > width - start:  # a word that cannot fit the column: a deeper line
            start = min(start, indent + 4)
            lines += [" " * indent + name, *paragraph(meaning, width, start)]
            continue
        if len(name) > column - 2:
            lines.append(" " * indent + name)
            lines += paragraph(meaning, width, start)
            continue
        body = paragraph(meaning, width, start)
        lines.append(" " * indent + name.ljust(column) + body[0][start:])
        lines += body[1:]
    return lines


def example_lines(examples: Iterable[str], width: int, indent: int = 2) -> list[str]:
    """Example command lines, `d20 ...`, each wrapped with a deeper indent."""
    lines: list[str] = []
    for example in examples:
        lines += paragraph(f"d20 {example}", width, indent, indent + 4)
    return lines


def with_system(example: str, system_id: str) -> str:
    """An example as a user types it for one system (`-s ID` after the words)."""
    return f"{example} -s {system_id}"


# -- d20 help ------------------------------------------------------------------------------


def _systems_of(verb: str) -> list[str]:
    from d20cli.rules import get_system

    return [sid for sid in SYSTEM_IDS if verb in get_system(sid).verbs]


def overview_examples() -> list[str]:
    """The examples `d20 help` shows: the first of each verb."""
    return [examples[0] for _, examples in VERB_HELP.values()]


def overview_lines(width: int) -> list[str]:
    """`d20 help`: how a request is written, every verb with the systems that have it, an
    example per verb, and where to read more."""
    lines = [
        *paragraph(
            "d20 rolls one request: a verb, its words, and options anywhere after the verb. "
            "The words a verb takes depend on the rule system (--system, -s).",
            width,
        ),
        "",
        "Usage: d20 VERB WORDS... [OPTIONS]",
        "",
        "Verbs (and the systems that have them):",
    ]
    verb_rows = []
    for verb, (summary, _) in VERB_HELP.items():
        verb_rows.append((verb, f"{summary} [{', '.join(_systems_of(verb))}]"))
    lines += rows(verb_rows, width)
    lines += ["", "Examples:", *example_lines(overview_examples(), width), ""]
    lines += ["More:"]
    lines += rows(
        (
            ("d20 help VERB", "the words a verb takes in each system, with examples"),
            ("d20 help COMMAND", "what a command is for: char, party, table, init, seal, ..."),
            ("d20 VERB --help", "the options a verb takes"),
            ("d20 systems", "the systems, their outcome tiers and words"),
            ("d20 odds VERB ...", "the exact odds of a request instead of a roll"),
            ("d20 shell", "one request per line, with TAB completion and history"),
            ("d20 seal", "rolls a remote group can verify (then unseal, verify)"),
        ),
        width,
    )
    return lines


# -- d20 help VERB -------------------------------------------------------------------------


def _groups(verb: str, systems: Sequence[str]) -> tuple[list[tuple[list[str], str]], list[str]]:
    """The systems that have `verb`, those that say the same about it together (with
    their summary of it), and the systems without it."""
    from d20cli.rules import get_system
    from d20cli.rules.verb_help import verb_help

    shown: list[tuple[list[str], str, object]] = []
    without: list[str] = []
    for sid in systems:
        system = get_system(sid)
        found = verb_help(system, verb)
        if found is None:
            without.append(sid)
            continue
        summary, _ = system.verbs[verb]
        same = next((s for s in shown if s[1] == summary and s[2] == found), None)
        if same is not None:
            same[0].append(sid)
        else:
            shown.append(([sid], summary, found))
    return [(sids, summary) for sids, summary, _ in shown], without


def verb_examples(verb: str, systems: Sequence[str] = SYSTEM_IDS) -> list[str]:
    """Every example `d20 help VERB` shows, as typed after `d20` (tests run them all)."""
    from d20cli.rules import get_system
    from d20cli.rules.verb_help import verb_help

    out: list[str] = []
    for sids, _ in _groups(verb, systems)[0]:
        found = verb_help(get_system(sids[0]), verb)
        out += [with_system(e, sids[0]) for e in found.examples] if found else []
    return out


def verb_lines(verb: str, width: int, systems: Sequence[str] = SYSTEM_IDS) -> list[str]:
    """`d20 help VERB`: the verb's words in each system that has it (systems that say the
    same together), with examples."""
    from d20cli.rules import get_system
    from d20cli.rules.verb_help import QUIET, verb_help, word_meanings

    summary, _ = VERB_HELP[verb]
    lines = [*paragraph(f"d20 {verb}: {summary}", width, 0, 2), ""]
    usage = f"Usage: d20 {verb} WORDS... [OPTIONS]   (options: d20 {verb} --help)"
    lines += paragraph(usage, width, 0, 2)
    lines += paragraph(f"With -q, each result prints {QUIET[verb]}.", width, 0, 2)
    groups, without = _groups(verb, systems)
    for sids, own_summary in groups:
        system = get_system(sids[0])
        found = verb_help(system, verb)
        if found is None:
            continue
        title = ", ".join(sids) if len(sids) > 1 else f"{system.id} ({system.title})"
        lines += ["", *paragraph(title, width, 0, 2), *paragraph(own_summary, width, 2)]
        meanings = word_meanings(system, found)
        if meanings:
            lines += ["  words:", *rows(meanings, width, 4)]
        for name, words in found.lists:
            lines += paragraph(f"{name}: {words}", width, 2, 4)
        examples = (with_system(e, sids[0]) for e in found.examples)
        lines += ["  examples:", *example_lines(examples, width, 4)]
    if without:
        lines += ["", *paragraph(f"Not in: {', '.join(without)}.", width)]
    return lines


def unknown_topic(word: str, known: Sequence[str]) -> str:
    """The message for `help WORD` when WORD is no verb or command."""
    import difflib

    close = difflib.get_close_matches(word.lower(), list(known), n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else f" (verbs: {', '.join(VERB_HELP)})"
    return f"no help for {word[:40]!r}{hint}"
