"""A combatant's condition in an encounter: hit points, defenses, conditions with
durations, and what happens at 0 HP (docs/encounter.md; each system's rule in its
docs/systems page).

What every system shares is here: `Vitals` (HP current, max and temporary, AC or the
system's defense, notes, death saves, the state at 0 HP), `Condition` (a name and when it
ends), the arithmetic of damage and healing (`take_damage`, `take_healing`: temporary HP
first, never below 0 or above the max), and how conditions end as the turn passes
(`ended`). What a system says of 0 HP, of a turn that starts at 0 HP, which states pass
a combatant's turn over (`Harm.no_turn`: dead), and which words a condition adds to an
attack against its holder, an attack its holder makes, or a check or save its holder
rolls (`Harm.checking`: levelup's poisoned, disadvantage on ability checks) is the
system's `Harm` (its hook on `System.harm`), kept in its own module.

Pure: no I/O; any dice (a death save, a toughness resistance) come from the roller passed
in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from d20cli.frozen import field, frozen, replace
from d20cli.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.results import Result

#: The largest HP, AC, damage or healing an encounter keeps (docs/limits.md).
MAX_HIT_POINTS = 1_000_000
#: Conditions one combatant holds at most (docs/limits.md).
MAX_CONDITIONS = 20
#: Rounds a condition may last (`blessed 10r`) at most (docs/limits.md).
MAX_ROUNDS = 10_000
#: The states a combatant can be in, "" for up and fighting.
STATES = ("", "down", "dying", "stable", "dead", "defeated", "dazed", "staggered", "incapacitated")


@frozen
class Vitals:
    """What an encounter keeps of a combatant beside its place in the order.

    hp, max_hp: current and maximum hit points (None: not tracked); temp: temporary HP;
    ac: armour class, or the defense an attack is made against (mm: parry); toughness:
    mm's toughness defense (a damage resistance); notes: free text; state: "" (up), or
    what 0 HP made it (`STATES`); saves: a levelup character's death saves (successes,
    failures); bruises: mm's bruises (each a -1 to toughness)."""

    hp: int | None = None
    max_hp: int | None = None
    temp: int = 0
    ac: int | None = None
    toughness: int | None = None
    notes: str = ""
    state: str = ""
    saves: tuple[int, int] = (0, 0)
    bruises: int = 0


NO_VITALS = Vitals()


@frozen
class Condition:
    """A condition and when it ends.

    until: "" (until taken off), "start" or "end" (of `of`'s turn); of: whose turn;
    round: the first round whose start or end of `of`'s turn ends it (None: the next one).
    `blessed 10r` set on aria's turn in round 2 is ("blessed", "start", "aria", 12):
    ten rounds, to the start of the same turn."""

    name: str
    until: str = ""
    of: str = ""
    round: int | None = None

    def describe(self) -> str:
        """`blessed (until start of aria's turn, round 12)`, or the name alone."""
        if not self.until:
            return self.name
        when = f"until {self.until} of {self.of}'s turn"
        if self.round is not None:
            when += f", round {self.round}"
        return f"{self.name} ({when})"


def ends_at(c: Condition, event: str, who: str, round_: int) -> bool:
    """Whether condition `c` ends at `event` ("start" or "end") of `who`'s turn in
    `round_`."""
    return c.until == event and c.of == who and (c.round is None or round_ >= c.round)


@frozen
class Said:
    """What a change did, in words, and the vitals it left."""

    vitals: Vitals
    lines: tuple[str, ...] = ()


def take_damage(v: Vitals, amount: int) -> tuple[Vitals, int]:
    """`v` after `amount` damage (temporary HP first), and the damage past 0 HP."""
    if v.hp is None:
        return v, 0
    temp = max(v.temp - amount, 0)
    left = amount - (v.temp - temp)
    hp = v.hp - left
    return replace(v, hp=max(hp, 0), temp=temp), max(-hp, 0)


def take_healing(v: Vitals, amount: int) -> Vitals:
    """`v` healed by `amount` (never past the max, when there is one)."""
    if v.hp is None:
        return v
    hp = v.hp + amount
    if v.max_hp is not None:
        hp = min(hp, max(v.max_hp, v.hp))
    return replace(v, hp=hp)


def hp_text(v: Vitals) -> str:
    """`5/7 HP`, `5/7+3 HP` (temporary), or "" when HP are not tracked."""
    if v.hp is None:
        return ""
    most = "" if v.max_hp is None else f"/{v.max_hp}"
    temp = f"+{v.temp}" if v.temp else ""
    return f"{v.hp}{most}{temp} HP"


#: A `CheckRule`'s word for a roll that fails automatically: no word of the request
#: language says it, so the roll is rolled and shown as a failure (`auto_failed`).
FAILS = "fails"


class CheckRule(NamedTuple):
    """What a condition does to a roll its holder makes: to the verbs `verbs`, labelled
    one of `labels` (a check's or save's label word, `save dex`: any case; () any label,
    none too), it adds `word` (`dis`), or, when `word` is FAILS, the roll fails
    automatically; `says`: the roll it is about, in words ("ability checks", "a Strength
    or Dexterity save")."""

    verbs: tuple[str, ...]
    labels: tuple[str, ...]
    word: str
    says: str

    def applies(self, verb: str, label: str | None) -> bool:
        if verb.lower() not in self.verbs:
            return False
        return not self.labels or (label or "").lower() in self.labels


