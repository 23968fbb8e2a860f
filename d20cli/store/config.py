"""The config file, `$XDG_CONFIG_HOME/d20cli/config.toml` (default
`~/.config/d20cli/config.toml`): the default system, the colour choice and house-rule
defaults per system. Read here, and edited here or by hand: `d20 config set|unset`
checks the key and the value before anything is read, then changes the file under a
lock, keeping its comments and layout (tomlkit), and writes it atomically only when the
whole changed file is still a good config.

    system = "mm"            # the default system
    color = "auto"           # auto, always or never
    character = "aria"       # roll as this character unless --as says otherwise

    [levelup]                # house defaults for this system's rolls
    crit-dmg = "max"         # dice, double or max
    group = "at-least-half"  # more-than-half or at-least-half
    lucky = true
    crit = 19                # 2 to 20
    min = 10                 # 2 to 20

    [log]
    keep = 100000            # the roll log keeps the newest N rows (d20cli.store.rolllog)

    [post]                   # post rolls to a webhook (d20cli.app.posting)
    url = "https://..."      # the webhook: a secret (never shown in full; the file is 0600)
    only = "sealed"          # all (the default) or sealed: only a sealed session's rolls
    format = "auto"          # auto (discord for a Discord webhook, else json), discord, json

What beats what (the usual Unix order: the command line, then the environment, then the
file): the system is `--system`, else a character's own system (`--as`), else
`D20_SYSTEM`, else the file's `system`, else levelup. Colour: `--no-color`, then
`NO_COLOR`, then `FORCE_COLOR`, then the file's `color`, then whether the output is a
terminal. The character: `--as NAME` (`--as none`: none), else `D20_CHARACTER`, else the
file's `character` (`d20 char use NAME` sets it). A house word on the request beats the
character's, which beats the file's; a house default goes only where the system takes
the word (d20cli.rules.house).

A file that is not right (bad TOML, bad UTF-8, an unknown key, a value of the wrong type
or out of range, a key that means nothing in that system, a file over MAX_CONFIG_BYTES) is a
ParseError that names the file, the line and the key (a byte order mark at its start is
allowed; TOML nested too deeply is an error): every roll reports it, it is never
ignored. Reading is cheap when there is no file: one `stat`, and neither tomllib nor
tomlkit is imported; a file that is there is read with the standard library's tomllib,
once per change (its time and size).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from functools import partial

from d20cli.bounded import Bounded, declare
from d20cli.errors import D20Error, ParseError
from d20cli.frozen import field, frozen
from d20cli.store.files import no_such_file, xdg_dir
from d20cli.store.files import read_text as read_file_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_CONFIG_BYTES = 65_536  # a config file is a few lines; a bigger one is a mistake
COLOR_CHOICES: tuple[str, ...] = ("auto", "always", "never")
TOP_KEYS: tuple[str, ...] = ("system", "color", "character")
#: What `character` may hold: a character's name, `party`, or names with commas. (This
#: module's patterns are compiled where they are first used, by `re`'s own cache: the
#: four of them cost 0.6 ms of every start, and a start with no config file uses none.)
CHARACTER_VALUE = r"[A-Za-z0-9_][A-Za-z0-9_-]*(,[A-Za-z0-9_][A-Za-z0-9_-]*)*"
BOOL_WORDS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
LOG_TABLE = "log"  # the roll log's table: `keep = N`
LOG_KEEP = (1, 10**12)  # the rows `log.keep` (and `d20 log --prune --keep`) may keep
POST_TABLE = "post"  # posting rolls to a webhook: `url`, `only`, `format`
POST_ONLY: tuple[str, ...] = ("all", "sealed")
POST_FORMATS: tuple[str, ...] = ("auto", "discord", "json")
POST_KEYS: tuple[str, ...] = ("url", "only", "format")
MAX_URL = 2048  # characters of a webhook's URL


def config_path() -> str:
    return os.path.join(xdg_dir("XDG_CONFIG_HOME", ".config"), "d20cli", "config.toml")


@frozen
class Config:
    """What the config file says (all None, and no house defaults, when there is none).
    house: system id -> its house keys and values ({"crit-dmg": "max"})."""

    path: str
    exists: bool = False
    system: str | None = None
    color: str | None = None
    house: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    character: str | None = None
    log_keep: int | None = None  # `[log] keep`: the newest rows the roll log keeps
    post_url: str | None = None  # `[post] url`: the webhook rolls are posted to (a secret)
    post_only: str | None = None  # `[post] only`: all or sealed
    post_format: str | None = None  # `[post] format`: auto, discord or json

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "exists": self.exists,
            "system": self.system,
            "color": self.color,
            "character": self.character,
            "house": {sid: dict(keys) for sid, keys in self.house.items()},
            "log": {"keep": self.log_keep},
            "post": {
                "url": None if self.post_url is None else masked_url(self.post_url),
                "only": self.post_only,
                "format": self.post_format,
            },
        }


#: The files read, by path, with the (mtime, size, inode) they were read at: a file read
#: again unchanged is not parsed again (one `stat`).
_cache: Bounded[str, tuple[tuple[int, int, int], Config]] = declare(
    "config._cache",
    16,
    holds="path → the config file read, checked by `stat`",
    buys="`load_config`: 4.0 µs instead of 51 µs (x13)",
).new()


def load_config(path: str | None = None) -> Config:
    """The config file's settings, checked. No file: an empty Config, read with one
    `stat`. ParseError naming the file, line and key for anything wrong in it."""
    target = path or config_path()
    try:
        st = os.stat(target)
    except OSError as err:
        if no_such_file(err):
            return Config(target)
        raise ParseError(f"cannot read {target}: {err.strerror or err}") from None
    key = (st.st_mtime_ns, st.st_size, st.st_ino)
    hit = _cache.get(target)
    if hit is not None and hit[0] == key:
        return hit[1]
    config = check_text(read_text(target), target)
    _cache[target] = (key, config)
    return config


def read_text(target: str) -> str:
    """The file's text (d20cli.store.files.read_text): ParseError for a file that is not a
    regular file, is over MAX_CONFIG_BYTES, or is not UTF-8 (naming the line of the bad byte)."""
    return read_file_text(target, MAX_CONFIG_BYTES, "a config file")


_TOML_WHERE = r"\s*\(at line (\d+), column (\d+)\)\s*$"


def parse_text(text: str, target: str) -> dict[str, Any]:
    """The file's TOML, read by the standard library (ParseError with the line and column
    of a syntax error)."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        found = re.search(_TOML_WHERE, message)
        if found is None:
            raise ParseError(f"{target}: not TOML: {message}") from None
        what = message[: found.start()].strip()
        what = what[:1].lower() + what[1:]
        raise ParseError(
            f"{target}, line {found.group(1)}, column {found.group(2)}: {what}"
        ) from None
    except RecursionError:
        raise ParseError(f"{target}: not TOML: nested too deeply") from None


