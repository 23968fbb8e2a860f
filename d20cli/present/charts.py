"""Charts to share (`--svg FILE`, `--png FILE`): an odds view, a sweep, a compare or a
luck report as a picture with axes, labels and a legend.

What a chart shows (`Chart`: its panels, each with its series of values) is made here
from the odds without any plotting library, and `draw` renders it with matplotlib,
imported only then (start-up time: nothing else imports it). The data drawn go into the
picture too: an SVG's description (`<dc:description>` of its metadata) and a PNG's
`Description` text hold the chart as JSON (`Chart.to_json`: each value exact, a chance
as its fraction), and each drawn bar or line carries an id (`gid`), so a program reads
back what was drawn. The same chart is drawn the same bytes every time: a fixed hash
salt for the ids, no date, the font that matplotlib ships. Text from outside the program
(a request, a character's name) is made visible and never read as mathtext.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from d20cli.number_format import exact_fraction
from d20cli.present.odds_view import NAMES, SIGNIFICANT, success_row
from d20cli.probability.model import NO_OUTCOME, Odds
from d20cli.probability.sweep import Sweep, break_even
from d20cli.visible import visible

if TYPE_CHECKING:
    from d20cli.probability.luck import Ledger
    from d20cli.probability.tables import TableOdds

#: The formats `draw` writes, by option.
FORMATS: tuple[str, ...] = ("svg", "png")
MAX_BARS = 120  # categories one panel draws; more totals are grouped in ranges
MAX_LABEL = 40  # characters of a label shown (a long request is cut with "...")


class Series(NamedTuple):
    """One series of a panel: its name (the legend's) and a value per category."""

    name: str
    values: tuple[Fraction | float, ...]


class Mark(NamedTuple):
    """A line across a panel at category `at` (an index), with its label (a break-even)."""

    at: int
    label: str


class Panel(NamedTuple):
    """One set of axes. kind "bars": the series side by side at each category; "lines":
    each series a line over the categories (numbers in order, a sweep's points);
    "histogram": the first series as bars, the others as lines on an axis of their own
    at the right (a distribution's exactly, then at least). `percent`: the values are
    chances, drawn as percentages."""

    title: str
    kind: str
    x_label: str
    y_label: str
    x: tuple[str, ...]
    series: tuple[Series, ...]
    percent: bool = True
    right_label: str = ""
    marks: tuple[Mark, ...] = ()
    stressed: bool = False  # the last series drawn heavier (a sweep's success or better)

    def to_json(self, index: int) -> dict[str, Any]:
        return {
            "title": self.title,
            "kind": self.kind,
            "x_label": self.x_label,
            "y_label": self.y_label,
            "percent": self.percent,
            "x": list(self.x),
            "series": [
                {"name": s.name, "gid": gid(index, k), "values": [_exact(v) for v in s.values]}
                for k, s in enumerate(self.series)
            ],
            "marks": [{"at": m.at, "x": self.x[m.at], "label": m.label} for m in self.marks],
        }


class Chart(NamedTuple):
    """A chart: its title and its panels, one above the other."""

    title: str
    panels: tuple[Panel, ...]
    note: str = ""  # said in place of panels when there are none

    def to_json(self) -> dict[str, Any]:
        """{"chart": 1, "title", "panels": [{..., "series": [{"name", "gid", "values"}]}]}:
        each value a chance or a mean as an exact fraction ("11/20", "7"), a count as a
        number."""
        return {
            "chart": 1,
            "title": self.title,
            "note": self.note,
            "panels": [p.to_json(i) for i, p in enumerate(self.panels)],
        }


def gid(panel: int, series: int) -> str:
    """The id of a series' drawing: a line's, or with `-N` its N-th bar's."""
    return f"d20-p{panel}-s{series}"


def _exact(value: Fraction | float) -> str | float:
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else exact_fraction(value)
    return value


def _shown(text: str) -> str:
    """Text from outside the program as a label: visible, and cut to MAX_LABEL."""
    text = visible(text)
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 3] + "..."


def _label(odds: Odds, key: str) -> str:
    return odds.labels.get(key, key.replace("_", " ").capitalize())


# --- the charts of the odds ------------------------------------------------------------


