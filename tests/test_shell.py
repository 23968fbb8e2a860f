"""The interactive shell in a real terminal (pexpect), and its line handling in-process.

Every pexpect wait is bounded (TIMEOUT); the shell's state (history) goes to a temporary
XDG_STATE_HOME. PROMPT_TOOLKIT_NO_CPR keeps prompt_toolkit from asking the terminal where
the cursor is (pexpect does not answer).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from d20cli.app.options import Options
from d20cli.app.shell import Session, fit_toolbar, run_lines_in_session
from d20cli.language.vocabulary import SYSTEM_IDS
from d20cli.present.output import Output
from tests.cli_helpers import write_sheet

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60  # a wait for the shell, never a time it must keep: a busy machine waits longer


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    yield home


def spawn(state_home: Path, *args: str, columns: int = 140) -> pexpect.spawn:
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(state_home),
        "TERM": "xterm",
        "NO_COLOR": "1",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("D20_SYSTEM", None)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d20cli", "shell", *args],
        env=env,
        cwd=str(ROOT),
        dimensions=(30, columns),
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    return child


def wait_prompt(child: pexpect.spawn, system: str = "levelup") -> None:
    """Wait for the prompt to be drawn and the cursor shown again (prompt_toolkit is then
    reading keys in raw mode, so what we send next is not eaten by the cooked terminal)."""
    child.expect(re.escape(f"d20 {system}>") + r"[^\n]*?\x1b\[\?25h")


def leave(child: pexpect.spawn) -> int:
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus is None
    return int(child.exitstatus)


def test_roll_then_ctrl_d_exits_0(state_home: Path) -> None:
    child = spawn(state_home)
    wait_prompt(child)
    child.sendline("check +5 vs 15 --dice 12")
    child.expect(r"d20 12\s+\+5\s+= 17 vs 15\s+Success")
    wait_prompt(child)
    assert leave(child) == 0


def test_bad_line_shows_caret_and_the_session_goes_on(state_home: Path) -> None:
    child = spawn(state_home)
    wait_prompt(child)
    child.sendline("check +5 vs")
    child.expect("error at column")
    child.expect(r"\^")
    wait_prompt(child)
    child.sendline("save +3 vs 14 --dice 11")
    child.expect(r"= 14 vs 14\s+Success")
    wait_prompt(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_tab_completes_a_verb(state_home: Path) -> None:
    child = spawn(state_home)
    wait_prompt(child)
    child.send("chec\t")
    child.expect("check")
    child.sendline(" +1 vs 10 --dice 10")
    child.expect(r"check \+1 vs 10\s+\[levelup\]")
    child.expect(r"= 11 vs 10\s+Success")
    wait_prompt(child)
    assert leave(child) == 0


def test_history_is_recalled_with_up_arrow_in_a_new_session(state_home: Path) -> None:
    first = spawn(state_home)
    wait_prompt(first)
    first.sendline("attack +7 vs 15 --dice 9")
    first.expect(r"= 16 vs 15")
    wait_prompt(first)
    assert leave(first) == 0
    assert "attack +7 vs 15 --dice 9" in (state_home / "d20cli" / "history").read_text()

    second = spawn(state_home)
    wait_prompt(second)
    second.send("\x1b[A")  # up arrow
    second.expect(re.escape("attack +7 vs 15 --dice 9"))
    second.send("\r")
    second.expect(r"= 16 vs 15")
    wait_prompt(second)
    assert leave(second) == 0


def test_ctrl_c_keeps_the_session(state_home: Path) -> None:
    child = spawn(state_home)
    wait_prompt(child)
    child.send("check +5 vs 15 adv")
    child.expect("adv")
    child.sendintr()
    wait_prompt(child)
    child.sendline("roll 1d1+2")
    child.expect(r"= 3")
    wait_prompt(child)
    assert child.isalive()
    assert leave(child) == 0


def test_system_changes_the_prompt(state_home: Path) -> None:
    child = spawn(state_home)
    wait_prompt(child)
    child.sendline("system mm")
    wait_prompt(child, "mm")
    child.sendline("check +5 vs 15 --dice 10")
    child.expect(r"\[mm\]")
    wait_prompt(child, "mm")
    child.sendline("system nope")
    child.expect("unknown system 'nope'; the systems are levelup, reglamento, mm, pendagger")
    wait_prompt(child, "mm")
    assert leave(child) == 0


def test_start_system_option(state_home: Path) -> None:
    child = spawn(state_home, "--system", "pd")
    wait_prompt(child, "pendagger")
    assert leave(child) == 0


# -- the same session without a terminal ------------------------------------------------


def session(opts: Options | None = None) -> tuple[Session, io.StringIO, io.StringIO]:
    stdout, stderr = io.StringIO(), io.StringIO()
    return Session(opts or Options(), Output(stdout, stderr, color=False)), stdout, stderr


def test_lines_without_a_terminal(state_home: Path) -> None:
    s, stdout, stderr = session()
    lines = "check +5 vs 15 --dice 12\nbogus\nagain --dice 2\nsystem reg\nquit\ncheck +1\n"
    status = run_lines_in_session(s, io.StringIO(lines))
    assert status == 2  # the bad line; the rest ran
    text = stdout.getvalue()
    assert "= 17 vs 15" in text and "= 7 vs 15" in text  # `again` repeated the good request
    assert "system: reglamento" in text
    assert "check +1" not in text  # after quit
    assert "unknown command 'bogus'" in stderr.getvalue()  # as on the command line
    assert s.done


def test_again_without_a_request_is_an_error(state_home: Path) -> None:
    s, _, stderr = session()
    assert s.handle("!!") == 2
    assert "nothing to repeat" in stderr.getvalue()


def test_help(state_home: Path) -> None:
    s, stdout, stderr = session(Options(system="pendagger"))
    assert s.handle("help") == 0
    assert "attempt" in stdout.getvalue() and "system [ID]" in stdout.getvalue()
    before = len(stdout.getvalue())
    assert s.handle("help check") == 0
    verb_help = stdout.getvalue()[before:]
    # the session's system first, then the others
    assert verb_help.index("pendagger (Pen & Dagger)") < verb_help.index("levelup (")
    assert s.handle("help chekc") == 2
    assert "did you mean check" in stderr.getvalue()


def test_toolbar_shows_system_fortune_and_last_result(state_home: Path) -> None:
    s, _, _ = session()
    assert "system: levelup" in s.toolbar(140) and "fortune" not in s.toolbar(140)
    s.handle("check +5 vs 15 --dice 12")
    assert "last: 17 Success" in s.toolbar(140)
    s.handle("system pd")
    assert s.prompt() == "d20 pendagger> "
    assert "fortune dice: 0" in s.toolbar(140)
    s.context.state(s.out).fortune.set("player", 2)
    s.handle("attempt adept --dice 9")
    assert "fortune dice: 2" in s.toolbar(140)
    assert "last: 9 Normal success" in s.toolbar(140)


@pytest.mark.parametrize("columns", [20, 40, 80, 110, 120, 200])
def test_toolbar_fits_and_keeps_the_system_and_the_hint(columns: int) -> None:
    """Narrower separators first, then the last result, the turn, the fortune dice and
    the character let go, then a shorter hint: never past the width, and the system and
    the hint always on it (from 40 columns)."""
    parts = {
        "system": "system: pendagger",
        "as": "as: aria-the-bold",
        "fortune": "fortune dice: 2",
        "turn": "turn: goblin-12 (round 3)",
        "last": "last: 17 Normal success",
    }
    line = fit_toolbar(parts, columns)
    assert len(line) <= columns
    if columns >= 40:
        assert "system: pendagger" in line and "help · TAB" in line
    if columns >= 80:
        assert "as: aria-the-bold" in line and "fortune dice: 2" in line
    if columns >= 110:
        assert "Ctrl-D quits" in line and "fortune dice: 2" in line
    if columns >= 200:
        assert all(text in line for text in parts.values())


def test_toolbar_shows_a_name_made_visible() -> None:
    line = fit_toolbar({"system": "system: levelup", "as": "as: a\x1b[2Jb"}, 120)
    assert "\x1b" not in line and "as: a" in line


@pytest.mark.parametrize("columns", [40, 80, 110, 120])
def test_toolbar_in_a_terminal_keeps_its_hint(state_home: Path, columns: int) -> None:
    """In a real terminal of each width, after a roll (system, character, fortune dice and
    the last result for the toolbar): the toolbar drawn fits the width and keeps the
    system and the hint, whole from 110 columns. prompt_toolkit draws the toolbar only
    when it knows where the cursor is, so this terminal answers its position requests."""
    write_sheet('[aria-the-bold]\nsystem = "pendagger"\n')
    env = {
        **os.environ,
        "XDG_STATE_HOME": str(state_home),
        "TERM": "xterm",
        "NO_COLOR": "1",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("PROMPT_TOOLKIT_NO_CPR", None)
    env.pop("D20_SYSTEM", None)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d20cli", "shell", "-s", "pd", "--as", "aria-the-bold"],
        env=env,
        cwd=str(ROOT),
        dimensions=(30, columns),
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    child.expect(re.escape("\x1b[6n"))  # where is the cursor?
    child.send("\x1b[1;1R")
    wait_prompt(child, "pendagger aria-the-bold")
    child.sendline("attempt adept --dice 9")
    child.expect("Normal success")
    child.expect(re.escape("\x1b[6n"))
    child.send("\x1b[10;1R")
    child.expect(r"\x1b\[[0-9;]*m( system: [^\r\x1b]*)")
    drawn = child.match.group(1).rstrip()
    assert len(drawn) <= columns, drawn
    assert drawn.startswith(" system: pendagger") and "help · TAB" in drawn, drawn
    if columns >= 110:
        assert drawn.endswith("help · TAB · Ctrl-D quits") and "as: aria-the-bold" in drawn
    child.expect(re.escape("\x1b[?25h"))  # (drawn after the prompt: keys are read now)
    assert leave(child) == 0


def test_piped_shell_command(state_home: Path) -> None:
    """`d20 shell` with standard input not a terminal reads lines without prompts."""
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "shell"],
        input="roll 1d1+1\nsystem mm\ncheck +1 vs 5 --dice 4\nquit\nroll 1d4\n",
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_STATE_HOME": str(state_home), "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        timeout=TIMEOUT * 4,
    )
    assert run.returncode == 0, run.stderr
    assert "= 2" in run.stdout and "[mm]" in run.stdout and "1d4" not in run.stdout
    assert run.stderr == ""


# -- again, the commands of d20, clear and TAB (issue 18) -------------------------------------


def test_again_repeats_what_again_added(state_home: Path) -> None:
    s, stdout, _ = session(Options(no_log=True))
    assert s.handle("roll 1d20 --dice 5") == 0
    assert s.handle("again +1") == 0  # `roll 1d20 --dice 5 +1`
    assert s.handle("again") == 0  # the same again, +1 included
    assert s.handle("!!") == 0
    totals = re.findall(r"= (\d+)", stdout.getvalue())
    assert totals == ["5", "6", "6", "6"]
    assert s.last_tokens == ["roll", "1d20", "--dice", "5", "+1"]
    assert s.handle("again adv vs") == 2  # a bad line is not what `again` repeats
    assert s.last_tokens == ["roll", "1d20", "--dice", "5", "+1"]


def test_commands_of_d20_run_in_the_shell(
    state_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from d20cli.app.cli import completion_commands, run_app
    from d20cli.app.shell import Commands
    from d20cli.language.vocabulary import VERB_HELP

    commands = Commands(run_app, lambda: completion_commands(VERB_HELP))
    stdout, stderr = io.StringIO(), io.StringIO()
    s = Session(Options(), Output(stdout, stderr, color=False), commands)
    assert s.handle("char add aria --system mm") == 0
    assert s.handle("char list") == 0
    assert s.handle("systems --json") == 0
    assert s.handle("log") == 0
    assert s.handle("char show nobody") == 2
    said = capsys.readouterr()
    assert "aria" in said.out and '"pendagger"' in said.out
    assert "nobody" in said.err
    assert s.worst == 2 and not s.done


def test_commands_need_the_app(state_home: Path) -> None:
    s, _, stderr = session()
    assert s.handle("char list") == 2
    assert "works in `d20 shell` only" in stderr.getvalue()


def test_clear_writes_nothing_off_a_terminal(state_home: Path) -> None:
    s, stdout, stderr = session()
    assert s.handle("clear") == 0
    assert stdout.getvalue() == "" and stderr.getvalue() == ""


def test_shell_completion_follows_the_system(state_home: Path) -> None:
    from d20cli.app.cli import completion_commands
    from d20cli.app.completion.engine import Names, table
    from d20cli.app.shell import completions
    from d20cli.language.vocabulary import VERB_HELP

    words = table(completion_commands(VERB_HELP))
    mm = Names(default="mm")
    found = completions("check +4 vs ", words, mm)[1]
    assert "tough" in found and "defense" in found and "DC" in found
    assert "adv" not in completions("check +4 ", words, mm)[1]
    assert completions("check +4 --system levelup e", words, mm)[1][:1] == ["expertise"]
    assert completions("system ", words, mm)[1] == list(SYSTEM_IDS)
    assert completions("odds ", words, Names(default="pendagger"))[1][0] == "attempt"
    assert completions("check +5 expertise=", words, Names())[1] == [
        "expertise=d4",
        "expertise=d6",
        "expertise=d8",
    ]
    assert "clear" in completions("cl", words, Names())[1]


def test_piped_shell_runs_commands(state_home: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "shell"],
        input="char add bea\nchar list\nsystems\nclear\nroll 1d1\nquit\n",
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "XDG_STATE_HOME": str(state_home),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "PYTHONPATH": str(ROOT),
        },
        cwd=ROOT,
        timeout=TIMEOUT * 4,
    )
    assert run.returncode == 0, run.stderr
    assert "bea" in run.stdout and "pendagger" in run.stdout and "= 1" in run.stdout
    assert "\x1b[2J" not in run.stdout


def test_terminal_tab_again_commands_and_clear(state_home: Path, tmp_path: Path) -> None:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d20cli", "shell"],
        env={
            **os.environ,
            "XDG_STATE_HOME": str(state_home),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "TERM": "xterm",
            "NO_COLOR": "1",
            "PROMPT_TOOLKIT_NO_CPR": "1",
            "PYTHONPATH": str(ROOT),
        },
        cwd=str(ROOT),
        dimensions=(30, 140),
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    wait_prompt(child)
    child.sendline("system mm")
    wait_prompt(child, "mm")
    child.send("check +4 vs nigh\t")
    child.expect("-impossible")  # drawn after what was typed
    child.sendline(" --dice 10")
    child.expect(r"= 14 vs 40")
    wait_prompt(child, "mm")
    child.sendline("again bonus")
    child.expect(r"= 16 vs 40")
    wait_prompt(child, "mm")
    child.sendline("!!")
    child.expect(r"= 16 vs 40")
    wait_prompt(child, "mm")
    child.sendline("char add cleo")
    wait_prompt(child, "mm")
    child.sendline("char list")
    child.expect("cleo")
    wait_prompt(child, "mm")
    child.sendline("clear")
    child.expect(re.escape("\x1b[H\x1b[2J"))
    wait_prompt(child, "mm")
    assert leave(child) == 0


def test_a_table_is_a_request_again_repeats(state_home: Path, tmp_path: Path) -> None:
    """`table NAME` in the shell runs as a request (not through the typer app), so `again`
    repeats it."""
    tables = Path(os.environ["XDG_CONFIG_HOME"]) / "d20cli" / "tables"
    tables.mkdir(parents=True)
    for name in ("road", "satchel"):
        (tables / f"{name}.toml").write_text(
            (ROOT / "examples" / "tables" / f"{name}.toml").read_text(encoding="utf-8"),
            encoding="utf-8",
        )
    s, stdout, stderr = session(Options(no_log=True))
    assert s.handle("table road -q --dice 3,3") == 0
    assert s.handle("again") == 0
    assert s.handle("table list") == 0
    assert stdout.getvalue().count("nothing but rain") == 2, stderr.getvalue()
    assert "satchel" in stdout.getvalue()


# -- an over-long line (issue 31, item 13) -------------------------------------------------


def _ones(count: int) -> str:
    """`roll 1+1+...+1`: `count` ones (2 * count + 4 characters), whose total is `count`."""
    return "roll " + "+".join("1" * count)


@pytest.mark.parametrize("bracketed", [False, True], ids=["key-by-key", "bracketed"])
def test_a_pasted_line_past_the_limit_is_refused_and_the_shell_goes_on(
    state_home: Path, bracketed: bool
) -> None:
    """100,000 characters pasted: one error at the limit, in linear time (key by key,
    as a terminal without bracketed paste sends them, this took minutes), then the next
    line runs; a pasted line within the limit runs as typed."""
    child = spawn(state_home)
    wait_prompt(child)
    line = _ones(50_000)
    if bracketed:
        child.send("\x1b[200~" + line + "\x1b[201~")
        child.send("\r")
    else:
        child.sendline(line)
    child.expect(r"d20: error: the line is longer than 10,000 characters; it was skipped")
    wait_prompt(child)
    child.sendline(_ones(4_000) + " -q")  # (key by key, and within the limit)
    child.expect(r"(?<![0-9])4000\r?\n")
    wait_prompt(child)
    assert leave(child) == 0


def test_the_line_limit_inserts_what_is_read_together_and_keeps_meta_keys() -> None:
    """In the process, on prompt_toolkit's own pipe input: characters read together are
    one insert (a paste), Meta-b (Escape, b) still moves back a word, and a line past the
    limit cancels the prompt and drops the rest of itself up to its Enter."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from d20cli.app.shell import line_limit

    with create_pipe_input() as pipe:
        typed = line_limit(lambda: 10_000 - len(prompt.default_buffer.text), pipe)
        prompt: PromptSession[str] = PromptSession(input=typed, output=DummyOutput())
        pipe.send_text("roll 1d20\x1bbx\r")
        assert prompt.prompt("> ") == "roll x1d20"
        line = _ones(6_000)
        for start in range(0, len(line), 1024):
            pipe.send_text(line[start : start + 1024])
        pipe.send_text("\rroll 1d6\r")
        with pytest.raises(KeyboardInterrupt):
            prompt.prompt("> ")
        assert typed.refused
        assert prompt.prompt("> ") == "roll 1d6" and not typed.skipping


