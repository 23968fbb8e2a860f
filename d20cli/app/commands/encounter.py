"""The game master's encounter (`d20 init ...`, docs/encounter.md): what a combatant is
beside its place in the order (HP, AC or the system's defense, notes), damage and
healing, conditions with durations, the turn passing (conditions ending, death saves,
initiative rolled again each round), undo, and saved encounters. d20cli.app.commands
.initiative sends these subcommands here; every change is one transaction with one row
of history (d20cli.store.initiative.edit), and every rule is the system's
(`System.harm`, d20cli.rules.encounter).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from d20cli.errors import D20Error, ParseError
from d20cli.frozen import replace
from d20cli.rules.encounter import (
    MAX_CONDITIONS,
    MAX_HIT_POINTS,
    MAX_ROUNDS,
    Condition,
    Said,
    Vitals,
    ends_at,
    hp_text,
)
from d20cli.rules.initiative import Combatant, InitiativeRoll, Turn, advance, settle

if TYPE_CHECKING:
    from d20cli.app.context import Context
    from d20cli.app.options import Options
    from d20cli.dice.roller import Roller
    from d20cli.present.output import Output
    from d20cli.rules import System
    from d20cli.store.initiative import Encounter
    from d20cli.store.state import State

NAME = re.compile(r"[^\W\d_][\w'-]{0,39}")
_NUMBER = re.compile(r"[+-]?[0-9]{1,7}")
_ROUNDS = re.compile(r"([0-9]{1,5})r", re.IGNORECASE)


def number(word: str, what: str, lo: int = 0, hi: int = MAX_HIT_POINTS) -> int:
    """`word` as a whole number from lo to hi; ParseError saying what it should be."""
    if not _NUMBER.fullmatch(word) or not lo <= int(word) <= hi:
        raise ParseError(f"{what} is a whole number from {lo:,} to {hi:,}, not {word[:40]!r}")
    return int(word)


# --- joining: `init add NAME ... hp N ac N =N`, `init pin NAME N` -------------------------


class Joining:
    """What `init add` was told beside the initiative words: HP (a number or dice), AC,
    toughness, a reported total (`=17`), notes."""

    def __init__(self) -> None:
        self.hp: str | None = None
        self.ac: int | None = None
        self.toughness: int | None = None
        self.reported: int | None = None


def split_joining(words: list[str]) -> tuple[list[str], Joining]:
    """`goblin +2 x3 hp 2d6 ac 15` -> (`goblin +2 x3`, HP "2d6", AC 15); `cleo =17` ->
    (`cleo`, reported 17)."""
    kept: list[str] = []
    told = Joining()
    i = 0
    while i < len(words):
        w = words[i]
        low = w.lower()
        if i and low in ("hp", "ac", "toughness"):
            if i + 1 >= len(words):
                raise ParseError(f"{w} needs a value: {w} 7")
            value = words[i + 1]
            if low == "hp":
                if told.hp is not None:
                    raise ParseError("give hp once")
                told.hp = value
            elif low == "ac":
                told.ac = number(value, "ac", -MAX_HIT_POINTS)
            else:
                told.toughness = number(value, "toughness", -MAX_HIT_POINTS)
            i += 2
            continue
        if i and w.startswith("="):
            told.reported = number(w[1:], "a reported initiative (=17)", -MAX_HIT_POINTS)
            i += 1
            continue
        kept.append(w)
        i += 1
    return kept, told


def hit_points(
    told: Joining, count: int, system: System, context: Context, roller: Roller
) -> list[int | None]:
    """Each newcomer's HP: the number given, or the dice given rolled for each (after
    their initiative dice); None when none were given."""
    if told.hp is None:
        return [None] * count
    if system.harm is not None and not system.harm.hit_points:
        raise ParseError(
            f"{system.id} counts no hit points: give the defense instead (toughness N)"
        )
    if _NUMBER.fullmatch(told.hp):
        return [number(told.hp, "hp")] * count
    request = context.parse(f"roll {told.hp}")
    if getattr(request, "verb", "") != "roll":
        raise ParseError(f"hp is a number or dice such as 2d6, not {told.hp[:40]!r}")
    found: list[int | None] = []
    for _ in range(count):
        total = system.resolve(request, roller).total
        found.append(min(max(total or 0, 1), MAX_HIT_POINTS))
    return found


def vitals_of(hp: int | None, told: Joining) -> Vitals:
    return Vitals(hp=hp, max_hp=hp, ac=told.ac, toughness=told.toughness)


def character_vitals(
    lookup: Callable[[str], str | None], imported: Mapping[str, Any] | None = None
) -> Joining:
    """A character's HP and AC entries (`hp`, `ac` or `armor`, `toughness`) as if given
    with `init add`: `lookup(name)` gives an entry's words; where she has none, the hit
    points and armor class her imported sheet recorded (`imported`: `[aria.imported]`,
    d20 char import)."""
    told = Joining()
    sheet = imported or {}
    hp = lookup("hp")
    if hp is not None:
        told.hp = hp.strip()
    elif type(sheet.get("hp")) is int and 0 < sheet["hp"] <= MAX_HIT_POINTS:
        told.hp = str(sheet["hp"])
    for name in ("ac", "armor", "armour"):
        value = lookup(name)
        if value is not None:
            told.ac = number(value.strip(), f"the {name} entry", -MAX_HIT_POINTS)
            break
    else:
        if type(sheet.get("ac")) is int and 0 <= sheet["ac"] <= MAX_HIT_POINTS:
            told.ac = sheet["ac"]
    tough = lookup("toughness")
    if tough is not None:
        told.toughness = number(tough.strip().lstrip("+"), "the toughness entry", -MAX_HIT_POINTS)
    return told


# --- the turn passing -------------------------------------------------------------------


def _tick(
    order: list[Combatant], event: str, who: str | None, round_: int, ended: list[str]
) -> list[Combatant]:
    """The order once the conditions that end at `event` of `who`'s turn have ended
    (each said in `ended`)."""
    if who is None:
        return order
    out = []
    for c in order:
        gone = [k for k in c.conditions if ends_at(k, event, who, round_)]
        if gone:
            ended += [f"{c.name} is no longer {k.name}" for k in gone]
            c = replace(c, conditions=tuple(k for k in c.conditions if k not in gone))
        out.append(c)
    return out


def next_turn(
    found: Encounter,
    roll_again: Callable[[Combatant], InitiativeRoll],
    harm_of: Callable[[Combatant], System],
    roller: Roller,
    dice: bool,
) -> tuple[Encounter, dict[str, list[str]]]:
    """The turn passed (rules: docs/encounter.md, "The turn passes"): the conditions that
    end at the end of this turn end; a combatant whose state takes no turns (its system's
    `Harm.no_turn`: levelup's dead) is passed over, and the conditions that end at the
    start or end of its turn end as it is passed; a new round with `dyn` on rolls
    everyone's initiative again (`roll_again`; pins, reported totals and those passed
    over stay); the conditions that end at the start of the next turn end; then the
    system's rule for a turn's start (levelup: a dying character's death save; `dice`
    False: said, not rolled). ParseError, nothing changed, when no one takes turns."""
    if not found.order:
        raise ParseError("no initiative order yet: `d20 init roll` rolls the party's")

    def out_of_turns(c: Combatant) -> bool:
        harm = harm_of(c).harm
        return harm is not None and not harm.takes_turns(c.vitals)

    if all(out_of_turns(c) for c in found.order):
        states = sorted({c.vitals.state for c in found.order})
        raise ParseError(
            f"no one in the order takes turns (all {' or '.join(states)}): "
            "d20 init heal NAME N, init rm NAME or init clear"
        )
    old = Turn(found.round, found.turn)
    ended: list[str] = []
    said: list[str] = []
    passed: list[str] = []
    order = _tick(list(found.order), "end", old.turn, old.round, ended)
    now = advance(order, old)
    rolled = False
    while True:
        if found.dyn and now.round > old.round and not rolled:
            again = []
            for c in order:
                if c.pinned or c.reported or out_of_turns(c):
                    again.append(replace(c, rolloff=()))
                else:
                    r = roll_again(c)
                    again.append(
                        replace(c, total=r.total, modifier=r.modifier, dice=r.dice, rolloff=())
                    )
            order = settle(again, roller)
            now = Turn(now.round, order[0].name)
            rolled = True
            said.append(f"initiative rolled again for round {now.round}")
        here = next(c for c in order if c.name == now.turn)
        if not out_of_turns(here):
            break
        passed.append(here.name)
        said.append(f"passed over {here.name} ({here.vitals.state})")
        order = _tick(order, "start", here.name, now.round, ended)
        order = _tick(order, "end", here.name, now.round, ended)
        now = advance(order, now)
    order = _tick(order, "start", now.turn, now.round, ended)
    for i, c in enumerate(order):
        if c.name == now.turn:
            harm = harm_of(c).harm
            if harm is not None:
                result = harm.turn_start(c.vitals, c.kind, roller if dice else None)
                order[i] = replace(c, vitals=result.vitals)
                said += [f"{c.name}: {line}" for line in result.lines]
    return replace(found, round=now.round, turn=now.turn, order=tuple(order)), {
        "ended": ended,
        "said": said,
        "passed": passed,
    }


# --- damage and healing -----------------------------------------------------------------


def hurt_one(
    found: Encounter,
    name: str,
    amount: int,
    system: System,
    roller: Roller,
    critical: bool = False,
    heal: bool = False,
    temp: bool = False,
) -> tuple[Encounter, dict[str, list[str]]]:
    """`name` hurt (or healed) by `amount`, by its system's rule (`System.harm`)."""
    c = found.find(name)
    harm = system.harm
    if harm is None:
        raise ParseError(f"{system.id} has no rule for damage in an encounter")
    if temp:
        if c.vitals.hp is None:
            raise ParseError(f"{c.name} has no HP kept: give them with init add ... hp N")
        result = Said(replace(c.vitals, temp=max(c.vitals.temp, amount)))
        result = Said(result.vitals, (f"{amount} temporary HP: {hp_text(result.vitals)}",))
    elif heal:
        result = harm.heal(c.vitals, amount, c.kind)
    else:
        result = harm.hurt(c.vitals, amount, c.kind, critical, roller)
    order = tuple(replace(x, vitals=result.vitals) if x.name == c.name else x for x in found.order)
    what = "heals" if heal or temp else "takes"
    head = f"{c.name} {what} {amount}" + ("" if heal or temp else " damage")
    if not harm.hit_points and not heal:
        head = f"{c.name} resists damage of rank {amount}"
    elif not harm.hit_points:
        head = f"{c.name} recovers {amount}"
    return replace(found, order=order), {"said": [head, *(f"{c.name}: {x}" for x in result.lines)]}


