"""Exact odds for people: each outcome as a fraction, a percentage, "1 in N" and a bar;
a totals chart (exactly, at least, at most); per-side chances of a contest; requests side
by side (`odds compare`); `--csv`. The numbers come from d20cli.probability; this module
only shows them."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from d20cli.number_format import one_in, percent, short_fraction
from d20cli.present.output import plain_text
from d20cli.present.render import Line, badge
from d20cli.probability.model import NO_OUTCOME, Odds
from d20cli.results import show_as


def _bar(p: Fraction, width: int = 30) -> str:
    eighths = round(float(p) * width * 8)
    full, part = divmod(eighths, 8)
    return "\u2588" * full + ("" if not part else chr(0x2590 - part))


def odds_lines(odds: Odds, totals: bool = False) -> list[Any]:
    """Lines (render.Line) for people: each outcome as a fraction, a percent, 1 in N and a
    bar; the totals as a histogram; mean, standard deviation, min and max."""

    head: Line = [(f"odds {odds.request}", "bold"), (f"  [{odds.system}]", "dim")]
    if odds.estimate is not None:
        head.append((f"  estimate from {odds.estimate:,} rolls", "bold yellow"))
    lines: list[Line] = [head]
    rows = odds.ordered_outcomes()
    if rows:
        width = max(len(odds.labels.get(k, k)) for k, _ in rows) + 2
        for key, p in rows:
            label = odds.labels.get(key, key.replace("_", " "))
            b = badge(key if key != NO_OUTCOME else None, label)
            pad = " " * max(0, width - len(b[0]))
            if odds.estimate is None:
                frac = short_fraction(p)
            else:
                frac = f"{int(p * odds.estimate):,}/{odds.estimate:,}"
            lines.append(
                [
                    ("  ", ""),
                    b,
                    (pad, ""),
                    (percent(p, width=8), "bold"),
                    (f"  {frac:>12}  {one_in(p):>12}  ", "dim"),
                    (_bar(p), "green"),
                ]
            )
    if odds.winners is not None:
        lines += _winner_lines(odds)
    if odds.degrees:
        lines.append([("  degrees:", "dim")])
        for d, p in sorted(odds.degrees.items()):
            lines.append(
                [
                    (f"    {d:+d}".ljust(8), "bold"),
                    (percent(p, width=8), ""),
                    (f"  {short_fraction(p):>12}  ", "dim"),
                    (_bar(p), "cyan"),
                ]
            )
    # The totals of a dice expression are what `odds roll` is asked; those of a check
    # only with --totals (its outcome tiers are the answer).
    if odds.distribution and (totals or not odds.outcomes or odds.verb == "roll"):
        lines += _histogram(odds.distribution)
    if odds.damage_mean is not None:
        lines.append(
            [
                ("  expected damage per attack ", "dim"),
                (f"{float(odds.damage_mean):.3f}", "bold yellow"),
                (f"  ({short_fraction(odds.damage_mean)})", "dim"),
            ]
        )
        by_mode = odds.extra.get("damage_mean_by_crit_dmg")
        if isinstance(by_mode, dict):  # house rules: what each crit-dmg mode would give
            each = "  ".join(f"{mode} {float(Fraction(m)):.3f}" for mode, m in by_mode.items())
            lines.append([("  by crit-dmg: ", "dim"), (each, "")])
        if odds.damage_distribution:  # hits and critical hits together, misses as 0
            lines += _histogram(odds.damage_distribution, what="damage")
    ranks = odds.extra.get("ranks")
    if isinstance(ranks, dict):
        lines.append([("  ranks: ", "dim")])
        for rank, frac in ranks.items():
            p = Fraction(frac)
            lines.append([(f"    {rank:<10}", "bold"), (percent(p, width=8), "")])
    lines += [[(f"  {note}", "italic dim")] for note in odds.notes]
    return lines


def _winner_lines(odds: Odds) -> list[Any]:
    """Each side's chance to win (a contest of three or more sides)."""

    assert odds.winners is not None
    names = {n: odds.side_names[n - 1] for n in odds.winners if n <= len(odds.side_names)}
    tags = {n: f"side {n}" + (f" ({names[n]})" if names.get(n) else "") for n in odds.winners}
    width = max(len(tag) for tag in tags.values()) + 2
    lines: list[Line] = [[("  each side's chance to win:", "dim")]]
    for n, p in sorted(odds.winners.items()):
        if odds.estimate is None:
            frac = short_fraction(p)
        else:
            frac = f"{int(p * odds.estimate):,}/{odds.estimate:,}"
        lines.append(
            [
                (f"    {tags[n]}".ljust(width + 4), "bold"),
                (percent(p, width=8), ""),
                (f"  {frac:>12}  {one_in(p):>12}  ", "dim"),
                (_bar(p), "cyan"),
            ]
        )
    return lines