def odds_chart(odds: Odds, totals: bool = False) -> Chart:
    """The chart of one request's odds (`d20 odds ...`): the chance of each outcome (and
    of success or better), of each side winning, of each degree; the distribution of
    totals (as `odds_lines` shows it: for a roll, or with `totals`), and of damage."""
    title = f"odds {visible(odds.request)}  [{odds.system}]"
    if odds.estimate is not None:
        title += f"  (estimate from {odds.estimate:,} rolls)"
    panels: list[Panel] = []
    rows = odds.ordered_outcomes()
    if rows and {k for k, _ in rows} != {NO_OUTCOME}:
        names = [_label(odds, k) for k, _ in rows]
        values: list[Fraction | float] = [p for _, p in rows]
        better = success_row(odds)
        if better is not None:
            names.append(better[0])
            values.append(better[1])
        panels.append(
            Panel(
                "chance of each outcome",
                "bars",
                "outcome",
                "chance",
                tuple(names),
                (Series("chance", tuple(values)),),
            )
        )
    if odds.winners:
        tags = [
            f"side {n}" + (f" ({odds.side_names[n - 1]})" if n <= len(odds.side_names) else "")
            for n in sorted(odds.winners)
        ]
        panels.append(
            Panel(
                "each side's chance to win",
                "bars",
                "side",
                "chance",
                tuple(_shown(t) for t in tags),
                (Series("chance to win", tuple(odds.winners[n] for n in sorted(odds.winners))),),
            )
        )
    if odds.degrees:
        degrees = sorted(odds.degrees)
        panels.append(
            Panel(
                "chance of each degree",
                "bars",
                "degree",
                "chance",
                tuple(f"{d:+d}" for d in degrees),
                (Series("chance", tuple(odds.degrees[d] for d in degrees)),),
            )
        )
    if odds.distribution and (totals or not odds.outcomes or odds.verb == "roll" or not panels):
        panels.append(_distribution(odds.distribution, "total", "totals", odds.mean))
    if odds.damage_distribution:
        panels.append(
            _distribution(odds.damage_distribution, "damage", "damage per attack", odds.damage_mean)
        )
    return Chart(title, tuple(panels))


def _distribution(dist: dict[int, Fraction], what: str, title: str, mean: Fraction | None) -> Panel:
    """A distribution: the chance of exactly each total (bars) and of at least it (a
    line), the tails less likely than odds_view's SIGNIFICANT left out, and totals
    grouped in ranges past MAX_BARS."""
    x, exactly, at_least = _buckets(dist, _range(dist))
    said = "" if mean is None else f" (mean {float(mean):.3f})"
    return Panel(
        f"{title}{said}",
        "histogram",
        what,
        "chance of exactly",
        x,
        (Series("exactly", exactly), Series("at least", at_least)),
        right_label="chance of at least",
    )


def _range(dist: dict[int, Fraction]) -> tuple[int, int]:
    """The totals shown: from the first to the last at least SIGNIFICANT."""
    likely = [t for t, p in dist.items() if p >= SIGNIFICANT] or list(dist)
    return min(likely), max(likely)


