"""The shapes file (d20cli.store.shape_cache): bounded, trimmed in linear time, and not
trusted: a corrupt or hostile file is dropped silently and rebuilt; errors and
carets through standard input are the grammar's, with the shapes warm or off."""

from __future__ import annotations

import io
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cache_helpers import fields_of, unshipped, written
from cli_helpers import d20
from shape_fillings import SHAPES, fillings

from d20cli.app.context import Context
from d20cli.errors import ParseError
from d20cli.language import shapes
from d20cli.language.grammar import parse_request
from d20cli.language.shape_probes import build
from d20cli.store import request_cache, shape_cache
from d20cli.store.request_cache import MAX_CACHE_ENTRIES, MAX_CACHE_FILE_BYTES, entry_bytes
from d20cli.store.shape_cache import ShapeCache, shape_path

ROOT = Path(__file__).resolve().parent.parent


def learnt(path: Path, *texts: str) -> ShapeCache:
    """A shapes file at `path` that has learnt the shapes of `texts` (saved)."""
    cache = ShapeCache(str(path))
    for text in texts:
        cache.builds = 0
        cache.put(text, parse_request(text), parse_request)
    cache.save()
    return cache


def raw(path: Path) -> Any:
    return fields_of(path)


def test_a_second_run_serves_a_new_text_of_the_shape(tmp_path: Path) -> None:
    path = tmp_path / "shapes.cache"
    learnt(path, "check +5 vs 15")
    assert list(raw(path)["shapes"]) == ["check +# vs #"]
    assert ShapeCache(str(path)).get("check +3 vs 12") == parse_request("check +3 vs 12")
    assert ShapeCache(str(path)).get("check +3 vs 12 adv") is None  # another shape


def test_a_run_learns_a_few_shapes_only(tmp_path: Path) -> None:
    """A batch of many new shapes does not pay for probing each (MAX_BUILDS a run)."""
    cache = ShapeCache(str(tmp_path / "shapes.cache"))
    for i in range(shape_cache.MAX_BUILDS + 2):
        text = "check +5 vs 15" + " adv" * i
        cache.put(text, parse_request(text), parse_request)
    assert len(cache._load()) == shape_cache.MAX_BUILDS


def test_a_run_learns_the_shapes_it_misses_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the first MAX_BUILDS, a shape is learnt at its second miss in the run (a
    batch's new texts of a shape it meets again), AGAIN templates a shape at most, and
    MAX_LEARNT shapes in all."""
    monkeypatch.setattr(shape_cache, "MAX_BUILDS", 4)  # (fewer shapes to meet past it)
    cache = ShapeCache("unused.json")  # (never read nor saved here)
    cache._entries = {}
    grammar: list[str] = []

    def read(text: str) -> Any:  # as a run reads a text (Lookups.parse)
        found = cache.get(text)
        if found is None:
            grammar.append(text)
            found = parse_request(text)
            cache.put(text, found, parse_request)
        assert found == parse_request(text)
        return found

    texts = [f"check +5 vs 15{' adv' * i}" for i in range(10)]
    for text in texts:
        read(text)
    assert len(cache._load()) == shape_cache.MAX_BUILDS  # each met once: no more learnt
    for text in texts:
        read(text.replace("15", "12"))
    assert len(cache._load()) == len(texts)
    grammar.clear()
    for dc in (11, 12, 13):  # expertise dice of one shape, each met in the run
        for die in (4, 6, 8):
            read(f"check +5 vs {dc} lucky expertise=d{die}")
    (held,) = (v for k, v in cache._load().items() if "lucky" in k)
    assert list(held) == ["2=6", "2=8"]  # its first miss learnt nothing; then AGAIN
    assert len(grammar) == 5 and cache.builds <= shape_cache.MAX_LEARNT


def test_past_the_first_few_a_run_learns_the_shapes_it_meets_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After MAX_BUILDS, a shape is learnt the second time the run meets it: a batch of
    new lines learns the shapes it repeats (each then read without pyparsing), and a
    shape met once costs no probing."""
    monkeypatch.setattr(shape_cache, "MAX_BUILDS", 4)  # (fewer shapes to meet past it)
    cache = ShapeCache(str(tmp_path / "shapes.cache"))
    once = [f"check +5 vs 15{' adv' * i}" for i in range(shape_cache.MAX_BUILDS + 3)]
    for text in once:
        cache.put(text, parse_request(text), parse_request)
    assert len(cache._load()) == shape_cache.MAX_BUILDS
    for text in ("roll 4d6kh3+1", "roll 5d8kh2+4"):  # a new shape, met twice
        cache.put(text, parse_request(text), parse_request)
    assert "roll #d#kh#+#" in cache._load()
    assert cache.get("roll 6d10kh4+2") == parse_request("roll 6d10kh4+2")
    assert once[-1] not in cache._load() and len(cache._load()) == shape_cache.MAX_BUILDS + 1


def test_the_file_stays_small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shape_cache, "MAX_BUILDS", 10**6)
    monkeypatch.setattr(shape_cache, "MAX_LEARNT", 10**6)
    path = tmp_path / "shapes.cache"
    cache = ShapeCache(str(path))
    first = None
    for i in range(MAX_CACHE_ENTRIES + 20):
        text = f"roll 1d6 # {'x' * i}"  # a comment of its own: a shape of its own
        cache.put(text, parse_request(text), parse_request)
        first = first or shapes.key(shapes.split(text)[0])  # type: ignore[index]
    cache.save()
    kept = raw(path)["shapes"]
    assert len(kept) == MAX_CACHE_ENTRIES and first not in kept
    assert os.path.getsize(path) <= MAX_CACHE_FILE_BYTES


