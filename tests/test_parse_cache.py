"""The on-disk cache of parsed requests: the same Request back, never code, never stale."""

from __future__ import annotations

import json
import marshal
from pathlib import Path

import pytest
from cache_helpers import fields_of, unshipped, written

from d20cli.language.grammar import parse_request
from d20cli.language.parse_cache import classes, decode, encode
from d20cli.language.vocabulary import SYSTEM_IDS
from d20cli.store.request_cache import MAX_CACHE_ENTRIES, ParseCache, cache_path

REQUESTS = [
    "check +5 vs 15 adv expertise=d6",
    "check stealth +7 vs 15",
    "attack +7 vs 15 dmg 1d8+4",
    "group +3, +5 adv, -1 vs 12",
    "contest +3 vs +1",
    "contest +1 vs bob +2 adv vs -3 dis",
    "opposed +8 vs +6 bonus vs villain +4",
    "check +4 vs tough bonus",
    "attempt 14 reliable",
    "scores 5",
    "fortune spend",
    "roll 6x 4d6kh3 # stats",
    "roll (1d6+2)*3 - 1d4[fire] / 2",
    "roll 1d20+5 adv",
    "roll 6d10!=10>=7f1",
    "percent 45",
    "compare 8 vs 6",
]


@pytest.mark.parametrize("text", REQUESTS)
def test_round_trip_gives_an_equal_request(text: str) -> None:
    """Through the cache file's marshal and through JSON (the roll log's)."""
    request = parse_request(text)
    assert decode(marshal.loads(marshal.dumps(encode(request))), classes()) == request
    assert decode(json.loads(json.dumps(encode(request))), classes()) == request


@pytest.mark.parametrize("text", REQUESTS)
def test_every_field_is_the_one_codec_with_the_defaults_written(text: str) -> None:
    """The shape cache's probes read this codec with every field written (one codec for
    both disk caches): the same request back, checked as an entry is."""
    from d20cli.language import shape_probes

    request = parse_request(text)
    full = encode(request, text, every_field=True)
    assert shape_probes._encode(request, text) == full
    assert len(json.dumps(full)) >= len(json.dumps(encode(request, text)))
    assert decode(marshal.loads(marshal.dumps(full)), classes(), text) == request


def test_contest_sides_are_stored_in_order() -> None:
    request = parse_request("opposed +8 vs +6 bonus vs villain +4")
    data = json.loads(json.dumps(encode(request)))
    assert [side["@"] for side in data["sides"]["@t"]] == ["CheckRequest"] * 3
    assert decode(data, classes()).sides == request.sides  # type: ignore[attr-defined]


def test_an_entry_of_the_two_side_shape_is_dropped(tmp_path: Path) -> None:
    """A cache written before contests took a list of sides (`first`, `second`) holds
    requests that no longer fit: such an entry is read as a miss, not an error."""
    path = tmp_path / "requests.cache"
    cache = ParseCache(str(path))
    cache.put("contest +3 vs +1", parse_request("contest +3 vs +1"))
    cache.save()
    raw = fields_of(path)
    entry = raw["requests"]["contest +3 vs +1"]
    first, second = entry.pop("sides")["@t"]
    entry.update(first=first, second=second)
    written(path, {"requests": raw["requests"]})  # as this user's d20 wrote it
    assert ParseCache(str(path)).get("contest +3 vs +1") is None


def test_derived_fields_are_not_stored_but_computed_again() -> None:
    request = parse_request("attack +7 vs 15 adv dmg 1d8+4")
    data = json.loads(json.dumps(encode(request)))
    assert "word_kinds" not in data
    assert decode(data, classes()).word_kinds == request.word_kinds != frozenset()
    roll = parse_request("roll (1d6+2)*3 - 1d4[fire] / 2")
    data = json.loads(json.dumps(encode(roll)))
    assert "_text" not in json.dumps(data)
    assert str(decode(data, classes()).expr) == str(roll.expr) == "(1d6+2)*3-1d4[fire]/2"


def test_cache_file_serves_a_second_run(tmp_path: Path) -> None:
    path = str(tmp_path / "requests.cache")
    first = ParseCache(path)
    assert first.get("check +5 vs 15") is None
    first.put("check +5 vs 15", parse_request("check +5 vs 15"))
    first.save()
    second = ParseCache(path)
    assert second.get("check +5 vs 15") == parse_request("check +5 vs 15")


