"""The cache files are not trusted (issue 22 item 5, issue 40 item 2): a file is used
only under the MAC of this user's key (an entry edited or copied from elsewhere, even with
the real stamp, never changes what a text means), every entry is checked as the grammar
would check its request, the file is bounded in bytes and trimmed in bounded work, and a
bad file is dropped and rebuilt without a word to the user (the debug log says why),
never a traceback."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cache_helpers import fields_of, unshipped, written

from d20cli.language import grammar, parse_cache
from d20cli.language.grammar import parse_request
from d20cli.language.parse_cache import classes, decode, encode
from d20cli.store import request_cache
from d20cli.store.request_cache import MAX_CACHE_ENTRIES, MAX_CACHE_FILE_BYTES, ParseCache

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).parent / "fuzz_corpus"


DEEP = "<deep>"  # stands for data nested past any recursion limit


def deep_json(levels: int) -> str:
    return '{"@t": [' * levels + "1" + "]}" * levels


def deep_marshal(levels: int) -> bytes:
    """marshal's bytes of lists nested `levels` deep: more than its dumps writes (2,000)."""
    return b"[\x01\x00\x00\x00" * levels + marshal.dumps(1, 2)


def cache_with(path: Path, entries: dict[str, Any]) -> None:
    """A cache file as this user's d20 would write it (its MAC, the current stamp), holding
    `entries` as they are (DEEP: an entry nested 100,000 levels, as marshal's dumps never
    writes): what a file that got past the MAC (a key that leaked) could hold, for the
    checks behind it."""
    splice = (DEEP, deep_marshal(100_000)) if DEEP in entries.values() else None
    written(path, {"requests": entries}, splice=splice)


def entry(text: str) -> Any:
    return marshal.loads(marshal.dumps(encode(parse_request(text))))


def test_the_limits_are_the_grammars() -> None:
    from d20cli.app import stdin
    from d20cli.dice import tree
    from d20cli.language import dice_grammar, dice_modifiers

    assert parse_cache.MAX_REQUEST is stdin.MAX_REQUEST is dice_grammar.MAX_REQUEST
    assert parse_cache.MAX_NUMBER == 10**dice_modifiers.MAX_DICE_DIGITS - 1
    assert parse_cache.MAX_WORD_NUMBER == 10**grammar.MAX_WORD_DIGITS - 1
    assert parse_cache.MAX_NX == dice_grammar.MAX_NX
    assert parse_cache.MAX_PARTS == grammar.MAX_GROUP == grammar.MAX_CONTEST_SIDES
    assert parse_cache.MAX_TREE_DEPTH == dice_grammar.MAX_TREE_DEPTH
    assert tree.MAX_SIDES == 1_000_000


def corpus() -> list[str]:
    texts = []
    for path in sorted(CORPUS.iterdir())[:400]:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("odds "):
            text = text[5:]
        texts.append(text)
    return texts


def test_every_request_the_grammar_gives_is_accepted_back() -> None:
    """Checked decoding accepts what the grammar gives (the fuzz corpus and the deepest
    and longest requests the grammar takes)."""
    texts = [
        *corpus(),
        "roll " + "(" * 100 + "1d6" + ")" * 100,
        "roll " + "+".join(["1d6"] * 199),
        "roll " + "-" * 100 + "1",
        "roll " + "1d6+" * 2400 + "1",
        "group " + ",".join(["+1 adv"] * 1000) + " vs 12",
        "roll 999999999999d1000000",
        "check +999999999 vs 999999999 " + " ".join(["adv"] * 100),
        "attack +dex+prof vs 15 dmg 1d8+@str",
    ]
    accepted = 0
    for text in texts:
        try:
            request = parse_request(text)
        except Exception:
            continue
        data = marshal.loads(marshal.dumps(encode(request), request_cache._MARSHAL))
        assert decode(data, classes(), text) == request, text
        accepted += 1
    assert accepted > 50


