"""What `d20 help COMMAND` (and the manual page) says about each command that is not a verb:
a paragraph on what it is for, and examples. The command's one line, its subcommands and
its options are not written here: d20cli.app.help reads them from the typer app, the
source `d20 COMMAND --help` reads, so the two cannot drift (tests/test_help.py checks that
every command has an entry, and tests/test_docs.py runs the examples)."""

from __future__ import annotations

from typing import NamedTuple


class Guide(NamedTuple):
    """What a command is for, examples as typed after `d20`, and its usage where the typer
    app cannot say it (a command that reads its own words)."""

    about: str
    examples: tuple[str, ...]
    usage: str = ""


GUIDE: dict[str, Guide] = {
    "help": Guide(
        "d20 help lists the verbs, the systems that have each and an example of each. "
        "d20 help VERB explains the words the verb takes in each system (-s ID: in that "
        "system only); d20 help COMMAND explains a command.",
        ("help", "help roll", "help check -s levelup", "help char"),
        "d20 help [VERB | COMMAND] [-s ID]",
    ),
    "systems": Guide(
        "Each rule system with its id and aliases, its outcome tiers, the words its verbs "
        "take, its house-rule defaults and an example per verb. -s ID shows one system.",
        ("systems", "systems -s mm", "systems --json"),
    ),
    "shell": Guide(
        "One request per line, with the words and options of the command line, TAB "
        "completion and history. `system ID` switches the system, `as NAME` rolls as a "
        "character (`as -` stops), `again` (or `!!`) repeats the last request, and the "
        "commands (char, party, init, table, log, config, systems) work inside it. Bare "
        "`d20` on a terminal opens it too.",
        ("shell -s mm",),
    ),
    "odds": Guide(
        "The exact chance of every outcome of a request, as fractions, percentages and "
        "'1 in N', then the chance of success or better, from the same rules that roll "
        "it; a roll's totals as a chart. `odds "
        'compare "A" "B"` puts requests side by side; --simulate N estimates from N rolls.',
        (
            "odds check +5 vs 15 adv expertise=d6",
            "odds roll 4d6dl1",
            "odds attack +7 vs 15 dmg 1d8+4",
            'odds compare "check +5 vs 15 adv" "check +5 vs 15 expertise=d8"',
            "odds group +3, +5, -1, +2, +0, +4 vs 12 --simulate 100000",
        ),
    ),
    "char": Guide(
        "Characters keep their modifiers, attacks, macros and house rules under names in "
        "characters.toml in the config directory (a file you may edit by hand; d20 keeps "
        "your comments). Roll as one with --as NAME: `check stealth vs 15 --as aria` "
        "rolls aria's stealth entry; `char use NAME` makes every request roll as it.",
        (
            "char add aria --system levelup",
            "char set aria stealth +7 expertise=d6",
            "char set aria macros.sneak check stealth vs 15 adv",
            "char show aria",
            "char list",
        ),
    ),
    "party": Guide(
        "The characters who roll together, kept in the characters file. With --as party, "
        "a group check gives each character a roll of their own entry, and a group or "
        "contest gives member i to character i.",
        ("party add aria", "party", "party --json"),
    ),
    "table": Guide(
        "A roll table is a TOML file NAME.toml in the tables directory of the config "
        "directory (or any file named by its path): a die and the totals that pick each "
        "entry, or weighted entries. Each {...} in an entry is rolled: dice, another "
        "table or a request. `table check` reports every problem of a file with its line.",
        (
            "table examples/tables/road.toml --seed 4",
            "table list",
            "table check examples/tables/road.toml",
        ),
        "d20 table NAME | list | show NAME | check FILE... [OPTIONS]",
    ),
    "log": Guide(
        "Every roll is kept in the state database (--no-log or D20_NO_LOG=1 to skip). "
        "d20 log shows the recent rolls, with filters (--character, --since, --until, "
        "--system, --outcome, --session); --stats sums up each character's rolls and tests "
        "the d20s' fairness (--details: the faces and naturals); --export prints every "
        "roll as JSON or CSV; --clear and --prune delete rolls. On a terminal, a view "
        "taller than it goes through PAGER (less; --no-pager: never).",
        ("log", "log --limit 5 --tsv", "log --stats"),
    ),
    "config": Guide(
        "The config file (config.toml in the config directory) holds the default system, "
        'the colour and house-rule defaults per system ([levelup] crit-dmg = "max"). '
        "set and unset take dotted keys and keep your comments.",
        ("config show", "config set system mm", "config unset system", "config path"),
    ),
    "init": Guide(
        "An initiative order for an encounter, kept in the state database: init roll "
        "rolls the party's (each character's init entry, else its system's), init add "
        "adds monsters (goblin +2 x3), init next moves the turn and counts rounds, init "
        "rm takes one out and init clear ends the encounter.",
        ("init add goblin +2 x2", "init", "init next", "init clear"),
        "d20 init [show | roll | add NAME [+N] [adv|dis] [xN] | next | rm NAME | clear] [OPTIONS]",
    ),
    "seal": Guide(
        "Starts a sealed session for a remote game: it prints a commitment to post to the "
        "group before play; every roll after it comes from the session's secret seed and "
        "prints a receipt. d20 unseal ends it and prints the seed; d20 verify checks the "
        "exported rolls. --status shows the open session.",
        ("seal", "seal --status"),
    ),
    "unseal": Guide(
        "Ends the sealed session and prints its seed and how many rolls it made; share "
        "the seed with `d20 log --export json --session N`. --show N prints a closed "
        "session's seed again.",
        ("unseal", "unseal --show 1"),
    ),
    "verify": Guide(
        "Rolls every roll of an exported sealed session again from its seed and checks "
        "the commitment (--commitment HEX, as posted before play), each request's text, "
        "the receipts the group saw (--receipts FILE) and the hash chain. Exit status 0 "
        "when everything verifies, 1 when something does not.",
        ("verify rolls.json SEED --commitment HEX --receipts seen.txt",),
    ),
    "completion": Guide(
        "Prints the completion script for bash, zsh or fish (static: a TAB never starts "
        "Python); --install writes it where the shell looks.",
        ("completion bash", "completion zsh --install"),
    ),
}
