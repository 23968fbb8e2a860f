"""Pen & Dagger fortune dice at the edge (d20cli.app.fortune): gaining a die on a natural 20
with the word `fortune`, holding at most 2 (4 with the boon), spending one to reroll the
last attempt or luck roll, and the count persisting between runs."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from d20cli.app import fortune
from d20cli.app.context import Context
from d20cli.app.options import Options
from d20cli.app.run import run as run_tokens
from d20cli.dice.roller import make_roller
from d20cli.errors import D20Error, RulesError, StateError
from d20cli.language.grammar import parse_request
from d20cli.present.output import Output
from d20cli.results import Result
from d20cli.rules import get_system
from d20cli.store.state import State

PD = Options(system="pendagger")


@pytest.fixture(autouse=True)
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    RUN[:] = [Context()]
    yield tmp_path / "state"
    later_run()


#: The run the helpers below roll in (one Context, as one `d20` process has).
RUN: list[Context] = []


def later_run() -> None:
    """End this run (its state saved and closed) and start another."""
    RUN[0].close()
    RUN[:] = [Context()]


def store() -> State:
    return RUN[0].state(out())


def out() -> Output:
    return Output(io.StringIO(), io.StringIO(), color=False)


def roll(text: str, *faces: int, opts: Options = PD) -> Result:
    """Resolve `text` with pendagger and forced faces, then record it (as run.py does)."""
    request = parse_request(text)
    result = get_system("pendagger").resolve(request, make_roller(None, faces))
    return fortune.record(request, result, opts, out(), RUN[0])


def command(text: str, *faces: int, opts: Options = PD) -> Result:
    request = parse_request(text)
    return fortune.handle(request, make_roller(None, faces or None), opts, out(), RUN[0])


def held(opts: Options = PD) -> int:
    return int(command("fortune", opts=opts).detail["fortune"])


def test_a_natural_20_with_fortune_gains_a_die_up_to_two() -> None:
    assert held() == 0
    first = roll("attempt adept fortune", 20)
    assert first.detail["fortune_gained"] == 1 and first.detail["fortune"] == 1
    assert "fortune dice held: 1 of 2" in first.notes
    assert roll("attempt adept fortune", 20).detail["fortune"] == 2
    third = roll("attempt adept fortune", 20)
    assert third.detail["fortune"] == 2  # at most 2 held
    assert any("already holding the most" in n for n in third.notes)
    assert held() == 2


def test_a_die_not_added_is_not_counted_as_gained() -> None:
    """The JSON's `fortune_gained` and the notes agree: no die added, none gained."""
    for _ in range(2):
        roll("attempt adept fortune", 20)
        roll("luck fortune", 20)
    for text in ("attempt adept fortune", "luck fortune"):
        full = roll(text, 20)
        assert full.detail["fortune_gained"] == 0 and full.detail["fortune"] == 2
        assert not any("+1 fortune die" in n for n in full.notes)
        assert full.notes[-1] == "already holding the most fortune dice (2): none added"
    assert held() == 2


def test_no_die_without_the_word_or_without_a_20() -> None:
    plain = roll("attempt adept", 20)
    assert "fortune" not in plain.detail
    assert roll("attempt adept fortune", 19).notes == ()
    assert held() == 0


def test_luck_roll_gains_a_die_too() -> None:
    result = roll("luck fortune", 20)
    assert result.outcome == "lucky" and result.detail["fortune"] == 1


def test_boon_option_holds_up_to_four() -> None:
    boon = Options(system="pendagger", boon=True)
    for _ in range(5):
        roll("attempt adept fortune", 20, opts=boon)
    assert held(boon) == 4
    assert command("fortune").detail == {"fortune": 4, "fortune_max": 4}  # the boon stays on


def test_fortune_boon_is_stored_as_a_setting() -> None:
    shown = command("fortune", opts=Options(system="pendagger", boon=True))
    assert shown.detail["fortune_max"] == 4
    later_run()  # a later run
    for _ in range(3):
        roll("attempt adept fortune", 20)
    assert held() == 3


