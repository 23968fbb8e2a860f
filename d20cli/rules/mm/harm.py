"""Damage in Mutants & Masterminds (docs/systems/mm.md, "Damage"): there are no hit
points. The seed says a resistance check resists "damage and injury" (d20 + the defense,
typically toughness, against 10 + the rank, "graded"); how each degree of failure hurts
is not in it, so this is a documented decision, the M&M damage track:

- `init hurt NAME RANK` is a toughness resistance check: d20 + toughness - bruises
  against DC 15 + RANK (the damage DC), graded as every mm check (a natural 20 raises
  the degree a step);
- a success: no damage; one degree of failure: a bruise (-1 to later toughness checks,
  they add up); two: a bruise and dazed; three: a bruise and staggered (staggered again:
  incapacitated); four or more: incapacitated;
- `init heal NAME N` takes away N steps of damage, the worst first: incapacitated ->
  staggered -> dazed -> up, then one bruise a step.
"""

from __future__ import annotations

from d20cli.frozen import replace
from d20cli.rules.encounter import Harm, Said, Vitals, nothing_at_start
from d20cli.rules.mm.checks import degree, degree_label, raise_degree

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller

DAMAGE_DC = 15  # the damage DC: 15 + the damage rank
#: The damage conditions, least to worst ("" is unhurt).
TRACK = ("", "dazed", "staggered", "incapacitated")


def hurt(v: Vitals, rank: int, kind: str, critical: bool, roller: Roller) -> Said:
    """A toughness resistance against damage of `rank` (module doc)."""
    toughness = v.toughness if v.toughness is not None else 0
    dc = DAMAGE_DC + rank
    face = roller.roll(1, 20)
    total = face + toughness - v.bruises
    deg = degree(total, dc)
    if face == 20:
        deg = raise_degree(deg)
    parts = f"d20 {face} {toughness:+d}" + (f" -{v.bruises} bruises" if v.bruises else "")
    said = f"toughness: {parts} = {total} vs DC {dc}: {degree_label(deg)}"
    if deg > 0:
        return Said(v, (said, "no damage"))
    worst = TRACK.index(v.state) if v.state in TRACK else 0
    if deg == -1:
        new = worst
    elif deg == -2:
        new = max(worst, 1)
    elif deg == -3:
        new = 3 if worst == 2 else max(worst, 2)
    else:
        new = 3
    after = replace(v, bruises=v.bruises + (deg > -4), state=TRACK[new])
    hurt_by = "bruised" + (f" ({after.bruises})" if after.bruises > 1 else "")
    if deg <= -4:
        hurt_by = "incapacitated"
    elif new > 0:
        hurt_by += f", {TRACK[new]}"
    return Said(after, (said, hurt_by))


def heal(v: Vitals, steps: int, kind: str) -> Said:
    """`steps` steps of damage taken away, the worst first (module doc)."""
    worst = TRACK.index(v.state) if v.state in TRACK else 0
    up = min(steps, worst)
    bruises = max(v.bruises - (steps - up), 0)
    after = replace(v, state=TRACK[worst - up], bruises=bruises)
    left = [TRACK[worst - up]] if worst - up else []
    if bruises:
        left.append(f"{bruises} bruise{'s' if bruises > 1 else ''}")
    return Said(after, ("recovers: " + (", ".join(left) if left else "unhurt"),))


#: The conditions of the damage track and the seed's other conditions, for completion.
CONDITIONS = (
    "bruised",
    "dazed",
    "defenseless",
    "hindered",
    "impaired",
    "incapacitated",
    "prone",
    "staggered",
    "stunned",
    "vulnerable",
)

HARM = Harm(
    False,
    hurt,
    heal,
    nothing_at_start,
    CONDITIONS,
    {},
    "damage: a toughness resistance against DC 15 + rank (bruised, dazed, staggered, "
    "incapacitated)",
    # incapacitated (defenseless, stunned: no actions) is out of the fight: its turn is
    # passed over until healing takes it back up the track
    no_turn=frozenset({"incapacitated"}),
)

__all__ = ["DAMAGE_DC", "HARM", "TRACK", "heal", "hurt"]
