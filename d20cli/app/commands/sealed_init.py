"""Initiative in a sealed session (`d20 init roll`, `d20 init add ...`): the whole command
is one roll at one position of the session's stream (d20cli.app.sealed), logged as a row
of verb `init` whose dice are the newcomers' initiative dice, in roll order, then the
roll-off d20s each combatant rolled, in the order's order (role `rolloff`, `by` its
name). Its replay keeps what verify needs to roll it again without the characters file
or the state database:

    {"@": "InitiativeRoll", "text": "init add goblin +2 x3", "system": the run's system,
     "new": [{"name", "kind", "system", "request": the check rolled (parse cache JSON)}],
     "kept": [{"name", "kind", "total", "modifier", "rolloff": [faces], "seq"}]}

`kept` is the order the roll-offs were rolled against (d20cli.store.initiative.joined).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from d20cli.results import Die, Result

if TYPE_CHECKING:
    from d20cli.app.context import Context
    from d20cli.app.options import Options
    from d20cli.dice.roller import Roller
    from d20cli.language.requests import CheckRequest
    from d20cli.present.output import Output
    from d20cli.rules.initiative import Combatant, InitiativeRoll
    from d20cli.store.initiative import Encounter

INIT_REPLAY = "InitiativeRoll"


def init_result(
    text: str,
    system: str,
    rolls: Sequence[InitiativeRoll],
    kept: Sequence[Combatant],
    order: Sequence[Combatant],
) -> Result:
    """The roll a sealed initiative command logs (module doc)."""
    dice = [d for roll in rolls for d in roll.dice]
    before = {c.name: len(c.rolloff) for c in kept}
    for c in order:
        dice += [Die(20, f, role="rolloff", by=c.name) for f in c.rolloff[before.get(c.name, 0) :]]
    return Result(request=text, system=system, verb="init", dice=tuple(dice))


def sealed_roll(
    text: str,
    system: str,
    rolled: Callable[
        [list[tuple[str, CheckRequest]], list[Combatant]],
        tuple[Encounter, list[tuple[str, str, InitiativeRoll]]],
    ],
    roller: Roller,
    context: Context,
    opts: Options,
    out: Output,
) -> tuple[Encounter, Result]:
    """An initiative command (`text`) in the open session: `rolled(record, seen)` rolls
    it with `roller` (recording each roll's system and request, and the combatants the
    roll-offs met) and gives the order and the newcomers; this gives the order and the
    roll, logged with its replay."""
    from d20cli.frozen import replace
    from d20cli.language.parse_cache import encode

    sealing = context.sealing
    assert sealing is not None
    record: list[tuple[str, CheckRequest]] = []
    kept: list[Combatant] = []
    found: list[tuple[Encounter, list[tuple[str, str, InitiativeRoll]]]] = []

    def make() -> Result:
        record.clear()
        encounter, new = rolled(record, kept)
        found.append((encounter, new))
        return init_result(text, system, [r for _, _, r in new], kept, encounter.order)

    def replay() -> str:
        data = {
            "@": INIT_REPLAY,
            "text": text,
            "system": system,
            "new": [
                {"name": n, "kind": k, "system": s, "request": encode(r)}
                for (n, k, _), (s, r) in zip(found[-1][1], record, strict=True)
            ],
            "kept": [
                {
                    "name": c.name,
                    "kind": c.kind,
                    "total": c.total,
                    "modifier": c.modifier,
                    "rolloff": list(c.rolloff),
                    "seq": c.seq,
                }
                for c in kept
            ],
        }
        return json.dumps(data, separators=(",", ":"))

    result = sealing.roll(make, roller, replay)
    log = context.log_for(replace(opts, as_=None), out)
    if log is not None:
        log.add(result)
        result = sealing.with_receipt(result)  # its receipt, once logged
    return found[-1][0], result


def replay_init(replay: dict[str, Any], roller: Roller) -> Result:
    """A sealed initiative roll rolled again from its replay (verify); ValueError (or
    KeyError, TypeError, a D20Error) for a replay that is not one."""
    from d20cli.language.parse_cache import classes, decode
    from d20cli.language.requests import CheckRequest
    from d20cli.rules import get_system
    from d20cli.rules.initiative import MAX_COMBATANTS, Combatant, joined

    new, kept, text, system = (replay[k] for k in ("new", "kept", "text", "system"))
    if not (isinstance(new, list) and isinstance(kept, list) and isinstance(text, str)):
        raise ValueError("not an initiative roll's replay")
    if len(new) + len(kept) > MAX_COMBATANTS or not isinstance(system, str):
        raise ValueError("not an initiative roll's replay")
    rolls: list[tuple[str, str, InitiativeRoll]] = []
    for item in new:
        if not isinstance(item, dict) or not isinstance(item.get("request"), dict):
            raise ValueError("not an initiative roll's replay")
        request = decode(item["request"], classes(), item["request"].get("text"))
        rule = get_system(str(item["system"])).initiative
        if not isinstance(request, CheckRequest) or rule is None:
            raise ValueError("not an initiative roll's replay")
        rolls.append((str(item["name"]), str(item["kind"]), rule.roll(request, roller)))
    before = [
        Combatant(
            str(c["name"]),
            str(c["kind"]),
            _int(c["total"]),
            _int(c["modifier"]),
            (),
            tuple(_int(f) for f in c["rolloff"]),
            _int(c["seq"]),
        )
        for c in kept
    ]
    order = joined(before, rolls, roller)
    return init_result(text, system, [r for _, _, r in rolls], before, order)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"{value!r} is not a whole number")
    return value
