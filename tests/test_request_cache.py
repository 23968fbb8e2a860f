"""A cache entry may make a request faster, never different (issue 40 item 2): the two
forgeries of the issue, made as it made them (the real cache file, its stamp and MAC
copied, one entry changed), roll what the text says, and the file is dropped and rebuilt
without a word to the user; the debug log (`D20_DEBUG=1`) says so."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cache_helpers import fields_of, forged, unshipped

from d20cli.language.grammar import parse_request
from d20cli.store import request_cache
from d20cli.store.request_cache import ParseCache, cache_key, sealed, unsealed
from d20cli.store.shape_cache import ShapeCache

ROOT = Path(__file__).resolve().parent.parent


def d20(tmp_path: Path, *words: str, debug: bool = False) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "D20_NO_LOG": "1",
        "D20_DEBUG": "1" if debug else "",
    }
    return subprocess.run(
        [sys.executable, "-m", "d20cli", *words],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def rolled(tmp_path: Path, *words: str, debug: bool = False) -> tuple[dict[str, Any], str]:
    """The JSON result of `d20 WORDS --json` and what it wrote on standard error."""
    proc = d20(tmp_path, *words, "--json", debug=debug)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


def genuine(path: Path) -> dict[str, Any]:
    """The fields of a cache file that this user's d20 wrote (its MAC checked)."""
    key = cache_key()
    assert key is not None
    body = unsealed(path.read_bytes(), key)
    assert body is not None, "the file is not under the user's key"
    data: dict[str, Any] = marshal.loads(body)
    return data


def test_a_request_entry_that_holds_another_modifier_rolls_the_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the key d20 made
    requests = tmp_path / "cache" / "d20cli" / "requests.cache"
    unshipped("check +5 vs 15 lucky")  # (parsed: d20cli.language.common_shapes has none)
    first, _ = rolled(tmp_path, "check", "+5", "vs", "15", "lucky", "--dice", "10")
    assert (first["modifier"], first["total"]) == (5, 15)
    real = fields_of(requests)
    assert real["requests"]["check +5 vs 15 lucky"]["modifier"] == {"@": "Number", "value": 5}

    def modifier_15(data: dict[str, Any]) -> None:
        data["requests"]["check +5 vs 15 lucky"]["modifier"]["value"] = 15

    forged(requests, modifier_15)
    assert fields_of(requests)["stamp"] == real["stamp"]  # the real stamp, and its MAC
    assert fields_of(requests)["mac"] == real["mac"]
    assert fields_of(requests)["requests"]["check +5 vs 15 lucky"]["modifier"]["value"] == 15

    again, said = rolled(tmp_path, "check", "+5", "vs", "15", "lucky", "--dice", "10", debug=True)
    assert (again["modifier"], again["total"], again["target"]) == (5, 15, 15)
    assert "parse cache" in said and "was dropped and is rebuilt" in said
    rebuilt = genuine(requests)
    assert all(data["modifier"]["value"] != 15 for data in rebuilt["requests"].values())
    # the next runs: the text's meaning, and nothing to say, debug log or not
    for debug in (True, False):
        third, said = rolled(
            tmp_path, "check", "+5", "vs", "15", "lucky", "--dice", "10", debug=debug
        )
        assert (third["total"], said) == (15, "")


