"""Completion for `d20`: what a TAB offers in a given place, from the program's own tables.

Every word comes from where the program defines it: the verbs of each system and the
words each verb takes after it and after `vs` from the systems (`System.verbs`,
`System.offers`, whose words are `d20cli.language.vocabulary.KIND_WORDS`), the option
names from `d20cli.app.options.OPTIONS`, the system ids and aliases from the vocabulary,
and the other commands (`systems`, `char`, `log`, `completion`, ...) with their options and
subcommands from the typer app. Nothing here is a second, hand-kept list.

The candidates depend on the place (`scan`): the system in force (`-s`, `--system`,
`--system=`, else the `--as` character's system, else `D20_SYSTEM`, else the config file,
else levelup), the command or verb, and the word before the cursor (`vs`, `--system`,
`--as`, ...). `candidates` answers for the interactive shell; the static shell scripts
(`completion_scripts`) do the same lookups inside bash, zsh and fish without starting
Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from d20cli.frozen import field, frozen
from d20cli.language.vocabulary import (
    ALIASES,
    CHECK_VERBS,
    CONTEST_VERBS,
    DEFAULT_SYSTEM,
    SYSTEM_IDS,
    VERB_HELP,
    VERBS,
)

SHELLS: tuple[str, ...] = ("bash", "zsh", "fish")
FILE_NAMES: Mapping[str, str] = {"bash": "d20.bash", "zsh": "_d20", "fish": "d20.fish"}
HELP_OPTIONS: tuple[str, ...] = ("--help", "-h")
#: What a dynamic value names: the characters in the characters file, the roll tables,
#: the files and directories on disk (`char import FILE`, `--svg FILE`: the shell's own
#: file name completion).
CHARACTERS = "characters"
TABLES = "tables"
FILES = "files"


@frozen
class Option:
    names: tuple[str, ...]
    help: str
    takes_value: bool
    values: tuple[str, ...] = ()  # the values to offer after it (--system: the system ids)
    dynamic: str = ""  # or the names it takes: CHARACTERS (--as)
    verbs: tuple[str, ...] | None = None  # the verbs that take it (None: every verb)
    odds: bool = True  # whether `d20 odds` takes it
    systems: tuple[str, ...] | None = None  # the systems it is for (None: every one)

    def taken_by(self, verb: str, system: str = "") -> bool:
        """Whether `d20 VERB` (verb "odds": `d20 odds`) takes it (`OptionSpec.taken_by`),
        in `system` if given (`--boon`: the systems with fortune dice)."""
        if system and self.systems is not None and system not in self.systems:
            return False
        if verb == "odds":
            return self.odds
        return self.verbs is None or verb in self.verbs


@frozen
class Command:
    """A command that is not a verb (`systems`, `completion`, `char`, ...).

    arguments: words offered as its first argument; dynamic: what else its first argument
    names (TABLES for `table`); after: (first argument, what the next one names), e.g.
    (`show`, CHARACTERS) for `char show NAME`, (`table`, TABLES) for `odds table NAME`."""

    name: str
    help: str
    options: tuple[Option, ...] = ()
    arguments: tuple[str, ...] = ()
    subcommands: tuple[str, ...] = ()
    dynamic: str = ""
    after: tuple[tuple[str, str], ...] = ()

    def option_names(self) -> tuple[str, ...]:
        return (*(n for o in self.options for n in o.names), *HELP_OPTIONS)


@frozen
class SystemWords:
    """One system's words for completion: its verbs, and for each verb the words after it
    (place "") and after each word that opens a place of its own (`vs`, `spend`), and the
    conditions its encounters know (`init cond NAME <TAB>`: its `System.harm`)."""

    id: str
    verbs: tuple[str, ...]
    places: tuple[tuple[str, str, tuple[str, ...]], ...]  # (verb, place, words)
    conditions: tuple[str, ...] = ()

    def words(self, verb: str, place: str = "") -> tuple[str, ...] | None:
        """The words after `place` in a `verb` request; None when `place` opens nothing."""
        verb, place = verb.lower(), place.lower()
        for v, p, words in self.places:
            if v == verb and p == place:
                return words
        return None


def system_words(sid: str) -> SystemWords:
    from d20cli.rules import get_system

    system = get_system(sid)
    places: list[tuple[str, str, tuple[str, ...]]] = []
    for verb in system.verbs:
        offer = system.offers.get(verb)
        if offer is None:
            continue
        places.append((verb, "", offer.words()))
        places += [(verb, p, offer.words(p)) for p in offer.places()]
    conditions = system.harm.conditions if system.harm is not None else ()
    return SystemWords(system.id, tuple(system.verbs), tuple(places), tuple(conditions))


@frozen
class Table:
    """Everything the completion scripts know, made once by `d20 completion SHELL`."""

    systems: tuple[SystemWords, ...]
    aliases: Mapping[str, str]  # every name a system goes by (ids too) -> its id
    verb_help: Mapping[str, str]
    options: tuple[Option, ...]  # the request options (options.OPTIONS)
    commands: tuple[Command, ...] = field(default=())
    top_options: tuple[str, ...] = ("--version", *HELP_OPTIONS)

    def option_names(self, verb: str | None = None, system: str = "") -> tuple[str, ...]:
        """The request options' names; with `verb`, of those the verb takes (a word that
        is no verb: every option), in `system` if given."""
        known = verb is None or verb == "odds" or any(verb in s.verbs for s in self.systems)
        return tuple(
            n for o in self.options if not known or o.taken_by(verb or "", system) for n in o.names
        )

    def system_options(self) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
        """The options only some systems take, with those systems: ((names, systems),)."""
        return tuple((o.names, o.systems) for o in self.options if o.systems is not None)

    def verb_groups(self) -> dict[str, tuple[str, ...]]:
        """The verbs grouped by the options they take: {verb: option names} for every verb
        of every system and `odds`."""
        verbs = dict.fromkeys(v for s in self.systems for v in s.verbs)
        return {v: self.option_names(v) for v in (*verbs, "odds")}

    def value_options(self) -> tuple[str, ...]:
        """Every option name (of requests and commands) that takes a value."""
        names = [n for o in self.options if o.takes_value for n in o.names]
        for c in self.commands:
            names += [n for o in c.options if o.takes_value for n in o.names]
        return tuple(dict.fromkeys(names))

    def command_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.commands)

    def command(self, name: str) -> Command | None:
        return next((c for c in self.commands if c.name == name), None)

    def system(self, name: str) -> SystemWords:
        """The system a name (id or alias, any case) stands for; the default for none."""
        sid = self.aliases.get(_key(name), DEFAULT_SYSTEM)
        return next(s for s in self.systems if s.id == sid)

    def value_option(self, name: str) -> Option | None:
        """The option of this name that takes a value (request options first)."""
        for o in (*self.options, *(o for c in self.commands for o in c.options)):
            if name in o.names and o.takes_value:
                return o
        return None


def _key(name: str) -> str:
    return name.strip().lower().replace("_", "-").replace(" ", "-").replace(".", "-")


def request_options() -> tuple[Option, ...]:
    """The request options; `--system` offers the four ids, `--as` the characters, a FILE
    option (`--svg`) the files;
    `--boon` is for the systems with fortune dice only (d20cli.app.fortune)."""
    from d20cli.app.fortune import with_fortune_dice
    from d20cli.app.options import OPTIONS

    return tuple(
        Option(
            spec.names,
            spec.help,
            spec.value is not None,
            SYSTEM_IDS if spec.field == "system" else (),
            CHARACTERS if spec.field == "as_" else FILES if spec.metavar == "FILE" else "",
            spec.verbs,
            spec.odds,
            with_fortune_dice() if spec.field == "boon" else None,
        )
        for spec in OPTIONS
    )


def table(commands: tuple[Command, ...] = ()) -> Table:
    """The words of completion; `commands`: the typer app's commands that are not verbs
    (d20cli.app.cli.completion_commands reads them)."""

    return Table(
        systems=tuple(system_words(sid) for sid in SYSTEM_IDS),
        aliases={**{s: s for s in SYSTEM_IDS}, **ALIASES},
        verb_help={v: VERB_HELP[v][0] for v in VERBS},
        options=request_options(),
        commands=commands,
    )


# -- what a place offers --------------------------------------------------------------------


@frozen
class Place:
    """Where the cursor is: the system in force (as typed: an id, an alias or ""), the
    `--as` character, the command or verb and the words after it, and the word before the
    cursor."""

    system: str
    character: str
    cmd: str
    args: tuple[str, ...]
    prev: str


def scan(words: Sequence[str], t: Table) -> Place:
    """Read the words before the cursor (without the program's name)."""
    system = character = cmd = ""
    args: list[str] = []
    skip = ""
    for w in words:
        if skip:
            if skip in ("-s", "--system"):
                system = w
            elif skip == "--as":
                character = w
            skip = ""
            continue
        if w.startswith("--system="):
            system = w.partition("=")[2]
        elif w.startswith("--as="):
            character = w.partition("=")[2]
        elif w.startswith("-s") and len(w) > 2 and w[2] != "-":
            system = w[2:]  # -smm
        elif w in t.value_options():
            skip = w
        elif w.startswith("-") and len(w) > 1 and not w[1].isdigit():
            pass  # an option (a negative number, -1, is a word)
        elif not cmd:
            cmd = w
        else:
            args.append(w)
    return Place(system, character, cmd, tuple(args), words[-1] if words else "")


def _no_system(name: str) -> str:
    return ""


def _no_macros(name: str) -> Iterable[str]:
    return ()


def _no_entries(name: str, verb: str) -> Iterable[str]:
    return ()


def _no_files(prefix: str) -> Iterable[str]:
    return ()


@frozen
class Names:
    """The names that are not in the program's tables, read only when a place asks for them
    (they cost a file read). characters: the characters file's names; tables: the roll
    tables; default: the system when none is named (the shell's `system`); system_of: a
    character's system ("" for none); active: the character in use when the line names
    none (`D20_CHARACTER`, `d20 char use`); macros: a character's macro names (offered as
    commands); entries: a character's entry names that a verb's label words can use;
    combatants: the encounter's names; conditions: the system's conditions; files: the
    paths that start with a prefix (`file_names`)."""

    characters: Iterable[str] = ()
    tables: Iterable[str] = ()
    default: str = ""
    system_of: Callable[[str], str] = _no_system
    active: str = ""
    macros: Callable[[str], Iterable[str]] = _no_macros
    entries: Callable[[str, str], Iterable[str]] = _no_entries
    combatants: Iterable[str] = ()
    conditions: Iterable[str] = ()
    files: Callable[[str], Iterable[str]] = _no_files


class Lazy:
    """An iterable read when first iterated (a list of names from a file)."""

    def __init__(self, load: Callable[[], Iterable[str]]) -> None:
        self._load = load

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())