def test_big_templates_keep_the_file_within_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shape_cache, "MAX_BUILDS", 10**6)
    monkeypatch.setattr(shape_cache, "MAX_LEARNT", 10**6)
    monkeypatch.setattr(request_cache, "MAX_CACHE_FILE_BYTES", 50_000)  # (the files' one writer)
    path = tmp_path / "shapes.cache"
    cache = ShapeCache(str(path))
    for n in range(1, 34):  # up to 480 characters (MAX_SHAPE_TEXT 500)
        text = "group " + ", ".join(["+1 adv bonus"] * n) + " vs 12"
        cache.put(text, parse_request(text), parse_request)
    cache.save()
    assert os.path.getsize(path) <= 50_000
    fields = raw(path)
    kept = fields["shapes"]
    # the newest templates that fit, counted in their largest sizes (`entry_bytes`, no
    # less than each takes in the file): one more would not
    learnt = list(cache._load().items())
    assert list(kept.items()) == learnt[-len(kept) :]
    head = {"stamp": fields["stamp"], "modules": fields["modules"], "shapes": {}}
    used = entry_bytes(head) + sum(entry_bytes(k) + entry_bytes(v) for k, v in kept.items())
    older = learnt[-len(kept) - 1]
    room = 50_000 - request_cache._HEAD_BYTES
    assert used <= room < used + entry_bytes(older[0]) + entry_bytes(older[1])
    assert "group +# adv bonus vs #" not in kept  # the oldest went
    assert ShapeCache(str(path)).get(text.replace("12", "9")) == parse_request(
        text.replace("12", "9")
    )


def test_no_cache_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("D20_NO_CACHE", "1")
    assert shape_path() is None
    assert Context.for_command_line().shape_cache() is None


def test_a_changed_language_empties_it_silently(tmp_path: Path) -> None:
    path = tmp_path / "shapes.cache"
    learnt(path, "check +5 vs 15")
    written(path, {"shapes": raw(path)["shapes"]}, stamp="1:older")
    said: list[str] = []
    assert ShapeCache(str(path), debug=said.append).get("check +3 vs 12") is None
    assert len(said) == 1 and "is of other modules" in said[0]  # not dropped as bad


def _template(text: str) -> dict[str, Any]:
    built = build(text, parse_request(text), parse_request)
    assert built is not None
    return marshal.loads(marshal.dumps(built[1]))


