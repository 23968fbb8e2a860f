"""Initiative: the order and its tie-breaks (pure, d20cli.rules.initiative), each system's
initiative roll, and the order kept in the state database (d20cli.store.initiative),
two processes at once included."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from state_helpers import run_forked

from d20cli.dice.roller import ForcedRoller, make_roller
from d20cli.errors import D20Error, DiceError, ParseError, RulesError
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CheckRequest
from d20cli.present.initiative_view import dice_text
from d20cli.results import Die
from d20cli.rules import SYSTEM_IDS, get_system
from d20cli.rules.initiative import (
    MAX_ROLLOFF_ROUNDS,
    Combatant,
    InitiativeRoll,
    Turn,
    advance,
    after_removal,
    ordered,
    settle,
)
from d20cli.store import initiative
from d20cli.store.schema import MIGRATIONS, SCHEMA_VERSION
from d20cli.store.state import State, db_path


def c(
    name: str, total: int, modifier: int = 0, rolloff: tuple[int, ...] = (), seq: int = 0
) -> Combatant:
    return Combatant(name, "monster", total, modifier, (), rolloff, seq)


def names(order: list[Combatant] | tuple[Combatant, ...]) -> list[str]:
    return [x.name for x in order]


# --- the order (pure) -----------------------------------------------------------------------


def test_higher_total_first_then_higher_modifier() -> None:
    order = ordered([c("a", 12, 1), c("b", 18, 0), c("c", 12, 4), c("d", 3, 9)])
    assert names(order) == ["b", "c", "a", "d"]


def test_no_rolloff_when_nothing_is_tied() -> None:
    roller = ForcedRoller([])
    assert names(settle([c("a", 12, 1), c("b", 12, 2)], roller)) == ["b", "a"]
    assert roller.used == 0


def test_a_tie_of_total_and_modifier_is_rolled_off() -> None:
    out = settle([c("a", 12, 2, seq=1), c("b", 12, 2, seq=2)], ForcedRoller([5, 17]))
    assert names(out) == ["b", "a"]
    assert [x.rolloff for x in out] == [(17,), (5,)]


def test_a_rolloff_tie_rolls_again_among_those_still_tied() -> None:
    # a, b and c tie; b and c both roll 15 and roll again; a rolled 3 and rolls no more
    people = [c("a", 10, 0, seq=1), c("b", 10, 0, seq=2), c("c", 10, 0, seq=3)]
    roller = ForcedRoller([3, 15, 15, 4, 9])
    out = settle(people, roller)
    assert names(out) == ["c", "b", "a"]
    assert {x.name: x.rolloff for x in out} == {"a": (3,), "b": (15, 4), "c": (15, 9)}
    assert roller.used == 5


def test_a_newcomer_rolls_until_it_is_placed_among_those_rolled_off_before() -> None:
    earlier = [c("a", 10, 0, (15,), 1), c("b", 10, 0, (7,), 2)]
    # the newcomer rolls a 7 (tied with b's roll-off), then b and it roll again
    out = settle([*earlier, c("new", 10, 0, (), 3)], ForcedRoller([7, 2, 11]))
    assert names(out) == ["a", "new", "b"]
    assert {x.name: x.rolloff for x in out} == {"a": (15,), "b": (7, 2), "new": (7, 11)}


def test_a_rolloff_that_never_settles_is_refused() -> None:
    with pytest.raises(RulesError, match="did not settle"):
        settle([c("a", 1), c("b", 1)], ForcedRoller([4] * (2 * MAX_ROLLOFF_ROUNDS)))


def test_turns_go_round() -> None:
    order = ordered([c("a", 20), c("b", 10), c("z", 5)])
    assert advance(order, Turn(0, None)) == Turn(1, "a")
    assert advance(order, Turn(1, "a")) == Turn(1, "b")
    assert advance(order, Turn(1, "z")) == Turn(2, "a")
    assert advance([], Turn(3, "a")) == Turn(3, None)


def test_removing_the_one_whose_turn_it_is_passes_the_turn_on() -> None:
    order = ordered([c("a", 20), c("b", 10), c("z", 5)])
    assert after_removal(order, "b", Turn(2, "b")) == Turn(2, "z")
    assert after_removal(order, "z", Turn(2, "z")) == Turn(3, "a")
    assert after_removal(order, "a", Turn(2, "b")) == Turn(2, "b")
    assert after_removal(order[:1], "a", Turn(2, "a")) == Turn(2, None)


# --- each system's initiative roll ----------------------------------------------------------


def roll(system: str, words: str, faces: list[int]) -> InitiativeRoll:
    request = parse_request(f"check {words}")
    assert isinstance(request, CheckRequest)
    rule = get_system(system).initiative
    assert rule is not None
    return rule.roll(request, ForcedRoller(faces))


def test_every_system_has_an_initiative_rule() -> None:
    for sid in SYSTEM_IDS:
        rule = get_system(sid).initiative
        assert rule is not None and rule.entries and rule.summary


def test_levelup_initiative_is_a_dexterity_check() -> None:
    got = roll("levelup", "+3 adv expertise", [16, 4, 2])
    assert (got.total, got.modifier) == (21, 5)
    assert [(d.face, d.kept, d.role) for d in got.dice] == [
        (16, True, "d20"),
        (4, False, "d20"),
        (2, True, "expertise"),
    ]
    assert get_system("levelup").initiative.entries[0] == "dex"  # type: ignore[union-attr]


def test_reglamento_initiative_takes_disadv() -> None:
    got = roll("reglamento", "+2 DISADV", [16, 4])
    assert (got.total, got.modifier) == (6, 2)


def test_mm_initiative_is_agility_with_circumstances_and_no_advantage() -> None:
    assert get_system("mm").initiative.entries[0] == "agility"  # type: ignore[union-attr]
    got = roll("mm", "+4 bonus", [10])
    assert (got.total, got.modifier) == (16, 6)
    with pytest.raises(D20Error, match="circumstance"):
        roll("mm", "+4 adv", [10, 3])


def test_pendagger_initiative_is_d20_plus_the_dexterity_modifier() -> None:
    assert roll("pendagger", "14 adv", [3, 12]).total == 14  # score 14: +2
    assert roll("pendagger", "7", [10]).modifier == -2  # floor((7 - 10) / 2)
    assert roll("pendagger", "+1", [10]).total == 11
    with pytest.raises(RulesError, match="Dexterity score"):
        roll("pendagger", "adept", [10])


def test_initiative_has_no_target() -> None:
    with pytest.raises(RulesError, match="no target"):
        roll("levelup", "+2 vs 15", [10])


# --- the store -------------------------------------------------------------------------------


@pytest.fixture
def store() -> Iterator[State]:
    s = State.memory()
    yield s
    s.close()


def r(total: int, modifier: int = 0) -> InitiativeRoll:
    return InitiativeRoll(total, modifier, ())


def test_monster_names_number_on() -> None:
    assert initiative.monster_names("ogre", 1, []) == ["ogre"]
    assert initiative.monster_names("ogre", 1, ["ogre"]) == ["ogre-2"]
    assert initiative.monster_names("goblin", 3, []) == ["goblin-1", "goblin-2", "goblin-3"]
    taken = ["goblin-1", "Goblin-3", "aria"]
    assert initiative.monster_names("goblin", 2, taken) == ["goblin-4", "goblin-5"]


def test_start_add_next_rm_clear(store: State) -> None:
    assert initiative.load(store) == initiative.Encounter(0, None, ())
    initiative.add(store, "goblin", [r(9, 2), r(15, 2)], ForcedRoller([]))
    found = initiative.start(store, [("aria", r(19, 3)), ("bob", r(4, 1))], ForcedRoller([]))
    assert (found.round, found.turn) == (1, "aria")
    assert names(found.order) == ["aria", "goblin-2", "goblin-1", "bob"]
    assert initiative.load(store) == found
    initiative.next_turn(store)
    initiative.next_turn(store)
    encounter, gone = initiative.remove(store, "GOBLIN-1")  # any case
    assert gone == "goblin-1" and encounter.turn == "bob"
    assert names(initiative.next_turn(store).order) == ["aria", "goblin-2", "bob"]
    assert initiative.load(store).round == 2
    with pytest.raises(ParseError, match="did you mean goblin-2"):
        initiative.remove(store, "goblin-3")
    assert initiative.clear(store) == 3
    assert initiative.load(store) == initiative.Encounter(0, None, ())
    with pytest.raises(ParseError, match="no initiative order yet"):
        initiative.next_turn(store)


def test_a_new_roll_replaces_the_party_and_keeps_the_monsters(store: State) -> None:
    initiative.start(store, [("aria", r(19, 3)), ("bob", r(4, 1))], ForcedRoller([]))
    initiative.add(store, "ogre", [r(8)], ForcedRoller([]))
    found = initiative.start(store, [("bob", r(12, 1))], ForcedRoller([]))
    assert names(found.order) == ["bob", "ogre"]


def test_a_tie_with_one_in_the_order_is_rolled_off_and_kept(store: State) -> None:
    initiative.start(store, [("aria", r(14, 2))], ForcedRoller([]))
    found, _ = initiative.add(store, "goblin", [r(14, 2)], ForcedRoller([3, 18]))
    assert names(found.order) == ["goblin", "aria"]
    assert initiative.load(store).order[0].rolloff == (18,)


def test_dice_left_over_write_nothing(store: State) -> None:
    with pytest.raises(DiceError, match="used only"):
        initiative.add(store, "goblin", [r(3)], ForcedRoller([4]))
    assert initiative.load(store).order == ()


def test_the_json_shape(store: State) -> None:
    rolled = roll("levelup", "+3 adv", [16, 4])
    found = initiative.start(store, [("aria", rolled)], ForcedRoller([]))
    assert found.to_json() == {
        "round": 1,
        "turn": "aria",
        "dyn": False,
        "order": [
            {
                "name": "aria",
                "kind": "character",
                "total": 19,
                "modifier": 3,
                "dice": [
                    {"sides": 20, "face": 16, "kept": True, "role": "d20"},
                    {"sides": 20, "face": 4, "kept": False, "role": "d20"},
                ],
                "rolloff": [],
                "pinned": False,
                "reported": False,
                "hp": None,
                "ac": None,
                "conditions": [],
                "state": None,
            }
        ],
    }


# --- two processes at once -------------------------------------------------------------------


def _add_monsters(base: str) -> None:
    store = State.open()  # the child opens the database of its own
    for _ in range(10):
        initiative.add(store, base, [r(10), r(12)], make_roller())
        initiative.next_turn(store)
    store.close()


def test_two_processes_lose_no_edit() -> None:
    State.open().close()  # the database exists before the children start
    run_forked(_add_monsters, ("orc", "orc", "imp"))
    store = State.open()
    found = initiative.load(store)
    store.close()
    got = sorted(names(found.order))
    assert got == sorted([f"orc-{i}" for i in range(1, 41)] + [f"imp-{i}" for i in range(1, 21)])
    # every `next` counted: 30 moves over an order that grew as they went
    assert found.turn is not None and found.round >= 1


@given(
    st.lists(st.tuples(st.integers(-3, 25), st.integers(-2, 5)), min_size=1, max_size=12),
    st.integers(0, 2**32),
)
def test_a_settled_order_tells_everyone_apart(rolls: list[tuple[int, int]], seed: int) -> None:
    people = [c(f"m{i}", total, mod, seq=i) for i, (total, mod) in enumerate(rolls)]
    half = len(people) // 2  # some roll first, the rest join later, as `init add` does
    first = settle(people[:half], make_roller(seed=seed))
    out = settle([*first, *people[half:]], make_roller(seed=seed + 1))
    assert sorted(names(out)) == sorted(names(people))
    keys = [(-x.total, -x.modifier) for x in out]
    assert keys == sorted(keys)  # higher total, then higher modifier, first
    for i, a in enumerate(out):
        for b in out[i + 1 :]:
            if (a.total, a.modifier) == (b.total, b.modifier):
                n = min(len(a.rolloff), len(b.rolloff))
                assert a.rolloff[:n] != b.rolloff[:n]  # told apart
                assert a.rolloff[:n] > b.rolloff[:n]  # the higher roll-off first


def test_a_version_3_database_gains_the_order() -> None:
    path = db_path()
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:3]:
        conn.executescript(script)
    conn.execute("INSERT INTO fortune (holder, count) VALUES ('player', 1)")
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    store = State.open(path)
    assert store.db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 10
    assert store.fortune.held("player") == 1
    assert initiative.load(store) == initiative.Encounter(0, None, ())
    initiative.add(store, "ogre", [r(3)], ForcedRoller([]))
    assert names(initiative.load(store).order) == ["ogre"]
    store.close()


def test_the_shown_dice() -> None:
    d20s = [Die(20, 16, True, "d20"), Die(20, 4, False, "d20")]
    assert dice_text(d20s, 3) == "d20 16 ~4~  +3"
    assert dice_text([*d20s, Die(4, 2, True, "expertise")], 5) == "d20 16 ~4~  expertise d4 2  +3"
    many = [Die(6, 2, True, "modifier")] * 20
    assert dice_text([d20s[0], *many], 41) == "d20 16  modifier 20d6 = 40  +1"