def _buckets(
    dist: dict[int, Fraction], shown: tuple[int, int]
) -> tuple[tuple[str, ...], tuple[Fraction, ...], tuple[Fraction, ...]]:
    """The totals from shown[0] to shown[1], each (or each range, past MAX_BARS) with
    its chance of exactly and of at least (its first total)."""
    first, last = shown
    size = -(-(last - first + 1) // MAX_BARS)
    below = sum((p for t, p in dist.items() if t < first), Fraction(0))
    labels: list[str] = []
    exactly: list[Fraction] = []
    at_least: list[Fraction] = []
    for start in range(first, last + 1, size):
        end = min(start + size - 1, last)
        p = sum((dist.get(t, Fraction(0)) for t in range(start, end + 1)), Fraction(0))
        labels.append(str(start) if start == end else f"{start}-{end}")
        exactly.append(p)
        at_least.append(1 - below)
        below += p
    return tuple(labels), tuple(exactly), tuple(at_least)


def compare_chart(found: Sequence[Odds], totals: bool = False) -> Chart:
    """`odds compare A B ...`: each outcome's chance side by side (a series a request),
    the expected damage of attacks, and the distributions of totals side by side where
    `compare_lines` shows them (every request has totals: rolls, or with `totals`)."""
    names = [f"{NAMES[i % len(NAMES)]} {_shown(o.request)}" for i, o in enumerate(found)]
    title = "odds compare " + "  vs  ".join(NAMES[i % len(NAMES)] for i in range(len(found)))
    panels: list[Panel] = []
    keys: list[str] = []
    labels: dict[str, str] = {}
    for o in found:
        for k, _ in o.ordered_outcomes():
            if k != NO_OUTCOME and k not in keys:
                keys.append(k)
                labels.setdefault(k, _label(o, k))
    if keys:
        panels.append(
            Panel(
                "chance of each outcome",
                "bars",
                "outcome",
                "chance",
                tuple(labels[k] for k in keys),
                tuple(
                    Series(n, tuple(o.outcomes.get(k, Fraction(0)) for k in keys))
                    for n, o in zip(names, found, strict=True)
                ),
            )
        )
    if any(o.damage_mean is not None for o in found):
        panels.append(
            Panel(
                "expected damage per attack (misses as 0)",
                "bars",
                "request",
                "expected damage",
                tuple(NAMES[i % len(NAMES)] for i in range(len(found))),
                (Series("expected damage", tuple(o.damage_mean or Fraction(0) for o in found)),),
                percent=False,
            )
        )
    dists = [o.distribution for o in found]
    wanted = totals or all(o.verb == "roll" for o in found) or not panels
    if wanted and all(dists):
        shown = [_range(d) for d in dists if d]
        span = (min(s[0] for s in shown), max(s[1] for s in shown))
        columns = [_buckets(d, span) for d in dists if d]
        panels.append(
            Panel(
                "totals side by side",
                "lines",
                "total",
                "chance of exactly",
                columns[0][0],
                tuple(Series(n, c[1]) for n, c in zip(names, columns, strict=True)),
            )
        )
    return Chart(title, tuple(panels))


def sweep_chart(s: Sweep) -> Chart:
    """A sweep: the chance of each outcome (and of success or better) at every point, a
    line each; an attack's expected damage at every point below."""
    x = tuple(f"{v:+d}" if s.span.signed else str(v) for v, _ in s.points)
    labels = s.labels()
    series = [
        Series(
            labels.get(k, k.replace("_", " ").capitalize()),
            tuple(o.outcomes.get(k, Fraction(0)) for _, o in s.points),
        )
        for k in s.tiers()
        if k != NO_OUTCOME
    ]
    better = next((r[0] for _, o in s.points if (r := success_row(o)) is not None), None)
    if better is not None:
        series.append(Series(better, tuple(o.success or Fraction(0) for _, o in s.points)))
    panels: list[Panel] = []
    if series:
        panels.append(
            Panel(
                f"chance of each outcome by {s.span.over}",
                "lines",
                s.span.over,
                "chance",
                x,
                tuple(series),
                stressed=better is not None,
            )
        )
    if s.has_damage:
        panels.append(
            Panel(
                f"expected damage per attack by {s.span.over} (misses as 0)",
                "lines",
                s.span.over,
                "expected damage",
                x,
                (
                    Series(
                        "expected damage", tuple(o.damage_mean or Fraction(0) for _, o in s.points)
                    ),
                ),
                percent=False,
            )
        )
    return Chart(f"odds {visible(s.request)}  [{s.system}]", tuple(panels))


def compare_sweep_chart(sweeps: Sequence[Sweep]) -> Chart:
    """Sweeps compared: what is weighed (expected damage, else the chance of success) of
    each at every point, a line each, and a mark where one overtakes another."""
    first = sweeps[0]
    x = tuple(f"{v:+d}" if first.span.signed else str(v) for v, _ in first.points)
    names = [f"{NAMES[i % len(NAMES)]} {_shown(s.request)}" for i, s in enumerate(sweeps)]
    index = {v: i for i, (v, _) in enumerate(first.points)}
    marks = tuple(
        Mark(
            index[c.value],
            "even" if c.leader is None else f"{NAMES[c.leader % len(NAMES)]} overtakes",
        )
        for c in break_even(list(sweeps))[1:]
    )
    weighed = first.metric_name
    return Chart(
        "odds compare " + "  vs  ".join(NAMES[i % len(NAMES)] for i in range(len(sweeps))),
        (
            Panel(
                f"{weighed} by {first.span.over}",
                "lines",
                first.span.over,
                weighed,
                x,
                tuple(
                    Series(n, tuple(s.metric(o) for _, o in s.points))
                    for n, s in zip(names, sweeps, strict=True)
                ),
                percent=not first.has_damage,
                marks=marks,
            ),
        ),
    )


def table_chart(odds: TableOdds) -> Chart:
    """`odds table NAME`: the chance of each entry."""
    x = tuple(_shown(f"{e.key} {e.text}") for e in odds.entries)
    return Chart(
        f"odds table {visible(odds.name)} ({visible(odds.die)})  [{odds.system}]",
        (
            Panel(
                "chance of each entry",
                "bars",
                "entry",
                "chance",
                x,
                (Series("chance", tuple(e.chance for e in odds.entries)),),
            ),
        ),
    )


def luck_chart(found: Ledger, labels: dict[tuple[str, str], str], when: str = "") -> Chart:
    """`d20 log --luck`: each outcome seen against expected; successes against expected
    for all the rolls, each character and each verb; damage dealt against expected."""
    rolls = len(found.priced)
    title = f"luck of {rolls:,} logged roll{'s' if rolls != 1 else ''}"
    title += f"  {visible(when)}" if when else ""
    if not found.priced:
        return Chart(title, (), "no rolls to price")
    whole = found.whole()
    systems = sorted({r.system for r in found.priced})

    def named(key: str) -> str:
        return next(
            (labels[s, key] for s in systems if (s, key) in labels),
            key.replace("_", " ").capitalize(),
        )

    panels: list[Panel] = []
    tiers = whole.tiers()
    if tiers:
        panels.append(
            Panel(
                "outcomes",
                "bars",
                "outcome",
                "rolls",
                tuple(named(k) for k in tiers),
                (
                    Series("seen", tuple(float(n) for n, _ in tiers.values())),
                    Series("expected", tuple(e for _, e in tiers.values())),
                ),
                percent=False,
            )
        )
    groups = [("all rolls", whole)]
    groups += [(_shown(g.name or "(no character)"), g) for g in found.by("character") if g.name]
    groups += [(f"{g.name or '?'} (verb)", g) for g in found.by("verb")]
    standings = [(n, s) for n, g in groups if (s := g.successes()) is not None]
    if standings:
        panels.append(_against_expected("successes", "rolls of", "seen", standings))
    dealt = [(n, d) for n, g in groups if (d := g.damage()) is not None]
    if dealt:
        panels.append(_against_expected("damage", "attacks of", "dealt", dealt))
    return Chart(title, tuple(panels))


# --- drawing (matplotlib, imported only here) ------------------------------------------

#: matplotlib's settings for every chart: the same bytes for the same chart (a fixed
#: salt for the ids of the SVG, the font matplotlib ships), text as text (an SVG's labels
#: can be searched and read back), and no text read as mathtext (`$` in a request).
STYLE: dict[str, Any] = {
    "svg.hashsalt": "d20cli",
    "svg.fonttype": "none",
    "text.parse_math": False,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "figure.titlesize": 11,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.alpha": 0.35,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "path.simplify": False,
}
WIDTH_INCHES = 8.0
PANEL_INCHES = 3.0


def draw(chart: Chart, fmt: str) -> bytes:
    """The chart drawn as `fmt` ("svg" or "png"), its data in its description."""
    import io

    import matplotlib
    from matplotlib.figure import Figure

    chart = _visible(chart)
    with matplotlib.rc_context(cast(Any, STYLE)):  # (its keys are typed as literals)
        rows = max(1, len(chart.panels))
        figure = Figure(figsize=(WIDTH_INCHES, 0.6 + PANEL_INCHES * rows), layout="constrained")
        figure.suptitle(chart.title)
        axes = figure.subplots(rows, 1, squeeze=False)[:, 0]
        if not chart.panels:
            axes[0].axis("off")
            axes[0].text(0.5, 0.5, chart.note, ha="center", va="center", style="italic")
        for i, (panel, ax) in enumerate(zip(chart.panels, axes, strict=False)):
            _draw_panel(ax, i, panel)
        data = json.dumps(chart.to_json(), separators=(",", ":"), sort_keys=False)
        metadata: dict[str, Any] = {"Description": data, "Title": chart.title}
        if fmt == "svg":
            metadata["Date"] = None
        buffer = io.BytesIO()
        figure.savefig(buffer, format=fmt, metadata=metadata, dpi=100)
    return buffer.getvalue()


def _visible(chart: Chart) -> Chart:
    """The chart with every text made visible (d20cli.visible): whatever a builder
    passed, no control character reaches the picture (nor breaks its XML)."""
    panels = tuple(
        p._replace(
            title=visible(p.title),
            x_label=visible(p.x_label),
            y_label=visible(p.y_label),
            right_label=visible(p.right_label),
            x=tuple(visible(x) for x in p.x),
            series=tuple(s._replace(name=visible(s.name)) for s in p.series),
            marks=tuple(m._replace(label=visible(m.label)) for m in p.marks),
        )
        for p in chart.panels
    )
    return chart._replace(title=visible(chart.title), panels=panels, note=visible(chart.note))


def _draw_panel(ax: Any, index: int, panel: Panel) -> None:
    from matplotlib.ticker import FuncFormatter, PercentFormatter

    positions = list(range(len(panel.x)))
    count = len(panel.series)
    handles: list[Any] = []
    right = None
    if panel.kind in ("bars", "histogram"):
        drawn = panel.series if panel.kind == "bars" else panel.series[:1]
        width = 0.8 / len(drawn)
        for k, s in enumerate(drawn):
            shift = (k - (len(drawn) - 1) / 2) * width
            bars = ax.bar(
                [p + shift for p in positions],
                [float(v) for v in s.values],
                width=width,
                label=s.name,
                color=f"C{k}",
            )
            for j, patch in enumerate(bars.patches):
                patch.set_gid(f"{gid(index, k)}-{j}")
            handles.append(bars)
    if panel.kind == "histogram" and count > 1:
        right = ax.twinx()
        for k, s in enumerate(panel.series[1:], start=1):
            (line,) = right.plot(
                positions, [float(v) for v in s.values], color=f"C{k}", label=s.name
            )
            line.set_gid(gid(index, k))
            handles.append(line)
        right.set_ylabel(panel.right_label)
        right.set_ylim(0, 1.05)
        right.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        right.grid(False)
        right.spines["right"].set_visible(True)
    if panel.kind == "lines":
        marker = "o" if len(positions) <= 40 else None
        for k, s in enumerate(panel.series):
            (line,) = ax.plot(
                positions,
                [float(v) for v in s.values],
                label=s.name,
                color=f"C{k}",
                marker=marker,
                markersize=3,
                linewidth=2.4 if panel.stressed and k == count - 1 else 1.5,
            )
            line.set_gid(gid(index, k))
            handles.append(line)
    for m in panel.marks:
        ax.axvline(m.at, color="0.35", linestyle="--", linewidth=1)
        ax.annotate(
            f"{m.label} at {panel.x[m.at]}",
            (m.at, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -12),
            textcoords="offset points",
            fontsize=8,
            color="0.25",
        )
    ax.set_title(panel.title, loc="left")
    ax.set_xlabel(panel.x_label)
    ax.set_ylabel(panel.y_label)
    ax.set_xticks(positions, list(panel.x))
    step = -(-len(positions) // 24)
    for j, tick in enumerate(ax.get_xticklabels()):
        tick.set_visible(j % step == 0)
    if len(positions) > 8 and max((len(t) for t in panel.x), default=0) > 6:
        ax.tick_params(axis="x", labelrotation=30)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
    if panel.percent:
        top = max(
            (float(v) for s in panel.series[: 1 if right else None] for v in s.values), default=0
        )
        ax.set_ylim(0, min(1.0, top * 1.12) if top > 0 else 1.0)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    else:
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    ax.legend(handles=handles, loc="best", fontsize=8, framealpha=0.9)


def _against_expected(title: str, of: str, seen: str, rows: list[tuple[str, Any]]) -> Panel:
    """A panel of bars: what each group got (`seen`: its observed count) beside what it
    was expected to get, one pair a group."""
    return Panel(
        title,
        "bars",
        of,
        title,
        tuple(n for n, _ in rows),
        (
            Series(seen, tuple(float(r.observed) for _, r in rows)),
            Series("expected", tuple(r.expected for _, r in rows)),
        ),
        percent=False,
    )
