"""Mechanics that docs/rules.md calls conventions for all systems, and the one adapter to the
dice engine.

- advantage and disadvantage cancel, however many of each (`net_advantage`);
- rolling the d20 (two with advantage or disadvantage, keep the higher / lower) (`roll_d20`);
- evaluating a modifier or damage expression through `d20cli.dice` (`evaluate`,
  `expression_text`, `double_dice`): the only place that knows the dice engine's API;
- checking the words of a request against what a system offers (`reject_words`), so the
  error says what that system has instead.

No rules of a particular system live here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from d20cli.dice import evaluate as evaluation
from d20cli.dice import tree as dice
from d20cli.dice.tree import Expr
from d20cli.errors import RulesError
from d20cli.frozen import field, frozen
from d20cli.language.requests import (
    CHECK_WORD_KINDS,
    CheckRequest,
    FortuneRequest,
    LuckRequest,
    Request,
    RollRequest,
)
from d20cli.language.vocabulary import CHECK_WORDS
from d20cli.records import NamedTuple
from d20cli.results import Die, Result, shared_die
from d20cli.rules import roll
from d20cli.rules.critical import critical_damage as critical_damage
from d20cli.rules.critical import double_dice as double_dice
from d20cli.rules.critical import max_dice as max_dice
from d20cli.rules.offers import Offer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from d20cli.dice.roller import Roller
    from d20cli.rules.encounter import Harm
    from d20cli.rules.initiative import InitiativeRule


def net_advantage(adv: int, dis: int) -> int:
    """+1 for advantage, -1 for disadvantage, 0 for a normal roll.

    Any number of advantage sources with any number of disadvantage sources cancel;
    several of one kind are still one."""
    if adv > 0 and dis == 0:
        return 1
    if dis > 0 and adv == 0:
        return -1
    return 0


def advantage_notes(adv: int, dis: int) -> tuple[str, ...]:
    """The note that advantage and disadvantage cancelled, when both were asked for."""
    if adv > 0 and dis > 0:
        return ("advantage and disadvantage cancel: one d20",)
    return ()


class D20Roll(NamedTuple):
    """The kept d20 face and every d20 rolled (the dropped one has kept=False; a 1 that
    `lucky` rolled again has kept=False and the flag "rerolled", its new face follows the
    d20s of the roll); notes: what `lucky` changed ("1 rerolled -> 14 (lucky)"). A small
    value made on every roll: a NamedTuple costs half a frozen class's making."""

    natural: int
    dice: tuple[Die, ...]
    notes: tuple[str, ...] = ()


def roll_d20(
    roller: Roller, adv: int = 0, dis: int = 0, role: str = "d20", lucky: bool = False
) -> D20Roll:
    """Roll the d20 (two with advantage or disadvantage) and keep the higher / lower.

    On equal faces the first die is kept. The faces come from `roller.d20s`, which the odds
    engine answers with the kept face alone (weighted), so a walk over every outcome takes
    20 branches for an advantage roll, not 400. lucky: each d20 showing a 1 is rolled once
    more and the new face stands in for it (`Roller.d20s` gives the faces in that order)."""
    net = net_advantage(adv, dis)
    faces = roller.d20s(net, lucky) if lucky else roller.d20s(net)
    count = 1 if net == 0 else 2
    if len(faces) > count:
        return _lucky_d20(faces, count, net, role)
    first = faces[0]
    if net == 0:
        return D20Roll(first, (d20_die(first, True, role),))
    second = faces[1]
    keep_first = first >= second if net > 0 else first <= second
    dice = (d20_die(first, keep_first, role), d20_die(second, not keep_first, role))
    return D20Roll(first if keep_first else second, dice)


def _lucky_d20(faces: tuple[int, ...], count: int, net: int, role: str) -> D20Roll:
    """A roll where `lucky` rolled a 1 again: faces[:count] are the d20s, then one new
    face for each that showed a 1, in order."""
    rolled = list(faces[:count])
    rerolls = iter(faces[count:])
    final = [next(rerolls) if face == 1 else face for face in rolled]
    keep = 0 if count == 1 or (final[0] >= final[1] if net > 0 else final[0] <= final[1]) else 1
    first: list[Die] = []
    after: list[Die] = []
    notes: list[str] = []
    for i, (face, new) in enumerate(zip(rolled, final, strict=True)):
        if face == 1:
            first.append(Die(20, 1, False, role, flags=("rerolled",)))
            after.append(d20_die(new, i == keep, role))
            notes.append(f"1 rerolled -> {new} (lucky)")
        else:
            first.append(d20_die(face, i == keep, role))
    return D20Roll(final[keep], tuple(first + after), tuple(notes))


