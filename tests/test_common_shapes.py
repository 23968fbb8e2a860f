"""The shapes of common requests shipped with d20 (d20cli.language.common_shapes, issue 43
item 2): generated from the grammar by scripts/make_common_shapes.py and held equal to what
it writes now; every shipped template, filled with random numbers, gives exactly what the
grammar gives (or nothing where the grammar refuses the text); and a new user's batch of
lines of those forms is read without pyparsing, prints what the grammar's reading prints
and teaches the user's shape cache nothing."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cache_helpers import fields_of
from shape_fillings import fillings

from d20cli.app.context import KEPT, Context
from d20cli.errors import ParseError
from d20cli.language import common_shapes
from d20cli.language.grammar import parse_request
from d20cli.language.shapes import key, split
from d20cli.store.shape_cache import ShapeCache, variant

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "make_common_shapes.py"

# Random fillings of each shipped shape (tests/shape_fillings.py: edges of every limit,
# leading zeros, long numbers): 60 a run, 1,000 in the long profile (tests/conftest.py)
FILLINGS = 1000 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 60

#: Lines of the shipped forms with numbers none of SENTENCES has (as a new user types them).
LINES = [
    "roll 3d10kh2+4",
    "roll 5d8kh2-2",
    "roll 2d12",
    "roll 7d6!+1",
    "roll 6d8dl1-3",
    "roll 4d10ro1+3 [fire]",
    "roll 2d8ro1-1 [fire]",
    "roll 1d12+4 [slashing]",
    "roll 2d10+1d4+2",
    "roll d20+7",
    "roll 1d20+2 adv",
    "check +3 vs 12",
    "check -2 vs 13 dis",
    "check +7 adv",
    "check +3 vs 14 adv expertise=d8",
    "save +1 vs 11 adv",
    "save -3 vs 16",
    "attack +6 vs AC 17 dmg 2d6+4",
    "attack -2 vs AC 11 dmg 1d4-1",
    "2d6+5",
]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_common_shapes", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _by_template() -> dict[tuple[str, str], str]:
    """The sentence of each shipped template, by its shape and variant (the last of them
    in SENTENCES)."""
    found: dict[tuple[str, str], str] = {}
    for text in common_shapes.SENTENCES:
        parts = split(text)
        assert parts is not None, text
        shape = key(parts[0])
        for name, entry in common_shapes.TEMPLATES.get(shape, {}).items():
            if all(parts[1][i] == digits for i, digits in entry["fixed"]):
                found[(shape, name)] = text
    return found


def test_the_module_is_what_the_script_writes_now() -> None:
    """A change to the grammar, the shapes or the request classes that does not
    regenerate the module fails here."""
    script = _script()
    written = Path(common_shapes.__file__).read_text("utf-8")
    assert written == script.source(), (
        "d20cli/language/common_shapes.py is out of date: run python scripts/make_common_shapes.py"
    )
    assert common_shapes.SENTENCES == script.SENTENCES
    assert 100 <= len(common_shapes.SENTENCES) <= 150  # the common forms, not every one


def test_every_template_is_filed_under_its_shape_and_variant() -> None:
    """As the shape cache's file holds them (ShapeCache._bad_entries' checks), and each
    of a sentence."""
    held = [(s, n, e) for s, by in common_shapes.TEMPLATES.items() for n, e in by.items()]
    assert held and all(e["shape"] == s and variant(e) == n for s, n, e in held)
    assert ShapeCache(None)._bad_entries(common_shapes.TEMPLATES) is None
    assert set(_by_template()) == {(s, n) for s, n, _ in held}


def cold(text: str) -> object:
    try:
        return parse_request(text)
    except ParseError as err:
        return err


@pytest.mark.parametrize("text", sorted(set(_by_template().values())))
def test_random_fillings_of_a_shipped_shape_give_what_the_grammar_gives(
    text: str, tmp_path: Path
) -> None:
    """With an empty file, each text is read from the shipped template (its first fill,
    then the compiled one, shapes.Ready) or left to the grammar; what is read is exactly
    what the grammar gives, and a text the grammar refuses is never read."""
    cache = ShapeCache(str(tmp_path / "shapes.cache"), common=True)
    assert cache.get(text) == parse_request(text)  # the sentence itself is served
    for filled in fillings(text, FILLINGS, seed=43):
        want = cold(filled)
        got = cache.get(filled)
        if got is None:
            continue
        assert not isinstance(want, ParseError), (filled, want)
        assert got == want, filled
        assert type(got) is type(want)
    assert cache._load() == {}  # nothing learnt: the file is the user's


def test_a_refused_shipped_template_leaves_the_text_to_the_grammar(tmp_path: Path) -> None:
    """`expertise=d4` is a shipped shape of other fixed numbers (d6 and d8): the grammar
    reads the text, and the user's file learns its template as it learns any; a text a
    shipped template serves teaches it nothing."""
    cache = ShapeCache(str(tmp_path / "shapes.cache"), common=True)
    context = Context(None, None, cache)
    text = "check +5 vs 15 adv expertise=d4"
    shape = "check +# vs # adv expertise=d#"
    assert set(common_shapes.TEMPLATES[shape]) == {"2=6", "2=8"}
    assert cache.get(text) is None
    assert context.parse(text) == parse_request(text)
    assert list(cache._load()) == [shape] and list(cache._load()[shape]) == ["2=4"]
    assert context.parse("check +3 vs 12 adv") == parse_request("check +3 vs 12 adv")
    assert list(cache._load()) == [shape]  # (served by the shipped shape: not learnt)
    cache.save()
    again = ShapeCache(str(tmp_path / "shapes.cache"))  # (the file alone)
    assert again.get("check +2 vs 11 adv expertise=d4") == parse_request(
        "check +2 vs 11 adv expertise=d4"
    )


def test_with_the_cache_off_the_grammar_reads_every_text() -> None:
    cache = ShapeCache(None, common=True)
    assert cache.get("check +3 vs 12") is None
    assert cache.common is None  # (not even imported)


def test_a_bad_shipped_template_is_passed_over_and_the_file_kept(tmp_path: Path) -> None:
    """A shipped template is checked (plain data, a template of its shape) before its
    first fill as the file's are; one that fails is told to the debug log and the
    grammar reads the text; the user's file is not dropped for it."""
    path = tmp_path / "shapes.cache"
    learnt = ShapeCache(str(path))
    learnt.put("roll 4d6kh3u", parse_request("roll 4d6kh3u"), parse_request)
    learnt.save()
    template: dict[str, Any] = dict(common_shapes.TEMPLATES["check +# vs #"][""])
    bad = {
        "check +# vs #": {"": {**template, "tree": {"@": "CheckRequest", "x": 1.5}}},
        "save +# vs #": {"": {**template}},  # (a template of another shape)
    }
    said: list[str] = []
    cache = ShapeCache(str(path), debug=said.append, common=bad)
    assert cache.get("check +3 vs 12") is None
    assert cache.get("save +3 vs 12") is None
    assert len(said) == 2 and all("shipped shape" in line for line in said), said
    assert cache.get("roll 5d8kh2u") == parse_request("roll 5d8kh2u")  # (the file's)