class CheckWords(NamedTuple):
    """What a combatant's conditions do to one check or save (`check_words`): the words
    they add, the conditions that add them, and (condition, roll) for each condition
    that makes it fail automatically."""

    words: tuple[str, ...] = ()
    by: tuple[str, ...] = ()
    fails: tuple[tuple[str, str], ...] = ()


def check_words(
    conditions: Sequence[Condition],
    checking: Mapping[str, tuple[CheckRule, ...]],
    verb: str,
    label: str | None,
) -> CheckWords:
    """What `conditions` do to a roll of `verb` labelled `label` by `checking` (a
    system's `Harm.checking`)."""
    words: list[str] = []
    by: list[str] = []
    fails: list[tuple[str, str]] = []
    for c in conditions:
        for rule in checking.get(c.name.lower(), ()):
            if not rule.applies(verb, label):
                continue
            if rule.word == FAILS:
                fails.append((c.name, rule.says))
            else:
                words.append(rule.word)
                if c.name not in by:
                    by.append(c.name)
    return CheckWords(tuple(words), tuple(by), tuple(fails))


def auto_failed(result: Result, why: str) -> Result:
    """`result` as a failure that the rules made without its dice (`why`: "aria is
    paralyzed: a Strength or Dexterity save fails automatically"): the dice and total as
    rolled, the outcome a failure, a note saying what the dice alone gave."""
    if result.success is False:
        note = f"{why} (the dice failed too)"
        return replace(result, notes=(*result.notes, note))
    rolled = result.label or "ungraded"
    note = f"{why} (the dice alone: {rolled})"
    return replace(
        result, outcome="failure", label="Failure", success=False, notes=(*result.notes, note)
    )


@frozen
class Harm:
    """A system's rule for damage, healing and 0 HP (its `System.harm`).

    hit_points: whether the system counts HP (mm: no; damage is a toughness resistance);
    hurt(vitals, amount, kind, critical, roller): the vitals after `amount` damage
    (a critical hit's, for death saves), with what to say; heal(vitals, amount, kind): the
    same for healing; turn_start(vitals, kind, roller): what happens when a combatant in
    `vitals` starts its turn (levelup: a dying character's death save), roller None when
    no dice may be rolled (a sealed session: it says what to roll); conditions: the
    condition names the system knows (completion offers them; any other word is a
    condition too); against: condition -> the words it adds to an attack against its
    holder; summary: the rule in one line, for help and docs; checking: condition -> what
    it does to a roll its holder makes, a check, a save or an attack (`CheckRule`s);
    no_turn: the states whose holder
    takes no turns (`init next` passes over it: levelup's dead)."""

    hit_points: bool
    hurt: Callable[[Vitals, int, str, bool, Roller], Said]
    heal: Callable[[Vitals, int, str], Said]
    turn_start: Callable[[Vitals, str, Roller | None], Said]
    conditions: tuple[str, ...] = ()
    against: Mapping[str, str] = field(default_factory=dict)
    summary: str = ""
    checking: Mapping[str, tuple[CheckRule, ...]] = field(default_factory=dict)
    no_turn: frozenset[str] = frozenset()

    def takes_turns(self, v: Vitals) -> bool:
        """Whether a combatant in `v` takes its turn (not in a `no_turn` state)."""
        return v.state not in self.no_turn


def nothing_at_start(v: Vitals, kind: str, roller: Roller | None) -> Said:
    """A turn's start that changes nothing (the systems without death saves)."""
    return Said(v)


def plain_heal(v: Vitals, amount: int, kind: str) -> Said:
    """Healing that brings a combatant at 0 HP back up (every system with HP)."""
    if v.hp is None:
        return Said(v, ("no HP to heal: give HP with `init add NAME ... hp N`",))
    was = v.state
    healed = take_healing(v, amount)
    if was in ("down", "dying", "stable", "defeated") and healed.hp:
        healed = replace(healed, state="", saves=(0, 0))
        return Said(healed, (f"up again at {hp_text(healed)}",))
    if was == "dead":
        return Said(v, ("is dead: healing does not bring it back",))
    return Said(healed, (hp_text(healed),))


def attack_words(conditions: Sequence[Condition], against: Mapping[str, str]) -> list[str]:
    """The words a target's conditions add to an attack against it (`Harm.against`)."""
    return [against[c.name.lower()] for c in conditions if c.name.lower() in against]


__all__ = [
    "FAILS",
    "MAX_CONDITIONS",
    "MAX_HIT_POINTS",
    "MAX_ROUNDS",
    "NO_VITALS",
    "STATES",
    "CheckRule",
    "CheckWords",
    "Condition",
    "Harm",
    "Said",
    "Vitals",
    "attack_words",
    "auto_failed",
    "check_words",
    "ends_at",
    "hp_text",
    "nothing_at_start",
    "plain_heal",
    "take_damage",
    "take_healing",
]