def check_text(text: str, target: str) -> Config:
    """The Config that `text` (the file at `target`) says; ParseError for anything wrong."""
    doc = parse_text(text, target)
    return _config(doc, text, target)


def _config(doc: Mapping[str, Any], text: str, target: str) -> Config:
    system: str | None = None
    color: str | None = None
    character: str | None = None
    log_keep: int | None = None
    post: dict[str, str] = {}
    house: dict[str, dict[str, Any]] = {}
    seen: dict[str, str] = {}
    for raw_key, value in doc.items():
        key = str(raw_key)

        def fail(problem: str, dotted: str = key) -> ParseError:
            return config_error(target, text, dotted, problem)

        if key == "system":
            system = _checked_system(value, fail)
        elif key == "color":
            color = _checked_choice(value, COLOR_CHOICES, "color", fail)
        elif key == "character":
            character = checked_character(value, fail)
        elif key == LOG_TABLE:
            log_keep = _log_table(value, text, target)
        elif key == POST_TABLE:
            post = _post_table(value, text, target)
        else:
            sid = _table_system(key, value, fail)
            if sid in seen:
                raise fail(f"{sid}'s house rules are already in [{seen[sid]}]")
            seen[sid] = key
            house[sid] = _house_table(sid, key, value, text, target)
    return Config(
        target,
        True,
        system,
        color,
        house,
        character,
        log_keep,
        post.get("url"),
        post.get("only"),
        post.get("format"),
    )


