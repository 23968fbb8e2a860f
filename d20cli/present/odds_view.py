"""Exact odds for people: each outcome as a fraction, a percentage, "1 in N" and a bar;
a totals chart (exactly, at least, at most); per-side chances of a contest; requests side
by side (`odds compare`); `--csv`. The numbers come from d20cli.probability; this module
only shows them."""

from __future__ import annotations

from fractions import Fraction

from d20cli.number_format import one_in, percent, short_fraction
from d20cli.present.output import plain_text
from d20cli.present.render import Line, Seg, badge
from d20cli.probability.model import NO_OUTCOME, Odds
from d20cli.records import NamedTuple
from d20cli.results import show_as

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _bar(p: Fraction, width: int = 30) -> str:
    eighths = round(float(p) * width * 8)
    full, part = divmod(eighths, 8)
    return "\u2588" * full + ("" if not part else chr(0x2590 - part))


#: The widest a bar is drawn, and the narrowest worth drawing: on a narrower terminal the
#: bars shrink down to MIN_BAR, then are left out.
BAR, MIN_BAR = 30, 8
#: The room the fraction and "1 in N" columns are given when the line has it: short
#: fractions line up as they always have; a longer one widens its column for every row.
CELL = 12
#: The first column of a row's numbers folded under its label (a terminal too narrow for
#: the row): they are never cut or wrapped inside a fraction.
FOLD_INDENT = 6


class Chance(NamedTuple):
    """One row of a table of chances: its label (pieces already padded to the label
    column), the chance, the chance as a fraction and as "1 in N" (None: no such column)."""

    label: Line
    p: Fraction
    fraction: str
    one_in: str | None


def _tag(text: str, style: str) -> Seg:
    """A row name that is no outcome, shaped as an outcome's badge is (a space either
    side) and with a background style, `on default` (none to see), so that plain text
    strips it as it strips a badge: the rows stay aligned with and without colour."""
    return (f" {text} ", f"{style} on default")


def _text_width(line: Line) -> int:
    return sum(len(text) for text, _ in line)


def chance_rows(rows: list[Chance], width: int | None, bar_style: str) -> list[Line]:
    """The rows laid out for a terminal `width` columns wide (None: as wide as they
    need). Each row is its label, the percent, the fraction, "1 in N" and a bar, the
    columns aligned over all the rows, however long a fraction is. When that is too
    wide: the fraction and "1 in N" columns as narrow as their longest, and the bar
    shorter; then no bar; then each row's fraction and "1 in N" folded onto a line of
    their own under it. A fraction is never broken across lines."""
    if not rows:
        return []
    label = max(_text_width(r.label) for r in rows)
    fraction = max(len(r.fraction) for r in rows)
    one_in = max((len(r.one_in) for r in rows if r.one_in is not None), default=None)

    def numbers(fw: int, ow: int | None) -> int:  # the width of the columns after the label
        return 8 + 2 + fw + (2 + ow if ow is not None else 0)

    roomy = (max(CELL, fraction), None if one_in is None else max(CELL, one_in))
    tight = (fraction, one_in)
    if width is None:
        return [_row(r, *roomy, BAR, bar_style) for r in rows]
    if label + numbers(*roomy) + 2 + BAR <= width:
        return [_row(r, *roomy, BAR, bar_style) for r in rows]
    room = width - label - numbers(*tight) - 2
    if room >= MIN_BAR:
        return [_row(r, *tight, min(BAR, room), bar_style) for r in rows]
    if label + numbers(*tight) <= width:
        return [_row(r, *tight, 0, bar_style) for r in rows]
    room = width - label - 8 - 2  # the label and the percent, then a bar if it fits
    bar = min(BAR, room) if room >= MIN_BAR else 0
    rest = fraction + (2 + one_in if one_in is not None else 0)
    indent = max(2, min(FOLD_INDENT, width - rest))
    apart = indent + rest > width  # "1 in N" on a line of its own too
    lines: list[Line] = []
    for r in rows:
        lines.append(_row(r, 0, None, bar, bar_style, numbers=False))
        folded = [f"{r.fraction:>{fraction}}"]
        if r.one_in is not None and one_in is not None:
            folded.append(f"{r.one_in:>{one_in}}")
        if apart:
            lines += [[(" " * indent + cell, "dim")] for cell in folded]
        else:
            lines.append([(" " * indent + "  ".join(folded), "dim")])
    return lines