def _held(*templates: dict[str, Any]) -> dict[str, Any]:
    """A shape's templates as the file holds them: by the numbers each keeps fixed."""
    return {shape_cache.variant(t): t for t in templates}


def test_alternating_fixed_words_keep_a_template_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`expertise=d6` and `expertise=d8` are one shape whose die is part of the meaning:
    each keeps its template (issue 43 item 4), so a batch alternating them, after a run
    that met both, reads every line from the shape, none with the grammar, and prints
    what the grammar's reading prints."""
    path = tmp_path / "cache" / "d20cli" / "shapes.cache"
    learnt(path, "check +5 vs 15 adv expertise=d6", "check +2 vs 11 adv expertise=d8")
    held = raw(path)["shapes"]["check +# vs # adv expertise=d#"]
    assert list(held) == ["2=6", "2=8"]
    cache = ShapeCache(str(path))
    for n in range(6):
        text = f"check +{n} vs {10 + n} adv expertise=d{(6, 8)[n % 2]}"
        assert cache.get(text) == parse_request(text)
    assert cache.get("check +1 vs 12 adv expertise=d10") is None  # not met yet: parsed
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    from d20cli.language import grammar

    parsed: list[str] = []
    real = grammar.parse_request
    monkeypatch.setattr(grammar, "parse_request", lambda t: parsed.append(t) or real(t))
    lines = [f"check +{n} vs {10 + n} adv expertise=d{(6, 8)[n % 2]}" for n in range(8)]
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"odds {t}\n" for t in lines)))
    status, warm, _ = d20(["--json", "--no-log"], capsys)
    assert status == 0 and parsed == []
    monkeypatch.setenv("D20_NO_CACHE", "1")
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"odds {t}\n" for t in lines)))
    status, cold, _ = d20(["--json", "--no-log"], capsys)
    assert status == 0 and len(parsed) == len(lines)
    assert warm == cold and len(warm.splitlines()) == len(lines)


def test_a_batch_learns_the_shapes_it_asks_for_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On standard input, with the caches empty: the first MAX_BUILDS shapes are learnt
    at their first line, the others at their second, and every later line of them is
    read from its shape (each printing what the grammar's reading prints)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(shape_cache, "MAX_BUILDS", 4)  # (of the six shapes, two past it)
    missed: list[str] = []
    real = ShapeCache.get

    def get(self: ShapeCache, text: str) -> Any:
        found = real(self, text)
        if found is None:
            missed.append(text)
        return found

    monkeypatch.setattr(ShapeCache, "get", get)
    # (shapes d20 does not ship, d20cli.language.common_shapes: each is learnt)
    forms = ["check +{} vs 1{} lucky", "check +{} vs 1{} adv lucky", "check +{} vs 1{} dis lucky"]
    forms += ["save +{} vs 1{} lucky", "save +{} vs 1{} adv lucky", "attack +{} vs 1{} lucky"]
    lines = [form.format(n, n) for n in range(1, 4) for form in forms]
    unshipped(*lines)
    batch = "".join(f"odds {line}\n" for line in lines)
    monkeypatch.setattr(sys, "stdin", io.StringIO(batch))
    status, warm, _ = d20(["--json", "--no-log"], capsys)
    assert status == 0 and missed == lines[:6] + lines[10:12]  # (the 5th and 6th again)
    monkeypatch.setenv("D20_NO_CACHE", "1")
    monkeypatch.setattr(sys, "stdin", io.StringIO(batch))
    assert d20(["--json", "--no-log"], capsys)[1] == warm


def test_a_shape_keeps_at_most_its_variants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shape_cache, "MAX_BUILDS", 10**6)
    monkeypatch.setattr(shape_cache, "MAX_LEARNT", 10**6)
    cache = ShapeCache(str(tmp_path / "shapes.cache"))
    for n in range(shape_cache.MAX_VARIANTS + 3):
        text = f"roll 1d6 # take {n + 1}"  # (a comment's number is part of its meaning)
        cache.put(text, parse_request(text), parse_request)
    (held,) = cache._load().values()
    assert 0 < len(held) <= shape_cache.MAX_VARIANTS
    assert list(held)[-1] == f"2={shape_cache.MAX_VARIANTS + 3}"  # the newest is kept