def test_a_shape_entry_with_its_numbers_swapped_rolls_the_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    shapes = tmp_path / "cache" / "d20cli" / "shapes.cache"
    unshipped("check +5 vs 15 lucky")
    rolled(tmp_path, "check", "+5", "vs", "15", "lucky")  # learns `check +# vs # lucky`
    template = fields_of(shapes)["shapes"]["check +# vs # lucky"][""]["tree"]  # (no fixed number)
    assert template["modifier"]["value"] == {"@s": 0}
    assert template["target"]["value"] == {"@s": 1}
    real = fields_of(shapes)

    def swapped(data: dict[str, Any]) -> None:
        tree = data["shapes"]["check +# vs # lucky"][""]["tree"]
        tree["modifier"]["value"], tree["target"]["value"] = {"@s": 1}, {"@s": 0}

    forged(shapes, swapped)  # the real stamp and MAC kept
    assert fields_of(shapes)["mac"] == real["mac"] and fields_of(shapes) != real

    result, said = rolled(tmp_path, "check", "+2", "vs", "18", "lucky", "--dice", "10", debug=True)
    assert (result["modifier"], result["target"], result["total"]) == (2, 18, 12)
    assert result["success"] is False
    assert "shape cache" in said and "was dropped and is rebuilt" in said
    relearnt = genuine(shapes)["shapes"]["check +# vs # lucky"][""]["tree"]
    assert relearnt["modifier"]["value"] == {"@s": 0}  # learnt again from the grammar
    result, said = rolled(tmp_path, "check", "+3", "vs", "17", "lucky", "--dice", "10", debug=True)
    assert (result["modifier"], result["target"], said) == (3, 17, "")


def test_a_cache_of_another_users_d20_is_not_used(tmp_path: Path) -> None:
    """A file another key sealed (another user's, or a key made up with the file), with
    an entry of another meaning: dropped, silently but for the debug log."""
    path = tmp_path / "requests.cache"
    cache = ParseCache(str(path))
    cache.put("check +5 vs 15", parse_request("check +5 vs 15"))
    cache.save()
    key = cache_key()
    assert key is not None
    body = unsealed(path.read_bytes(), key)
    assert body is not None
    data = marshal.loads(body)
    data["requests"]["check +5 vs 15"]["modifier"]["value"] = 15
    other = bytes(b ^ 1 for b in key)
    path.write_bytes(sealed(marshal.dumps(data), other))
    said: list[str] = []
    assert ParseCache(str(path), debug=said.append).get("check +5 vs 15") is None
    assert len(said) == 1 and "its MAC does not match" in said[0]


@pytest.mark.parametrize("kind", ["requests.cache", "shapes.cache"])
def test_a_file_without_a_key_is_dropped_and_a_key_is_made(tmp_path: Path, kind: str) -> None:
    """The key gone (a new state directory): the caches are rebuilt under a new one,
    which is private."""
    path = tmp_path / kind
    cls = ParseCache if kind == "requests.cache" else ShapeCache
    first = cls(str(path))
    if isinstance(first, ParseCache):
        first.put("check +5 vs 15", parse_request("check +5 vs 15"))
    else:
        first.put("check +5 vs 15", parse_request("check +5 vs 15"), parse_request)
    first.save()
    Path(request_cache.key_path()).unlink()
    said: list[str] = []
    again = cls(str(path), debug=said.append)
    assert again.get("check +5 vs 15") is None
    assert len(said) == 1 and "its MAC does not match" in said[0]
    again.save()
    assert os.stat(request_cache.key_path()).st_mode & 0o777 == 0o600
    assert genuine(path)[again.SECTION] == {}  # rebuilt empty, under the new key


def test_the_debug_log_is_off_unless_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    request_cache.debug("a cache\x1b]0;title\x07 was dropped")
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("D20_DEBUG", "1")
    request_cache.debug("a cache\x1b]0;title\x07 was dropped")
    err = capsys.readouterr().err
    assert err.startswith("d20: debug: a cache") and "\x1b" not in err and "\x07" not in err