def _row(
    r: Chance,
    fw: int,
    ow: int | None,
    bar: int,
    bar_style: str,
    numbers: bool = True,
) -> Line:
    """One row: the label, the percent, then (`numbers`) the fraction in `fw` columns and
    "1 in N" in `ow`, then a bar `bar` wide (none when 0), with no spaces at the end."""
    line: Line = [*r.label, (percent(r.p, width=8), "bold")]
    tail = ""
    if numbers:
        tail = f"  {r.fraction:>{fw}}"
        if ow is not None and r.one_in is not None:
            tail += f"  {r.one_in:>{ow}}"
    drawn = _bar(r.p, bar) if bar else ""
    if drawn:
        tail += "  "
    if tail:
        line.append((tail, "dim"))
    if drawn:
        line.append((drawn, bar_style))
    return line


def _fit(first: Line, rest: Line, width: int | None) -> list[Line]:
    """`first` and `rest` on one line, two spaces apart; on a terminal too narrow for
    that, `rest` on a line of its own under `first`, indented."""
    if width is None or _text_width(first) + 2 + _text_width(rest) <= width:
        return [[*first, ("  ", ""), *rest]]
    return [first, [("    ", ""), *rest]]


def _fraction(p: Fraction, odds: Odds) -> str:
    """The chance as a fraction: exact (short), or of an estimate its count of rolls."""
    if odds.estimate is None:
        return short_fraction(p)
    return f"{int(p * odds.estimate):,}/{odds.estimate:,}"


def success_row(odds: Odds) -> tuple[str, Fraction] | None:
    """The chance of success or better, where a request has one: the tiers the system
    counts as a success (`Odds.success`), named by the lowest of them ("Success or
    better", "Hit or better", "Limited success or better"; "Any success" if they are not
    the best tiers in a row). None when there is no such chance, when it is 0, or when
    one tier alone holds it (its own row already says it)."""
    success = odds.success
    if not success:
        return None
    held = Fraction(0)
    for tiers, (key, p) in enumerate(reversed(odds.ordered_outcomes()), start=1):
        held += p
        if held == success:
            if tiers < 2:
                return None
            name = odds.labels.get(key, key.replace("_", " ").capitalize())
            return f"{name} or better", success
        if held > success:
            break
    return "Any success", success


