"""`d20 log --luck` for people: one screen to paste or post (d20cli.store.log_luck
computes it). Every text from the log (a request, a character's name) is made visible."""

from __future__ import annotations

from typing import Any

from d20cli.number_format import one_in
from d20cli.present.render import Line
from d20cli.probability.luck import Group, Ledger, Standing, in_words
from d20cli.probability.pricing import SIMULATED_ROLLS
from d20cli.visible import visible


def _standing(s: Standing, unit: str) -> str:
    sign = "+" if s.difference >= 0 else ""
    how = "" if s.exact else ", normal approximation"
    return (
        f"{s.observed:g} {unit} against {s.expected:.1f} expected ({sign}{s.difference:.1f}); "
        f"p = {s.p_value:.2f}{how}"
    )


def luck_lines(found: Ledger, labels: dict[tuple[str, str], str], when: str) -> list[Any]:
    """The report: what was priced, the successes and tiers against expected, the damage,
    the least likely roll, the streaks, then per character and per verb. `labels`: an
    outcome's name by (system, outcome id); `when`: the rolls' span, said in the head."""
    lines: list[Line] = []
    whole = found.whole()
    head = f"luck of {len(found.priced):,} logged roll{'s' if len(found.priced) != 1 else ''}"
    lines.append([(head, "bold"), (f"  {when}" if when else "", "dim")])
    apart = []
    if found.forced:
        apart.append(f"{found.forced:,} with forced dice (--dice)")
    apart += [f"{n:,} {why}" for why, n in sorted(found.left_out.items())]
    if apart:
        lines.append([("  left out: " + "; ".join(apart), "dim")])
    if found.simulated:
        n = found.simulated
        lines.append(
            [
                (
                    f"  {n:,} priced by simulation ({SIMULATED_ROLLS:,} rolls of each request "
                    "too costly for exact odds)",
                    "dim",
                )
            ]
        )
    if found.sealed:
        lines.append([(f"  {found.sealed:,} of them sealed: verified luck (d20 verify)", "green")])
    if not found.priced:
        lines.append([("  no rolls to price", "italic dim")])
        return lines
    s = whole.successes()
    if s is not None:
        lines.append(
            [("  successes ", "dim"), (_standing(s, "of " + str(len(whole.graded()))), "")]
        )
        lines.append([("    ", ""), (in_words(s.percentile), "bold yellow")])
    tiers = whole.tiers()
    if tiers:
        lines.append([("  outcomes:", "dim")])
        width = max(len(_label(labels, found, k)) for k in tiers) + 2
        for key, (seen, expected) in tiers.items():
            name = _label(labels, found, key)
            lines.append(
                [
                    (f"    {name:<{width}}", ""),
                    (f"{seen:>5}", "bold"),
                    (f"  expected {expected:7.1f}", "dim"),
                ]
            )
    d = whole.damage()
    if d is not None:
        lines.append([("  damage ", "dim"), (_standing(d, "dealt"), "")])
        lines.append(
            [("    ", ""), (in_words(d.percentile, "possible evenings' damage"), "bold yellow")]
        )
    least = whole.least_likely()
    if least is not None and least.chance is not None:
        who = f" ({visible(least.character)})" if least.character else ""
        said = _label(labels, found, least.outcome or "")
        lines.append(
            [
                ("  least likely: ", "dim"),
                (f"{visible(least.request)}{who}: {said}", "bold"),
                (f", {one_in(least.chance)}", ""),
            ]
        )
    wins, losses = whole.streaks()
    if wins.length or losses.length:
        lines.append(
            [
                ("  longest streaks: ", "dim"),
                (f"{_streaks(wins.length, losses.length)} in a row", ""),
            ]
        )
    for key, title in (("character", "by character"), ("verb", "by verb")):
        groups = found.by(key)
        if len(groups) < 2 and key == "character" and groups and groups[0].name is None:
            continue
        lines.append([(f"  {title}:", "dim")])
        lines += [_group_line(g, key) for g in groups]
    return lines