def hostile_files() -> list[tuple[str, Any]]:
    good = _template("check +5 vs 15")
    other = _template("check +5 vs 15 adv")
    bad_slot = _template("check +5 vs 15")
    bad_slot["tree"]["modifier"]["value"] = {"@s": 7}
    twice = _template("check +5 vs 15")
    twice["tree"]["target"]["value"] = {"@s": 0}
    adv_slot = _template("check +5 vs 15")
    adv_slot["tree"]["adv"] = adv_slot["tree"]["target"].pop("value")
    negative = _template("check +5 vs 15")
    negative["tree"]["modifier"]["value"] = {"@s": 0, "neg": 1}
    column = _template("check +5 vs 15")
    column["tree"]["columns"]["@t"][1]["@t"][1] = {"@c": [9, 0]}
    fixed = _template("check +5 vs 15")
    fixed["fixed"] = [[0, 5]]
    code = _template("check +5 vs 15")
    code["tree"]["modifier"] = (lambda: 0).__code__
    real = _template("check +5 vs 15")
    real["tree"]["target"]["value"] = 15.0
    a_tuple = _template("check +5 vs 15")
    a_tuple["tree"]["columns"]["@t"] = tuple(a_tuple["tree"]["columns"]["@t"])
    a_set = _template("check +5 vs 15")
    a_set["tree"]["modifier"]["value"] = {frozenset({0})}
    deep: Any = {"@": "Number", "value": 1}
    for _ in range(request_cache.MAX_DEPTH):
        deep = {"@": "Neg", "operand": deep}
    too_deep = _template("check +5 vs 15")
    too_deep["tree"]["modifier"] = deep
    fixed_tuple = _template("check +5 vs 15 adv expertise=d6")
    fixed_tuple["fixed"] = [tuple(f) for f in fixed_tuple["fixed"]]
    return [
        ("not marshal", b"{not marshal"),
        ("an older d20's JSON", b'{"mac": "' + b"0" * 64 + b'", "shapes": {}}'),
        ("a list", [1, 2]),
        ("shapes not a dict", {"shapes": [1]}),
        ("an entry not a dict", {"shapes": {"check +# vs #": 5}}),
        ("an entry of another shape", {"shapes": {"check +# vs #": _held(other)}}),
        ("a key of another shape", {"shapes": {"check +# vs # adv": _held(good)}}),
        ("missing keys", {"shapes": {"check +# vs #": {"": {"shape": "check +# vs #"}}}}),
        ("fixed not a list", {"shapes": {"check +# vs #": {"": {**good, "fixed": "x"}}}}),
        ("a slot past the numbers", {"shapes": {"check +# vs #": _held(bad_slot)}}),
        ("a slot used twice", {"shapes": {"check +# vs #": _held(twice)}}),
        ("a slot in a count", {"shapes": {"check +# vs #": _held(adv_slot)}}),
        ("a negative slot that never is", {"shapes": {"check +# vs #": _held(negative)}}),
        ("a column past the text", {"shapes": {"check +# vs #": _held(column)}}),
        ("a fixed number not text", {"shapes": {"check +# vs #": _held(fixed)}}),
        ("a template not of the old form", {"shapes": {"check +# vs #": good}}),
        ("a template under another key", {"shapes": {"check +# vs #": {"0=5": good}}}),
        ("no template", {"shapes": {"check +# vs #": {}}}),
        (
            "too many templates",
            {
                "shapes": {
                    "check +# vs #": {f"{i}": good for i in range(shape_cache.MAX_VARIANTS + 1)}
                }
            },
        ),
        ("too many", {"shapes": {f"x{i}": _held(good) for i in range(MAX_CACHE_ENTRIES + 1)}}),
        ("a code object in a tree", {"shapes": {"check +# vs #": _held(code)}}),
        ("a float in a tree", {"shapes": {"check +# vs #": _held(real)}}),
        ("a tuple for a list", {"shapes": {"check +# vs #": _held(a_tuple)}}),
        ("a set in a tree", {"shapes": {"check +# vs #": _held(a_set)}}),
        ("a tree nested too deep", {"shapes": {"check +# vs #": _held(too_deep)}}),
        (
            "a fixed number a tuple",
            {"shapes": {"check +# vs # adv expertise=d#": {"2=6": fixed_tuple}}},
        ),
        ("nested past marshal's limit", "<nested>"),
        ("huge", "<huge>"),
    ]