def hostile_entries() -> list[tuple[str, str, Any]]:
    good = entry("check +5 vs 15 adv")
    modifier = entry("check +5 vs 15")
    modifier["modifier"]["value"] = 10**40
    adv = entry("check +5 vs 15 adv")
    adv["adv"] = 10**6
    repeat = entry("roll 2x 1d6")
    repeat["repeat"] = 1001
    sides = entry("roll 1d6")
    sides["expr"]["sides"] = 10**7
    typed = entry("check +5 vs 15")
    typed["modifier"] = "os.system('x')"
    members = entry("group +1, +2 vs 10")
    members["members"]["@t"] *= 600
    tree: Any = {"@": "Number", "value": 1}
    for _ in range(250):
        tree = {"@": "Neg", "operand": tree}
    too_deep = {"@": "RollRequest", "text": "roll 1", "expr": tree}
    name = entry("roll 1d20+dex")
    name["expr"]["rest"]["@t"][0]["@t"][1]["name"] = "Dex; rm -rf"
    # values of kinds marshal holds and JSON does not (every one refused before it is used)
    code = entry("check +5 vs 15")
    code["modifier"] = (lambda: 0).__code__
    real = entry("check +5 vs 15")
    real["modifier"]["value"] = 5.0
    a_set = entry("check +5 vs 15 adv")
    a_set["adv"] = {1}
    a_tuple = entry("roll 1d6+1d4")
    a_tuple["expr"]["rest"]["@t"] = tuple(a_tuple["expr"]["rest"]["@t"])
    raw = entry("check +5 vs 15")
    raw["text"] = b"check +5 vs 15"
    a_key = entry("check +5 vs 15")
    a_key[5] = 5
    cycle: list[Any] = []
    cycle.append(cycle)
    self_held = entry("group +1, +2 vs 10")
    self_held["members"]["@t"] = cycle
    shared: Any = [1]
    for _ in range(60):
        shared = [shared, shared]  # 2**60 values walked, a few hundred bytes written
    bomb = entry("group +1, +2 vs 10")
    bomb["members"]["@t"] = shared
    return [
        ("plain value", "check +5 vs 15", 5),
        ("a list", "check +5 vs 15", [1, 2]),
        ("wrong class", "check +5 vs 15", {"@": "Number", "value": 5}),
        ("unknown class", "check +5 vs 15", {"@": "os.system", "text": "x"}),
        ("another request's text", "roll 1d20", entry("roll 1d100")),
        ("text claimed", "check +5 vs 15", good),
        ("deep nesting", "check +5 vs 15", DEEP),
        ("nesting", "check +5 vs 15", json.loads(deep_json(450))),
        ("huge modifier", "check +5 vs 15", modifier),
        ("huge adv", "check +5 vs 15 adv", adv),
        ("repeat", "roll 2x 1d6", repeat),
        ("sides", "roll 1d6", sides),
        ("wrong type", "check +5 vs 15", typed),
        ("members", "group +1, +2 vs 10", members),
        ("a tree too deep", "roll 1", too_deep),
        ("a name that is not one", "roll 1d20+dex", name),
        ("a code object", "check +5 vs 15", code),
        ("a float", "check +5 vs 15", real),
        ("a set", "check +5 vs 15 adv", a_set),
        ("a tuple for a list", "roll 1d6+1d4", a_tuple),
        ("bytes", "check +5 vs 15", raw),
        ("a key not a string", "check +5 vs 15", a_key),
        ("a list that holds itself", "group +1, +2 vs 10", self_held),
        ("a list shared at every level", "group +1, +2 vs 10", bomb),
    ]


