"""An attack on a combatant of the encounter: `d20 attack +5 vs AC goblin-2 dmg 1d8+3`
(docs/encounter.md, "Attacks that know the fight").

The target's AC is read from the encounter and put in the request's place; the target's
conditions add the words its system says they give an attack against it
(`Harm.against`: levelup's restrained, a d20 with advantage), and the attacker's
conditions the words they give an attack it makes (`Harm.checking`: levelup's prone,
disadvantage). The attacker is the character rolled as, when it is in the order: its
words are added as to any roll of hers (d20cli.app.commands.combatant_checks); else whose
turn it is, whose words are added here. The request is rolled as any
other (critical damage by the house rule in force), and on a hit its damage is applied to
the target as `init hurt` would, by the target's system's rule, halved by `resistant`,
doubled by `vulnerable`, none with `immune`. The damage is one change of the encounter
(`init undo` takes it back).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from d20cli.errors import D20Error, ExitStatus, ParseError

if TYPE_CHECKING:
    from d20cli.app.context import Context
    from d20cli.app.options import Options
    from d20cli.present.output import Output
    from d20cli.results import Result
    from d20cli.rules.initiative import Combatant
    from d20cli.store.initiative import Encounter

#: The words after an attack on a combatant that change the damage it takes.
MULTIPLIERS = {"resistant": (1, 2), "vulnerable": (2, 1), "immune": (0, 1)}

Request = Callable[..., Any]


def attack_on(
    words: Sequence[str],
    opts: Options,
    out: Output,
    context: Context | None,
    request: Request,
) -> tuple[ExitStatus, list[Result]] | None:
    """Roll an attack on a combatant and apply its damage; None when the word after `vs`
    names no combatant (the request is then read as any other)."""
    from d20cli.app.commands import encounter as enc
    from d20cli.app.context import Context
    from d20cli.rules import get_system
    from d20cli.rules.encounter import attack_words, check_words
    from d20cli.store import initiative

    mine = context is None
    context = context or Context()
    try:
        try:
            found = initiative.load(context.state(out))
        except D20Error:
            return None
        at = next(
            i
            for i, w in enumerate(words)
            if i and w.lower() not in ("vs", "ac") and words[i - 1].lower() in ("vs", "ac")
        )
        name = words[at]
        if name.lower() not in {c.name.lower() for c in found.order}:
            return None
        try:
            target = found.find(name)
            ac = target.vitals.ac
            if ac is None:
                raise ParseError(
                    f"{target.name} has no AC kept: d20 init add {target.name} ... ac N",
                )
            if opts.repeat > 1:
                raise ParseError("an attack on a combatant is rolled once: drop --repeat")
            kept = [w for w in words if w.lower() not in MULTIPLIERS]
            times = [MULTIPLIERS[w.lower()] for w in words if w.lower() in MULTIPLIERS]
            if len(times) > 1:
                raise ParseError("give one of resistant, vulnerable or immune")
            system = get_system(target.system) if target.system else context.system_for(opts)
            harm = system.harm
            if harm is None:
                raise ParseError(f"{system.id} has no rule for damage in an encounter")
            kept[at] = str(ac)
            added = attack_words(target.conditions, harm.against)
            attacker = attacker_of(found, opts, context)
            by: tuple[str, ...] = ()
            why_by: tuple[str, ...] = ()
            if attacker is not None and attacker is not target and not rolled_as(opts, context):
                own = get_system(attacker.system) if attacker.system else system
                if own.harm is not None:
                    said = check_words(attacker.conditions, own.harm.checking, "attack", None)
                    by, why_by = said.words, said.by
            text = " ".join([*kept, *added, *by])
        except D20Error as err:
            out.error(err, opts.json)
            return ExitStatus.BAD_INPUT, []
        if added and not (opts.json or opts.quiet):
            why = ", ".join(c.name for c in target.conditions if c.name in harm.against)
            out.text(f"{target.name} is {why}: {' '.join(added)}")
        if by and attacker is not None and not (opts.json or opts.quiet):
            out.text(f"{attacker.name} (attacking) is {', '.join(why_by)}: {' '.join(by)}")
        from d20cli.app.options import request_text

        status, results = request(request_text(text.split(), opts), opts, out, context)
        result = results[-1] if results else None
        if result is None or result.damage is None or not result.success:
            return status, results
        damage = result.damage.total
        if times:
            damage = damage * times[0][0] // times[0][1]
        roller = context.roller(opts)
        critical = result.damage.critical
        try:
            found, change = enc.edit(
                context.state(out),
                [f"hurt {target.name} {damage}", "(attack)"],
                lambda f: enc.hurt_one(f, target.name, damage, system, roller, critical=critical),
            )
        except D20Error as err:
            out.error(err, opts.json)
            return ExitStatus.BAD_INPUT, results
        if opts.json:
            hurt = found.find(target.name)
            out.json(
                {
                    "target": target.name,
                    "damage": damage,
                    "change": change,
                    "combatant": initiative.combatant_json(hurt),
                }
            )
        else:
            out.text("\n".join(change["said"]))
        return status, results
    finally:
        if mine:
            out.save()
            out.forget(context.save)
            context.close()


def rolled_as(opts: Options, context: Context) -> bool:
    """Whether a request with these options is rolled as a character (`--as aria`, or
    the character in use)."""
    who = (context.with_character(opts).as_ or "").lower()
    return bool(who) and who != "none"


def attacker_of(found: Encounter, opts: Options, context: Context) -> Combatant | None:
    """Who makes an attack on a combatant: the character it is rolled as (`--as aria`, or
    the character in use), else whose turn it is; None when that one is not in the
    order."""
    who = (context.with_character(opts).as_ or "").lower()
    names = {c.name.lower(): c for c in found.order}
    if who and who != "none":
        return names.get(who)
    return names.get((found.turn or "").lower())


__all__ = ["MULTIPLIERS", "attack_on", "attacker_of", "rolled_as"]
