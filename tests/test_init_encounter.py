"""The game master's encounter through `d20 init` (issue 45): HP and AC, pins and
reported initiative, damage and healing by each system's 0 HP rule, conditions with
durations, the turn passing, `init dyn`, undo, saved encounters, attacks on a combatant,
JSON, and two processes changing one encounter at once."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import write_sheet
from state_helpers import run_forked
from typer.testing import CliRunner

from d20cli.__main__ import main
from d20cli.app.cli import app
from d20cli.app.completion.engine import Names
from d20cli.store import initiative
from d20cli.store.state import State

runner = CliRunner()

SHEET = """\
[aria]
system = "levelup"
init = "+3"
hp = "27"
armor = "15"
"""


def init(*args: str) -> Any:
    got = runner.invoke(app, ["init", *args])
    return got


def ok(*args: str) -> str:
    got = init(*args)
    assert got.exit_code == 0, got.output
    return str(got.stdout)


def state(*args: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(ok(*args, "--json"))
    return data


def one(name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in state()["order"] if c["name"] == name)
    return found


def refused(*args: str) -> str:
    got = init(*args)
    assert got.exit_code == 2, got.output
    assert "Traceback" not in got.output
    lines = got.stderr.strip().splitlines()
    assert lines[0].startswith("d20: error")
    return str(got.stderr)


def test_add_keeps_hp_and_ac_and_rolls_hp_dice_for_each() -> None:
    ok("add", "goblin", "+2", "x3", "hp", "7", "ac", "15", "--dice", "10,12,8")
    assert [one(f"goblin-{i}")["hp"] for i in (1, 2, 3)] == [
        {"current": 7, "max": 7, "temp": 0}
    ] * 3
    assert one("goblin-2")["ac"] == 15
    # the initiative dice first, then each one's HP dice
    ok("add", "ogre", "+0", "hp", "2d6", "x2", "--dice", "9,5,1,1,6,6")
    assert one("ogre-1")["hp"]["max"] == 2 and one("ogre-2")["hp"]["max"] == 12


def test_a_character_joins_with_her_entries() -> None:
    write_sheet(SHEET)
    ok("add", "aria", "--dice", "14")
    aria = one("aria")
    assert (aria["kind"], aria["total"], aria["hp"]["max"], aria["ac"]) == ("character", 17, 27, 15)


def test_an_imported_character_joins_with_her_sheets_hp_and_ac() -> None:
    """A character made by `d20 char import` has her sheet's hit points and armor class
    in its record (`[aria.imported]`), not as entries: `init add` reads them there."""
    sheet = Path(__file__).parent.parent / "examples" / "sheets" / "aria-a5e.json"
    assert main(["char", "import", str(sheet), "--as", "aria"]) == 0
    ok("add", "aria", "--dice", "14,2")
    aria = one("aria")
    assert (aria["kind"], aria["hp"]["max"], aria["ac"]) == ("character", 38, 16)
    assert "38/38 HP  AC 16" in ok()


def test_a_reported_initiative_is_not_rolled_and_says_so() -> None:
    out = ok("add", "cleo", "=17")
    assert "cleo: 17 reported" in out
    cleo = one("cleo")
    assert (cleo["total"], cleo["reported"], cleo["dice"]) == (17, True, [])
    assert "reported" in ok()


def test_a_pin_holds_its_place_and_loses_ties() -> None:
    ok("add", "orc", "+0", "--dice", "20")
    ok("pin", "lair", "20")
    assert [c["name"] for c in state()["order"]] == ["orc", "lair"]
    assert one("lair")["pinned"] is True and "pinned" in ok()


def test_hurt_and_heal_with_temporary_hp_and_0_hp() -> None:
    write_sheet(SHEET)
    ok("add", "aria", "--dice", "10")
    ok("heal", "aria", "5", "temp")
    ok("hurt", "aria", "8")
    assert one("aria")["hp"] == {"current": 24, "max": 27, "temp": 0}
    out = ok("hurt", "aria", "30")
    assert "dying" in out and one("aria")["state"] == "dying"
    ok("heal", "aria", "5")
    assert one("aria")["hp"]["current"] == 5 and one("aria")["state"] is None
    ok("hurt", "aria", "40")  # damage past 0 HP of at least her max: dead outright
    assert one("aria")["state"] == "dead"


def test_a_monster_at_0_hp_is_dead_in_levelup() -> None:
    ok("add", "goblin", "+2", "hp", "7", "--dice", "5")
    assert "0 HP: dead" in ok("hurt", "goblin", "9")


def test_death_saves_at_the_start_of_a_dying_characters_turn() -> None:
    write_sheet(SHEET)
    ok("add", "aria", "--dice", "10")
    ok("add", "orc", "+0", "--dice", "5")
    ok("hurt", "aria", "27")
    ok("next")  # the orc's turn
    out = ok("next", "--dice", "12")
    assert "death save: 12" in out
    assert one("aria")["death_saves"] == {"successes": 1, "failures": 0}
    ok("next")
    ok("next", "--dice", "1")  # a 1: two failures
    ok("hurt", "aria", "1")  # damage at 0 HP: a failure, the third
    assert one("aria")["state"] == "dead"


def test_mm_damage_is_a_toughness_resistance() -> None:
    ok("add", "villain", "+2", "toughness", "4", "-s", "mm", "--dice", "10")
    assert "hit points" in refused("add", "thug", "+0", "hp", "7", "-s", "mm", "--dice", "3")
    # d20 6 + 4 = 10 vs DC 15 + 5 = 20: two degrees of failure: bruised and dazed
    out = ok("hurt", "villain", "5", "--dice", "6")
    assert "toughness: d20 6 +4 = 10 vs DC 20" in out and "dazed" in out
    v = one("villain")
    assert (v["state"], v["bruises"]) == ("dazed", 1)
    ok("heal", "villain", "2")
    assert (one("villain")["state"], one("villain")["bruises"]) == (None, 0)


def test_pendagger_defeats_at_0_hp() -> None:
    ok("add", "bandit", "+0", "hp", "3", "-s", "pendagger", "--dice", "10")
    assert "defeated" in ok("hurt", "bandit", "3")


def test_conditions_end_as_the_turn_passes() -> None:
    ok("add", "aria", "+5", "--dice", "15")
    ok("add", "goblin", "+0", "--dice", "2")
    ok("cond", "goblin", "prone")
    ok("cond", "aria", "blessed", "1r")
    ok("cond", "goblin", "bane", "until", "end", "of", "aria's", "turn")
    ok("cond", "aria", "hasted", "until", "start", "of", "goblin's", "turn")
    out = ok("next")
    assert "ended: goblin is no longer bane" in out
    assert "ended: aria is no longer hasted" in out
    assert [k["name"] for k in one("goblin")["conditions"]] == ["prone"]
    out = ok("next")  # round 2, aria's turn: blessed for 1 round ends
    assert "ended: aria is no longer blessed" in out
    ok("cond", "goblin", "prone", "off")
    assert one("goblin")["conditions"] == []
    assert "lasts" in refused("cond", "goblin", "prone", "forever")
    assert "not prone" in refused("cond", "goblin", "prone", "off")


def test_dyn_rolls_everyone_again_each_round_keeping_bonuses_and_pins() -> None:
    ok("add", "aria", "+5", "--dice", "15")
    ok("add", "goblin", "+2", "--dice", "2")
    ok("pin", "lair", "20")
    ok("dyn")
    ok("next")
    ok("next")
    out = ok("next", "--dice", "1,19")  # a new round: aria 1+5, goblin 19+2
    assert "initiative rolled again for round 2" in out
    assert [c["name"] for c in state()["order"]] == ["goblin", "lair", "aria"]
    assert one("goblin")["total"] == 21 and one("aria")["total"] == 6
    assert state()["dyn"] is True


def test_undo_takes_back_each_change_in_turn() -> None:
    ok("add", "goblin", "+2", "hp", "7", "--dice", "5")
    ok("hurt", "goblin", "3")
    ok("cond", "goblin", "prone")
    ok("next")
    assert "undid: init next" in ok("undo")
    assert "undid: init cond goblin prone" in ok("undo")
    assert one("goblin")["conditions"] == []
    ok("undo")
    assert one("goblin")["hp"]["current"] == 7
    ok("undo")
    assert state()["order"] == []
    assert "nothing to undo" in refused("undo")


def test_save_load_list_and_a_hand_made_file(tmp_path: Path) -> None:
    ok("add", "goblin", "+2", "x2", "hp", "7", "ac", "15", "--dice", "5,6")
    ok("hurt", "goblin-1", "3")
    ok("cond", "goblin-2", "prone")
    assert "saved the encounter as ambush" in ok("save", "ambush")
    assert ok("list").split() == ["ambush"]
    ok("clear")
    ok("load", "ambush")
    assert one("goblin-1")["hp"]["current"] == 4 and one("goblin-2")["conditions"] == [
        {"name": "prone"}
    ]
    made = tmp_path / "crypt.toml"
    made.write_text(
        '[[combatant]]\nname = "skeleton"\ninit = "+2"\ncount = 2\nhp = "2d6"\nac = 13\n\n'
        '[[combatant]]\nname = "lair"\npin = 20\n'
    )
    ok("load", str(made), "--dice", "10,11,3,4,5,6")
    names = [c["name"] for c in state()["order"]]
    assert names == ["lair", "skeleton-2", "skeleton-1"]
    assert one("skeleton-1")["hp"]["max"] == 7 and one("skeleton-2")["hp"]["max"] == 11


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("x = [[[[[[[[1]]]]]]]]", "nested too deeply"),
        ("[[combatant]]\nname = 3\n", "name must be"),
        ('[[combatant]]\nname = "a"\nhp = -4\n', "hp must be"),
        ('[[combatant]]\nname = "a"\nspeed = 30\n', "unknown key"),
        ('[[combatant]]\nname = "a\\u202e"\n', "name must be"),
        ("not toml at all [", "not an encounter file"),
        ("", "no [[combatant]]"),
    ],
)
def test_a_hostile_encounter_file_changes_nothing(tmp_path: Path, text: str, said: str) -> None:
    ok("add", "goblin", "+2", "--dice", "5")
    before = state()
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    assert said in refused("load", str(bad))
    assert state() == before


def test_a_file_too_large_is_refused_before_parsing(tmp_path: Path) -> None:
    from d20cli.store.encounters import MAX_ENCOUNTER_FILE_BYTES

    big = tmp_path / "big.toml"
    big.write_text("#" * (MAX_ENCOUNTER_FILE_BYTES + 1))
    assert "at most" in refused("load", str(big))


def test_an_attack_on_a_combatant_applies_its_damage(capsys: pytest.CaptureFixture[str]) -> None:
    ok("add", "goblin", "+2", "x2", "hp", "7", "ac", "15", "--dice", "5,6")
    assert main(["attack", "+5", "vs", "AC", "goblin-2", "dmg", "1d8+3", "--dice", "14,4"]) == 0
    out = capsys.readouterr().out
    assert "vs 15" in out and "goblin-2 takes 7 damage" in out
    assert one("goblin-2")["state"] == "dead"
    # a miss changes nothing; resistant halves; a target's condition adds its words
    assert main(["attack", "+5", "vs", "AC", "goblin-1", "dmg", "1d8+3", "--dice", "2"]) == 0
    assert one("goblin-1")["hp"]["current"] == 7
    ok("cond", "goblin-1", "restrained")
    capsys.readouterr()
    args = ["attack", "+5", "vs", "goblin-1", "dmg", "1d8+3", "resistant", "--dice", "3,15,4"]
    assert main([*args, "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["request"] == "attack +5 vs 15 dmg 1d8+3 adv" and lines[0]["total"] == 20
    assert lines[1]["target"] == "goblin-1" and lines[1]["damage"] == 3
    assert one("goblin-1")["hp"]["current"] == 4
    assert "undid: init hurt goblin-1 3 (attack)" in ok("undo")


@pytest.mark.parametrize("condition", ["blinded", "poisoned", "prone", "restrained"])
def test_an_attackers_condition_gives_disadvantage_in_levelup(
    condition: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """levelup: a blinded, poisoned, prone or restrained attacker has disadvantage. The
    attacker is whose turn it is, or the character the attack is rolled as (`--as`); a
    target's advantage and an attacker's disadvantage cancel."""
    write_sheet(SHEET)
    ok("add", "aria", "--dice", "14")  # aria's turn
    ok("add", "goblin", "+2", "hp", "7", "ac", "13", "--dice", "11")
    ok("cond", "aria", condition)
    capsys.readouterr()
    assert main(["attack", "+5", "vs", "AC", "goblin", "dmg", "1d4", "--dice", "17,6"]) == 0
    out = capsys.readouterr().out
    assert f"aria (attacking) is {condition}: dis" in out
    assert "= 11 vs 13  Miss" in out  # the lower d20, 6
    args = ["attack", "+5", "vs", "AC", "goblin", "dmg", "1d4", "--json"]
    ok("cond", "goblin", "paralyzed")  # attacks against it have advantage
    assert main([*args, "--dice", "6"]) == 0  # adv and dis cancel: one d20 (a miss)
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["request"] == "attack +5 vs AC 13 dmg 1d4 adv dis" and first["total"] == 11
    ok("cond", "goblin", "paralyzed", "off")
    ok("next")  # the goblin's turn: it attacks; aria's condition is hers, not its
    against = " adv" if condition in ("blinded", "restrained") else ""  # (aria's, as a target)
    faces = "3,2" if against else "3"
    assert main(["attack", "+2", "vs", "AC", "aria", "dmg", "1d4", "--json", "--dice", faces]) == 0
    shown = json.loads(capsys.readouterr().out)["request"]
    assert shown == "attack +2 vs AC 15 dmg 1d4" + against
    assert main([*args, "--as", "aria", "--dice", "17,6"]) == 0  # aria attacks off her turn
    assert json.loads(capsys.readouterr().out.splitlines()[0])["request"].endswith(" dis")
    # an attack on no combatant, rolled as her: her condition still gives it disadvantage
    assert main(["attack", "+5", "vs", "13", "--as", "aria", "--dice", "17,6"]) == 0
    out = capsys.readouterr().out
    assert f"aria is {condition}: dis" in out and "= 11 vs 13  Miss" in out
    assert main(["attack", "+5", "vs", "13", "--as", "aria", "-q", "--dice", "17,6"]) == 0
    quiet = capsys.readouterr().out
    assert quiet.startswith("11") and "aria" not in quiet  # (-q: the result alone)


def test_a_condition_that_says_nothing_of_attacks_adds_no_word(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ok("add", "aria", "+3", "hp", "12", "ac", "15", "--dice", "14")
    ok("add", "goblin", "+2", "hp", "7", "ac", "13", "--dice", "11")
    ok("cond", "aria", "deafened")
    capsys.readouterr()
    assert main(["attack", "+5", "vs", "AC", "goblin", "--dice", "9", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["request"] == "attack +5 vs AC 13"


def test_every_init_command_answers_in_json() -> None:
    ok("add", "goblin", "+2", "hp", "7", "--dice", "5")
    for args in (
        ["hurt", "goblin", "2"],
        ["heal", "goblin", "1"],
        ["cond", "goblin", "prone"],
        ["note", "goblin", "has", "the", "key"],
        ["next"],
        ["dyn", "off"],
        ["undo"],
        ["pin", "lair", "20"],
    ):
        data = state(*args)
        assert "order" in data and "change" in data, args
    assert state("save", "one")["saved"] == "one"
    assert state("list")["encounters"] == ["one"]
    assert "order" in state("load", "one")


def _hurt_many(name: str) -> None:
    for _ in range(10):
        assert main(["init", "hurt", name, "1"]) == 0
        assert main(["init", "cond", name, f"c{os.getpid() % 1000}x{_}"[:8]]) == 0


def test_two_processes_changing_one_encounter_lose_nothing() -> None:
    assert main(["init", "add", "orc", "+0", "x2", "hp", "100", "--dice", "5,9"]) == 0
    run_forked(_hurt_many, ("orc-1", "orc-2", "orc-1"))
    store = State.open()
    found = initiative.load(store)
    kept = initiative.history(store, 100)
    store.close()
    hp = {c.name: c.vitals.hp for c in found.order}
    assert hp == {"orc-1": 80, "orc-2": 90}  # every one of the 30 hurts counted
    assert len(kept) == 61  # the add and 60 changes, each one row


def test_the_shell_toolbar_shows_the_current_combatants_hp_and_conditions() -> None:
    from d20cli.app.options import Options
    from d20cli.app.shell import Session
    from d20cli.present.output import Output

    ok("add", "aria", "+5", "hp", "12", "--dice", "15")
    ok("hurt", "aria", "8")
    ok("cond", "aria", "blessed")
    session = Session(Options(), Output(io.StringIO(), io.StringIO()))
    session.refresh()
    assert session.turn == "turn: aria (round 1) 4/12 HP, blessed"


def test_completion_knows_combatant_and_condition_names() -> None:
    from d20cli.app.cli import completion_commands
    from d20cli.app.completion.engine import candidates, table
    from d20cli.app.options import Options
    from d20cli.app.shell import Session
    from d20cli.language.vocabulary import VERB_HELP
    from d20cli.present.output import Output

    ok("add", "goblin", "+2", "x2", "--dice", "5,6")
    session = Session(Options(), Output(io.StringIO(), io.StringIO()))
    names = Names(combatants=session.combatant_names(), conditions=session.condition_names())
    t = table(completion_commands(VERB_HELP))
    assert candidates(["init", "hurt"], "gob", t, names) == ["goblin-2", "goblin-1"]
    assert candidates(["init", "cond", "goblin-1"], "pr", t, names) == ["prone"]
    assert "restrained" in candidates(["init", "cond", "goblin-1"], "", t, names)


def test_init_next_passes_over_the_dead() -> None:
    """A dead combatant takes no turns: `init next` passes over it and says so (the
    conditions that end on its turn end as it is passed), the order still shows it until
    `init rm`, `init undo` takes the turn back, and when no one takes turns it says so."""
    ok("add", "aria", "+5", "hp", "12", "--dice", "15")
    ok("add", "goblin", "+2", "x2", "hp", "7", "--dice", "11,9")
    ok("cond", "aria", "blessed", "until", "end", "of", "goblin-1's", "turn")
    ok("hurt", "goblin-1", "9")
    out = ok("next")
    assert out.splitlines()[0] == "round 1: goblin-2's turn"
    assert "  goblin-1  13  d20 11  +2  0/7 HP  dead" in out.splitlines()  # still shown
    assert "passed over goblin-1 (dead)" in out
    assert "ended: aria is no longer blessed" in out
    assert "undid: init next" in ok("undo")
    assert state()["turn"] == "aria"
    change = state("next")["change"]
    assert change["passed"] == ["goblin-1"] and state()["turn"] == "goblin-2"
    assert state("next")["change"]["passed"] == [] and state()["turn"] == "aria"
    ok("hurt", "goblin-2", "9")
    out = ok("next")  # aria alone: the next round's
    assert out.startswith("round 3: aria's turn")
    assert "passed over goblin-1 (dead)\npassed over goblin-2 (dead)" in out
    ok("hurt", "aria", "20")
    said = refused("next")
    assert "no one in the order takes turns (all dead)" in said
    assert (state()["round"], state()["turn"]) == (3, "aria")  # nothing changed
    ok("rm", "goblin-1")
    assert [c["name"] for c in state()["order"]] == ["aria", "goblin-2"]


def test_removing_whose_turn_it_is_passes_it_to_one_who_takes_turns() -> None:
    """`init rm` of the combatant whose turn it is passes the turn on, past the dead (to
    the next round's first when no one after it takes turns)."""
    for name, face in (("aria", "15"), ("bruno", "13"), ("goblin", "11"), ("orc", "9")):
        ok("add", name, "+0", "hp", "7", "--dice", face)
    ok("hurt", "goblin", "9")
    ok("next")  # bruno's turn
    ok("rm", "bruno")
    assert (state()["round"], state()["turn"]) == (1, "orc")  # past the dead goblin
    ok("hurt", "aria", "9")
    ok("add", "cleo", "=20")  # (first in the order)
    ok("rm", "orc")
    assert (state()["round"], state()["turn"]) == (2, "cleo")
    ok("hurt", "cleo", "9")
    ok("rm", "cleo")  # no one left takes turns: the next in the order, as before
    assert state()["turn"] == "aria"


def test_a_dying_character_keeps_her_turn_and_a_dead_one_is_passed_over() -> None:
    write_sheet(SHEET)
    ok("add", "aria", "--dice", "10")  # 13
    ok("add", "orc", "+0", "--dice", "5")
    ok("hurt", "aria", "27")  # dying
    ok("next")  # the orc's
    out = ok("next", "--dice", "1")  # her turn: a death save of 1, two failures
    assert out.startswith("round 2: aria's turn") and "passed over" not in out
    ok("hurt", "aria", "1")  # the third: dead
    out = ok("next")  # the orc's
    out = ok("next")  # round 3: aria is passed over, no death save is rolled
    assert out.startswith("round 3: orc's turn") and "passed over aria (dead)" in out


@pytest.mark.parametrize(
    ("system", "state_word"), [("reglamento", "down"), ("pendagger", "defeated")]
)
def test_out_of_the_fight_passes_turns_until_healed(system: str, state_word: str) -> None:
    """reglamento's down and pendagger's defeated are out of the fight: their turns are
    passed over; healing brings them back up, and their turns back."""
    ok("add", "hero", "+3", "hp", "9", "-s", system, "--dice", "15")
    ok("add", "bandit", "+0", "x2", "hp", "3", "-s", system, "--dice", "10,8")
    ok("hurt", "bandit-1", "3")
    assert one("bandit-1")["state"] == state_word
    out = ok("next")
    assert f"passed over bandit-1 ({state_word})" in out and state()["turn"] == "bandit-2"
    ok("heal", "bandit-1", "2")
    ok("next")
    assert "passed over" not in ok("next") and state()["turn"] == "bandit-1"


def test_an_incapacitated_mm_combatant_is_passed_over() -> None:
    ok("add", "hero", "+3", "toughness", "2", "-s", "mm", "--dice", "15")
    ok("add", "thug", "+0", "toughness", "0", "-s", "mm", "--dice", "10")
    ok("hurt", "thug", "10", "--dice", "1")  # d20 1 + 0 vs DC 25: incapacitated
    assert one("thug")["state"] == "incapacitated"
    out = ok("next")
    assert "passed over thug (incapacitated)" in out and state()["turn"] == "hero"
    ok("heal", "thug", "1")  # staggered: its turn comes back
    assert ok("next").startswith("round 2: thug's turn")


def test_dyn_rolls_again_only_those_who_take_turns() -> None:
    ok("add", "aria", "+5", "hp", "12", "--dice", "15")
    ok("add", "goblin", "+2", "x2", "hp", "7", "--dice", "11,9")
    ok("dyn")
    ok("hurt", "goblin-2", "9")
    ok("next")  # goblin-1's
    # the next round: goblin-2 is passed over before the round ends, and keeps its total;
    # aria and goblin-1 roll (two faces, no more)
    out = ok("next", "--dice", "2,18")
    assert "initiative rolled again for round 2" in out
    assert [c["name"] for c in state()["order"]] == ["goblin-1", "goblin-2", "aria"]
    assert (one("goblin-1")["total"], one("goblin-2")["total"], one("aria")["total"]) == (20, 11, 7)
    assert state()["turn"] == "goblin-1"
    out = ok("next")
    assert "passed over goblin-2 (dead)" in out and state()["turn"] == "aria"