@pytest.mark.parametrize(
    ("what", "text", "data"), hostile_entries(), ids=[w for w, _, _ in hostile_entries()]
)
def test_a_hostile_entry_drops_the_file_silently(
    what: str, text: str, data: Any, tmp_path: Path
) -> None:
    path = tmp_path / "requests.cache"
    cache_with(path, {text: data, "roll 1d4": entry("roll 1d4")})
    warnings: list[str] = []
    cache = ParseCache(str(path), debug=warnings.append)
    assert cache.get(text) is None, what
    assert cache.get("roll 1d4") is None  # the whole file went
    assert len(warnings) == 1 and "was dropped" in warnings[0]
    cache.save()
    assert ParseCache(str(path), debug=warnings.append).get(text) is None
    assert len(warnings) == 1  # replaced: the next run has nothing to say


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[" * 100_000,
        b'"a string"',
        b'{"stamp": 5, "requests": 7}',
        b"\xff\xfe",
        b'{"mac": "' + b"0" * 64 + b'", "stamp": "3,1-2", "modules": [], "requests": {}}',
        b"",
    ],
)
def test_a_bad_file_is_dropped_silently(content: bytes, tmp_path: Path) -> None:
    """Not this format at all (the last but one: an older d20's JSON file, with its MAC
    in hex): dropped before anything is decoded, and rebuilt."""
    path = tmp_path / "requests.cache"
    path.write_bytes(content)
    warnings: list[str] = []
    cache = ParseCache(str(path), debug=warnings.append)
    assert cache.get("roll 1d6") is None
    cache.put("roll 1d6", parse_request("roll 1d6"))
    cache.save()
    assert len(warnings) <= 1
    assert ParseCache(str(path), debug=warnings.append).get("roll 1d6") == parse_request("roll 1d6")


def _bodies() -> list[tuple[str, bytes]]:
    """Bodies under this user's MAC that are not a cache: bytes marshal's dumps never
    writes (each of the errors marshal.loads raises), and values of the wrong kinds."""
    code = (lambda: 0).__code__
    modules = request_cache.imported_modules()
    stamp = request_cache._stamp(modules)

    def head(**fields: Any) -> bytes:
        return marshal.dumps({"stamp": stamp, "modules": modules, "requests": {}, **fields})

    return [
        ("empty (EOFError)", b""),
        ("cut short (EOFError)", head()[:-3]),
        ("an unknown type code (ValueError)", b"\x00"),
        ("a list as a key (TypeError)", b"{" + marshal.dumps([1], 2) + b"N0"),
        ("nested past marshal's limit (ValueError)", deep_marshal(3_000)),
        ("a code object", marshal.dumps(code)),
        ("a list", marshal.dumps([1, 2])),
        ("a stamp that is code", head(stamp=code)),
        ("a stamp that is a float", head(stamp=1.5)),
        ("modules of a tuple", head(modules=tuple(modules))),
        ("a module that is bytes", head(modules=[*modules[:-1], b"x.py"])),
        ("requests of a tuple", head(requests=(("roll 1d6", entry("roll 1d6")),))),
        ("a text that is bytes", head(requests={b"roll 1d6": entry("roll 1d6")})),
    ]


