"""`d20 systems`: each rule system with its verbs, outcome tiers and an example per verb,
and the house rules its config table (and a character) may set by default."""

from __future__ import annotations

from typing import Any

from d20cli.language.vocabulary import SYSTEM_IDS
from d20cli.present.help_view import NAME_COLUMN, help_width, paragraph
from d20cli.present.output import Output
from d20cli.present.render import Line, badge


def systems_data() -> list[dict[str, Any]]:
    from d20cli.rules import get_system
    from d20cli.rules.house import offered_keys

    data = []
    for sid in SYSTEM_IDS:
        system = get_system(sid)
        data.append(
            {
                "id": system.id,
                "title": system.title,
                "aliases": list(system.aliases),
                "verbs": {
                    verb: {
                        "summary": summary,
                        "example": f"d20 {example} --system {system.id}",
                        **_own_names(system, verb),
                    }
                    for verb, (summary, example) in system.verbs.items()
                },
                "outcomes": {oid: label for oid, label in system.outcomes},
                "words": {word: meaning for word, meaning in system.words},
                "house_keys": list(offered_keys(system)),
            }
        )
    return data


def _own_names(system: Any, verb: str) -> dict[str, dict[str, str]]:
    """`{"outcomes": {id: name}}` for a verb that names its tiers its own way (levelup's
    attack: Fumble, Miss, Hit, Critical hit), else nothing."""
    if verb not in system.verb_outcomes:
        return {}
    return {"outcomes": system.outcome_names(verb)}


def _badges(pieces: list[Line], width: int, indent: int) -> list[Line]:
    """Badges side by side, a new line (indented) when the next one would not fit."""
    lines: list[Line] = []
    line: Line = []
    used = indent
    for piece in pieces:
        size = sum(len(t) for t, _ in piece)
        if line and used + 1 + size > width:
            lines.append(line)
            line, used = [], indent
        if line:
            line.append((" ", ""))
            used += 1
        elif lines:
            line.append((" " * indent, ""))
        line += piece
        used += size
    return [*lines, line] if line else lines


def _row(name: str, column: int, meaning: str, width: int, indent: int) -> list[Line]:
    """`name` in bold and its meaning, the meaning's wrapped lines under its first."""
    body = paragraph(meaning, width, indent + column)
    first: Line = [(" " * indent + name.ljust(column), "bold"), (body[0][indent + column :], "")]
    return [first, *([(text, "")] for text in body[1:])]


def systems_lines(only: str | None = None, width: int | None = None) -> list[Line]:
    """`d20 systems` (`only`: the one system with this id): each system, its outcome tiers,
    its words and its verbs with an example each, wrapped to `width` (the terminal's)."""
    width = width or help_width()
    lines: list[Line] = []
    for system in systems_data():
        if only is not None and system["id"] != only:
            continue
        if lines:
            lines.append([])
        head: Line = [(system["id"], "bold cyan"), (f"  {system['title']}", "bold")]
        if system["aliases"]:
            head.append((f"  (also: {', '.join(system['aliases'])})", "dim"))
        lines.append(head)
        tiers = [[badge(oid, f"{label} ({oid})")] for oid, label in system["outcomes"].items()]
        first = _badges([[("  outcomes:", "dim")], *tiers], width, 4)
        lines += first
        if system["words"]:
            lines.append([("  words:", "dim")])
            wide = min(max(len(w) for w in system["words"]), NAME_COLUMN) + 2
            for word, meaning in system["words"].items():
                lines += _row(word, wide, meaning, width, 4)
        if system["house_keys"]:
            keys = ", ".join(system["house_keys"])
            lines.append([("  house defaults: ", "dim"), (f"[{system['id']}] {keys}", "")])
            example = house_example(system["id"], system["house_keys"])
            lines.append([("    e.g. ", "dim"), (example, "cyan")])
        column = max(len(v) for v in system["verbs"]) + 2
        for verb, info in system["verbs"].items():
            lines += _row(verb, column, info["summary"], width, 2)
            for text in paragraph(f"e.g. {info['example']}", width, 2 + column, 4 + column):
                lines.append([(text[: 2 + column], ""), (text[2 + column :], "cyan")])
            if "outcomes" in info:
                pad = " " * (2 + column)
                names = [[badge(oid, name)] for oid, name in info["outcomes"].items()]
                lines += _badges([[(f"{pad}outcomes:", "dim")], *names], width, 4 + column)
    return lines


#: A value for each house key, for the example `d20 systems` gives.
_EXAMPLE_VALUES = {
    "crit-dmg": "max",
    "crit": "19",
    "lucky": "true",
    "min": "10",
    "group": "at-least-half",
}


def house_example(sid: str, keys: list[str]) -> str:
    """A `d20 config set` line for one of a system's house keys (also on its docs page)."""
    key = next(k for k in _EXAMPLE_VALUES if k in keys)
    return f"d20 config set {sid}.{key} {_EXAMPLE_VALUES[key]}"


def show_systems(out: Output, as_json: bool, only: str | None = None) -> None:
    """`d20 systems` (`only`: `d20 systems -s ID`, one system)."""
    if as_json:
        out.json([s for s in systems_data() if only is None or s["id"] == only])
    else:
        out.lines(systems_lines(only))
