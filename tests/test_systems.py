"""The system registry: ids, aliases, metadata, and each system's verbs."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

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