@pytest.mark.parametrize(("what", "body"), _bodies(), ids=[w for w, _ in _bodies()])
def test_a_sealed_body_that_is_not_a_cache_is_dropped_silently(
    what: str, body: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "requests.cache"
    key = request_cache.cache_key() or request_cache.new_cache_key()
    path.write_bytes(request_cache.sealed(body, key))
    said: list[str] = []
    cache = ParseCache(str(path), debug=said.append)
    assert cache.get("roll 1d6") is None, what
    assert len(said) == 1 and "was dropped" in said[0], (what, said)
    cache.put("roll 1d6", parse_request("roll 1d6"))
    cache.save()
    assert ParseCache(str(path), debug=said.append).get("roll 1d6") == parse_request("roll 1d6")
    assert len(said) == 1


def test_a_huge_file_is_dropped_without_being_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused by its size before a byte is read: neither marshal nor the MAC sees it."""
    path = tmp_path / "requests.cache"
    cache_with(path, {f"roll {i}d6": entry("roll 1d6") for i in range(20)})
    with path.open("ab") as f:
        f.write(b" " * (60 * 1024 * 1024))  # 60 MB
    looked: list[str] = []
    monkeypatch.setattr(request_cache, "unsealed", lambda *a: looked.append("mac"))
    monkeypatch.setattr(request_cache.marshal, "loads", lambda *a: looked.append("marshal"))
    said: list[str] = []
    assert ParseCache(str(path), debug=said.append).get("roll 1d6") is None
    assert looked == []
    assert len(said) == 1 and "is at most 1,000,000 bytes, and this one is 62," in said[0]


def test_long_unique_requests_keep_the_file_small_and_trimming_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each put works on at most MAX_CACHE_ENTRIES + 1 entries (the oldest go at once: the
    quadratic trimming of the file took hours), and saving encodes at most the entries
    kept, however many were put (the file once, then each entry's size while they fit,
    then the file of those that fit)."""
    path = tmp_path / "requests.cache"
    cache = ParseCache(str(path))
    request = parse_request("roll 1d6")
    for i in range(3 * MAX_CACHE_ENTRIES):
        cache.put(f"roll 1d6 # {i} " + "x" * 5_000, request)  # text not checked on put
        assert len(cache._load()) == min(i + 1, MAX_CACHE_ENTRIES)
    dumps = marshal.dumps
    encoded: list[object] = []
    monkeypatch.setattr(
        request_cache.marshal, "dumps", lambda v, n: encoded.append(v) or dumps(v, n)
    )
    cache.save()
    monkeypatch.undo()
    assert len(encoded) <= 2 * MAX_CACHE_ENTRIES + 3  # (the file twice, the head; each entry's
    # text and data)
    assert os.path.getsize(path) <= MAX_CACHE_FILE_BYTES
    kept = fields_of(path)["requests"]
    assert 0 < len(kept) < MAX_CACHE_ENTRIES and f"roll 1d6 # {3 * MAX_CACHE_ENTRIES - 1} " in next(
        reversed(kept)
    )  # the newest that fit in the bytes


def test_a_cli_run_with_a_hostile_cache_rolls_silently_and_rebuilds_it(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "d20cli"
    unshipped("check +5 vs 15 lucky")  # (a shape d20 ships is not written to the cache)
    cache_with(cache / "requests.cache", {"roll 1d6": DEEP, "check +5 vs 15 lucky": 5})
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "D20_NO_LOG": "1"}
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-m", "d20cli", "check", "+5", "vs", "15", "lucky", "-q"],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=60,
        )
        assert (proc.returncode, proc.stdout.strip(), proc.stderr) in {
            (0, str(n), "") for n in range(6, 26)
        }
    assert "check +5 vs 15 lucky" in fields_of(cache / "requests.cache")["requests"]  # rebuilt


def test_the_limits_are_stated_once_in_the_vocabulary() -> None:
    """The grammar, the codec and the shapes read one statement of each number limit
    (d20cli.language.vocabulary): the very objects, not numbers written again."""
    from d20cli.language import dice_grammar, dice_modifiers, shapes, vocabulary
    from d20cli.language.grammar_checks import MAX_GROUP, MAX_WORD_DIGITS

    assert parse_cache.MAX_NUMBER is vocabulary.MAX_NUMBER
    assert parse_cache.MAX_WORD_NUMBER is vocabulary.MAX_WORD_NUMBER
    assert dice_modifiers.MAX_DICE_DIGITS is vocabulary.DICE_DIGITS
    assert MAX_WORD_DIGITS is vocabulary.WORD_DIGITS and MAX_GROUP is vocabulary.MAX_PARTS
    assert dice_grammar.MAX_REQUEST is parse_cache.MAX_REQUEST is vocabulary.MAX_REQUEST
    assert shapes.RULES["Number", "value"][1] is vocabulary.MAX_NUMBER
    assert shapes.RULES["Dice", "minimum"][2] is vocabulary.MAX_SIGNED
    assert shapes.RULES["Target", "value"][1] is vocabulary.MAX_WORD_NUMBER