def table_names() -> list[str]:
    """The roll tables in the tables directory (`d20cli.store.tables.names`)."""
    from d20cli.store.tables import names

    return names()


#: The most entries of one directory `file_names` reads (a huge directory: the first ones).
MAX_LISTED = 2_000


def file_names(prefix: str) -> list[str]:
    """The files and directories whose path starts with `prefix` (`sheets/ar`: the entries
    of `sheets` that start with `ar`; `~/` is the home), directories ending in `/`, as the
    shells complete a file's name; hidden ones only for a prefix that starts with `.`."""
    import os

    folder, slash, start = prefix.rpartition("/")
    where = os.path.expanduser(folder + slash) if slash else "."
    found: list[str] = []
    try:
        with os.scandir(where or "/") as listing:
            for n, entry in enumerate(listing):
                if n >= MAX_LISTED:
                    break
                if not entry.name.startswith(start) or (
                    entry.name.startswith(".") and not start.startswith(".")
                ):
                    continue
                try:
                    folder_too = entry.is_dir()
                except OSError:
                    folder_too = False
                found.append(folder + slash + entry.name + ("/" if folder_too else ""))
    except OSError:
        return []
    return sorted(found)


def offerable(word: str) -> bool:
    """Whether TAB may put `word` on a line: one word of printable characters. A name from a
    file that holds a control, bidi or other format character (U+202E) or a blank is not
    offered: the line would draw it as it is, and a visible form (`\\u202e`) would name
    nothing (docs/security.md)."""
    return word.isprintable() and " " not in word


