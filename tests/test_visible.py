"""No terminal injection (issue 21, item 2): text that did not come from the program (a
request, a comment, a label, a character's name, a logged roll) is shown with its control
characters made visible (`\\x1b`, `\\u202e`: d20cli.visible), in plain text, in colour,
in errors, in `d20 log`, `d20 char` and the shell's prompt and toolbar; square brackets
never become rich markup; JSON keeps every value exact.

The corpus: the whole C0 range, DEL, the whole C1 range, the bidi controls, and rich
markup."""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from d20cli import visible as controls
from d20cli.app.options import Options
from d20cli.app.run import run as run_tokens
from d20cli.app.shell import Session
from d20cli.present.output import Output
from d20cli.visible import CONTROLS, json_visible, visible, visible_lines

C0 = [chr(c) for c in range(0x00, 0x20)]
C1 = [chr(c) for c in range(0x7F, 0xA0)]  # DEL and C1
BIDI = ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), "\u2066", "\u2069"]
CORPUS = [*C0, *C1, *BIDI, "\u2028", "\u2029"]
#: a whole attack in one piece of text: colour, an OSC window title, a bell, a CSI 8-bit
ATTACKS = ["\x1b[31mred\x1b[0m", "\x1b]0;pwned\x07", "\x9b2J", "a\u202eb", "\x1b[8mhidden"]
SGR = re.compile(r"\x1b\[[0-9;]*m")  # the styles rich writes itself


def raw_controls(text: str, allow: str = "\n") -> set[str]:
    return {c for c in text if ord(c) in CONTROLS and c not in allow}


def test_every_control_has_one_visible_form() -> None:
    for c in CORPUS:
        shown = visible(f"a{c}b")
        assert not raw_controls(shown, allow=""), repr(c)
        code = ord(c)
        assert shown == (f"a\\x{code:02x}b" if code < 0x100 else f"a\\u{code:04x}b")
    assert visible("check +5 vs 15 [fire] é ü 🎲") == "check +5 vs 15 [fire] é ü 🎲"
    assert visible_lines("a\nb\x1bc") == "a\nb\\x1bc"


def test_json_stays_exact() -> None:
    value = {"text": "".join(CORPUS) + "é[bold]"}
    line = json_visible(json.dumps(value, ensure_ascii=False))
    assert not raw_controls(line, allow="")
    assert json.loads(line) == value


def run(words: list[str], color: bool = False) -> tuple[str, str, int]:
    stdout, stderr = io.StringIO(), io.StringIO()
    console = None
    if color:
        from rich.console import Console

        console = Console(file=stdout, force_terminal=True, color_system="truecolor", width=200)
    out = Output(stdout, stderr, color=color, console=console)
    status = run_tokens(words, Options(), out).status
    return stdout.getvalue(), stderr.getvalue(), int(status)


