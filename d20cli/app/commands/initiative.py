"""`d20 init ...`: initiative at the table, from the command line (d20cli.app.commands.init),
standard input and the shell (`run_init`, which d20cli.app.run sends `init` lines to).

    d20 init                      show the order (round, whose turn)
    d20 init roll [--as a,b]      a new encounter: the party rolls (monsters added stay)
    d20 init add NAME [WORDS] [xN]  add monsters: `init add goblin +2 x3` (goblin-1..3)
    d20 init next                 the next turn (after the last: the next round)
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
from typing import TYPE_CHECKING

from d20cli.app.context import Context
from d20cli.app.options import NO_OPTIONS, OPTIONS, Options, split_options
from d20cli.errors import D20Error, ExitStatus, ParseError, RulesError
from d20cli.frozen import fields
from d20cli.language.requests import CheckRequest
from d20cli.present.initiative_view import order_lines
from d20cli.present.output import Output
from d20cli.rules import get_system
from d20cli.rules.offers import in_system_terms

if TYPE_CHECKING:
    from d20cli.dice.roller import Roller
    from d20cli.results import Result
    from d20cli.rules import System
    from d20cli.rules.initiative import Combatant, InitiativeRoll, InitiativeRule
    from d20cli.store.characters import Character
    from d20cli.store.initiative import Encounter

SUBCOMMANDS: dict[str, str] = {
    "show": "Show the order: the round and whose turn it is (also bare `d20 init`).",
    "roll": "A new encounter: the party rolls initiative (monsters added stay).",
    "add": "Add monsters (`d20 init add goblin +2 x3` adds goblin-1 to goblin-3), or a "
    "character by name alone (`d20 init add aria`: its init entry).",
    "next": "The next turn; after the last, the next round.",
    "rm": "Take one out of the order: `d20 init rm goblin-2`.",
    "clear": "End the encounter: empty the order.",
}
#: The words each subcommand takes (`d20 init add --help` shows them).
WORDS: dict[str, str] = {
    "show": "",
    "roll": "",
    "add": "NAME [+N] [adv|dis] [xN]",
    "next": "",
    "rm": "NAME",
    "clear": "",
}
USAGE = (
    "d20 init [roll | add NAME [+N] [adv|dis] [xN] | next | rm NAME | clear] "
    "[--system ID] [--seed N] [--dice F,F,...] [--as NAME,NAME] [--json]"
)
#: The options `init` takes (fields of Options); any other is an error.
INIT_OPTIONS = frozenset(("system", "json", "seed", "dice", "as_", "no_color", "budget", "no_log"))
MAX_COUNT = 100  # `xN`: monsters added at once
MAX_DICE = 100  # dice in one initiative roll (they are kept with the order)
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
    if len(roll.dice) > MAX_DICE:
        raise ParseError(
            f"an initiative roll keeps at most {MAX_DICE} dice, not {len(roll.dice):,}"
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
    if sub in ("show", "next", "clear") and rest:
        raise ParseError(f"init {sub} takes no words, not {rest[0][:40]!r}")
    if sub == "rm" and len(rest) != 1:
        raise ParseError("init rm takes one name: d20 init rm goblin-2")
    store = context.state(out)
    if sub == "show":
        encounter = initiative.load(store)
    elif sub == "next":
        encounter = initiative.next_turn(store)
    elif sub == "rm":
        encounter, gone = initiative.remove(store, rest[0])
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
    """Whose turn it is, for the shell's toolbar ("turn: aria (round 2)"); None with no
    order (or a state that cannot be read)."""
    from d20cli.store import initiative

    try:
        encounter = initiative.load(context.state(out))
    except D20Error:
        return None
    if encounter.turn is None:
        return None
    return f"turn: {encounter.turn} (round {encounter.round})"


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
