"""The static fish completion script: the lookups of `completion.candidates` in fish's own
language (`switch` tables of the words of every system and verb), so a TAB never starts
Python. Names that live in files are read by fish itself, as in the bash and zsh scripts
(`completion_scripts`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from d20cli.app.completion.engine import (
    CHARACTERS,
    FILES,
    INIT_NAMED,
    LABEL_VERBS,
    TABLES,
    Command,
    Option,
    Table,
)
from d20cli.app.completion.scripts import (
    _HEADER,
    CHARACTERS_AWK,
    ENTRIES_AWK,
    _comment,
    _grouped,
    _values_of,
    _verb_groups,
    table_name_pattern,
)
from d20cli.language.vocabulary import DEFAULT_SYSTEM


def _table_file() -> str:
    """A path whose file name is a roll table's (PCRE: `\\z` is the very end)."""
    return "/" + table_name_pattern()[1:-1] + "\\.toml\\z"


def _fq(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _words(words: Iterable[str]) -> str:
    return " ".join(_fq(w) for w in words)


def _described(pairs: Iterable[tuple[str, str]]) -> str:
    """`printf` arguments for word<TAB>description lines."""
    return " ".join(f"{_fq(w)} {_fq(d)}" for w, d in pairs)


_HELP = (("--help", "Show help."), ("-h", "Show help."))


def _options(options: Iterable[Option], top: bool = False) -> str:
    """`printf` arguments for the options' names, each with its help."""
    pairs = [(n, o.help) for o in options for n in o.names]
    pairs += [("--version", "Show the version.")] if top else []
    return _described((*pairs, *_HELP))


#: What offers each kind of name (FILES: fish's own completion of file names, of the
#: word at the cursor).
_GETTERS = {
    CHARACTERS: "__d20_characters",
    TABLES: "__d20_tables",
    FILES: "__fish_complete_path $cur",
}


def _after(c: Command, indent: str) -> list[str]:
    """A `switch` on the first argument: the names the next one takes (`case show rm`)."""
    kinds: dict[str, list[str]] = {}
    for word, kind in c.after:
        kinds.setdefault(kind, []).append(word)
    out = [f"{indent}switch $args[1]"]
    for kind, words in kinds.items():
        out += [f"{indent}    case {_words(words)}", f"{indent}        {_GETTERS[kind]}; return"]
    return [*out, f"{indent}end"]


def fish_script(t: Table) -> str:
    out = [
        _comment(_HEADER.format(shell="fish")),
        "# Enable: put this file in ~/.config/fish/completions/d20.fish",
        "# (`d20 completion fish --install` does that).",
        "",
        "function __d20_system --description 'the id of a system name'",
        "    switch (string lower -- $argv[1] | string replace -ra '[_. ]' -)",
    ]
    for s in t.systems:
        names = [n for n, i in t.aliases.items() if i == s.id]
        out += [f"        case {_words(names)}", f"            echo {s.id}"]
    out += [
        "        case '*'",
        f"            echo {DEFAULT_SYSTEM}",
        "    end",
        "end",
        "",
        "function __d20_verbs --description 'the verbs of a system, described'",
        "    switch $argv[1]",
    ]
    for s in t.systems:
        pairs = [(v, t.verb_help.get(v, "")) for v in s.verbs]
        out += [f"        case {s.id}", f"            printf '%s\\t%s\\n' {_described(pairs)}"]
    out += [
        "    end",
        "end",
        "",
        "function __d20_words --description 'the words after place $argv[3] of a request'",
        '    switch "$argv[1] $argv[2] $argv[3]"',
    ]
    rows = [(f"{s.id} {v} {p}", words) for s in t.systems for v, p, words in s.places]
    for keys, words in _grouped(rows):
        out += [f"        case {_words(keys)}"]
        out += [f"            printf '%s\\n' {_words(words)}" if words else "            true"]
    out += [
        "        case '*'",
        "            return 1",
        "    end",
        "end",
        "",
        "function __d20_dir",
        "    if string match -q -- '/*' \"$XDG_CONFIG_HOME\"",
        '        echo "$XDG_CONFIG_HOME/d20cli"',
        "    else",
        '        echo "$HOME/.config/d20cli"',
        "    end",
        "end",
        "",
        "function __d20_characters --description 'the characters; with NAME: its system'",
        "    set -l f (__d20_dir)/characters.toml",
        "    test -r $f; or return 0",
        f'    awk -v want="$argv[1]" -v q="\'" {_fq(CHARACTERS_AWK)} $f 2>/dev/null',
        "end",
        "",
        "function __d20_entries --description 'the names of character NAME verb VERB can use'",
        "    set -l f (__d20_dir)/characters.toml",
        "    test -r $f; or return 0",
        f'    awk -v want="$argv[1]" -v verb="$argv[2]" -v mine={_fq(" ".join(_verb_groups()))} '
        f'-v q="\'" {_fq(ENTRIES_AWK)} $f 2>/dev/null',
        "end",
        "",
        "function __d20_combatants --description 'the names in the encounter'",
        "    # the `combatants` file d20 writes beside state.db at each change, a name a line",
        "    set -l f $HOME/.local/state/d20cli/combatants",
        "    string match -q -- '/*' \"$XDG_STATE_HOME\"",
        "    and set f $XDG_STATE_HOME/d20cli/combatants",
        "    test -r $f; or return 0",
        "    set -l n 0",
        "    while read -l line",
        "        set n (math $n + 1)",
        "        test $n -gt 200; and break",
        "        string match -qr -- '^[^\\s\\x00-\\x1f\\x7f]{1,64}\\z' $line",
        "        and printf '%s\\n' $line",
        "    end < $f",
        "end",
        "",
        "function __d20_conditions --description 'the conditions of system $argv[1]'",
        "    switch $argv[1]",
        *(
            line
            for sw in t.systems
            if sw.conditions
            for line in (
                f"        case {sw.id}",
                f"            printf '%s\\n' {_words(sw.conditions)}",
            )
        ),
        "    end",
        "end",
        "",
        "function __d20_config_value --description 'KEY = \"...\" in config.toml'",
        "    set -l f (__d20_dir)/config.toml",
        "    test -r $f; or return 0",
        "    while read -l line",
        "        string match -qr -- '^\\s*\\[' $line; and return 0",
        '        set -l v (string match -r -- "^\\s*$argv[1]\\s*=\\s*[\\"\']([^\\"\']*)" $line)',
        "        set -q v[2]; and echo $v[2]; and return 0",
        "    end < $f",
        "end",
        "",
        "function __d20_tables --description 'the roll tables'",
        "    # the *.toml files in tables/ named as tables are named (a name is data)",
        "    for f in (__d20_dir)/tables/*.toml",
        f"        string match -qr -- {_fq(_table_file())} $f",
        "        and string replace -r -- '(?s)^.*/(.*)\\.toml\\z' '$1' $f",
        "    end",
        "end",
        "",
        "function __d20_values --description 'the values of option $argv[1] (files: of $argv[2])'",
        "    switch $argv[1]",
    ]
    for o, names in _values_of(t):
        out.append(f"        case {_words(names)}")
        if o.dynamic == CHARACTERS:
            out.append("            __d20_characters")
        elif o.dynamic == TABLES:
            out.append("            __d20_tables")
        elif o.dynamic == FILES:
            out.append("            __fish_complete_path $argv[2]")
        elif o.values:
            out.append(f"            printf '%s\\n' {_words(o.values)}")
        else:
            out.append("            true")
    out += [
        "        case '*'",
        "            return 1",
        "    end",
        "end",
        "",
        "function __d20_options --description 'the options after command $argv[1]'",
        "    switch $argv[1]",
        "        case ''",
        f"            printf '%s\\t%s\\n' {_options(t.options, top=True)}",
    ]
    for c in t.commands:
        if c.name != "odds":
            out += [
                f"        case {_fq(c.name)}",
                f"            printf '%s\\t%s\\n' {_options(c.options)}",
            ]
    for verbs, taken in _grouped(t.verb_groups().items()):
        options = [o for o in t.options if o.names[0] in taken]
        out += [
            f"        case {_words(verbs)}",
            f"            printf '%s\\t%s\\n' {_options(options)}",
        ]
    out += [
        "        case '*'",
        f"            printf '%s\\t%s\\n' {_options(t.options)}",
        "    end",
        "end",
        "",
        *_complete_function(t),
        "",
        "complete -c d20 -f -a '(__d20_complete)'",
        "",
    ]
    return "\n".join(out)


def _complete_function(t: Table) -> list[str]:
    value_options = _words(t.value_options())
    out = [
        "function __d20_complete --description 'what d20 takes at the cursor'",
        "    set -l words (commandline -opc)[2..-1]",
        "    set -l cur (commandline -ct)",
        "    set -l sys; set -l char; set -l cmd; set -l args; set -l skip",
        "    for w in $words",
        '        if test -n "$skip"',
        "            contains -- $skip -s --system; and set sys $w",
        "            test $skip = --as; and set char $w",
        "            set skip; continue",
        "        end",
        "        switch $w",
        "            case '--system=*'",
        "                set sys (string replace -- --system= '' $w)",
        "            case '--as=*'",
        "                set char (string replace -- --as= '' $w)",
        f"            case {value_options}",
        "                set skip $w",
        "            case '-s?*'",
        "                string match -qr -- '^-s-' $w; or set sys (string sub -s 3 -- $w)",
        "            case '-[0-9]*'",
        '                test -z "$cmd"; and set cmd $w; or set -a args $w',
        "            case '-?*'",
        "            case '*'",
        '                test -z "$cmd"; and set cmd $w; or set -a args $w',
        "        end",
        "    end",
        "    set -l prev $words[-1]",
        '    __d20_values "$prev" "$cur"; and return',
        "    if string match -qr -- '^--[^=]+=' $cur",
        "        set -l opt (string replace -r -- '=.*' '' $cur)",
        "        for v in (__d20_values $opt (string replace -r -- '^[^=]*=' '' $cur))",
        '            echo "$opt=$v"',
        "        end",
        "        return",
        "    end",
        '    test -z "$char"; and set char $D20_CHARACTER',
        '    test -z "$char"; and set char (__d20_config_value character)',
        '    string match -qi -- none "$char"; and set char',
        '    test -z "$sys" -a -n "$char"; and set sys (__d20_characters $char)',
        '    test -z "$sys"; and set sys $D20_SYSTEM',
        '    test -z "$sys"; and set sys (__d20_config_value system)',
        '    set sys (__d20_system "$sys")',
        "    if string match -q -- '-*' $cur",
        '        set -l offered (__d20_options (string lower -- "$cmd"))',
    ]
    for names, systems in t.system_options():  # `--boon`: only where it does something
        drop = "|".join(re.escape(n) for n in names)
        keep = _fq(f"^({drop})\\t")
        out.append(
            f"        contains -- $sys {_words(systems)}; "
            f"or set offered (string match -v -r -- {keep} $offered)"
        )
    out += [
        "        printf '%s\\n' $offered",
        "        return",
        "    end",
        '    if test -z "$cmd"',
        "        __d20_verbs $sys",
    ]
    pairs = [(c.name, c.help) for c in t.commands]
    out += [
        f"        printf '%s\\t%s\\n' {_described(pairs)}",
        '        test -n "$char"; and __d20_entries $char macros',
        "        return",
        "    end",
        "    set -l verb $cmd",
        "    switch $cmd",
    ]
    for c in t.commands:
        if c.name == "odds":
            out += [
                "        case odds",
                "            if not set -q args[1]",
                "                __d20_verbs $sys",
                f"                printf '%s\\n' {_words(c.arguments)}",
                "                return",
                "            end",
                *(
                    [
                        "            if test (count $args) -eq 1",
                        *_after(c, "                "),
                        "            end",
                    ]
                    if c.after
                    else []
                ),
                "            set verb $args[1]",
                "            set -e args[1]",
            ]
            continue
        words = (*c.arguments, *c.subcommands)
        out += [f"        case {_fq(c.name)}", "            if not set -q args[1]"]
        if words:
            out.append(f"                printf '%s\\n' {_words(words)}")
        if c.dynamic:
            out.append(f"                {_GETTERS[c.dynamic]}")
        if c.after:
            out += ["            else if test (count $args) -eq 1", *_after(c, "                ")]
        if c.name == "init":  # `init hurt NAME`, `init cond NAME WORD`
            out += [
                "            else if test (count $args) -eq 1; and "
                f"contains -- (string lower -- $args[1]) {_words(INIT_NAMED)}",
                "                __d20_combatants",
                "            else if test (count $args) -eq 2; and "
                "test (string lower -- $args[1]) = cond",
                "                __d20_conditions $sys",
            ]
        out += ["            end", "            return"]
    out += [
        "    end",
        "    set verb (string lower -- $verb)",
        '    if set -q args[1]; and test "$prev" = "$args[-1]"',
        "        __d20_words $sys $verb (string lower -- $prev); and return",
        "    end",
        "    __d20_words $sys $verb ''",
        '    test -n "$char"; or return 0',
        "    switch $verb",
    ]
    for verbs, (looked_up,) in _grouped((v, (u,)) for v, u in LABEL_VERBS.items()):
        out += [f"        case {_words(verbs)}", f"            __d20_entries $char {looked_up}"]
    out += ["    end", "    return 0", "end"]
    return out
