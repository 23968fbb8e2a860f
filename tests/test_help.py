"""Help: `d20 help [VERB]`, `d20 VERB --help`, the shell's `help`; every example shown
runs, and every line fits 80 columns."""

from __future__ import annotations

import shlex

import pytest

from d20cli.__main__ import main
from d20cli.app.cli import command_group
from d20cli.app.commands import COMMANDS
from d20cli.app.help import ODDS_EXAMPLES, command_info
from d20cli.language.vocabulary import DICE_NOTATION, TABLE_ACTIONS, VERB_HELP, VERBS
from d20cli.present.help_view import overview_examples, verb_examples


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _every_example() -> list[str]:
    shown = [*overview_examples(), *(e for verb in VERBS for e in verb_examples(verb))]
    shown += [e for _, examples in VERB_HELP.values() for e in examples]
    shown += list(ODDS_EXAMPLES)
    return list(dict.fromkeys(shown))


@pytest.mark.parametrize("example", _every_example())
def test_every_example_help_shows_runs(example: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = shlex.split(example)
    if "--simulate" in args:  # keep the test quick: fewer random rolls
        args[args.index("--simulate") + 1] = "1000"
    status, out, err = run([*args, "--seed", "7"], capsys)
    assert status == 0, (example, err)
    assert out and not err


@pytest.mark.parametrize("verb", VERBS)
def test_help_verb_shows_its_examples_and_words(
    verb: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # no example is wrapped
    status, out, _ = run(["help", verb], capsys)
    assert status == 0
    assert f"Usage: d20 {verb} WORDS... [OPTIONS]" in out
    for example in verb_examples(verb):
        assert f"d20 {example}" in out


def test_help_names_the_words_of_each_system(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["help", "check"], capsys)
    for word in ("adv / dis", "expertise[=dN]", "crit N", "lucky", "min N", "LABEL"):
        assert word in out
    assert "named DCs: very-easy 0" in out  # mm's, with their numbers from its rules
    assert "circumstances: bonus +2" in out
    assert "ranks: doomed, hopeless" in out  # pendagger's
    _, out, _ = run(["help", "attack"], capsys)
    assert "crit-dmg modes: dice, double, max" in out and "dmg EXPR" in out
    _, out, _ = run(["help", "group"], capsys)
    assert "Not in: reglamento, mm, pendagger." in out


def test_help_with_a_system_shows_that_system_only(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["help", "check", "-s", "levelup"], capsys)
    assert "levelup (Level Up" in out
    body = out.split("\n", 1)[1]  # after the verb's own line
    assert not any(sid in body for sid in ("reglamento", "mm", "pendagger"))
    _, out, _ = run(["help", "check", "-s", "m&m"], capsys)
    assert "mm (Mutants" in out and "levelup" not in out


def test_help_roll_covers_every_notation_form(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["help", "roll"], capsys)
    flat = " ".join(out.split())
    for form, meaning, examples in DICE_NOTATION:
        assert f"{form} {meaning}: {', '.join(examples)}" in flat


@pytest.mark.parametrize("example", [e for *_, examples in DICE_NOTATION for e in examples])
def test_every_notation_example_rolls(example: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["roll", example, "--seed", "1"], capsys)
    assert status == 0, err
    assert out


@pytest.mark.parametrize("command", COMMANDS)
def test_help_explains_every_command(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`d20 help COMMAND` is the registry's paragraph and examples, with every subcommand and
    option the typer app gives the command (the source of `d20 COMMAND --help`)."""
    status, out, _ = run(["help", command], capsys)
    assert status == 0
    flat = " ".join(out.split())
    info = command_info(command, command_group())
    assert " ".join(COMMANDS[command].about.split()) in flat
    for name, _ in (*info.subcommands, *info.arguments, *info.options):
        assert f"  {name}" in out
    assert all(f"d20 {example}" in out for example in COMMANDS[command].examples)
    assert all(example.split()[0] == command for example in COMMANDS[command].examples)


def test_every_command_has_a_paragraph_and_examples() -> None:
    assert all(row.about and row.examples for row in COMMANDS.values())


def test_the_guide_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    """In order, in one home (unseal after seal; char first: party's add a character);
    the shell's and the GM screen's would wait for a terminal (tests/test_gm.py runs the
    screen), verify's name a file and a seed a reader brings, and reveal's a secret roll
    of a session (tests/test_seal_secret.py)."""
    for row in sorted(COMMANDS.values(), key=lambda row: row.name != "char"):
        if row.name in ("shell", "gm", "verify", "reveal"):
            continue
        for example in row.examples:
            args = shlex.split(example)
            if "--simulate" in args:  # keep the test quick: fewer random rolls
                args[args.index("--simulate") + 1] = "1000"
            status, _, err = run(args, capsys)
            assert status == 0, (example, err)


@pytest.mark.parametrize("args", [["help", "chekc"], ["help", "check", "save"], ["chekc", "-h"]])
def test_help_on_what_is_not_there_is_an_error(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(args, capsys)
    assert status == 2 and not out
    assert err.startswith("d20: error")


def test_help_of_a_command_points_to_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["help", "systems"], capsys)
    assert status == 0 and "d20 systems --help" in out
    status, out, _ = run(["help", "odds"], capsys)
    assert status == 0 and "Usage: d20 odds VERB WORDS... [OPTIONS]" in out


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--help"],
        ["check", "+5", "vs", "15", "-h"],
        ["-s", "mm", "check", "--help"],
        ["odds", "--help"],
        ["roll", "--help"],
    ],
)
def test_verb_help_usage(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(args, capsys)
    assert status == 0 and not err
    verb = "odds VERB" if "odds" in args else next(a for a in args if a in VERBS)
    assert out.startswith(f"Usage: d20 {verb} WORDS... [OPTIONS]")
    assert "Output options:" in out and "Dice options:" in out
    assert "INTEGER" not in out and "<" not in out and "list[" not in out


def test_verb_help_shows_only_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["check", "--help"], capsys)
    assert "--players" not in out and "--simulate" not in out and "--csv" not in out
    _, out, _ = run(["scores", "--help"], capsys)
    assert "--players N" in out
    _, out, _ = run(["odds", "--help"], capsys)
    assert "--simulate N" in out and "--dice" not in out and "--repeat" not in out


def test_help_after_double_dash_is_a_word(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["roll", "1d6", "--", "--help"], capsys)
    assert status == 2 and "help" in err and "Usage:" not in out


def _help_pages() -> list[list[str]]:
    pages = [["help"], ["--help"], ["systems"], ["odds", "--help"], ["help", "odds"]]
    pages += [["help", verb] for verb in VERBS]
    pages += [[verb, "--help"] for verb in VERBS]
    return pages


@pytest.mark.parametrize("args", _help_pages())
def test_help_fits_80_columns(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    status, out, _ = run(args, capsys)
    assert status == 0 and out
    too_wide = [line for line in out.splitlines() if len(line) > 80]
    assert not too_wide


def test_wrapped_lines_keep_their_indent(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    _, out, _ = run(["check", "--help"], capsys)
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("--work N"))
    column = lines[at].index("the most dice")
    assert lines[at + 1].startswith(" " * column) and lines[at + 1][column] != " "


def test_shell_help_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from d20cli.app.options import Options
    from d20cli.app.shell import Session
    from d20cli.present.output import Output

    monkeypatch.setenv("COLUMNS", "80")
    stdout, stderr = io.StringIO(), io.StringIO()
    session = Session(Options(), Output(stdout, stderr, color=False))
    for line in ("help", *(f"help {verb}" for verb in VERBS)):
        assert session.handle(line) == 0
    text = stdout.getvalue()
    assert "In the shell:" in text and "Usage: d20 check" in text
    assert all(len(line) <= 80 for line in text.splitlines())


def _command_paths() -> list[tuple[str, ...]]:
    """Every command and subcommand of the typer app, as typed after `d20` (the app
    itself says which: a new command is in this list with no change here)."""

    def walk(command: object, path: tuple[str, ...]) -> list[tuple[str, ...]]:
        subs: dict[str, object] = dict(getattr(command, "commands", None) or {})
        return [path, *(p for name, sub in subs.items() for p in walk(sub, (*path, name)))]

    return walk(command_group(), ())


def _command_at(path: tuple[str, ...]) -> object:
    command: object = command_group()
    for name in path:
        command = getattr(command, "commands", {})[name]
    return command


def _own_usage(path: tuple[str, ...], command: object) -> list[str]:
    """What the usage of `d20 PATH --help` must say: its path, and its words (the click
    arguments; the forms of a command that reads its words itself; a verb's WORDS)."""
    if not path:
        return ["Usage: d20 [OPTIONS] COMMAND [ARGS]..."]
    where = f"d20 {' '.join(path)}"
    if path[0] in VERB_HELP or path == ("odds",):
        return [f"Usage: {where} {'VERB ' if path == ('odds',) else ''}WORDS... [OPTIONS]"]
    if path == ("help",):
        return ["Usage: d20 help [VERB | COMMAND]"]
    forms: tuple[str, ...] = getattr(command, "forms", ())
    if forms:
        return [f"Usage: {where} {forms[0]}", *(f"{where} {form}" for form in forms[1:])]
    params = getattr(command, "params", [])
    names = [p.name.upper() for p in params if p.param_type_name == "argument"]
    return [f"Usage: {where} ", *names]


@pytest.mark.parametrize("path", _command_paths(), ids=lambda p: " ".join(p) or "d20")
def test_every_command_help_is_its_own(
    path: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """`d20 ... --help` of every command and subcommand shows that command's usage line
    (never the program's), with its arguments."""
    command = _command_at(path)
    settings = getattr(command, "context_settings", None) or {}
    params = getattr(command, "params", [])
    if (
        settings.get("allow_extra_args")
        and not any(p.param_type_name == "argument" for p in params)
        and not getattr(command, "commands", None)
        and path[0] not in (*VERB_HELP, "odds", "help")
    ):  # a command that reads its own words says them (typer cannot)
        assert getattr(command, "forms", None), path
    for flag in ("--help", "-h"):
        status, out, err = run([*path, flag], capsys)
        assert status == 0 and not err, (path, err)
        usage = out.splitlines()[0]
        expected = _own_usage(path, command)
        assert usage.startswith(expected[0]), (path, usage)
        assert all(word in out.split("\n\n")[0] for word in expected[1:]), (path, out[:400])


@pytest.mark.parametrize("action", TABLE_ACTIONS)
def test_a_table_action_help_is_the_table_help(
    action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(["table", action, "--help"], capsys)
    assert status == 0 and out.startswith("Usage: d20 table NAME|FILE [OPTIONS]")
    assert f"d20 table {action}" in out.split("\n\n")[0]


def test_init_add_help_names_its_words(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["init", "add", "--help"], capsys)
    assert status == 0
    assert out.startswith("Usage: d20 init add NAME [+N] [xN] [=N] [hp N] [ac N] [OPTIONS]")


def test_help_of_a_command_in_the_shell_and_on_standard_input_is_its_own() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    lines = "table list --help\ninit add --help\nhelp --help\nchar show --help\n"
    env = {**os.environ, "PYTHONPATH": str(root), "NO_COLOR": "1"}
    shell = subprocess.run(
        [sys.executable, "-m", "d20cli", "shell"],
        input=lines,
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=240,
    )
    assert shell.returncode == 0 and "error" not in shell.stderr, shell.stderr
    usages = [line for line in shell.stdout.splitlines() if line.startswith("Usage:")]
    assert usages == [
        "Usage: d20 table NAME|FILE [OPTIONS]",
        "Usage: d20 init add NAME [+N] [xN] [=N] [hp N] [ac N] [OPTIONS]",
        "Usage: d20 help [VERB | COMMAND] [-s ID]",
        "Usage: d20 char show [OPTIONS] NAME",
    ]
    piped = subprocess.run(
        [sys.executable, "-m", "d20cli"],
        input="table --help\ninit add --help\nhelp --help\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=240,
    )
    assert piped.returncode == 0 and not piped.stderr, piped.stderr
    usages = [line for line in piped.stdout.splitlines() if line.startswith("Usage:")]
    assert [u.split()[2] for u in usages] == ["table", "init", "help"]


@pytest.mark.parametrize("columns", [40, 80, 120])
def test_every_help_page_fits_the_terminal(
    columns: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every `--help` of the typer app and every `d20 help` page is wrapped to the
    terminal's width (COLUMNS): it fits 40 columns, and on a wide terminal the program's
    own help uses the room (click would stop at 80) up to help_view.MAX_WIDTH."""
    from d20cli.present.help_view import MAX_WIDTH

    monkeypatch.setenv("COLUMNS", str(columns))
    pages = [[*path, "--help"] for path in _command_paths()]
    pages += [["help"], *(["help", topic] for topic in (*VERBS, *COMMANDS))]
    for args in pages:
        status, out, _ = run(args, capsys)
        assert status == 0 and out, args
        too_wide = [line for line in out.splitlines() if len(line) > columns]
        assert not too_wide, (args, too_wide)
    _, out, _ = run(["--help"], capsys)
    widest = max(len(line) for line in out.splitlines())
    assert widest > min(columns, MAX_WIDTH) - 10


def test_help_lists_the_words_each_verb_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """`d20 help VERB` lists what the verb's rules take (levelup.TAKES): a levelup attack
    takes expertise, and help says so; a check takes no dmg, and help does not list it."""
    from d20cli.rules import levelup

    assert "expertise" in levelup.TAKES["attack"]
    status, out, _ = run(["help", "attack", "-s", "levelup"], capsys)
    assert status == 0 and "expertise[=dN]" in out
    status, out, _ = run(["attack", "+7", "vs", "15", "expertise=d6", "--dice", "10,4"], capsys)
    assert status == 0 and "21" in out
    _, out, _ = run(["help", "check", "-s", "levelup"], capsys)
    assert "expertise[=dN]" in out and "dmg EXPR" not in out


@pytest.mark.parametrize("verb", ["check", "attack", "resist", "routine"])
def test_help_lists_the_targets_an_mm_verb_takes(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """mm's help reads its words from the declarations as the other systems' does: each
    target form its offer takes after `vs` (`TargetForm.form`: every check verb takes them
    all, docs/rules-decisions.md), and its circumstance words' two rows (`mm.FORMS`); each
    listed target rolls."""
    status, out, _ = run(["help", verb, "-s", "mm"], capsys)
    assert status == 0
    rows = ("vs N", "vs defense N", "vs rank N", "vs routine +N", "bonus / penalty", "major-bonus")
    for form in rows:
        assert f"    {form}  " in out, (verb, form)
    dice = [] if verb == "routine" else ["--dice", "10"]  # a routine check rolls no die
    for target in ("vs defense 6", "vs rank 8", "vs routine +3", "vs parry 6"):
        status, out, err = run([verb, "+6", *target.split(), "-s", "mm", *dice], capsys)
        assert status == 0 and out, (verb, target, err)


def test_help_lists_every_word_a_system_lists(capsys: pytest.CaptureFixture[str]) -> None:
    """Every word `d20 systems` lists for a system is listed by `d20 help VERB` of one of
    its verbs (mm's opposed lists its bonus, `+N / -N`, as reglamento's contest does)."""
    from d20cli.rules import SYSTEM_IDS, get_system

    for sid in SYSTEM_IDS:
        system = get_system(sid)
        shown = ""
        for verb in system.verbs:
            _, out, _ = run(["help", verb, "-s", sid], capsys)
            shown += out
        assert all(f"    {form}  " in shown for form, _ in system.words), sid
    _, out, _ = run(["help", "opposed", "-s", "mm"], capsys)
    assert "    +N / -N  " in out