@pytest.mark.parametrize(("what", "content"), hostile_files(), ids=[w for w, _ in hostile_files()])
def test_a_hostile_file_is_dropped_silently_and_rebuilt(
    what: str, content: Any, tmp_path: Path
) -> None:
    path = tmp_path / "shapes.cache"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content == "<nested>":  # (under the MAC: marshal's dumps never writes it)
        written(path, {"shapes": "<nested>"}, splice=("<nested>", b"[\x01\0\0\0" * 100_000))
    elif content == "<huge>":
        path.write_text(" " * (MAX_CACHE_FILE_BYTES + 1))
    elif isinstance(content, dict):
        written(path, content)  # as this user's d20 would: the checks behind the MAC
    else:
        path.write_bytes(marshal.dumps(content))  # (no MAC)
    warnings: list[str] = []  # the debug log's
    cache = ShapeCache(str(path), debug=warnings.append)
    for text in ("check +3 vs 12", "check +4 vs 13", "roll 1d6"):
        assert cache.get(text) is None, what
    assert len(warnings) == 1 and "was dropped" in warnings[0], (what, warnings)
    cache.put("check +3 vs 12", parse_request("check +3 vs 12"), parse_request)
    cache.save()
    again = ShapeCache(str(path), debug=warnings.append)
    assert again.get("check +6 vs 11") == parse_request("check +6 vs 11")
    assert len(warnings) == 1


def test_a_well_formed_template_of_another_meaning_is_not_served(tmp_path: Path) -> None:
    """A template that names another verb than its text (hand-made: d20 never writes
    one) is a miss: the grammar reads the text."""
    path = tmp_path / "shapes.cache"
    entry = _template("check +5 vs 15")
    entry["shape"] = "save +# vs #"
    written(path, {"shapes": {"save +# vs #": _held(entry)}})
    context = Context(None, None, ShapeCache(str(path)))
    assert context.parse("save +3 vs 12") == parse_request("save +3 vs 12")


def test_errors_and_carets_through_standard_input_are_the_grammars(tmp_path: Path) -> None:
    """Fillings of every shape (many of them errors), as a batch on standard input with
    the shapes warm, print exactly what they print with the caches off."""
    cache_home = tmp_path / "cache"
    learnt(cache_home / "d20cli" / "shapes.cache", *SHAPES)
    lines = [f for text in SHAPES for f in fillings(text, 12, seed=7)]
    batch = "".join(f"{line}\n" for line in lines)
    errors = 0
    for line in lines:
        try:
            parse_request(line)
        except ParseError:
            errors += 1
    assert errors > 100
    runs = []
    for off in ("", "1"):
        env = {**os.environ, "XDG_CACHE_HOME": str(cache_home), "D20_NO_LOG": "1"}
        env["D20_NO_CACHE"] = off
        runs.append(
            subprocess.run(
                [sys.executable, "-m", "d20cli", "--seed", "5", "--budget", "100"],
                input=batch,
                capture_output=True,
                text=True,
                env=env,
                cwd=ROOT,
                timeout=300,
            )
        )
    warm, cold = runs
    assert "Traceback" not in warm.stderr
    assert warm.returncode == cold.returncode
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)
    assert "^" in warm.stderr or "column" in warm.stderr