#: Totals less likely than this (shown as `<0.01%`) are left out of the chart's tails; a
#: note says how much probability lies beyond the rows shown.
SIGNIFICANT = Fraction(1, 20_000)


def cumulative(dist: dict[int, Fraction]) -> list[tuple[int, Fraction, Fraction, Fraction]]:
    """(total, exactly, at least, at most) for each total, lowest first."""
    rows = []
    below = Fraction(0)
    for t, p in sorted(dist.items()):
        rows.append((t, p, 1 - below, below + p))
        below += p
    return rows


def _histogram(dist: dict[int, Fraction], max_rows: int = 40, what: str = "total") -> list[Any]:
    """The totals: mean, sd, min, max; then a row per total (buckets when there are many)
    with the chance of exactly it, at least it and at most it, and a bar."""
    lines: list[Line] = []
    mean = sum((t * p for t, p in dist.items()), Fraction(0))
    var = sum(((t - mean) ** 2 * p for t, p in dist.items()), Fraction(0))
    lo, hi = min(dist), max(dist)
    lines.append(
        [
            (f"  {what}: mean ", "dim"),
            (f"{float(mean):.3f}", "bold yellow"),
            (f"  sd {float(var) ** 0.5:.3f}  min {lo}  max {hi}", "dim"),
        ]
    )
    table = cumulative(dist)
    shown = [row for row in table if row[1] >= SIGNIFICANT] or table
    first, last = shown[0][0], shown[-1][0]
    shown = [row for row in table if first <= row[0] <= last]
    below = sum((p for t, p in dist.items() if t < first), Fraction(0))
    above = sum((p for t, p in dist.items() if t > last), Fraction(0))
    rows: list[tuple[str, Fraction, Fraction, Fraction]] = []
    if len(shown) > max_rows:  # bucket wide distributions so the chart stays readable
        size = -(-(last - first + 1) // max_rows)
        buckets: dict[int, list[tuple[int, Fraction, Fraction, Fraction]]] = {}
        for row in shown:
            buckets.setdefault(first + (row[0] - first) // size * size, []).append(row)
        for group in (buckets[k] for k in sorted(buckets)):
            a, b = group[0][0], group[-1][0]
            label = f"{a}-{b}" if a != b else str(a)
            rows.append((label, sum((r[1] for r in group), Fraction(0)), group[0][2], group[-1][3]))
    else:
        rows = [(str(t), p, up, down) for t, p, up, down in shown]
    top = max(r[1] for r in rows)
    width = max([len(r[0]) for r in rows] + [len(what)])
    lines.append([(f"  {what:>{width}}  exactly  at least   at most", "dim")])
    for label, p, up, down in rows:
        lines.append(
            [
                (f"  {label:>{width}} ", "bold"),
                (f"{percent(p, width=8)} {percent(up, width=9)} {percent(down, width=9)}  ", ""),
                (_bar(p / top if top else p), "blue"),
            ]
        )
    if below or above:
        beyond = [f"below {first}: {percent(below)}" if below else ""]
        beyond += [f"above {last}: {percent(above)}" if above else ""]
        lines.append([(f"  not shown: {', '.join(x for x in beyond if x)}", "italic dim")])
    return lines


NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def compare_lines(odds: list[Odds]) -> list[Any]:
    """`odds compare A B C ...`: expected damage first when any request is an attack (the
    number that says which does more), then each outcome's probability side by side, then
    the mean totals; with two requests, the difference B-A."""
    names = [
        NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else str(i // len(NAMES)))
        for i in range(len(odds))
    ]
    styles = ("bold cyan", "bold magenta", "bold yellow", "bold green", "bold blue")
    lines: list[Line] = [
        [(f"{n} ", styles[i % len(styles)]), (o.request, "bold"), (f"  [{o.system}]", "dim")]
        for i, (n, o) in enumerate(zip(names, odds, strict=True))
    ]
    keys: list[str] = []
    for o in odds:
        keys += [k for k, _ in o.ordered_outcomes() if k not in keys]
    labels: dict[str, str] = {}
    for o in reversed(odds):
        labels.update(o.labels)
    width = max([len(labels.get(k, k)) + 2 for k in keys] + [len("expected damage")])
    two = len(odds) == 2
    head = " " * (width + 2) + "".join(f"{n:>9}" for n in names) + ("      B-A" if two else "")
    lines.append([(head, "dim")])

    def row(name: str, values: list[float], fmt: str, style: str = "") -> Line:
        cells = "".join(format(v, fmt) for v in values)
        out: Line = [(f"  {name:<{width}}", style), (cells, "")]
        if two:
            d = values[1] - values[0]
            out.append((f"{d:+9.2f}", "bold green" if d > 0 else "bold red" if d < 0 else ""))
        return out

    damage = [o.damage_mean for o in odds]
    if any(d is not None for d in damage):
        values = [float(d) if d is not None else 0.0 for d in damage]
        lines.append(row("expected damage", values, "9.3f", "bold yellow"))
        best = max(range(len(values)), key=lambda i: values[i])
        lines.append([(f"  most damage: {names[best]} ({odds[best].request})", "bold")])
    for k in keys:
        values = [float(o.outcomes.get(k, Fraction(0))) * 100 for o in odds]
        bd = badge(k if k != NO_OUTCOME else None, labels.get(k, k))
        cells = "".join(f"{v:8.2f}%" for v in values)
        line: Line = [("  ", ""), bd, (" " * max(0, width - len(bd[0])), ""), (cells, "")]
        if two:
            d = values[1] - values[0]
            line.append((f"{d:+9.2f}", "bold green" if d > 0 else "bold red" if d < 0 else ""))
        lines.append(line)
    means = [o.mean for o in odds]
    if all(m is not None for m in means):
        lines.append(row("mean total", [float(m) for m in means if m is not None], "9.3f", "dim"))
    return lines


def csv_text(odds: Odds) -> str:
    """`--csv`: a header and a row per total (total, exactly, at least, at most, as
    decimal probabilities); without totals, a row per outcome (outcome, probability)."""
    if odds.distribution:
        rows = ["total,exactly,at least,at most"]
        rows += [
            f"{t},{float(p)!r},{float(up)!r},{float(down)!r}"
            for t, p, up, down in cumulative(odds.distribution)
        ]
    else:
        rows = ["outcome,probability"]
        rows += [f"{k},{float(p)!r}" for k, p in odds.ordered_outcomes()]
    return "\n".join(rows)


def quiet_odds_text(odds: Odds) -> str:
    """`odds -q`: a line per outcome tier, `ID PROBABILITY` (a decimal); a request without
    tiers (`odds roll EXPR`) gives its mean, as `roll -q` gives its total."""
    tiers = odds.ordered_outcomes()
    if tiers:
        return "\n".join(f"{k} {float(p)!r}" for k, p in tiers)
    mean = getattr(odds, "mean", None)
    return f"mean {float(mean)!r}" if mean is not None else ""


def odds_text(odds: Odds) -> str:
    """Odds as `d20 odds` prints them without colour: `str(odds)`."""
    return "\n".join(plain_text(line) for line in odds_lines(odds))


show_as(Odds, odds_text)
