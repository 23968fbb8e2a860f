"""Pen & Dagger fortune dice at the edge: what is held, and the last roll to spend one on.

The rules (which rolls can gain a die, what a reroll must reach) are pure and live in
`d20cli.rules.pendagger`; this module only remembers things between runs through
the run's state database (`Context.state`, d20cli.store.state):

- `record` runs after every pendagger attempt or luck roll: the roll becomes the holder's
  last roll, and a result that gained a fortune die (the word `fortune` on a natural 20,
  `detail["fortune_gained"]`) adds one die, up to the most a holder may keep: 2, or 4 with
  the boon option. When the holder already has the most, none is added and the result
  says so (its `fortune_gained` is 0).
- `handle` answers the `fortune` verb: `fortune` shows the count held; `fortune spend`
  (or `fortune spend reroll`) spends one die to reroll the last roll
  (`pendagger.spend_fortune`); `fortune spend hint`, `escape` and `value` spend one for the
  text's other three uses, which the narrator plays out (the program records the spend).

Both take `write`: False runs every check and roll but writes nothing (the edge does so
first with `--dice`, so that a wrong number of faces is an error before any state change).
A spend that fails for any reason changes nothing.

The holder is the `--as NAME` character when given, else one shared holder ("player").
`--boon` on any fortune roll or command stores the boon setting, as `fortune boon` does: it
stays in force until `fortune no-boon` (which lets the dice over 2 go, and says so), so the
dice gained under it never stand above the most in force.
"""

from __future__ import annotations

from d20cli.errors import D20Error, RulesError, StateError
from d20cli.frozen import replace
from d20cli.language.requests import CheckRequest, FortuneRequest, LuckRequest
from d20cli.language.vocabulary import SYSTEM_IDS
from d20cli.results import Result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.app.context import Context
    from d20cli.app.options import Options
    from d20cli.dice.roller import Roller
    from d20cli.language.requests import Request
    from d20cli.present.output import Output
    from d20cli.rules.common import Fortune
    from d20cli.store.state import State

DEFAULT_HOLDER = "player"
BOON_KEY = "boon"


def holder(opts: Options) -> str:
    return (opts.as_ or DEFAULT_HOLDER).strip().lower() or DEFAULT_HOLDER


def _readable(store: State, request: Request) -> State:
    """`store`, when what it holds can be shown: a state database that could not be opened
    (read-only, locked, newer) left a state in memory that knows nothing of the saved dice,
    and showing "0 of 2" from it would be wrong."""
    if store.db.unusable is not None:
        raise StateError(
            f"the fortune dice could not be read: {store.db.unusable}", request.text, 1
        )
    return store


def boon(opts: Options, store: State) -> bool:
    return opts.boon or store.settings.get(BOON_KEY) == "on"


def rules_of(system_name: str) -> Fortune | None:
    """The fortune rules of a system (None: it has no fortune dice)."""
    from d20cli.rules import get_system

    return get_system(system_name).fortune


def with_fortune_dice() -> tuple[str, ...]:
    """The ids of the systems that keep fortune dice (those `--boon` is for)."""
    return tuple(sid for sid in SYSTEM_IDS if rules_of(sid) is not None)


def check_boon(opts: Options, system_id: str) -> None:
    """RulesError for `--boon` on a request of a system without fortune dice: the option
    would do nothing there, and no option is silently ignored."""
    if opts.boon and rules_of(system_id) is None:
        takers = ", ".join(with_fortune_dice())
        raise RulesError(f"--boon is for the systems with fortune dice ({takers}), not {system_id}")


def most(rules: Fortune, opts: Options, store: State) -> int:
    return rules.most_boon if boon(opts, store) else rules.most


def is_fortune_roll(result: Result) -> bool:
    """A result that fortune dice concern (in pendagger: an attempt or a luck roll)."""
    if result.natural is None:
        return False
    rules = rules_of(result.system)
    return rules is not None and result.verb in rules.verbs


def record(
    request: Request,
    result: Result,
    opts: Options,
    out: Output,
    context: Context,
    write: bool = True,
) -> Result:
    """Remember a pendagger attempt or luck roll as the last one, and add the fortune die it
    gained. Returns the result (a copy with a note and `detail["fortune"]` when a die was
    gained). Any other result is returned as it is."""
    if not is_fortune_roll(result) or not write:
        return result
    store = context.state(out)
    who = holder(opts)
    store.last_rolls.set(who, result.request, result.system, result.to_json(), defer=True)
    rules = rules_of(result.system)
    assert rules is not None  # is_fortune_roll said so
    notes = result.notes
    if opts.boon and _boon_on(store):
        notes = (*notes, f"the boon is on: up to {rules.most_boon} fortune dice held")
    if not result.detail.get("fortune_gained"):
        return replace(result, notes=notes) if notes != result.notes else result
    limit = most(rules, opts, store)
    held, added = store.fortune.add(who, limit)
    detail = {**result.detail, "fortune": held, "fortune_max": limit}
    if added:
        notes = (*notes, f"fortune dice held: {held} of {limit}")
    else:  # the rules' note promised a die: say none was added, and count none
        notes = tuple(n.removesuffix(rules.gained) for n in notes)
        notes = (*notes, f"already holding the most fortune dice ({limit}): none added")
        detail["fortune_gained"] = 0
    return replace(result, notes=notes, detail=detail)


