"""A small cache of parsed requests on disk, so a repeated request starts without
pyparsing.

Building the pyparsing grammar and importing pyparsing take about half of a cold start;
at the table the same few requests come again and again. The cache maps a request's text
to its parsed Request, stored with `marshal` (built in: no import to pay, and several
times faster to read than JSON; never pickle, and never a code object: see below) as the
plain data of d20cli.language.parse_cache's codec, each dataclass tagged by name, and only
the request and dice-expression classes of this package may be named. It is keyed by the
sizes and modification times of the modules that wrote it (every module of the package
the writing run had imported, the grammar's among them, listed in the file), so any
change to them empties it.

Where: $XDG_CACHE_HOME/d20cli/requests.cache (default ~/.cache/d20cli/requests.cache; a
relative XDG_CACHE_HOME is ignored, see d20cli.store.files); `D20_NO_CACHE=1` turns it
off. It holds at most MAX_CACHE_ENTRIES requests (the most recently used) in at most
MAX_CACHE_FILE_BYTES (an entry over MAX_ENTRY_BYTES is not kept; trimming is linear), and
is written atomically (temporary file, then rename). The JSON file of an older d20
(`requests.json`) is removed when this one is first written.

The file is not trusted (issue 40): a cache may make a request faster, never different.
The grammar alone knows what a text means, so a file is used only if this user's d20
wrote it: after its MAGIC it holds a MAC of the rest (keyed BLAKE2b) under a random key
kept in the state directory (`cache-key`, created 0600 with the first cache written),
which a file copied from elsewhere or edited cannot match; marshal is never given a byte
the MAC has not vouched for. The value read must then be plain data, as JSON holds it
(dicts with string keys, lists, strings, ints, booleans and None: never a code object, a
float, a tuple, a set or bytes, which marshal's format can also hold): the file's head at
once, each entry (`plain`, bounded in depth and size) before it is used. Every entry is
then also checked as strictly as the grammar would have (d20cli.language.parse_cache.decode).
A file that is too big, fails the MAC, is not marshal's data or not plain data, or holds
one entry that fails a check is dropped as a whole and rebuilt, without a word to the
user: it is a cache, it holds nothing the user saved. `D20_DEBUG=1` prints each such event
on standard error (`debug`).
"""

from __future__ import annotations

import errno
import marshal
import os
import sys
from collections.abc import Callable, Sequence

from d20cli.bounded import Bounded, declare
from d20cli.language.parse_cache import MAX_JSON_DEPTH, classes, decode, encode
from d20cli.store.files import atomic_write, env_flag, read_bytes, xdg_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_CACHE_ENTRIES = 256
MAX_CACHE_FILE_BYTES = 1_000_000  # 2 to 12 ms to read at start-up (docs/limits.md)
MAX_ENTRY_BYTES = 100_000  # a bigger request (a group of many hundred members) is parsed
MAX_MODULES = 1_000  # modules a file may name (the package has about 140)
MAX_DEPTH = MAX_JSON_DEPTH + 8  # levels of an entry's data (a template's tree in its shape's)
KEY_BYTES = 32
_FORMAT = "4"  # the file's format, in its MAGIC and first in its stamp
#: A cache file: MAGIC, the MAC of the body (KEY_BYTES bytes), then the body: marshal's
#: bytes (version _MARSHAL) of {"stamp": ..., "modules": [...], SECTION: {key: entry}}.
MAGIC = b"d20cli cache " + _FORMAT.encode("ascii") + b"\n"
_HEAD_BYTES = len(MAGIC) + KEY_BYTES
_MARSHAL = 4  # (version 4: the fastest to read; every Python since 3.4 reads it)
_LANGUAGE = "language"  # the grammar's package: every module of it is in a file's stamp


def cache_path() -> str | None:
    """The cache file (a plain path string: pathlib costs 3 ms at start-up)."""
    if env_flag("D20_NO_CACHE"):
        return None
    return os.path.join(xdg_dir("XDG_CACHE_HOME", ".cache"), "d20cli", "requests.cache")


def shape_path() -> str | None:
    """The shapes file (None when the caches are off): d20cli.store.shape_cache, which a
    run imports only when a text is not in the parse cache."""
    if env_flag("D20_NO_CACHE"):
        return None
    return os.path.join(xdg_dir("XDG_CACHE_HOME", ".cache"), "d20cli", "shapes.cache")


