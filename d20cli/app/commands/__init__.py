"""The command registry: every `d20 NAME` that is not a request verb, one row each, in the
order `d20 --help` lists them. Everything that knows the commands reads it: the fast path
(d20cli.__main__: who reads a line), the typer app (d20cli.app.cli mounts each row's
module), `d20 --help`'s panels, `d20 help COMMAND` and the manual page (the row's
paragraph and examples), the shell and completion. Importing it imports nothing else:
the fast path reads it on every start.

A command is one module and one row here. The module, `d20cli/app/commands/<module>.py`,
makes a `typer.Typer` named `app`: for `mount=COMMAND`, the command itself
(`@app.command("NAME")`, which `d20 NAME` runs); for `mount=GROUP`, its subcommands
(`d20 NAME SUB`). The row's one-line `help` is the command's help wherever it is shown.
"""

from __future__ import annotations

from d20cli.records import NamedTuple

#: How a row's module is mounted on the typer app.
COMMAND = "command"  # the module's `app` holds the command NAME itself
GROUP = "group"  # the module's `app` is the group: its commands are `d20 NAME SUB`

#: Who reads a command's line (d20cli.__main__).
TYPER = "typer"  # the typer app (d20cli.app.cli.run_command)
RUNNER = "runner"  # the runner, as a request's line, without importing typer; --help too
RUNNER_TYPER_HELP = "runner, typer's help"  # the runner; with --help, the typer app

#: The groups `d20 --help` lists the commands in, in this order (the request verbs are
#: under the first).
ROLLING = "Rolling"
AT_THE_TABLE = "At the table"
FILES = "Files and state"
SEALED = "Sealed sessions"


class Command(NamedTuple):
    """One command: its name, the group of `d20 --help` it is listed in, its one line of
    help, the module that makes it (under d20cli.app.commands; default: its name), how
    that module is mounted, who reads its line, and what `d20 help NAME` adds: what it is
    for, examples as typed after `d20`, and its usage where the typer app cannot say it
    (a command that reads its own words)."""

    name: str
    panel: str
    help: str
    module: str = ""
    mount: str = COMMAND
    reader: str = TYPER
    about: str = ""
    examples: tuple[str, ...] = ()
    usage: str = ""


