"""A check or save rolled as a combatant of the encounter: `d20 save dex vs 15 --as aria`
(docs/encounter.md, "Checks and saves of a combatant").

When a request is rolled as one character (`--as aria`, or the character in use) and
that character is in the encounter's order, her conditions add the words her system
says they give the roll (`Harm.checking`: levelup's poisoned, `dis` on ability checks),
said in one line before the roll as an attack on a combatant says its own ("aria is
poisoned: dis"); a condition that makes the roll fail automatically (levelup's
paralyzed, on a Strength or Dexterity save) is said the same way, and the result is
shown as a failure with a note of what the dice alone gave (`rules.encounter
.auto_failed`). The words are in the request as rolled, so its text, JSON and the roll
log say them.

A request with no character never opens the encounter; one with a character reads the
names file beside the state database first (d20cli.store.combatant_names) and opens the
encounter only when her name is there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from d20cli.errors import D20Error

if TYPE_CHECKING:
    from d20cli.app.context import Context
    from d20cli.app.options import Options
    from d20cli.present.output import Output


def as_combatant(text: str, opts: Options, out: Output, context: Context) -> tuple[str, str]:
    """`text` (a request, verb first) with the words the conditions of the combatant it
    is rolled as add, and why it fails automatically ("" when it does not); what they do
    is said on `out` (not with --json or -q). `text` unchanged when it is rolled as no
    one, as a party, as one not in the order, or does not parse (its error is the
    request's own, said when it is rolled)."""
    who = opts.as_
    if not who:
        return text, ""
    from d20cli.store.characters import is_party
    from d20cli.store.combatant_names import listed

    if is_party(who) or not listed(who):
        return text, ""
    from d20cli.language.requests import CheckRequest
    from d20cli.rules import get_system
    from d20cli.rules.encounter import check_words
    from d20cli.store import initiative

    try:
        found = initiative.load(context.state(out))
    except D20Error:
        return text, ""
    low = who.lower()
    holder = next((c for c in found.order if c.name.lower() == low), None)
    if holder is None or not holder.conditions:
        return text, ""
    system = get_system(holder.system) if holder.system else context.system_for(opts)
    if system.harm is None or not system.harm.checking:
        return text, ""
    try:
        request = context.request_for(text, context.system_for(opts), opts)
    except D20Error:
        return text, ""
    if not isinstance(request, CheckRequest):
        return text, ""
    said = check_words(holder.conditions, system.harm.checking, request.verb, request.name)
    lines: list[str] = []
    if said.words:
        text = f"{text} {' '.join(said.words)}"
        lines.append(f"{holder.name} is {', '.join(said.by)}: {' '.join(said.words)}")
    why = ""
    if said.fails:
        conditions = ", ".join(name for name, _ in said.fails)
        why = f"{holder.name} is {conditions}: {said.fails[0][1]}"
        lines.append(why)
    if lines and not (opts.json or opts.quiet):
        out.text("\n".join(lines))
    return text, why


__all__ = ["as_combatant"]
