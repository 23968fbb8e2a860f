"""The Python API (issue 19): the public names are a contract, the library rolls what the
command line rolls and prints what it prints, errors are D20Errors, threads get their own
dice, and `import d20cli` stays light."""

from __future__ import annotations

import dataclasses
import doctest
import inspect
import json
import os
import pkgutil
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import d20cli
from d20cli.__main__ import main

ROOT = Path(__file__).resolve().parent.parent

#: The public names: removing one (or changing what it means) is a new SCHEMA_VERSION.
PUBLIC = {
    "SCHEMA_VERSION",
    "BudgetError",
    "Character",
    "D20Error",
    "Damage",
    "DiceError",
    "DiceSummary",
    "Die",
    "Ledger",
    "NotationWarning",
    "Odds",
    "OutcomeInfo",
    "ParseError",
    "Priced",
    "Request",
    "Result",
    "Roller",
    "RulesError",
    "Score",
    "StateError",
    "Sheet",
    "Sweep",
    "SystemInfo",
    "VerbInfo",
    "chart",
    "import_character",
    "luck",
    "odds",
    "parse",
    "roll",
    "roll_all",
    "sweep",
    "systems",
    "version",
}

#: The keyword-only parameters of each function (the issue's contract, and ours).
PARAMETERS = {
    "roll": ["system", "seed", "dice", "character", "rng", "budget", "work", "strict"],
    "roll_all": [
        *("system", "seed", "dice", "character", "rng", "budget", "work", "repeat", "strict"),
    ],
    "odds": ["system", "character", "strict"],
    "sweep": ["system", "character", "strict"],
    "parse": ["system", "character", "budget", "strict"],
    "systems": [],
}

SEED = 0  # with it, `attack +7 vs AC 15 dmg 1d8+4` hits (and so has damage)

#: The keys every result's JSON starts with, in this order (SCHEMA_VERSION 1).
BASE_KEYS = [
    "request",
    "system",
    "verb",
    "dice",
    "natural",
    "modifier",
    "total",
    "target",
    "outcome",
    "label",
    "success",
    "degree",
]


def test_every_public_name_is_there() -> None:
    assert d20cli.SCHEMA_VERSION == 1
    assert set(d20cli.__all__) == PUBLIC
    for name in PUBLIC:
        assert getattr(d20cli, name) is not None
    assert set(dir(d20cli)) >= PUBLIC
    with pytest.raises(AttributeError):
        _ = d20cli.no_such_name  # type: ignore[attr-defined]


def test_no_public_name_is_a_module_name() -> None:
    """A subpackage named like a public name would replace it on import (`d20cli.odds`
    was the odds package before the library needed the name)."""
    modules = {m.name for m in pkgutil.iter_modules(d20cli.__path__)}
    assert PUBLIC.isdisjoint(modules)
    import importlib

    importlib.import_module("d20cli.probability.engine")
    importlib.import_module("d20cli.rules.levelup")
    assert callable(d20cli.odds) and callable(d20cli.systems)


def test_the_parameters_are_keyword_only() -> None:
    for name, keywords in PARAMETERS.items():
        params = inspect.signature(getattr(d20cli, name)).parameters.values()
        positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert positional == ([] if name == "systems" else ["request"])
        assert [p.name for p in params if p.kind is p.KEYWORD_ONLY] == keywords


def test_the_json_keys_are_kept() -> None:
    samples = {
        "attack +7 vs AC 15 dmg 1d8+4": {"damage"},
        "group +3, +5 adv, -1 vs 12": {"members"},
        "roll 1d8[fire] + 2": {"expression", "labels"},
        "check stealth +2 vs 15": {"name"},
        "roll 2000d6": {"dice_summary"},
    }
    for text, extra in samples.items():
        keys = list(d20cli.roll(text, seed=SEED).to_json())
        assert keys[: len(BASE_KEYS)] == BASE_KEYS
        assert extra <= set(keys)
    contest = d20cli.roll("contest +1 vs +2", system="reglamento", seed=1).to_json()
    assert {"sides", "winner"} <= set(contest)
    scores = d20cli.roll("scores 2", system="pendagger", seed=1).to_json()
    assert "scores" in scores
    chances = d20cli.odds("check +5 vs 15").to_json()
    assert list(chances)[:4] == ["request", "system", "verb", "odds"]


# --- the same as the command line -------------------------------------------------------

CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("check +5 vs 15 adv expertise=d6", "levelup", {"dice": [17, 4, 3]}),
    ("check -3 vs 25", "levelup", {"dice": [20]}),
    ("save +2 vs 14", "levelup", {"dice": [1]}),
    ("attack +7 vs AC 15 dmg 1d8+4", "levelup", {"dice": [20, 6, 3]}),
    ("group +3, +5 adv, -1 vs 12", "levelup", {"dice": [10, 15, 3, 4]}),
    ("check +2 vs DC 15 ADV DISADV", "levelup", {"dice": [9]}),
    ("roll 4d6kh3 + 1d8[fire] + 2", "levelup", {"dice": [6, 5, 2, 4, 7]}),
    ("roll 2000d6", "levelup", {"seed": 1}),
    ("roll 1d20 # initiative", "levelup", {"seed": 3}),
    ("roll 6d10!=10>=7", "levelup", {"seed": 4}),
    ("check +5 vs 15", "levelup", {"seed": 7}),
    ("check +3 vs 12", "reglamento", {"dice": [20]}),
    ("contest +3 vs +1", "reglamento", {"dice": [12, 11]}),
    ("contest +1 vs +2 adv vs +3", "reglamento", {"seed": 5}),
    ("luck", "reglamento", {"dice": [11]}),
    ("check +8 vs tough bonus", "mm", {"dice": [10]}),
    ("attack +8 vs defense 6", "mm", {"dice": [20]}),
    ("resist +6 vs rank -1 major bonus", "mm", {"dice": [2]}),
    ("routine +10 vs 20", "mm", {}),
    ("opposed +5 vs +5 vs +5", "mm", {"dice": [10, 10, 10, 7, 7, 7, 12, 3, 12, 4]}),
    ("compare 8 vs 8", "mm", {"dice": [11]}),
    ("percent 45", "mm", {"dice": [9]}),
    ("attempt adept reliable", "pendagger", {"dice": [14]}),
    ("attempt 14 +1 -2 reliable unreliable", "pendagger", {"dice": [20]}),
    ("luck", "pendagger", {"dice": [10]}),
    ("scores 3", "pendagger", {"seed": 2}),
    ("defend trained unreliable", "pendagger", {"dice": [20]}),
]


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    status = main(args)
    out = capsys.readouterr().out
    assert status == 0
    return out


def _options(system: str, how: dict[str, Any]) -> list[str]:
    args = ["--system", system, "--no-log"]
    if "dice" in how:
        args += ["--dice", ",".join(map(str, how["dice"]))]
    if "seed" in how:
        args += ["--seed", str(how["seed"])]
    return args


