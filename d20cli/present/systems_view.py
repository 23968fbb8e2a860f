"""`d20 systems`: each rule system with its verbs, outcome tiers and an example per verb,
and the house rules its config table (and a character) may set by default."""

from __future__ import annotations

from typing import Any

from d20cli.language.vocabulary import SYSTEM_IDS
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
                    verb: {"summary": summary, "example": f"d20 {example} --system {system.id}"}
                    for verb, (summary, example) in system.verbs.items()
                },
                "outcomes": {oid: label for oid, label in system.outcomes},
                "words": {word: meaning for word, meaning in system.words},
                "house_keys": list(offered_keys(system)),
            }
        )
    return data


def systems_lines() -> list[Line]:
    lines: list[Line] = []
    for i, system in enumerate(systems_data()):
        if i:
            lines.append([])
        head: Line = [(system["id"], "bold cyan"), (f"  {system['title']}", "bold")]
        if system["aliases"]:
            head.append((f"  (also: {', '.join(system['aliases'])})", "dim"))
        lines.append(head)
        tiers: Line = [("  outcomes: ", "dim")]
        for j, (oid, label) in enumerate(system["outcomes"].items()):
            if j:
                tiers.append((" ", ""))
            tiers.append(badge(oid, f"{label} ({oid})"))
        lines.append(tiers)
        if system["words"]:
            lines.append([("  words:", "dim")])
            wide = max(len(w) for w in system["words"])
            for word, meaning in system["words"].items():
                lines.append([(f"    {word:<{wide}}  ", "bold"), (meaning, "")])
        if system["house_keys"]:
            keys = ", ".join(system["house_keys"])
            lines.append(
                [
                    ("  house defaults: ", "dim"),
                    (f"[{system['id']}] {keys}", ""),
                    ("  e.g. ", "dim"),
                    (_house_example(system["id"], system["house_keys"]), "cyan"),
                ]
            )
        width = max(len(v) for v in system["verbs"])
        for verb, info in system["verbs"].items():
            lines.append(
                [
                    (f"  {verb:<{width}}  ", "bold"),
                    (info["summary"], ""),
                    ("  e.g. ", "dim"),
                    (info["example"], "cyan"),
                ]
            )
    return lines


#: A value for each house key, for the example `d20 systems` gives.
_EXAMPLE_VALUES = {
    "crit-dmg": "max",
    "crit": "19",
    "lucky": "true",
    "min": "10",
    "group": "at-least-half",
}


def _house_example(sid: str, keys: list[str]) -> str:
    key = next(k for k in _EXAMPLE_VALUES if k in keys)
    return f"d20 config set {sid}.{key} {_EXAMPLE_VALUES[key]}"


def show_systems(out: Output, as_json: bool) -> None:
    if as_json:
        out.json(systems_data())
    else:
        out.lines(systems_lines())
