"""Where d20 keeps its files (d20cli.store.files): one rule for every XDG base directory."""

from __future__ import annotations

import json
import os
import pwd
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cache_helpers import fields_of

from d20cli.app.cli import completion_script
from d20cli.app.completion import install as completion_install
from d20cli.errors import ParseError
from d20cli.store import characters, history, state
from d20cli.store import request_cache as parse_cache
from d20cli.store.files import atomic_write, deeper_than, home_dir, read_text, xdg_dir

ROOT = Path(__file__).resolve().parent.parent


def _lookups() -> dict[str, str]:
    """Every place d20 looks up an XDG directory, by variable."""
    return {
        "XDG_CACHE_HOME": str(Path(str(parse_cache.cache_path())).parent.parent),
        "XDG_STATE_HOME": str(state.state_dir().parent),
        "XDG_CONFIG_HOME": str(characters.config_dir().parent),
        "XDG_DATA_HOME": str(completion_install.install_path("bash").parents[2]),
    }


DEFAULTS = {
    "XDG_CACHE_HOME": ".cache",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
}


@pytest.mark.parametrize("value", ["relative", "relative/path", "./x", "~/x", "", "   "])
def test_a_relative_or_empty_xdg_directory_is_ignored_by_every_lookup(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in DEFAULTS:
        monkeypatch.setenv(name, value)
    assert _lookups() == {name: str(home / default) for name, default in DEFAULTS.items()}


def test_an_absolute_xdg_directory_is_used_by_every_lookup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in DEFAULTS:
        monkeypatch.setenv(name, str(home / name.lower()))
    assert _lookups() == {name: str(home / name.lower()) for name in DEFAULTS}
    assert xdg_dir("XDG_CACHE_HOME", ".cache") == str(home / "xdg_cache_home")


def test_a_home_that_is_not_absolute_is_taken_from_the_password_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = pwd.getpwuid(os.getuid()).pw_dir
    for value in ("", "relative/home"):
        monkeypatch.setenv("HOME", value)
        assert home_dir() == real
    monkeypatch.delenv("HOME")
    assert home_dir() == real


def test_the_program_writes_nothing_in_the_current_directory(tmp_path: Path) -> None:
    """Issue 22: XDG_CACHE_HOME=cache put the parse cache in ./cache/d20cli/."""
    here, home = tmp_path / "here", tmp_path / "home"
    here.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "XDG_CACHE_HOME": "cache",
        "XDG_STATE_HOME": "state",
        "XDG_CONFIG_HOME": "config",
    }
    env.pop("D20_NO_LOG", None)  # the roll log on: the state directory is written too
    run = subprocess.run(
        [sys.executable, "-m", "d20cli", "check", "+5", "vs", "15", "lucky"],  # (not shipped)
        capture_output=True,
        text=True,
        cwd=here,
        env=env,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert list(here.iterdir()) == []
    assert (home / ".cache" / "d20cli" / "requests.cache").is_file()
    assert (home / ".local" / "state" / "d20cli" / "state.db").is_file()


# --- writing ---------------------------------------------------------------------------


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    victim.write_text("precious\n", encoding="utf-8")
    return victim


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    atomic_write(str(path), "one\n")
    assert path.read_text(encoding="utf-8") == "one\n"
    assert path.stat().st_mode & 0o777 == 0o600  # a new file is private
    path.chmod(0o640)
    atomic_write(str(path), "two\n", durable=True)
    assert path.read_text(encoding="utf-8") == "two\n"
    assert path.stat().st_mode & 0o777 == 0o640  # an existing file keeps its permissions
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_atomic_write_replaces_a_link_unless_told_to_follow_it(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(victim)
    atomic_write(str(link), "new\n")
    assert not link.is_symlink() and link.read_text(encoding="utf-8") == "new\n"
    assert victim.read_text(encoding="utf-8") == "precious\n"
    link.unlink()
    link.symlink_to(victim)
    atomic_write(str(link), "through\n", follow_link=True)
    assert link.is_symlink() and victim.read_text(encoding="utf-8") == "through\n"


def test_a_failed_write_removes_its_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f.txt"
    path.write_text("old\n", encoding="utf-8")

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space"):
        atomic_write(str(path), "new\n")
    monkeypatch.undo()

    def interrupt(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(str(path), "new\n")
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]
    assert path.read_text(encoding="utf-8") == "old\n"


def test_the_parse_cache_follows_no_link_at_a_temporary_name(tmp_path: Path) -> None:
    """The cache wrote `.requests.json.<pid>.tmp` with open(): a link planted there made
    it overwrite the link's target."""
    victim = _victim(tmp_path)
    path = tmp_path / "cache" / "d20cli" / "requests.cache"
    path.parent.mkdir(parents=True)
    planted = path.parent / f".requests.cache.{os.getpid()}.tmp"
    planted.symlink_to(victim)
    cache = parse_cache.ParseCache(str(path))
    from d20cli.language.grammar import parse_request

    cache.put("roll 1d6", parse_request("roll 1d6"))
    cache.save()
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert fields_of(path)["requests"]
    assert planted.is_symlink()
    assert sorted(p.name for p in path.parent.iterdir()) == [planted.name, "requests.cache"]


def test_the_completion_install_follows_no_link_at_a_temporary_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    victim = _victim(tmp_path)
    path = completion_install.install_path("bash")
    path.parent.mkdir(parents=True)
    (path.parent / "d20.tmp").symlink_to(victim)
    completion_script("bash", install=True)
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert path.read_text(encoding="utf-8") == completion_script("bash")


def test_a_link_at_the_characters_lock_is_not_followed(tmp_path: Path) -> None:
    """`characters.toml.lock` was opened with open(..., "a+b"): a link there created (or
    appended to) its target. Now the change is refused with a clear error, exit 2."""
    from typer.testing import CliRunner

    from d20cli.app.commands.char import app as char_app

    target = tmp_path / "elsewhere" / "created-by-d20"
    target.parent.mkdir()
    lock = characters.characters_path().with_name("characters.toml.lock")
    lock.parent.mkdir(parents=True)
    lock.symlink_to(target)
    r = CliRunner().invoke(char_app, ["add", "aria"])
    assert r.exit_code == 2
    assert "lock file" in r.stderr and "is a symbolic link" in r.stderr
    assert not target.exists()
    assert not characters.characters_path().exists()
    lock.unlink()
    victim = _victim(tmp_path)
    lock.symlink_to(victim)
    assert CliRunner().invoke(char_app, ["add", "aria"]).exit_code == 2
    assert victim.read_text(encoding="utf-8") == "precious\n"


def test_every_writer_uses_the_one_helper() -> None:
    """No module of d20 writes a file by hand any more: os.replace and mkstemp appear in
    d20cli/files.py alone (state.py moves a corrupt database aside with os.replace)."""
    for module in sorted((ROOT / "d20cli").rglob("*.py")):
        text = module.read_text(encoding="utf-8")
        if module.name == "files.py":
            continue
        assert "mkstemp" not in text and ".tmp" not in text, module
        if module.name != "state.py":
            assert "os.replace" not in text, module


# --- reading (issue 31, items 15, 16 and 18) ---------------------------------------------


def test_every_reader_uses_the_one_helper() -> None:
    """Every file d20 reads goes through files.read_bytes (regular files only, a limit of
    bytes) or, for what verify reads a piece at a time, files.open_named: no other module
    opens a file to read it or reads a Path whole."""
    opens = re.compile(r"(?<![.\w])(?<!def )open\((?!os\.devnull)")  # the built-in open, to read
    for module in sorted((ROOT / "d20cli").rglob("*.py")):
        if module.name == "files.py":
            continue
        text = module.read_text(encoding="utf-8")
        assert ".read_text(" not in text and ".read_bytes(" not in text, module
        assert "FileHistory(" not in text or module.name == "history.py", module
        assert opens.search(text) is None, module


@pytest.mark.parametrize("kind", ["fifo", "zero", "folder", "big"])
def test_the_reader_refuses_what_is_not_a_small_regular_file(tmp_path: Path, kind: str) -> None:
    """A FIFO (opening it does not wait for a writer), a device behind a link, a folder
    and a file over the limit are refused before they are read."""
    path = tmp_path / "file"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"x" * 101)
    with pytest.raises(ParseError) as caught:
        read_text(str(path), 100, "a test file")
    message = {
        "fifo": "not a regular file",
        "zero": "not a regular file",
        "folder": "it is a directory, not a file",
        "big": "a test file is at most 100 bytes, and this one is 101",
    }[kind]
    assert caught.value.message == f"cannot read {path}: {message}"


def test_the_reader_takes_utf8_with_or_without_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "file"
    for data in (b"caf\xc3\xa9\n", b"\xef\xbb\xbfcaf\xc3\xa9\n"):
        path.write_bytes(data)
        assert read_text(str(path), 100) == "café\n"
    path.write_bytes(b"\xef\xbb\xbfa\n\xff\n")
    with pytest.raises(ParseError, match=r", line 2: not UTF-8 text \(byte 6\)"):
        read_text(str(path), 100)


def test_nesting_is_measured_without_recursion() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert deeper_than(deep, 99_999) and not deeper_than(deep, 100_001)
    assert not deeper_than(5, 0) and deeper_than([], 0) and not deeper_than([], 1)
    assert deeper_than({"a": [1]}, 1) and not deeper_than({"a": [1], "b": {}}, 2)


def test_the_shell_history_is_read_from_its_end_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """prompt_toolkit's FileHistory read the whole file (a line of a gigabyte, a FIFO
    that hung): the shell loads the last history.MAX_HISTORY_BYTES of a regular file."""
    path = tmp_path / "history"
    text = "".join(f"\n# 2026-01-01 00:00:{i:02}\n+roll {i}d6\n" for i in range(50))
    path.write_text(text + "\n# 2026\n+check +5\n+vs 15\n", encoding="utf-8")
    assert history.entries(str(path))[:3] == ["check +5\nvs 15", "roll 49d6", "roll 48d6"]
    assert len(history.entries(str(path))) == 51
    monkeypatch.setattr(history, "MAX_HISTORY_BYTES", 200)
    assert 0 < len(history.entries(str(path))) < 10
    assert history.entries(str(path))[-1] != "oll 40d6"  # no entry cut at its start
    path.write_bytes(b"+" + b"x" * 10_000)  # one line of no end: its last 200 bytes, cut
    assert history.entries(str(path)) == []
    path.unlink()
    os.mkfifo(path)
    assert history.entries(str(path)) == []
    assert type(history.file_history(str(path))).__name__ == "BoundedHistory"


def test_a_fifo_as_the_parse_cache_is_dropped_not_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "requests.cache"
    os.mkfifo(path)
    warnings: list[str] = []
    assert parse_cache.ParseCache(str(path), debug=warnings.append).get("roll 1d6") is None
    assert len(warnings) == 1 and "not a regular file" in warnings[0]


def _export_row(**fields: object) -> dict[str, object]:
    row: dict[str, object] = {
        "id": 1,
        "system": "levelup",
        "verb": "roll",
        "request": "roll 1d6",
        "dice": [{"sides": 6, "face": 3}],
        "total": 3,
        "outcome": None,
        "house": None,
        "session": 1,
        "position": 0,
        "replay": None,
        "commitment": "0" * 64,
        "at": "2026-12-01T20:00:00.000+00:00",
        "character": None,
        "prev_hash": "0" * 64,
        "hash": "0" * 64,
    }
    return {**row, **fields}


@pytest.mark.parametrize("field", ["house", "dice", "replay"])
def test_a_deeply_nested_export_row_is_one_line(tmp_path: Path, field: str) -> None:
    """`house` or `dice` nested about 980 deep in a roll log export was read, then a
    RecursionError when the row was hashed, rolled again or shown: a field nesting deeper
    than d20 ever writes it (a request as rolled: 700 levels) is refused when the export is
    read, naming the row and the field."""
    opening, closing = ('{"x": ', "}") if field != "dice" else ("[", "]")
    deep = opening * 750 + '{"crit": 19}' + closing * 750  # (too deep for json.dumps here)
    text = json.dumps([_export_row(**{field: "DEEP"})]).replace('"DEEP"', deep)
    path = tmp_path / "rolls.json"
    path.write_text(text, encoding="utf-8")
    run = subprocess.run(  # a process of its own: the stack of the command line, not pytest's
        [sys.executable, "-m", "d20cli", "verify", str(path), "a" * 64 + ":" + "b" * 32],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(f"d20: error: row 1 of the export: '{field}' nests more")
    assert len(run.stderr.splitlines()) == 1


def test_a_temporary_is_new_private_and_never_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """atomic_write's temporary (files._temporary): a new file of a random name, 0600,
    created with O_EXCL, so a file or a symbolic link already at a name is never opened;
    another name is tried when one is taken."""
    import stat

    from d20cli.store import files

    fd, path = files._temporary(str(tmp_path), "cache")
    os.close(fd)
    assert os.path.dirname(path) == str(tmp_path)
    assert os.path.basename(path).startswith(".cache.") and path.endswith(".tmp")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    other, second = files._temporary(str(tmp_path), "cache")
    os.close(other)
    assert second != path
    target = tmp_path / "target"
    names = iter([b"taken", b"fresh"])
    link = tmp_path / f".cache.{b'taken'.hex()}.tmp"
    link.symlink_to(target)  # a link planted at the first name: O_EXCL refuses it
    monkeypatch.setattr(os, "urandom", lambda n: next(names))
    fd, path = files._temporary(str(tmp_path), "cache")
    os.close(fd)
    assert path == str(tmp_path / f".cache.{b'fresh'.hex()}.tmp")
    assert not target.exists() and link.is_symlink()
