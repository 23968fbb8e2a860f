"""What happened: frozen dataclasses that the renderers (rich, JSON) read.

One `Result` shape serves every verb; a field a verb does not use stays None. Field names
follow the JSON contract in DESIGN.md, so `render_json` is a plain walk over them.
Renderers never decide rules: every outcome, label and flag is filled in by a system.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Die:
    """One die that was rolled.

    role: what the die was for: "d20", "expertise", "modifier", "damage", "tiebreak",
    "luck", "roll" (a plain expression), "score", ...
    flags: extra marks for the renderer: "exploded" (this die exploded: another was
    rolled after it), "rerolled" (rolled again: this face was replaced), "min"/"max"
    (raised/lowered by mi/ma), "success"/"failure" (dice pools).
    """

    sides: int
    face: int
    kept: bool = True
    role: str = "roll"
    label: str | None = None
    flags: tuple[str, ...] = ()
    by: str | None = None  # who rolled it (pendagger scores: "player 2", "narrator")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sides": self.sides,
            "face": self.face,
            "kept": self.kept,
            "role": self.role,
        }
        if self.label is not None:
            out["label"] = self.label
        if self.flags:
            out["flags"] = list(self.flags)
        if self.by is not None:
            out["by"] = self.by
        return out


@dataclass(frozen=True, slots=True)
class DiceSummary:
    """Stands in for the dice list when a roll has too many dice to list one by one."""

    count: int
    kept: int
    faces: dict[int, int]  # face -> how many dice show it (kept or not)
    sides: tuple[int, ...]  # the die sizes involved

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "kept": self.kept,
            "sides": list(self.sides),
            "faces": {str(k): v for k, v in sorted(self.faces.items())},
        }


@dataclass(frozen=True, slots=True)
class Damage:
    total: int
    dice: tuple[Die, ...]
    critical: bool
    expression: str  # the damage expression as rolled, e.g. "2d8+4" on a critical hit

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "dice": [d.to_json() for d in self.dice],
            "critical": self.critical,
            "expression": self.expression,
        }


@dataclass(frozen=True, slots=True)
class Score:
    """One pendagger ability score: who rolled which die, the dropped die, modifier, rank."""

    ability: str  # "1".."6" or an ability name
    dice: tuple[Die, ...]
    total: int
    modifier: int
    rank: str

    def to_json(self) -> dict[str, Any]:
        return {
            "ability": self.ability,
            "dice": [d.to_json() for d in self.dice],
            "total": self.total,
            "modifier": self.modifier,
            "rank": self.rank,
        }


@dataclass(frozen=True)
class Result:
    """The result of one request (one line of JSON)."""

    request: str
    system: str
    verb: str
    dice: tuple[Die, ...] = ()
    natural: int | None = None
    modifier: int | None = None
    total: int | None = None
    target: int | None = None
    outcome: str | None = None
    label: str | None = None  # the outcome's label: "Critical hit", "2 degrees of success"
    success: bool | None = None
    degree: int | None = None
    # Optional extras; None when the verb does not use them.
    name: str | None = None  # the label word of the request: "stealth"
    damage: Damage | None = None
    members: tuple[Result, ...] | None = None
    sides: tuple[Result, ...] | None = None
    scores: tuple[Score, ...] | None = None
    dice_summary: DiceSummary | None = None  # replaces `dice` for huge rolls
    detail: dict[str, Any] = field(default_factory=dict)
    """System-specific extras that go into JSON as they are (pendagger: "rank", "row";
    mm: "dc_name"; roll: "expression", "labels"; fortune: "fortune"). JSON-ready values."""
    tree: Any = None
    """For `roll`: the evaluated expression tree (d20cli.dice), which the rich renderer
    walks to show each term with its dice. Not part of JSON."""
    notes: tuple[str, ...] = ()  # human notes: "natural 20 below the DC: a plain failure"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "request": self.request,
            "system": self.system,
            "verb": self.verb,
            "dice": [d.to_json() for d in self.dice],
            "natural": self.natural,
            "modifier": self.modifier,
            "total": self.total,
            "target": self.target,
            "outcome": self.outcome,
            "label": self.label,
            "success": self.success,
            "degree": self.degree,
        }
        if self.name is not None:
            out["name"] = self.name
        if self.dice_summary is not None:
            out["dice_summary"] = self.dice_summary.to_json()
        if self.damage is not None:
            out["damage"] = self.damage.to_json()
        if self.members is not None:
            out["members"] = [m.to_json() for m in self.members]
        if self.sides is not None:
            out["sides"] = [s.to_json() for s in self.sides]
        if self.scores is not None:
            out["scores"] = [s.to_json() for s in self.scores]
        out.update(self.detail)
        if self.notes:
            out["notes"] = list(self.notes)
        return out
