"""Initiative: who acts first, the same way in every system (docs/rules-decisions.md,
"Initiative").

Each combatant rolls its system's initiative (`InitiativeRule.roll`: a d20 check with
the modifier and words of its `init` entry, else of the entry its system takes
initiative from), and the order is:

1. the higher total first;
2. equal totals: the higher modifier first (what was added to the d20);
3. equal totals and modifiers: a roll-off. Each of the tied rolls a d20, highest first,
   and those still tied roll again, as often as needed (`settle`). A combatant added
   later that ties with some already rolled off rolls until it is placed among them.

Pure: no I/O; the dice come from the roller passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from d20cli.errors import ParseError, RulesError
from d20cli.frozen import frozen, replace
from d20cli.results import Die, Result
from d20cli.rules.encounter import NO_VITALS, Condition, Vitals

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.language.requests import CheckRequest

#: A roll-off that has not settled after this many rounds of d20s is refused (a --dice
#: list that repeats one face for ever).
MAX_ROLLOFF_ROUNDS = 100
MAX_COMBATANTS = 200  # one order holds at most this many
_INT64 = 2**63


@frozen
class InitiativeRoll:
    """One initiative roll: the total, what was added to the d20, and every die rolled."""

    total: int
    modifier: int
    dice: tuple[Die, ...]


@frozen
class InitiativeRule:
    """How a system rolls initiative.

    entries: the character entries it falls back on when a character has no `init`
    entry, in the order they are looked for (`dex`, `dexterity`); roll: the roll of one
    combatant from its words parsed as a check (`check +3 adv`); summary: the rule in
    one line, for help and docs."""

    entries: tuple[str, ...]
    roll: Callable[[CheckRequest, Roller], InitiativeRoll]
    summary: str


def from_check(
    resolve: Callable[[CheckRequest, Roller], Result],
) -> Callable[[CheckRequest, Roller], InitiativeRoll]:
    """An initiative roll made as the system's own check with no target (`resolve` is
    the system's resolver): its total, its modifier and its dice."""

    def roll(request: CheckRequest, roller: Roller) -> InitiativeRoll:
        refuse_target(request)
        result = resolve(replace(request, verb="check"), roller)
        if result.total is None:
            raise RulesError("this initiative roll gives no total", request.text, 1)
        modifier = result.modifier if result.modifier is not None else 0
        return InitiativeRoll(result.total, modifier, result.dice)

    return roll


def refuse_target(request: CheckRequest) -> None:
    """RulesError for words an initiative roll has no use for: a target or damage."""
    if request.target is not None:
        raise RulesError("an initiative roll has no target (drop `vs ...`)", request.text, 1)
    if request.damage is not None:
        raise RulesError("an initiative roll has no damage (drop `dmg ...`)", request.text, 1)


@frozen
class Combatant:
    """One place in the order. kind: "character" or "monster"; rolloff: the roll-off
    d20s it rolled, in order (empty when it tied with no one); seq: when it joined (the
    last key, so that the order never depends on how the rows were read).

    In an encounter (rules/encounter.py): pinned: a fixed place (`init pin lair 20`,
    its total; it loses ties and never rolls off); reported: a total the player rolled
    at the table and reported (`init add cleo =17`); words: the words of its roll (`+2
    adv`), rolled again by `init dyn`, and system: the system it rolled in; vitals: its
    HP, defenses and notes; conditions: its conditions, each with when it ends."""

    name: str
    kind: str
    total: int
    modifier: int
    dice: tuple[Die, ...] = ()
    rolloff: tuple[int, ...] = ()
    seq: int = 0
    pinned: bool = False
    reported: bool = False
    words: str = ""
    system: str = ""
    vitals: Vitals = NO_VITALS
    conditions: tuple[Condition, ...] = ()


def sort_key(c: Combatant) -> tuple[int, bool, int, tuple[int, ...], int]:
    """Highest total (a pinned place loses ties: a lair action at 20 comes after every
    roll of 20), then highest modifier, then the roll-off faces (compared in turn;
    settled combatants never share them), then who joined first."""
    modifier = 0 if c.pinned else c.modifier
    return (-c.total, c.pinned, -modifier, tuple(-f for f in c.rolloff), c.seq)


def ordered(combatants: Sequence[Combatant]) -> list[Combatant]:
    """The combatants in initiative order (see the module's docstring)."""
    return sorted(combatants, key=sort_key)


def _unsettled(a: Combatant, b: Combatant) -> bool:
    """Whether the order cannot tell a and b apart: the same total and modifier, and the
    roll-off faces of one begin the other's (none at all included). A pinned place is
    never tied: it comes after the rolls of its total, in the order pins were made."""
    if a.pinned or b.pinned or (a.total, a.modifier) != (b.total, b.modifier):
        return False
    n = min(len(a.rolloff), len(b.rolloff))
    return a.rolloff[:n] == b.rolloff[:n]


