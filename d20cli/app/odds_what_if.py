"""Odds what-ifs at the edge (`d20 odds`, d20cli.app.run.odds_for_words): a request with a
range swept over its points (`odds check +5 vs 5..30`), a check with no target swept over
the DCs of its totals (`odds check +5`), and `odds compare` of sweeps with their
break-even points; shown as a table, `--json`, `--csv` or `-q`
(d20cli.probability.sweep, d20cli.present.sweep_view). Imported only for such a request:
a plain `odds` line never loads it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from d20cli.app.options import Options
from d20cli.dice.weights import Budget
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.present.output import Output
from d20cli.probability.model import Odds
from d20cli.probability.sweep import Span, Sweep, compare_json, find_range, no_target_span, sweep
from d20cli.rolling.rolls import in_text

if TYPE_CHECKING:
    from d20cli.present.charts import Chart


def sweep_output(
    texts: list[str],
    comparing: bool,
    odds_at: Callable[[str], Odds],
    command: Budget,
    opts: Options,
    out: Output,
) -> ExitStatus | None:
    """The sweep of each text (one, or two or more compared), shown; None when no text
    holds a range word (a `..` inside another word): the odds are then computed as ever."""
    spans: list[Span | None] = []
    for text in texts:
        try:
            spans.append(find_range(text))
        except D20Error as err:
            out.error(in_text(err, text), opts.json)
            return ExitStatus.BAD_INPUT
    if all(span is None for span in spans):
        return None
    try:
        if opts.simulate is not None:
            raise ParseError("a sweep takes exact odds; --simulate estimates one request")
        if comparing:
            _same_points(texts, spans)
        found = [
            sweep(text, span, odds_at, command)
            for text, span in zip(texts, spans, strict=True)
            if span is not None
        ]
    except D20Error as err:
        where = next((t for t, s in zip(texts, spans, strict=True) if s is not None), texts[0])
        out.error(in_text(err, where), opts.json)
        return ExitStatus.BAD_INPUT
    return show(found, comparing, opts, out)


def _same_points(texts: list[str], spans: list[Span | None]) -> None:
    """ParseError unless every compared request sweeps the same points."""
    first = spans[0]
    for text, span in zip(texts, spans, strict=True):
        if span is None:
            raise ParseError(
                "a compare of sweeps needs a range in every request: "
                f"{first.word if first else '5..30'}",
                text,
                len(text) + 1,
            )
        if first is not None and (span.low, span.high) != (first.low, first.high):
            raise ParseError(
                f"a compare of sweeps needs the same points in every request ({first.word})",
                text,
                span.column,
            )


def no_target_output(
    text: str,
    odds: Odds,
    odds_at: Callable[[str], Odds],
    command: Budget,
    opts: Options,
    out: Output,
) -> ExitStatus | None:
    """`odds check +5`, a check with no target: swept over the DCs of its totals (the
    text with `vs LOW..HIGH`); None when the odds are not those of such a check, or the
    request with a DC added does not parse (the odds are then shown as they are)."""
    found = no_target_span(text, odds)
    if found is None:
        return None
    swept, span = found
    try:
        done = sweep(swept, span, odds_at, command)
    except D20Error:
        return None
    return show([done], False, opts, out)


def show(found: list[Sweep], comparing: bool, opts: Options, out: Output) -> ExitStatus:
    """The sweeps as the options ask: JSON, CSV, `-q` or a table for people; first the
    chart of --svg / --png (BAD_INPUT, nothing shown, when it cannot be written)."""
    from d20cli.present.sweep_view import (
        compare_sweep_lines,
        sweep_csv,
        sweep_lines,
        sweep_quiet,
    )

    if opts.svg is not None or opts.png is not None:
        from d20cli.app.charts import charts_written
        from d20cli.present.charts import compare_sweep_chart, sweep_chart

        def chart() -> Chart:
            return compare_sweep_chart(found) if comparing else sweep_chart(found[0])

        if not charts_written(chart, opts, out):
            return ExitStatus.BAD_INPUT

    if opts.json:
        out.json(compare_json(found) if comparing else found[0].to_json())
    elif opts.csv:
        out.text("\n\n".join(sweep_csv(s) for s in found))
    elif opts.quiet:
        out.text("\n\n".join(sweep_quiet(s) for s in found))
    elif comparing:
        out.lines(compare_sweep_lines(found, width=out.columns()))
    else:
        out.lines(sweep_lines(found[0], width=out.columns()))
    return ExitStatus.OK
