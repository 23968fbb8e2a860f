"""One path for a request (d20cli.app.run.run), and a line that means the same thing on the
command line, on standard input and in the shell: a bare expression is a roll, a leading
`d20` is the program's name, `system ID` and `as NAME` set what the following lines roll
with, and a mistyped first word gets "did you mean" everywhere."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from cli_helpers import d20, write_sheet

from d20cli.app.options import Options
from d20cli.app.shell import Session, run_lines_in_session
from d20cli.app.stdin import run_lines
from d20cli.present.output import Output

# (bare, as `d20 roll ...`): each pair prints the same, byte for byte
BARE = [
    (["2d6+3", "--seed", "1"], ["roll", "2d6+3", "--seed", "1"]),
    (["d20", "--seed", "2"], ["roll", "d20", "--seed", "2"]),
    (["4d6kh3", "--seed", "1"], ["roll", "4d6kh3", "--seed", "1"]),
    (["-s", "mm", "2d6", "--seed", "1"], ["-s", "mm", "roll", "2d6", "--seed", "1"]),
    (
        ["3x", "1d6", "--dice", "1,2,3", "--json"],
        ["roll", "3x", "1d6", "--dice", "1,2,3", "--json"],
    ),
    (["2d6+", "--seed", "1"], ["roll", "2d6+", "--seed", "1"]),  # its error too
]


@pytest.mark.parametrize(("bare", "rolled"), BARE)
def test_a_bare_expression_on_the_command_line_is_a_roll(
    bare: list[str], rolled: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert d20(bare, capsys) == d20(rolled, capsys)


def test_a_near_miss_of_a_command_is_still_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = d20(["chekc", "+5", "vs", "15"], capsys)
    assert (status, out) == (2, "")
    assert err == "d20: error: unknown command 'chekc'; did you mean check?\n"


def batch(lines: list[str], opts: Options | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_lines(lines, opts or Options(), Output(out, err, color=False))
    return int(status), out.getvalue(), err.getvalue()


def shell(lines: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    session = Session(Options(), Output(out, err, color=False))
    status = run_lines_in_session(session, io.StringIO("".join(f"{line}\n" for line in lines)))
    return status, out.getvalue(), err.getvalue()


def test_a_bare_expression_on_standard_input_and_in_the_shell_is_a_roll() -> None:
    bare = ["2d6+3 --seed 1", "d20 --seed 2", "4d6kh3 --seed 1"]
    rolled = ["roll 2d6+3 --seed 1", "roll d20 --seed 2", "roll 4d6kh3 --seed 1"]
    assert batch(bare) == batch(rolled)
    assert shell(bare) == shell(rolled)
    assert batch(bare)[0] == 0 and "roll 4d6kh3  [levelup]" in batch(bare)[1]


def test_a_leading_d20_is_the_program_name_on_standard_input_and_in_the_shell() -> None:
    typed = [
        "d20 check +5 vs 15 --dice 12",
        "d20 -s mm check +8 vs 15 --dice 3",
        "d20 2d6 --seed 1",
    ]
    plain = ["check +5 vs 15 --dice 12", "-s mm check +8 vs 15 --dice 3", "2d6 --seed 1"]
    for run in (batch, shell):
        status, out, err = run(typed)
        assert (status, err) == (0, "")
        assert (status, out, err) == run(plain)
        assert "= 17 vs 15" in out and "[mm]" in out


def test_the_shell_words_set_the_following_lines_on_standard_input() -> None:
    """`system ID` and `as NAME` on standard input mean what they mean in the shell: the
    lines after them roll in that system, as that character; saying nothing, so a batch's
    output is still its results alone (`--json`: JSON lines)."""
    write_sheet('[aria]\nsystem = "mm"\nstealth = "+7"\n')
    status, out, err = batch(
        [
            "check +5 vs 15 --dice 10 --json",
            "system reglamento",
            "check +5 vs 15 --dice 10 --json",
            "as aria",
            "check stealth vs 15 --dice 10 --json",
            "as -",
            "system levelup",
            "check +5 vs 15 --dice 10 --json",
        ]
    )
    assert (status, err) == (0, "")
    import json

    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["system"] for row in rows] == ["levelup", "reglamento", "mm", "levelup"]
    assert rows[2]["total"] == 17  # aria's +7, in her system


def test_the_shell_words_alone_show_the_setting_on_standard_input() -> None:
    status, out, err = batch(["system mm", "system", "as"])
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "system: mm (the systems are levelup, reglamento, mm, pendagger; `system ID` switches)",
        "no character (`as NAME` picks one; `d20 char list` lists them)",
    ]


def test_a_bad_setting_on_standard_input_is_the_shell_error_and_the_rest_runs() -> None:
    status, out, err = batch(["system nope", "roll 1d4 --dice 3 -q"])
    _, _, shell_err = shell(["system nope"])
    assert status == 2 and out == "3\n"
    assert err.startswith("d20: error at line 1, column 8: ")
    assert err.split(": ", 2)[2] == shell_err.split(": ", 2)[2]  # the shell's own words


def test_a_mistyped_verb_gets_did_you_mean_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = batch(["chekc +5 vs 15"])
    assert status == 2
    assert err == "d20: error at line 1: unknown command 'chekc'; did you mean check?\n"
    assert "unknown command 'chekc'; did you mean check?" in shell(["chekc +5 vs 15"])[2]
    assert "did you mean check?" in d20(["chekc", "+5", "vs", "15"], capsys)[2]


def test_a_new_line_in_a_batch_rolls_as_it_does_alone_whatever_its_system_s_spelling() -> None:
    lines = ["check +5 vs 15 adv", "roll 4d6kh3+2", "attack +3 vs AC 12 dmg 1d8+2"]
    alone = [batch([line], Options(json=True, seed=4))[1] for line in lines]
    assert "".join(alone) == batch(lines[:1], Options(json=True, seed=4))[1] + "".join(alone[1:])
    run_seeded = batch([f"{line} --seed 4" for line in lines], Options(json=True))[1]
    assert run_seeded == "".join(alone)
    for spelling in ("mm", "MM", "mutants"):  # the system read by id, alias or case
        status, out, err = batch(["check +5 vs 15 --seed 3"], Options(json=True, system=spelling))
        assert (status, err) == (0, "") and '"system": "mm"' in out


def test_help_is_asked_only_before_a_comment_or_the_end_of_the_options() -> None:
    assert "Usage: d20 check" in batch(["check +5 vs 15 -h"])[1]
    status, out, err = batch(["check +5 vs 15 # -h --help", "check +5 vs 15 -- --help"])
    assert (status, out) == (2, "")  # each read as words of its request, not as help
    assert err.count("d20: error at line") == 2 and "Usage" not in err


def test_a_verb_help_on_standard_input_is_the_shell_help() -> None:
    status, out, err = batch(["check --help"])
    assert (status, err) == (0, "")
    assert out == shell(["check --help"])[1] and "Usage: d20 check" in out


def test_the_library_rolls_without_the_command_line() -> None:
    """`import d20cli` and a roll load no module of d20cli.app (the layer test checks the
    imports; this, what a program gets)."""
    code = (
        "import sys, d20cli\n"
        "d20cli.roll('check +5 vs 15', seed=1)\n"
        "d20cli.roll_all('3x 2d6', seed=1)\n"
        "print(sorted(m for m in sys.modules if m.startswith('d20cli.app')))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout == "[]\n"


def test_the_odds_of_a_bare_expression_are_the_odds_of_its_roll(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bare = d20(["odds", "2d6+3", "--json"], capsys)
    assert bare == d20(["odds", "roll", "2d6+3", "--json"], capsys)
    assert bare[0] == 0 and '"mean": 10' in bare[1].replace(".0", "")


def test_odds_lines_of_a_batch_read_each_request_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An odds line reads through the run's caches as a roll does (issue 43 item 3): a
    batch parses each request once, however often it comes, as odds or as a roll, and
    prints for each line what `d20 odds` prints alone; a peer-reading note is said once
    a run, as for a roll."""
    from d20cli.language import grammar

    monkeypatch.setenv("D20_NO_CACHE", "1")  # (so that only the run's own caches count)
    parsed: list[str] = []
    real = grammar.parse_request
    monkeypatch.setattr(grammar, "parse_request", lambda t: parsed.append(t) or real(t))
    requests = ["check +5 vs 15 adv expertise=d6", "roll 4d6kh3", "check +2 vs 11 -s mm"]
    lines = [f"odds {r}" for r in requests] * 3 + [requests[0], "odds 5d10>7", "odds 5d10>7"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    status, out, err = d20(["--json", "--no-log"], capsys)
    assert status == 0
    assert sorted(parsed) == sorted({*requests[:2], "check +2 vs 11", "roll 5d10>7"})
    assert err.count("Roll20") == 1
    printed = out.splitlines()
    assert len(printed) == len(lines)
    for line, text in zip(lines, printed, strict=True):
        if line.startswith("odds"):  # (the roll's dice are its own)
            assert text + "\n" == d20([*line.split(), "--json", "--no-log"], capsys)[1]


def test_an_odds_line_asked_again_prints_its_odds_again_in_the_setting_in_force() -> None:
    """An odds line of a batch asked again with --json prints the JSON it printed the
    first time (kept with the line as read: issue 43 item 3), until a `system` or `as`
    line changes what it means; a line refused by --strict is refused each time, and the
    odds shown as text are worked out and shown each time."""
    import json

    write_sheet('[aria]\nsystem = "mm"\nstealth = "+7"\n')
    line, strict = "odds check +5 vs 15 --json", "odds check stealth vs 15 --json --strict"
    as_text = "odds check +5 vs 15"
    lines = [line, line, strict, strict, "system reglamento", line, line, "as aria", line]
    status, out, err = batch([*lines, as_text, as_text])
    assert status == 2
    assert err.count("(--strict)") == 2
    printed = out.splitlines()
    rows = [json.loads(text) for text in printed[:7]]  # (--json: the errors are JSON too)
    assert [row.get("system", "error") for row in rows] == [
        *("levelup", "levelup", "error", "error", "reglamento", "reglamento", "mm")
    ]
    assert printed[0] == printed[1] and printed[4] == printed[5] != printed[0]
    assert [row["line"] for row in rows[2:4]] == [3, 4] and "(--strict)" in rows[3]["error"]
    shown = printed[7:]
    half = len(shown) // 2
    assert half > 2 and shown[:half] == shown[half:]
    assert shown[0].startswith("odds check +5 vs 15") and "[mm]" in shown[0]


def test_the_shell_keeps_no_odds_line_it_cannot_find_again() -> None:
    """The shell reads each line afresh (no line kept as read), so it keeps no odds' JSON
    for its lines either (`Lookups.odds_lines` stays empty), and prints what a batch
    prints for them."""
    out, err = io.StringIO(), io.StringIO()
    session = Session(Options(), Output(out, err, color=False))
    lines = "odds check +5 vs 15 --json\n" * 3
    assert run_lines_in_session(session, io.StringIO(lines)) == 0
    assert len(session.context.odds_lines) == 0
    printed = out.getvalue().splitlines()
    assert len(set(printed)) == 1 and printed[0] == batch(lines.splitlines())[1].splitlines()[0]


def test_a_new_line_whose_dice_fail_is_an_error_of_its_line_and_the_rest_runs() -> None:
    """A plain line rolled at once the first time (and from its prepared line the next)
    says its dice's error, placed in its line, each time; the lines after it roll."""
    status, out, err = batch(["roll 1d6/(1d1-1)", "roll 1d6/(1d1-1)", "roll 1d4 --dice 3 -q"])
    assert (status, out) == (2, "3\n")
    said = "division by zero in '1d6/(1d1-1)' ('1d1-1' is 0)"
    assert err == f"d20: error at line 1: {said}\nd20: error at line 2: {said}\n"
