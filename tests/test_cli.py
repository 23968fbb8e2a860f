"""The command line: typer's CliRunner over the app, and the fast entry point `main`."""

from __future__ import annotations

import io
import json
import sys

import pytest
from typer.testing import CliRunner

from d20cli.__main__ import main
from d20cli.app.cli import app
from d20cli.app.options import OPTIONS
from d20cli.app.stdin import run_lines
from d20cli.language.vocabulary import VERBS
from d20cli.present.output import Output

runner = CliRunner()


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_check_with_forced_dice_via_cli_runner() -> None:
    result = runner.invoke(app, ["check", "+5", "vs", "15", "adv", "--dice", "17,4"])
    assert result.exit_code == 0, result.output
    assert "d20 17 ~4~" in result.output
    assert "= 22 vs 15" in result.output
    assert "Success" in result.output


def test_negative_modifier_is_a_word_not_an_option() -> None:
    result = runner.invoke(app, ["check", "-1", "vs", "10", "--dice", "11"])
    assert result.exit_code == 0, result.output
    assert "= 10 vs 10" in result.output


def test_quiet_prints_totals_only(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(["roll", "2d6+1", "--dice", "3,4", "-q"], capsys)
    assert (status, out) == (0, "8\n")


def test_seed_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    _, first, _ = run_main(["roll", "10d20", "--seed", "42", "--json"], capsys)
    _, second, _ = run_main(["roll", "10d20", "--seed", "42", "--json"], capsys)
    assert first == second
    _, other, _ = run_main(["roll", "10d20", "--seed", "43", "--json"], capsys)
    assert other != first


def test_repeat_gives_one_result_per_roll(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_main(["roll", "1d20", "--repeat", "5", "--seed", "1", "--json"], capsys)
    assert len(out.splitlines()) == 5
    _, out, _ = run_main(["roll", "3x", "1d6", "-n", "2", "--seed", "1", "-q"], capsys)
    assert len(out.splitlines()) == 6


def test_summary_tallies_outcomes(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(
        ["check", "+5", "vs", "15", "--repeat", "2000", "--summary", "--seed", "3", "--json"],
        capsys,
    )
    assert status == 0
    tally = json.loads(out)
    assert tally["rolls"] == 2000
    assert sum(tally["outcomes"].values()) == 2000
    assert set(tally["outcomes"]) <= {"critical_failure", "failure", "success", "critical_success"}


@pytest.mark.parametrize(
    ("args", "column", "fragment"),
    [
        (["roll", "2d"], 8, "sides"),
        (["roll", "1d20+"], 11, ""),
        (["roll", "d0"], None, "d0"),
        (["roll", "4d6kh3x"], None, ""),
        (["roll", "(1d6"], None, ""),
        (["roll", "1d6kx2"], None, ""),
        (["check", "+5", "vs"], None, ""),
    ],
)
def test_bad_input_is_one_clear_error_with_status_2(
    args: list[str], column: int | None, fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_main(args, capsys)
    assert status == 2
    assert out == ""
    first = err.splitlines()[0]
    assert first.startswith("d20: error")
    assert "Traceback" not in err
    assert fragment in err
    if column is not None:
        assert f"column {column}" in first
        caret_line = err.splitlines()[2]
        assert caret_line.index("^") - 2 == column - 1


def test_error_with_json_also_goes_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_main(["roll", "2d", "--json"], capsys)
    assert status == 2
    assert "error" in json.loads(out)
    assert err.startswith("d20: error")


def test_unknown_option_and_command(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_main(["roll", "1d6", "--frob"], capsys)
    assert status == 2 and "unknown option --frob" in err
    status, _, err = run_main(["chekc", "+5"], capsys)
    assert status == 2 and "did you mean check" in err


def test_unknown_system_lists_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_main(["check", "+1", "vs", "10", "-s", "gurps"], capsys)
    assert status == 2
    assert "levelup" in err and "pendagger" in err


def test_system_alias_and_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out, _ = run_main(["check", "+1", "vs", "10", "-s", "m&m", "--json", "--dice", "9"], capsys)
    assert json.loads(out)["system"] == "mm"
    monkeypatch.setenv("D20_SYSTEM", "reglamento")
    _, out, _ = run_main(["check", "+1", "vs", "10", "--json", "--dice", "9"], capsys)
    assert json.loads(out)["system"] == "reglamento"


def test_dice_faces_must_fit(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_main(["roll", "1d6", "--dice", "7"], capsys)
    assert status == 2 and "outside 1..6" in err
    status, _, err = run_main(["roll", "1d6", "--dice", "3,4"], capsys)
    assert status == 2 and "used only 1" in err
    status, _, err = run_main(["roll", "2d6", "--dice", "3"], capsys)
    assert status == 2 and "needs more" in err


def test_budget_option(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_main(["roll", "20d6", "--budget", "10"], capsys)
    assert status == 2 and "20d6" in err
    status, _, _ = run_main(["roll", "20d6", "--budget", "20", "-q"], capsys)
    assert status == 0


def test_standard_input_runs_each_line_and_reports_bad_ones() -> None:
    out, err = io.StringIO(), io.StringIO()
    lines = [
        "roll 1d20 --dice 4\n",
        "\n",
        "# a comment\n",
        "roll 2d --json\n",
        "roll 2d6+1 --dice 1,2\n",
    ]
    from d20cli.app.options import Options

    status = run_lines(lines, Options(quiet=True), Output(out, err, color=False))
    assert int(status) == 2
    assert out.getvalue().splitlines() == [
        "4",
        '{"error": "expected a number of sides after '
        '\'d\', found the end", "line": 4, "column": 8, "input": '
        '"roll 2d", "kind": "parse"}',
        "4",
    ]
    assert err.getvalue().count("d20: error at line 4, column 8:") == 1


def test_windows_line_endings_and_byte_order_mark() -> None:
    from d20cli.app.options import Options

    out = io.StringIO()
    status = run_lines(
        ["\ufeffroll 1d4 --dice 2\r\n"], Options(quiet=True), Output(out, io.StringIO(), False)
    )
    assert int(status) == 0 and out.getvalue() == "2\n"


def test_version_comes_from_metadata() -> None:
    from d20cli import version

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"d20 {version()}"


def test_every_verb_has_help_with_examples() -> None:
    for verb in VERBS:
        result = runner.invoke(app, [verb, "--help"])
        assert result.exit_code == 0, verb
        assert "Examples" in result.output, verb
        assert f"d20 {verb}" in result.output or verb in ("defend",), verb
        assert "--seed" in result.output


def test_help_lists_the_options_each_verb_takes() -> None:
    """`d20 VERB --help` lists the options that verb takes and no other; every option is
    listed by some verb or by `d20 odds --help`."""
    listed = set()
    for verb in (*VERBS, "odds"):
        result = runner.invoke(app, [verb, "--help"])
        assert result.exit_code == 0, result.output
        for spec in OPTIONS:
            assert (spec.names[0] in result.output) is spec.taken_by(verb), (verb, spec.names)
            if spec.taken_by(verb):
                listed.add(spec.field)
    assert listed == {spec.field for spec in OPTIONS}


def test_verbs_agree_with_the_grammar() -> None:
    from d20cli.language import grammar

    assert set(VERBS) == set(grammar.VERBS)


def test_systems_command_lists_every_system(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(["systems"], capsys)
    assert status == 0
    for sid in ("levelup", "reglamento", "mm", "pendagger"):
        assert sid in out
    status, out, _ = run_main(["systems", "--json"], capsys)
    data = json.loads(out)
    assert [s["id"] for s in data] == ["levelup", "reglamento", "mm", "pendagger"]
    assert all(s["verbs"] and s["outcomes"] for s in data)


def test_python_dash_m_entry_point() -> None:
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-m", "d20cli", "roll", "1d6", "--dice", "5", "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout == "5\n"


def test_summary_draws_from_the_exact_odds(capsys: pytest.CaptureFixture[str]) -> None:
    """A big --summary is drawn from the resolver's exact distribution: its frequencies sit
    within a few standard deviations of the exact odds."""
    from fractions import Fraction

    from d20cli.probability.engine import odds_of

    n = 200_000
    status, out, _ = run_main(
        ["check", "+5", "vs", "15", "adv", "-n", str(n), "--summary", "--seed", "9", "--json"],
        capsys,
    )
    assert status == 0
    tally = json.loads(out)
    assert tally["rolls"] == n
    exact = odds_of("check +5 vs 15 adv", "levelup")
    for outcome, p in exact.outcomes.items():
        sd = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(tally["outcomes"][outcome] / n - float(p)) < 5 * sd + 1e-9
    mean = exact.mean
    assert mean is not None and abs(tally["mean"] - float(mean)) < 0.05
    assert sum(tally["outcomes"].values()) == n
    assert Fraction(sum(exact.outcomes.values())) == 1


def test_summary_with_forced_dice_rolls_each_one(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(
        ["check", "+5", "vs", "15", "-n", "3", "--summary", "--dice", "20,1,10", "--json"], capsys
    )
    assert status == 0
    assert json.loads(out)["outcomes"] == {
        "critical_success": 1,
        "critical_failure": 1,
        "success": 1,
    }


def test_options_before_the_verb(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(
        ["-s", "mm", "--json", "check", "+5", "vs", "20", "--dice", "10"], capsys
    )
    assert status == 0 and json.loads(out)["system"] == "mm"
    status, out, _ = run_main(["-s", "mm", "--json", "odds", "check", "+5", "vs", "20"], capsys)
    assert status == 0 and json.loads(out)["odds"]["success"] == "1/4"


def test_odds_lines_on_standard_input() -> None:
    from d20cli.app.options import Options

    out = io.StringIO()
    status = run_lines(
        ["odds check +5 vs 15\n"], Options(json=True), Output(out, io.StringIO(), False)
    )
    assert int(status) == 0
    assert json.loads(out.getvalue())["odds"]["success"] == "1/2"


# --- contests of three or more sides ------------------------------------------------------


def test_contest_of_three_sides_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_main(
        ["contest", "+1", "vs", "bob", "+2", "adv", "vs", "+3", "-s", "reg", "--dice", "9,4,14,10"],
        capsys,
    )
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "contest +1 vs bob +2 adv vs +3  [reglamento]",
        "  side 1 +1   d20 9  +1  = 10",
        "  side 2 bob  d20 ~4~ 14  +2  = 16  winner",
        "  side 3 +3   d20 10  +3  = 13",
        "  Side 2 (bob) wins",
    ]


def test_contest_of_three_sides_tie_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(
        ["contest", "+3", "vs", "+9", "vs", "+3", "-s", "reglamento", "--dice", "20,19,20"], capsys
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[-2:] == [
        "  Tie — the situation stays unchanged",
        "  sides 1 and 3 share the best roll",
    ]
    assert "winner" not in out


def test_opposed_of_three_sides_tiebreak_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(
        ["opposed", "+5", "vs", "+5", "vs", "+5", "-s", "mm", "--dice", "10,10,10,7,7,7,12,3,12,4"],
        capsys,
    )
    assert status == 0
    assert out.splitlines() == [
        "opposed +5 vs +5 vs +5  [mm]",
        "  side 1 +5  d20 10  +5  = 15  winner",
        "  side 2 +5  d20 10  +5  = 15",
        "  side 3 +5  d20 10  +5  = 15",
        "  tie-break d20  side 1: 7  side 2: 7  side 3: 7",
        "  tie-break d20  side 1: 12  side 2: 3  side 3: 12",
        "  tie-break d20 4",
        "  Side 1 wins",
        "  sides 1, 2 and 3 tie on total and bonus: each rolls a d20, the highest wins",
        "  sides 1 and 3 still tie: a d20 decides (1-10 side 1, 11-20 side 3)",
    ]


def test_contest_json_has_sides_and_winner(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(
        ["opposed", "+8", "vs", "+6", "vs", "+4", "-s", "mm", "--json", "--dice", "10,11,16"],
        capsys,
    )
    assert status == 0
    obj = json.loads(out)
    assert (obj["outcome"], obj["label"], obj["winner"]) == ("side_wins", "Side 3 wins", 3)
    assert [s["total"] for s in obj["sides"]] == [18, 17, 20]
    assert [s["success"] for s in obj["sides"]] == [False, False, True]
    assert [d["face"] for d in obj["dice"]] == [10, 11, 16]
    assert list(obj).index("winner") == list(obj).index("sides") + 1
    # a tie: winner is there, and null
    status, out, _ = run_main(
        ["contest", "+0", "vs", "+0", "vs", "+0", "-s", "reglamento", "--json", "--dice", "5,5,5"],
        capsys,
    )
    obj = json.loads(out)
    assert (obj["outcome"], obj["winner"]) == ("tie", None)
    # two sides: the same JSON as before, with winner
    status, out, _ = run_main(
        ["contest", "+3", "vs", "+1", "-s", "reglamento", "--json", "--dice", "10,13"], capsys
    )
    obj = json.loads(out)
    assert (obj["outcome"], obj["label"], obj["winner"]) == ("second_wins", "Second side wins", 2)


@pytest.mark.parametrize(
    ("args", "column", "fragment"),
    [
        (["contest", "+1", "vs", "15", "vs", "+2", "-s", "reglamento"], 15, "sides have no target"),
        (["opposed", "+1", "vs", "+2", "vs", "-s", "mm"], 20, "expected a side"),
        (["opposed", "+1", "vs", "+2", "vs", "+3", "adv", "-s", "mm"], 24, "circumstance"),
        (["contest", "+1", "vs", "+2", "vs", "+3", "-s", "mm"], 1, "use opposed"),
    ],
)
def test_contest_of_three_sides_bad_input(
    args: list[str], column: int, fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_main(args, capsys)
    assert (status, out) == (2, "")
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert f"column {column}" in first and fragment in first


def test_too_many_sides_is_one_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    from d20cli.language.grammar import MAX_CONTEST_SIDES as MAX_SIDES

    words = " vs ".join(["+1"] * (MAX_SIDES + 1)).split()
    status, out, err = run_main(["contest", *words, "-s", "reglamento"], capsys)
    assert (status, out) == (2, "")
    assert f"a contest has at most {MAX_SIDES:,} sides" in err.splitlines()[0]


def test_summary_of_three_sides_counts_each_winner(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["contest", "+1", "vs", "+2", "vs", "+3", "-s", "reglamento", "-n", "2000"]
    status, out, _ = run_main([*args, "--summary", "--seed", "5", "--json"], capsys)
    assert status == 0
    tally = json.loads(out)
    assert set(tally["outcomes"]) <= {"side_wins", "tie"}
    assert list(tally["winners"]) == ["1", "2", "3"]
    assert sum(tally["winners"].values()) == tally["outcomes"]["side_wins"]
    status, out, _ = run_main(
        [*args[:-1], "3", "--summary", "--dice", "1,2,3,20,2,3,10,9,8"], capsys
    )
    assert out.splitlines()[1:] == [
        "  Tie            1   33.3%",
        "  One side wins  2   66.7%",
        "    side 1 wins  1   33.3%",
        "    side 2 wins  0    0.0%",
        "    side 3 wins  1   33.3%",
    ]


def test_quiet_contest_of_three_sides_names_the_winner(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["contest", "+1", "vs", "+2", "vs", "+3", "-s", "reglamento", "-q", "--dice"]
    assert run_main([*args, "10,10,10"], capsys)[1] == "side_wins 3\n"
    assert run_main([*args, "12,11,10"], capsys)[1] == "tie -\n"
    assert (
        run_main(["contest", "+1", "vs", "+2", "-s", "reg", "-q", "--dice", "9,9"], capsys)[1]
        == "second_wins 2\n"
    )


def test_the_command_registry_is_what_typer_registers() -> None:
    """One list of commands: the fast path's (d20cli.app.commands) and the typer app's."""
    import typer.main

    from d20cli.app.cli import app
    from d20cli.app.commands import COMMANDS
    from d20cli.language.vocabulary import VERBS

    group = typer.main.get_command(app)
    registered = {
        name
        for name, cmd in group.commands.items()  # type: ignore[attr-defined]
        if name not in VERBS and not getattr(cmd, "hidden", False)
    }
    assert registered == set(COMMANDS)