def d20_die(face: int, kept: bool, role: str = "d20") -> Die:
    """`Die(20, face, kept, role)`, shared (`shared_die`: building a Die costs as much as
    the rest of roll_d20, and each is written in JSON once)."""
    return shared_die(20, face, kept, role, None, ())


class Evaluated(NamedTuple):
    """An evaluated expression: its total, its dice (in roll order) and the expression
    (None for none), whose text is written only when asked for (a modifier's never is).
    A small value made on every check (a NamedTuple, as D20Roll)."""

    total: int
    dice: tuple[Die, ...]
    expr: Expr | None
    labels: dict[str, int] | None = None  # {label: subtotal} of labelled terms, if any
    untyped: int | None = None  # the rest of the total beside them (Evaluated.untyped)

    @property
    def text(self) -> str:
        """The normalised text of the expression ("" for none)."""
        return expression_text(self.expr)


def evaluate(expr: Expr | None, roller: Roller, role: str) -> Evaluated:
    """Roll a modifier or damage expression (None counts as +0)."""
    if expr is None:
        return _NOTHING
    # A plain number (+5) or a negative one (-1) has nothing to roll.
    if type(expr) is dice.Number:
        return Evaluated(expr.value, (), expr)
    if type(expr) is dice.Neg and type(expr.operand) is dice.Number:
        return Evaluated(-expr.operand.value, (), expr)
    preset = roller.preset_total(expr, role)  # the odds engine answers with a whole total
    if preset is not None:
        return Evaluated(preset, (), expr)
    ev = evaluation.evaluate(expr, roller, role=role)
    if "[" not in str(expr):  # only a labelled term has "["
        return Evaluated(ev.total, tuple(ev.dice()), expr)
    labels = ev.labels()
    untyped = ev.untyped(labels) if labels else None
    return Evaluated(ev.total, tuple(ev.dice()), expr, labels or None, untyped)


_NOTHING = Evaluated(0, (), None)


def expression_text(expr: Expr | None) -> str:
    """The normalised text of an expression ("" for None)."""
    return "" if expr is None else str(expr)


@frozen(slots=True)
class Grade:
    """What a grading function decides: outcome id, human label, success flag, mm degree,
    and for a contest the winning side (1-based; None on a tie or for other verbs)."""

    outcome: str | None
    label: str | None
    success: bool | None
    degree: int | None = None
    winner: int | None = None


UNGRADED = Grade(None, None, None)

#: The outcome of a contest of three or more sides that one side won, and its name where
#: the side is not known (the systems' outcome tables, the roll log, the odds' tier): a
#: result's own label names the side (`side_won`).
SIDE_WINS = ("side_wins", "One side wins")


def side_won(winner: int, count: int, name: str | None = None) -> Grade:
    """The outcome of a contest of `count` sides won by side `winner` (1-based): two sides
    give `first_wins` / `second_wins` ("First side wins", "Second side wins (orc)" when
    the side has a label word), more give `side_wins` labelled with the side's number (and
    its label word): "Side 3 wins", "Side 3 (carol) wins"."""
    if count == 2:
        tail = "" if name is None else f" ({name})"
        if winner == 1:
            return Grade("first_wins", "First side wins" + tail, None, winner=1)
        return Grade("second_wins", "Second side wins" + tail, None, winner=2)
    who = f"Side {winner}" if name is None else f"Side {winner} ({name})"
    return Grade(SIDE_WINS[0], f"{who} wins", None, winner=winner)


def side_list(sides: Sequence[int]) -> str:
    """1-based side numbers as words: "side 2", "sides 1 and 3", "sides 1, 2 and 4"."""
    if len(sides) == 1:
        return f"side {sides[0]}"
    head = ", ".join(str(n) for n in sides[:-1])
    return f"sides {head} and {sides[-1]}"


class CheckRoll(NamedTuple):
    """The dice of one d20 check in `--dice` order: the d20 (two with advantage or
    disadvantage), then the extra die (expertise), then the modifier expression's dice.
    A small value made on every check (a NamedTuple, as D20Roll).

    modifier: everything added to the natural (extra die + expression + flat bonus).
    counted: the face the total counts (the natural, or `min N`'s floor above it).
    notes: what a house word changed ("1 rerolled -> 14 (lucky)", "7 counts as 10 (min 10)").
    """

    natural: int
    modifier: int
    dice: tuple[Die, ...]
    counted: int
    notes: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return self.counted + self.modifier


