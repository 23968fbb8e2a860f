"""Shell completion for `d20`: static bash, zsh and fish scripts made from the program's own
tables, and the word table the interactive shell completes from.

Every word comes from where the program itself defines it: the verbs and the keywords after
each verb from `d20cli.language.grammar` (`VERBS`, `KEYWORDS`), the option names from
`d20cli.app.options.OPTIONS`, the system ids and aliases from `d20cli.rules`, and the other
commands (`systems`, `shell`, `odds`, `completion`, ...) with their options and
subcommands from the typer app. Nothing here is a second, hand-kept list.

The scripts are static: a TAB looks words up inside the shell and never starts Python, so
it costs milliseconds. They are generated into `completions/` (`python -m d20cli
completion bash > completions/d20.bash`, ...); tests/test_completion.py checks that those
files are current.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SHELLS: tuple[str, ...] = ("bash", "zsh", "fish")
FILE_NAMES: Mapping[str, str] = {"bash": "d20.bash", "zsh": "_d20", "fish": "d20.fish"}
HELP_OPTIONS: tuple[str, ...] = ("--help", "-h")
_SAFE = re.compile(r"[A-Za-z0-9._=-]+")


@dataclass(frozen=True)
class Option:
    names: tuple[str, ...]
    help: str
    takes_value: bool
    values: tuple[str, ...] = ()  # the values to offer after it (--system: the systems)


@dataclass(frozen=True)
class Command:
    """A command that is not a verb (`systems`, `completion`, `char`, ...)."""

    name: str
    help: str
    options: tuple[Option, ...] = ()
    arguments: tuple[str, ...] = ()  # words to offer as its first argument
    subcommands: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    verbs: tuple[str, ...]
    verb_help: Mapping[str, str]
    keywords: Mapping[str, tuple[str, ...]]  # verb -> keywords offered after it
    options: tuple[Option, ...]  # the request options (options.OPTIONS)
    systems: tuple[str, ...]  # ids, then aliases
    commands: tuple[Command, ...] = field(default=())
    top_options: tuple[str, ...] = ("--version", *HELP_OPTIONS)

    def option_names(self) -> tuple[str, ...]:
        return tuple(n for o in self.options for n in o.names)

    def value_options(self) -> tuple[str, ...]:
        """Every option name (of requests and commands) that takes a value."""
        names = [n for o in self.options if o.takes_value for n in o.names]
        for c in self.commands:
            names += [n for o in c.options if o.takes_value for n in o.names]
        return tuple(dict.fromkeys(names))

    def command_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.commands)


def system_names(shell_safe: bool = False) -> tuple[str, ...]:
    """The system ids, then their aliases. shell_safe: only the names a shell can take
    unquoted (`m&m` would start a background job in bash)."""
    from d20cli.rules import ALIASES, SYSTEM_IDS

    names = (*SYSTEM_IDS, *(a for a in ALIASES if a not in SYSTEM_IDS))
    if shell_safe:
        names = tuple(n for n in names if _SAFE.fullmatch(n))
    return names


def grammar_verbs() -> tuple[str, ...]:
    from d20cli.language.grammar import VERBS

    return tuple(VERBS)


def grammar_keywords() -> dict[str, tuple[str, ...]]:
    """The grammar's keywords for each verb (words only: no numbers, no placeholders)."""
    from d20cli.language.grammar import COMPLETION_WORDS

    table: Any = COMPLETION_WORDS
    verbs = grammar_verbs()
    if isinstance(table, Mapping):
        return {v: _words(table.get(v, ())) for v in verbs}
    words = _words(table)
    return {v: words for v in verbs}


def _words(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(w for w in items if w and not w[0].isdigit() and " " not in w))


def request_options(shell_safe: bool = False) -> tuple[Option, ...]:
    from d20cli.app.options import OPTIONS

    systems = system_names(shell_safe)
    return tuple(
        Option(
            spec.names,
            spec.help,
            spec.value is not None,
            systems if spec.field == "system" else (),
        )
        for spec in OPTIONS
    )


