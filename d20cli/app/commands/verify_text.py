"""Whether a sealed row's request text spells the request it rolled (`d20 verify`,
d20cli.app.commands.verify): no control or bidi character, and parsed with no characters file or
config it is the row's `replay`, but for what a text cannot show.

The grammar reads a request at roughly 100-250 microseconds a character, so what verify
has it read is counted (`Texts`), at most MAX_PARSED characters in all, PARSE_COST more
for each text: each different request text once, and each different set of tables a
table roll keeps once, counted as the characters of its `{...}` rolls (which the grammar
reads) and a TABLE_TEXT-th of the rest (TOML, read far faster). An export that needs more
is refused (OverBudget, exit status 2), whatever its size up to the 64 MiB verify reads.
An evening's rolls repeat a few requests, and need a small part of it."""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from d20cli.app.commands.verify_files import shown
from d20cli.errors import D20Error, ParseError
from d20cli.visible import visible

if TYPE_CHECKING:
    from d20cli.language.tables import Table

#: Fields a house rule may put into a request where its text gives none (d20cli.rules.house);
#: the row's `house`, which the seed's roll is compared with, names them.
HOUSE_FIELDS = frozenset(("crit", "lucky", "floor", "crit_dmg", "rule"))
#: Fields of the request rolled that its text does not decide (where its words are; the
#: text of a member, which is the request's own; where an entry's or a house default's
#: words came from, for the output).
NOT_TEXT = frozenset(("columns", "text", "entry", "house_from"))
#: What a typed label with no value of its own may be merged with: the character's entry
#: (d20cli.language.character_entries): these are the fields that say it has a value of its own.
VALUES = ("modifier", "rank", "score")
MAX_PARSED = 100_000  # characters one verify has the grammar read (module doc)
PARSE_COST = 16  # characters counted for each text parsed, besides its own
TABLE_TEXT = 64  # characters of a table's text counted as one, but for its `{...}` rolls
_ROLLS = re.compile(r"\{[^{}]*+\}")  # a `{...}` roll in an entry (possessive: linear)


class OverBudget(ParseError):
    """An export whose texts would take more parsing than verify does (MAX_PARSED)."""


class Texts:
    """What one verify parses: each different request text (its parse cache JSON, or the
    parser's message) and each different set of tables (by the hash of their text) once,
    counted against MAX_PARSED. `row`: the row being checked, for the message."""

    def __init__(self) -> None:
        self.left = MAX_PARSED
        self.row = 0
        self._parsed: dict[str, Any] = {}
        self._tables: dict[bytes, dict[str, Table]] = {}

    def _count(self, size: int) -> None:
        self.left -= size + PARSE_COST
        if self.left < 0:
            raise OverBudget(
                f"row {self.row} of the export: its request texts and tables hold more than "
                f"{MAX_PARSED:,} characters for verify to parse (each different one "
                "once; an evening's rolls hold far fewer): refused"
            )

    def parsed(self, text: str) -> Any:
        """The parse cache's JSON of `text` parsed, or the parser's error message (str)."""
        from d20cli.language.grammar import parse_request
        from d20cli.language.parse_cache import encode

        found = self._parsed.get(text)
        if found is None:
            self._count(len(text))
            try:
                found = encode(parse_request(text))
            except D20Error as err:
                found = err.message
            except RecursionError:
                found = "nested too deeply"
            self._parsed[text] = found
        return found

    def tables(self, root: str, files: dict[str, str]) -> dict[str, Table]:
        """The tables a table roll's replay keeps (d20cli.app.sealed.read_tables), read
        once for each different text of them."""
        from d20cli.app.sealed import read_tables

        key = hashlib.sha256(json.dumps([root, files], sort_keys=True).encode()).digest()
        found = self._tables.get(key)
        if found is None:
            self._count(sum(_table_cost(text) for text in files.values()))
            found = self._tables[key] = read_tables(root, files)
        return found


def _table_cost(text: str) -> int:
    """What reading a table's text counts: its `{...}` rolls, and a TABLE_TEXT-th of it."""
    return sum(len(roll) for roll in _ROLLS.findall(text)) + len(text) // TABLE_TEXT


def text_problem(row: dict[str, Any], texts: Texts) -> str | None:
    """Why the row's request text is not a true spelling of the request rolled (None: it
    is): the text must hold no control or bidi character and must parse, with no
    character file or config, into the request rolled, but for what the text cannot
    show: house rules (the row's `house` names them), and a character's entries where
    the text names them (a label a party member rolled, a name in an expression).

    A roll made as a character shows each entry's words after its label, and such a text
    need not parse alone (`check stealth +7 vs 12 vs 15`: the entry's target loses to the
    request's own; `group stealth +7 vs 12, ...`: members' targets). Its text is then
    only held to having no control characters; its receipt binds it to what was shown.
    A table or initiative roll's replay keeps its text, which must be the row's."""
    from d20cli.visible import CONTROLS

    text = row["request"]
    if any(ord(c) in CONTROLS for c in text):
        return f"its request text holds control or bidi characters ({shown(text)}): refused"
    from d20cli.app.commands.sealed_init import INIT_REPLAY
    from d20cli.app.sealed import TABLE_REPLAY

    replay = row["replay"]
    if isinstance(replay, dict) and replay.get("@") in (TABLE_REPLAY, INIT_REPLAY):  # its text
        if replay.get("text") == text:  # (in its replay, which verify rolls again)
            return None
        return f"its request text {shown(text)} is not the request rolled ({replay['@']})"
    typed = texts.parsed(text)
    if isinstance(typed, str):
        if row["character"] is not None:  # the entries' words shown in it (see the doc)
            return None
        return f"its request text is not a request ({visible(typed)[:80]}): refused"
    where = _disagree(typed, row["replay"], row["character"] is not None, "")
    if where is None:
        return None
    return (
        f"its request text {shown(text)} is not the request rolled (they differ at "
        f"{visible(where.lstrip('.'))[:60] or 'its kind'})"
    )


def _disagree(typed: Any, rolled: Any, character: bool, path: str) -> str | None:
    """Where the parsed text `typed` and the request `rolled` (parse cache JSON) differ
    (None: nowhere, but for what _text_problem allows). `character`: rolled as one."""
    if isinstance(typed, dict) and isinstance(rolled, dict):
        if "@t" in typed and "@t" in rolled:
            return _disagree_items(typed["@t"], rolled["@t"], character, path)
        kind = typed.get("@")
        if character and kind == "Ref":
            return None  # a name in an expression: the character's entry gave its value
        entry = character and kind == "CheckRequest" and not any(v in typed for v in VALUES)
        if kind != rolled.get("@"):
            return path
        for key in typed.keys() | rolled.keys():
            if key in NOT_TEXT or (key not in typed and (key in HOUSE_FIELDS or entry)):
                continue
            found = _disagree(typed.get(key), rolled.get(key), character, f"{path}.{key}")
            if found is not None:
                return found
        return None
    same = type(typed) is type(rolled) and typed == rolled
    return None if same else path


def _disagree_items(typed: list[Any], rolled: list[Any], character: bool, path: str) -> str | None:
    if character and len(typed) == 1 and len(rolled) > 1 and path.endswith(".members"):
        typed = typed * len(rolled)  # `group stealth vs 12 --as aria,bob`: one each
    if len(typed) != len(rolled):
        return path
    for i, (a, b) in enumerate(zip(typed, rolled, strict=True)):
        found = _disagree(a, b, character, f"{path}[{i}]")
        if found is not None:
            return found
    return None