def test_unknown_classes_and_junk_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "requests.cache"
    cache = ParseCache(str(path))
    cache.put("x", parse_request("check +1 vs 10"))
    cache.save()
    raw = fields_of(path)
    raw["requests"]["x"]["@"] = "os.system"
    written(path, {"requests": raw["requests"]})
    assert ParseCache(str(path)).get("x") is None
    path.write_text("{not marshal")
    assert ParseCache(str(path)).get("x") is None


def test_a_changed_language_empties_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "requests.cache"
    cache = ParseCache(str(path))
    cache.put("check +1 vs 10", parse_request("check +1 vs 10"))
    cache.save()
    raw = fields_of(path)
    written(path, {"requests": raw["requests"]}, stamp="1:older")
    assert ParseCache(str(path)).get("check +1 vs 10") is None


def test_the_cache_stays_small(tmp_path: Path) -> None:
    cache = ParseCache(str(tmp_path / "requests.cache"))
    request = parse_request("check +1 vs 10")
    for i in range(MAX_CACHE_ENTRIES + 10):
        cache.put(f"text {i}", request)
    cache.save()
    raw = fields_of(tmp_path / "requests.cache")
    assert len(raw["requests"]) == MAX_CACHE_ENTRIES
    assert "text 0" not in raw["requests"]


def test_no_cache_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("D20_NO_CACHE", "1")
    assert cache_path() is None