@pytest.mark.parametrize("color", [False, True], ids=["plain", "colour"])
@pytest.mark.parametrize("c", CORPUS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_comment_and_a_label_show_controls_visibly(c: str, color: bool) -> None:
    for words in (["roll", f"1d6 # a{c}b", "--seed", "1"], ["roll", f"1d6[a{c}b]", "--seed", "1"]):
        stdout, stderr, _ = run(words, color)
        shown = SGR.sub("", stdout)
        assert not raw_controls(shown), (words, stdout)
        assert not raw_controls(stderr), (words, stderr)


@pytest.mark.parametrize("attack", ATTACKS)
def test_whole_escape_sequences_stay_inert(attack: str) -> None:
    requests = [f"1d6 # {attack}"]
    if "[" not in attack and "]" not in attack:
        requests.append(f"1d6[{attack}]")
    for request in requests:
        for color in (False, True):
            stdout, _, status = run(["roll", request, "--seed", "1"], color)
            assert status == 0
            plain = SGR.sub("", stdout)
            assert not raw_controls(plain)
            assert visible(attack) in plain or visible(attack).replace("\x1b", "") in plain


@pytest.mark.parametrize("c", CORPUS, ids=lambda c: f"U+{ord(c):04X}")
def test_errors_that_echo_the_input_show_controls_visibly(c: str) -> None:
    if c in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029":  # white space: a word break
        words = ["check", f"+5 vs 1{c}{c}5x"]  # (`x5` after it would be a label)
    else:
        words = ["check", f"+5 vs 1{c}5"]
    _, stderr, status = run(words)
    assert status == 2
    assert stderr.startswith("d20: ") and not raw_controls(stderr), stderr
    lines = stderr.splitlines()
    if len(lines) == 3:  # the caret stays under the column it names
        column = int(re.search(r"column (\d+)", lines[0]).group(1))  # type: ignore[union-attr]
        text = re.sub("[\t\r\n]", " ", words[0] + " " + words[1])  # (shown as spaces)
        assert lines[2].index("^") - 2 == len(visible(text[: column - 1]))


def test_errors_in_json_are_exact() -> None:
    stdout, stderr, status = run(["check", "+5 vs 1\x1b]0;x\x075\u202e", "--json"])
    assert status == 2 and not raw_controls(stderr)
    assert not raw_controls(stdout)
    obj = json.loads(stdout)
    assert obj["input"] == "check +5 vs 1\x1b]0;x\x075\u202e"


def test_json_results_are_exact_and_inert() -> None:
    comment = "".join(c for c in CORPUS if not c.isspace())  # (white space is a word break)
    stdout, _, status = run(["roll", f"1d6 # {comment}", "--json", "--seed", "1"])
    assert status == 0
    assert not raw_controls(stdout)
    assert json.loads(stdout)["comment"] == comment


def test_rich_markup_in_a_label_is_shown_as_typed_in_colour() -> None:
    words = ["roll", "1d6[bold red] + 2[/] # [link=http://x]y[/link]", "--seed", "1"]
    stdout, _, status = run(words, True)  # (a 2: no style of the program's is red)
    assert status == 0
    plain = SGR.sub("", stdout)
    assert "1d6[bold red]" in plain and "[/]" in plain and "[link=http://x]y[/link]" in plain
    assert "\x1b]8;" not in stdout  # no hyperlink
    assert "\x1b[1;31m" not in stdout and "\x1b[31;1m" not in stdout  # no bold red


def test_the_shell_prompt_and_toolbar() -> None:
    session = Session(Options(as_="ar\x1b]0;x\x07ia\u202e"), Output(io.StringIO(), io.StringIO()))
    assert not raw_controls(session.toolbar(), allow="")
    assert not raw_controls(session.prompt(), allow="")
    assert "ar\\x1b]0;x\\x07ia\\u202e" in session.toolbar()


def test_the_roll_log_view_shows_controls_visibly(capsys: pytest.CaptureFixture[str]) -> None:
    from d20cli.app.cli import run_app
    from d20cli.store.state import State

    store = State.open()
    at = "2024-01-01T00:00:00.000+00:00"
    rows = [
        (at, f"x{c}y", "levelup", "roll", f"1d6 # {c}[bold]", "[]", 3, f"o{c}", "random")
        for c in CORPUS
    ]
    store.rolls.add(rows)
    store.close()
    for args in (["log", "--limit", "100"], ["log", "--stats"]):
        assert run_app(args) == 0
        captured = capsys.readouterr()
        assert not raw_controls(captured.out) and not raw_controls(captured.err)
    assert run_app(["log", "--json", "--limit", "100"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert {r["character"] for r in found} == {f"x{c}y" for c in CORPUS}  # exact


def test_a_hand_edited_characters_file(capsys: pytest.CaptureFixture[str]) -> None:
    from d20cli.app.cli import run_app
    from d20cli.store.characters import characters_path

    path = characters_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        '[aria]\nsystem = "levelup"\nstealth = "+7 # \\u001b]0;x\\u0007 \\u202e [bold red]"\n'
        '[aria.macros]\nsneak = "check stealth vs 15 # \\u009b2J"\n',
        encoding="utf-8",
    )
    for args in (["char", "show", "aria"], ["char", "list"]):
        status = run_app(args)
        captured = capsys.readouterr()
        assert status == 0, captured.err
        assert not raw_controls(captured.out) and not raw_controls(captured.err)
    assert "[bold red]" in SGR.sub("", run_char_show(capsys))
    for words in (["check", "stealth", "vs", "15"], ["sneak"]):
        stdout, stderr, status = run([*words, "--as", "aria", "--seed", "1"])
        assert status in (0, 2) and stdout + stderr
        assert not raw_controls(stdout) and not raw_controls(stderr)


def run_char_show(capsys: pytest.CaptureFixture[str]) -> str:
    from d20cli.app.cli import run_app

    run_app(["char", "show", "aria"])
    return capsys.readouterr().out


@given(st.text())
def test_the_fast_paths_agree_with_the_patterns(text: str) -> None:
    """`visible`, `visible_lines` and `json_visible` skip their patterns when a text is
    printable; that never leaves a control raw (every control is unprintable)."""
    from d20cli.visible import _json_escape, _patterns, _shown

    every, but_newline, json_raw = _patterns()
    assert controls.visible(text) == every.sub(_shown, text)
    assert controls.visible_lines(text) == but_newline.sub(_shown, text)
    assert controls.json_visible(text) == json_raw.sub(_json_escape, text)


@pytest.mark.parametrize(
    "text",
    [
        '{"note": "Success \u2014 you had 70.0%"}',  # printable: nothing to do
        '{"note": "a \u2014 b\x7f"}',  # ... and DEL
        '{"note": "a \u2014 b\u202e"}',  # the dash and a format control
        '{"note": "a \u2014 b\x85 \u2014"}',  # the dash and a C1 control
        '{"note": "a \u2014 caf\u00e9"}',  # the dash and another printable letter
    ],
)
def test_json_that_is_not_ascii_agrees_with_the_pattern(text: str) -> None:
    """The program writes its JSON in ASCII; JSON that is not (a dash, a letter, a
    control) is read by the slower path, which agrees with the pattern."""
    from d20cli.visible import _json_escape, _patterns

    assert controls.json_visible(text) == _patterns()[2].sub(_json_escape, text)


def test_every_control_is_unprintable() -> None:
    assert not any(chr(code).isprintable() for code in controls.CONTROLS)
    assert controls.json_visible('{"note": "Success \u2014 you had 70.0%"}').isprintable()


# -- every path `d20 log` prints on (issue 40, item 11) -----------------------------------------

#: A row from someone else's state.db: an OSC title, a CSI clear and an RLO in each text
#: column, and a DEL, the time first of all.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202e\x7f"


def _hostile_log() -> None:
    from d20cli.store.state import State

    store = State.open()
    at = "2024-01-01T00:00:00.000+00:00"
    dice = '[{"sides": 20, "face": 20, "kept": true, "role": "d20"}]'
    h = HOSTILE
    store.rolls.add(
        [
            (h + at, "x" + h, "levelup", "check", "check +1" + h, dice, 21, "success" + h, "x" + h),
            (at + h, None, "levelup" + h, "roll" + h, "1d20", dice, 20, None, "dice"),
        ]
    )
    store.close()


@pytest.mark.parametrize(
    "args", [["log"], ["log", "--tsv"], ["log", "--stats"], ["log", "-c", "x" + HOSTILE]]
)
def test_every_field_of_the_log_is_shown_visibly(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """On a pipe (the plain lines), `--tsv`, `--stats`: the time and every other field."""
    from d20cli.app.cli import run_app

    _hostile_log()
    assert run_app(args) == 0
    captured = capsys.readouterr()
    tsv = "--tsv" in args  # (its fields are tab-separated: a tab in a value is `\\x09`)
    assert not raw_controls(captured.out, allow="\t\n" if tsv else "\n")
    assert not raw_controls(captured.err)
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\u202e" in captured.out
    if tsv:
        assert [line.count("\t") for line in captured.out.splitlines()] == [6, 6]


def test_exports_on_a_pipe_keep_every_value_exact(capsys: pytest.CaptureFixture[str]) -> None:
    import csv

    from d20cli.app.cli import run_app

    _hostile_log()
    assert run_app(["log", "--export", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows[0]["at"] == HOSTILE + "2024-01-01T00:00:00.000+00:00"  # data, as it is
    assert rows[1]["system"] == "levelup" + HOSTILE
    assert run_app(["log", "--export", "json"]) == 0
    text = capsys.readouterr().out
    assert not raw_controls(text)  # (JSON's own escapes, C1 and the bidi controls too)
    assert json.loads(text)[0]["at"] == HOSTILE + "2024-01-01T00:00:00.000+00:00"


@pytest.mark.parametrize(
    "args", [["log"], ["log", "--stats"], ["log", "--export", "csv"], ["log", "--tsv"]]
)
def test_the_log_on_a_terminal_shows_every_field_visibly(args: list[str]) -> None:
    """In a real terminal: the table, `--stats`, `--tsv` and `--export csv` (made visible
    there, as it is a view)."""
    import os
    import sys

    pexpect = pytest.importorskip("pexpect")
    _hostile_log()
    env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm", "COLUMNS": "200"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d20cli", *args],
        env=env,
        dimensions=(60, 200),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    shown = SGR.sub("", child.before)
    assert not raw_controls(shown, allow="\t\r\n" if "--tsv" in args else "\r\n")
    assert "\\x1b]0;pwned\\x07" in shown


def test_the_log_table_cuts_a_long_field() -> None:
    """On a terminal a field over MAX_CELL characters is cut, ending in `…` (rich lays a
    table out in time that grows with its cells); the plain lines keep it whole."""
    from rich.console import Console

    from d20cli.app.commands.log import MAX_CELL, _table, outcome_labels, row_fields
    from d20cli.store.rolllog import Row

    at = "2024-01-01T00:00:00.000+00:00"
    row = Row(1, at, "aria", "levelup", "roll", "y" * 60_000 + HOSTILE, [], 3, None, "random")
    screen = io.StringIO()
    _table([row], outcome_labels(), Console(file=screen, width=100, color_system=None))
    shown = screen.getvalue()
    assert shown.count("y") == MAX_CELL - 1 and "…" in shown
    assert shown.count("\n") < 30 and not raw_controls(shown)
    assert row_fields(row, outcome_labels(), iso=True)[2].count("y") == 60_000
