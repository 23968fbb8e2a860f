"""`d20 init ...`: initiative at the table, from the command line (d20cli.app.commands.init),
standard input and the shell (`run_init`, which d20cli.app.run sends `init` lines to).

    d20 init                      show the order (round, whose turn)
    d20 init roll [--as a,b]      a new encounter: the party rolls (monsters added stay)
    d20 init add NAME [WORDS] [xN]  add monsters: `init add goblin +2 x3` (goblin-1..3)
    d20 init next                 the next turn (after the last: the next round; the dead
                                  are passed over)
    d20 init rm NAME              take one out of the order
    d20 init clear                end the encounter

Each character rolls its `init` entry (request words: `+3 adv`), else the entry its
system takes initiative from (`System.initiative`: dex, agility, ...), else +0 with a
warning. `--dice` faces go to the rolls in order: the party in the order of the
characters file (or of `--as`), each character's dice, then the roll-off d20s. The order
is kept in the state database (d20cli.store.initiative).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from d20cli.app.context import Context
from d20cli.app.options import NO_OPTIONS, OPTIONS, Options, split_options
from d20cli.errors import D20Error, ExitStatus, ParseError, RulesError
from d20cli.frozen import fields, replace
from d20cli.language.requests import CheckRequest
from d20cli.present.initiative_view import order_lines
from d20cli.present.output import Output
from d20cli.rules import get_system
from d20cli.rules.encounter import MAX_HIT_POINTS as MAX_POINTS_
from d20cli.rules.encounter import STATES as STATES_
from d20cli.rules.encounter import Condition
from d20cli.rules.initiative import Combatant, sort_key
from d20cli.rules.initiative import InitiativeRoll as InitiativeRollType
from d20cli.rules.offers import in_system_terms

if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.results import Result
    from d20cli.rules import System
    from d20cli.rules.initiative import InitiativeRoll, InitiativeRule
    from d20cli.store.characters import Character
    from d20cli.store.initiative import Encounter

SUBCOMMANDS: dict[str, str] = {
    "show": "Show the order: the round and whose turn it is (also bare `d20 init`).",
    "roll": "A new encounter: the party rolls initiative (monsters added stay).",
    "add": (
        "Add combatants: `d20 init add goblin +2 x3 hp 7 ac 15` adds goblin-1 to goblin-3 "
        "(`hp 2d6`: rolled for each); `init add aria` a character with her init, hp and "
        "armor entries; `init add cleo =17` an initiative the player rolled at the table."
    ),
    "pin": "A fixed place in the order: `d20 init pin lair 20` (it loses ties).",
    "hurt": "Damage: `d20 init hurt goblin-2 7` (mm: a toughness resistance against rank 7).",
    "heal": "Healing: `d20 init heal aria 5` (`temp`: temporary HP).",
    "cond": (
        "A condition: `d20 init cond goblin-2 prone`, `init cond aria blessed 10r`, "
        "`... until end of aria's turn` (or start), `init cond goblin-2 prone off`."
    ),
    "note": "A note on a combatant: `d20 init note goblin-2 has the key`.",
    "next": (
        "The next turn: conditions that end, death saves; after the last, the next round. "
        "The dead (and the system's others out of the fight) are passed over."
    ),
    "dyn": "Roll everyone's initiative again each round (pins stay): `init dyn`, `init dyn off`.",
    "undo": "Take back the last change to the encounter (again: the one before it).",
    "rm": "Take one out of the order: `d20 init rm goblin-2`.",
    "save": "Save the encounter: `d20 init save ambush`.",
    "load": "Load a saved encounter or an encounter file: `d20 init load ambush`.",
    "list": "The saved encounters.",
    "clear": "End the encounter: empty the order.",
}
#: The words each subcommand takes (`d20 init add --help` shows them).
WORDS: dict[str, str] = {
    "show": "",
    "roll": "",
    "add": "NAME [+N] [xN] [=N] [hp N] [ac N]",
    "pin": "NAME N",
    "hurt": "NAME N [crit]",
    "heal": "NAME N [temp]",
    "cond": "NAME WORD [Nr|until end of NAME|off]",
    "note": "NAME [TEXT...]",
    "next": "",
    "dyn": "[on|off]",
    "undo": "",
    "rm": "NAME",
    "save": "NAME",
    "load": "NAME|FILE",
    "list": "",
    "clear": "",
}
USAGE = (
    "d20 init [roll | add NAME [+N] [xN] [=N] [hp N] [ac N] | pin NAME N | hurt NAME N | "
    "heal NAME N | cond NAME WORD [Nr] | note NAME TEXT | next | dyn | undo | rm NAME | "
    "save NAME | load NAME | list | clear] "
    "[--system ID] [--seed N] [--dice F,F,...] [--as NAME,NAME] [--json]"
)
#: The options `init` takes (fields of Options); any other is an error.
INIT_OPTIONS = frozenset(("system", "json", "seed", "dice", "as_", "no_color", "budget", "no_log"))
MAX_COUNT = 100  # `xN`: monsters added at once
MAX_INIT_DICE = 100  # dice in one initiative roll (they are kept with the order)
_NAME = re.compile(r"[^\W\d_][\w'-]{0,39}")
#: What a sealed session's initiative roll records of each roll: its system and request;
#: and of each newcomer: its name, kind and roll (d20cli.app.commands.sealed_init).
Record = list[tuple[str, CheckRequest]]
Joined = tuple[str, str, "InitiativeRoll"]
_COUNT = re.compile(r"[x×]([0-9]{1,4})", re.IGNORECASE)


def party(names: str | None) -> list[Character]:
    """Who rolls initiative: the characters `--as` names (`aria,bob`, or `party`), else
    the party kept in the characters file (`d20 party add ...`), else every character in
    the file, in its order. (The one place that says who the party is.)"""
    from d20cli.store import characters

    if names is None:
        kept = characters.party()
        return characters.party_of("party") if kept else characters.list_characters()
    if not names.strip(" ,"):
        raise ParseError("--as takes character names separated by commas: --as aria,bob")
    found = characters.party_of(names)
    return list({c.name: c for c in found}.values())


def _rule(system: System) -> InitiativeRule:
    if system.initiative is None:
        raise RulesError(f"{system.id} has no initiative rule")
    return system.initiative


def character_roll(
    character: Character,
    system: System,
    context: Context,
    roller: Roller,
    out: Output,
    record: Record | None = None,
) -> InitiativeRoll:
    """One character's initiative: its `init` entry, else its system's entry (dex, ...),
    else +0 (with a warning). `record` gets the system and the request rolled (a sealed
    session's replay, d20cli.app.commands.sealed_init)."""
    from d20cli.store.as_character import read_through

    rule = _rule(system)
    entry = next(
        (n for n in ("init", *rule.entries) if character.lookup(n, "check") is not None), None
    )
    try:
        if entry is None:
            looked = ["init", *rule.entries]
            out.warn(
                f"{character.name} has no {', '.join(looked[:-1])} or {looked[-1]} entry: "
                f"initiative +0 (d20 char set {character.name} init +N)"
            )
            request = context.parse("check +0")
        else:
            request = read_through(f"check {entry}", character, context.parse)[0]
        if not isinstance(request, CheckRequest):
            raise ParseError(f"the entry {entry!r} is not a check's words")
        if record is not None:
            record.append((system.id, request))
        return _bounded(rule.roll(request, roller))
    except D20Error as err:
        what = f"{character.name}'s {entry} entry" if entry else character.name
        raise type(err)(f"{what}: {err.message}", err.text, err.column) from None


def monster_rolls(
    words: list[str],
    system: System,
    context: Context,
    roller: Roller,
    record: Record | None = None,
) -> tuple[str, list[InitiativeRoll]]:
    """`NAME [WORDS] [xN]`: the name and one roll per monster (`record`: as
    `character_roll`'s)."""
    if not words:
        raise ParseError("init add needs a name: d20 init add goblin +2 x3")
    name, rest = words[0], words[1:]
    if not _NAME.fullmatch(name):
        raise ParseError(
            f"{name[:40]!r} is not a name for the order: a letter, then letters, digits, "
            "-, _ or ' (at most 40)"
        )
    count = 1
    counts = [w for w in rest if _COUNT.fullmatch(w)]
    if len(counts) > 1:
        raise ParseError(f"give the count once, not {' and '.join(counts)}")
    if counts:
        match = _COUNT.fullmatch(counts[0])
        count = int(match.group(1)) if match else 1
        if not 1 <= count <= MAX_COUNT:
            raise ParseError(f"init add adds 1 to {MAX_COUNT} at once, not {count}")
    kept = [i for i, w in enumerate(words) if i and not (counts and w == counts[0])]
    text = "check " + (" ".join(words[i] for i in kept) if kept else "+0")
    try:
        request = context.parse(text)
        if not isinstance(request, CheckRequest):
            said = " ".join(words[i] for i in kept)
            raise ParseError(f"{said!r} is not a modifier with words like adv or dis")
        rule = _rule(system)
        rolls = [_bounded(rule.roll(request, roller)) for _ in range(count)]
    except ParseError as err:  # the targets of this system, in what was typed
        raise _as_typed(in_system_terms(err, system.id, system.offers), words, kept) from None
    except D20Error as err:
        raise _as_typed(err, words, kept) from None
    if record is not None:
        record += [(system.id, request)] * count
    return name, rolls


def _as_typed(err: D20Error, words: list[str], kept: list[int]) -> D20Error:
    """An error in `check WORDS` (the request made of the words at `kept`) placed in
    what was typed, `init add NAME WORDS`: its caret under the same character."""
    typed = " ".join(["init", "add", *words])
    if err.column is None or err.text is None:
        return type(err)(err.message)
    starts = [len("init add ") + sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]
    column, at = len(typed) + 1, len("check ")
    if err.column <= at:  # the verb the request was given: the words after the name
        column = starts[kept[0]] + 1 if kept else starts[0] + 1
    for i in kept:
        if at < err.column <= at + len(words[i]) + 1:
            column = starts[i] + err.column - at
            break
        at += len(words[i]) + 1
    return type(err)(err.message, typed, column)


def _bounded(roll: InitiativeRoll) -> InitiativeRoll:
    if len(roll.dice) > MAX_INIT_DICE:
        raise ParseError(
            f"an initiative roll keeps at most {MAX_INIT_DICE} dice, not {len(roll.dice):,}"
        )
    return roll


def _options(tokens: list[str], base: Options) -> tuple[list[str], Options, Options]:
    """The words, the options in force, and the options the line itself gave."""
    words, own = split_options(tokens)
    for f in fields(Options):
        if f.name not in INIT_OPTIONS and getattr(own, f.name) != getattr(NO_OPTIONS, f.name):
            name = next(s.names[0] for s in OPTIONS if s.field == f.name)
            raise ParseError(
                f"init takes --system, --seed, --dice, --as, --json and --no-color, not {name}"
            )
    return words, base.merged(own), own


def run_init(
    tokens: list[str], base: Options, out: Output, context: Context | None = None
) -> ExitStatus:
    """`init ...` given as the tokens after `init` (options anywhere). Errors are one line
    on stderr and BAD_INPUT."""
    as_json = base.json or "--json" in tokens
    mine = context is None
    context = context or Context()
    out.before_write(context.save)  # a sealed roll's row is saved before it is shown
    try:
        words, opts, own = _options(tokens, base)
        as_json = opts.json
        if opts.no_color and out.color:
            out = out.without_color()
        _run(words, opts, own, out, context)
    except D20Error as err:
        out.error(err, as_json)
        return ExitStatus.BAD_INPUT
    finally:
        if mine:
            out.save()
            out.forget(context.save)
            context.close()
    return ExitStatus.OK


def _run(words: list[str], opts: Options, own: Options, out: Output, context: Context) -> None:
    from d20cli.store import initiative

    sub = words[0].lower() if words else "show"
    rest = words[1:]
    if sub not in SUBCOMMANDS:
        raise ParseError(f"unknown init command {words[0][:40]!r}; {USAGE}")
    if sub in ("show", "next", "clear", "undo", "list") and rest:
        raise ParseError(f"init {sub} takes no words, not {rest[0][:40]!r}")
    if sub == "rm" and len(rest) != 1:
        raise ParseError("init rm takes one name: d20 init rm goblin-2")
    store = context.state(out)
    if sub in _ENCOUNTER:
        _ENCOUNTER[sub](words, opts, out, context, store)
        return
    if sub == "show":
        encounter = initiative.load(store)
    elif sub == "rm":

        def takes_turns(c: Combatant) -> bool:
            harm = (get_system(c.system) if c.system else context.system_for(opts)).harm
            return harm is None or harm.takes_turns(c.vitals)

        encounter, gone = initiative.remove(store, rest[0], takes_turns)
        if not opts.json:
            out.text(f"removed {gone}")
    elif sub == "clear":
        held = initiative.clear(store)
        encounter = initiative.load(store)
        if not opts.json:
            out.text(f"cleared the initiative order ({held} combatants)")
            return
    elif sub == "roll" and rest:
        raise ParseError(
            f"init roll takes no words, not {rest[0][:40]!r} "
            "(name the characters with --as aria,bob)"
        )
    elif sub == "add" and _joins(rest, context, opts, out, store):
        return
    elif context.sealed_for(opts, out) is not None:  # one roll of the session's stream
        from d20cli.app.commands.sealed_init import sealed_roll

        roller = context.roller(opts)
        system = context.system_for(opts)

        def roll_it(record: Record, seen: list[Combatant]) -> tuple[Encounter, list[Joined]]:
            if sub == "add":
                kind, name, rolls = _newcomer(rest, opts, system, context, roller, out, record)
                found, names = initiative.add(store, name, rolls, roller, seen, kind)
                return found, [(n, kind, r) for n, r in zip(names, rolls, strict=True)]
            party = _party_rolls(own, opts, context, roller, out, record)
            found = initiative.start(store, party, roller, seen)
            return found, [(n, "character", r) for n, r in party]

        text = " ".join(["init", *words])
        encounter, result = sealed_roll(text, system.id, roll_it, roller, context, opts, out)
        _show(encounter, opts, out, result)
        return
    else:
        roller = context.roller(opts)
        system = context.system_for(opts)
        if sub == "add":
            kind, name, rolls = _newcomer(rest, opts, system, context, roller, out)
            encounter, _ = initiative.add(store, name, rolls, roller, None, kind)
        else:
            rolled = _party_rolls(own, opts, context, roller, out)
            encounter = initiative.start(store, rolled, roller)
    _show(encounter, opts, out)


def _newcomer(
    words: list[str],
    opts: Options,
    system: System,
    context: Context,
    roller: Roller,
    out: Output,
    record: Record | None = None,
) -> tuple[str, str, list[InitiativeRoll]]:
    """`init add NAME [WORDS] [xN]`: a character's own roll when NAME alone names a
    character of the characters file (its `init` entry, as `init roll` rolls it: `d20 init
    add aria`), else monsters (`monster_rolls`). The kind, the name and the rolls."""
    if len(words) == 1:
        from d20cli.store import characters

        found = characters.load_all()
        low = words[0].lower()
        character = found.get(words[0]) or next(
            (c for k, c in found.items() if k.lower() == low), None
        )
        if character is not None:
            try:
                own = get_system(character.system) if character.system else system
            except D20Error as err:
                raise type(err)(f"{character.name}: {err.message}") from None
            roll = character_roll(character, own, context, roller, out, record)
            return "character", character.name, [roll]
    name, rolls = monster_rolls(words, system, context, roller, record)
    return "monster", name, rolls


# --- the encounter (d20cli.app.commands.encounter) ---------------------------------------


class _NoDice:
    """The roller of a change that must roll no dice outside a sealed session's stream: a
    roll-off it would need is refused."""

    def __init__(self, why: str) -> None:
        self.why = why

    def roll(self, lo: int, hi: int) -> int:
        raise ParseError(self.why)

    def finish(self) -> None:
        pass


def _joins(rest: list[str], context: Context, opts: Options, out: Output, store: Any) -> bool:
    """`init add` with an encounter's words (`hp`, `ac`, `toughness`, `=N`) or a bare
    character's name: done here (True); plain monsters (False) take the sealed-aware way
    below."""
    from d20cli.app.commands import encounter as enc
    from d20cli.store import characters, initiative

    words, told = enc.split_joining(rest)
    character = None
    if (len(words) == 1 and told.reported is None) or told.reported is not None:
        found = [
            c for c in characters.list_characters() if words and c.name.lower() == words[0].lower()
        ]
        character = found[0] if found else None
    plain = told.hp is None and told.ac is None and told.toughness is None
    if plain and told.reported is None and (character is None or len(words) > 1):
        return False
    sealed = context.sealed_for(opts, out) is not None
    if sealed and plain and told.reported is None:
        return False  # a character's own roll, from the session's stream (`_newcomer`)
    system = context.system_for(opts)
    kind = "monster"
    if character is not None:
        kind = "character"
        system = get_system(character.system) if character.system else system
        entries = enc.character_vitals(lambda n: character.lookup(n, "check"), character.imported)
        told.hp = told.hp if told.hp is not None else entries.hp
        told.ac = told.ac if told.ac is not None else entries.ac
        told.toughness = told.toughness if told.toughness is not None else entries.toughness
    hp_dice = told.hp is not None and not re.fullmatch(r"[0-9]{1,7}", told.hp)
    if sealed and (hp_dice or told.reported is None):
        raise ParseError(
            "in a sealed session init add rolls only initiative: give hp as a number "
            "(roll it with d20 roll 2d6) and monsters' words without hp dice"
        )
    roller: Any = context.roller(opts)
    if told.reported is not None:
        if len(words) > 2 or (len(words) == 2 and not re.fullmatch(r"[+-][0-9]{1,4}", words[1])):
            raise ParseError("init add NAME =N takes a modifier at most: init add cleo =17 +3")
        modifier = int(words[1]) if len(words) == 2 else 0
        rolls = [InitiativeRollType(told.reported, modifier, ())]
        name, words_text = words[0], ""
        if not _NAME.fullmatch(name):
            raise ParseError(f"{name[:40]!r} is not a name for the order")
        if sealed:
            roller = _NoDice(
                f"{name} ties for a place: a roll-off needs dice, which a sealed session "
                "rolls only with init roll or init add (give the modifier: =17 +3)"
            )
    elif character is not None:
        record: Record = []
        rolls = [character_roll(character, system, context, roller, out, record)]
        name = character.name
        rule = _rule(system)
        looked = (character.lookup(n, "check") for n in ("init", *rule.entries))
        words_text = next((w for w in looked if w is not None), "+0")
    else:
        name, rolls = monster_rolls(words, system, context, roller)
        words_text = " ".join(w for w in words[1:] if not _COUNT.fullmatch(w)) or "+0"
    hps = enc.hit_points(told, len(rolls), system, context, roller)
    joining = [
        Combatant(
            name,
            kind,
            r.total,
            r.modifier,
            reported=told.reported is not None,
            words=words_text,
            system=system.id,
            vitals=enc.vitals_of(hp, told),
        )
        for r, hp in zip(rolls, hps, strict=True)
    ]
    encounter, _ = initiative.add(store, name, rolls, roller, kind=kind, joining=joining)
    if told.reported is not None and not opts.json:
        out.text(f"{name}: {told.reported} reported (rolled at the table)")
    enc.show(encounter, None, opts, out)
    return True


def _encounter_command(
    words: list[str], opts: Options, out: Output, context: Context, store: Any
) -> None:
    """The encounter's subcommands (SUBCOMMANDS: pin, hurt, heal, cond, note, next, dyn,
    undo, save, load, list)."""
    from d20cli.app.commands import encounter as enc
    from d20cli.store import initiative

    sub, rest = words[0].lower(), words[1:]
    if sub == "undo":
        found, what = initiative.undo(store)
        enc.show(found, {"what": "init undo", "undid": what, "said": [f"undid: {what}"]}, opts, out)
        return
    if sub in ("list", "save", "load"):
        _files(sub, rest, opts, out, context, store)
        return
    sealed = context.sealed_for(opts, out) is not None
    if sub == "pin":
        if len(rest) != 2:
            raise ParseError("init pin takes a name and a place: d20 init pin lair 20")
        place = enc.number(rest[1], "a pinned place", -MAX_POINTS_)
        name = rest[0]
        if not _NAME.fullmatch(name):
            raise ParseError(f"{name[:40]!r} is not a name for the order")

        def pin(found: Encounter) -> tuple[Encounter, dict[str, Any]]:
            names = [c.name.lower() for c in found.order]
            if name.lower() in names:
                c = found.find(name)
                order = tuple(
                    replace(x, total=place, pinned=True, rolloff=()) if x is c else x
                    for x in found.order
                )
            else:
                if len(found.order) >= initiative.MAX_COMBATANTS:
                    raise ParseError(
                        f"an initiative order holds at most {initiative.MAX_COMBATANTS} combatants"
                    )
                seq = max((c.seq for c in found.order), default=0) + 1
                order = (*found.order, Combatant(name, "monster", place, 0, seq=seq, pinned=True))
            turn = found.turn
            round_ = found.round
            if turn is None:
                round_, turn = max(round_, 1), sorted(order, key=sort_key)[0].name
            return replace(found, order=order, turn=turn, round=round_), {
                "said": [f"{name} pinned at {place}"]
            }

        found, change = enc.edit(store, words, pin)
        enc.show(found, change, opts, out)
        return
    if sub in ("hurt", "heal"):
        flags = [w for w in rest[2:] if w.lower() in ("crit", "temp")]
        if len(rest) < 2 or len(rest) - 2 != len(flags):
            raise ParseError(f"init {sub} takes a name and a number: d20 init {sub} goblin-2 7")
        if sub == "hurt" and any(f.lower() == "temp" for f in flags):
            raise ParseError("temp is for init heal: temporary HP")
        if sub == "heal" and any(f.lower() == "crit" for f in flags):
            raise ParseError("crit is for init hurt: damage of a critical hit")
        amount = enc.number(rest[1], f"the {'healing' if sub == 'heal' else 'damage'}")
        roller = context.roller(opts)

        def hurt(found: Encounter) -> tuple[Encounter, dict[str, Any]]:
            c = found.find(rest[0])
            system = get_system(c.system) if c.system else context.system_for(opts)
            if sealed and system.harm is not None and not system.harm.hit_points and sub == "hurt":
                raise ParseError(
                    "in a sealed session roll the toughness resistance as a request "
                    "(d20 resist +T vs rank N) and set what it did with init cond"
                )
            new, change = enc.hurt_one(
                found,
                c.name,
                amount,
                system,
                roller,
                critical=bool(flags) and sub == "hurt",
                heal=sub == "heal" and not flags,
                temp=sub == "heal" and bool(flags),
            )
            roller.finish()
            return new, change

        found, change = enc.edit(store, words, hurt)
        enc.show(found, change, opts, out, order=False)
        return
    if sub == "cond":
        if len(rest) < 2:
            raise ParseError("init cond takes a name and a condition: d20 init cond goblin-2 prone")
        found, change = enc.edit(store, words, lambda f: enc.set_condition(f, rest[0], rest[1:]))
        enc.show(found, change, opts, out, order=False)
        return
    if sub == "note":
        if not rest:
            raise ParseError(
                "init note takes a name and the note: d20 init note goblin-2 has the key"
            )
        text = " ".join(rest[1:])
        if len(text) > initiative.MAX_NOTES:
            raise ParseError(f"a note holds at most {initiative.MAX_NOTES} characters")

        def note(found: Encounter) -> tuple[Encounter, dict[str, Any]]:
            c = found.find(rest[0])
            order = tuple(
                replace(x, vitals=replace(x.vitals, notes=text)) if x is c else x
                for x in found.order
            )
            return replace(found, order=order), {"said": [f"{c.name}: " + (text or "no note")]}

        found, change = enc.edit(store, words, note)
        enc.show(found, change, opts, out, order=False)
        return
    if sub == "dyn":
        if len(rest) > 1 or (rest and rest[0].lower() not in ("on", "off")):
            raise ParseError("init dyn takes on or off: d20 init dyn, d20 init dyn off")
        on = not rest or rest[0].lower() == "on"
        if on and sealed:
            raise ParseError(
                "init dyn rolls outside a sealed session's stream: not in a sealed session"
            )

        def dyn(found: Encounter) -> tuple[Encounter, dict[str, Any]]:
            said = (
                "initiative is rolled again each round"
                if on
                else "initiative stays from round to round"
            )
            return replace(found, dyn=on), {"said": [said]}

        found, change = enc.edit(store, words, dyn)
        enc.show(found, change, opts, out, order=False)
        return
    # next
    roller = context.roller(opts)

    def roll_again(c: Combatant) -> InitiativeRollType:
        system = get_system(c.system) if c.system else context.system_for(opts)
        request = context.parse("check " + (c.words or f"{c.modifier:+d}"))
        if not isinstance(request, CheckRequest):
            raise ParseError(f"{c.name}'s initiative words {c.words[:40]!r} are not a check's")
        return _bounded(_rule(system).roll(request, roller))

    def system_of(c: Combatant) -> System:
        return get_system(c.system) if c.system else context.system_for(opts)

    def turn(found: Encounter) -> tuple[Encounter, dict[str, Any]]:
        new, change = enc.next_turn(found, roll_again, system_of, roller, not sealed)
        roller.finish()
        return new, change

    found, change = enc.edit(store, words, turn)
    enc.show(found, change, opts, out)


def _files(
    sub: str, rest: list[str], opts: Options, out: Output, context: Context, store: Any
) -> None:
    """`init list`, `init save NAME`, `init load NAME|FILE`."""
    from d20cli.app.commands import encounter as enc
    from d20cli.store import encounters, initiative

    if sub == "list":
        saved = encounters.names()
        if opts.json:
            out.json({"encounters": saved})
        else:
            out.text("\n".join(saved) if saved else "no saved encounters (d20 init save NAME)")
        return
    if len(rest) != 1:
        raise ParseError(f"init {sub} takes one name: d20 init {sub} ambush")
    if sub == "save":
        now = initiative.load(store)
        if not now.order:
            raise ParseError("no encounter to save: the initiative order is empty")
        path = encounters.write(rest[0], now.round, now.turn, [_saved(c) for c in now.order])
        if opts.json:
            out.json({"saved": rest[0], "path": path, "combatants": len(now.order)})
        else:
            out.text(f"saved the encounter as {rest[0]} ({len(now.order)} combatants)")
        return
    read = encounters.read(rest[0], MAX_POINTS_, MAX_COUNT, _NAME)
    sealed = context.sealed_for(opts, out) is not None
    roller: Any = context.roller(opts)
    if sealed:
        roller = _NoDice(
            "init load rolls dice outside a sealed session's stream: load it before d20 seal"
        )
    system = context.system_for(opts)
    new: list[tuple[str, str, InitiativeRollType]] = []
    joining: list[Combatant] = []
    for e in read.entries:
        told = enc.Joining()
        told.hp, told.ac, told.toughness = e.hp, e.ac, e.toughness
        if e.pin is not None:
            rolls = [InitiativeRollType(e.pin, 0, ())]
        elif e.total is not None:
            rolls = [InitiativeRollType(e.total, e.modifier, ())] * e.count
        else:
            words = [e.name, *e.init.split(), f"x{e.count}"]
            _, rolls = monster_rolls(words, system, context, roller)
        hps = enc.hit_points(told, len(rolls), system, context, roller)
        names = initiative.monster_names(e.name, len(rolls), [n for n, _, _ in new])
        for n, r, hp in zip(names, rolls, hps, strict=True):
            v = enc.vitals_of(hp, told)
            v = replace(
                v,
                max_hp=e.max_hp if e.max_hp is not None else v.max_hp,
                temp=e.temp,
                state=e.state if e.state in STATES_ else "",
                bruises=e.bruises,
                notes=e.notes,
            )
            new.append((n, e.kind, r))
            joining.append(
                Combatant(
                    n,
                    e.kind,
                    r.total,
                    r.modifier,
                    pinned=e.pin is not None,
                    reported=e.reported,
                    words=e.init,
                    system=system.id,
                    vitals=v,
                    conditions=tuple(Condition(*k) for k in e.conditions),
                )
            )
    order = initiative.joined([], new, roller, joining)
    names_low = {c.name.lower() for c in order}
    turn = read.turn if read.turn is not None and read.turn.lower() in names_low else order[0].name
    loaded = initiative.Encounter(max(read.round, 1), turn, tuple(order))

    found, change = enc.edit(
        store,
        ["load", rest[0]],
        lambda _: (loaded, {"said": [f"loaded {rest[0]} ({len(order)} combatants)"]}),
    )
    enc.show(found, change, opts, out)


def _saved(c: Combatant) -> dict[str, Any]:
    """A combatant as `init save` writes it (d20cli.store.encounters)."""
    v = c.vitals
    return {
        "name": c.name,
        "kind": c.kind,
        "init": c.words or f"{c.modifier:+d}",
        "pin": c.total if c.pinned else None,
        "total": None if c.pinned else c.total,
        "modifier": c.modifier,
        "reported": c.reported or None,
        "hp": None if v.hp is None else str(v.hp),
        "max_hp": v.max_hp,
        "temp": v.temp or None,
        "ac": v.ac,
        "toughness": v.toughness,
        "bruises": v.bruises or None,
        "state": v.state or None,
        "notes": v.notes or None,
        "conditions": [
            {"name": k.name, "until": k.until, "of": k.of, "round": k.round} if k.until else k.name
            for k in c.conditions
        ]
        or None,
    }


_ENCOUNTER = {
    sub: _encounter_command
    for sub in (
        "pin",
        "hurt",
        "heal",
        "cond",
        "note",
        "next",
        "dyn",
        "undo",
        "save",
        "load",
        "list",
    )
}


def _party_rolls(
    own: Options,
    opts: Options,
    context: Context,
    roller: Roller,
    out: Output,
    record: Record | None = None,
) -> list[tuple[str, InitiativeRoll]]:
    members = party(own.as_)
    if not members:
        raise ParseError(
            "no characters to roll initiative for: add one (d20 char add aria --system "
            "levelup) or add monsters with d20 init add NAME +N"
        )
    rolled = []
    for c in members:
        try:
            system = get_system(c.system) if c.system else context.system_for(opts)
        except D20Error as err:
            raise type(err)(f"{c.name}: {err.message}", err.text, err.column) from None
        rolled.append((c.name, character_roll(c, system, context, roller, out, record)))
    return rolled


def _show(encounter: Encounter, opts: Options, out: Output, sealed: Result | None = None) -> None:
    """The order; after a sealed session's roll, with its marker (`sealed`: its result)."""
    if opts.json:
        shown = encounter.to_json()
        if sealed is not None:
            shown["sealed"] = sealed.detail["sealed"]
            if "receipt" in sealed.detail:
                shown["receipt"] = sealed.detail["receipt"]
        out.json(shown)
    else:
        out.text("\n".join(order_lines(encounter.round, encounter.turn, encounter.order)))
        if sealed is not None:
            from d20cli.present.render import sealed_lines

            out.lines(sealed_lines(sealed))


def turn_text(out: Output, context: Context) -> str | None:
    """Whose turn it is, for the shell's toolbar ("turn: aria (round 2) 4/12 HP, blessed":
    with the combatant's HP, state and conditions); None with no order (or a state that
    cannot be read)."""
    from d20cli.store import initiative

    try:
        encounter = initiative.load(context.state(out))
    except D20Error:
        return None
    if encounter.turn is None:
        return None
    from d20cli.rules.encounter import hp_text

    shown = f"turn: {encounter.turn} (round {encounter.round})"
    now = next((c for c in encounter.order if c.name == encounter.turn), None)
    if now is not None:
        kept = [hp_text(now.vitals), now.vitals.state, *(k.name for k in now.conditions)]
        kept = [k for k in kept if k]
        if kept:
            shown += " " + ", ".join(kept)
    return shown


__all__ = [
    "INIT_OPTIONS",
    "SUBCOMMANDS",
    "USAGE",
    "WORDS",
    "character_roll",
    "monster_rolls",
    "party",
    "run_init",
    "turn_text",
]