def debug(message: str) -> None:
    """The debug log: with `D20_DEBUG` set, `message` on standard error (made visible);
    otherwise nothing. What a user need not hear goes here (a cache file dropped)."""
    if env_flag("D20_DEBUG"):
        from d20cli.visible import visible

        sys.stderr.write(f"d20: debug: {visible(message)}\n")


# --- the key and the MAC ---------------------------------------------------------------


def key_path() -> str:
    """The caches' key, beside the state database (d20cli.store.database.state_dir)."""
    state = xdg_dir("XDG_STATE_HOME", os.path.join(".local", "state"))
    return os.path.join(state, "d20cli", "cache-key")


def cache_key() -> bytes | None:
    """This user's key of the caches (KEY_BYTES random bytes, kept as hex), or None when
    there is none (or it cannot be read, or is not a key)."""
    try:
        text = read_bytes(key_path(), 4 * KEY_BYTES, "a cache key").decode("ascii")
        key = bytes.fromhex(text)
    except (OSError, ValueError):
        return None
    return key if len(key) == KEY_BYTES else None


def new_cache_key() -> bytes:
    """A new key of the caches, kept in `key_path` as a new file, private (0600; what was
    there is removed first, its permissions with it; the state directory is made 0700 if
    it is not there). OSError when it cannot be kept."""
    key = os.urandom(KEY_BYTES)
    path = key_path()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    atomic_write(path, key.hex())
    return key


def _mac(key: bytes, body: bytes) -> bytes:
    """The MAC of a cache file's body under `key`: keyed BLAKE2b, KEY_BYTES bytes."""
    try:
        from _blake2 import blake2b  # (hashlib would load OpenSSL: 3 ms at start-up)
    except ImportError:  # pragma: no cover - a Python without the module
        from hashlib import blake2b
    return blake2b(body, digest_size=KEY_BYTES, key=key, person=b"d20cli cache").digest()


def sealed(body: bytes, key: bytes) -> bytes:
    """A cache file's bytes: MAGIC, the MAC of `body` (marshal's bytes) under `key`, `body`."""
    return MAGIC + _mac(key, body) + body


def unsealed(data: bytes, key: bytes) -> bytes | None:
    """The body of a cache file (`sealed`'s bytes), or None unless it begins with MAGIC and
    the MAC of the rest under `key`."""
    from _operator import _compare_digest

    if not data.startswith(MAGIC):
        return None
    body = data[_HEAD_BYTES:]
    return body if _compare_digest(data[len(MAGIC) : _HEAD_BYTES], _mac(key, body)) else None


# --- the data of a file ----------------------------------------------------------------

_LEAVES = frozenset({str, int, bool, type(None)})


def loaded(body: bytes) -> Any:
    """The value of a file's body (marshal's bytes, which the MAC vouched for: never give
    it any other), or None when it is not marshal's data; it is not yet known to be plain
    (`plain`). A code object is refused where marshal can refuse it (Python 3.13)."""
    try:
        if sys.version_info >= (3, 13):
            return marshal.loads(body, allow_code=False)
        return marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return None


def plain(value: Any, depth: int = MAX_DEPTH, most: int = MAX_ENTRY_BYTES) -> bool:
    """Whether `value` is plain data, as JSON holds it: dicts with string keys, lists,
    strings, ints, booleans and None, at most `depth` levels deep and `most` values in all
    (an entry of MAX_ENTRY_BYTES holds fewer: each value takes a byte or more). Not a code
    object, a float, a tuple, a set, bytes or anything else marshal's format holds. Read
    level by level, without recursion (a list that holds itself ends at `most`)."""
    level = [value]
    for _ in range(depth + 1):
        below: list[Any] = []
        for item in level:
            kind = type(item)
            if kind is dict:
                for key in item:
                    if type(key) is not str:
                        return False
                below += item.values()
            elif kind is list:
                below += item
            elif kind not in _LEAVES:
                return False
        if not below:
            return True
        most -= len(below)
        if most < 0:
            return False
        level = below
    return False


def entry_bytes(value: Any) -> int:
    """The bytes `value` (plain data) takes in a cache file at most: its size in marshal's
    version 2, which writes every value in full (version 4, the file's, writes a string
    shorter or as a reference, never longer), so the sizes of a file's parts add up to no
    less than the file."""
    return len(marshal.dumps(value, 2))


# --- the modules a file depends on -----------------------------------------------------