def odds_lines(odds: Odds, totals: bool = False, width: int | None = None) -> list[Any]:
    """Lines (render.Line) for people: each outcome as a fraction, a percent, 1 in N and a
    bar, then the chance of success or better; the totals as a histogram; mean, standard
    deviation, min and max. `width`: the terminal's columns, which every table fits
    (None: no limit, as on a pipe)."""

    head: Line = [(f"odds {odds.request}", "bold"), (f"  [{odds.system}]", "dim")]
    if odds.estimate is not None:
        head.append((f"  estimate from {odds.estimate:,} rolls", "bold yellow"))
    lines: list[Line] = [head]
    rows = odds.ordered_outcomes()
    if rows:
        better = success_row(odds)
        names = [odds.labels.get(k, k) for k, _ in rows] + ([better[0]] if better else [])
        column = max(len(name) for name in names) + 2
        chances: list[Chance] = []
        for key, p in rows:
            label = odds.labels.get(key, key.replace("_", " "))
            b = badge(key if key != NO_OUTCOME else None, label)
            pad = " " * max(0, column - len(b[0]))
            chances.append(Chance([("  ", ""), b, (pad, "")], p, _fraction(p, odds), one_in(p)))
        if better is not None:
            name, p = better
            tag = _tag(name, "bold")
            pad = " " * max(0, column - len(tag[0]))
            chances.append(Chance([("  ", ""), tag, (pad, "")], p, _fraction(p, odds), one_in(p)))
        lines += chance_rows(chances, width, "green")
    if odds.winners is not None:
        lines += _winner_lines(odds, width)
    if odds.degrees:
        lines.append([("  degrees:", "dim")])
        degrees = [
            Chance([(f"    {d:+d}".ljust(8), "bold")], p, short_fraction(p), None)
            for d, p in sorted(odds.degrees.items())
        ]
        lines += chance_rows(degrees, width, "cyan")
    # The totals of a dice expression are what `odds roll` is asked; those of a check
    # only with --totals (its outcome tiers are the answer).
    if odds.distribution and (totals or not odds.outcomes or odds.verb == "roll"):
        lines += _histogram(odds.distribution, width=width)
    if odds.damage_mean is not None:
        lines += _fit(
            [
                ("  expected damage per attack ", "dim"),
                (f"{float(odds.damage_mean):.3f}", "bold yellow"),
            ],
            [(f"({short_fraction(odds.damage_mean)})", "dim")],
            width,
        )
        by_mode = odds.extra.get("damage_mean_by_crit_dmg")
        if isinstance(by_mode, dict):  # house rules: what each crit-dmg mode would give
            each = [f"{mode} {float(Fraction(m)):.3f}" for mode, m in by_mode.items()]
            said = "  by crit-dmg: " + "  ".join(each)
            if width is None or len(said) <= width:
                lines.append([("  by crit-dmg: ", "dim"), ("  ".join(each), "")])
            else:  # one mode a line
                lines.append([("  by crit-dmg:", "dim")])
                lines += [[(f"    {mode}", "")] for mode in each]
        if odds.damage_distribution:  # hits and critical hits together, misses as 0
            lines += _histogram(odds.damage_distribution, what="damage", width=width)
    ranks = odds.extra.get("ranks")
    if isinstance(ranks, dict):
        lines.append([("  ranks: ", "dim")])
        for rank, frac in ranks.items():
            p = Fraction(frac)
            lines.append([(f"    {rank:<10}", "bold"), (percent(p, width=8), "")])
    lines += [[(f"  {note}", "italic dim")] for note in odds.notes]
    return lines


def _winner_lines(odds: Odds, width: int | None = None) -> list[Any]:
    """Each side's chance to win (a contest of three or more sides)."""

    assert odds.winners is not None
    names = {n: odds.side_names[n - 1] for n in odds.winners if n <= len(odds.side_names)}
    tags = {n: f"side {n}" + (f" ({names[n]})" if names.get(n) else "") for n in odds.winners}
    column = max(len(tag) for tag in tags.values()) + 2
    lines: list[Line] = [[("  each side's chance to win:", "dim")]]
    rows = [
        Chance([(f"    {tags[n]}".ljust(column + 4), "bold")], p, _fraction(p, odds), one_in(p))
        for n, p in sorted(odds.winners.items())
    ]
    return lines + chance_rows(rows, width, "cyan")


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


