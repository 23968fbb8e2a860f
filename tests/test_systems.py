"""The system registry: ids, aliases, metadata, and each system's verbs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from dataclasses import fields, replace
from pathlib import Path

import pytest

from d20cli.dice.roller import ForcedRoller
from d20cli.errors import RulesError
from d20cli.language import grammar
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CHECK_WORD_KINDS, CheckRequest
from d20cli.language.vocabulary import ALIASES, SYSTEM_IDS
from d20cli.results import Die
from d20cli.rules import System, get_system
from d20cli.rules.common import Evaluated, d20_die, evaluate
from d20cli.rules.encounter import CheckRule


def test_ids_in_order() -> None:
    from d20cli.rules import SYSTEMS

    assert [s.id for s in SYSTEMS] == ["levelup", "reglamento", "mm", "pendagger"]
    assert all(isinstance(s, System) for s in SYSTEMS)


@pytest.mark.parametrize(
    ("name", "sid"),
    [
        ("levelup", "levelup"),
        ("a5e", "levelup"),
        ("Level-Up", "levelup"),
        ("level up", "levelup"),
        ("reglamento", "reglamento"),
        ("mm", "mm"),
        ("mutants", "mm"),
        ("m&m", "mm"),
        ("MnM", "mm"),
        ("pd", "pendagger"),
        ("pen-and-dagger", "pendagger"),
        ("pendagger", "pendagger"),
    ],
)
def test_aliases(name: str, sid: str) -> None:
    assert get_system(name).id == sid


def test_a_system_imported_before_is_its_module_s_and_a_spelling_is_still_read() -> None:
    for sid in SYSTEM_IDS:  # (the second time from sys.modules: the same system)
        assert get_system(sid) is get_system(sid) is sys.modules[f"d20cli.rules.{sid}"].SYSTEM
    assert get_system(" MM ") is get_system("mm") is get_system("mutants")
    assert get_system("Level_Up").id == "levelup"


def test_every_alias_names_a_system() -> None:
    assert set(ALIASES.values()) <= set(SYSTEM_IDS)


def test_unknown_system_lists_the_ids() -> None:
    with pytest.raises(RulesError) as info:
        get_system("gurps")
    assert "levelup, reglamento, mm, pendagger" in info.value.message


@pytest.mark.parametrize(
    ("sid", "verbs"),
    [
        ("levelup", ["check", "save", "attack", "group", "roll"]),
        ("reglamento", ["check", "save", "attack", "contest", "luck", "roll"]),
        ("mm", ["check", "attack", "resist", "routine", "opposed", "compare", "percent", "roll"]),
        (
            "pendagger",
            ["attempt", "check", "attack", "defend", "luck", "scores", "fortune", "roll"],
        ),
    ],
)
def test_verbs_per_system(sid: str, verbs: list[str]) -> None:
    system = get_system(sid)
    assert list(system.verbs) == verbs
    for summary, example in system.verbs.values():
        assert summary and example
        assert example.split()[0] in grammar.VERBS


def test_examples_parse_and_resolve() -> None:
    from d20cli.dice.roller import make_roller

    for sid in SYSTEM_IDS:
        system = get_system(sid)
        for verb, (_, example) in system.verbs.items():
            if verb == "fortune":
                continue  # answered by the session state
            result = system.resolve(parse_request(example), make_roller(seed=7))
            assert result.system == sid


def test_outcome_ids() -> None:
    assert [o for o, _ in get_system("levelup").outcomes] == [
        "critical_failure",
        "failure",
        "success",
        "critical_success",
    ]
    pd = [o for o, _ in get_system("pendagger").outcomes]
    assert pd[:6] == [
        "critical_failure",
        "failure",
        "limited_success",
        "normal_success",
        "major_success",
        "critical_success",
    ]
    assert {"lucky", "unlucky"} <= set(pd)
    assert {"favorable", "unfavorable", "tie"} <= {o for o, _ in get_system("reglamento").outcomes}


def test_every_grammar_verb_belongs_to_some_system() -> None:
    offered = {v for sid in SYSTEM_IDS for v in get_system(sid).verbs}
    assert offered | {"save"} >= set(grammar.VERBS)


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_roll_in_every_system(sid: str) -> None:
    r = get_system(sid).resolve(parse_request("roll 2d6+3"), ForcedRoller([2, 5]))
    assert (r.total, r.system) == (10, sid)


def test_systems_do_not_import_pyparsing() -> None:
    code = (
        "import sys\n"
        "from d20cli.rules import SYSTEMS\n"
        "assert len(SYSTEMS) == 4\n"
        "assert 'pyparsing' not in sys.modules, 'pyparsing imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_get_system_imports_only_its_module() -> None:
    code = (
        "import sys\n"
        "from d20cli.rules import get_system\n"
        "get_system('mm')\n"
        "assert 'd20cli.rules.levelup' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_system_imports_its_encounter_rules_at_their_first_use() -> None:
    """`System.harm` and `System.initiative` are read from the module the system names
    (`encounter`) when first asked for: getting a system imports neither it nor
    d20cli.rules.encounter and d20cli.rules.initiative; the first read imports them, and
    every read after gives the same objects, the module's HARM and INITIATIVE."""
    code = (
        "import sys\n"
        "from d20cli.rules import SYSTEMS\n"
        "shared = ('d20cli.rules.encounter', 'd20cli.rules.initiative')\n"
        "assert not [m for m in shared if m in sys.modules]\n"
        "for system in SYSTEMS:\n"
        "    name = system.encounter\n"
        "    assert name == f'd20cli.rules.{system.id}.encounter', name\n"
        "    assert name not in sys.modules, name\n"
        "    harm = system.harm\n"
        "    rules = sys.modules[name]\n"
        "    assert harm is rules.HARM and system.harm is harm, name\n"
        "    assert system.initiative is rules.INITIATIVE is system.initiative, name\n"
        "assert all(m in sys.modules for m in shared)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_system_without_encounter_rules_has_no_harm_and_no_initiative() -> None:
    system = replace(get_system("levelup"), encounter=None)
    assert system.harm is None and system.initiative is None
    assert system.resolve(parse_request("check +5 vs 15"), ForcedRoller([10])).total == 15


#: Each system's encounter rules as they were while its module built them at import
#: (issue 43 item 5 moved them to rules/<system>/encounter.py): the fields of its Harm,
#: then of its InitiativeRule, a function by its name.
ENCOUNTER_RULES = {
    "levelup": (
        {
            "hit_points": True,
            "hurt": "harm_hurt",
            "heal": "plain_heal",
            "turn_start": "harm_turn_start",
            "conditions": (
                "blinded",
                "bloodied",
                "charmed",
                "confused",
                "deafened",
                "doomed",
                "fatigued",
                "frightened",
                "grappled",
                "incapacitated",
                "invisible",
                "paralyzed",
                "petrified",
                "poisoned",
                "prone",
                "rattled",
                "restrained",
                "slowed",
                "stunned",
                "unconscious",
            ),
            "against": {
                "blinded": "adv",
                "paralyzed": "adv",
                "petrified": "adv",
                "restrained": "adv",
                "stunned": "adv",
                "unconscious": "adv",
                "invisible": "dis",
            },
            "summary": (
                "0 HP: a monster is dead, a character dying (death saves at the start of its turn)"
            ),
            "checking": {
                "blinded": (
                    CheckRule(verbs=("attack",), labels=(), word="dis", says="attack rolls"),
                ),
                "poisoned": (
                    CheckRule(verbs=("check",), labels=(), word="dis", says="ability checks"),
                    CheckRule(verbs=("attack",), labels=(), word="dis", says="attack rolls"),
                ),
                "frightened": (
                    CheckRule(verbs=("check",), labels=(), word="dis", says="ability checks"),
                ),
                "prone": (
                    CheckRule(verbs=("attack",), labels=(), word="dis", says="attack rolls"),
                ),
                "restrained": (
                    CheckRule(
                        verbs=("save",),
                        labels=("dex", "dexterity"),
                        word="dis",
                        says="Dexterity saves",
                    ),
                    CheckRule(verbs=("attack",), labels=(), word="dis", says="attack rolls"),
                ),
                "paralyzed": (
                    CheckRule(
                        verbs=("save",),
                        labels=("str", "strength", "dex", "dexterity"),
                        word="fails",
                        says="a Strength or Dexterity save fails automatically",
                    ),
                ),
                "petrified": (
                    CheckRule(
                        verbs=("save",),
                        labels=("str", "strength", "dex", "dexterity"),
                        word="fails",
                        says="a Strength or Dexterity save fails automatically",
                    ),
                ),
                "stunned": (
                    CheckRule(
                        verbs=("save",),
                        labels=("str", "strength", "dex", "dexterity"),
                        word="fails",
                        says="a Strength or Dexterity save fails automatically",
                    ),
                ),
                "unconscious": (
                    CheckRule(
                        verbs=("save",),
                        labels=("str", "strength", "dex", "dexterity"),
                        word="fails",
                        says="a Strength or Dexterity save fails automatically",
                    ),
                ),
            },
            "no_turn": ["dead"],
        },
        {
            "entries": ("dex", "dexterity"),
            "roll": "roll",
            "summary": (
                "a Dexterity check: d20 + the init entry, else the dex entry (expertise, adv, dis)"
            ),
        },
    ),
    "reglamento": (
        {
            "hit_points": True,
            "hurt": "harm_hurt",
            "heal": "plain_heal",
            "turn_start": "nothing_at_start",
            "conditions": ("blinded", "prone", "stunned", "unconscious"),
            "against": {},
            "summary": "0 HP: down (out of the fight)",
            "checking": {},
            "no_turn": ["down"],
        },
        {
            "entries": ("dex", "dexterity"),
            "roll": "roll",
            "summary": "a DEX roll: d20 + the init entry, else the dex attribute (ADV, DISADV)",
        },
    ),
    "mm": (
        {
            "hit_points": False,
            "hurt": "hurt",
            "heal": "heal",
            "turn_start": "nothing_at_start",
            "conditions": (
                "bruised",
                "dazed",
                "defenseless",
                "hindered",
                "impaired",
                "incapacitated",
                "prone",
                "staggered",
                "stunned",
                "vulnerable",
            ),
            "against": {},
            "summary": (
                "damage: a toughness resistance against DC 15 + rank (bruised, dazed, staggered, "
                "incapacitated)"
            ),
            "checking": {},
            "no_turn": ["incapacitated"],
        },
        {
            "entries": ("agility", "agl"),
            "roll": "roll",
            "summary": (
                "an initiative check: d20 + the init entry, else the agility rank (circumstances)"
            ),
        },
    ),
    "pendagger": (
        {
            "hit_points": True,
            "hurt": "hurt",
            "heal": "plain_heal",
            "turn_start": "nothing_at_start",
            "conditions": ("blinded", "frightened", "prone", "stunned", "unconscious"),
            "against": {},
            "summary": "0 HP: defeated (a hero's fate: a luck roll the DM calls for)",
            "checking": {},
            "no_turn": ["defeated"],
        },
        {
            "entries": ("dex", "dexterity"),
            "roll": "roll_initiative",
            "summary": (
                "d20 + the init entry, else the Dexterity modifier: floor((dex score - 10) / 2)"
            ),
        },
    ),
}


def _named(value: object) -> object:
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    if isinstance(value, frozenset):
        return sorted(value)
    return dict(value) if isinstance(value, Mapping) else value


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_a_system_s_encounter_rules_are_the_ones_its_module_built(sid: str) -> None:
    system = get_system(sid)
    rules = (system.harm, system.initiative)
    got = tuple({f.name: _named(getattr(o, f.name)) for f in fields(o)} for o in rules)
    assert got == ENCOUNTER_RULES[sid]


def test_a_check_request_knows_the_kinds_of_word_it_was_given() -> None:
    request = parse_request("check stealth +5 vs 15 adv dis expertise=d6 dmg 1d6")
    assert request.word_kinds == {"adv", "dis", "expertise", "modifier", "target", "dmg"}
    assert request.word_kinds <= set(CHECK_WORD_KINDS)
    # Built in code or by replace(), the kinds follow the fields.
    assert CheckRequest("check", "check").word_kinds == set()
    assert replace(request, adv=0, damage=None).word_kinds == {
        "dis",
        "expertise",
        "modifier",
        "target",
    }


def test_a_system_rejects_the_first_word_kind_it_lacks_in_the_fixed_order() -> None:
    # reliable comes first in the text, but expertise comes first in CHECK_WORD_KINDS.
    request = parse_request("check +5 vs 15 reliable expertise")
    with pytest.raises(RulesError) as err:
        get_system("reglamento").resolve(request, ForcedRoller([]))
    assert err.value.message.startswith("reglamento has no expertise die")
    assert err.value.column == request.column("expertise")


def test_d20_dice_are_shared_but_equal_to_new_ones() -> None:
    for face in range(1, 21):
        for kept in (True, False):
            assert d20_die(face, kept) == Die(20, face, kept, "d20")
            assert d20_die(face, kept) is d20_die(face, kept)
            assert d20_die(face, kept, "luck") == Die(20, face, kept, "luck")
    assert d20_die(7, True, "tiebreak") == Die(20, 7, True, "tiebreak")
    r = get_system("levelup").resolve(parse_request("check +1 vs 10 dis"), ForcedRoller([4, 9]))
    assert r.dice == (Die(20, 4, True, "d20"), Die(20, 9, False, "d20"))


def test_plain_and_negative_numbers_roll_nothing() -> None:
    for text, total, shown in (("save +3", 3, "3"), ("save -1", -1, "-1"), ("save -0", 0, "-0")):
        ev = evaluate(parse_request(text).modifier, ForcedRoller([]), "modifier")
        assert (ev.total, ev.dice, ev.text) == (total, (), shown)
    assert evaluate(None, ForcedRoller([]), "modifier") == Evaluated(0, (), None)
    assert evaluate(None, ForcedRoller([]), "modifier").text == ""
    ev = evaluate(parse_request("save -1d4").modifier, ForcedRoller([3]), "modifier")
    assert (ev.total, ev.dice, ev.text) == (-3, (Die(4, 3, True, "modifier"),), "-1d4")


def test_a_module_another_thread_is_still_importing_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rules.common.imported` (how a system, its encounter rules and the API's odds engine
    are found again) takes a module from sys.modules only when it is whole: one another
    thread is still importing (there, but its code still running) is waited for, so a bot
    answering from several threads never reads a system half made."""
    import threading
    import types

    from d20cli.rules.common import imported

    gate = types.ModuleType("d20cli_test_gate")
    gate.entered, gate.release = threading.Event(), threading.Event()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "d20cli_test_gate", gate)
    (tmp_path / "d20cli_test_slow.py").write_text(
        "import d20cli_test_gate\n"
        "d20cli_test_gate.entered.set()\n"
        "d20cli_test_gate.release.wait(60)\n"
        "VALUE = 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "d20cli_test_slow", raising=False)
    first = threading.Thread(target=__import__, args=("d20cli_test_slow",))
    first.start()
    got: list[object] = []
    try:
        assert gate.entered.wait(60)  # type: ignore[attr-defined]
        assert "d20cli_test_slow" in sys.modules  # there, half made
        found = lambda: getattr(imported("d20cli_test_slow", "VALUE"), "VALUE", 0)  # noqa: E731
        second = threading.Thread(target=lambda: got.append(found()))  # (as it returns)
        second.start()
        second.join(2)  # (time to take a half-made module, were it taken: it waits instead)
    finally:
        gate.release.set()  # type: ignore[attr-defined]
        first.join(60)
    second.join(60)
    assert got == [1]
    sys.modules.pop("d20cli_test_slow", None)