def _post_table(table: Any, text: str, target: str) -> dict[str, str]:
    """The `[post]` table: `url`, `only`, `format` (posting rolls to a webhook)."""
    if not isinstance(table, dict):
        raise config_error(
            target, text, POST_TABLE, f"must be a table ([post]), not {_shape(table)}"
        )
    out: dict[str, str] = {}
    for name, value in table.items():
        problem = post_problem(str(name), value)
        if problem is not None:
            raise config_error(target, text, f"{POST_TABLE}.{name}", problem)
        out[str(name)] = value.strip() if name == "url" else value.strip().lower()
    return out


def post_problem(key: str, value: Any) -> str | None:
    """What is wrong with `post.KEY` = `value` (None: it is right). The problem never
    shows a URL: it may be a secret."""
    if key not in POST_KEYS:
        return (
            "unknown key (the [post] table has url, the webhook; only, all or sealed; "
            "format, auto, discord or json)"
        )
    if key == "url":
        if not isinstance(value, str):
            return f"must be a webhook's URL in quotes, not {_shape(value)}"
        problem = url_problem(value)
        return None if problem is None else f"must be a webhook's URL: {problem}"
    choices = POST_ONLY if key == "only" else POST_FORMATS
    if not isinstance(value, str):
        return f"must be one of {', '.join(choices)} in quotes, not {_shape(value)}"
    if value.strip().lower() not in choices:
        return f"must be one of {', '.join(choices)}, not {value[:40]!r}"
    return None


def url_problem(url: str) -> str | None:
    """What is wrong with a webhook's URL (None: it is one d20 can post to): http or
    https, a host, printable ASCII with no spaces, at most MAX_URL characters. The
    answer never repeats the URL (a secret), only its scheme and host."""
    text = url.strip()
    if not text:
        return "it is empty"
    if len(text) > MAX_URL:
        return f"it is longer than {MAX_URL:,} characters"
    if not text.isascii() or not text.isprintable() or " " in text:
        return "it holds a space or a character that is not printable ASCII"
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return "it must start with https:// (or http://)"
    host = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    if "@" in host:
        return "a user name or password in it is not taken (the webhook's URL holds its key)"
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    port = host.rsplit(":", 1)[1] if ":" in host and not host.endswith("]") else ""
    if not name.strip("[]"):
        return "it has no host"
    if port and (not port.isdigit() or not 0 < int(port) < 65536):
        return "its port is not a number from 1 to 65,535"
    return None


def masked_url(url: str) -> str:
    """A webhook's URL as d20 shows it: its scheme and host, the rest (which holds the
    webhook's key) as `...`: `https://discord.com/...`."""
    scheme, sep, rest = url.strip().partition("://")
    host = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].rsplit("@", 1)[-1]
    if not sep or not host.isascii() or not host.isprintable():
        return "(a URL)"
    return f"{scheme.lower()}://{host[:80]}/..."


def _log_table(table: Any, text: str, target: str) -> int | None:
    """The `[log]` table: `keep`, the newest rows the roll log keeps."""
    if not isinstance(table, dict):
        raise config_error(target, text, LOG_TABLE, f"must be a table ([log]), not {_shape(table)}")
    for name, value in table.items():
        problem = log_problem(str(name), value)
        if problem is not None:
            raise config_error(target, text, f"{LOG_TABLE}.{name}", problem)
    keep = table.get("keep")
    return keep if isinstance(keep, int) else None