# --- conditions -------------------------------------------------------------------------


def condition_of(words: Sequence[str], now: Turn, holder: str) -> Condition | None:
    """`prone`, `blessed 10r`, `bane until end of aria's turn`, `prone off` (None: take
    it off)."""
    if not words:
        raise ParseError("init cond needs a condition: d20 init cond goblin-2 prone")
    name = words[0]
    if not NAME.fullmatch(name):
        raise ParseError(
            f"{name[:40]!r} is not a condition's name: a letter, then letters, digits, -, _ or '"
        )
    rest = [w.lower() for w in words[1:]]
    if not rest:
        return Condition(name.lower())
    if rest == ["off"]:
        return None
    match = _ROUNDS.fullmatch(rest[0]) if len(rest) == 1 else None
    if match:
        rounds = int(match.group(1))
        if not 1 <= rounds <= MAX_ROUNDS:
            raise ParseError(f"a condition lasts 1 to {MAX_ROUNDS:,} rounds, not {rounds:,}")
        return Condition(name.lower(), "start", now.turn or holder, max(now.round, 1) + rounds)
    if len(rest) >= 4 and rest[0] == "until" and rest[1] in ("end", "start") and rest[2] == "of":
        who = words[4] if len(words) > 4 else ""
        if who.lower().endswith(("'s", "’s")):
            who = who[:-2]
        tail = rest[4:]
        if who and NAME.fullmatch(who) and tail in ([], ["turn"]):
            return Condition(name.lower(), rest[1], who, None)
    raise ParseError(
        "a condition lasts: Nr (rounds), until end of NAME's turn, until start of NAME's "
        f"turn, or is taken off: {name} off (not {' '.join(words[1:])[:60]!r})"
    )