def roll_check(
    roller: Roller,
    adv: int,
    dis: int,
    modifier: Expr | None,
    extra_die: int | None = None,
    extra_role: str = "expertise",
    flat: int = 0,
    lucky: bool = False,
    floor: int | None = None,
) -> CheckRoll:
    """Roll a d20 check's dice in the `--dice` order; `flat` is added to the modifier.
    lucky: a d20 showing 1 is rolled again; floor (`min N`): a face below it counts as it
    for the total (the natural stays the face rolled)."""
    d20 = roll_d20(roller, adv, dis, "d20", lucky)  # (positional: the hot path)
    rolled = d20.dice
    added = flat
    if extra_die is not None:
        face = roller.roll(1, extra_die)
        rolled += (Die(extra_die, face, True, extra_role),)
        added += face
    ev = evaluate(modifier, roller, "modifier")  # a plain `+5` rolls nothing
    counted = d20.natural
    notes = d20.notes
    if floor is not None and counted < floor:
        counted = floor
        notes += (f"{d20.natural} counts as {floor} (min {floor})",)
    return CheckRoll(d20.natural, added + ev.total, rolled + ev.dice, counted, notes)


def house_roll(
    roller: Roller, request: CheckRequest, extra_die: int | None = None, flat: int = 0
) -> CheckRoll:
    """`roll_check` with the request's own adv, dis, modifier and house words (`lucky`,
    `min N`)."""
    return roll_check(  # (positional: the hot path of every check)
        roller,
        request.adv,
        request.dis,
        request.modifier,
        extra_die,
        "expertise",
        flat,
        request.lucky,
        request.floor,
    )


@frozen(slots=True)
class CheckPlan:
    """A d20 check as `roll_check` rolls it, and the system's own grading of it, for the
    odds engine (`System.check_plan`): the kept d20 (`adv`, `dis`, `lucky`), the floor of
    its face (`min N`), the extra die, the modifier expression and a flat bonus; the
    total is the counted face plus the rest. grade(face, total): the grade of a roll whose
    kept d20 showed `face` (as rolled); damage(face, grade): the damage expression that
    roll rolls and whether it is a critical's (None: none; the hook None: never). The
    resolver calls the very same two functions on what it rolled."""

    adv: int
    dis: int
    lucky: bool
    floor: int | None
    extra_die: int | None
    modifier: Expr | None
    flat: int
    grade: Callable[[int, int], Grade]
    damage: Callable[[int, Grade], tuple[Expr, bool] | None] | None = None


@frozen(slots=True)
class ContestPlan:
    """A contest of d20 rolls for the odds engine (`System.contest_plan`): each side's
    roll (a CheckPlan, its grade unused) and grade(rolls), the grade of the sides'
    (face, total) rolls, which the resolver calls on what the sides rolled."""

    sides: tuple[CheckPlan, ...]
    grade: Callable[[Sequence[tuple[int, int]]], Grade]


def house_plan(
    request: CheckRequest,
    grade: Callable[[int, int], Grade],
    extra_die: int | None = None,
    flat: int = 0,
    damage: Callable[[int, Grade], tuple[Expr, bool] | None] | None = None,
) -> CheckPlan:
    """The plan of the roll `house_roll(roller, request, extra_die, flat)` makes."""
    return CheckPlan(
        request.adv,
        request.dis,
        request.lucky,
        request.floor,
        extra_die,
        request.modifier,
        flat,
        grade,
        damage,
    )


def crit_natural(natural: int, crit: int | None) -> int:
    """The natural a system's critical rules read: 20 for a face in `crit N`'s range."""
    return 20 if crit is not None and natural >= crit else natural


def crit_note(natural: int, crit: int | None) -> str | None:
    """ "19: critical (crit 19-20)" for a face below 20 that `crit N` made critical."""
    if crit is None or not crit <= natural < 20:
        return None
    return f"{natural}: critical (crit {crit}-20)"