def test_the_count_persists_between_runs() -> None:
    roll("attempt adept fortune", 20)
    later_run()
    assert held() == 1


def test_holders_count_separately() -> None:
    ana = Options(system="pendagger", as_="Ana")
    roll("attempt adept fortune", 20, opts=ana)
    assert held(ana) == 1
    assert held() == 0


def test_spend_rerolls_the_last_attempt_until_better() -> None:
    roll("attempt adept fortune", 20)  # one die held
    before = roll("attempt adept", 5)  # a limited success at adept (5-8)
    assert before.outcome == "limited_success"
    after = command("fortune spend", 3, 6, 12)  # 3 and 6 are not better; 12 is normal
    assert after.outcome == "normal_success" and after.natural == 12
    assert after.detail["fortune_spent"] == 1 and after.detail["fortune"] == 0
    assert held() == 0
    last = store().last_rolls.get(fortune.holder(PD))
    assert last is not None and last.result["natural"] == 12  # the reroll is the last roll


def test_spend_a_luck_roll() -> None:
    roll("luck fortune", 20)
    roll("luck", 4)
    after = command("fortune spend", 15)
    assert after.outcome == "lucky" and held() == 0


@pytest.mark.parametrize(
    ("dice", "rolls", "message", "kind"),
    [
        (0, (("attempt adept", 5),), "no fortune die held", StateError),
        (1, (), "no attempt or luck roll", StateError),
        (1, (("attempt adept", 1),), "roll of 1", RulesError),
        (1, (("attempt adept", 19),), "no better level", RulesError),
        (1, (("luck", 12),), "already lucky", RulesError),
    ],
)
def test_spend_errors(
    dice: int, rolls: tuple[tuple[str, int], ...], message: str, kind: type[D20Error]
) -> None:
    store().fortune.set(fortune.holder(PD), dice)
    for text, face in rolls:
        roll(text, face)
    with pytest.raises(kind, match=message):
        command("fortune spend", 10)
    assert held() == dice  # a failed spend keeps the die


def test_fortune_is_pendagger_only() -> None:
    with pytest.raises(RulesError, match="pendagger"):
        command("fortune", opts=Options(system="levelup"))
    assert command("fortune", opts=Options(system="pd")).detail["fortune"] == 0


def test_other_systems_results_are_not_recorded() -> None:
    request = parse_request("check +5 vs 15")
    result = get_system("levelup").resolve(request, make_roller(None, (20,)))
    assert fortune.record(request, result, Options(), out(), RUN[0]) is result
    assert store().last_rolls.get(fortune.holder(PD)) is None


def test_saved_results_come_back_whole() -> None:
    for text, faces in (("attempt trained +1 reliable adv", (4, 17)), ("luck dis", (12, 3))):
        result = get_system("pendagger").resolve(parse_request(text), make_roller(None, faces))
        assert Result.from_json(result.to_json()).to_json() == result.to_json()
    attack = get_system("levelup").resolve(
        parse_request("attack +7 vs 15 dmg 1d8+4"), make_roller(None, (20, 3, 5))
    )
    assert Result.from_json(attack.to_json()).to_json() == attack.to_json()


def test_the_runner_records_and_handles_fortune(state_home: Path) -> None:
    """run.run_tokens (the command line, stdin and the shell) goes through this module."""
    o = out()
    run_tokens(["attempt", "adept", "fortune", "--dice", "20", "-s", "pd"], Options(), o)
    assert held() == 1
    shown = run_tokens(["fortune", "--json", "-s", "pd"], Options(), o)
    assert shown.results[0].detail["fortune"] == 1
    run_tokens(["attempt", "adept", "--dice", "5", "-s", "pd"], Options(), o)
    spent = run_tokens(["fortune", "spend", "--dice", "10", "-s", "pd"], Options(), o)
    assert spent.status == 0 and spent.results[0].outcome == "normal_success"
    bad = run_tokens(["fortune", "spend", "-s", "pd"], Options(), o)
    assert bad.status == 2
    assert "no fortune die held" in o.stderr.getvalue()  # type: ignore[attr-defined]