def table(commands: tuple[Command, ...]) -> Table:
    """The words of the command-line completion scripts; `commands`: the typer app's
    commands that are not verbs (d20cli.app.cli.completion_commands reads them)."""
    from d20cli.language.vocabulary import VERB_HELP

    verbs = grammar_verbs()
    return Table(
        verbs=verbs,
        verb_help={v: VERB_HELP[v][0] if v in VERB_HELP else "" for v in verbs},
        keywords=grammar_keywords(),
        options=request_options(shell_safe=True),
        systems=system_names(shell_safe=True),
        commands=commands,
    )


# -- the scripts ---------------------------------------------------------------------------

_HEADER = (
    "d20 completion for {shell}: generated by `d20 completion {shell}` from d20cli's own\n"
    "tables (verbs, keywords, options, systems, commands). Do not edit by hand.\n"
)


def _comment(text: str) -> str:
    return "".join(f"# {line}\n" if line else "#\n" for line in text.splitlines())


def _q(words: Iterable[str]) -> str:
    """Words as one single-quoted shell string."""
    return shlex.quote(" ".join(words))


def _case_arm(pattern: Iterable[str]) -> str:
    return "|".join(shlex.quote(p) for p in pattern)


def _by_keywords(t: Table) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The verbs grouped by the keywords they take (one case arm per group)."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for v in t.verbs:
        groups.setdefault(t.keywords.get(v, ()), []).append(v)
    return [(tuple(verbs), words) for words, verbs in groups.items()]


def bash_script(t: Table) -> str:
    request_opts = (*t.option_names(), *HELP_OPTIONS)
    lines = [
        _comment(_HEADER.format(shell="bash")),
        "# Enable: source this file, or put it in ~/.local/share/bash-completion/completions/d20",
        "# (`d20 completion bash --install` does that).",
        "",
        "_d20_words() {",
        "    # The words to offer for command $1 (its verb after `odds`: $2), current word $3.",
        '    local cmd="$1" verb="$2" cur="$3"',
        '    case "$cmd" in',
    ]
    for c in t.commands:
        opts = (*(n for o in c.options for n in o.names), *HELP_OPTIONS)
        if c.name == "odds":
            lines += [
                "        odds)",
                '            if [[ -z "$verb" ]]; then',
                f'                [[ "$cur" == -* ]] && echo {_q(request_opts)} '
                f"|| echo {_q(t.verbs)}",
                "            else",
                '                _d20_words "$verb" "" "$cur"',
                "            fi",
                "            ;;",
            ]
            continue
        first = (*c.arguments, *c.subcommands)
        lines += [
            f"        {_case_arm([c.name])})",
            f'            if [[ "$cur" == -* ]]; then echo {_q(opts)}; '
            f'elif [[ -z "$verb" ]]; then echo {_q(first)}; fi',
            "            ;;",
        ]
    for verbs, keywords in _by_keywords(t):
        lines += [
            f"        {_case_arm(verbs)})",
            f'            [[ "$cur" == -* ]] && echo {_q(request_opts)} || echo {_q(keywords)}',
            "            ;;",
        ]
    lines += [
        "    esac",
        "}",
        "",
        "_d20() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" cmd="" verb="" w i skip=0',
        '    (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"',
        "    COMPREPLY=()",
        '    case "$prev" in',
        f"        {_case_arm(n for o in t.options if o.values for n in o.names)})",
        f'            COMPREPLY=($(compgen -W {_q(t.systems)} -- "$cur"))',
        "            return 0",
        "            ;;",
        f"        {_case_arm(t.value_options())})",
        "            return 0",
        "            ;;",
        "    esac",
        "    for (( i = 1; i < COMP_CWORD; i++ )); do",
        '        w="${COMP_WORDS[i]}"',
        "        if (( skip )); then skip=0; continue; fi",
        '        case "$w" in',
        f"            {_case_arm(t.value_options())}) skip=1; continue ;;",
        "            -*) continue ;;",
        "        esac",
        '        if [[ -z "$cmd" ]]; then cmd="$w"',
        '        elif [[ -z "$verb" ]]; then verb="$w"; fi',
        "    done",
        '    if [[ -z "$cmd" ]]; then',
        '        if [[ "$cur" == -* ]]; then',
        f"            COMPREPLY=($(compgen -W {_q((*t.option_names(), *t.top_options))} "
        '-- "$cur"))',
        "        else",
        f'            COMPREPLY=($(compgen -W {_q((*t.verbs, *t.command_names()))} -- "$cur"))',
        "        fi",
        "        return 0",
        "    fi",
        '    COMPREPLY=($(compgen -W "$(_d20_words "$cmd" "$verb" "$cur")" -- "$cur"))',
        "    return 0",
        "}",
        "",
        "complete -F _d20 d20",
        "",
    ]
    return "\n".join(lines)