def side_result(
    side: CheckRequest,
    roll: CheckRoll,
    system: str,
    notes: tuple[str, ...] = (),
    before: tuple[str, ...] = (),
    detail: Mapping[str, object] | None = None,
) -> Result:
    """One side of a contest, as rolled (the contest grades the sides afterwards). Its
    notes say what a check's would, in the same order: advantage and disadvantage that
    cancel, then `before` (mm's circumstance words), what the house words changed
    (`roll.notes`), then `notes`; `detail`: the side's JSON extras before its house words
    (mm's `circumstance`)."""
    return Result(
        request=side.text,
        system=system,
        verb="check",
        dice=roll.dice,
        natural=roll.natural,
        modifier=roll.modifier,
        total=roll.total,
        name=side.name,
        detail={**(detail or {}), **house_detail(side)},
        notes=advantage_notes(side.adv, side.dis) + before + roll.notes + notes,
    )


def lifted_notes(word: str, rows: Sequence[Result]) -> tuple[str, ...]:
    """The notes of a contest's sides or a group's members, each after whose it is
    (`side 1: advantage and disadvantage cancel: one d20`, `member 2: 1 rerolled -> 14
    (lucky)`), for the whole result: its text shows the rows' own notes nowhere else."""
    return tuple(f"{word} {n}: {note}" for n, row in enumerate(rows, 1) for note in row.notes)


def house_detail(request: CheckRequest) -> dict[str, object]:
    """The `house` entry of a result's JSON: the house words in force on this roll
    (`{"house": {"crit": 19, "lucky": true}}`); empty when there are none. With them,
    `house_from`: where those put in by default came from (a character, "config"), and
    `entry`: the words of the character's entry the label named (`"+7 expertise=d6"`)."""
    house: dict[str, object] = {}
    if request.crit is not None:
        house["crit"] = request.crit
    if request.lucky:
        house["lucky"] = True
    if request.floor is not None:
        house["min"] = request.floor
    if request.crit_dmg is not None:
        house["crit-dmg"] = request.crit_dmg
    if not house and request.entry is None and request.situational is None:
        return {}
    out: dict[str, object] = {"house": house} if house else {}
    if request.house_from:  # `{"house_from": {"crit": "config", "lucky": "aria"}}`
        out["house_from"] = dict(request.house_from)
    if request.entry is not None:  # the words of the character's entry: `"entry": "+7"`
        out["entry"] = request.entry
    if request.situational is not None:  # the modifier typed after it, added: `"+2"`
        out["situational"] = request.situational
    return out


def luck_detail(request: LuckRequest) -> dict[str, object]:
    """The `house` entry of a luck roll's JSON (`{"house": {"lucky": true}}`, and
    `house_from` when it was put in by default), as `house_detail` writes a check's; empty
    without `lucky`, the one house word a luck roll takes."""
    if not request.lucky:
        return {}
    out: dict[str, object] = {"house": {"lucky": True}}
    if request.house_from:
        out["house_from"] = dict(request.house_from)
    return out


#: The house words of one d20 roll, as word kinds (CHECK_WORD_KINDS).
HOUSE_KINDS = frozenset(word.kind for word in CHECK_WORDS if word.house)


def house_words_of(offered: Mapping[str, Collection[str]]) -> dict[str, frozenset[str]]:
    """`System.house_words` from what each verb offers: the house kinds among them."""
    return {verb: HOUSE_KINDS.intersection(kinds) for verb, kinds in offered.items()}


def located(request: Request, message: str, key: str | None = None) -> RulesError:
    """A RulesError pointing at the word of kind `key` in the request's text."""
    column = getattr(request, "column", None)
    col = column(key) if (key is not None and callable(column)) else None
    if col is None and key is not None and callable(column):
        col = column("verb")
    return RulesError(message, request.text, col)


def reject_words(
    request: CheckRequest, offered: Collection[str], system: str, verb: str | None = None
) -> None:
    """Raise a RulesError for the first word kind in the request that `offered` lacks (in
    the order of `CHECK_WORD_KINDS`), saying what the system offers instead
    (`hints.word_hint`). verb: the verb whose words `offered` are (a contest side's
    request says `check`; default: the request's)."""
    lacking = request.word_kinds.difference(offered)
    if not lacking:
        return
    from d20cli.rules import get_system
    from d20cli.rules.hints import word_hint

    key = next(kind for kind in CHECK_WORD_KINDS if kind in lacking)
    message = word_hint(get_system(system), verb or request.verb, key)
    raise located(request, message, key)