def settle(combatants: Sequence[Combatant], roller: Roller) -> list[Combatant]:
    """The combatants in order, with roll-offs rolled wherever two cannot be told apart.

    In each round, in the current order, every combatant still tied with another rolls
    one d20, unless it has already rolled more roll-off dice than every one it is tied
    with (a newcomer rolls until it has caught up with those who rolled off before it)."""
    people = ordered(combatants)
    for _ in range(MAX_ROLLOFF_ROUNDS):
        rolls: dict[int, bool] = {}
        for i, a in enumerate(people):
            tied = [b for j, b in enumerate(people) if j != i and _unsettled(a, b)]
            if tied and all(len(a.rolloff) <= len(b.rolloff) for b in tied):
                rolls[i] = True
        if not rolls:
            return people
        people = [
            replace(c, rolloff=(*c.rolloff, roller.roll(1, 20))) if i in rolls else c
            for i, c in enumerate(people)
        ]
        people = ordered(people)
    raise RulesError(
        f"the initiative roll-off did not settle after {MAX_ROLLOFF_ROUNDS} rounds of d20s"
    )


@frozen
class Turn:
    """Where the encounter is: the round (1 for the first) and whose turn it is."""

    round: int
    turn: str | None


def advance(order: Sequence[Combatant], now: Turn) -> Turn:
    """The next turn: the one after the current in the order; after the last, the first
    again, and the round goes up by one. With no current turn, the first's, round 1."""
    if not order:
        return Turn(now.round, None)
    names = [c.name for c in order]
    if now.turn not in names:
        return Turn(max(now.round, 1), names[0])
    i = names.index(now.turn) + 1
    if i == len(names):
        return Turn(now.round + 1, names[0])
    return Turn(now.round, names[i])


def after_removal(
    order: Sequence[Combatant],
    gone: str,
    now: Turn,
    takes_turns: Callable[[Combatant], bool] | None = None,
) -> Turn:
    """The turn once `gone` leaves `order` (the order before it leaves): its own turn
    passes to the one after it (a new round when it was the last) that takes turns
    (`takes_turns`: not out of the fight; when no one left does, the one after it)."""
    if now.turn != gone:
        return now
    if all(c.name == gone for c in order):
        return Turn(now.round, None)
    left = [c for c in order if c.name != gone]
    after = advance(order, now)
    if takes_turns is not None and any(takes_turns(c) for c in left):
        by_name = {c.name: c for c in left}
        while after.turn is not None and not takes_turns(by_name[after.turn]):  # (one does)
            after = advance(left, after)
    return after


def _checked(name: str, roll: InitiativeRoll) -> None:
    for what, value in (("total", roll.total), ("modifier", roll.modifier)):
        if not -_INT64 <= value < _INT64:
            raise ParseError(f"{name}'s initiative {what} is too large to keep ({value:.3e})")


def joined(
    kept: Sequence[Combatant],
    new: Sequence[tuple[str, str, InitiativeRoll]],
    roller: Roller,
    joining: Sequence[Combatant] | None = None,
) -> list[Combatant]:
    """`kept` and the newcomers (name, kind, roll), the roll-offs rolled, in order
    (`joining`: what else each newcomer brings, as `add`'s)."""
    if len(kept) + len(new) > MAX_COMBATANTS:
        raise ParseError(
            f"an initiative order holds at most {MAX_COMBATANTS} combatants "
            f"(it has {len(kept)}; `d20 init rm NAME` or `d20 init clear` make room)"
        )
    seq = max((c.seq for c in kept), default=0)
    everyone = list(kept)
    for i, (name, kind, roll) in enumerate(new, 1):
        _checked(name, roll)
        c = Combatant(name, kind, roll.total, roll.modifier, roll.dice, (), seq + i)
        if joining is not None:
            c = replace(
                joining[i - 1],
                name=name,
                kind=kind,
                total=roll.total,
                modifier=roll.modifier,
                dice=roll.dice,
                rolloff=(),
                seq=seq + i,
            )
        everyone.append(c)
    settled = settle(everyone, roller)
    roller.finish()  # --dice: every face used, before anything is written
    return settled


__all__ = [
    "MAX_COMBATANTS",
    "MAX_ROLLOFF_ROUNDS",
    "Combatant",
    "InitiativeRoll",
    "InitiativeRule",
    "Turn",
    "advance",
    "after_removal",
    "from_check",
    "joined",
    "ordered",
    "refuse_target",
    "settle",
    "sort_key",
]