def _package() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def imported_modules() -> list[str]:
    """The modules a cache file written now depends on (paths relative to the package's
    folder, sorted): every module of the grammar's package (`language/`: the grammar,
    its vocabulary, the shapes, listed without importing the grammar, whose import costs a
    run 90 ms when its entries came of a template) and the package's modules this run has
    imported (the request classes, the dice, the caches' own, and more)."""
    here = _package() + os.sep
    try:
        names = os.listdir(here + _LANGUAGE)
    except OSError:
        names = []
    found = {_LANGUAGE + os.sep + n for n in names if n.endswith(".py")}
    for name, module in list(sys.modules.items()):
        if name == "d20cli" or name.startswith("d20cli."):
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and file.startswith(here):
                found.add(file[len(here) :])
    return sorted(found)


#: Stamps by their modules, taken once a run: the two files of a run list the same
#: modules (50 stats: 100-150 µs).
_STAMPS: Bounded[tuple[str, ...], str] = declare(
    "request_cache._STAMPS",
    4,
    holds="the modules a cache file lists → their stamp",
    buys="the two files of a run list the same modules: 50 stats (100-150 µs) once",
).new()


def _stamp(modules: Sequence[str]) -> str:
    """The version of what the cache depends on: the format, and the sizes and
    modification times of `modules` (an upgrade or an edit rewrites them; importlib.metadata
    would cost 17 ms at start-up), first taken in this run."""
    key = tuple(modules)
    found = _STAMPS.get(key)
    if found is None:
        found = _STAMPS[key] = _stamp_now(modules)
    return found