def log_problem(key: str, value: Any) -> str | None:
    """What is wrong with `log.KEY` = `value` (None: it is right)."""
    if key != "keep":
        return "unknown key (the [log] table has keep, the newest rows the roll log keeps)"
    lo, hi = LOG_KEEP
    if isinstance(value, bool) or not isinstance(value, int):
        return f"must be a whole number of rows, {lo} or more, not {_shape(value)}"
    if not lo <= value <= hi:
        return f"must be a whole number of rows from {lo:,} to {hi:,}, not {value:,}"
    return None


def checked_character(value: Any, fail: Any) -> str:
    """The `character` key's value: a character's name (or `party`, or names with
    commas), in quotes."""
    if not isinstance(value, str) or not re.fullmatch(CHARACTER_VALUE, value.strip()):
        shown = repr(value[:40]) if isinstance(value, str) else _shape(value)
        raise fail(f'must be a character\'s name in quotes (character = "aria"), not {shown}')
    return value.strip()


def _checked_system(value: Any, fail: Any) -> str:
    from d20cli.rules import system_id

    if not isinstance(value, str):
        raise fail(f'must be a system id in quotes (system = "levelup"), not {_shape(value)}')
    try:
        return system_id(value)
    except D20Error as err:
        raise fail(err.message) from None


def _checked_choice(value: Any, choices: tuple[str, ...], what: str, fail: Any) -> str:
    if not isinstance(value, str):
        raise fail(f"must be one of {', '.join(choices)} in quotes, not {_shape(value)}")
    if value.strip().lower() not in choices:
        raise fail(f"must be one of {', '.join(choices)}, not {value[:40]!r}")
    return value.strip().lower()


def _table_system(key: str, value: Any, fail: Any) -> str:
    from d20cli.rules import SYSTEM_IDS, system_id

    try:
        sid = system_id(key)
    except D20Error:
        sid = None
    if sid is None:
        tables = ", ".join(f"[{s}]" for s in SYSTEM_IDS)
        raise fail(
            f"unknown key (the keys are system, color, character, [log], [post] and a table per "
            f"system: {tables})"
        )
    if not isinstance(value, dict):
        raise fail(f"must be a table of house rules ([{sid}]), not {_shape(value)}")
    return sid