def test_a_one_off_boon_stays_in_force(state_home: Path) -> None:
    """`--boon` on a roll stores the boon setting: the dice it let a holder gain never stand
    above the most in force ("4 of 2 fortune dice")."""
    o = out()
    gains = [
        run_tokens(
            ["attempt", "trained", "fortune", "--boon", "-s", "pd", "--dice", "20"], Options(), o
        ).results[0]
        for _ in range(4)
    ]
    assert [g.detail["fortune"] for g in gains] == [1, 2, 3, 4]
    turned_on = [n for g in gains for n in g.notes if n.startswith("the boon is on")]
    assert turned_on == ["the boon is on: up to 4 fortune dice held"]  # said once
    shown = run_tokens(["fortune", "-s", "pd"], Options(), o).results[0]
    assert shown.label == "4 of 4 fortune dice" and shown.notes == ()
    off = run_tokens(["fortune", "no-boon", "-s", "pd"], Options(), o).results[0]
    assert (
        off.label == "2 of 2 fortune dice" and "2 fortune dice over the most let go" in off.notes[0]
    )


def test_dice_over_the_most_are_shown_with_the_way_out() -> None:
    """A state holding more than the most in force (written by hand, or by an older d20)
    is shown as it is, with the two commands that settle it."""
    store().fortune.set(fortune.holder(PD), 4)
    shown = command("fortune")
    assert shown.detail == {"fortune": 4, "fortune_max": 2}
    assert shown.notes == ("over the most: `fortune boon` keeps them, `fortune no-boon` lets 2 go",)


def test_the_boon_setting_can_be_turned_off() -> None:
    shown = command("fortune boon")
    assert shown.detail["fortune_max"] == 4
    for _ in range(4):
        roll("attempt adept fortune", 20)
    assert held() == 4
    off = command("fortune no-boon")
    assert off.detail == {"fortune": 2, "fortune_max": 2}
    assert "let go" in off.notes[0]
    roll("attempt adept fortune", 20)
    assert held() == 2


@pytest.mark.parametrize(
    "args",
    [
        ["check", "+5", "vs", "15", "--boon"],
        ["-s", "mm", "check", "+5", "vs", "15", "--boon", "--dice", "10"],
        ["save", "+2", "vs", "12", "--boon", "-n", "3"],
        ["luck", "-s", "reglamento", "--boon"],
    ],
)
def test_boon_is_refused_without_fortune_dice(
    args: list[str], state_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--boon holds more fortune dice: on a system without them it would do nothing, so it
    is a one-line error naming the systems that take it, and nothing is rolled."""
    from d20cli.__main__ import main

    assert main(args) == 2
    out, err = capsys.readouterr()
    assert not out and len(err.splitlines()) == 1
    assert "--boon is for the systems with fortune dice (pendagger), not " in err
    assert err.startswith("d20: error") and "Traceback" not in err
    assert main(["log", "--json"]) == 0
    assert capsys.readouterr().out.strip() in ("", "[]")


def test_boon_on_standard_input_refuses_the_line_and_goes_on(state_home: Path) -> None:
    from d20cli.app.stdin import run_lines

    out, err = io.StringIO(), io.StringIO()
    lines = io.StringIO("check +5 vs 15 --boon\nattempt adept --boon -s pd --dice 9\n")
    status = run_lines(lines, Options(), Output(out, err, color=False))
    assert int(status) == 2
    assert "line 1" in err.getvalue() and "--boon is for" in err.getvalue()
    assert "Normal success" in out.getvalue() and "the boon is on" in out.getvalue()
