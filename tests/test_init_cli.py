"""`d20 init ...` from the command line (typer's CliRunner), standard input and the shell,
with the shell's toolbar showing whose turn it is."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import write_sheet
from typer.testing import CliRunner

from d20cli.__main__ import main
from d20cli.app.cli import app
from d20cli.app.commands.initiative import party
from d20cli.app.options import Options
from d20cli.app.shell import Session
from d20cli.app.stdin import run_lines
from d20cli.present.output import Output
from d20cli.store import characters

runner = CliRunner()

SHEET = """\
[aria]
system = "levelup"
init = "+3 adv"

[bob]
system = "levelup"
dex = "+1"

[cleo]
system = "pendagger"
dex = "14"  # a score (a number here would be a modifier: +14)

[dana]
system = "mm"

[dana.abilities]
agility = "+4"
"""


@pytest.fixture
def sheet() -> Path:
    return write_sheet(SHEET)


def init(*args: str) -> Any:
    return runner.invoke(app, ["init", *args])


def order_of(*args: str) -> dict[str, Any]:
    got = init(*args, "--json")
    assert got.exit_code == 0, got.output
    data: dict[str, Any] = json.loads(got.stdout)
    return data


def test_the_party_is_every_character_or_those_named(sheet: Path) -> None:
    assert [c.name for c in party(None)] == ["aria", "bob", "cleo", "dana"]
    assert [c.name for c in party("cleo, aria,cleo")] == ["cleo", "aria"]


def test_roll_uses_each_characters_entry_and_system(sheet: Path) -> None:
    # aria: init +3 adv (two d20s); bob: dex +1; cleo: dex score 14 (+2); dana: agility +4
    got = init("roll", "--dice", "16,4,12,13,2")
    assert got.exit_code == 0, got.output
    assert got.stdout.splitlines() == [
        "round 1: aria's turn",
        "> aria  19  d20 16 ~4~  +3",
        "  cleo  15  d20 13  +2",
        "  bob   13  d20 12  +1",
        "  dana   6  d20 2  +4",
    ]
    data = order_of()
    assert data["round"] == 1 and data["turn"] == "aria"
    assert [(o["name"], o["total"], o["modifier"]) for o in data["order"]] == [
        ("aria", 19, 3),
        ("cleo", 15, 2),
        ("bob", 13, 1),
        ("dana", 6, 4),
    ]
    assert data["order"][0]["dice"][1] == {"sides": 20, "face": 4, "kept": False, "role": "d20"}


def test_roll_as_some_of_the_party_and_a_character_without_an_entry(sheet: Path) -> None:
    characters.characters_path().write_text(SHEET + '\n[eve]\nsystem = "levelup"\n')
    got = init("roll", "--as", "eve,bob", "--dice", "8,9")
    assert got.exit_code == 0, got.output
    assert "eve has no init, dex or dexterity entry: initiative +0" in got.stderr
    assert [o["name"] for o in order_of()["order"]] == ["bob", "eve"]


def test_add_monsters_numbered_with_negative_modifiers_and_advantage(sheet: Path) -> None:
    assert init("add", "goblin", "+2", "x3", "--dice", "12,5,9").exit_code == 0
    got = init("add", "ogre", "-1", "adv", "--dice", "3,20")
    assert got.exit_code == 0, got.output
    assert got.stdout.splitlines() == [
        "round 1: goblin-1's turn",  # a newcomer does not take the turn
        "  ogre      19  d20 ~3~ 20  -1",
        "> goblin-1  14  d20 12  +2",
        "  goblin-3  11  d20 9  +2",
        "  goblin-2   7  d20 5  +2",
    ]
    assert init("add", "goblin", "--seed", "4").exit_code == 0
    assert "goblin-4" in [o["name"] for o in order_of()["order"]]


def test_ties_are_broken_by_modifier_then_a_rolloff(sheet: Path) -> None:
    # bob 13 (+1); a troll at 13 (+3) goes first; an imp at 13 (+1) rolls off with bob
    init("add", "troll", "+3", "--dice", "10")
    init("roll", "--as", "bob", "--dice", "12")
    got = init("add", "imp", "+1", "--dice", "12,6,15")
    assert got.exit_code == 0, got.output
    assert got.stdout.splitlines()[1:] == [
        "> troll  13  d20 10  +3",
        "  imp    13  d20 12  +1  roll-off 15",
        "  bob    13  d20 12  +1  roll-off 6",
    ]


def test_next_counts_rounds_and_rm_and_clear(sheet: Path) -> None:
    init("roll", "--as", "aria,bob", "--dice", "16,4,12")
    init("add", "goblin", "+0", "x2", "--dice", "2,1")
    turns = [order_of("next") for _ in range(4)]
    assert [(t["round"], t["turn"]) for t in turns] == [
        (1, "bob"),
        (1, "goblin-1"),
        (1, "goblin-2"),
        (2, "aria"),
    ]
    got = init("rm", "goblin-1")
    assert got.exit_code == 0 and got.stdout.startswith("removed goblin-1\n")
    assert [o["name"] for o in order_of()["order"]] == ["aria", "bob", "goblin-2"]
    got = init("clear")
    assert got.stdout == "cleared the initiative order (3 combatants)\n"
    assert order_of() == {"round": 0, "turn": None, "dyn": False, "order": []}
    assert init().stdout.startswith("no initiative order yet")


def test_json_before_the_subcommand(sheet: Path) -> None:
    init("roll", "--dice", "16,4,12,13,2")
    got = runner.invoke(app, ["init", "--json", "next"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout)["turn"] == "cleo"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rm", "zed"], "no 'zed' in the initiative order"),
        (["next"], "no initiative order yet"),
        (["add"], "init add needs a name"),
        (["add", "3ogre"], "is not a name for the order"),
        (["add", "ogre", "x0"], "adds 1 to 100 at once, not 0"),
        (["add", "ogre", "x2", "x3"], "give the count once"),
        (["add", "ogre", "vs", "15"], "an initiative roll has no target"),
        (["roll", "--repeat", "3"], "init takes --system, --seed"),
        (["roll", "--as", "zed"], "no character 'zed'"),
        (["roll", "aria"], "init roll takes no words"),
        (["roll", "--dice", "16"], "--dice gave 1 face(s)"),
        (["add", "ogre", "adv", "--system", "mm"], "circumstance"),
    ],
)
def test_bad_input_is_one_line_and_status_2(sheet: Path, args: list[str], message: str) -> None:
    got = init(*args)
    assert got.exit_code == 2
    assert got.stderr.startswith("d20: error") and message in got.stderr
    assert "Traceback" not in got.output


def test_a_bad_roll_changes_nothing(sheet: Path) -> None:
    init("add", "ogre", "--dice", "5")
    assert init("roll", "--dice", "1,2,3").exit_code == 2
    assert [o["name"] for o in order_of()["order"]] == ["ogre"]


def test_the_entry_point_and_standard_input(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "add", "ogre", "-1", "--dice", "9"]) == 0
    stdout, stderr = io.StringIO(), io.StringIO()
    out = Output(stdout, stderr, color=False)
    status = run_lines(["init next", "init rm ogre", "init bogus", "init --json"], Options(), out)
    assert status == 2
    text = stdout.getvalue()
    assert "removed ogre" in text
    assert text.splitlines()[-1] == '{"round": 2, "turn": null, "dyn": false, "order": []}'
    assert "line 3" in stderr.getvalue() and "unknown init command" in stderr.getvalue()


def test_the_shell_runs_init_lines_and_shows_the_turn(sheet: Path) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    s = Session(Options(), Output(stdout, stderr, color=False))
    s.refresh()
    assert "turn:" not in s.toolbar()
    s.handle("as dana")  # the shell's character does not pick the party
    s.handle("init roll --dice 16,4,12,13,2")
    assert "turn: aria (round 1)" in s.toolbar()
    s.handle("init next")
    assert "turn: cleo (round 1)" in s.toolbar()
    assert stderr.getvalue() == ""
    s.handle("init clear")
    assert "turn:" not in s.toolbar()


def test_options_before_the_subcommand(sheet: Path) -> None:
    got = runner.invoke(app, ["init", "--as", "bob", "--dice", "12", "--json", "roll"])
    assert got.exit_code == 0, got.output
    assert [o["name"] for o in json.loads(got.stdout)["order"]] == ["bob"]


def test_an_error_with_json_is_also_a_json_object(sheet: Path) -> None:
    got = init("rm", "zed", "--json")
    assert got.exit_code == 2
    error = json.loads(got.stdout)
    assert error["kind"] == "parse" and "no 'zed'" in error["error"]


def test_a_roll_of_too_many_dice_is_refused(sheet: Path) -> None:
    got = init("add", "ogre", "+200d6")
    assert got.exit_code == 2 and "at most 100 dice" in got.stderr


def test_a_removed_character_leaves_the_order(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`d20 char rm` takes the character out of the initiative order too: the shell's
    toolbar no longer names them, and on their turn the turn passes on."""
    from d20cli.app.cli import completion_commands, run_app
    from d20cli.app.shell import Commands
    from d20cli.language.vocabulary import VERB_HELP

    commands = Commands(run_app, lambda: completion_commands(VERB_HELP))
    s = Session(Options(), Output(io.StringIO(), io.StringIO(), color=False), commands)
    s.handle("init roll --dice 16,4,12,13,2")
    assert main(["init", "add", "zed", "+0", "--dice", "1"]) == 0  # a monster called zed
    assert "turn: aria (round 1)" in s.toolbar()
    assert s.handle("char rm aria") == 0
    assert "removed aria from the initiative order: cleo's turn" in capsys.readouterr().out
    assert "turn: cleo (round 1)" in s.toolbar()
    assert [c["name"] for c in order_of()["order"]] == ["cleo", "bob", "dana", "zed"]
    write_sheet(SHEET.replace("[dana]", "[zed]\n\n[dana]"))  # a character zed, too
    assert main(["char", "rm", "zed"]) == 0
    assert "initiative" not in capsys.readouterr().out  # the monster zed stays
    assert main(["char", "rm", "bob"]) == 0  # not on their turn: the turn stays
    assert (
        capsys.readouterr().out
        == "removed bob\nremoved bob from the initiative order: cleo's turn\n"
    )
    for _ in range(2):
        init("next")
    assert order_of()["turn"] == "zed"
    assert main(["char", "rm", "dana"]) == 0
    assert (order_of()["round"], order_of()["turn"]) == (1, "zed")
    init("rm", "zed")
    assert main(["char", "rm", "cleo"]) == 0  # the last one: no turn left
    assert order_of() == {"round": 2, "turn": None, "dyn": False, "order": []}