def _batch(lines: list[str], env: dict[str, str]) -> tuple[str, str]:
    """What `d20 --json --no-log --seed 7` prints for `lines` on standard input, in a
    fresh interpreter, then `LOADED [...]`: whether it imported pyparsing."""
    code = (
        "import sys\n"
        "from d20cli.__main__ import main\n"
        "try:\n"
        "    main(['--json', '--no-log', '--seed', '7'])\n"
        "finally:\n"
        "    print('LOADED', [m for m in ('pyparsing',) if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    printed, loaded = proc.stdout.split("LOADED")
    return printed, loaded.strip()


def test_a_new_users_batch_of_common_forms_imports_no_pyparsing(tmp_path: Path) -> None:
    """In a new home (tests/conftest.py: XDG directories of the test's own), a batch of
    lines of the shipped forms is read from the shipped shapes: no pyparsing, the output
    of the grammar's reading (the caches off), and nothing learnt; the run's first KEPT
    texts are put in the parse cache, so a line typed again is read from there."""
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("D20_NO_CACHE", None)
    printed, loaded = _batch(LINES, env)
    assert loaded == "[]", loaded
    off, loaded_off = _batch(LINES, {**env, "D20_NO_CACHE": "1"})
    assert loaded_off == "['pyparsing']"
    assert printed == off and len(printed.splitlines()) == len(LINES)
    assert not (cache / "d20cli" / "shapes.cache").exists()  # the file learnt nothing
    kept = fields_of(cache / "d20cli" / "requests.cache")["requests"]
    assert len(LINES) <= KEPT and list(kept) == [*LINES[:-1], "roll 2d6+5"]  # (typed again,
    # a line is read from the parse cache: the first KEPT of a run are put there)


def test_a_command_typed_again_is_read_from_the_parse_cache(tmp_path: Path) -> None:
    """A command the shipped shapes served is put in the parse cache (Context: KEPT), so
    typed again it is read from there: neither the shapes' modules nor the shipped ones
    are imported, and writing the cache imported neither the grammar nor `tempfile`."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "D20_NO_LOG": "1"}
    env.pop("D20_NO_CACHE", None)
    code = (
        "import sys\n"
        "from d20cli.__main__ import main\n"
        "main(['check', '+4', 'vs', '13', '-q'])\n"
        "print([m for m in ('d20cli.store.shape_cache', 'd20cli.language.common_shapes',"
        " 'pyparsing', 'tempfile') if m in sys.modules])\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
        )
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0] and runs[0].stderr == runs[1].stderr == ""
    first, second = (r.stdout.splitlines()[-1] for r in runs)
    assert first == "['d20cli.store.shape_cache', 'd20cli.language.common_shapes']"
    assert second == "[]"
