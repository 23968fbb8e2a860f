"""Write what the documentation takes from the help data: the manual page man/d20.1, the
notation table of docs/notation.md and the reference of each system's page
(docs/systems/ID.md: its verbs, outcome tiers, words and house defaults, as `d20 systems`
gives them). Run it after changing the verbs, the notation, a system, the options or the
commands: `python scripts/make_docs.py` (tests/test_docs.py fails while one is out of
date; `--check` exits 1 then, writing nothing).

Everything comes from the tables `d20 help` reads: the verbs (vocabulary.VERB_HELP), the
dice notation (vocabulary.DICE_NOTATION), the systems (d20cli.systems()), the request
options (app.options.OPTIONS) and the commands (app.help.command_info: the typer app and
the command registry, d20cli.app.commands).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MAN_PAGE = ROOT / "man" / "d20.1"
NOTATION_PAGE = ROOT / "docs" / "notation.md"
BEGIN = "<!-- notation table: made by scripts/make_docs.py from DICE_NOTATION -->"
END = "<!-- end of the notation table -->"
SYSTEMS_DIR = ROOT / "docs" / "systems"
SYSTEM_BEGIN = "<!-- system reference: made by scripts/make_docs.py from d20 systems -->"
SYSTEM_END = "<!-- end of the system reference -->"

EXIT_STATUSES = (
    ("0", "done"),
    (
        "1",
        "with --exit-status: the outcome was a failure; d20 verify: the log does not "
        "verify; or standard output could not be written",
    ),
    ("2", "bad input: the message on standard error says what and where"),
    ("3", "the roll log could not be written: the results it lacks were not shown"),
    ("130", "interrupted (Ctrl-C)"),
)

ENVIRONMENT = (
    ("D20_SYSTEM", "the rule system when no --system is given"),
    ("D20_CHARACTER", "roll as this character when no --as is given (none: nobody)"),
    ("D20_BUDGET", "the dice budget of one request (as --budget)"),
    ("D20_WORK", "the work budget of one command (as --work)"),
    ("D20_NO_LOG", "1: do not write the roll log (as --no-log)"),
    ("D20_NO_CACHE", "1: do not use the parse and shape caches"),
    ("D20_DEBUG", "1: say on standard error what d20 does without a word (a cache rebuilt)"),
    ("NO_COLOR, FORCE_COLOR", "no colour; colour even on a pipe"),
    ("XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_CACHE_HOME", "where d20cli keeps its files"),
)

FILES = (
    ("~/.config/d20cli/config.toml", "the config file (d20 config)"),
    ("~/.config/d20cli/characters.toml", "the characters and the party (d20 char, d20 party)"),
    ("~/.config/d20cli/tables/", "roll tables (d20 table)"),
    ("~/.local/state/d20cli/state.db", "the roll log, fortune dice, initiative, sealed sessions"),
    ("~/.local/state/d20cli/history", "the shell's history"),
    ("~/.local/state/d20cli/cache-key", "the key the caches are checked with"),
    ("~/.cache/d20cli/", "the parse and shape caches"),
)


def roff(text: str) -> str:
    """Text as roff reads it: backslashes escaped, a leading dot or quote kept as text."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def item(name: str, text: str) -> list[str]:
    return [".TP", f"\\fB{roff(name)}\\fR", roff(text)]


def examples(lines: tuple[str, ...] | list[str]) -> list[str]:
    return [".RS", ".nf", *(roff(f"d20 {e}") for e in lines), ".fi", ".RE"]


def man_page() -> str:
    import d20cli
    from d20cli.app.cli import command_group
    from d20cli.app.commands import COMMANDS
    from d20cli.app.help import command_info, option_name
    from d20cli.app.options import OPTIONS
    from d20cli.language.vocabulary import DICE_NOTATION, VERB_HELP
    from d20cli.present.help_view import _systems_of

    out = [
        '.TH D20 1 "" "d20cli ' + d20cli.version() + '" "User Commands"',
        ".SH NAME",
        "d20 \\- a dice roller for d20 tabletop role\\-playing games",
        ".SH SYNOPSIS",
        "\\fBd20\\fR \\fIVERB\\fR [\\fIWORDS\\fR...] [\\fIOPTIONS\\fR]",
        ".br",
        "\\fBd20\\fR \\fICOMMAND\\fR [\\fIARGS\\fR...]",
        ".br",
        "\\fBd20\\fR",
        ".SH DESCRIPTION",
        roff(
            "d20 rolls one request: a verb, its words, and options anywhere after the verb. "
            "The words a verb takes depend on the rule system (--system, -s). A request may "
            "also be a line of standard input or of the interactive shell (d20 shell, or "
            "d20 alone on a terminal). d20 help VERB explains a verb's words in each system."
        ),
        ".SH VERBS",
    ]
    for verb, (summary, shown) in VERB_HELP.items():
        out += item(verb, f"{summary} Systems: {', '.join(_systems_of(verb))}.")
        out += examples(shown)
    out += [".SH DICE NOTATION", roff("What d20 roll reads (d20 help roll):")]
    for form, meaning, shown in DICE_NOTATION:
        out += item(form, f"{meaning}: {', '.join(shown)}")
    out += [".SH SYSTEMS", roff("Chosen with --system ID, D20_SYSTEM or the config file.")]
    for info in d20cli.systems():
        aliases = f" (also {', '.join(info.aliases)})" if info.aliases else ""
        verbs = ", ".join(v.name for v in info.verbs)
        out += item(info.id, f"{info.title}{aliases}. Verbs: {verbs}.")
    out += [".SH OPTIONS", roff("Options may come anywhere after the verb; -- ends them.")]
    for spec in OPTIONS:
        out += item(option_name(spec), spec.help)
    out += [".SH COMMANDS"]
    for name in COMMANDS:
        info = command_info(name, command_group())
        out += [".SS " + roff(info.usage), roff(info.summary), ".PP", roff(info.about)]
        for sub, text in info.subcommands:
            out += item(f"{name} {sub}", text)
        for opt, text in info.options if name != "shell" else ():
            out += item(opt, text)
        out += [".PP", "Examples:", *examples(info.examples)]
    out += [".SH EXIT STATUS"]
    for status, text in EXIT_STATUSES:
        out += item(status, text)
    out += [".SH ENVIRONMENT"]
    for env, text in ENVIRONMENT:
        out += item(env, text)
    out += [".SH FILES", roff("Under $XDG_CONFIG_HOME, $XDG_STATE_HOME, $XDG_CACHE_HOME:")]
    for path, text in FILES:
        out += item(path, text)
    out += [
        ".SH SEE ALSO",
        roff(
            "The reference under docs/ in the source (built with mkdocs): dice notation, "
            "the rule systems, odds, characters, tables, the roll log, sealed sessions, "
            "scripting and the Python API."
        ),
    ]
    return "\n".join(out) + "\n"