_ROWS: tuple[Command, ...] = (
    Command(
        "odds",
        ROLLING,
        "The exact probability of every outcome of a request, instead of a roll.",
        reader=RUNNER,
        about=(
            "The exact chance of every outcome of a request, as fractions, percentages and "
            "'1 in N', then the chance of success or better, from the same rules that roll "
            'it; a roll\'s totals as a chart. `odds compare "A" "B"` puts requests side by '
            "side; --simulate N estimates from N rolls."
        ),
        examples=(
            "odds check +5 vs 15 adv expertise=d6",
            "odds roll 4d6dl1",
            "odds attack +7 vs 15 dmg 1d8+4",
            'odds compare "check +5 vs 15 adv" "check +5 vs 15 expertise=d8"',
            "odds group +3, +5, -1, +2, +0, +4 vs 12 --simulate 100000",
        ),
    ),
    Command(
        "help",
        ROLLING,
        "The words each verb takes, per system, with examples: d20 help [VERB].",
        reader=RUNNER,
        about=(
            "d20 help lists the verbs, the systems that have each and an example of each. "
            "d20 help VERB explains the words the verb takes in each system (-s ID: in that "
            "system only); d20 help COMMAND explains a command."
        ),
        examples=("help", "help roll", "help check -s levelup", "help char"),
        usage="d20 help [VERB | COMMAND] [-s ID]",
    ),
    Command(
        "systems",
        ROLLING,
        "List the rule systems with their verbs, words, outcome tiers and examples.",
        about=(
            "Each rule system with its id and aliases, its outcome tiers, the words its "
            "verbs take, its house-rule defaults and an example per verb. -s ID shows one "
            "system."
        ),
        examples=("systems", "systems -s mm", "systems --json"),
    ),
    Command(
        "shell",
        ROLLING,
        "The interactive shell: one request per line, TAB completion, history, `again`.",
        reader=RUNNER_TYPER_HELP,
        about=(
            "One request per line, with the words and options of the command line, TAB "
            "completion and history. `system ID` switches the system, `as NAME` rolls as a "
            "character (`as -` stops), `again` (or `!!`) repeats the last request, and the "
            "commands (char, party, init, table, log, config, systems) work inside it. Bare "
            "`d20` on a terminal opens it too."
        ),
        examples=("shell -s mm",),
    ),
    Command(
        "table",
        AT_THE_TABLE,
        "Roll tables: roll one (table NAME), list, show or check them.",
        module="table_command",
        reader=RUNNER_TYPER_HELP,
        about=(
            "A roll table is a TOML file NAME.toml in the tables directory of the config "
            "directory (or any file named by its path): a die and the totals that pick each "
            "entry, or weighted entries. Each {...} in an entry is rolled: dice, another "
            "table or a request. `table check` reports every problem of a file with its "
            "line."
        ),
        examples=(
            "table examples/tables/road.toml --seed 4",
            "table list",
            "table check examples/tables/road.toml",
        ),
        usage="d20 table NAME | list | show NAME | check FILE... [OPTIONS]",
    ),
    Command(
        "init",
        AT_THE_TABLE,
        "Initiative: roll the party's, add monsters, show the order, next turn.",
        mount=GROUP,
        about=(
            "An encounter, kept in the state database: init roll rolls the party's "
            "initiative, init add adds combatants (goblin +2 x3 hp 7 ac 15, aria, cleo "
            "=17), init pin fixes a place, init hurt and init heal change HP by the "
            "system's rule for 0 HP, init cond sets conditions (10r, until end of aria's "
            "turn), init next moves the turn, init dyn rerolls each round, init undo takes "
            "a change back, init save, load and list keep encounters, init clear ends it. "
            "An attack vs AC NAME hits a combatant."
        ),
        examples=(
            "init add goblin +2 x2 hp 7 ac 15",
            "init hurt goblin-1 4",
            "init cond goblin-2 prone",
            "init",
            "init next",
            "init undo",
            "init clear",
        ),
        usage=(
            "d20 init [show | roll | add NAME [+N] [xN] [=N] [hp N] [ac N] | pin NAME N | "
            "hurt NAME N | heal NAME N | cond NAME WORD [Nr] | note NAME TEXT | next | dyn | "
            "undo | rm NAME | save NAME | load NAME | list | clear] [OPTIONS]"
        ),
    ),
    Command(
        "gm",
        AT_THE_TABLE,
        "The GM screen: the order with HP bars, the party, the roll log, a command line.",
        about=(
            "A full-screen game master's screen in the terminal: the initiative order with "
            "HP bars, AC and conditions, whose turn it is, the party, the tail of the roll "
            "log, and a command line that takes every request and init command with TAB "
            "completion, as d20 shell does. F5 (Ctrl-N) next turn, F6 (Ctrl-Z) undo, F7 "
            "(Ctrl-T) damage and F8 (Ctrl-Y) heal the combatant selected with the arrow "
            "keys; Ctrl-C or Ctrl-D quits. It reads and writes the same state as the "
            "commands: a change made in another terminal appears within half a second."
        ),
        examples=("gm", "gm -s mm"),
    ),
    Command(
        "party",
        AT_THE_TABLE,
        "The party: characters who roll together (--as party).",
        mount=GROUP,
        about=(
            "The characters who roll together, kept in the characters file. With --as "
            "party, a group check gives each character a roll of their own entry, and a "
            "group or contest gives member i to character i."
        ),
        examples=("party add aria", "party", "party --json"),
    ),
    Command(
        "char",
        FILES,
        "Characters: name your bonuses once (--as NAME).",
        mount=GROUP,
        about=(
            "Characters keep their modifiers, attacks, macros and house rules under names "
            "in characters.toml in the config directory (a file you may edit by hand; d20 "
            "keeps your comments). Roll as one with --as NAME: `check stealth vs 15 --as "
            "aria` rolls aria's stealth entry; `char use NAME` makes every request roll as "
            "it. `char import FILE` makes one from a sheet another program exported (Foundry "
            "VTT Level Up A5E or Mutants & Masterminds 3e, D&D Beyond JSON), keeping what you "
            "wrote by hand; `char export NAME --format md` prints a card."
        ),
        examples=(
            "char add aria --system levelup",
            "char set aria stealth +7 expertise=d6",
            "char set aria macros.sneak check stealth vs 15 adv",
            "char import examples/sheets/aria-a5e.json --as aria --dry-run",
            "char export aria --format md",
            "char show aria",
            "char list",
        ),
    ),
    Command(
        "config",
        FILES,
        "The config file: default system, colour, house-rule defaults.",
        mount=GROUP,
        about=(
            "The config file (config.toml in the config directory) holds the default "
            "system, the colour and house-rule defaults per system ([levelup] crit-dmg = "
            '"max"). set and unset take dotted keys and keep your comments.'
        ),
        examples=("config show", "config set system mm", "config unset system", "config path"),
    ),
    Command(
        "log",
        FILES,
        "The roll log: recent rolls, fairness, export.",
        mount=GROUP,
        about=(
            "Every roll is kept in the state database (--no-log or D20_NO_LOG=1 to skip). "
            "d20 log shows the recent rolls, with filters (--character, --since, --until, "
            "--system, --outcome, --session); --stats sums up each character's rolls and "
            "tests the d20s' fairness (--details: the faces and naturals); --export prints "
            "every roll as JSON or CSV; --clear and --prune delete rolls. On a terminal, a "
            "view taller than it goes through PAGER (less; --no-pager: never)."
        ),
        examples=("log", "log --limit 5 --tsv", "log --stats"),
    ),
    Command(
        "completion",
        FILES,
        "Print the completion script for bash, zsh or fish (or --install it).",
        about=(
            "Prints the completion script for bash, zsh or fish (static: a TAB never starts "
            "Python); --install writes it where the shell looks."
        ),
        examples=("completion bash", "completion zsh --install"),
    ),
    Command(
        "post",
        AT_THE_TABLE,
        "The rolls waiting to be posted to a webhook: --status, --retry sends them now.",
        about=(
            "With --post URL, D20_POST or post.url in the config file, each roll is posted "
            "to a webhook (Discord's message, or JSON to any other receiver). A post that "
            "could not be sent waits in the state database: d20 post --status shows what "
            "waits and why, d20 post --retry sends it now, d20 post --clear drops it."
        ),
        examples=("post --status", "post --retry"),
    ),
    Command(
        "seal",
        SEALED,
        "Start a sealed session: a commitment to share, then rolls anyone can verify.",
        about=(
            "Starts a sealed session for a remote game: it prints a commitment to post to "
            "the group before play; every roll after it comes from the session's secret "
            "seed and prints a receipt. After the commitment is posted, d20 seal --salt TEXT "
            "takes the table's salt (before the first roll): the dice come from the seed and "
            "it, so no one could choose them. d20 unseal ends it and prints the seed; d20 "
            "verify checks the exported rolls. --status shows the open session."
        ),
        examples=("seal", "seal --salt 'owlbear at dawn'", "seal --status"),
    ),
    Command(
        "unseal",
        SEALED,
        "End the sealed session and print its seed, to verify its rolls with.",
        module="seal",
        about=(
            "Ends the sealed session and prints its seed and how many rolls it made; share "
            "the seed with `d20 log --export json --session N`. --show N prints a closed "
            "session's seed again."
        ),
        examples=("unseal", "unseal --show 1"),
    ),
    Command(
        "verify",
        SEALED,
        "Check a sealed session's exported log against its seed: d20 verify LOG SEED.",
        module="seal",
        about=(
            "Rolls every roll of an exported sealed session again from its seed and checks "
            "the commitment (--commitment HEX, as posted before play), each request's text, "
            "the receipts and secret rolls the group saw (--receipts FILE), the salt it gave "
            "(--salt TEXT) and the hash chain. Exit status 0 when everything verifies, 1 when "
            "something does not. --page FILE.html writes "
            "one HTML file that does the same in a browser, offline, with this d20's own "
            "code (Pyodide), for players without d20."
        ),
        examples=("verify rolls.json SEED --commitment HEX --receipts seen.txt",),
    ),
    Command(
        "reveal",
        SEALED,
        "Show a secret roll of a sealed session: its request and result.",
        module="seal",
        about=(
            "A secret roll (VERB ... --secret in a sealed session) shows the table only its "
            "position and receipt. d20 reveal N shows roll #N's request and result, rolled "
            "again from the seed; d20 unseal shows every one; d20 verify proves each is the "
            "roll made then."
        ),
        examples=("reveal 3", "reveal 3 --session 2"),
    ),
)

#: Every command by name, in the order of `d20 --help`.
COMMANDS: dict[str, Command] = {row.name: row for row in _ROWS}

#: The panels of `d20 --help`, in order, with their commands in order.
PANELS: dict[str, tuple[str, ...]] = {}
for _row in _ROWS:
    PANELS[_row.panel] = (*PANELS.get(_row.panel, ()), _row.name)


def module_of(command: Command) -> str:
    """The module that makes `command` (d20cli.app.cli imports it to mount it)."""
    return f"d20cli.app.commands.{command.module or command.name}"