def resolve_roll(request: Request, roller: Roller, system: str) -> Result | None:
    """A `roll` request resolved by the dice engine (the same in every system), else None."""
    if request.verb != "roll":
        return None
    if not isinstance(request, RollRequest):
        return None
    return roll.resolve_roll(request, roller, system)


def unknown_verb(
    request: Request, system: str, verbs: Iterable[str], hint: str | None = None
) -> RulesError:
    """The error for a verb the system does not have, listing the ones it has."""
    message = f"{system} has no {request.verb!r}; its verbs are {', '.join(verbs)}"
    if hint:
        message += f" ({hint})"
    return RulesError(message, request.text, 1)


#: One way a system resolves a request: the request class it takes, the verbs (None: any
#: verb of that class) and the function that rolls it.
Route: TypeAlias = "tuple[type, Collection[str] | None, Callable[[Any, Roller], Result]]"


def resolver(
    system: str, verbs: Iterable[str], *routes: Route
) -> Callable[[Request, Roller], Result]:
    """A system's resolve function, the dispatch every system shares: the first route
    whose class the request is (and whose verbs hold its verb) rolls it; else `roll`, the
    same in every system; else the error naming the system's verbs (with what to use
    instead of that verb, `hints.verb_hint`)."""
    listed = tuple(verbs)

    def resolve(request: Request, roller: Roller) -> Result:
        for kind, taken, rolls in routes:
            if isinstance(request, kind) and (taken is None or request.verb in taken):
                return rolls(request, roller)
        rolled = resolve_roll(request, roller, system)
        if rolled is not None:
            return rolled
        from d20cli.rules import get_system
        from d20cli.rules.hints import verb_hint

        hint = verb_hint(get_system(system), request.verb)
        raise unknown_verb(request, system, listed, hint)

    return resolve


@frozen
class Fortune:
    """The hooks of a system whose rolls can gain fortune dice that a holder keeps between
    rolls (Pen & Dagger). The count lives in the state (the app's business); the rules are
    these.

    verb: the verb that shows or spends the dice a holder keeps (the app answers it from the
    state, never the resolver; under a seal it takes no position, and a reroll is refused).
    verbs: the verbs whose results may gain a die or be rerolled by spending one.
    most / most_boon: how many a holder keeps, without and with the boon option.
    show(request, held, most): the result that shows the count.
    reroll(request, previous, roller): the reroll a spent die buys for `previous` (made
    from `request`); RulesError when it cannot help.
    gained: how the note of a result that gained a die ends (": +1 fortune die"); the
    caller drops it when the holder already has the most.
    """

    verb: str
    verbs: tuple[str, ...]
    most: int
    most_boon: int
    show: Callable[[FortuneRequest, int, int], Result]
    reroll: Callable[[CheckRequest | LuckRequest, Result, Roller], Result]
    gained: str


class VerbOdds(NamedTuple):
    """The odds of a verb that a walk over its resolver does not give (`System.verb_odds`).

    refused: the error's message, for a verb that has no odds (it rolls nothing);
    expression: else the dice expression whose exact distribution they are, `note` says so;
    rank: the name of each total (an ability score's rank), shown beside the distribution.
    Such a verb has no sampled `--summary` either: its results are rolled one by one."""

    expression: str | None = None
    note: str = ""
    rank: Callable[[int], str] | None = None
    refused: str | None = None


def imported(name: str, attribute: str) -> Any:
    """The module `name` (which defines `attribute`), imported once: taken from sys.modules
    when it is there whole, as a line of a batch or a bot's call asks for it each time;
    else with `__import__`, which also waits for another thread that is still importing it
    (a module in sys.modules is not yet whole while its code runs: its spec says
    `_initializing`). Not `importlib`: it would import `warnings` too, 0.5 ms of a start."""
    module = sys.modules.get(name)
    if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
        module = __import__(name, fromlist=[attribute])
    return module