def _histogram(
    dist: dict[int, Fraction], max_rows: int = 40, what: str = "total", width: int | None = None
) -> list[Any]:
    """The totals: mean, sd, min, max; then a row per total (buckets when there are many)
    with the chance of exactly it, at least it and at most it, and a bar (shorter on a
    narrow terminal, `width` columns, and none where it would be shorter than MIN_BAR)."""
    lines: list[Line] = []
    mean = sum((t * p for t, p in dist.items()), Fraction(0))
    var = sum(((t - mean) ** 2 * p for t, p in dist.items()), Fraction(0))
    lo, hi = min(dist), max(dist)
    lines += _fit(
        [
            (f"  {what}: mean ", "dim"),
            (f"{float(mean):.3f}", "bold yellow"),
            (f"  sd {float(var) ** 0.5:.3f}", "dim"),
        ],
        [(f"min {lo}  max {hi}", "dim")],
        width,
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
    column = max([len(r[0]) for r in rows] + [len(what)])
    lines.append([(f"  {what:>{column}}  exactly  at least   at most", "dim")])
    bar = BAR if width is None else min(BAR, width - (2 + column + 1 + 8 + 1 + 9 + 1 + 9 + 2))
    for label, p, up, down in rows:
        cells = f"{percent(p, width=8)} {percent(up, width=9)} {percent(down, width=9)}"
        line: Line = [(f"  {label:>{column}} ", "bold"), (cells, "")]
        if bar >= MIN_BAR:
            line += [("  ", ""), (_bar(p / top if top else p, bar), "blue")]
        lines.append(line)
    if below or above:
        beyond = [f"below {first}: {percent(below)}" if below else ""]
        beyond += [f"above {last}: {percent(above)}" if above else ""]
        lines.append([(f"  not shown: {', '.join(x for x in beyond if x)}", "italic dim")])
    return lines


NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def compare_lines(odds: list[Odds], width: int | None = None, totals: bool = False) -> list[Any]:
    """`odds compare A B C ...`: expected damage first when any request is an attack (the
    number that says which does more), then each outcome's probability side by side and
    the chance of success or better, then the mean totals; with two requests, the
    difference B-A (of two chances, in percentage points). On a terminal `width` columns
    wide that a row does not fit, each row's numbers go on a line of their own under its
    name, the columns still aligned. The distributions of the totals side by side follow
    when every request has totals and they are what is asked (`odds roll`, or
    `totals`: --totals)."""
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
    better = _compared_success(odds)
    column = max(
        [len(labels.get(k, k)) + 2 for k in keys]
        + [len("expected damage") + 2, len(better) + 2 if better else 0]
    )
    two = len(odds) == 2
    cells_width = 9 * len(odds) + (10 if two else 0)
    fold = width is not None and 2 + column + cells_width > width
    lead = " " * 4 if fold else " " * column  # where the numbers start
    head = "".join(f"{n:>9}" for n in names) + ("       B-A" if two else "")
    if fold:
        lines.append([(lead + head, "dim")])
    else:  # (the two columns of a badge's padding, which plain text strips as it does theirs)
        lines.append([(lead, ""), _tag("", "dim"), (head, "dim")])

    def numbers(values: list[float], fmt: str, suffix: str = "") -> Line:
        out: Line = [("".join(format(v, fmt) + suffix for v in values), "")]
        if two:
            d = values[1] - values[0]
            # a difference of two percentages is in percentage points
            said = f" {d:+6.2f} pp" if suffix == "%" else f"{d:+10.2f}"
            out.append((said, "bold green" if d > 0 else "bold red" if d < 0 else ""))
        return out

    def row(name: Line, values: list[float], fmt: str, suffix: str = "") -> list[Line]:
        if fold:
            return [name, [(lead, ""), *numbers(values, fmt, suffix)]]
        pad = " " * max(0, column + 2 - _text_width(name))
        return [[*name, (pad, ""), *numbers(values, fmt, suffix)]]

    damage = [o.damage_mean for o in odds]
    if any(d is not None for d in damage):
        values = [float(d) if d is not None else 0.0 for d in damage]
        lines += row([("  ", ""), _tag("expected damage", "bold yellow")], values, "9.3f")
        best = max(range(len(values)), key=lambda i: values[i])
        lines.append([(f"  most damage: {names[best]} ({odds[best].request})", "bold")])
    for k in keys:
        values = [float(o.outcomes.get(k, Fraction(0))) * 100 for o in odds]
        bd = badge(k if k != NO_OUTCOME else None, labels.get(k, k))
        lines += row([("  ", ""), bd], values, "8.2f", "%")
    if better is not None:
        values = [float(o.success or 0) * 100 for o in odds]
        lines += row([("  ", ""), _tag(better, "bold")], values, "8.2f", "%")
    means = [o.mean for o in odds]
    if all(m is not None for m in means):
        values = [float(m) for m in means if m is not None]
        lines += row([("  ", ""), _tag("mean total", "dim")], values, "9.3f")
    dists = [o.distribution for o in odds]
    asked = totals or all(o.verb == "roll" or not o.outcomes for o in odds)
    if asked and all(dists):
        lines += compared_totals([d for d in dists if d], names, width)
    return lines


def compared_totals(
    dists: list[dict[int, Fraction]], names: list[str], width: int | None = None, max_rows: int = 40
) -> list[Line]:
    """Distributions of totals side by side: a row per total (buckets when there are more
    than `max_rows`) with each one's chance of exactly it, with two of them the
    difference B-A in percentage points, then at least it and at most it, and a bar of
    each (exactly, against the likeliest of all) where the terminal has room. The tails
    less likely than SIGNIFICANT in every distribution are left out, and said."""
    styles = ("cyan", "magenta", "yellow", "green", "blue")
    every = sorted({t for d in dists for t in d})
    kept = [t for t in every if any(d.get(t, 0) >= SIGNIFICANT for d in dists)] or every
    first, last = kept[0], kept[-1]
    size = max(1, -(-(last - first + 1) // max_rows))
    starts = sorted({first + (t - first) // size * size for t in every if first <= t <= last})

    def at_most(d: dict[int, Fraction], t: int) -> Fraction:
        return sum((p for x, p in d.items() if x <= t), Fraction(0))

    two = len(dists) == 2
    n = len(dists)
    label = [
        f"{a}-{min(a + size - 1, last)}" if min(a + size - 1, last) > a else str(a) for a in starts
    ]
    column = max([len(x) for x in label] + [len("total")])
    cells = 9 * n * 3 + (10 if two else 0)
    used = 2 + column + cells
    cumulative = width is None or used <= width  # else only the chance of exactly each
    if not cumulative:
        used -= 9 * n * 2
    bar = 10 if width is None else min(10, (width - used - 2) // n - 1)
    rows_exactly = []
    for a in starts:
        b = min(a + size - 1, last)
        rows_exactly.append(
            [sum((p for t, p in d.items() if a <= t <= b), Fraction(0)) for d in dists]
        )
    top = max((p for row in rows_exactly for p in row), default=Fraction(0))
    lead = " " * (2 + column)
    group = 9 * n + (10 if two else 0)
    lines: list[Line] = [[("", "")]]
    said = f"{lead}{'exactly':>{group}}"
    if cumulative:
        said += f"{'at least':>{9 * n}}{'at most':>{9 * n}}"
    lines.append([(said, "dim")])
    each = "".join(f"{x:>9}" for x in names)
    head = f"  {'total':>{column}}{each}" + ("  B-A (pp)" if two else "")
    head += each + each if cumulative else ""
    lines.append([(head, "dim")])
    for a, exactly in zip(starts, rows_exactly, strict=True):
        b = min(a + size - 1, last)
        line: Line = [(f"  {label[starts.index(a)]:>{column}}", "bold")]
        line.append(("".join(percent(p, width=9) for p in exactly), ""))
        if two:
            d = float(exactly[1] - exactly[0]) * 100
            line.append((f"{d:+10.2f}", "bold green" if d > 0 else "bold red" if d < 0 else ""))
        if cumulative:
            line.append(("".join(percent(1 - at_most(dd, a - 1), width=9) for dd in dists), ""))
            line.append(("".join(percent(at_most(dd, b), width=9) for dd in dists), ""))
        if bar >= 4:
            for k, p in enumerate(exactly):
                drawn = _bar(p / top if top else p, bar).ljust(bar)
                line += [(" ", ""), (drawn, styles[k % len(styles)])]
        lines.append(line)
    beyond = [t for t in every if t < first or t > last]
    if beyond:
        lines.append(
            [
                (
                    f"  not shown: totals below {first} or above {last} (under 0.01% in each)",
                    "italic dim",
                )
            ]
        )
    return lines


def _compared_success(odds: list[Odds]) -> str | None:
    """The name of `odds compare`'s row of the chance of success or better: shown when
    every request has that chance and one of them spreads it over two tiers or more
    (`success_row`); named as they name it, or "Any success" if they differ."""
    if any(o.success is None for o in odds):
        return None
    said = {row[0] for row in map(success_row, odds) if row is not None}
    if not said:
        return None
    return said.pop() if len(said) == 1 else "Any success"


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
