"""The command registry: every `d20 NAME` that is not a request verb, with its one line of
help. The fast path in d20cli.__main__ reads it without building the typer app, and
d20cli.app.cli registers exactly these commands with this help (tests/test_cli.py checks
that the two agree), so a command is listed once. `PANELS` says which group of
`d20 --help` each is listed in."""

from __future__ import annotations

COMMANDS: dict[str, str] = {
    "help": "The words each verb takes, per system, with examples: d20 help [VERB].",
    "systems": "List the rule systems with their verbs, words, outcome tiers and examples.",
    "shell": "The interactive shell: one request per line, TAB completion, history, `again`.",
    "odds": "The exact probability of every outcome of a request, instead of a roll.",
    "char": "Characters: name your bonuses once (--as NAME).",
    "party": "The party: characters who roll together (--as party).",
    "table": "Roll tables: roll one (table NAME), list, show or check them.",
    "log": "The roll log: recent rolls, fairness, export.",
    "config": "The config file: default system, colour, house-rule defaults.",
    "init": "Initiative: roll the party's, add monsters, show the order, next turn.",
    "seal": "Start a sealed session: a commitment to share, then rolls anyone can verify.",
    "unseal": "End the sealed session and print its seed, to verify its rolls with.",
    "verify": "Check a sealed session's exported log against its seed: d20 verify LOG SEED.",
    "completion": "Print the completion script for bash, zsh or fish (or --install it).",
}

#: The groups `d20 --help` lists the commands in, in this order (typer's rich_help_panel);
#: every request verb is under "Rolling" too.
PANELS: dict[str, tuple[str, ...]] = {
    "Rolling": ("odds", "help", "systems", "shell"),
    "At the table": ("table", "init", "party"),
    "Files and state": ("char", "config", "log", "completion"),
    "Sealed sessions": ("seal", "unseal", "verify"),
}