@frozen
class System:
    """One rule system: its id, title, verbs and outcome tiers, and its resolver.

    verbs: verb -> (one-line summary, example words), in the order `d20 systems` shows them.
    outcomes: (outcome id, label), worst to best, the tiers this system can produce;
    verb_outcomes: verb -> {outcome id: name}, worst to best, the tiers of a verb that
    names them its own way (`outcome_names`).
    aliases: other names `get_system` accepts.
    words: (word, meaning) for the request words this system takes, as `d20 systems` and
    help list them; offers: verb -> the words completion offers after it (`Offer`).
    takes: verb -> the kinds of check word it takes (`vocabulary.CHECK_WORDS`; a contest's:
    each side's), the one list its rules check a request against (`reject_words`), which
    help, completion, the house defaults and the other systems' errors read;
    instead: a `Word.role` -> what the system offers in place of a word of that role it
    lacks ("use adv or dis"); lacks: a kind (or "VERB KIND") -> the system's own word on
    why it lacks it, before the derived one (d20cli.rules.hints); forms: a kind -> the
    system's own forms of it in help (`ADV / DISADV`; mm's circumstance words: two rows),
    each the key of its row in `words`.

    Optional hooks, for what only some systems have (code outside systems/ asks for the
    hook, never for a system id):
    grade_group: a group check's grade from its members' successes and the request's group
    rule word (None: the system's default) (the odds of a large group are computed from
    it); verb_odds: verb -> the odds of a verb a walk does not give (`VerbOdds`: pendagger's
    `scores`, a distribution, and `fortune`, none); fortune: fortune dice (see Fortune);
    encounter: the dotted name of the module of the system's encounter rules
    (`d20cli.rules.levelup.encounter`; None: the system has none), whose `HARM` is
    `harm` (damage, healing and 0 HP in an encounter, rules/encounter.py) and whose
    `INITIATIVE` is `initiative` (how a combatant rolls initiative, rules/initiative.py).
    They are read from it at their first use, the module imported then (`imported`, as
    `rules.get_system` imports a system): only the encounter commands read them, so a
    plain roll, check or odds imports neither that module nor rules/encounter.py and
    rules/initiative.py (docs/performance.md, "Start-up");
    check_plan: how a request is rolled and graded when it is one d20 check (`CheckPlan`;
    None for any other request), raising the errors its resolver would: the odds of such a
    check are computed from the plan, grading each (face, total) once; contest_plan: the
    same for a contest of d20 rolls (`ContestPlan`).
    """

    id: str
    title: str
    verbs: Mapping[str, tuple[str, str]]
    outcomes: tuple[tuple[str, str], ...]
    resolver: Callable[[Request, Roller], Result]
    aliases: tuple[str, ...] = ()
    words: tuple[tuple[str, str], ...] = ()
    grade_group: Callable[[Sequence[bool | None], str | None], Grade] | None = None
    verb_odds: Mapping[str, VerbOdds] = field(default_factory=dict)
    fortune: Fortune | None = None
    house_words: Mapping[str, frozenset[str]] = field(default_factory=dict)
    encounter: str | None = None
    offers: Mapping[str, Offer] = field(default_factory=dict)
    check_plan: Callable[[Request], CheckPlan | None] | None = None
    contest_plan: Callable[[Request], ContestPlan | None] | None = None
    verb_outcomes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    takes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    instead: Mapping[str, str] = field(default_factory=dict)
    lacks: Mapping[str, str] = field(default_factory=dict)
    forms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def harm(self) -> Harm | None:
        """Damage, healing and 0 HP in an encounter: the `HARM` of the module named by
        `encounter` (imported now if it was not), None for a system without one."""
        rules = self._encounter_rules()
        harm: Harm | None = None if rules is None else rules.HARM
        return harm

    @property
    def initiative(self) -> InitiativeRule | None:
        """How a combatant rolls initiative: the `INITIATIVE` of the module named by
        `encounter` (imported now if it was not), None for a system without one."""
        rules = self._encounter_rules()
        initiative: InitiativeRule | None = None if rules is None else rules.INITIATIVE
        return initiative

    def _encounter_rules(self) -> Any:
        """The module of the system's encounter rules (None: it has none; `imported`)."""
        name = self.encounter
        return None if name is None else imported(name, "HARM")

    def outcome_names(self, verb: str) -> dict[str, str]:
        """Each outcome id's one name in a result of `verb`, which the roll, its odds, the
        roll log and `--summary` all show: the verb's own tiers (levelup's attack: Fumble,
        Miss, Hit, Critical hit), else the system's. A roll's label is its outcome's name,
        or the name with the roll's detail after it (` — 2 degrees of success`,
        ` (2 of 3 succeed)`); a `side_wins` label names its side ("Side 3 wins")."""
        own = self.verb_outcomes.get(verb)
        return dict(self.outcomes) if own is None else dict(own)

    def resolve(self, request: Request, roller: Roller) -> Result:
        """Roll the request with this system's rules (RulesError for what it lacks)."""
        return self.resolver(request, roller)