def _stamp_now(modules: Sequence[str]) -> str:
    here = _package() + os.sep
    parts = [_FORMAT]
    for name in modules:
        try:
            st = os.stat(here + name)
            parts.append(f"{st.st_size}-{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return ",".join(parts)


def _module_list(raw: Any) -> list[str] | None:
    """A file's list of modules, if it is one (names of files in the package: the MAC
    says the file's writer was d20, and a stat reads nothing)."""
    if type(raw) is list and len(raw) <= MAX_MODULES and all(type(n) is str for n in raw):
        return raw
    return None


# --- the file ------------------------------------------------------------------------------


class CacheFile:
    """A cache file of one run (after its MAC, marshal's data: the `stamp` of the `modules`
    it depends on and a table of entries under SECTION): read on first use, written once
    at the end if it changed. A file that is too big, fails the MAC, is not marshal's data,
    is not such a cache (its head and table plain data of the right kinds), or holds an
    entry that is not plain data (`_entry`) or that `_bad_entries` finds wrong, is dropped
    as a whole (rebuilt at the end of the run), told only to the debug log; a file written
    by other modules is quietly replaced."""

    NAME = "cache"  # as the debug log names it
    SECTION = "entries"  # the file's table of entries
    RETIRED = ""  # the file of an older format beside it, removed when this one is first written

    def __init__(self, path: str | None, debug: Callable[[str], None] = debug) -> None:
        self.path = path
        self.debug = debug
        self._entries: dict[str, Any] | None = None
        self._dirty = False
        self._first = False  # no file was there: the RETIRED one goes when it is written

    def _load(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = {}
            if self.path is not None:
                self._entries = self._read(self.path)
        return self._entries

    def _read(self, path: str) -> dict[str, Any]:
        try:
            raw_bytes = read_bytes(path, MAX_CACHE_FILE_BYTES, "a cache file")
        except FileNotFoundError:
            self._first = True
            return {}  # none yet
        except OSError as err:
            if err.errno in (errno.EFBIG, errno.EINVAL):  # too big, or not a regular file
                return self._drop(err.strerror or str(err))
            return {}  # unreadable: then it cannot be replaced either
        key = cache_key()
        body = None if key is None else unsealed(raw_bytes, key)
        if body is None:
            return self._drop("it was not written by this user's d20 (its MAC does not match)")
        raw = loaded(body)  # (only bytes the MAC vouched for)
        if type(raw) is not dict:
            return self._drop("it is not a cache")
        modules = _module_list(raw.get("modules"))
        if modules is None:
            return self._drop("its modules are not a list of modules")
        stamp = raw.get("stamp")
        if type(stamp) is not str:
            return self._drop("its stamp is not a stamp")
        if stamp != _stamp(modules):
            self.debug(f"the {self.NAME} {path} is of other modules: it is replaced")
            return {}  # another version of the language: not an error
        entries = raw.get(self.SECTION)
        if (
            type(entries) is not dict
            or len(entries) > MAX_CACHE_ENTRIES
            or not all(type(k) is str for k in entries)
        ):
            return self._drop(f"its {self.SECTION} are not a cache")
        why = self._bad_entries(entries)
        return entries if why is None else self._drop(why)

    def _bad_entries(self, entries: dict[str, Any]) -> str | None:
        """Why the file's entries are not this cache's (None: they may be). It looks at
        their outer parts only, by their exact types: each entry is plain data once it is
        used (`_entry`)."""
        return None

    def _entry(self, key: str) -> Any:
        """The entry under `key`, or None: the file's entries are walked one at a time,
        before each is used (`plain`: the file's whole data at start-up would cost more
        than reading it), and one that is not plain data drops the file."""
        entry = self._load().get(key)
        if entry is None or plain(entry):
            return entry
        self._drop("an entry is not plain data")
        return None

    def _drop(self, why: str) -> dict[str, Any]:
        """Forget the whole file (it is rebuilt at the end of the run), told to the debug
        log only."""
        self.debug(f"the {self.NAME} {self.path} was dropped and is rebuilt: {why}")
        self._dirty = True
        self._entries = {}
        return self._entries

    def _remember(self, key: str, entry: Any) -> None:
        """Keep `entry` (plain data) under `key` as the most recent (the oldest go past
        MAX_CACHE_ENTRIES)."""
        entries = self._load()
        entries.pop(key, None)
        entries[key] = entry
        if len(entries) > MAX_CACHE_ENTRIES:  # the oldest go, in one linear pass
            kept = list(entries.items())[-MAX_CACHE_ENTRIES:]
            entries.clear()
            entries.update(kept)
        self._dirty = True

    def save(self) -> None:
        """Write the file if it changed (atomically; a failure is silently skipped: a
        cache that cannot be written only means the next start parses again): the most
        recent entries that fit in MAX_CACHE_FILE_BYTES, under this user's key (made if there
        is none). An entry read from the file and not used is written back as it was read
        (the MAC vouched that this user's d20 wrote it)."""
        if not self._dirty or self.path is None or self._entries is None:
            return
        self._dirty = False
        modules = imported_modules()
        head = {"stamp": _stamp(modules), "modules": modules}
        try:
            body = marshal.dumps({**head, self.SECTION: self._entries}, _MARSHAL)
            if len(body) > MAX_CACHE_FILE_BYTES - _HEAD_BYTES:
                newest = self._newest(head, self._entries)
                body = marshal.dumps({**head, self.SECTION: newest}, _MARSHAL)
            data = sealed(body, cache_key() or new_cache_key())
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            atomic_write(self.path, data)
        except (OSError, ValueError) as err:  # (ValueError: a value marshal cannot write)
            self.debug(f"the {self.NAME} {self.path} was not written: {err}")
            return
        if self._first and self.RETIRED:
            self._first = False
            try:
                os.unlink(os.path.join(os.path.dirname(self.path), self.RETIRED))
            except OSError:
                pass

    def _newest(self, head: dict[str, Any], entries: dict[str, Any]) -> dict[str, Any]:
        """The most recent of `entries` whose sizes (`entry_bytes`, each no less than it
        takes in the file) add up to what fits in MAX_CACHE_FILE_BYTES beside `head`: one
        linear pass, from the newest."""
        room = MAX_CACHE_FILE_BYTES - _HEAD_BYTES - entry_bytes({**head, self.SECTION: {}})
        kept: list[tuple[str, Any]] = []
        for key, data in reversed(entries.items()):
            room -= entry_bytes(key) + entry_bytes(data)
            if room < 0:
                break
            kept.append((key, data))
        return dict(reversed(kept))


class ParseCache(CacheFile):
    """The parsed requests by their text."""

    NAME = "parse cache"
    SECTION = "requests"
    RETIRED = "requests.json"

    def __init__(self, path: str | None, debug: Callable[[str], None] = debug) -> None:
        super().__init__(path, debug)
        self._classes: dict[str, type] | None = None

    def get(self, text: str) -> Any:
        if self.path is None:
            return None
        data = self._entry(text)
        if data is None:
            return None
        if self._classes is None:
            self._classes = classes()
        try:
            return decode(data, self._classes, text)
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as err:
            self._drop(f"an entry is not a request the grammar would give ({err})")
            return None

    def put(self, text: str, request: Any) -> None:
        if self.path is None:
            return
        try:
            data = encode(request)
            if entry_bytes(text) + entry_bytes(data) > MAX_ENTRY_BYTES:
                return
        except (TypeError, ValueError):  # (not this codec's, or nested past marshal's limit)
            return
        self._remember(text, data)