def candidates(words: Sequence[str], cur: str, t: Table, names: Names) -> list[str]:
    """What may replace `cur`, the word at the cursor, after `words` (`offerable` words)."""
    place = scan(words, t)
    low = cur.lower()
    found = [w for w in _offered(place, cur, t, names) if w.lower().startswith(low)]
    return [w for w in dict.fromkeys(found) if offerable(w)]


def in_force(place: Place, t: Table, names: Names) -> SystemWords:
    """The system in force: named on the line, else the character's, else the default."""
    who = character(place, names)
    name = place.system or (who and names.system_of(who))
    name = name or names.default
    return t.system(name)


def character(place: Place, names: Names) -> str:
    """The character a request rolls as: `--as` on the line, else the one in use ("" for
    none; `none` is nobody)."""
    who = place.character or names.active
    return "" if who.lower() == "none" else who


#: The verbs whose label words name a character's entries, and the verb they are looked
#: up for (a group member and a contest side look in `checks`, as a check does).
LABEL_VERBS: Mapping[str, str] = {
    **{v: v for v in CHECK_VERBS},
    **{v: "check" for v in (*CONTEST_VERBS, "group")},
}


def _offered(place: Place, cur: str, t: Table, names: Names) -> Iterable[str]:
    option = t.value_option(place.prev)
    if option is not None:
        return _values(option, names, cur)
    for o in (*t.options, *(o for c in t.commands for o in c.options)):
        for n in o.names:
            if n.startswith("--") and o.takes_value and cur.startswith(n + "="):
                return (f"{n}={v}" for v in _values(o, names, cur[len(n) + 1 :]))
    command = t.command(place.cmd)
    if cur.startswith("-"):
        if not place.cmd:
            return (*t.option_names(), *t.top_options)
        if command is not None and command.name != "odds":
            return command.option_names()
        sid = in_force(place, t, names).id  # (`--boon`: where there are fortune dice)
        return (*t.option_names(place.cmd.lower(), sid), *HELP_OPTIONS)
    system = in_force(place, t, names)
    who = character(place, names)
    if not place.cmd:
        return (*system.verbs, *t.command_names(), *(names.macros(who) if who else ()))
    if command is None:
        return _request_words(system, place.cmd, place.args, place.prev, who, names)
    if command.name == "init" and place.args and place.args[0].lower() in INIT_NAMED:
        if len(place.args) == 1:
            return names.combatants
        if len(place.args) == 2 and place.args[0].lower() == "cond":
            return names.conditions
        return ()
    kind = dict(command.after).get(place.args[0]) if len(place.args) == 1 else None
    if kind is not None:
        return _dynamic(kind, names, cur)
    if command.name == "odds":
        if not place.args:
            return (*system.verbs, *command.arguments)  # `odds compare "A" "B"`
        return _request_words(system, place.args[0], place.args[1:], place.prev, who, names)
    if not place.args:
        dynamic = _dynamic(command.dynamic, names, cur)
        return (*command.arguments, *command.subcommands, *dynamic)
    return ()


#: The `init` subcommands whose first word is a combatant's name.
INIT_NAMED = ("hurt", "heal", "cond", "note", "rm", "pin")


def _request_words(
    system: SystemWords,
    verb: str,
    args: Sequence[str],
    prev: str,
    who: str = "",
    names: Names | None = None,
) -> tuple[str, ...]:
    """The words after a `verb` request's `args`: those of the place `prev` opens (`vs`),
    else the verb's own, with the entries of character `who` its label words can use."""
    if args and prev == args[-1]:
        after = system.words(verb, prev)
        if after is not None:
            return after
    found = system.words(verb) or ()
    looked_up = LABEL_VERBS.get(verb.lower())
    if who and names is not None and looked_up is not None:
        return (*found, *names.entries(who, looked_up))
    return found


def _values(option: Option, names: Names, cur: str = "") -> Iterable[str]:
    return (*option.values, *_dynamic(option.dynamic, names, cur))


def _dynamic(kind: str, names: Names, cur: str = "") -> Iterable[str]:
    """The names of `kind`; files: those whose path starts with `cur`."""
    if kind == CHARACTERS:
        return names.characters
    if kind == TABLES:
        return names.tables
    if kind == FILES:
        return names.files(cur)
    return ()
