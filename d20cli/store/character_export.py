"""`d20 char export NAME [--format toml|json|md]`: a character as a file of its own.

- `toml`: the character's table as the characters file keeps it (`[aria]`, its groups,
  macros and house keys; not the import's record), to paste into another
  characters.toml;
- `json`: the character as `d20 char show --json` gives it;
- `md`: a Markdown card to print or paste (a sheet for a game with no character tool of
  its own): the checks, saves, attacks and other entries in tables, the macros and the
  house rules. Text of the file is made visible (control characters) and the Markdown
  characters in it are escaped, so a cell never breaks the table or becomes a link.
"""

from __future__ import annotations

import re
from typing import Any

from d20cli.errors import ParseError
from d20cli.store.characters import Character
from d20cli.visible import visible

FORMATS = ("toml", "json", "md")
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~])")
#: The groups of the card, in order: group -> its heading.
_HEADINGS = {
    "checks": "Checks",
    "saves": "Saves",
    "attacks": "Attacks",
    "resists": "Defenses (resist)",
}


def export(character: Character, fmt: str) -> str:
    """The character in format `fmt` (ParseError for another format)."""
    if fmt not in FORMATS:
        raise ParseError(f"--format is toml, json or md, not {fmt[:20]!r}")
    if fmt == "json":
        import json

        return json.dumps(character.to_json(), indent=2)
    if fmt == "toml":
        return _toml(character)
    return _card(character)


def _toml(character: Character) -> str:
    import tomlkit

    doc = tomlkit.document()
    table = tomlkit.table()
    if character.system:
        table.add("system", character.system)
    for key, value in character.house.to_json().items():
        table.add(key, value)
    for key, words in character.entries.items():
        table.add(key, words)
    for group, entries in character.groups.items():
        sub = tomlkit.table()
        for key, words in entries.items():
            sub.add(key, words)
        table.add(group, sub)
    if character.macros:
        macros = tomlkit.table()
        for key, words in character.macros.items():
            macros.add(key, words)
        table.add("macros", macros)
    doc.add(character.name, table)
    return tomlkit.dumps(doc)


def _md(text: Any) -> str:
    return _MARKDOWN.sub(r"\\\1", visible(str(text)))


def _rows(title: str, rows: list[tuple[str, str]], head: str = "words") -> list[str]:
    if not rows:
        return []
    lines = ["", f"## {title}", "", f"| name | {head} |", "| --- | --- |"]
    lines += [f"| {_md(k)} | {_md(v)} |" for k, v in rows]
    return lines


def _card(character: Character) -> str:
    system = character.system or "any system"
    lines = [f"# {_md(character.name)}", "", f"System: {_md(system)}"]
    source = character.imported.get("format")
    if source:
        when = character.imported.get("date", "")
        from d20cli.importers import FORMATS

        kind = FORMATS.get(str(source), str(source))
        lines.append(f"Imported from a {_md(kind)} on {_md(when)}")
    facts = [
        f"{label} {character.imported[key]}"
        for key, label in (("level", "Level"), ("prof", "Proficiency"), ("ac", "AC"), ("hp", "HP"))
        if isinstance(character.imported.get(key), int)
    ]
    if facts:
        lines += ["", ", ".join(facts)]
    general = list(character.entries.items())
    for group, entries in character.groups.items():
        if group not in _HEADINGS:
            general += [(f"{group}.{k}", v) for k, v in entries.items()]
    for group, heading in _HEADINGS.items():
        lines += _rows(heading, list(character.groups.get(group, {}).items()))
    lines += _rows("Other entries", general)
    lines += _rows("Macros", list(character.macros.items()), "request")
    house = [(k, str(v).lower()) for k, v in character.house.to_json().items()]
    lines += _rows("House rules", house, "value")
    lines += ["", f"Roll as this character: `d20 check NAME --as {character.name}`"]
    return "\n".join(lines) + "\n"