def zsh_script(t: Table) -> str:
    request_opts = (*t.option_names(), *HELP_OPTIONS)
    lines = [
        "#compdef d20",
        _comment(_HEADER.format(shell="zsh")),
        "# Enable: put this file, named _d20, in a directory on $fpath before compinit",
        "# (`d20 completion zsh --install` does that and says which line to add).",
        "",
        "_d20() {",
        "    local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd= verb= w i skip=0",
        "    local -a reply",
        "    case $prev in",
        f"        {_case_arm(n for o in t.options if o.values for n in o.names)})",
        f"            reply=({_zw(t.systems)})",
        "            compadd -a reply",
        "            return",
        "            ;;",
        f"        {_case_arm(t.value_options())})",
        "            return 1",
        "            ;;",
        "    esac",
        "    for (( i = 2; i < CURRENT; i++ )); do",
        "        w=${words[i]}",
        "        if (( skip )); then skip=0; continue; fi",
        "        case $w in",
        f"            {_case_arm(t.value_options())}) skip=1; continue ;;",
        "            -*) continue ;;",
        "        esac",
        "        if [[ -z $cmd ]]; then cmd=$w",
        "        elif [[ -z $verb ]]; then verb=$w; fi",
        "    done",
        "    if [[ -z $cmd && $cur == -* ]]; then",
        f"        reply=({' '.join(shlex.quote(w) for w in (*t.option_names(), *t.top_options))})",
        "    elif [[ -z $cmd ]]; then",
        f"        reply=({' '.join(shlex.quote(w) for w in (*t.verbs, *t.command_names()))})",
        "    else",
        "        [[ $cmd == odds && -n $verb ]] && { cmd=$verb; verb=; }",
        "        case $cmd in",
    ]
    for c in t.commands:
        opts = (*(n for o in c.options for n in o.names), *HELP_OPTIONS)
        first = (*c.arguments, *c.subcommands)
        if c.name == "odds":
            opts = request_opts
        lines += [
            f"            {_case_arm([c.name])})",
            f"                if [[ $cur == -* ]]; then reply=({_zw(opts)}); "
            f"elif [[ -z $verb ]]; then reply=({_zw(first)}); fi",
            "                ;;",
        ]
    for verbs, keywords in _by_keywords(t):
        lines += [
            f"            {_case_arm(verbs)})",
            f"                if [[ $cur == -* ]]; then reply=({_zw(request_opts)}); "
            f"else reply=({_zw(keywords)}); fi",
            "                ;;",
        ]
    lines += [
        "        esac",
        "    fi",
        "    (( ${#reply} )) && compadd -a reply",
        "}",
        "",
        'if [[ "${funcstack[1]}" == _d20 ]]; then',
        '    _d20 "$@"',
        "else",
        "    compdef _d20 d20",
        "fi",
        "",
    ]
    return "\n".join(lines)