def _boon_on(store: State) -> bool:
    """Store the boon setting (`--boon` once keeps it in force: the dice it let a holder
    gain stay within the most). True when it was off."""
    if store.settings.get(BOON_KEY) == "on":
        return False
    store.settings.set(BOON_KEY, "on")
    return True


def handle(
    request: Request,
    roller: Roller,
    opts: Options,
    out: Output,
    context: Context,
    write: bool = True,
) -> Result:
    """The `fortune` verb: show the count held, or spend a die (on the last roll, or on
    one of the other uses)."""
    rules = rules_of(opts.system_id())
    if rules is None:
        from d20cli.rules import get_system

        have = [sid for sid in SYSTEM_IDS if get_system(sid).fortune is not None]
        raise RulesError(
            f"{opts.system_id()} has no fortune dice; use --system {' or '.join(have)}",
            request.text,
            1,
        )
    store = _readable(context.state(out), request)
    action = getattr(request, "action", "show")
    if write and (opts.boon or action == "boon"):
        _boon_on(store)
    notes: tuple[str, ...] = ()
    who = holder(opts)
    if action == "no-boon" and write:
        store.settings.set(BOON_KEY, None)
        held = store.fortune.held(who)
        if held > rules.most:  # without the boon, at most `rules.most` are held
            store.fortune.set(who, rules.most)
            notes = (f"the boon is off: {held - rules.most} fortune dice over the most let go",)
    limit = most(rules, opts, store)
    if action == "spend":
        if getattr(request, "use", "reroll") != "reroll":
            return _spend_on(rules, request, store, who, limit, write)
        return _spend(rules, request, roller, store, who, limit, write)

    if not isinstance(request, FortuneRequest):
        raise RulesError("`fortune` shows or spends fortune dice", request.text, 1)
    count = store.fortune.held(who)
    if count > limit:  # a state written by hand or by an older d20 may hold more
        notes = (
            f"over the most: `fortune boon` keeps them, `fortune no-boon` lets {count - limit} go",
        )
    result = rules.show(request, count, limit)
    return replace(result, notes=(*result.notes, *notes)) if notes else result


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


def _spend_on(
    rules: Fortune, request: Request, store: State, who: str, limit: int, write: bool
) -> Result:
    """`fortune spend hint|escape|value`: one die spent, nothing rolled."""

    if not isinstance(request, FortuneRequest):
        raise RulesError("`fortune` shows or spends fortune dice", request.text, 1)
    if store.fortune.held(who) <= 0:
        raise _no_die(request)
    left = store.fortune.take(who) if write else store.fortune.held(who) - 1
    if left is None:  # another process spent the last die meanwhile
        raise _no_die(request)
    result = rules.show(request, left, limit)
    dice = "die" if left == 1 else "dice"
    return replace(
        result,
        label=f"a fortune die spent: {request.use}",
        notes=(f"{USE_NOTES[request.use]}; {left} {dice} left",),
        detail={**result.detail, "fortune_spent": 1, "use": request.use},
    )


def _spend(
    rules: Fortune,
    request: Request,
    roller: Roller,
    store: State,
    who: str,
    limit: int,
    write: bool,
) -> Result:
    if store.fortune.held(who) <= 0:
        raise _no_die(request)
    last = store.last_rolls.get(who)
    if last is None:
        raise StateError("no attempt or luck roll to reroll yet", request.text, 1)
    from d20cli.language.grammar import parse_request

    previous = Result.from_json(last.result)
    original = parse_request(last.request)
    if not isinstance(original, CheckRequest | LuckRequest):
        raise StateError(f"the last roll {last.request!r} cannot be rerolled", request.text, 1)
    try:  # face 1, no better level: the rules say why
        rerolled = rules.reroll(original, previous, roller)
    except D20Error as err:
        raise RulesError(f"{err.message} (last roll: {last.request})", request.text, 1) from None
    if not write:
        left = store.fortune.held(who) - 1
    else:
        taken = store.fortune.take(who)
        if taken is None:  # another process spent the last die meanwhile
            raise StateError("no fortune die held", request.text, 1)
        left = taken
        store.last_rolls.set(who, rerolled.request, rerolled.system, rerolled.to_json())
        if rerolled.detail.get("fortune_gained"):
            left, _ = store.fortune.add(who, limit)
    dice = "die" if left == 1 else "dice"
    return replace(
        rerolled,
        notes=(*rerolled.notes, f"a fortune die spent: {left} {dice} left"),
        detail={**rerolled.detail, "fortune": left, "fortune_max": limit},
    )
