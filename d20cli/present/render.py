"""Results as lines of styled text, for people.

A renderer returns `Line`s: lists of (text, style) segments, where a style is a rich style
string ("bold green", "dim strike") or "". The text alone must say everything (a dropped
die reads `~4~`, an exploded one `6!`), because pipes and NO_COLOR get the plain text;
on a terminal the same segments are printed in colour through rich (d20cli.present.output).
Rendering never decides rules: every outcome and label comes from a system."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from d20cli.results import Damage, DiceSummary, Die, Result
from d20cli.rules.tones import tone

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Seg = tuple[str, str]
Line = list[Seg]

# Outcome badges, by the tone the rules give each outcome tier (d20cli.rules.common.tone).
_TONE_STYLE = {
    "best": "bold black on bright_green",
    "good": "bold black on green",
    "partial": "bold black on yellow",
    "bad": "bold white on red",
    "worst": "bold white on bright_red",
    "first": "bold black on cyan",
    "second": "bold black on magenta",
    "even": "bold black on white",
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
    return (f" {text} ", _TONE_STYLE.get(tone(outcome) or "", "bold reverse"))


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
    if d.parts:  # a compounded die: `9!!(6+3)`, one die whose parts add up
        face += f"!!({'+'.join(map(str, d.parts))})"
    face += "".join(mark for flag, mark in _FLAG_MARKS if flag in d.flags)
    if not d.kept:
        face = f"~{face}~"
    return face


def _fudge(face: int) -> str:
    return {-1: "-", 0: "0", 1: "+"}.get(face, str(face))


def die_style(d: Die) -> str:
    if not d.kept:
        return "dim strike"
    if "custom" in d.flags:  # a custom die's face is a value, not a position
        return "bold"
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
    """The request as rolled, each character's entry named where its label stands
    (`check stealth (+7 expertise=d6, aria) vs 15`), and the system; a roll through a
    character whose entries the text does not show names the character with the system."""
    text, named = header_text(r)
    line: Line = [(text, "bold")]
    who = r.character or ", ".join(r.party or ())
    if system_tag:
        line.append((f"  [{r.system}{f', {who}' if who and not named else ''}]", "dim"))
    return line


def header_text(r: Result) -> tuple[str, bool]:
    """`r.request` with the words of each character's entry shown as `(words, character)`
    after its label, and whether any was."""
    text, named = r.request, False
    for row in (r, *(r.members or ()), *(r.sides or ())):
        entry, who = row.detail.get("entry"), row.character or r.character
        if not isinstance(entry, str) or not row.name or not who:
            continue
        words = f"{row.name} {entry}"
        at = text.find(words)
        if at >= 0:
            text = f"{text[:at]}{row.name} ({entry}, {who}){text[at + len(words) :]}"
            named = True
    return text, named


def house_note(r: Result) -> str | None:
    """The house rules a roll got by default, and from where: `house rules: crit 19 (from
    the config), lucky (from aria)`; None when none came so."""
    shown: dict[str, str] = {}
    for row in (r, *(r.members or ()), *(r.sides or ())):
        came, house = row.detail.get("house_from"), row.detail.get("house")
        if not isinstance(came, dict) or not isinstance(house, dict):
            continue
        for key, where in came.items():
            value = house.get(key)
            word = (
                key
                if value is True
                else f"{key}={value}"
                if key == "crit-dmg"
                else f"{key} {value}"
            )
            shown.setdefault(word, "the config" if where == "config" else str(where))
    if not shown:
        return None
    return "house rules: " + ", ".join(f"{w} (from {where})" for w, where in shown.items())


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
        line.append((_breakdown(labels, r.detail.get("untyped")), "dim"))
    if r.target is not None:  # `3d6 vs 12`, `1d100 <= 45`: success by total
        op = r.detail.get("compare", ">=")
        line += [(f"  {'vs' if op == '>=' else op} {r.target}  ", ""), badge(r.outcome, r.label)]
    return line


def tree_segments(node: Any, parent: int = 0) -> Line:
    """An evaluated expression (d20cli.dice) as segments: numbers as they are, each dice
    term as its notation followed by its dice in parentheses."""
    from d20cli.dice import evaluate as dice

    if isinstance(node, dice.EvalDice):
        term = node.expr
        out: Line = [(str(term), "cyan")]
        if node.count is not None or node.sides is not None:
            # `(1d4)d6`, `1d(1d4+2)`: the count's and the sides' own dice too,
            # `(1d4 (2))d6 (3 4)`, `1d(1d4 (3) + 2) (4)`
            count, sides, rest = term.parts()
            out = [(count, "cyan")]
            if node.count is not None:
                out = [("(", "cyan"), *tree_segments(node.count), (")", "cyan")]
            if node.sides is None:
                out.append((f"d{sides}{rest}", "cyan"))
            else:
                out += [("d(", "cyan"), *tree_segments(node.sides), (f"){rest}", "cyan")]
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
    if isinstance(node, dice.EvalCall):  # `max(1d6 (3), 1d8 (5))`
        out = [(f"{node.expr.name}(", "cyan")]
        for i, arg in enumerate(node.args):
            out += [(", ", "")] if i else []
            out += tree_segments(arg)
        return [*out, (")", "cyan")]
    if isinstance(node, dice.EvalGroup):
        return _group_segments(node)
    return [(str(getattr(node, "total", "")), "")]


def _group_segments(node: Any) -> Line:
    """`{4d6 (6 5 2 1) = 14, ~3d8 (3 4 5) = 12~}kh1`: each expression with its total,
    a dropped one struck through, a pool's success `+` and failure `-` after it."""
    from d20cli.dice import evaluate as dice

    marks = {"success": "+", "failure": "-", "": ""}
    out: Line = [("{", "cyan")]
    for i, item in enumerate(node.items):
        part = tree_segments(item)
        mark = "" if node.marks is None else marks[node.marks[i]]
        if not isinstance(item, dice.EvalNumber):
            part += [(" = ", ""), (f"{item.total}", "bold")]
        part.append((mark, "bold green" if mark == "+" else "red"))
        if node.kept is not None and not node.kept[i]:
            part = [("~", "dim strike"), *((t, "dim strike") for t, _ in part), ("~", "dim strike")]
        out += [(", ", ""), *part] if i else part
    group = node.expr
    mods = ("" if group.keep is None else str(group.keep)) + (
        "" if group.pool is None else str(group.pool)
    )
    return [*out, ("}" + mods, "cyan")]


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
        elif role == "modifier" and len({d.label for d in dice}) == 1 and dice[0].label:
            name = str(dice[0].label)  # `check +3+1d4[bless]`: the dice of bless
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