def _zw(words: Iterable[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def _fish_q(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish_script(t: Table) -> str:
    cmds = (*t.verbs, *t.command_names())
    seen_any = f"__fish_seen_subcommand_from {' '.join(cmds)}"
    out = [
        _comment(_HEADER.format(shell="fish")),
        "# Enable: put this file in ~/.config/fish/completions/d20.fish",
        "# (`d20 completion fish --install` does that).",
        "",
        "complete -c d20 -f",
    ]
    for v in t.verbs:
        out.append(
            f"complete -c d20 -n 'not {seen_any}' -a {v} -d {_fish_q(t.verb_help.get(v, ''))}"
        )
    for c in t.commands:
        out.append(f"complete -c d20 -n 'not {seen_any}' -a {c.name} -d {_fish_q(c.help)}")
    for verbs, words in _by_keywords(t):
        if words:
            seen = f"__fish_seen_subcommand_from {' '.join(verbs)}"
            out.append(f"complete -c d20 -n '{seen}' -a {_fish_q(' '.join(words))}")
    for c in t.commands:
        first = (*c.arguments, *c.subcommands)
        if c.name == "odds":
            out.append(
                f"complete -c d20 -n '__fish_seen_subcommand_from odds; and not "
                f"__fish_seen_subcommand_from {' '.join(t.verbs)}' -a {_fish_q(' '.join(first))}"
            )
        elif first:
            out.append(
                f"complete -c d20 -n '__fish_seen_subcommand_from {c.name}' "
                f"-a {_fish_q(' '.join(first))}"
            )
        for o in c.options:
            out.append(
                f"complete -c d20 -n '__fish_seen_subcommand_from {c.name}' " + _fish_option(o)
            )
    for o in t.options:
        out.append("complete -c d20 " + _fish_option(o))
    out.append("complete -c d20 -l version -d 'Show the version.'")
    out.append("complete -c d20 -s h -l help -d 'Show help.'")
    out.append("")
    return "\n".join(out)


def _fish_option(o: Option) -> str:
    parts = []
    for n in o.names:
        if n.startswith("--"):
            parts.append(f"-l {n[2:]}")
        elif n.startswith("-") and len(n) == 2:
            parts.append(f"-s {n[1:]}")
        else:
            parts.append(f"-o {n[1:]}")
    if o.takes_value:
        parts.append("-x")  # takes a value; no file names
    if o.values:
        parts.append(f"-a {_fish_q(' '.join(o.values))}")
    if o.help:
        parts.append(f"-d {_fish_q(o.help)}")
    return " ".join(parts)


_MAKERS = {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}


def _shell_name(shell: str) -> str:
    from d20cli.errors import ParseError

    name = shell.strip().lower()
    if name not in _MAKERS:
        raise ParseError(f"no completion for {shell!r}: the shells are {', '.join(SHELLS)}")
    return name


def script(shell: str, commands: tuple[Command, ...]) -> str:
    """The completion script for bash, zsh or fish."""
    return _MAKERS[_shell_name(shell)](table(commands))


# -- installing ----------------------------------------------------------------------------


def _home_dir(env: str, default: str) -> Path:
    """An XDG base directory (the one rule of d20cli.store.files: absolute, else the default),
    used only when it lies inside the home directory: an install writes nowhere else."""
    from d20cli.store.files import home_dir, xdg_dir

    home = Path(home_dir())
    path = Path(xdg_dir(env, default))
    return path if path.resolve().is_relative_to(home.resolve()) else home / default


def install_path(shell: str) -> Path:
    """Where `--install` puts the script: the user's standard completion directory."""
    name = _shell_name(shell)
    if name == "bash":
        data = _home_dir("XDG_DATA_HOME", ".local/share")
        return data / "bash-completion" / "completions" / "d20"
    if name == "zsh":
        return _home_dir("XDG_DATA_HOME", ".local/share") / "zsh" / "site-functions" / "_d20"
    return _home_dir("XDG_CONFIG_HOME", ".config") / "fish" / "completions" / "d20.fish"


def install_script(shell: str, commands: tuple[Command, ...]) -> str:
    """Write the script for `shell` into the user's completion directory (atomically);
    returns a message saying where, and what else to do."""
    from d20cli.errors import StateError

    name = _shell_name(shell)
    text = script(name, commands)
    path = install_path(name)
    from d20cli.store.files import atomic_write

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(str(path), text)
    except OSError as err:
        raise StateError(f"cannot write {path}: {err.strerror or err}") from err
    message = f"Installed d20 completion for {name} in {path}"
    if name == "bash":
        message += (
            "\nIt loads in new bash sessions when bash-completion is installed; otherwise add"
            f"\n  source {path}\nto ~/.bashrc."
        )
    elif name == "zsh":
        message += (
            "\nAdd these lines to ~/.zshrc (before any compinit), then start a new shell:"
            f"\n  fpath=({path.parent} $fpath)\n  autoload -Uz compinit && compinit"
        )
    else:
        message += "\nfish loads it in new sessions."
    return message
