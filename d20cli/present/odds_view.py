"""Exact odds for people: each outcome as a fraction, a percentage, "1 in N" and a bar;
a totals histogram; per-side chances of a contest; two requests side by side
(`odds compare`). The numbers come from d20cli.probability; this module only shows them."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from d20cli.figures import one_in, percent, short_fraction
from d20cli.present.output import plain_text
from d20cli.present.render import Line, badge
from d20cli.probability.model import NO_OUTCOME, Odds
from d20cli.results import show_as


def _bar(p: Fraction, width: int = 30) -> str:
    eighths = round(float(p) * width * 8)
    full, part = divmod(eighths, 8)
    return "\u2588" * full + ("" if not part else chr(0x2590 - part))


def odds_lines(odds: Odds) -> list[Any]:
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
    if odds.distribution:
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


def _histogram(dist: dict[int, Fraction], max_rows: int = 40) -> list[Any]:

    lines: list[Line] = []
    mean = sum((t * p for t, p in dist.items()), Fraction(0))
    var = sum(((t - mean) ** 2 * p for t, p in dist.items()), Fraction(0))
    lo, hi = min(dist), max(dist)
    lines.append(
        [
            ("  total: mean ", "dim"),
            (f"{float(mean):.3f}", "bold yellow"),
            (f"  sd {float(var) ** 0.5:.3f}  min {lo}  max {hi}", "dim"),
        ]
    )
    items = sorted(dist.items())
    if len(items) > max_rows:  # bucket wide distributions so the chart stays readable
        size = -(-len(range(lo, hi + 1)) // max_rows)
        buckets: dict[tuple[int, int], Fraction] = {}
        for t, p in items:
            start = lo + (t - lo) // size * size
            key = (start, min(start + size - 1, hi))
            buckets[key] = buckets.get(key, Fraction(0)) + p
        rows = [(f"{a}-{b}" if a != b else str(a), p) for (a, b), p in sorted(buckets.items())]
    else:
        rows = [(str(t), p) for t, p in items]
    top = max(p for _, p in rows)
    width = max(len(r) for r, _ in rows)
    for label, p in rows:
        lines.append(
            [
                (f"  {label:>{width}} ", "bold"),
                (percent(p, width=7) + " ", ""),
                (_bar(p / top if top else p), "blue"),
            ]
        )
    return lines


def compare_lines(a: Odds, b: Odds) -> list[Any]:
    """`odds compare A B`: each outcome's probability side by side, and the difference."""

    keys = [k for k, _ in a.ordered_outcomes()]
    keys += [k for k, _ in b.ordered_outcomes() if k not in keys]
    labels = {**b.labels, **a.labels}
    lines: list[Line] = [
        [("A ", "bold cyan"), (a.request, "bold"), (f"  [{a.system}]", "dim")],
        [("B ", "bold magenta"), (b.request, "bold"), (f"  [{b.system}]", "dim")],
    ]
    width = max((len(labels.get(k, k)) for k in keys), default=0) + 2
    lines.append([(" " * (width + 2) + "       A        B     B-A", "dim")])
    for k in keys:
        pa, pb = a.outcomes.get(k, Fraction(0)), b.outcomes.get(k, Fraction(0))
        diff = (float(pb) - float(pa)) * 100
        bd = badge(k if k != NO_OUTCOME else None, labels.get(k, k))
        lines.append(
            [
                ("  ", ""),
                bd,
                (" " * max(0, width - len(bd[0])), ""),
                (f"{percent(pa, width=8)} {percent(pb, width=8)} ", ""),
                (f"{diff:+7.2f}", "bold green" if diff > 0 else "bold red" if diff < 0 else ""),
            ]
        )
    da, db = a.damage_mean, b.damage_mean
    if da is not None and db is not None:
        lines.append(
            [
                ("  expected damage ", "dim"),
                (f"{float(da):.3f} vs {float(db):.3f}  ({float(db - da):+.3f})", "bold"),
            ]
        )
    ma, mb = a.mean, b.mean
    if ma is not None and mb is not None:
        lines.append(
            [
                ("  mean total ", "dim"),
                (f"{float(ma):.3f} vs {float(mb):.3f}  ({float(mb - ma):+.3f})", "bold"),
            ]
        )
    return lines


def odds_text(odds: Odds) -> str:
    """Odds as `d20 odds` prints them without colour: `str(odds)`."""
    return "\n".join(plain_text(line) for line in odds_lines(odds))


show_as(Odds, odds_text)
