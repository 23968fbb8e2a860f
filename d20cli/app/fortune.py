"""Pen & Dagger fortune dice at the edge: what is held, and the last roll to spend one on.

The rules (which rolls can gain a die, what a reroll must reach) are pure and live in
`d20cli.systems.pendagger`; this module only remembers things between runs through
`d20cli.store.state`:

- `record` runs after every pendagger attempt or luck roll: the roll becomes the holder's
  last roll, and a result that gained a fortune die (the word `fortune` on a natural 20,
  `detail["fortune_gained"]`) adds one die, up to the most a holder may keep: 2, or 4 with
  the boon option (`--boon` on the roll, or the stored boon setting).
- `handle` answers the `fortune` verb: `fortune` shows the count held; `fortune spend`
  (or `fortune spend reroll`) spends one die to reroll the last roll
  (`pendagger.spend_fortune`); `fortune spend hint`, `escape` and `value` spend one for the
  text's other three uses, which the narrator plays out (the program records the spend).

Both take `write`: False runs every check and roll but writes nothing (the edge does so
first with `--dice`, so that a wrong number of faces is an error before any state change).
A spend that fails for any reason changes nothing.

The holder is the `--as NAME` character when given, else one shared holder ("player").
`fortune --boon` stores the boon setting, so later rolls keep up to 4 dice.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from d20cli.errors import D20Error, RulesError, StateError
from d20cli.results import Damage, Result

if TYPE_CHECKING:
    from d20cli.app.options import Options
    from d20cli.dice.roller import Roller
    from d20cli.language.requests import Request
    from d20cli.present.output import Output
    from d20cli.store.state import State

SYSTEM = "pendagger"
#: The verbs whose results can gain a fortune die or be rerolled by spending one.
FORTUNE_VERBS = ("attempt", "check", "attack", "defend", "luck")
DEFAULT_HOLDER = "player"
BOON_KEY = "boon"


def holder(opts: Options) -> str:
    return (opts.as_ or DEFAULT_HOLDER).strip().lower() or DEFAULT_HOLDER


def _state(out: Output) -> State:
    from d20cli.store.state import shared

    return shared(out.warn)


def boon(opts: Options, store: State) -> bool:
    return opts.boon or store.get(BOON_KEY) == "on"


def most(opts: Options, store: State) -> int:
    from d20cli.systems.pendagger import FORTUNE_MAX, FORTUNE_MAX_BOON

    return FORTUNE_MAX_BOON if boon(opts, store) else FORTUNE_MAX


def is_fortune_roll(result: Result) -> bool:
    """A pendagger result that fortune dice concern (an attempt or a luck roll)."""
    return result.system == SYSTEM and result.verb in FORTUNE_VERBS and result.natural is not None


def record(
    request: Request, result: Result, opts: Options, out: Output, write: bool = True
) -> Result:
    """Remember a pendagger attempt or luck roll as the last one, and add the fortune die it
    gained. Returns the result (a copy with a note and `detail["fortune"]` when a die was
    gained). Any other result is returned as it is."""
    if not is_fortune_roll(result) or not write:
        return result
    store = _state(out)
    who = holder(opts)
    store.set_last_roll(who, result.request, result.system, result.to_json(), defer=True)
    if not result.detail.get("fortune_gained"):
        return result
    limit = most(opts, store)
    held, added = store.add_fortune(who, limit)
    if added:
        note = f"fortune dice held: {held} of {limit}"
    else:
        note = f"already holding the most fortune dice ({limit}): none added"
    return dataclasses.replace(
        result,
        notes=(*result.notes, note),
        detail={**result.detail, "fortune": held, "fortune_max": limit},
    )


def handle(
    request: Request, roller: Roller, opts: Options, out: Output, write: bool = True
) -> Result:
    """The `fortune` verb: show the count held, or spend a die (on the last roll, or on
    one of the other uses)."""
    if opts.system_id() != SYSTEM:
        from d20cli.systems import system_id

        if system_id(opts.system_id()) != SYSTEM:
            raise RulesError(
                "fortune dice are a pendagger rule; use --system pendagger", request.text, 1
            )
    store = _state(out)
    action = getattr(request, "action", "show")
    if write and (opts.boon or action == "boon") and store.get(BOON_KEY) != "on":
        store.set(BOON_KEY, "on")
    notes: tuple[str, ...] = ()
    who = holder(opts)
    if action == "no-boon" and write:
        store.set(BOON_KEY, None)
        from d20cli.systems.pendagger import FORTUNE_MAX

        held = store.fortune(who)
        if held > FORTUNE_MAX:  # without the boon, at most FORTUNE_MAX are held
            store.set_fortune(who, FORTUNE_MAX)
            notes = (f"the boon is off: {held - FORTUNE_MAX} fortune dice over the most let go",)
    limit = most(opts, store)
    if action == "spend":
        if getattr(request, "use", "reroll") != "reroll":
            return _spend_on(request, store, who, limit, write)
        return _spend(request, roller, opts, store, who, limit, write)
    from d20cli.language.requests import FortuneRequest
    from d20cli.systems.pendagger import fortune_result

    if not isinstance(request, FortuneRequest):
        raise RulesError("`fortune` shows or spends fortune dice", request.text, 1)
    result = fortune_result(request, store.fortune(who), limit)
    return dataclasses.replace(result, notes=(*result.notes, *notes)) if notes else result


#: What the narrator does with a die spent on each use other than a reroll (the text's
#: list of uses, in the project's words).
USE_NOTES = {
    "hint": "a hint for a puzzle or a course of action",
    "escape": "a way out of a social situation, in an exciting or funny fashion",
    "value": "a found object or item is worth more",
}


def _no_die(request: Request) -> StateError:
    return StateError(
        "no fortune die held: gain one with a natural 20 and the word fortune", request.text, 1
    )


def _spend_on(request: Request, store: State, who: str, limit: int, write: bool) -> Result:
    """`fortune spend hint|escape|value`: one die spent, nothing rolled."""
    from d20cli.language.requests import FortuneRequest
    from d20cli.systems.pendagger import fortune_result

    if not isinstance(request, FortuneRequest):
        raise RulesError("`fortune` shows or spends fortune dice", request.text, 1)
    if store.fortune(who) <= 0:
        raise _no_die(request)
    left = store.take_fortune(who) if write else store.fortune(who) - 1
    if left is None:  # another process spent the last die meanwhile
        raise _no_die(request)
    result = fortune_result(request, left, limit)
    dice = "die" if left == 1 else "dice"
    return dataclasses.replace(
        result,
        label=f"a fortune die spent: {request.use}",
        notes=(f"{USE_NOTES[request.use]}; {left} {dice} left",),
        detail={**result.detail, "fortune_spent": 1, "use": request.use},
    )


def _spend(
    request: Request,
    roller: Roller,
    opts: Options,
    store: State,
    who: str,
    limit: int,
    write: bool,
) -> Result:
    if store.fortune(who) <= 0:
        raise _no_die(request)
    last = store.last_roll(who)
    if last is None:
        raise StateError("no attempt or luck roll to reroll yet", request.text, 1)
    from d20cli.language.grammar import parse_request
    from d20cli.language.requests import CheckRequest, LuckRequest
    from d20cli.systems.pendagger import spend_fortune

    previous = result_from_json(last.result)
    original = parse_request(last.request)
    if not isinstance(original, CheckRequest | LuckRequest):
        raise StateError(f"the last roll {last.request!r} cannot be rerolled", request.text, 1)
    try:  # face 1, no better level: the rules say why
        rerolled = spend_fortune(original, previous, roller)
    except D20Error as err:
        raise RulesError(f"{err.message} (last roll: {last.request})", request.text, 1) from None
    if not write:
        left = store.fortune(who) - 1
    else:
        taken = store.take_fortune(who)
        if taken is None:  # another process spent the last die meanwhile
            raise StateError("no fortune die held", request.text, 1)
        left = taken
        store.set_last_roll(who, rerolled.request, rerolled.system, rerolled.to_json())
        if rerolled.detail.get("fortune_gained"):
            left, _ = store.add_fortune(who, limit)
    dice = "die" if left == 1 else "dice"
    return dataclasses.replace(
        rerolled,
        notes=(*rerolled.notes, f"a fortune die spent: {left} {dice} left"),
        detail={**rerolled.detail, "fortune": left, "fortune_max": limit},
    )


_RESULT_FIELDS = {f.name for f in dataclasses.fields(Result)}


def result_from_json(data: dict[str, Any]) -> Result:
    """Rebuild a saved Result from its JSON (the inverse of `Result.to_json`; detail keys
    come back as detail)."""
    from d20cli.results import Die

    def die(d: dict[str, Any]) -> Die:
        return Die(
            int(d["sides"]),
            int(d["face"]),
            bool(d.get("kept", True)),
            str(d.get("role", "roll")),
            d.get("label"),
            tuple(d.get("flags", ())),
            d.get("by"),
        )

    known = (
        "request", "system", "verb", "dice", "natural", "modifier", "total", "target",
        "outcome", "label", "success", "degree", "name", "damage", "members", "sides",
        "winner", "notes", "dice_summary", "scores",
    )  # fmt: skip
    damage = data.get("damage")
    members = data.get("members")
    sides = data.get("sides")
    return Result(
        request=str(data.get("request", "")),
        system=str(data.get("system", "")),
        verb=str(data.get("verb", "")),
        dice=tuple(die(d) for d in data.get("dice", ())),
        natural=data.get("natural"),
        modifier=data.get("modifier"),
        total=data.get("total"),
        target=data.get("target"),
        outcome=data.get("outcome"),
        label=data.get("label"),
        success=data.get("success"),
        degree=data.get("degree"),
        name=data.get("name"),
        damage=Damage(
            int(damage["total"]),
            tuple(die(d) for d in damage.get("dice", ())),
            bool(damage.get("critical")),
            str(damage.get("expression", "")),
        )
        if isinstance(damage, dict)
        else None,
        members=tuple(result_from_json(m) for m in members) if members is not None else None,
        sides=tuple(result_from_json(s) for s in sides) if sides is not None else None,
        winner=data.get("winner"),
        detail={k: v for k, v in data.items() if k not in known and k not in _RESULT_FIELDS},
        notes=tuple(data.get("notes", ())),
    )