def _breakdown(labels: dict[str, int], untyped: object) -> str:
    """`  (slashing 3, fire 3, untyped 3)`: each label's subtotal, then the rest of the
    total when there is one (an int), so that the parts add up to the total."""
    parts = [f"{k} {v}" for k, v in labels.items()]
    if isinstance(untyped, int):
        parts.append(f"untyped {untyped}")
    return f"  ({', '.join(parts)})"


def _damage_line(dmg: Damage, mode: str | None = None) -> Line:
    line: Line = [("  damage ", "dim"), (dmg.expression, "cyan"), (" ", "")]
    if dmg.dice:
        line.append(("(", "dim"))
        line += dice_segments(dmg.dice)
        line.append((")", "dim"))
    line.append(("  = ", ""))
    line.append((str(dmg.total), "bold yellow"))
    if dmg.labels:
        line.append((_breakdown(dmg.labels, dmg.untyped), "dim"))
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
    """What a group member or contest side is called in a table: its character (rolled by
    a party) and its label word, else its modifier (members share the request's text, so
    that cannot name them)."""
    own = m.name or ("" if m.modifier is None else _signed(m.modifier))
    return f"{m.character} {own}".strip() if m.character else own


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
    elif r.verb == "roll" and "text" in r.detail:  # inline rolls in text
        lines.append([("  ", ""), (str(r.detail["text"]), "bold")])
        trees = r.tree if isinstance(r.tree, tuple) else ()  # none when read back from JSON
        for i, part in enumerate(r.detail.get("parts", ())):
            shown = tree_segments(trees[i]) if i < len(trees) else [(part["expression"], "cyan")]
            total = (str(part["total"]), "bold yellow")
            lines.append([("    ", ""), *shown, ("  = ", ""), total])
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
    house = house_note(r)
    if house is not None:
        lines.append([(f"  {house}", "italic dim")])
    lines += sealed_lines(r)
    return lines


def sealed_lines(r: Result) -> list[Line]:
    """The marker of a roll made in a sealed session (`detail["sealed"]`, put there by
    d20cli.app.sealed.mark_sealed, and its `receipt` once logged): `sealed #12 (session 3)
    receipt 3f2a9c01b4d7e5f6`."""
    sealed = r.detail.get("sealed")
    if not isinstance(sealed, dict):
        return []
    text = f"  sealed #{sealed.get('position')} (session {sealed.get('session')})"
    receipt = r.detail.get("receipt")
    if isinstance(receipt, dict):
        text += f" receipt {receipt.get('hash')}"
    return [[(text, "dim")]]


def secret_line(shown: dict[str, Any]) -> str:
    """The one line a secret roll shows (d20cli.app.sealed.secret_shown): `secret roll,
    sealed #12 (session 3) receipt 3f2a9c01b4d7e5f6`."""
    sealed = shown.get("sealed")
    sealed = sealed if isinstance(sealed, dict) else {}
    text = f"secret roll, sealed #{sealed.get('position')} (session {sealed.get('session')})"
    receipt = shown.get("receipt")
    if isinstance(receipt, dict):
        text += f" receipt {receipt.get('hash')}"
    return text


def quiet_text(r: Result) -> str:
    """`-q`: one shape per verb, the same fields for every result of it (`d20 help VERB`
    and d20cli.rules.verb_help.QUIET say it): an attack's total and damage (`-` when none
    was rolled), a contest's outcome id and winning side (`-` on a tie), a group's outcome
    id (`-` with no DC), the six scores, the fortune dice held, an inline roll's text, and
    of every other verb the total."""
    if r.verb == "roll" and "text" in r.detail:  # inline rolls: the text filled in
        return str(r.detail["text"])
    if r.scores is not None:  # pendagger's six ability scores
        return " ".join(str(score.total) for score in r.scores)
    if r.sides is not None:  # contest, opposed, compare
        return f"{r.outcome or '-'} {'-' if r.winner is None else r.winner}"
    if r.members is not None:  # group
        return r.outcome or "-"
    if r.verb == "attack":
        return f"{_dash(r.total)} {_dash(None if r.damage is None else r.damage.total)}"
    if r.total is not None:
        return str(r.total)
    fortune = r.detail.get("fortune")
    if fortune is not None:
        return str(fortune)
    return r.outcome or r.label or "-"


def _dash(n: int | None) -> str:
    return "-" if n is None else str(n)
