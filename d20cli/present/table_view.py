"""Roll tables for people: a roll (from its Result, so a roll read back from JSON shows the
same), a table's entries (`table show`), the list of tables, and the odds.

Every piece of text from a table file goes into a Line segment, which Output shows with
its control characters made visible and never as rich markup (d20cli.present.output)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from d20cli.language.tables import Table
from d20cli.number_format import percent
from d20cli.present.render import (
    Line,
    badge,
    dice_segments,
    render_result,
    sealed_lines,
    summary_segments,
)
from d20cli.probability.tables import RollOdds, TableOdds
from d20cli.results import DiceSummary, Die, Result

ARROW = " \u2192 "


def _dice(items: Sequence[Mapping[str, Any]]) -> list[Die]:
    return [Die.from_json(dict(d)) for d in items]


def table_lines(result: Result, header: bool = True) -> list[Line]:
    """One roll of a table: its text, then the die and the entry it picked, then every
    roll in the text, nested ones indented."""
    lines: list[Line] = []
    if header:
        lines.append([(result.request, "bold"), (f"  [{result.system}]", "dim")])
    detail = result.detail
    lines.append([("  ", ""), (str(detail.get("text", "")), "bold")])
    lines += _rolled(detail, 1)
    lines += [[(f"  {note}", "italic dim")] for note in result.notes]
    lines += sealed_lines(result)
    return lines


def _die_line(detail: Mapping[str, Any], indent: str, name: str | None = None) -> Line:
    line: Line = [(indent, "")]
    if name is not None:
        line.append((f"table {name}: ", "bold"))
    line += [(str(detail.get("die", "")), "cyan"), (" (", "dim")]
    many = detail.get("roll_dice_summary")
    if isinstance(many, Mapping):
        line += summary_segments(DiceSummary.from_json(dict(many)))
    else:
        line += dice_segments(_dice(detail.get("roll_dice", ())))
    line += [(")", "dim"), ("  = ", ""), (str(detail.get("roll", "")), "bold yellow")]
    line += [(ARROW, "dim"), (f"entry {detail.get('entry', '')}", "")]
    return line


def _rolled(detail: Mapping[str, Any], depth: int) -> list[Line]:
    indent = "  " * depth
    lines = [_die_line(detail, indent)]
    for item in detail.get("nested", ()):
        kind = item.get("kind")
        inner = indent + "  "
        if kind == "table":
            head = _die_line(item, inner, str(item.get("table", "")))
            head += [(": ", ""), (str(item.get("text", "")), "bold")]
            lines.append(head)
            lines += _rolled(item, depth + 1)[1:]
        elif kind == "dice":
            line: Line = [(inner, ""), (str(item.get("expression", "")), "cyan"), (" (", "dim")]
            many = item.get("dice_summary")
            if isinstance(many, Mapping):
                line += summary_segments(DiceSummary.from_json(dict(many)))
            else:
                line += dice_segments(_dice(item.get("dice", ())))
            line += [(")", "dim"), ("  = ", ""), (str(item.get("total", "")), "bold yellow")]
            lines.append(line)
        elif kind == "request":
            lines.append([(inner, ""), (str(item.get("request", "")), "cyan")])
            sub = Result.from_json(dict(item.get("result", {})))
            for sub_line in render_result(sub, header=False):
                lines.append([(inner, ""), *sub_line])
    return lines


def quiet_table(result: Result) -> str:
    return str(result.detail.get("text", ""))


def show_lines(table: Table) -> list[Line]:
    """`table show NAME`: the die (or the weights), the system, each entry as written."""
    head: Line = [(f"table {table.name}", "bold"), (f"  {table.source}", "dim")]
    lines: list[Line] = [head]
    if table.title:
        lines.append([("  ", ""), (table.title, "italic")])
    kind = "weighted: rolled as " if table.weighted else "die "
    about = f"  {kind}{table.die}"
    if table.system:
        about += f", system {table.system}"
    lines.append([(about, "dim")])
    width = max(len(e.key) for e in table.entries)
    for entry in table.entries:
        line: Line = [(f"  {entry.key:>{width}}  ", "cyan")]
        if entry.weight is not None:
            line.append((f"weight {entry.weight}  ", "dim"))
        line.append((entry.text, ""))
        lines.append(line)
    return lines


def list_lines(rows: Sequence[tuple[str, str, str]]) -> list[Line]:
    """`table list`: name, die and title (or what is wrong) of each table."""
    if not rows:
        return []
    width = max(len(name) for name, _, _ in rows)
    return [
        [(f"{name:<{width}}  ", "bold"), (f"{die:<8}", "cyan"), (about, "")]
        for name, die, about in rows
    ]


def odds_lines(odds: TableOdds) -> list[Line]:
    """`odds table NAME`: each entry's chance, and under it what each roll gives."""
    lines: list[Line] = [
        [
            (f"odds table {odds.name}", "bold"),
            (f"  {odds.die}", "cyan"),
            (f"  [{odds.system}]", "dim"),
        ]
    ]
    lines += _entries(odds, "  ")
    return lines


def _pct(p: Fraction) -> str:
    return percent(p, 2, 7)


def _entries(odds: TableOdds, indent: str) -> list[Line]:
    lines: list[Line] = []
    width = max(len(e.key) for e in odds.entries)
    for entry in odds.entries:
        line: Line = [
            (indent, ""),
            (f"{entry.key:>{width}}", "cyan"),
            (f"  {_pct(entry.chance)}", "bold"),
        ]
        if entry.overall != entry.chance:
            line.append((f" ({percent(entry.overall, 2)} in all)", "dim"))
        line += [("  ", ""), (entry.text, "")]
        lines.append(line)
        for roll in entry.rolls:
            lines += _roll(roll, entry.overall, indent + " " * (width + 2))
    return lines


def _roll(roll: RollOdds, overall: Fraction, indent: str) -> list[Line]:
    if roll.kind == "table" and roll.table is not None:
        head: Line = [
            (indent, ""),
            (f"table {roll.table.name}", "bold"),
            (f"  {roll.table.die}", "cyan"),
        ]
        return [head, *_entries(roll.table, indent + "  ")]
    lines: list[Line] = [[(indent, ""), (f"{{{roll.body}}}", "cyan")]]
    if roll.kind == "dice":
        width = max(len(str(t)) for t in roll.totals)
        for total, p in sorted(roll.totals.items()):
            lines.append(
                [
                    (f"{indent}  {total:>{width}}", "bold"),
                    (f"  {_pct(p)}", ""),
                    (f"  ({percent(p * overall, 2)} in all)", "dim"),
                ]
            )
    else:
        labels = {o: roll.labels.get(o, o.replace("_", " ")) for o in roll.outcomes}
        width = max((len(label) for label in labels.values()), default=0)
        for outcome, p in roll.outcomes.items():
            label = labels[outcome]
            lines.append(
                [
                    (f"{indent}  ", ""),
                    badge(outcome, label),
                    (" " * (width - len(label)), ""),
                    (f"  {_pct(p)}", ""),
                    (f"  ({percent(p * overall, 2)} in all)", "dim"),
                ]
            )
    return lines
