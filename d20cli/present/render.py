"""Results as lines of styled text, for people.

A renderer returns `Line`s: lists of (text, style) segments, where a style is a rich style
string ("bold green", "dim strike") or "". The text alone must say everything (a dropped
die reads `~4~`, an exploded one `6!`), because pipes and NO_COLOR get the plain text;
on a terminal the same segments are printed in colour through rich (d20cli.present.output).
Rendering never decides rules: every outcome and label comes from a system."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from d20cli.results import Damage, DiceSummary, Die, Result

Seg = tuple[str, str]
Line = list[Seg]

# Outcome badges. Ids not listed get the neutral style.
_OUTCOME_STYLE = {
    "critical_success": "bold black on bright_green",
    "major_success": "bold black on green",
    "normal_success": "bold black on green",
    "success": "bold black on green",
    "limited_success": "bold black on yellow",
    "failure": "bold white on red",
    "critical_failure": "bold white on bright_red",
    "first_wins": "bold black on cyan",
    "second_wins": "bold black on magenta",
    "side_wins": "bold black on cyan",
    "tie": "bold black on white",
    "favorable": "bold black on green",
    "lucky": "bold black on green",
    "unfavorable": "bold white on red",
    "unlucky": "bold white on red",
}

_ROLE_NAMES = {
    "d20": "d20",
    "expertise": "expertise",
    "modifier": "mod dice",
    "damage": "damage",
    "tiebreak": "tie-break",
    "luck": "d20",
    "score": "",
    "roll": "",
}


def badge(outcome: str | None, label: str | None) -> Seg:
    text = label or (outcome or "").replace("_", " ").capitalize()
    return (f" {text} ", _OUTCOME_STYLE.get(outcome or "", "bold reverse"))


# A flag's mark after the face, in this order (a minimum/maximum both show as `*`).
_FLAG_MARKS = (
    ("exploded", "!"),
    ("penetrated", "p"),
    ("rerolled", "r"),
    ("min", "*"),
    ("max", "*"),
    ("success", "+"),
    ("failure", "-"),
    ("critical_success", "cs"),
    ("critical_failure", "cf"),
)


def die_text(d: Die) -> str:
    face = str(d.face) if d.sides != 3 or "fudge" not in d.flags else _fudge(d.face)
    face += "".join(mark for flag, mark in _FLAG_MARKS if flag in d.flags)
    if not d.kept:
        face = f"~{face}~"
    return face


def _fudge(face: int) -> str:
    return {-1: "-", 0: "0", 1: "+"}.get(face, str(face))


def die_style(d: Die) -> str:
    if not d.kept:
        return "dim strike"
    if "critical_success" in d.flags:
        return "bold green"
    if "critical_failure" in d.flags:
        return "bold red"
    if d.sides > 1 and d.face == d.sides and d.sides != 3:
        return "bold green"
    if d.sides > 1 and d.face == 1 and d.sides != 3:
        return "bold red"
    if "success" in d.flags:
        return "bold green"
    if "failure" in d.flags:
        return "red"
    return "bold"


def dice_segments(dice: Sequence[Die]) -> Line:
    """`17 ~4~` with each die styled; dice of different sizes get their size in front."""
    out: Line = []
    sizes = {d.sides for d in dice}
    last_sides = None
    for i, d in enumerate(dice):
        if i:
            out.append((" ", ""))
        if len(sizes) > 1 and d.sides != last_sides:
            out.append((f"d{d.sides if d.sides != 100 else '%'}:", "dim"))
        last_sides = d.sides
        out.append((die_text(d), die_style(d)))
    return out


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def _header(r: Result, system_tag: bool = True) -> Line:
    line: Line = [(r.request, "bold")]
    if system_tag:
        line.append((f"  [{r.system}]", "dim"))
    return line


def summary_segments(s: DiceSummary) -> Line:
    sides = "/".join(f"d{n}" for n in s.sides)
    line: Line = [(f"{s.count:,} dice ({sides}), {s.kept:,} kept; faces: ", "dim")]
    for i, (face, n) in enumerate(sorted(s.faces.items())):
        if i:
            line.append((" ", ""))
        line.append((f"{face}", "bold"))
        line.append((f"\u00d7{n:,}", "dim"))
    return line


def _roll_body(r: Result) -> Line:
    """`4d6kh3 (6 5 ~2~ 4) + 3  = 18`: each term of the expression with its dice."""
    line: Line = [("  ", "")]
    if r.dice_summary is not None:
        line.append((str(r.detail.get("expression", "")), "cyan"))
    elif r.tree is not None:
        line += tree_segments(r.tree)
    else:
        line += [(str(r.detail.get("expression", "")), "cyan"), (" (", "dim")]
        line += dice_segments(r.dice)
        line.append((")", "dim"))
    line.append(("  = ", ""))
    line.append((str(r.total), "bold yellow"))
    labels = r.detail.get("labels")
    if isinstance(labels, dict) and labels:
        parts = ", ".join(f"{k} {v}" for k, v in labels.items())
        line.append((f"  ({parts})", "dim"))
    return line


def tree_segments(node: Any, parent: int = 0) -> Line:
    """An evaluated expression (d20cli.dice) as segments: numbers as they are, each dice
    term as its notation followed by its dice in parentheses."""
    from d20cli.dice import evaluate as dice

    if isinstance(node, dice.EvalDice):
        term = node.expr
        text = str(term)
        out: Line = [(text, "cyan")]
        count = f"({term.count})"
        if node.count is not None and text.startswith(count):
            # `(1d4)d6`: the count's own dice too, `(1d4 (2))d6 (3 4)`
            out = [("(", "cyan"), *tree_segments(node.count), (text[len(count) - 1 :], "cyan")]
        out.append((" (", "dim"))
        out += dice_segments(node.term_dice())
        out.append((")", "dim"))
        return out
    if isinstance(node, dice.EvalNumber):
        return [(str(node.expr), "")]
    if isinstance(node, dice.EvalNeg):
        inner = tree_segments(node.operand, node.expr.precedence)
        return [("-", ""), *inner]
    if isinstance(node, dice.EvalArithmetic):
        p = node.expr.precedence
        out = tree_segments(node.first, p)
        for op, child in node.rest:
            out.append((f" {op} ", ""))
            out += tree_segments(child, p + 1)
        if p < parent:
            out = [("(", ""), *out, (")", "")]
        return out
    return [(str(getattr(node, "total", "")), "")]


def _check_body(r: Result) -> Line:
    """`d20 17 ~4~  expertise 3  +5  = 25 vs 15  Success`"""
    line: Line = [("  ", "")]
    by_role = itertools.groupby(r.dice, lambda d: d.role)  # consecutive dice of one role
    for i, (role, run) in enumerate(by_role):
        dice = list(run)
        if role == "damage":
            continue
        if i:
            line.append(("  ", ""))
        name = _ROLE_NAMES.get(role, role)
        if role == "expertise":
            name = f"expertise d{dice[0].sides}"
        if name:
            line.append((name + " ", "dim"))
        line += dice_segments(dice)
    dice_total = sum(d.face for d in r.dice if d.kept and d.role not in ("d20", "damage"))
    if r.modifier is not None and r.natural is not None:
        flat = r.modifier - dice_total
        if flat or not r.dice:
            line.append((f"  {_signed(flat)}", ""))
    if r.total is not None:
        line.append(("  = ", ""))
        line.append((str(r.total), "bold yellow"))
    if r.target is not None:
        line.append((f" vs {r.target}", ""))
    if r.outcome is not None:
        line.append(("  ", ""))
        line.append(badge(r.outcome, r.label))
    elif r.label:
        line.append((r.label if len(line) == 1 else f"  {r.label}", "bold"))
    return line


def _damage_line(dmg: Damage, mode: str | None = None) -> Line:
    line: Line = [("  damage ", "dim"), (dmg.expression, "cyan"), (" ", "")]
    if dmg.dice:
        line.append(("(", "dim"))
        line += dice_segments(dmg.dice)
        line.append((")", "dim"))
    line.append(("  = ", ""))
    line.append((str(dmg.total), "bold yellow"))
    if dmg.critical:
        how = {"double": "total doubled", "max": "dice at maximum"}.get(str(mode), "dice doubled")
        line.append((f"  critical: {how}", "bold magenta"))
    return line


def _detail_lines(r: Result) -> list[Line]:
    """A success-table row (`detail["row"]`: level -> "lo-hi" or "-"), short enough for 80
    columns: `adept: failure 1-4, limited 5-8, normal 9-14, major 15-18, critical 19-20`,
    a single face as one number, levels that cannot happen left out."""
    lines: list[Line] = []
    row = r.detail.get("row")
    rank = r.detail.get("rank")
    if isinstance(row, dict) and rank:
        line: Line = [(f"  {rank}: ", "dim")]
        shown = [(level, str(faces)) for level, faces in row.items() if faces != "-"]
        for i, (level, faces) in enumerate(shown):
            if i:
                line.append((", ", "dim"))
            lo, _, hi = faces.partition("-")
            style = "bold" if level == r.outcome else "dim"
            line.append((f"{str(level).split('_')[0]} {lo if lo == hi else faces}", style))
        lines.append(line)
    return lines


def member_name(m: Result) -> str:
    """What a group member or contest side is called in a table: its label word, else its
    modifier (members share the request's text, so that cannot name them)."""
    if m.name:
        return m.name
    if m.modifier is not None:
        return _signed(m.modifier)
    return ""


def _member_line(index: int, m: Result, width: int) -> Line:
    line: Line = [(f"  {index:>2}. ", "dim"), (member_name(m).ljust(width), "")]
    return line + _check_body(m)


def _side_lines(sides: Sequence[Result], winner: int | None) -> list[Line]:
    """A contest's sides, one a line: `first`/`second` of two; `side 1`, `side 2`, ... of
    more, the winner marked."""
    many = len(sides) > 2
    tag_width = len(f"side {len(sides)}") if many else 6
    width = max(len(member_name(s)) for s in sides)
    lines: list[Line] = []
    for n, side in enumerate(sides, start=1):
        tag = f"side {n}" if many else ("first", "second")[n - 1]
        line: Line = [(f"  {tag:<{tag_width}} ", "dim"), (member_name(side).ljust(width), "")]
        line += _check_body(side)
        if many and n == winner:
            line.append(("  winner", "bold green"))
        lines.append(line)
    return lines


def _tiebreak_lines(dice: Sequence[Die]) -> list[Line]:
    """The tie-break dice: `tie-break d20 15` for one die; a round of several sides' dice
    (each die `by` its side) on a line of its own: `tie-break d20  side 1: 7  side 3: 12`."""
    rounds: list[list[Die]] = []
    for d in dice:
        if not rounds or d.by is None or any(x.by == d.by or x.by is None for x in rounds[-1]):
            rounds.append([])
        rounds[-1].append(d)
    lines: list[Line] = []
    for dice_round in rounds:
        if dice_round[0].by is None:
            lines.append([("  tie-break d20 ", "dim"), *dice_segments(dice_round)])
            continue
        line: Line = [("  tie-break d20", "dim")]
        for d in dice_round:
            line += [(f"  {d.by}: ", "dim"), (die_text(d), die_style(d))]
        lines.append(line)
    return lines


def render_result(r: Result, header: bool = True) -> list[Line]:
    """The lines that show one result (`header=False`: without the request line, for the
    second and later results of a repeated request)."""
    lines: list[Line] = [_header(r)] if header else []
    if r.members is not None:
        width = max((len(member_name(m)) for m in r.members), default=0)
        lines += [_member_line(i + 1, m, width) for i, m in enumerate(r.members)]
        tail: Line = [("  ", "")]
        if r.target is not None:
            tail.append((f"vs {r.target}  ", ""))
        tail.append(badge(r.outcome, r.label))
        lines.append(tail)
    elif r.sides is not None:
        lines += _side_lines(r.sides, r.winner)
        lines += _tiebreak_lines([d for d in r.dice if d.role == "tiebreak"])
        lines.append([("  ", ""), badge(r.outcome, r.label)])
    elif r.scores is not None:
        for s in r.scores:
            line = [(f"  {s.ability:<4}", "dim")]
            for i, d in enumerate(s.dice):
                if i:
                    line.append((" ", ""))
                line.append((die_text(d), die_style(d)))
                if d.by:
                    line.append((f"({d.by})", "dim"))
            line += [
                ("  = ", ""),
                (f"{s.total:>2}", "bold yellow"),
                (f"  {_signed(s.modifier):>3}  ", ""),
                (s.rank, "bold"),
            ]
            lines.append(line)
    elif r.verb == "roll":
        lines.append(_roll_body(r))
        if r.dice_summary is not None:
            lines.append([("  ", ""), *summary_segments(r.dice_summary)])
    else:
        lines.append(_check_body(r))
    if r.damage is not None:
        lines.append(_damage_line(r.damage, r.detail.get("house", {}).get("crit-dmg")))
    lines += _detail_lines(r)
    lines += [[(f"  {note}", "italic dim")] for note in r.notes]
    return lines


def quiet_text(r: Result) -> str:
    """`-q`: the total, or the outcome where there is no total (and the winning side of a
    contest of three or more sides: `side_wins 3`)."""
    if r.total is not None:
        if r.damage is not None:
            return f"{r.total} {r.damage.total}"
        return str(r.total)
    if r.outcome:
        if r.sides is not None and len(r.sides) > 2 and r.winner is not None:
            return f"{r.outcome} {r.winner}"
        return r.outcome
    fortune = r.detail.get("fortune")
    return str(fortune) if fortune is not None else (r.label or "")


# The order outcomes are listed in (display only: worst first, then contests and luck).
_DISPLAY_ORDER = (
    "critical_failure",
    "failure",
    "limited_success",
    "normal_success",
    "success",
    "major_success",
    "critical_success",
    "first_wins",
    "tie",
    "second_wins",
    "side_wins",
    "unfavorable",
    "favorable",
    "unlucky",
    "lucky",
)


def _display_rank(outcome: str | None) -> int:
    return _DISPLAY_ORDER.index(outcome) if outcome in _DISPLAY_ORDER else len(_DISPLAY_ORDER)


@dataclass
class Tally:
    """A running count of outcomes and totals for `--repeat N --summary` (no result kept)."""

    request: str
    system: str
    verb: str
    rolls: int = 0
    counts: Counter[str | None] = field(default_factory=Counter)
    labels: dict[str | None, str | None] = field(default_factory=dict)
    total_sum: int = 0
    total_count: int = 0
    low: int | None = None
    high: int | None = None
    winners: Counter[int] = field(default_factory=Counter)  # contests of 3+ sides
    sides: int = 0  # how many sides those contests have

    def add(self, r: Result) -> None:
        many = r.sides is not None and len(r.sides) > 2
        if many and r.sides is not None:
            self.sides = max(self.sides, len(r.sides))
        self.add_many(r.outcome, r.label, r.total, 1, r.winner if many else None)

    def add_many(
        self,
        outcome: str | None,
        label: str | None,
        total: int | None,
        n: int,
        winner: int | None = None,
    ) -> None:
        """Count `n` results with this outcome and total (and, of a contest of three or
        more sides, this winning side)."""
        if not n:
            return
        self.rolls += n
        self.counts[outcome] += n
        self.labels.setdefault(outcome, label)
        if winner is not None:
            self.winners[winner] += n
            self.sides = max(self.sides, winner)
        if total is not None:
            self.total_sum += total * n
            self.total_count += n
            self.low = total if self.low is None else min(self.low, total)
            self.high = total if self.high is None else max(self.high, total)

    def mean(self) -> float | None:
        return self.total_sum / self.total_count if self.total_count else None

    def lines(self) -> list[Line]:
        n = self.rolls
        lines: list[Line] = [
            [(self.request, "bold"), (f"  [{self.system}]", "dim"), (f"  {n:,} rolls", "")]
        ]
        rows = sorted(self.counts.items(), key=lambda kv: _display_rank(kv[0]))
        names = {o: self.labels.get(o) or (o or "no outcome") for o, _ in rows}
        tags = [f"side {side} wins" for side in range(1, self.sides + 1)] if self.winners else []
        width = max((len(v) for v in (*names.values(), *(f"  {t}" for t in tags))), default=0)
        digits = max((len(f"{k:,}") for _, k in rows), default=0)
        for outcome, k in rows:
            label = names[outcome]
            lines.append(
                [
                    ("  ", ""),
                    badge(outcome, label),
                    (" " * (width - len(label)), ""),
                    (f"  {k:>{digits},}  {100 * k / n:5.1f}%", ""),
                ]
            )
        for side, tag in enumerate(tags, start=1):  # a contest of three or more sides
            k = self.winners[side]
            lines.append(
                [(f"    {tag:<{width - 2}}", ""), (f"  {k:>{digits},}  {100 * k / n:5.1f}%", "")]
            )
        mean = self.mean()
        if mean is not None:
            lines.append(
                [
                    ("  mean total ", "dim"),
                    (f"{mean:.2f}", "bold yellow"),
                    (f"  min {self.low}  max {self.high}", "dim"),
                ]
            )
        return lines

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "request": self.request,
            "system": self.system,
            "verb": self.verb,
            "rolls": self.rolls,
            "outcomes": {str(k) if k is not None else "null": v for k, v in self.counts.items()},
            "percent": {
                str(k) if k is not None else "null": round(100 * v / self.rolls, 3)
                for k, v in self.counts.items()
            },
            "mean": self.mean(),
            "min": self.low,
            "max": self.high,
        }
        if self.winners:
            out["winners"] = {str(n): self.winners[n] for n in range(1, self.sides + 1)}
        return out