def notation_table() -> str:
    from d20cli.language.vocabulary import DICE_NOTATION

    rows = ["| form | meaning | examples |", "| --- | --- | --- |"]
    for form, meaning, shown in DICE_NOTATION:
        cell = " ".join(f"`{e}`" for e in shown)
        if "|" in form + meaning + cell:
            raise ValueError(f"a | in the notation row of {form!r} would split its cells")
        rows.append(f"| `{form}` | {meaning} | {cell} |")
    return "\n".join([BEGIN, "", *rows, "", END])


def notation_page(text: str) -> str:
    """The notation page with its table made again."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + notation_table() + text[end:]


def cell(text: str) -> str:
    """Text for a cell of a Markdown table (a `|` would split it)."""
    if "|" in text:
        raise ValueError(f"a | in {text!r} would split its cell")
    return text


def system_reference(system_id: str) -> str:
    """The reference part of a system's page: what `d20 systems -s ID` prints, as headings
    and tables."""
    from d20cli.present.systems_view import house_example, systems_data

    (system,) = [s for s in systems_data() if s["id"] == system_id]
    aliases = ", ".join(f"`{a}`" for a in system["aliases"])
    out = [
        SYSTEM_BEGIN,
        "",
        f"Id `{system_id}`" + (f", also {aliases}" if aliases else "") + ": `--system "
        f"{system_id}`. `d20 systems -s {system_id}` prints this reference in a terminal.",
        "",
        "### Verbs",
        "",
        "| verb | what it does | example |",
        "| --- | --- | --- |",
    ]
    for verb, info in system["verbs"].items():
        summary = cell(info["summary"])
        if "outcomes" in info:
            summary += " (outcomes: " + ", ".join(info["outcomes"].values()) + ")"
        out.append(f"| `{verb}` | {summary} | `{cell(info['example'])}` |")
    out += [
        "",
        "### Outcome tiers",
        "",
        "The outcomes its results can have; the id is the `outcome` of the JSON and the roll log.",
        "",
        "| tier | id |",
        "| --- | --- |",
        *(f"| {cell(label)} | `{oid}` |" for oid, label in system["outcomes"].items()),
    ]
    if system["words"]:
        out += ["", "### Words", "", "| word | meaning |", "| --- | --- |"]
        out += [f"| `{cell(w)}` | {cell(m)} |" for w, m in system["words"].items()]
    if system["house_keys"]:
        keys = ", ".join(f"`{k}`" for k in system["house_keys"])
        example = house_example(system_id, system["house_keys"])
        out += [
            "",
            "### House defaults",
            "",
            f"The config file's `[{system_id}]` table may set {keys} for every roll "
            f"(`{example}`); see [house rules](../house-rules.md).",
        ]
    return "\n".join([*out, "", SYSTEM_END])


def system_page(system_id: str, text: str) -> str:
    """A system's page with its reference made again."""
    start, end = text.index(SYSTEM_BEGIN), text.index(SYSTEM_END) + len(SYSTEM_END)
    return text[:start] + system_reference(system_id) + text[end:]


def system_pages() -> dict[Path, str]:
    from d20cli.language.vocabulary import SYSTEM_IDS

    return {
        SYSTEMS_DIR / f"{sid}.md": system_page(
            sid, (SYSTEMS_DIR / f"{sid}.md").read_text(encoding="utf-8")
        )
        for sid in SYSTEM_IDS
    }


def write_stale(wanted: dict[Path, str], argv: list[str], script: str) -> int:
    """Write the files of `wanted` whose text differs; with `--check` in `argv`, write
    nothing and say which are out of date (exit status 1), naming `script` to run."""
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text("utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run python scripts/{script}")
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wanted[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


def main(argv: list[str]) -> int:
    wanted = {
        MAN_PAGE: man_page(),
        NOTATION_PAGE: notation_page(NOTATION_PAGE.read_text(encoding="utf-8")),
        **system_pages(),
    }
    return write_stale(wanted, argv, "make_docs.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