def set_condition(
    found: Encounter, name: str, words: Sequence[str]
) -> tuple[Encounter, dict[str, list[str]]]:
    c = found.find(name)
    cond = condition_of(words, Turn(found.round, found.turn), c.name)
    if cond is not None and cond.until:
        found.find(cond.of)  # the turn it ends on is in the order
        cond = replace(cond, of=found.find(cond.of).name)
    word = words[0].lower()
    kept = tuple(k for k in c.conditions if k.name != word)
    if cond is None:
        if len(kept) == len(c.conditions):
            raise ParseError(f"{c.name} is not {word}")
        said = f"{c.name} is no longer {word}"
    else:
        if len(kept) >= MAX_CONDITIONS:
            raise ParseError(f"a combatant holds at most {MAX_CONDITIONS} conditions")
        kept = (*kept, cond)
        said = f"{c.name} is {cond.describe()}"
    order = tuple(replace(x, conditions=kept) if x.name == c.name else x for x in found.order)
    return replace(found, order=order), {"said": [said]}


# --- what is shown ----------------------------------------------------------------------


def show(
    found: Encounter, change: dict[str, Any] | None, opts: Options, out: Output, order: bool = True
) -> None:
    """The order (or, with `order` False, only what the change said), as text or as the
    encounter's JSON with the change under "change"."""
    from d20cli.present.initiative_view import order_lines

    if opts.json:
        shown = found.to_json()
        if change is not None:
            shown["change"] = change
        out.json(shown)
        return
    lines: list[str] = []
    if change is not None:
        lines += change.get("said", [])
    if order:
        lines = [*order_lines(found.round, found.turn, found.order, found.dyn), *lines]
    if change is not None:
        lines += [f"ended: {e}" for e in change.get("ended", [])]
    out.text("\n".join(lines))


def record_text(words: Sequence[str]) -> str:
    """What a change was, as its history row keeps it (`init hurt goblin-2 7`)."""
    return " ".join(["init", *words])[:200]


def edit(
    state: State,
    words: Sequence[str],
    change: Callable[[Encounter], tuple[Encounter, dict[str, Any]]],
) -> tuple[Encounter, dict[str, Any]]:
    from d20cli.store import initiative

    def changed(found: Encounter) -> tuple[Encounter, dict[str, Any]]:
        new, said = change(found)
        return new, {"what": record_text(words), **said}

    try:
        return initiative.edit(state, record_text(words), changed)
    except D20Error:
        raise


__all__ = [
    "NAME",
    "Joining",
    "character_vitals",
    "condition_of",
    "edit",
    "hit_points",
    "hurt_one",
    "next_turn",
    "number",
    "record_text",
    "set_condition",
    "show",
    "split_joining",
    "vitals_of",
]