def _house_table(
    sid: str, key: str, table: Mapping[str, Any], text: str, target: str
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in table.items():
        dotted = f"{key}.{name}"
        problem = house_problem(sid, str(name), value)
        if problem is not None:
            raise config_error(target, text, dotted, problem)
        out[str(name)] = value.lower() if isinstance(value, str) else value
    return out


def house_problem(sid: str | None, key: str, value: Any) -> str | None:
    """What is wrong with house key `key` = `value` in system `sid`'s table (None: it is
    right): an unknown key, a key that means nothing in the system (not asked when `sid`
    is None: a character's keys), a bad value."""
    from d20cli.language.vocabulary import CRIT_DMG_MODES, GROUP_RULES, HOUSE_RANGE
    from d20cli.rules import get_system
    from d20cli.rules.house import HOUSE_KEYS, offered_keys

    if key not in HOUSE_KEYS:
        return f"unknown key (a system's house keys are {', '.join(HOUSE_KEYS)})"
    offered = offered_keys(get_system(sid)) if sid is not None else tuple(HOUSE_KEYS)
    if key not in offered:
        return f"{sid} has no {key} house rule (it has {', '.join(offered) or 'none'})"
    lo, hi = HOUSE_RANGE
    if key in ("crit", "min"):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be a whole number from {lo} to {hi}, not {_shape(value)}"
        if not lo <= value <= hi:
            return f"must be a whole number from {lo} to {hi}, not {value}"
        return None
    if key == "lucky":
        return None if isinstance(value, bool) else f"must be true or false, not {_shape(value)}"
    choices = CRIT_DMG_MODES if key == "crit-dmg" else GROUP_RULES
    if not isinstance(value, str):
        return f"must be one of {', '.join(choices)} in quotes, not {_shape(value)}"
    if value.strip().lower() not in choices:
        return f"must be one of {', '.join(choices)}, not {value[:40]!r}"
    return None


def _shape(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return f"a string ({value[:40]!r})"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return "a date or time"


def config_error(target: str, text: str, dotted: str, problem: str) -> ParseError:
    """`FILE, line N: KEY: PROBLEM` (the line where the key is written, when found)."""
    line = key_line(text, dotted)
    where = f"{target}, line {line}" if line is not None else target
    return ParseError(f"{where}: {dotted}: {problem}")


_HEADER = r"^\s*\[\s*([^\[\]]+?)\s*\]"
_KEY = (
    r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
    r"""(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)


def _dotted(words: str) -> tuple[str, ...]:
    parts = re.findall(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""", words)
    return tuple(p.strip("\"'") for p in parts)


def key_line(text: str, dotted: str) -> int | None:
    """The line (1-based) where the key `dotted` ("levelup.crit") is written in the TOML
    `text`, else where its table is, else None."""
    want = tuple(dotted.split("."))
    table: tuple[str, ...] = ()
    best: int | None = None
    for n, line in enumerate(text.splitlines(), 1):
        header = re.match(_HEADER, line)
        if header is not None:
            table = _dotted(header.group(1))
            if table == want[: len(table)] and best is None:
                best = n
            continue
        key = re.match(_KEY, line)
        if key is None:
            continue
        full = table + _dotted(key.group(1))
        if full == want:
            return n
        if best is None and full == want[: len(full)]:
            best = n
    return best


# --- what the rest of d20 asks ---------------------------------------------------------


def config_system() -> str | None:
    """The file's default system (None: none, or the file cannot be read: a roll then
    reports the error when it reads the house defaults)."""
    try:
        return load_config().system
    except D20Error:
        return None


def default_character() -> str | None:
    """Who a request is rolled as when it gives no --as: `D20_CHARACTER`, else the file's
    `character` (None: nobody, `D20_CHARACTER=none`, or a bad file, which the next roll
    reports)."""
    env = os.environ.get("D20_CHARACTER", "").strip()
    if env:
        return None if env.lower() == "none" else env
    try:
        return load_config().character
    except D20Error:
        return None


def color_choice() -> str | None:
    """The file's colour choice: auto, always, never (None: none, or a bad file, which
    the next roll reports)."""
    try:
        return load_config().color
    except D20Error:
        return None


def config_keys() -> list[str]:
    """Every key `d20 config set` takes (for help and completion): system, color,
    character, then SYSTEM.KEY for each house key that means something in that system,
    then log.keep."""
    from d20cli.rules import SYSTEM_IDS, get_system
    from d20cli.rules.house import offered_keys

    keys = list(TOP_KEYS)
    for sid in SYSTEM_IDS:
        keys += [f"{sid}.{key}" for key in offered_keys(get_system(sid))]
    return [*keys, f"{LOG_TABLE}.keep", *(f"{POST_TABLE}.{key}" for key in POST_KEYS)]


def parse_value(key: str, text: str) -> Any:
    """A value typed after `d20 config set KEY` as the TOML value it stands for: a whole
    number for crit, min and log.keep, true or false for lucky (also yes, no, on, off), else the
    text (lower case)."""
    leaf = key.rsplit(".", 1)[-1]
    word = text.strip()
    if leaf in ("crit", "min", "keep"):
        from d20cli.errors import ASCII_DIGITS

        if word and not word.strip(ASCII_DIGITS) and len(word) <= (13 if leaf == "keep" else 3):
            return int(word)
        return word
    if leaf == "lucky":
        return BOOL_WORDS.get(word.lower(), word)
    return word.lower() if leaf in ("color", "crit-dmg", "group", "only", "format") else word


# --- editing (`d20 config set|unset`) ------------------------------------------------

_KEY_FORMS = (
    "system, color, character, log.keep, post.url, post.only, post.format or SYSTEM.KEY "
    "(levelup.crit-dmg)"
)


def _split(key: str) -> tuple[str, str | None]:
    """(`system` | `color` | `character` | `log` | a system id, its key or None);
    ParseError naming the key when it is none of these."""
    from d20cli.rules import system_id

    parts = key.strip().split(".")
    if len(parts) == 1 and parts[0].lower() in TOP_KEYS:
        return parts[0].lower(), None
    try:
        sid = system_id(parts[0]) if parts[0] else None
    except D20Error:
        sid = parts[0].lower() if parts[0].lower() in (LOG_TABLE, POST_TABLE) else None
    if sid is None or len(parts) > 2 or (len(parts) == 2 and not parts[1]):
        raise ParseError(f"{key[:60]!r}: unknown key (the keys are {_KEY_FORMS})")
    return sid, parts[1].lower() if len(parts) == 2 else None


def checked_value(
    key: str, text: str, spell_character: Callable[[str], str]
) -> tuple[tuple[str, ...], Any]:
    """The path in the file and the TOML value of `d20 config set KEY TEXT`; ParseError
    naming the key for a bad key or value. `spell_character`: the names of a `character`
    value as the characters file spells them (see `set_key`)."""
    from d20cli.rules import system_id

    head, leaf = _split(key)
    if head in TOP_KEYS:
        value = parse_value(head, text)
        if head == "system":
            try:
                return ("system",), system_id(value)
            except D20Error as err:
                raise ParseError(f"system: {err.message}") from None
        if head == "character":
            checked_character(text, lambda problem: ParseError(f"character: {problem}"))
            return ("character",), spell_character(text.strip())
        if value not in COLOR_CHOICES:
            raise ParseError(f"color: must be one of {', '.join(COLOR_CHOICES)}, not {text[:40]!r}")
        return ("color",), value
    if leaf is None and head == LOG_TABLE:
        raise ParseError(f"{key}: give the key: log.keep N (the newest rows the roll log keeps)")
    if leaf is None and head == POST_TABLE:
        raise ParseError(f"{key}: give the key: post.url URL, post.only all|sealed, post.format")
    if leaf is None:
        raise ParseError(f"{key}: give a house key: {head}.KEY VALUE, e.g. {head}.lucky true")
    value = parse_value(leaf, text)
    check = (
        log_problem
        if head == LOG_TABLE
        else post_problem
        if head == POST_TABLE
        else partial(house_problem, head)
    )
    problem = check(leaf, value)
    if problem is not None:
        raise ParseError(f"{head}.{leaf}: {problem}")
    return (head, leaf), value


def _table_key(doc: Any, sid: str) -> str:
    """The key of system `sid`'s table in the document (written as its id or an alias)."""
    from d20cli.rules import system_id

    for key in doc:
        try:
            if system_id(str(key)) == sid:
                return str(key)
        except D20Error:
            continue
    return sid


def _problem(text: str | None, target: str) -> ParseError | None:
    """What is wrong with a config text (None: nothing, or no file)."""
    if text is None:
        return None
    try:
        check_text(text, target)
    except ParseError as err:
        return err
    return None


def _edit(change: Any, path: str | None = None) -> str | None:
    """Parse the file (tomlkit), apply `change(doc)` and write it atomically. A file
    that does not parse is an error, and so is a change that makes a good file bad (the
    file is not written). A file that had a problem is written when changed (one key
    fixed at a time); the problem still left, if any, is returned."""
    from pathlib import Path

    import tomlkit

    from d20cli.store.files import edit_lock, parse_for_edit, write_edit

    target = path or config_path()
    with edit_lock(Path(target)):
        text = read_text(target) if os.path.lexists(target) else None
        doc = parse_for_edit(text, Path(target)) if text is not None else tomlkit.document()
        before = _problem(text, target)
        change(doc)
        new = tomlkit.dumps(doc)
        after = _problem(new, target)
        if after is not None and before is None:
            raise ParseError(f"{after.message} (the file was not changed)")
        write_edit(Path(target), new)
    return None if after is None else after.message


def set_key(
    key: str, text: str, spell_character: Callable[[str], str], path: str | None = None
) -> tuple[str, Any, str | None]:
    """`d20 config set KEY VALUE`: the dotted key and the value written, and what is
    still wrong with the file (None: nothing). `spell_character` checks a `character`
    value against the characters file and spells it as the file does
    (d20cli.store.characters.config_value: the caller gives it, as this module is read
    by the characters module and does not read it)."""
    import tomlkit

    from d20cli.store.files import put_key

    where, value = checked_value(key, " ".join(text.split()), spell_character)

    def change(doc: Any) -> None:
        if len(where) == 1:
            doc[where[0]] = value  # tomlkit puts a new top-level key before the tables
            return
        name = _table_key(doc, where[0])
        table = doc.get(name)
        if table is None:
            table = tomlkit.table()
            if len(doc.body) > 0:
                doc.add(tomlkit.nl())
            doc.add(name, table)
        elif not isinstance(table, dict):
            raise ParseError(f"{name} is not a table in {path or config_path()}: fix the file")
        put_key(table, where[1], value)

    left = _edit(change, path)
    if where[0] == POST_TABLE:  # the file holds (or may hold) a webhook's key: private
        private_config(path or config_path())
    return ".".join(where), value, left


def private_config(path: str) -> None:
    """Make the config file (the file a link there points to) readable by its owner
    alone (0600): it holds a webhook's URL, a secret."""
    try:
        os.chmod(os.path.realpath(path), 0o600)
    except OSError as err:
        raise ParseError(f"cannot make {path} private (0600): {err.strerror or err}") from None


def unset_key(key: str, path: str | None = None) -> tuple[str, str | None]:
    """`d20 config unset KEY`: remove a key (`system`, `levelup.crit-dmg`) or a whole
    system's table (`levelup`); a key d20 does not know is removed too when the file has
    it (a way to fix the file). The key removed, and what is still wrong with the file
    (None: nothing). ParseError when the file does not have it."""
    unknown: ParseError | None = None
    try:
        head, leaf = _split(key)
    except ParseError as err:
        unknown = err
    if unknown is not None:
        left = _edit(lambda doc: _remove_raw(doc, key.strip().split("."), unknown), path)
        return key.strip(), left

    def change(doc: Any) -> None:
        if head in TOP_KEYS:
            if head not in doc:
                raise ParseError(f"{head}: not set in {path or config_path()}")
            del doc[head]
            return
        name = _table_key(doc, head)
        table = doc.get(name)
        if table is None or (
            leaf is not None and (not isinstance(table, dict) or leaf not in table)
        ):
            shown = head if leaf is None else f"{head}.{leaf}"
            raise ParseError(f"{shown}: not set in {path or config_path()}")
        if leaf is None:
            del doc[name]
        else:
            del table[leaf]

    left = _edit(change, path)
    return (head if leaf is None else f"{head}.{leaf}"), left


def _remove_raw(doc: Any, parts: list[str], err: ParseError) -> None:
    """Remove the key at `parts` as written in the file, else raise `err`."""
    table = doc
    for part in parts[:-1]:
        table = table.get(part) if isinstance(table, dict) else None
    if not isinstance(table, dict) or parts[-1] not in table:
        raise err
    del table[parts[-1]]