def test_the_stamp_names_every_module_parsing_imports(tmp_path: Path) -> None:
    """The stamp is of the modules listed in the file, the package's modules the writing
    run had imported: every module the grammar and the caches import (in a fresh
    interpreter) is among them, those a hand-written list missed too."""
    probe = (
        "import sys, d20cli.language.grammar, d20cli.store.shape_cache; "
        "print('\\n'.join(sorted(m.__file__ for n, m in sys.modules.items() "
        "if n.split('.')[0] == 'd20cli')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    package = str(ROOT / "d20cli") + os.sep
    needed = {line.removeprefix(package) for line in proc.stdout.split()}
    assert {"language/grammar.py", "language/shapes.py", "dice/evaluate.py"} <= needed
    unshipped("check +5 vs 15 lucky")  # (both files are written)
    rolled(tmp_path, "check", "+5", "vs", "15", "lucky")
    for name in ("requests.cache", "shapes.cache"):
        listed = fields_of(tmp_path / "cache" / "d20cli" / name)["modules"]
        assert needed <= set(listed), needed - set(listed)


def test_plain_data_is_what_json_holds() -> None:
    """Every value a cache file's entry is walked for before its use (marshal's format
    holds more kinds than JSON: each of them is refused), bounded in depth and in values
    (a list that holds itself, or one shared at every level, ends at the bound)."""
    from d20cli.language.parse_cache import encode
    from d20cli.store.request_cache import MAX_DEPTH, plain

    entry = encode(parse_request("group +1 adv, -2 vs 12"))
    assert plain(entry) and plain({"a": [1, True, None, "x", {}, []]})
    for bad in (
        (lambda: 0).__code__,
        1.5,
        1j,
        (1, 2),
        {1},
        frozenset(),
        b"x",
        ...,
        StopIteration,
        {1: "a key not a string"},
        {"a": [1, 2.0]},
        {"@t": (1,)},
    ):
        assert not plain(bad) and not plain({"x": [bad]}), bad
    deep: Any = 1
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert plain(deep) and not plain([deep])
    itself: list[Any] = []
    itself.append(itself)
    assert not plain(itself)
    shared: Any = [1]
    for _ in range(100):
        shared = [shared, shared]  # 2**100 values on the way down
    assert not plain(shared)
    assert not plain(list(range(request_cache.MAX_ENTRY_BYTES + 1)))


def test_marshal_reads_only_what_the_mac_vouches_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose MAC fails (another key, or its body changed) is dropped before
    marshal sees a byte of it."""
    path = tmp_path / "requests.cache"
    cache = ParseCache(str(path))
    cache.put("check +5 vs 15", parse_request("check +5 vs 15"))
    cache.save()
    good = path.read_bytes()
    key = cache_key()
    assert key is not None
    body = unsealed(good, key)
    assert body is not None
    loads = marshal.loads
    seen: list[bytes] = []
    monkeypatch.setattr(request_cache.marshal, "loads", lambda b: seen.append(b) or loads(b))
    for data in (
        sealed(body, bytes(b ^ 1 for b in key)),  # another key
        good[:-1] + bytes([good[-1] ^ 1]),  # a byte of the body changed
        good[:-1],  # cut short
        good[len(request_cache.MAGIC) :],  # no MAGIC
    ):
        path.write_bytes(data)
        said: list[str] = []
        assert ParseCache(str(path), debug=said.append).get("check +5 vs 15") is None
        assert len(said) == 1 and "its MAC does not match" in said[0]
    assert seen == []
    path.write_bytes(good)
    assert ParseCache(str(path)).get("check +5 vs 15") == parse_request("check +5 vs 15")
    assert seen == [body]


def test_an_older_json_cache_is_removed_when_the_new_one_is_first_written(
    tmp_path: Path,
) -> None:
    """The JSON files of an older d20 (`requests.json`, `shapes.json`) are not read: each
    goes when its marshal file is first written beside it; a file of another name stays."""
    folder = tmp_path / "cache" / "d20cli"
    folder.mkdir(parents=True)
    old = b'{"mac": "' + b"0" * 64 + b'", "stamp": "3", "modules": [], "requests": {}}'
    for name in ("requests.json", "shapes.json", "notes.json"):
        (folder / name).write_bytes(old)
    result, said = rolled(tmp_path, "check", "+5", "vs", "15", "lucky", "--dice", "10", debug=True)
    assert result["total"] == 15 and said == ""
    assert sorted(p.name for p in folder.iterdir()) == [
        "notes.json",
        "requests.cache",
        "shapes.cache",
    ]
    assert list(genuine(folder / "requests.cache")["requests"]) == ["check +5 vs 15 lucky"]
