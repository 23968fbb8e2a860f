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
import string
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

PERFORMANCE_PAGE = ROOT / "docs" / "performance.md"
CACHES_BEGIN = "<!-- cache table: made by scripts/make_docs.py from d20cli.bounded.CACHES -->"
CACHES_END = "<!-- end of the cache table -->"

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


MODULES_BEGIN = "<!-- every module: made by scripts/make_docs.py from the modules' docstrings -->"
MODULES_END = "<!-- end of every module -->"
ARCHITECTURE_PAGE = ROOT / "docs" / "architecture.md"


def first_sentence(text: str) -> str:
    """A docstring's first sentence, on one line (up to its first '. ' or its first
    paragraph's end)."""
    paragraph = " ".join(text.strip().split("\n\n")[0].split())
    end = re.search(r"(?<!e\.g)(?<!i\.e)\.(\s|$)", paragraph)
    return paragraph if end is None else paragraph[: end.start() + 1]


def module_table() -> str:
    """Every module of the package and the first sentence of its docstring."""
    import ast

    rows = ["| module | what it holds |", "| --- | --- |"]
    for path in sorted((ROOT / "d20cli").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        source = path.read_text(encoding="utf-8")
        if not source.strip():  # an empty __init__.py: the package's marker alone
            continue
        doc = ast.get_docstring(ast.parse(source))
        if not doc:
            raise ValueError(f"{name} has no docstring: say what the module holds")
        rows.append(f"| `{name}` | {cell(first_sentence(doc).replace('|', '/'))} |")
    return "\n".join([MODULES_BEGIN, "", *rows, "", MODULES_END])


def architecture_page(text: str) -> str:
    """The architecture page with its list of every module made again."""
    start, end = text.index(MODULES_BEGIN), text.index(MODULES_END) + len(MODULES_END)
    return text[:start] + module_table() + text[end:]


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


def cache_table() -> str:
    """The table of every memo, from the registry d20cli.bounded keeps (each memo is
    declared there, with its bound, where it is made): the package imported whole."""
    import importlib
    import pkgutil

    import d20cli
    from d20cli.bounded import CACHES

    for info in pkgutil.walk_packages(d20cli.__path__, "d20cli."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    rows = [
        "| memo | where | bound | key → value | what it buys (measured) |",
        "| --- | --- | --- | --- | --- |",
    ]
    mine = [c for c in CACHES.values() if c.module.startswith("d20cli.")]
    for c in sorted(mine, key=lambda c: (c.module, c.name)):
        where = c.module.removeprefix("d20cli.").replace(".", "/")
        package = sys.modules[c.module].__file__ or ""  # (a package's: its __init__.py)
        where += "/__init__.py" if package.endswith("__init__.py") else ".py"
        bound = f"{c.kind}({c.size:,}" + (f", most={c.most:,} values" if c.most else "") + ")"
        rows.append(f"| `{c.name}` | `{where}` | {bound} | {cell(c.holds)} | {cell(c.buys)} |")
    return "\n".join([CACHES_BEGIN, "", *rows, "", CACHES_END])


def cache_page(text: str) -> str:
    """docs/performance.md with its table of memos made again."""
    start, end = text.index(CACHES_BEGIN), text.index(CACHES_END) + len(CACHES_END)
    return text[:start] + cache_table() + text[end:]


LIMITS_PAGE = ROOT / "docs" / "limits.md"
LIMITS_BEGIN = "<!-- limits table: made by scripts/make_docs.py from each limit's constant -->"
LIMITS_END = "<!-- end of the limits table -->"

#: Each limit's one home: the name a row of LIMITS uses -> "module:CONSTANT".
LIMIT_HOMES = {
    "REQUEST": "language.vocabulary:MAX_REQUEST",
    "TREE_NODES": "language.vocabulary:MAX_TREE_NODES",
    "TREE_DEPTH": "language.vocabulary:MAX_TREE_DEPTH",
    "PAREN_DEPTH": "language.dice_grammar:MAX_PAREN_DEPTH",
    "DICE_DIGITS": "language.vocabulary:DICE_DIGITS",
    "WORD_DIGITS": "language.vocabulary:WORD_DIGITS",
    "FACE_DIGITS": "app.options:MAX_FACE_DIGITS",
    "OPTION_DIGITS": "app.options:MAX_OPTION_DIGITS",
    "SIDES": "dice.tree:MAX_SIDES",
    "TOTAL": "dice.tree:MAX_TOTAL",
    "NX": "language.vocabulary:MAX_NX",
    "ROLLED_RUNS": "rolling.limits:MAX_ROLLED_RUNS",
    "REPEAT": "rolling.limits:MAX_REPEAT",
    "BUDGET": "dice.roller:DEFAULT_BUDGET",
    "MAX_BUDGET": "rolling.limits:MAX_BUDGET",
    "WORK": "dice.roller:DEFAULT_WORK",
    "MAX_WORK": "rolling.limits:MAX_WORK",
    "OUTPUT_PER_WORK": "app.run:OUTPUT_PER_WORK",
    "ROW_DICE": "store.row_fields:MAX_ROW_DICE",
    "RUN_BYTES": "store.rolllog:MAX_RUN_BYTES",
    "TABLE_TEXT": "app.sealed:MAX_TABLE_TEXT",
    "TABLE_BYTES": "app.sealed:MAX_TABLE_BYTES",
    "EXPORT_BYTES": "app.commands.verify_files:MAX_EXPORT_BYTES",
    "ROW_BYTES": "app.commands.verify_files:MAX_ROW_BYTES",
    "RECEIPTS_BYTES": "app.commands.verify_files:MAX_RECEIPTS_BYTES",
    "PARSED": "app.commands.verify_text:MAX_PARSED",
    "VERIFY_WORK": "app.commands.verify:MAX_VERIFY_WORK",
    "TABLE_WORK": "app.commands.verify:TABLE_WORK",
    "BLOCK": "app.sealed:MAX_BLOCK",
    "CACHE_ENTRIES": "store.request_cache:MAX_CACHE_ENTRIES",
    "CACHE_FILE": "store.request_cache:MAX_CACHE_FILE_BYTES",
    "CACHE_ENTRY": "store.request_cache:MAX_ENTRY_BYTES",
    "MEMO_TEXT": "rolling.dice_memo:MAX_MEMO_TEXT",
    "MEMO_DICE": "rolling.dice_memo:MAX_MEMO_DICE",
    "LEAVES": "rolling.dice_memo:MAX_LEAVES",
    "ROOM": "rolling.dice_memo:ROOM",
    "SHAPE_TEXT": "language.shapes:MAX_SHAPE_TEXT",
    "SLOTS": "language.shapes:MAX_SLOTS",
    "BUILDS": "store.shape_cache:MAX_BUILDS",
    "ONE_BY_ONE": "dice.roller:MAX_ONE_BY_ONE",
    "PARTS": "language.vocabulary:MAX_PARTS",
    "PLAYERS": "rules.pendagger.scores:MAX_PLAYERS",
    "ODDS_STEPS": "probability.walk:ODDS_STEPS",
    "STATES": "dice.distribution:DEFAULT_MAX_STATES",
    "PATHS": "probability.walk:MAX_PATHS",
    "PATH_DICE": "probability.walk:MAX_PATH_DICE",
    "COMMAND_STEPS": "probability.walk:COMMAND_STEPS",
    "DEADLINE": "probability.walk:ODDS_DEADLINE",
    "EXPLODE_DEPTH": "dice.distribution:DEFAULT_EXPLODE_DEPTH",
    "TABLE_LINES": "probability.tables:MAX_LINES",
    "TABLE_STEPS": "probability.tables:MAX_STEPS",
    "LIST_LIMIT": "dice.tree:LIST_LIMIT",
    "COMBATANTS": "rules.initiative:MAX_COMBATANTS",
    "UNDO": "store.initiative:MAX_UNDO",
    "NOTES": "store.initiative:MAX_NOTES",
    "CONDITIONS": "rules.encounter:MAX_CONDITIONS",
    "COND_ROUNDS": "rules.encounter:MAX_ROUNDS",
    "POINTS": "rules.encounter:MAX_HIT_POINTS",
    "ENCOUNTER_FILE": "store.encounters:MAX_ENCOUNTER_FILE_BYTES",
    "ENCOUNTER_ENTRIES": "store.encounters:MAX_ENCOUNTER_ENTRIES",
    "ENCOUNTER_DEPTH": "store.encounters:MAX_ENCOUNTER_DEPTH",
    "SHEET_BYTES": "store.character_import:MAX_SHEET_BYTES",
    "SHEET_DEPTH": "store.character_import:MAX_SHEET_DEPTH",
}

#: The rows of docs/limits.md's table: a limit, and its default with `{NAME:FORMAT}` for
#: each number from LIMIT_HOMES (`,`: 10,000; `MB`, `MiB`, `KiB`: in those units; `s`:
#: seconds). A number written here is an example or a measurement, never a limit.
LIMITS = (
    (
        "request length",
        "{REQUEST:,} characters (a line of standard input or of the shell too: a longer one "
        "is skipped, in time linear in its length)",
    ),
    (
        "parenthesis depth",
        "{PAREN_DEPTH:,} levels (expression tree: {TREE_DEPTH:,}; `-` signs in a row: "
        "{PAREN_DEPTH:,})",
    ),
    (
        "a character's entries in an expression (`1d20+dex`, entries that use entries)",
        "each entry read once a request; what they make holds at most {TREE_NODES:,} nodes "
        "(as many as the longest typed request) and {TREE_DEPTH:,} levels, counted before it "
        'is built, else an error naming the entry: `e0 = "+e1+e1+e1"` ... 13 levels (3^13 '
        "terms) is refused at once",
    ),
    (
        "digits in a number",
        "{DICE_DIGITS} in dice expressions, {WORD_DIGITS} in request words (modifiers, DCs), "
        "{FACE_DIGITS} in a `--dice` face, {OPTION_DIGITS} in other option values",
    ),
    (
        "which digits",
        "0-9 only: any other digit (`١`, `５`, `²`) is an error at its column, except in a "
        "`[label]` or a `# comment`",
    ),
    ("sides of a die", "1 to {SIDES:,}"),
    ("a total", "±{TOTAL:,}"),
    ("`Nx` repeat", "1 to {NX:,}"),
    (
        "`--repeat`, `--simulate`",
        "1 to {ROLLED_RUNS:,} results rolled one by one (a group's members and a contest's "
        "sides count each); 1 to {REPEAT:,} with `--summary` drawn from the exact odds "
        "(Ctrl-C stops a long run: exit status 130)",
    ),
    (
        "dice budget per request (dice, explosions, rerolls, `Nx`)",
        "{BUDGET:,} (`--budget N` or `D20_BUDGET`, at most {MAX_BUDGET:,})",
    ),
    (
        "work budget per command (dice over all `--repeat`/`--simulate` runs)",
        "{WORK:,} (`--work N` or `D20_WORK`, at most {MAX_WORK:,}); refused before rolling "
        "when the fewest dice the runs need are over it",
    ),
    (
        "output of one command",
        "{OUTPUT_PER_WORK:,} characters per die of the work budget ({OUTPUT:,} by default)",
    ),
    (
        "roll log",
        "a row's dice {ROW_DICE:,} characters (past that, a summary); {RUN_BYTES:MB} per "
        "run; `log.keep` in the config bounds its rows",
    ),
    (
        "sealed session",
        "a table roll keeps its tables' text, at most {TABLE_TEXT:KiB} a roll and "
        "{TABLE_BYTES:MB} a run; `d20 verify` reads an export of at most {EXPORT_BYTES:MiB} "
        "a piece at a time (a row at most {ROW_BYTES:MiB}) and a receipts file of at most "
        "{RECEIPTS_BYTES:MiB} (each line once, in time proportional to its length); it "
        "parses at most {PARSED:,} characters of different request texts and tables (more: "
        "refused, exit status 2) and rolls at most {VERIFY_WORK:,} dice again (a table "
        "roll's die counts {TABLE_WORK}); a killed sealed run leaves at most {BLOCK} "
        "positions without a row",
    ),
    (
        "parse cache (`requests.cache`)",
        "{CACHE_ENTRIES:,} requests, {CACHE_FILE:,} bytes (an entry over {CACHE_ENTRY:,} is "
        "not kept); used only under the MAC of your key (`cache-key`, 128 bytes), then "
        "entries checked as the grammar checks requests; a file that fails is dropped and "
        "rebuilt",
    ),
    (
        "results a batch remembers by their dice (in memory, for a plain line rolled again)",
        "requests of at most {MEMO_TEXT:,} characters and results of at most {MEMO_DICE} "
        "dice; {LEAVES:,} results a request, about {ROOM:MB} of results a run (with "
        "`--odds`, up to as much again for their noted copies)",
    ),
    (
        "shape cache (`shapes.cache`)",
        "{CACHE_ENTRIES:,} shapes, {CACHE_FILE:,} bytes (an entry over {CACHE_ENTRY:,} is "
        "not kept); used only under the MAC of your key, as the parse cache; texts of at "
        "most {SHAPE_TEXT:,} characters and {SLOTS} numbers; {BUILDS} new shapes learnt per "
        "run at their first sight, then a shape met a second time",
    ),
    (
        "dice rolled one by one (keep/drop, pools, rerolls, explosions, unique, min/max)",
        "{ONE_BY_ONE:,} per request whatever `--budget` says (about 175 bytes each); "
        "explosions and rerolls are refused up front when their average count is over it "
        "or over the budget",
    ),
    (
        "explosions and rerolls that could never stop (`1d1!`, `1d2r<3`)",
        "refused before rolling",
    ),
    ("group check", "{PARTS:,} members"),
    (
        "contest, opposed check",
        "{PARTS:,} sides (exact odds: up to three sides; more, `--simulate N`)",
    ),
    ("`--players`", "1 to {PLAYERS:,}"),
    (
        "exact odds (`odds`, `--odds`, `--repeat N --summary`)",
        "{ODDS_STEPS:,} steps (about 3 s) in all: the exact distributions of its modifiers "
        "and damage ({STATES:,} each at most) and {PATHS:,} resolver cases, each charged "
        "with its dice and questions ({PATH_DICE:,} dice at most); the cases x work per "
        "case are estimated from the first case and a request over the limit is refused "
        "at once; every distribution's cost includes the exact fractions its weights "
        "become (how many totals x how many digits: `odds roll 1000000d6kh1`, six totals "
        "of 2.6 million bits, is refused at once), and a custom die is costed by the span "
        "of its values; all the requests of one `odds compare` share {COMMAND_STEPS:,} "
        "steps; which requests are refused is decided by these counted steps alone, so a "
        "request gets the same answer on a busy machine as on a quiet one (a {DEADLINE:s} "
        "deadline, watched inside the arithmetic too, is only a safety net should an "
        "estimate be wrong: no accepted request comes near it); explosions exact to "
        "{EXPLODE_DEPTH} levels deep; beyond that, `--simulate N` (a `--summary` rolls each "
        "result instead)",
    ),
    (
        "`odds table`",
        "{TABLE_LINES:,} entries and rolls listed; {TABLE_STEPS:,} steps for its "
        "distributions together, and {COMMAND_STEPS:,} steps for the whole table, its "
        "requests' odds included",
    ),
    (
        "a character sheet (`d20 char import`)",
        "{SHEET_BYTES:MiB}, refused before it is read; JSON nested at most {SHEET_DEPTH} deep, "
        "counted on the text before it is parsed (in time proportional to its length)",
    ),
    (
        "a table's die",
        "the dice budget and the work budget of a plain roll; more than {LIST_LIMIT:,} dice "
        "are kept as a summary (`roll_dice_summary`), as a `roll` keeps them",
    ),
    (
        "an encounter (`d20 init`)",
        "{COMBATANTS:,} combatants; HP, AC, damage and healing up to {POINTS:,}; "
        "{CONDITIONS:,} conditions a combatant, each at most {COND_ROUNDS:,} rounds; notes of "
        "{NOTES:,} characters; `init undo` takes back the last {UNDO:,} changes",
    ),
    (
        "an encounter file (`d20 init load`)",
        "{ENCOUNTER_FILE:KiB}, refused before it is parsed; {ENCOUNTER_ENTRIES:,} "
        "`[[combatant]]` entries; TOML nested {ENCOUNTER_DEPTH:,} levels",
    ),
)


class _Units(string.Formatter):
    def format_field(self, value: object, spec: str) -> str:
        units = {"MB": 10**6, "MiB": 2**20, "KiB": 2**10}
        if spec in units:
            whole, rest = divmod(int(value), units[spec])  # type: ignore[call-overload]
            if rest:
                raise ValueError(f"{value} is not a whole number of {spec}")
            return f"{whole:,} {spec}"
        if spec == "s":
            return f"{value:g} s"
        return super().format_field(value, spec)


def limit_values() -> dict[str, object]:
    """Each limit's value, read from its one home (LIMIT_HOMES)."""
    import importlib

    values: dict[str, object] = {}
    for name, home in LIMIT_HOMES.items():
        module, attr = home.split(":")
        values[name] = getattr(importlib.import_module("d20cli." + module), attr)
    values["OUTPUT"] = values["OUTPUT_PER_WORK"] * values["WORK"]  # type: ignore[operator]
    return values


def limits_table() -> str:
    values = limit_values()
    rows = ["| limit | default |", "| --- | --- |"]
    for limit, default in LIMITS:
        rows.append(f"| {cell(limit)} | {cell(_Units().format(default, **values))} |")
    return "\n".join([LIMITS_BEGIN, "", *rows, "", LIMITS_END])


def limits_page(text: str) -> str:
    """docs/limits.md with its table made again."""
    start, end = text.index(LIMITS_BEGIN), text.index(LIMITS_END) + len(LIMITS_END)
    return text[:start] + limits_table() + text[end:]


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
        ARCHITECTURE_PAGE: architecture_page(ARCHITECTURE_PAGE.read_text(encoding="utf-8")),
        **system_pages(),
        PERFORMANCE_PAGE: cache_page(PERFORMANCE_PAGE.read_text(encoding="utf-8")),
        LIMITS_PAGE: limits_page(LIMITS_PAGE.read_text(encoding="utf-8")),
    }
    return write_stale(wanted, argv, "make_docs.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