def _loaded(words: str, heavy: tuple[str, ...], cache: Path) -> str:
    """What `d20 WORDS` prints, in a fresh interpreter with its own cache folder, then
    `LOADED [...]`: which of the `heavy` modules it imported (read from sys.modules), and
    `COMPILED N`: how many times it called `compile()` (not counting the sources the
    import system compiles where it finds no bytecode)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "D20_NO_LOG": "1"}
    code = (
        "import builtins, sys\n"
        "compiled = []\n"
        "def counted(*args, _compile=builtins.compile, **kwargs):\n"
        "    if not sys._getframe(1).f_code.co_filename.startswith('<frozen importlib'):\n"
        "        compiled.append(args[0])\n"
        "    return _compile(*args, **kwargs)\n"
        "builtins.compile = counted\n"
        "from d20cli.__main__ import main\n"
        "main(sys.argv[1:])\n"
        f"print('LOADED', [m for m in {heavy!r} if m in sys.modules])\n"
        "print('COMPILED', len(compiled), compiled[:3])\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *words.split()],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout


def test_a_cold_roll_with_a_warm_cache_does_not_import_pyparsing(tmp_path: Path) -> None:
    """The regression guard for start-up: no pyparsing, prompt_toolkit, odds, rich,
    typer, dataclasses (d20cli.frozen reads fields itself: `dataclasses` imports
    `inspect`, 8 ms), typing (3 ms: d20cli.records), json (1.7 ms: the caches are
    marshal's, and a result writes no JSON here), contextlib (0.6 ms: the start's context
    managers are classes, its `suppress`es try/except) or importlib (a system's module is
    imported with `__import__`) on the path of a plain, repeated roll (read from
    sys.modules)."""
    heavy = (
        *("pyparsing", "prompt_toolkit", "d20cli.probability", "d20cli.dice.distribution"),
        *("typing", "json", "contextlib", "importlib"),
        *("rich", "typer", "click", "pydantic", "sqlite3", "d20cli.app.shell", "tomlkit"),
        *("tempfile", "dataclasses", "inspect", "fractions", "decimal"),
        *("d20cli.language.grammar_checks", "d20cli.language.peer_readings"),
        *("textual", "d20cli.app.gm"),
        *("matplotlib", "numpy", "PIL", "d20cli.present.charts"),
    )
    # the first run fills the caches; then the same text (the request cache) and a new
    # text of the same shape (the shape cache, d20cli.store.shape_cache)
    for words in ("check +5 vs 15", "check +5 vs 15", "check +3 vs 12"):
        out = _loaded(words, heavy, tmp_path)
    assert "LOADED []" in out
    assert "check +3 vs 12" in out


def test_a_cold_roll_with_a_warm_cache_calls_no_compile(tmp_path: Path) -> None:
    """The first `compile()` of a process costs 2 ms (it makes Python's AST classes), and
    each string annotation of a typing.NamedTuple is one (typing.ForwardRef): so the path
    of a plain, repeated request calls none (d20cli.frozen builds `__init__` with exec;
    d20cli.records makes NamedTuples without reading their annotations). A peer-read form
    (`5d10>7`) and a label say their notes without it too."""
    for words in ("check +5 vs 15 adv expertise=d6", "roll 4d6kh3", "attack +7 vs 15 dmg 1d8+4"):
        _loaded(words, (), tmp_path)
        assert "COMPILED 0 []" in _loaded(words, (), tmp_path), words


def test_a_new_request_of_a_known_shape_does_not_import_pyparsing(tmp_path: Path) -> None:
    """The regression guard for the shape cache: after one request of each shape, new
    numbers in them start without pyparsing, or json (the text is written to the parse
    cache with marshal: read from sys.modules)."""
    heavy = ("pyparsing", "d20cli.language.grammar", "dataclasses", "inspect", "typing", "json")
    pairs = [  # (shapes d20 does not ship, d20cli.language.common_shapes)
        ("attack +7 vs 16 dmg 1d8+4 lucky", "attack +4 vs 12 dmg 2d6+3 lucky"),
        ("roll 4d6kh3u", "roll 5d8kh2u"),
        ("roll 1d20+5 adv # init", "roll 1d20+2 adv # init"),
    ]
    unshipped(*(text for pair in pairs for text in pair))
    for first, new in pairs:
        runs = [_loaded(words, heavy, tmp_path) for words in (first, new)]
        assert "LOADED ['pyparsing'" in runs[0]  # the first of its shape is parsed
        assert "LOADED []" in runs[1], new
        assert new in runs[1]


def test_a_repeated_request_does_not_import_the_shapes(tmp_path: Path) -> None:
    """A run whose texts are all in the parse cache makes no shape cache: the shapes'
    modules are imported at the first text it does not hold (and the probes only to
    learn a shape)."""
    heavy = ("d20cli.store.shape_cache", "d20cli.language.shapes", "d20cli.language.shape_probes")
    unshipped("check +5 vs 15 lucky")
    first = _loaded("check +5 vs 15 lucky", heavy, tmp_path)  # parsed, its shape learnt
    assert f"LOADED {list(heavy)!r}" in first
    again = _loaded("check +5 vs 15 lucky", heavy, tmp_path)
    assert "LOADED []" in again and "check +5 vs 15 lucky" in again
    new = _loaded("check +5 vs 12 lucky", heavy, tmp_path)  # from its shape, nothing learnt
    assert f"LOADED {list(heavy[:2])!r}" in new


def test_odds_of_a_cached_request_do_not_import_pyparsing(tmp_path: Path) -> None:
    """`d20 odds` reads its request through the run's caches (issue 43 item 3): the same
    request again, or new numbers in its shape (expertise=d6 and d8 alike, each its own
    template), starts without pyparsing, and prints the odds the grammar's reading gives.
    Nor does it import dataclasses (`Odds` is `@sealable`, d20cli.frozen), or threading
    (the odds memo's lock is `_thread`'s; a progress meter, made only for a terminal,
    imports it), or the exact distributions of dice expressions (a check whose modifier is
    a number needs none), or `random` (it rolls no dice, and `warnings` comes with it),
    or `json` (the caches are marshal's), or contextlib or importlib (as a check)."""
    heavy = ("pyparsing", "d20cli.language.grammar", "dataclasses", "inspect", "threading")
    heavy += ("d20cli.dice.distribution", "typing", "random", "json")
    heavy += ("contextlib", "importlib", "warnings")
    first = "odds check +5 vs 15 adv lucky expertise=d6"
    second = "odds check +2 vs 11 adv lucky expertise=d8"
    unshipped(first[5:], second[5:])  # (d20cli.language.common_shapes: learnt here)
    runs = [_loaded(words, heavy, tmp_path) for words in (first, second, first)]
    assert all("LOADED ['pyparsing'" in run for run in runs[:2])  # each first of its kind
    printed = [run.split("LOADED")[0] for run in runs]  # (what `d20 odds` printed)
    assert "LOADED []" in runs[2] and printed[2] == printed[0]
    for words in (
        "odds check +3 vs 12 adv lucky expertise=d6",
        "odds check +4 vs 14 adv lucky expertise=d8",
    ):
        cached = _loaded(words, heavy, tmp_path)
        cold = _loaded(words, heavy, tmp_path / "cold")
        assert "LOADED []" in cached and "Critical success" in cached
        assert cached.split("LOADED")[0] == cold.split("LOADED")[0]


def test_odds_of_a_cached_request_call_no_compile(tmp_path: Path) -> None:
    """`d20 odds` of a request asked before calls no `compile()` (issue 43 item 5): the
    odds modules' NamedTuples (odds_view.Chance, checks.Graded, engine.JointOutcomes)
    are d20cli.records', as the roll path's are."""
    for words in ("odds check +5 vs 15 adv expertise=d6", "odds attack +7 vs 15 dmg 1d8+4"):
        _loaded(words, (), tmp_path)
        assert "COMPILED 0 []" in _loaded(words, (), tmp_path), words


def test_no_system_imports_typing_for_a_repeated_request(tmp_path: Path) -> None:
    """`typing` costs 3 ms of a start: no system's check, attack or save asked before
    imports it (a module names its types under `if TYPE_CHECKING:`, and makes its
    NamedTuples with d20cli.records)."""
    requests = [
        "check +5 vs 15 adv expertise=d6 --system levelup",
        "attack +5 vs AC 15 dmg 1d8+3 --system levelup",
        "save dex +3 vs 12 --system levelup",
        "check +5 vs 15 --system mm",
        "attack +8 vs 20 --system mm",
        "check +5 vs 15 --system reglamento",
        "check +3 vs 12 --system pendagger",
        "roll 4d6kh3",
    ]
    for words in requests:
        _loaded(words, ("typing",), tmp_path)
        assert "LOADED []" in _loaded(words, ("typing",), tmp_path), words


#: A plain check of each system (Pen & Dagger's: an attempt on a rank).
PLAIN_CHECKS = {
    "levelup": "check +5 vs 15 adv expertise=d6",
    "reglamento": "check +5 vs 15 adv",
    "mm": "check +5 vs 15",
    "pendagger": "check trained +1",
}


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_a_plain_request_does_not_import_the_encounter_rules(sid: str, tmp_path: Path) -> None:
    """A check, a roll and the odds of a check, in every system, start without the
    encounter rules (issue 43 item 5): d20cli.rules.encounter and d20cli.rules.initiative
    (1.2 ms of a 46 ms start) and the system's own rules/<system>/encounter.py are
    imported at the first read of `System.harm` or `System.initiative`, which only the
    encounter commands make: neither parsed (the first run) nor from the caches (the
    second). `init add`, which rolls initiative, imports them (the guard's names are
    right)."""
    module = f"d20cli.rules.{sid}"
    heavy = (module, "d20cli.rules.encounter", "d20cli.rules.initiative", f"{module}.encounter")
    check = PLAIN_CHECKS[sid]
    for words in (check, "roll 1d20+5", f"odds {check}"):
        for _ in range(2):
            out = _loaded(f"{words} -s {sid}", heavy, tmp_path)
            assert f"LOADED [{module!r}]" in out and f"[{sid}]" in out, (words, out)
    out = _loaded(f"init add gob +2 -s {sid} --dice 4", heavy, tmp_path)
    assert f"LOADED {list(heavy)!r}" in out and "gob  6  d20 4  +2" in out, out


def test_a_roll_parsed_cold_builds_only_the_dice_grammar(tmp_path: Path) -> None:
    """A `roll` of a new shape with the caches empty is parsed without building the
    elements of the other verbs (d20cli.language.check_grammar); a check builds them."""
    heavy = ("pyparsing", "d20cli.language.dice_grammar", "d20cli.language.check_grammar")
    roll = _loaded("roll 6d10!=10>=7f1", heavy, tmp_path / "roll")
    assert f"LOADED {list(heavy[:2])}" in roll, roll
    check = _loaded("check +5 vs 15 crit 19 lucky min 10", heavy, tmp_path / "check")
    assert f"LOADED {list(heavy)}" in check, check


def test_the_registry_names_every_request_and_expression_class() -> None:
    """The cache may build exactly the request and dice-expression dataclasses: a class
    added to either module must be added to the registry (or it is never cached)."""
    import dataclasses

    from d20cli.dice import modifiers, refs, tree
    from d20cli.language import requests
    from d20cli.language.parse_cache import CLASSES

    found = {
        obj
        for module in (requests, tree, modifiers, refs)
        for obj in vars(module).values()
        if isinstance(obj, type)
        and dataclasses.is_dataclass(obj)
        and obj.__module__ == module.__name__
    }
    assert found == set(CLASSES)


@pytest.mark.parametrize(
    "text",
    ["roll max(1d6, 1d8)+2", "roll {4d6, 3d8}kh1", "roll 1d{0,1,2}+3", "roll 2d{-3,0,3}mi-2"],
)
def test_functions_groups_and_custom_faces_are_served_again(text: str, tmp_path: Path) -> None:
    """Checked decoding took a function or a group for no expression and a custom face
    for sides: a repeated `roll max(1d6,1d8)` dropped the whole file with a warning."""
    warnings: list[str] = []
    path = str(tmp_path / "requests.cache")
    cache = ParseCache(path, debug=warnings.append)
    cache.put(text, parse_request(text))
    cache.save()
    assert ParseCache(path, debug=warnings.append).get(text) == parse_request(text)
    assert warnings == []