@pytest.mark.parametrize(("text", "system", "how"), CASES, ids=[c[0] for c in CASES])
def test_str_and_json_are_the_command_lines(
    text: str, system: str, how: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    result = d20cli.roll(text, system=system, **how)
    args = _options(system, how) + text.split()  # options first: `#` starts a comment
    assert str(result) + "\n" == _cli(["--no-color", *args], capsys)
    line = _cli(["--json", *args], capsys)
    assert result.json_text() + "\n" == line
    assert result.to_json() == json.loads(line)
    assert d20cli.Result.from_json(result.to_json()).json_text() == result.json_text()


ODDS_CASES = [
    ("check +5 vs 15 adv expertise=d6", "levelup"),
    ("check +5 vs 20", "mm"),
    ("contest +1 vs +2 vs +3", "reglamento"),
    ("roll 4d6dl1", "levelup"),
    ("attempt adept", "pendagger"),
]


@pytest.mark.parametrize(("text", "system"), ODDS_CASES)
def test_odds_are_the_command_lines(
    text: str, system: str, capsys: pytest.CaptureFixture[str]
) -> None:
    chances = d20cli.odds(text, system=system)
    args = ["odds", *text.split(), "--system", system]
    assert str(chances) + "\n" == _cli([*args, "--no-color"], capsys)
    assert chances.to_json() == json.loads(_cli([*args, "--json"], capsys))
    assert sum(chances.outcomes.values()) in (0, 1)  # a plain roll has no outcomes
    assert chances.distribution is None or sum(chances.distribution.values()) == 1


def test_the_command_line_and_the_library_take_one_path(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both resolve through d20cli.rolling.rolls.results (a request of one result, the
    same again: rolls.one, which a batch's prepared line takes too): no second way to do
    a roll."""
    from d20cli.rolling import rolls as rolling

    calls: list[str] = []
    results, one = rolling.results, rolling.one

    def spy(request: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(request.text)
        return results(request, *args, **kwargs)

    def spy_one(request: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(request.text)
        return one(request, *args, **kwargs)

    monkeypatch.setattr(rolling, "results", spy)
    monkeypatch.setattr(rolling, "one", spy_one)
    _cli(["check", "+5", "vs", "15", "--seed", "3", "--no-log"], capsys)
    d20cli.roll("check +5 vs 16", seed=3)
    d20cli.roll_all("check +5 vs 17", seed=3)
    d20cli.parse("check +5 vs 18")
    assert calls == ["check +5 vs 15", "check +5 vs 16", "check +5 vs 17", "check +5 vs 18"]


# --- what the library takes ------------------------------------------------------------


def test_a_bare_dice_expression_is_a_roll() -> None:
    result = d20cli.roll("4d6kh3", dice=[6, 5, 2, 4])
    assert (result.request, result.verb, result.total) == ("roll 4d6kh3", "roll", 15)
    assert d20cli.roll("d20+5", seed=9) == d20cli.roll("roll d20+5", seed=9)
    assert d20cli.parse("(1+1)d6").text == "roll (1+1)d6"


def test_roll_all_and_repeat() -> None:
    assert [r.total for r in d20cli.roll_all("3x 2d6", dice=[1, 2, 3, 4, 5, 6])] == [3, 7, 11]
    repeated = d20cli.roll_all("2x 1d6", dice=[1, 2, 3, 4, 5, 6], repeat=3)
    assert [r.total for r in repeated] == [1, 2, 3, 4, 5, 6]
    with pytest.raises(d20cli.ParseError, match="roll_all") as caught:
        d20cli.roll("roll 6x 4d6kh3")
    assert caught.value.column == 6


def test_seed_rng_and_roller() -> None:
    assert d20cli.roll("check +5 vs 15", seed=11) == d20cli.roll("check +5 vs 15", seed=11)
    by_seed = [d20cli.roll("roll 1d20", seed=5).total]
    assert [d20cli.roll("roll 1d20", rng=random.Random(5)).total] == by_seed
    stream = random.Random(1)
    first, second = (d20cli.roll("roll 1d1000", rng=stream).total for _ in range(2))
    again = random.Random(1)
    assert [first, second] == [d20cli.roll("roll 1d1000", rng=again).total for _ in range(2)]
    assert d20cli.roll("roll 1d6", rng=random.SystemRandom()).total in range(1, 7)

    class Highest(d20cli.Roller):
        def _draw(self, lo: int, hi: int) -> int:
            return hi

    assert d20cli.roll("check +5 vs 15 adv", rng=Highest()).outcome == "critical_success"
    with pytest.raises(d20cli.BudgetError):
        d20cli.roll("roll 11d6", rng=Highest(budget=10))


def test_characters_by_name_and_made_in_python(tmp_path: Path) -> None:
    aria = d20cli.Character(
        "aria", "mm", {"stealth": "+7"}, {"checks": {"dex": "+2"}}, {"sneak": "check stealth vs 15"}
    )
    result = d20cli.roll("check stealth vs 15", character=aria, dice=[10])
    assert (result.request, result.system, result.total) == ("check stealth +7 vs 15", "mm", 17)
    assert d20cli.roll("sneak", character=aria, dice=[10]) == result
    assert d20cli.roll("check dex vs 15", character=aria, dice=[1]).total == 3
    chosen = d20cli.roll("check stealth vs 15", character=aria, system="levelup", dice=[10])
    assert (chosen.system, chosen.total) == ("levelup", 17)
    with pytest.raises(d20cli.ParseError, match="no entry 'perception'") as caught:
        d20cli.roll("check perception vs 15", character=aria)
    assert caught.value.column == 7

    sheet = Path(os.environ["XDG_CONFIG_HOME"]) / "d20cli" / "characters.toml"
    sheet.parent.mkdir(parents=True)
    sheet.write_text('[bo]\nsystem = "reglamento"\nathletics = "+3"\n', encoding="utf-8")
    bo = d20cli.roll("check athletics vs 12", character="bo", dice=[9])
    assert (bo.system, bo.total, bo.outcome) == ("reglamento", 12, "success")
    with pytest.raises(d20cli.ParseError, match="no character 'al'"):
        d20cli.roll("check athletics vs 12", character="al")


def test_fortune_dice_are_the_command_lines_business() -> None:
    """The library keeps no fortune dice: a natural 20 with `fortune` reports the die it
    gains (the command line adds it to the holder's count, in the state database)."""
    result = d20cli.roll("attempt adept fortune", system="pendagger", dice=[20])
    assert result.detail["fortune_gained"] == 1
    assert "fortune dice held" not in str(result)


def test_parse_checks_without_rolling() -> None:
    request = d20cli.parse("6x 4d6kh3")
    assert request == d20cli.Request("roll 6x 4d6kh3", "roll", "levelup", 6)
    assert d20cli.parse("resist +6 vs rank 8", system="m&m").system == "mm"
    with pytest.raises(d20cli.RulesError) as caught:
        d20cli.parse("check +5 vs 15 adv", system="mm")
    assert caught.value.column == 16
    with pytest.raises(d20cli.BudgetError):
        d20cli.parse("roll 2000000d6")
    assert d20cli.parse("roll 2000000d6", budget=2_000_000).count == 1
    state = random.getstate()
    d20cli.parse("check +5 vs 15")
    assert random.getstate() == state


def test_systems_describe_verbs_and_tiers() -> None:
    found = {s.id: s for s in d20cli.systems()}
    assert list(found) == ["levelup", "reglamento", "mm", "pendagger"]
    mm = found["mm"]
    assert "opposed" in [v.name for v in mm.verbs]
    assert mm.outcomes[0] == d20cli.OutcomeInfo(mm.outcomes[0].id, mm.outcomes[0].label)
    for system in found.values():
        for verb in system.verbs:  # every example rolls (or is `fortune`: session state)
            if verb.name != "fortune":
                assert d20cli.parse(verb.example, system=system.id).verb
    with pytest.raises(dataclasses.FrozenInstanceError):
        mm.title = "x"  # type: ignore[misc]


def test_results_are_immutable() -> None:
    result = d20cli.roll("attack +7 vs AC 15 dmg 1d8+4", seed=SEED)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.total = 30  # type: ignore[misc]
    assert isinstance(result.dice, tuple) and result.damage is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.dice[0].face = 1  # type: ignore[misc]


# --- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "column"),
    [
        ("roll 2d", d20cli.ParseError, 8),
        ("2d", d20cli.ParseError, 3),  # a bare expression: the column is in the text given
        ("chek +5 vs 15", d20cli.ParseError, 1),
        ("", d20cli.ParseError, None),
        ("x" * 10_001, d20cli.ParseError, None),
        ("roll " + "(" * 150 + "1" + ")" * 150, d20cli.ParseError, None),
        ("contest +1 vs +2", d20cli.RulesError, None),  # levelup has no contest
        ("fortune", d20cli.RulesError, None),  # fortune dice are the session's
        ("roll 1d1!", d20cli.DiceError, None),
        ("roll 1001x 1000d6", d20cli.ParseError, None),
        ("roll 2000000d6", d20cli.BudgetError, None),
    ],
)
def test_errors_are_d20_errors(text: str, kind: type[d20cli.D20Error], column: int | None) -> None:
    system = "pendagger" if text == "fortune" else "levelup"
    with pytest.raises(kind) as caught:
        d20cli.roll(text, system=system)
    assert isinstance(caught.value, d20cli.D20Error)
    if column is not None:
        assert caught.value.column == column
        assert caught.value.text == text


def test_wrong_dice_are_dice_errors() -> None:
    with pytest.raises(d20cli.DiceError, match="outside"):
        d20cli.roll("roll 1d6", dice=[7])
    with pytest.raises(d20cli.DiceError, match="needs more"):
        d20cli.roll("check +5 vs 15 adv", dice=[3])
    with pytest.raises(d20cli.DiceError, match="used only"):
        d20cli.roll("check +5 vs 15", dice=[3, 4])
    with pytest.raises(d20cli.RulesError, match="unknown system"):
        d20cli.roll("check +5 vs 15", system="gurps")


def test_wrong_arguments_are_python_errors() -> None:
    with pytest.raises(TypeError, match="seed and dice"):
        d20cli.roll("roll 1d6", seed=1, dice=[3])
    with pytest.raises(TypeError):
        d20cli.roll(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        d20cli.roll("roll 1d6", rng=42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        d20cli.roll("roll 1d6", dice=[True])
    with pytest.raises(ValueError, match="budget"):
        d20cli.roll("roll 1d6", budget=0)
    with pytest.raises(ValueError, match="seed"):
        d20cli.roll("roll 1d6", seed=-1)
    with pytest.raises(ValueError, match="repeat"):
        d20cli.roll_all("roll 1d6", repeat=0)


# --- threads ----------------------------------------------------------------------------


def _session(seed: int) -> list[str]:
    """Rolls of every kind, new texts among them (so the threads parse at once too)."""
    rng = random.Random(seed)
    lines = []
    for i in range(40):
        lines.append(d20cli.roll(f"check +{i % 9} vs {10 + i % 11} adv", rng=rng).json_text())
        lines.append(d20cli.roll(f"roll {1 + i % 5}d6!+{seed}", rng=rng).json_text())
        lines.append(d20cli.roll(f"attack +{i} vs 15 dmg 2d6", seed=seed + i).json_text())
        lines.append(d20cli.roll("opposed +3 vs +3 vs +3", system="mm", rng=rng).json_text())
    return lines


def test_two_threads_with_their_own_seeds_roll_reproducibly() -> None:
    expected = {seed: _session(seed) for seed in (1, 2)}
    got: dict[int, list[str]] = {}
    start = threading.Barrier(2)

    def run(seed: int) -> None:
        start.wait()
        got[seed] = _session(seed)

    from d20cli import api

    api._PARSED.clear()  # the threads parse at the same time, not from the caches
    api._READY.clear()
    threads = [threading.Thread(target=run, args=(seed,)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == expected


def test_many_threads_agree_with_one() -> None:
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"group +{i % 4}, +{i % 3} adv vs {8 + i % 10}" for i in range(60)]
    alone = [d20cli.roll(t, seed=i).json_text() for i, t in enumerate(texts)]
    with ThreadPoolExecutor(8) as pool:
        together = list(
            pool.map(lambda p: d20cli.roll(p[1], seed=p[0]).json_text(), enumerate(texts))
        )
    assert together == alone


def test_a_roll_may_roll_inside_another() -> None:
    """Re-entrancy: a Roller that asks the library for its faces (a roll inside a roll,
    parsing a new request while the outer one resolves)."""

    class Nested(d20cli.Roller):
        def _draw(self, lo: int, hi: int) -> int:
            inner = d20cli.roll(f"roll 1d{hi - lo + 1} + {lo - 1} # nested", seed=self.count)
            assert inner.total is not None
            return inner.total

    result = d20cli.roll("check +5 vs 15 adv", rng=Nested())
    expected = [d20cli.roll("roll 1d20 + 0 # nested", seed=n).total for n in (1, 2)]
    assert [die.face for die in result.dice] == expected


# --- light and harmless -----------------------------------------------------------------


def _python(code: str, home: Path) -> str:
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    env.pop("D20_NO_LOG", None)  # the library writes no log anyway
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return proc.stdout


def test_import_d20cli_is_light(tmp_path: Path) -> None:
    out = _python(
        "import sys, d20cli\n"
        "print([m for m in ('d20cli.api', 'pyparsing', 'd20cli.app.run') if m in sys.modules])\n"
        "print(d20cli.version())\n",
        tmp_path,
    )
    assert out.splitlines()[0] == "[]"
    assert out.splitlines()[1]


def test_using_the_library_imports_no_cli_and_touches_no_file(tmp_path: Path) -> None:
    out = _python(
        "import sys, d20cli\n"
        "r = d20cli.roll('check +5 vs 15 adv')\n"
        "s = str(r) + str(d20cli.odds('attack +5 vs 12 dmg 1d8'))\n"
        "d20cli.roll_all('3x 4d6kh3'); d20cli.parse('4d6'); d20cli.systems()\n"
        "d20cli.roll('attempt adept fortune', system='pd')\n"
        "heavy = ('typer', 'click', 'rich', 'prompt_toolkit', 'sqlite3', 'tomlkit')\n"
        "print([m for m in heavy if m in sys.modules])\n",
        tmp_path,
    )
    assert out.strip() == "[]"
    assert list(tmp_path.rglob("*")) == []  # no log, no cache, no state


# --- documentation ----------------------------------------------------------------------


@pytest.mark.parametrize("module", ["d20cli", "d20cli.api"])
def test_the_docstrings_examples_run(module: str) -> None:
    import importlib

    tested = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert tested.attempted > 0
    assert tested.failed == 0


def test_the_package_says_it_is_typed() -> None:
    assert (ROOT / "d20cli" / "py.typed").exists()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'packages = ["d20cli"]' in pyproject  # the wheel takes the whole folder


def test_a_program_using_the_api_type_checks(tmp_path: Path) -> None:
    """mypy --strict reads the library's types (py.typed): the example bot passes, and a
    wrong use is caught."""
    pytest.importorskip("mypy")
    program = tmp_path / "program.py"
    program.write_text(
        "import d20cli\n"
        "result: d20cli.Result = d20cli.roll('check +5 vs 15', system='mm', seed=1)\n"
        "chance = d20cli.odds('check +5 vs 15').outcomes['success'] * 2\n"
        "label: str = result.total\n",
        encoding="utf-8",
    )
    # the project's own mypy cache (.ci/run's `mypy --strict d20cli` has filled it): the
    # standard library and d20cli are read from it, only the two programs are checked anew
    cache = str(ROOT / ".mypy_cache")
    bot = str(ROOT / "examples" / "chatbot.py")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, bot, str(program)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    errors = [line for line in proc.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "program.py:4:" in errors[0], proc.stdout
