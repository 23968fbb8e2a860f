"""Completion: the shipped scripts in completions/ are current; bash, zsh and fish offer
the words of the place (the verb, the system in force, the word before the cursor) from
those scripts, run by the real shells; the Python lookups (the interactive shell's) agree
with the bash script; names come from the characters file, the roll tables and the config;
--install writes only inside the user's home.

Each shell is driven the way it completes: bash through its completion function with
COMP_LINE/COMP_POINT and through an interactive bash in a terminal (pexpect), zsh through
its function with `words`/CURRENT and interactively, fish through `complete -C` (its own
completion engine). zsh and fish tests are skipped where the shell is not installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from d20cli.app.cli import completion_commands, completion_script
from d20cli.app.completion import engine as completion
from d20cli.app.completion import install as completion_install
from d20cli.app.completion import scripts as completion_scripts
from d20cli.app.completion.engine import Names, table
from d20cli.app.options import OPTIONS
from d20cli.language.vocabulary import SYSTEM_IDS, VERB_HELP, VERBS
from d20cli.store.characters import character_names

ROOT = Path(__file__).resolve().parent.parent
COMPLETIONS = ROOT / "completions"
BASH = shutil.which("bash") or "/bin/bash"
ZSH = shutil.which("zsh")
FISH = shutil.which("fish")
TIMEOUT = 15
needs_zsh = pytest.mark.skipif(ZSH is None, reason="zsh is not installed")
needs_fish = pytest.mark.skipif(FISH is None, reason="fish is not installed")

MM_TARGETS = {
    "DC",
    "dc",
    "very-easy",
    "easy",
    "average",
    "tough",
    "challenging",
    "formidable",
    "heroic",
    "super-heroic",
    "nigh-impossible",
    "defense",
    "parry",
    "dodge",
    "fortitude",
    "toughness",
    "will",
    "rank",
    "routine",
}


@pytest.fixture(scope="module")
def words() -> completion.Table:
    return table(completion_commands(VERB_HELP))


@pytest.fixture
def config(tmp_path: Path) -> Iterator[Path]:
    """The config directory (XDG_CONFIG_HOME/d20cli), with three characters and two
    tables."""
    home = Path(os.environ["XDG_CONFIG_HOME"]) / "d20cli"
    (home / "tables").mkdir(parents=True)
    (home / "characters.toml").write_text(
        "# the party\n"
        '[aria]\nsystem = "levelup"\nstealth = "+7 expertise=d6"\n'
        '[aria.saves]\nsystem = "+2"\n'
        "[ \"bob\" ]\nsystem = 'mm'   # a hero\n"
        '[carl-3]\nperception = "+4 [x]"\n',
        encoding="utf-8",
    )
    (home / "tables" / "loot.toml").write_text("", encoding="utf-8")
    (home / "tables" / "wild-magic.toml").write_text("", encoding="utf-8")
    yield home


# -- the shipped scripts ---------------------------------------------------------------------


@pytest.mark.parametrize("shell", completion.SHELLS)
def test_shipped_scripts_are_current(shell: str) -> None:
    path = COMPLETIONS / completion.FILE_NAMES[shell]
    assert path.read_text(encoding="utf-8") == completion_script(shell), (
        f"{path} is out of date: run `d20 completion {shell} > {path.relative_to(ROOT)}`"
    )


@pytest.mark.parametrize("shell", completion.SHELLS)
def test_scripts_hold_every_verb_option_and_system(shell: str) -> None:
    text = completion_script(shell)
    for word in (*VERBS, *SYSTEM_IDS, "adv", "expertise=d6", "nigh-impossible", "godlike"):
        assert word in text
    for spec in OPTIONS:
        for name in spec.names:
            assert name in text


def test_script_syntax_bash() -> None:
    run = subprocess.run([BASH, "-n", str(COMPLETIONS / "d20.bash")], capture_output=True)
    assert run.returncode == 0, run.stderr


@needs_zsh
def test_script_syntax_zsh() -> None:
    run = subprocess.run([str(ZSH), "-n", str(COMPLETIONS / "_d20")], capture_output=True)
    assert run.returncode == 0, run.stderr


@needs_fish
def test_script_syntax_fish() -> None:
    path = str(COMPLETIONS / "d20.fish")
    run = subprocess.run([str(FISH), "--no-execute", path], capture_output=True)
    assert run.returncode == 0, run.stderr


def test_completion_command_prints_the_script() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "completion", "bash"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == (COMPLETIONS / "d20.bash").read_text(encoding="utf-8")


# -- the shells, driven --------------------------------------------------------------------


def bash_complete(line: str) -> list[str]:
    """Load completions/d20.bash into a bare bash, set COMP_LINE and COMP_POINT as bash
    does for the command line `line` (the cursor at its end), and COMP_WORDS split as
    bash splits it (at `=` too), call the function and return COMPREPLY."""
    script = (
        f"source {COMPLETIONS / 'd20.bash'}\n"
        'COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}\n'
        "_d20 d20\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    run = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", script, "bash", line],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0 and not run.stderr, run.stderr
    return [w for w in run.stdout.splitlines() if w]


def zsh_complete(line: str) -> list[str]:
    """Load completions/_d20 into `zsh -f`, set `words` and CURRENT as zsh does for
    `line`, and return what the function hands to compadd (zsh filters it by the prefix
    itself: done here)."""
    script = (
        "compdef() { : }\n"
        f"source {COMPLETIONS / '_d20'}\n"
        'compadd() { [[ $1 == -a ]] && print -rl -- "${(@P)2}" }\n'
        'words=(d20 "$@"); CURRENT=$#words\n'
        "_d20\n"
    )
    typed = line.split()[1:] + ([""] if line.endswith(" ") else [])
    run = subprocess.run(
        [str(ZSH), "-f", "-c", script, "zsh", *typed],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode in (0, 1) and not run.stderr, run.stderr  # 1: nothing to offer
    cur = typed[-1] if typed else ""
    return [w for w in run.stdout.splitlines() if w and w.startswith(cur)]


def fish_complete(line: str) -> list[str]:
    """What fish's own engine offers for `line` with completions/d20.fish loaded."""
    run = subprocess.run(
        [
            str(FISH),
            "--no-config",
            "-c",
            f"source {COMPLETIONS / 'd20.fish'}; complete -C $argv[1]",
            line,
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0 and not run.stderr, run.stderr
    return [w.split("\t")[0] for w in run.stdout.splitlines() if w]


def python_complete(line: str, t: completion.Table, names: Names | None = None) -> list[str]:
    typed = line.split()[1:]
    cur = "" if line.endswith(" ") or not typed else typed.pop()
    return completion.candidates(typed, cur, t, names or Names())


def without_equals(line: str, found: list[str]) -> list[str]:
    """What bash shows for `found` when the word at the cursor holds `=` (bash replaces
    only the part after it)."""
    cur = "" if line.endswith(" ") else line.split()[-1]
    if "=" not in cur:
        return found
    head = cur.rsplit("=", 1)[0] + "="
    return [w.removeprefix(head) for w in found]


PLACES: list[tuple[str, set[str] | None, set[str]]] = [
    # (line, exactly these, or at least none of these)
    ("d20 -s mm check +4 vs ", MM_TARGETS, set()),
    ("d20 --system=mm check +4 vs t", {"tough", "toughness"}, set()),
    ("d20 -smm check +4 ", None, {"adv", "godlike", "players=", "expertise"}),
    ("d20 check +5 expertise=", {"expertise=d4", "expertise=d6", "expertise=d8"}, set()),
    ("d20 check +5 expertise=d", {"expertise=d4", "expertise=d6", "expertise=d8"}, set()),
    ("d20 attack +7 vs 15 dmg 1d8 crit-dmg=m", {"crit-dmg=max"}, set()),
    ("d20 --system ", set(SYSTEM_IDS), set()),
    ("d20 check +1 -s ", set(SYSTEM_IDS), set()),
    ("d20 --system=", {f"--system={s}" for s in SYSTEM_IDS}, set()),
    ("d20 --system=p", {"--system=pendagger"}, set()),
    ("d20 attack +5 vs ", {"DC", "dc", "AC", "ac"}, set()),
    ("d20 check +5 vs ", {"DC", "dc"}, set()),
    ("d20 -s pd attempt ", None, {"vs", "expertise", "bonus"}),
    ("d20 -s pd attempt g", {"godlike"}, set()),
    ("d20 -s pd fortune spend ", {"reroll", "hint", "escape", "value"}, set()),
    ("d20 -s pd scores ", {"players="}, set()),
    ("d20 -s reg contest +1 ", None, {"expertise", "dmg"}),
    ("d20 odds ", {"check", "save", "attack", "group", "roll", "compare", "table"}, set()),
    (
        "d20 -s mm odds ",
        {"check", "attack", "resist", "routine", "opposed", "compare", "percent", "roll", "table"},
        set(),
    ),
    ("d20 odds check +5 vs 15 a", {"adv", "advantage"}, set()),
    ("d20 log --export ", {"json", "csv"}, set()),
    ("d20 completion ", {"bash", "zsh", "fish"}, set()),
    ("d20 check --sy", {"--system"}, set()),
    ("d20 check --seed ", set(), set()),
    ("d20 check -1 vs 10 a", {"adv", "advantage"}, set()),
    ("d20 che", {"check"}, set()),
    # only the options the verb takes (`check --csv` is refused)
    ("d20 check --", None, {"--csv", "--players", "--simulate", "--totals"}),
    ("d20 CHECK --", None, {"--csv", "--players", "--simulate", "--totals"}),
    ("d20 odds check --", None, {"--dice", "--repeat", "--summary", "--exit-status"}),
    ("d20 odds check --c", {"--csv", "--color"}, set()),
    ("d20 -s pd scores --p", {"--players", "--post"}, set()),
    ("d20 roll 1d6 --b", {"--budget"}, set()),
]


@pytest.mark.parametrize(("line", "exactly", "never"), PLACES)
def test_bash_offers_the_words_of_the_place(
    line: str, exactly: set[str] | None, never: set[str]
) -> None:
    offered = bash_complete(line)
    if exactly is not None:
        assert set(offered) == set(without_equals(line, sorted(exactly)))
    else:
        assert offered and not never & set(offered)


@needs_zsh
@pytest.mark.parametrize(("line", "exactly", "never"), PLACES)
def test_zsh_offers_the_words_of_the_place(
    line: str, exactly: set[str] | None, never: set[str]
) -> None:
    offered = zsh_complete(line)
    if exactly is not None:
        assert set(offered) == exactly
    else:
        assert offered and not never & set(offered)


@needs_fish
@pytest.mark.parametrize(("line", "exactly", "never"), PLACES)
def test_fish_offers_the_words_of_the_place(
    line: str, exactly: set[str] | None, never: set[str]
) -> None:
    offered = fish_complete(line)
    if exactly is not None:
        assert set(offered) == exactly
    else:
        assert offered and not never & set(offered)


FILE_PLACES = ["d20 --as ", "d20 char show ", "d20 table ", "d20 table show ", "d20 odds table "]


@pytest.mark.parametrize(
    "line", [p[0] for p in PLACES] + ["d20 ", "d20 -s pd ", "d20 char ", *FILE_PLACES]
)
def test_python_lookups_agree_with_bash(line: str, words: completion.Table, config: Path) -> None:
    """The interactive shell's lookups and the bash script give the same words."""
    names = Names(completion.Lazy(character_names), completion.Lazy(completion.table_names))
    found = python_complete(line, words, names)
    assert set(without_equals(line, found)) == set(bash_complete(line))


def test_the_verbs_are_the_systems(words: completion.Table) -> None:
    assert set(bash_complete("d20 ")) == {"check", "save", "attack", "group", "roll"} | set(
        words.command_names()
    )
    assert "percent" in bash_complete("d20 -s mm ")
    assert "attempt" not in bash_complete("d20 -s mm ")


def test_names_come_from_the_files(config: Path) -> None:
    assert bash_complete("d20 --as ") == ["aria", "bob", "carl-3"]
    assert bash_complete("d20 --as=b") == ["bob"]
    assert bash_complete("d20 char show ") == ["aria", "bob", "carl-3"]
    assert bash_complete("d20 char rm c") == ["carl-3"]
    assert bash_complete("d20 char add ") == []  # a new name
    assert bash_complete("d20 log -c a") == ["aria"]
    # the --as character's system: bob plays mm
    assert set(bash_complete("d20 --as bob check +1 vs ")) == MM_TARGETS
    assert "adv" in bash_complete("d20 --as aria check +1 ")
    # the --as character's entries after its verb (not its system, house keys or macros)
    assert bash_complete("d20 --as aria check s") == ["stealth"]
    assert bash_complete("d20 check --as CARL-3 p") == ["perception"]
    assert "stealth" in bash_complete("d20 --as aria check ")
    assert "stealth" not in bash_complete("d20 check ")
    # the roll tables: their file names
    assert bash_complete("d20 table ") == ["loot", "wild-magic", "list", "show", "check"]
    assert bash_complete("d20 table show w") == ["wild-magic"]
    assert bash_complete("d20 odds table l") == ["loot"]


def test_system_from_the_environment_and_the_config(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (config / "config.toml").write_text(
        '# mine\nsystem = "pd"\n[other]\nsystem = "mm"\n', encoding="utf-8"
    )
    assert "attempt" in bash_complete("d20 ")
    monkeypatch.setenv("D20_SYSTEM", "Mutants")  # the environment comes before the config
    assert "percent" in bash_complete("d20 ")
    assert "attempt" not in bash_complete("d20 ")
    assert "contest" in bash_complete("d20 -s reg ")  # and the line before both


@needs_zsh
def test_zsh_names_come_from_the_files(config: Path) -> None:
    assert zsh_complete("d20 --as ") == ["aria", "bob", "carl-3"]
    assert zsh_complete("d20 char show b") == ["bob"]
    assert zsh_complete("d20 table show w") == ["wild-magic"]
    assert zsh_complete("d20 odds table l") == ["loot"]
    assert set(zsh_complete("d20 --as bob check +1 vs ")) == MM_TARGETS
    assert zsh_complete("d20 --as aria check s") == ["stealth"]
    (config / "config.toml").write_text('system = "pendagger"\n', encoding="utf-8")
    assert "attempt" in zsh_complete("d20 ")


@needs_fish
def test_fish_names_come_from_the_files(config: Path) -> None:
    assert fish_complete("d20 --as ") == ["aria", "bob", "carl-3"]
    assert fish_complete("d20 char show b") == ["bob"]
    assert fish_complete("d20 table show w") == ["wild-magic"]
    assert fish_complete("d20 odds table l") == ["loot"]
    assert set(fish_complete("d20 --as bob check +1 vs ")) == MM_TARGETS
    assert fish_complete("d20 --as aria check s") == ["stealth"]
    (config / "config.toml").write_text('system = "pendagger"\n', encoding="utf-8")
    assert "attempt" in fish_complete("d20 ")


def test_table_names_when_the_command_exists(config: Path) -> None:
    """`table NAME`: the tables' file names (the command's own arguments first)."""
    t = table((completion.Command("table", "Roll on a table.", dynamic=completion.TABLES),))
    bash = completion_scripts.bash_script(t)
    run = subprocess.run(
        [
            BASH,
            "--norc",
            "-c",
            f'{bash}\nCOMP_LINE="d20 table "; COMP_POINT=10; _d20; echo "${{COMPREPLY[*]}}"',
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.stdout.split() == ["loot", "wild-magic"], run.stderr
    names = Names(tables=completion.table_names())
    assert completion.candidates(["table"], "w", t, names) == ["wild-magic"]


# -- the character in use: its macros as commands, the entries a verb can use -------------------

SHEET = (
    '[aria]\nsystem = "levelup"\nstealth = "+7"\n'
    '[aria.attacks]\nlongsword = "+5 dmg 1d8+3"\n'
    '[aria.saves]\nwis = "-1"\n'
    '[aria.skills]\nathletics = "+3"\n'
    '[aria.macros]\nsneak = "check stealth vs 15"\n'
    '[bob]\nsystem = "mm"\n[bob.macros]\nsmash = "check +9 vs 20"\n'
)

#: (line, what it offers) with aria in use (`d20 char use aria`).
IN_USE = [
    ("d20 sn", ["sneak"]),
    ("d20 --as bob sm", ["smash"]),
    ("d20 --as none sn", []),
    ("d20 check --as aria l", ["lucky"]),  # never the attack's longsword
    ("d20 check l", ["lucky"]),
    ("d20 attack l", ["lucky", "longsword"]),
    ("d20 save w", ["wis"]),
    ("d20 check w", []),
    ("d20 group +1, a", ["adv", "advantage", "at-least-half", "athletics"]),
    ("d20 roll s", []),
    ("d20 odds attack l", ["lucky", "longsword"]),
]


@pytest.fixture
def in_use(config: Path) -> Path:
    (config / "characters.toml").write_text(SHEET, encoding="utf-8")
    (config / "config.toml").write_text('character = "aria"\n', encoding="utf-8")
    return config


def _python_in_use(line: str, t: completion.Table) -> list[str]:
    """The Python lookups with the names the files hold, aria in use."""
    from d20cli.store import characters

    def entries(name: str, verb: str) -> list[str]:
        return characters.load(name).entry_names(verb)

    def macros(name: str) -> list[str]:
        return list(characters.load(name).macros)

    names = Names(character_names(), (), "", lambda n: "", "aria", macros, entries)
    return python_complete(line, t, names)


@pytest.mark.parametrize(("line", "offered"), IN_USE)
def test_the_character_in_use_completes_its_macros_and_entries(
    line: str, offered: list[str], in_use: Path, words: completion.Table
) -> None:
    assert bash_complete(line) == offered
    assert _python_in_use(line, words) == offered
    if ZSH is not None:
        assert zsh_complete(line) == offered
    if FISH is not None and offered:  # (fish matches within words when no word starts so)
        assert sorted(fish_complete(line)) == sorted(offered)


def test_the_environment_names_the_character_in_use(
    in_use: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("D20_CHARACTER", "bob")
    assert bash_complete("d20 sm") == ["smash"]
    assert bash_complete("d20 sn") == []
    monkeypatch.setenv("D20_CHARACTER", "none")
    assert bash_complete("d20 sn") == []


# -- in real terminals -------------------------------------------------------------------------


def _interactive(argv: list[str], setup: str) -> pexpect.spawn:
    """A shell in a terminal, set up, where `d20` is a function that prints its words
    (so a completed line, run with Enter, shows what TAB made of it)."""
    env = {**os.environ, "TERM": "xterm"}
    child = pexpect.spawn(
        argv[0], argv[1:], env=env, encoding="utf-8", timeout=TIMEOUT, dimensions=(40, 200)
    )
    child.sendline(f"{setup}; d20() {{ echo \"ARGS[$*]\"; }}; echo READ''Y")
    child.expect("READY")
    return child


def _completed(child: pexpect.spawn, typed: str) -> str:
    """Type `typed`, TAB, Enter: the words the command ran with."""
    child.send(typed + "\t")
    child.expect(re.escape(typed.split()[-1]))  # the echo, then what TAB adds
    child.send("\r")
    child.expect(r"ARGS\[([^\]\r\n]*)\]")
    return str(child.match.group(1)).strip()


SHELL_LINES = [
    ("d20 --system=pe", "--system=pendagger"),
    ("d20 --system pe", "--system pendagger"),
    ("d20 -s mm check +4 vs nigh", "-s mm check +4 vs nigh-impossible"),
    ("d20 -s mm check +4 vs toughn", "-s mm check +4 vs toughness"),
    ("d20 attack +7 vs 15 dmg 1d8 crit-dmg=do", "attack +7 vs 15 dmg 1d8 crit-dmg=double"),
    ("d20 check +5 expertise=d8", "check +5 expertise=d8"),
    ("d20 -s pd attempt god", "-s pd attempt godlike"),
]


def test_bash_in_a_terminal() -> None:
    """TAB in an interactive bash (which splits words at `=`), then Enter."""
    setup = f"PS1='$ '; source {COMPLETIONS / 'd20.bash'}"
    child = _interactive([BASH, "--norc", "--noprofile", "-i"], setup)
    for typed, words in SHELL_LINES:
        assert _completed(child, typed) == words
    child.send("d20 check +5 expertise=d\t\t")  # bash lists what may follow `=`
    child.expect(r"d4\s+d6\s+d8")
    child.sendcontrol("c")
    child.sendline("exit")
    child.expect(pexpect.EOF)


@needs_zsh
def test_zsh_in_a_terminal(tmp_path: Path) -> None:
    functions = tmp_path / "functions"
    functions.mkdir()
    shutil.copy(COMPLETIONS / "_d20", functions / "_d20")
    setup = f"fpath=({functions} $fpath); autoload -Uz compinit; compinit -u -D"
    child = _interactive([str(ZSH), "-f", "-i"], setup)
    for typed, words in SHELL_LINES:
        assert _completed(child, typed) == words
    child.sendline("exit")
    child.expect(pexpect.EOF)


# -- the interactive shell's lookups ----------------------------------------------------------


def test_unknown_shell_is_an_error() -> None:
    from d20cli.errors import ParseError

    with pytest.raises(ParseError, match="bash, zsh, fish"):
        completion_script("tcsh")


def test_install_writes_to_the_users_completion_dirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    expected = {
        "bash": home / ".local/share/bash-completion/completions/d20",
        "zsh": home / ".local/share/zsh/site-functions/_d20",
        "fish": home / ".config/fish/completions/d20.fish",
    }
    for shell, path in expected.items():
        message = completion_script(shell, install=True)
        assert str(path) in message
        assert path.read_text(encoding="utf-8") == completion_script(shell)
    assert "fpath=" in completion_script("zsh", install=True)
    # An XDG directory inside home is honoured; one outside home is not written to.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "cfg"))
    assert completion_install.install_path("fish") == home / "cfg/fish/completions/d20.fish"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "elsewhere"))
    assert completion_install.install_path("bash") == expected["bash"]
    assert not (tmp_path / "elsewhere").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]


def test_a_verb_is_offered_the_options_it_takes(words: completion.Table) -> None:
    """The options after a verb are those its option table says it takes
    (`OptionSpec.taken_by`), for every verb and `odds`, but --boon in the default system
    (levelup: no fortune dice)."""
    for verb in (*VERBS, "odds"):
        taken = {n for spec in OPTIONS if spec.taken_by(verb) for n in spec.names}
        assert set(words.option_names(verb)) == taken, verb
        offered = set(bash_complete(f"d20 {'odds check' if verb == 'odds' else verb} -"))
        assert offered == (taken - {"--boon"}) | {"--help", "-h"}, verb


def test_the_shell_offers_the_entries_a_verb_can_use(in_use: Path) -> None:
    """The interactive shell's entries after a verb (`Character.entry_names(verb)`)."""
    from d20cli.store import characters

    aria = characters.load("aria")
    assert aria.entry_names("check") == ["stealth", "athletics"]
    assert aria.entry_names("attack") == ["stealth", "longsword", "athletics"]
    assert aria.entry_names("save") == ["stealth", "wis", "athletics"]
    assert aria.entry_names() == ["stealth", "longsword", "wis", "athletics"]


# -- a name is data: never expanded, quoted where it is inserted (issue 40, item 1) -----------

#: Files in tables/ whose names would run a command if a shell expanded them (an unzipped
#: table pack): none is a table's name, so none is offered.
HOSTILE_TABLES = (
    "$(touch${IFS}PWNED-a).toml",
    "`touch PWNED-b`.toml",
    "$(touch PWNED-c).toml",
    "x;touch PWNED-d.toml",
    "*.toml",
    "$((1+1)).toml",
    "a'b.toml",
)
#: An entry whose name holds a quote: offered, and inserted so the line holds it as it is.
QUOTED_SHEET = '[aria]\nsystem = "levelup"\n"thieves\'-tools" = "+5"\nstealth = "+3"\n'


@pytest.fixture
def hostile(config: Path, tmp_path: Path) -> Path:
    """The config of `config` with HOSTILE_TABLES beside its two tables, aria with a quoted
    entry; returns an empty working directory (where a `touch` would leave its file)."""
    for name in HOSTILE_TABLES:
        (config / "tables" / name).write_text("", encoding="utf-8")
    (config / "characters.toml").write_text(QUOTED_SHEET, encoding="utf-8")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    return cwd


def _nothing_ran(root: Path) -> None:
    assert not [p for p in root.rglob("PWNED*")], "a file name ran as a command"


def test_hostile_table_names_are_not_offered_or_run(hostile: Path, tmp_path: Path) -> None:
    """The scripts run as functions: only the tables' names are offered, nothing runs, and
    an entry holding a quote is offered quoted (bash) or as it is (zsh and fish quote what
    they insert themselves)."""
    tables = ["loot", "wild-magic", "list", "show", "check"]
    os.chdir(hostile)
    try:
        assert bash_complete("d20 table ") == tables
        assert bash_complete("d20 odds table ") == ["loot", "wild-magic"]
        assert bash_complete("d20 --as aria check thi") == ["thieves\\'-tools"]
        assert bash_complete("d20 --as aria check thieves\\'") == ["thieves\\'-tools"]
        if ZSH is not None:
            assert zsh_complete("d20 table ") == tables
            assert zsh_complete("d20 --as aria check thi") == ["thieves'-tools"]
        if FISH is not None:
            assert sorted(fish_complete("d20 table ")) == sorted(tables)
            assert fish_complete("d20 --as aria check thi") == ["thieves'-tools"]
    finally:
        os.chdir(ROOT)
    _nothing_ran(tmp_path)
    names = Names(tables=completion.table_names())
    t = table((completion.Command("table", "Roll on a table.", dynamic=completion.TABLES),))
    assert completion.candidates(["table"], "", t, names) == ["loot", "wild-magic"]


def test_the_scripts_offer_the_tables_d20_reads(config: Path) -> None:
    """The tables the scripts offer are those `d20 table` takes (`tables.names`)."""
    for name in ("a" * 64, "b" * 65, "-x", "x.y", "_1", "é", "a b", "a\\b", "a\tb", "-", "a[b]"):
        (config / "tables" / f"{name}.toml").write_text("", encoding="utf-8")
    expected = completion.table_names()
    assert "a" * 64 in expected and "x.y" in expected and "b" * 65 not in expected
    assert sorted(bash_complete("d20 odds table ")) == expected  # (in the locale's order)
    if ZSH is not None:
        assert sorted(zsh_complete("d20 odds table ")) == expected
    if FISH is not None:
        assert sorted(fish_complete("d20 odds table ")) == sorted(expected)


def _fish(setup: str, cwd: Path) -> pexpect.spawn:
    """An interactive fish in a terminal, set up, where `d20` prints its words."""
    env = {**os.environ, "TERM": "xterm"}
    child = pexpect.spawn(
        str(FISH),
        ["--no-config", "-i"],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(40, 200),
    )
    child.sendline(f'{setup}; function d20; echo "ARGS[$argv]"; end; echo READ""Y')
    child.expect("READY")
    return child


def _tab_in_a_terminal(child: pexpect.spawn, tmp_path: Path, tabs: str = "\t") -> None:
    """TAB after `d20 table ` and after a quoted entry's start, in a real shell: the tables
    are listed, no file name runs, the entry goes on the line as it is. `tabs`: what lists
    every choice (bash: two TABs)."""
    child.send("d20 table " + tabs)
    child.expect("wild-magic")
    child.send("\r")
    child.expect(r"ARGS\[table\]")
    assert _completed(child, "d20 table w") == "table wild-magic"
    assert _completed(child, "d20 --as aria check thi") == "--as aria check thieves'-tools"
    assert "PWNED" not in str(child.before)
    child.sendline("exit")
    child.expect(pexpect.EOF)
    _nothing_ran(tmp_path)


def test_bash_tab_runs_no_file_name(hostile: Path, tmp_path: Path) -> None:
    setup = f"PS1='$ '; cd {hostile}; source {COMPLETIONS / 'd20.bash'}"
    child = _interactive([BASH, "--norc", "--noprofile", "-i"], setup)
    _tab_in_a_terminal(child, tmp_path, "\t\t")


@needs_zsh
def test_zsh_tab_runs_no_file_name(hostile: Path, tmp_path: Path) -> None:
    functions = tmp_path / "functions"
    functions.mkdir()
    shutil.copy(COMPLETIONS / "_d20", functions / "_d20")
    setup = f"cd {hostile}; fpath=({functions} $fpath); autoload -Uz compinit; compinit -u -D"
    child = _interactive([str(ZSH), "-f", "-i"], setup)
    _tab_in_a_terminal(child, tmp_path)


@needs_fish
def test_fish_tab_runs_no_file_name(hostile: Path, tmp_path: Path) -> None:
    child = _fish(f"source {COMPLETIONS / 'd20.fish'}", hostile)
    _tab_in_a_terminal(child, tmp_path)


def _everywhere(line: str, t: completion.Table) -> list[list[str]]:
    """What each completer offers for `line`: bash, the shell's engine, zsh and fish
    (where installed), sorted."""
    names = Names(
        completion.Lazy(character_names),
        completion.Lazy(completion.table_names),
        "",
        lambda n: "pendagger" if n == "pip" else "",
    )
    found = [bash_complete(line), python_complete(line, t, names)]
    found += [zsh_complete(line)] if ZSH is not None else []
    found += [fish_complete(line)] if FISH is not None else []
    return [sorted(f) for f in found]


@pytest.mark.parametrize(
    ("line", "boon"),
    [
        ("d20 check +5 vs 15 --b", False),
        ("d20 -s mm check +5 --b", False),
        ("d20 attempt adept -s pd --b", True),
        ("d20 luck --system=pendagger --b", True),
        ("d20 --as pip check +1 --b", True),
    ],
)
def test_boon_is_offered_only_where_there_are_fortune_dice(
    line: str, boon: bool, config: Path, words: completion.Table
) -> None:
    """--boon is a Pen & Dagger option (fortune dice): refused elsewhere, so not offered."""
    path = config / "characters.toml"
    path.write_text(path.read_text(encoding="utf-8") + '[pip]\nsystem = "pd"\n', "utf-8")
    expected = sorted(["--budget", *(["--boon"] if boon else [])])
    assert all(found == expected for found in _everywhere(line, words)), line


def test_char_show_offers_characters_not_the_party(config: Path, words: completion.Table) -> None:
    """`[party]` in the characters file is the party, not a character: `char show party`
    answers "no character 'party'", so completion does not offer it there."""
    path = config / "characters.toml"
    path.write_text(path.read_text(encoding="utf-8") + '[party]\nmembers = ["aria"]\n', "utf-8")
    for line in ("d20 char show ", "d20 char rm ", "d20 --as "):
        assert all(found == ["aria", "bob", "carl-3"] for found in _everywhere(line, words)), line


# -- file names: `char import FILE`, `--svg FILE`, `verify --page FILE` -------------------------


@pytest.fixture
def sheets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with two sheets, a hidden file, a directory and a file whose name
    holds a `$(...)` (completed as a name: never run)."""
    cwd = tmp_path / "sheets"
    (cwd / "exports").mkdir(parents=True)
    for name in ("aria.json", "bob.json", ".hidden.json", "$(touch PWNED).json"):
        (cwd / name).write_text("{}", encoding="utf-8")
    (cwd / "exports" / "cleo.json").write_text("{}", encoding="utf-8")
    monkeypatch.chdir(cwd)
    return cwd


FILE_LINES = [
    ("d20 char import a", ["aria.json"]),
    ("d20 char import exp", ["exports"]),
    ("d20 char import exports/", ["exports/cleo.json"]),
    ("d20 log --luck --svg b", ["bob.json"]),
    ("d20 odds check +5 --png a", ["aria.json"]),
    ("d20 verify --page a", ["aria.json"]),
    ("d20 verify b", ["bob.json"]),
]


@pytest.mark.parametrize(("line", "files"), FILE_LINES)
def test_bash_offers_file_names(line: str, files: list[str], sheets: Path) -> None:
    assert bash_complete(line) == files


def test_bash_file_names_after_equals_and_not_elsewhere(sheets: Path, tmp_path: Path) -> None:
    """`--svg=b`: the names after `=` (bash replaces only that part); every file is
    offered (the one named `$(...)` too, and a hidden one: `compgen -f` lists it, readline's
    `match-hidden-files` decides), and nothing runs; a place that takes no file offers none
    (`char show`, `--as`)."""
    assert bash_complete("d20 odds check +5 --svg=b") == ["bob.json"]
    assert set(bash_complete("d20 char import ")) == {
        ".hidden.json",
        "aria.json",
        "bob.json",
        "exports",
        "$(touch PWNED).json",
    }
    assert bash_complete("d20 char import aria.json --as ") == []  # no characters file
    assert "aria.json" not in bash_complete("d20 char show ")
    _nothing_ran(tmp_path)


@needs_fish
@pytest.mark.parametrize(("line", "files"), FILE_LINES)
def test_fish_offers_file_names(line: str, files: list[str], sheets: Path) -> None:
    expected = [f + "/" if not f.endswith(".json") else f for f in files]  # fish: `exports/`
    assert fish_complete(line) == expected


@needs_fish
def test_fish_file_names_after_equals(sheets: Path, tmp_path: Path) -> None:
    assert fish_complete("d20 odds check +5 --svg=b") == ["--svg=bob.json"]
    assert "aria.json" not in fish_complete("d20 char show ")
    _nothing_ran(tmp_path)


def test_bash_file_names_in_a_terminal(sheets: Path, tmp_path: Path) -> None:
    """In a real bash the name goes on the line quoted by readline (`-o filenames`)."""
    setup = f"PS1='$ '; cd {sheets}; source {COMPLETIONS / 'd20.bash'}"
    child = _interactive([BASH, "--norc", "--noprofile", "-i"], setup)
    assert _completed(child, "d20 char import ar") == "char import aria.json"
    assert _completed(child, "d20 char import exports/c") == "char import exports/cleo.json"
    assert _completed(child, "d20 odds check +1 --svg=b") == "odds check +1 --svg=bob.json"
    child.sendline("exit")
    child.expect(pexpect.EOF)
    _nothing_ran(tmp_path)


@needs_zsh
def test_zsh_file_names_in_a_terminal(sheets: Path, tmp_path: Path) -> None:
    """zsh completes a file's name with its own `_files` (so only in a real zsh)."""
    functions = tmp_path / "functions"
    functions.mkdir()
    shutil.copy(COMPLETIONS / "_d20", functions / "_d20")
    setup = f"cd {sheets}; fpath=({functions} $fpath); autoload -Uz compinit; compinit -u -D"
    child = _interactive([str(ZSH), "-f", "-i"], setup)
    assert _completed(child, "d20 char import ar") == "char import aria.json"
    assert _completed(child, "d20 char import exports/c") == "char import exports/cleo.json"
    assert _completed(child, "d20 odds check +1 --svg=b") == "odds check +1 --svg=bob.json"
    assert _completed(child, "d20 verify --page b") == "verify --page bob.json"
    child.sendline("exit")
    child.expect(pexpect.EOF)
    _nothing_ran(tmp_path)


def test_the_shell_offers_file_names(sheets: Path, words: completion.Table) -> None:
    """The interactive shell (and the GM screen's command line) list the directory
    (`file_names`): directories end in `/`, hidden files only after a `.`; a name with a
    blank is not `offerable` there (the shell's line is split at blanks)."""
    names = Names(files=completion.file_names)
    assert python_complete("d20 char import ", words, names) == [
        "aria.json",
        "bob.json",
        "exports/",
    ]
    assert python_complete("d20 char import .h", words, names) == [".hidden.json"]
    assert python_complete("d20 char import exports/", words, names) == ["exports/cleo.json"]
    assert python_complete("d20 odds check --svg=a", words, names) == ["--svg=aria.json"]
    assert python_complete("d20 verify --page b", words, names) == ["bob.json"]
    assert python_complete("d20 char show ", words, names) == []
    assert completion.file_names("no-such-dir/x") == []


# -- the encounter: `init hurt NAME`, `init cond NAME WORD` -----------------------------------


def _init(*args: str) -> None:
    """`d20 init ARGS` through typer's CliRunner (the test's own state directory)."""
    from typer.testing import CliRunner

    from d20cli.app.cli import app

    got = CliRunner().invoke(app, ["init", *args])
    assert got.exit_code == 0, got.output


def _names_file() -> Path:
    from d20cli.store import initiative
    from d20cli.store.database import db_path

    return db_path().parent / initiative.NAMES_FILE


def test_each_encounter_change_writes_the_names_file() -> None:
    """The names beside state.db follow every change: add, rm, undo, clear."""
    _init("add", "goblin", "+2", "x2", "--dice", "5,6")
    _init("add", "cleo", "=17")
    assert _names_file().read_text(encoding="utf-8") == "cleo\ngoblin-2\ngoblin-1\n"
    assert oct(_names_file().stat().st_mode & 0o777) == "0o600"
    _init("rm", "goblin-2")
    assert _names_file().read_text(encoding="utf-8") == "cleo\ngoblin-1\n"
    _init("undo")
    assert _names_file().read_text(encoding="utf-8") == "cleo\ngoblin-2\ngoblin-1\n"
    _init("clear")
    assert _names_file().read_text(encoding="utf-8") == ""


def test_the_names_file_holds_only_names_a_line_can_take() -> None:
    from d20cli.rules.initiative import Combatant
    from d20cli.store.initiative import names_text

    order = [
        Combatant(name, "monster", 10, 0, (), ())
        for name in ("orc", "ar\u202eia", "two words", "x" * 65, "o'neil", "zoë")
    ]
    assert names_text(order) == "orc\no'neil\nzoë\n"


ENCOUNTER_LINES: list[tuple[str, list[str]]] = [
    ("d20 init hurt ", ["cleo", "goblin-2", "goblin-1"]),
    ("d20 init heal g", ["goblin-2", "goblin-1"]),
    ("d20 init HURT c", ["cleo"]),
    ("d20 init rm go", ["goblin-2", "goblin-1"]),
    ("d20 init pin c", ["cleo"]),
    ("d20 init note c", ["cleo"]),
    ("d20 init cond goblin-1 pr", ["prone"]),
    ("d20 -s mm init cond goblin-1 st", ["staggered", "stunned"]),
    ("d20 init cond goblin-1 prone ", []),
    ("d20 init hurt cleo ", []),
    ("d20 init add ", []),
]


@pytest.fixture
def encounter() -> None:
    _init("add", "goblin", "+2", "x2", "--dice", "5,6")
    _init("add", "cleo", "=17")


@pytest.mark.parametrize(("line", "offered"), ENCOUNTER_LINES)
def test_bash_offers_combatants_and_conditions(
    line: str, offered: list[str], encounter: None
) -> None:
    assert bash_complete(line) == offered


@needs_zsh
@pytest.mark.parametrize(("line", "offered"), ENCOUNTER_LINES)
def test_zsh_offers_combatants_and_conditions(
    line: str, offered: list[str], encounter: None
) -> None:
    assert zsh_complete(line) == offered


@needs_fish
@pytest.mark.parametrize(("line", "offered"), ENCOUNTER_LINES)
def test_fish_offers_combatants_and_conditions(
    line: str, offered: list[str], encounter: None
) -> None:
    assert sorted(fish_complete(line)) == sorted(offered)  # (fish sorts what it offers)


def test_the_scripts_offer_each_systems_conditions(words: completion.Table) -> None:
    """`init cond NAME <TAB>`: the conditions of the system in force, from its harm hook."""
    from d20cli.rules import get_system

    for sid in SYSTEM_IDS:
        harm = get_system(sid).harm
        assert harm is not None
        expected = sorted(harm.conditions)
        assert sorted(bash_complete(f"d20 -s {sid} init cond x ")) == expected
        if ZSH is not None:
            assert sorted(zsh_complete(f"d20 -s {sid} init cond x ")) == expected
        if FISH is not None:
            assert sorted(fish_complete(f"d20 -s {sid} init cond x ")) == expected


def test_a_hostile_names_file_is_read_as_data(tmp_path: Path) -> None:
    """A names file that d20 did not write (edited by hand): a name that holds a blank or a
    control character is not offered, a `$(...)` is offered as a name and never run."""
    path = _names_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    hostile = "$(touch${IFS}PWNED)"
    text = f"orc\n{hostile}\nbad\x1bname\ntwo words\n" + "x" * 65 + "\n"
    path.write_text(text, encoding="utf-8")
    os.chdir(tmp_path)
    try:
        assert bash_complete("d20 init hurt ") == ["orc", "\\$\\(touch\\$\\{IFS\\}PWNED\\)"]
        if ZSH is not None:
            assert zsh_complete("d20 init hurt ") == ["orc", hostile]
        if FISH is not None:
            assert sorted(fish_complete("d20 init hurt ")) == sorted(["orc", hostile])
    finally:
        os.chdir(ROOT)
    _nothing_ran(tmp_path)