def _streaks(wins: int, losses: int) -> str:
    """`4 successes, 1 failure` (the longest streaks, in words)."""
    return (
        f"{wins} success{'es' if wins != 1 else ''}, {losses} failure{'s' if losses != 1 else ''}"
    )


def _group_line(g: Group, key: str) -> Line:
    name = visible(g.name) if g.name else ("(no character)" if key == "character" else "?")
    s = g.successes()
    said = (
        ""
        if s is None
        else f"{s.observed:g} successes / {s.expected:.1f} expected, {in_words(s.percentile)}"
    )
    return [(f"    {name:<14}", "bold"), (f"{len(g.rolls):>5} rolls  ", ""), (said, "dim")]


def _label(labels: dict[tuple[str, str], str], found: Ledger, key: str) -> str:
    systems = {r.system for r in found.priced}
    for system in sorted(systems):
        if (system, key) in labels:
            return labels[system, key]
    return key.replace("_", " ")


# --- the recap: a few plain lines to paste or post (`--recap`) -------------------------

#: Characters a recap names one by one (the rest are counted).
RECAP_CHARACTERS = 6
_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\*_~`|>#[]()<@"})


def _md(text: str, most: int = 60) -> str:
    """Text from the log (a name) in a recap: made visible, cut to `most` characters,
    Markdown and mentions escaped."""
    shown = visible(text)
    if len(shown) > most:
        shown = shown[: most - 1] + "…"
    return shown.translate(_MARKDOWN)


def _code(text: str, most: int = 120) -> str:
    """A request in a code span (no backtick inside can end it)."""
    shown = visible(text).replace("`", "ˋ")
    if len(shown) > most:
        shown = shown[: most - 1] + "…"
    return f"`{shown}`"


def recap_text(found: Ledger, labels: dict[tuple[str, str], str], when: str) -> str:
    """The report in a few plain lines for a chat message (`d20 log --luck --recap`): no
    colour, Markdown a chat reads (a bold head, a list, requests in code spans), every
    text from the log made visible and escaped. `when`: the rolls' span, said in the
    head."""
    whole = found.whole()
    rolls = len(found.priced)
    head = f"**Luck of {rolls:,} roll{'s' if rolls != 1 else ''}**"
    notes = [_md(when, 120)] if when else []
    if found.sealed:
        notes.append(f"{found.sealed:,} sealed: verified luck")
    if found.simulated:
        notes.append(f"{found.simulated:,} priced by simulation")
    apart = found.forced + sum(found.left_out.values())
    if apart:
        notes.append(f"{apart:,} left out")
    lines = [head + (f" ({'; '.join(notes)})" if notes else "")]
    if not found.priced:
        lines.append("- no rolls to price")
        return "\n".join(lines)
    s = whole.successes()
    if s is not None:
        lines.append(
            f"- Successes: {s.observed:g} of {len(whole.graded()):,} against "
            f"{s.expected:.1f} expected: {in_words(s.percentile)}"
        )
    d = whole.damage()
    if d is not None:
        lines.append(
            f"- Damage: {d.observed:g} dealt against {d.expected:.1f} expected: "
            + in_words(d.percentile, "possible evenings' damage")
        )
    least = whole.least_likely()
    if least is not None and least.chance is not None:
        who = f" ({_md(least.character)})" if least.character else ""
        said = _md(_label(labels, found, least.outcome or ""))
        lines.append(f"- Least likely: {_code(least.request)}{who}: {said}, {one_in(least.chance)}")
    wins, losses = whole.streaks()
    if wins.length or losses.length:
        lines.append(f"- Longest streaks: {_streaks(wins.length, losses.length)} in a row")
    named = [g for g in found.by("character") if g.name is not None]
    shown = []
    for g in named[:RECAP_CHARACTERS]:
        gs = g.successes()
        if gs is not None:
            shown.append(
                f"{_md(g.name or '')} {gs.observed:g}/{gs.expected:.1f}, {in_words(gs.percentile)}"
            )
    if shown:
        more = len(named) - RECAP_CHARACTERS
        lines.append(
            "- By character: " + "; ".join(shown) + (f"; and {more:,} more" if more > 0 else "")
        )
    return "\n".join(lines)