# -- TAB never puts a control or bidi character on the line (issue 40, item 11) -----------------

#: A characters file from someone else: names, an entry and a macro holding a right-to-left
#: override, an escape and a blank, beside plain ones.
BIDI_SHEET = (
    '[aria]\nstealth = "+3"\n"st\\u202eealth" = "+1"\n"ste\\u001b[2Jx" = "+1"\n'
    '[aria.macros]\nsneak = "check +1 vs 10"\n"sn\\u202eeak" = "check +2 vs 10"\n'
    '["ar\\u202eia"]\nx = "+1"\n["ar\\u001b]0;x\\u0007"]\nx = "+1"\n["ar ia"]\nx = "+1"\n'
)


def test_completion_offers_no_name_with_controls() -> None:
    from d20cli.app.cli import completion_commands
    from d20cli.app.completion.engine import Lazy, Names, offerable, table
    from d20cli.app.shell import completions
    from d20cli.language.vocabulary import VERB_HELP
    from d20cli.store import characters

    write_sheet(BIDI_SHEET)
    assert len(characters.character_names()) == 4  # (the file holds them all)
    words = table(completion_commands(VERB_HELP))
    names = Names(Lazy(characters.character_names))
    aria = characters.load("aria")
    entries, macros = aria.entry_names("check"), list(aria.macros)
    assert completions("as ar", words, names) == ("ar", ["aria"])
    assert completions("check --as ar", words, names) == ("ar", ["aria"])
    assert completions("check st", words, names, entries) == ("st", ["stealth"])
    assert completions("sn", words, names, entries, macros) == ("sn", ["sneak"])
    assert not offerable("a\u202eb") and not offerable("a\x1bb") and not offerable("a b")
    assert offerable("thieves'-tools") and offerable("élan")


def test_tab_in_a_terminal_never_draws_a_bidi_name(state_home: Path) -> None:

    write_sheet(BIDI_SHEET)
    child = spawn(state_home)
    drawn = io.StringIO()
    child.logfile_read = drawn
    wait_prompt(child)
    child.send("as ar\t")  # aria is the one name offered: TAB puts it on the line
    child.expect("aria")
    child.sendline("")
    child.expect("as: aria")
    wait_prompt(child, "levelup aria")
    child.send("check st\t")  # stealth, never the other two entries
    child.expect("stealth")
    child.sendline(" vs 10 --dice 10")
    child.expect(r"= 13 vs 10\s+Success")
    wait_prompt(child, "levelup aria")
    assert leave(child) == 0
    assert "\u202e" not in drawn.getvalue() and "\x1b]0;" not in drawn.getvalue()
