"""Odds what-ifs for people (d20cli.probability.sweep): a sweep as a table, a row per
point (the chance of each tier, of success or better, the expected damage, and a bar);
sweeps compared side by side with the points where one overtakes another; `--csv` and
`-q` of a sweep."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from d20cli.number_format import percent
from d20cli.present.odds_view import BAR, MIN_BAR, NAMES, _bar, success_row
from d20cli.present.render import Line
from d20cli.probability.model import NO_OUTCOME
from d20cli.probability.sweep import Sweep, break_even

#: The narrowest column of a chance (`100.00%` and a space either side).
CELL = 9


def _head(s: Sweep) -> Line:
    return [(f"odds {s.request}", "bold"), (f"  [{s.system}]", "dim")]


def _better(s: Sweep) -> str | None:
    """The name of the column of success or better: the first point's that has one."""
    for _, odds in s.points:
        row = success_row(odds)
        if row is not None:
            return row[0]
    return None


def sweep_lines(s: Sweep, width: int | None = None) -> list[Any]:
    """A table: the swept number, each tier's chance, success or better (where tiers
    spread it), the expected damage (an attack with damage), and a bar of the chance of
    success (of the expected damage against its most, when there is no success); the bar
    shorter on a narrow terminal, and none below MIN_BAR columns."""
    tiers = s.tiers()
    labels = s.labels()
    better = _better(s)
    names = [labels.get(k, k.replace("_", " ")) if k != NO_OUTCOME else "none" for k in tiers]
    names += [better] if better else []
    names += ["damage"] if s.has_damage else []
    widths = [max(CELL, len(n) + 2) for n in names]
    first = max(len(s.span.over), *(len(_value(s, v)) for v, _ in s.points)) + 2
    head = f"{s.span.over:>{first}}" + "".join(
        f"{n:>{w}}" for n, w in zip(names, widths, strict=True)
    )
    lines: list[Line] = [_head(s), [(head, "dim")]]
    used = len(head)
    bar = BAR if width is None else min(BAR, width - used - 2)
    top = max((float(o.damage_mean or 0) for _, o in s.points), default=0.0)
    for value, odds in s.points:
        cells = [
            percent(odds.outcomes.get(k, Fraction(0)), width=w)
            for k, w in zip(tiers, widths, strict=False)
        ]
        rest = widths[len(tiers) :]
        if better:
            cells.append(percent(odds.success or Fraction(0), width=rest.pop(0)))
        if s.has_damage:
            cells.append(f"{float(odds.damage_mean or 0):>{rest.pop(0)}.3f}")
        line: Line = [(f"{_value(s, value):>{first}}", "bold"), ("".join(cells), "")]
        if bar >= MIN_BAR:
            if s.has_success:
                fill = float(odds.success or 0)
            else:
                fill = float(odds.damage_mean or 0) / top if top else 0.0
            line += [("  ", ""), (_bar(Fraction(fill), bar), "green")]
        lines.append(line)
    notes = {n for _, o in s.points for n in o.notes}
    lines += [[(f"  {note}", "italic dim")] for note in sorted(notes)]
    return lines


def _value(s: Sweep, value: int) -> str:
    return f"{value:+d}" if s.span.signed else str(value)


def sweep_csv(s: Sweep) -> str:
    """`--csv`: a header (the swept number, each tier's id, `any_success` and `damage_mean`
    where they are) and a row per point, the chances as decimal probabilities."""
    tiers = s.tiers()
    head = [s.span.over.lower(), *tiers]
    head += ["any_success"] if s.has_success else []
    head += ["damage_mean"] if s.has_damage else []
    rows = [",".join(head)]
    for value, odds in s.points:
        cells = [str(value), *(repr(float(odds.outcomes.get(k, Fraction(0)))) for k in tiers)]
        if s.has_success:
            cells.append(repr(float(odds.success or 0)))
        if s.has_damage:
            cells.append(repr(float(odds.damage_mean or 0)))
        rows.append(",".join(cells))
    return "\n".join(rows)


def sweep_quiet(s: Sweep) -> str:
    """`-q`: a line per point, the number then each tier as `ID PROBABILITY`."""
    tiers = s.tiers()
    return "\n".join(
        " ".join([_value(s, v), *(f"{k} {float(o.outcomes.get(k, Fraction(0)))!r}" for k in tiers)])
        for v, o in s.points
    )


def compare_sweep_lines(sweeps: list[Sweep], width: int | None = None) -> list[Any]:
    """Sweeps side by side: per point, what each weighs (expected damage, else the chance
    of success), with two of them the difference B-A (in percentage points for chances),
    and a bar of each; then where the lead changes (the break-even DC or AC)."""
    styles = ("bold cyan", "bold magenta", "bold yellow", "bold green", "bold blue")
    names = [NAMES[i % len(NAMES)] for i in range(len(sweeps))]
    lines: list[Line] = [
        [(f"{n} ", styles[i % len(styles)]), (s.request, "bold"), (f"  [{s.system}]", "dim")]
        for i, (n, s) in enumerate(zip(names, sweeps, strict=True))
    ]
    damage = sweeps[0].has_damage
    over = sweeps[0].span.over
    first = max(len(over), *(len(_value(sweeps[0], v)) for v, _ in sweeps[0].points)) + 2
    two = len(sweeps) == 2
    lines.append([(f"  {sweeps[0].metric_name} by {over}", "dim")])
    head = f"{over:>{first}}" + "".join(f"{n:>9}" for n in names)
    head += "       B-A" if two else ""
    lines.append([(head, "dim")])
    bar = 0 if width is None else min(12, (width - len(head) - 2) // len(sweeps) - 1)
    bar = 12 if width is None else bar
    top = (
        max((float(s.metric(o)) for s in sweeps for _, o in s.points), default=0.0)
        if damage
        else 1.0
    )
    for i, (value, _) in enumerate(sweeps[0].points):
        scores = [s.metric(s.points[i][1]) for s in sweeps]
        cells = "".join(f"{float(x):9.3f}" if damage else percent(x, width=9) for x in scores)
        line: Line = [(f"{_value(sweeps[0], value):>{first}}", "bold"), (cells, "")]
        if two:
            d = float(scores[1] - scores[0]) * (1 if damage else 100)
            said = f"{d:+7.3f}   " if damage else f"{d:+7.2f} pp"
            line.append((f" {said}", "bold green" if d > 0 else "bold red" if d < 0 else ""))
        if bar >= 4:
            for k, x in enumerate(scores):
                fill = Fraction(float(x) / top) if top else Fraction(0)
                line += [(" ", ""), (_bar(fill, bar).ljust(bar), styles[k % len(styles)])]
        lines.append(line)
    lines += _crossing_lines(sweeps, names)
    return lines


def _crossing_lines(sweeps: list[Sweep], names: list[str]) -> list[Line]:
    """Who leads, and where another overtakes: `B overtakes A at AC 17`."""
    over = sweeps[0].span.over
    found = break_even(sweeps)
    if len(found) == 1:
        c = found[0]
        if c.leader is None:
            return [[("  even at every point", "bold")]]
        return [[(f"  {names[c.leader]} leads at every {over}", "bold")]]
    out: list[Line] = []
    for c in found:
        if c is found[0]:
            who = "they are even" if c.leader is None else f"{names[c.leader]} leads"
            out.append([(f"  from {over} {c.value}: {who}", "bold")])
        else:
            who = "even" if c.leader is None else f"{names[c.leader]} overtakes"
            out.append([(f"  break-even at {over} {c.value}: {who}", "bold yellow")])
    return out
