"""`--repeat N --summary`: a running count of outcomes and totals (no result kept), and
its lines for people and its JSON."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from d20cli.present.render import Line, badge
from d20cli.results import Result


@dataclass
class Tally:
    """A running count of outcomes and totals for `--repeat N --summary` (no result kept)."""

    request: str
    system: str
    verb: str
    rolls: int = 0
    counts: Counter[str | None] = field(default_factory=Counter)
    labels: dict[str | None, str | None] = field(default_factory=dict)
    total_sum: int = 0
    total_count: int = 0
    low: int | None = None
    high: int | None = None
    winners: Counter[int] = field(default_factory=Counter)  # contests of 3+ sides
    sides: int = 0  # how many sides those contests have
    # the damage of an attack with `dmg`: set when the request rolls it (even if no roll
    # hits), or at the first result with damage; the sum, least and most of the damage
    # rolled, over `hits` results (a miss rolls none: 0 in the mean per attack)
    with_damage: bool = False
    hits: int = 0
    damage_sum: int = 0
    damage_low: int | None = None
    damage_high: int | None = None

    def add(self, r: Result) -> None:
        many = r.sides is not None and len(r.sides) > 2
        if many and r.sides is not None:
            self.sides = max(self.sides, len(r.sides))
        damage = r.damage.total if r.damage is not None else None
        self.add_many(r.outcome, r.label, r.total, 1, r.winner if many else None, damage)

    def add_many(
        self,
        outcome: str | None,
        label: str | None,
        total: int | None,
        n: int,
        winner: int | None = None,
        damage: int | None = None,
    ) -> None:
        """Count `n` results with this outcome and total (and, of a contest of three or
        more sides, this winning side; of an attack that hit, this damage)."""
        if not n:
            return
        self.rolls += n
        self.counts[outcome] += n
        self.labels.setdefault(outcome, label)
        if winner is not None:
            self.winners[winner] += n
            self.sides = max(self.sides, winner)
        if total is not None:
            self.total_sum += total * n
            self.total_count += n
            self.low = total if self.low is None else min(self.low, total)
            self.high = total if self.high is None else max(self.high, total)
        if damage is not None:
            self.add_damage(damage, n)

    def add_damage(self, damage: int, n: int) -> None:
        """Count `n` results that rolled `damage` (of those counted by `add_many`)."""
        if not n:
            return
        self.with_damage = True
        self.hits += n
        self.damage_sum += damage * n
        self.damage_low = damage if self.damage_low is None else min(self.damage_low, damage)
        self.damage_high = damage if self.damage_high is None else max(self.damage_high, damage)

    def mean(self) -> float | None:
        return self.total_sum / self.total_count if self.total_count else None

    def damage_json(self) -> dict[str, object] | None:
        """The damage of an attack with `dmg` (None for any other request): `mean` per
        attack (a miss as 0, as `odds` gives its expected damage), and over the `hits`
        that rolled damage `mean_per_hit`, `min` and `max` (null when none hit)."""
        if not self.with_damage:
            return None
        return {
            "mean": self.damage_sum / self.rolls if self.rolls else None,
            "mean_per_hit": self.damage_sum / self.hits if self.hits else None,
            "min": self.damage_low,
            "max": self.damage_high,
            "hits": self.hits,
        }

    def lines(self) -> list[Line]:
        n = self.rolls
        lines: list[Line] = [
            [(self.request, "bold"), (f"  [{self.system}]", "dim"), (f"  {n:,} rolls", "")]
        ]
        # worst first, as the system lists its tiers (labels holds them in that order)
        order = {outcome: n for n, outcome in enumerate(self.labels)}
        rows = sorted(self.counts.items(), key=lambda kv: order.get(kv[0], len(order)))
        names = {o: self.labels.get(o) or (o or "no outcome") for o, _ in rows}
        tags = [f"side {side} wins" for side in range(1, self.sides + 1)] if self.winners else []
        width = max((len(v) for v in (*names.values(), *(f"  {t}" for t in tags))), default=0)
        digits = max((len(f"{k:,}") for _, k in rows), default=0)
        for outcome, k in rows:
            label = names[outcome]
            lines.append(
                [
                    ("  ", ""),
                    badge(outcome, label),
                    (" " * (width - len(label)), ""),
                    (f"  {k:>{digits},}  {100 * k / n:5.1f}%", ""),
                ]
            )
        for side, tag in enumerate(tags, start=1):  # a contest of three or more sides
            k = self.winners[side]
            lines.append(
                [(f"    {tag:<{width - 2}}", ""), (f"  {k:>{digits},}  {100 * k / n:5.1f}%", "")]
            )
        mean = self.mean()
        if mean is not None:
            lines.append(
                [
                    ("  mean total ", "dim"),
                    (f"{mean:.2f}", "bold yellow"),
                    (f"  min {self.low}  max {self.high}", "dim"),
                ]
            )
        damage = self.damage_json()
        if damage is not None:
            line: Line = [("  mean damage ", "dim"), (f"{damage['mean'] or 0:.2f}", "bold yellow")]
            if self.hits:
                line.append(
                    (
                        f" per attack, {damage['mean_per_hit']:.2f} per hit"
                        f"  min {self.damage_low}  max {self.damage_high}",
                        "dim",
                    )
                )
            else:
                line.append((" per attack (no hit)", "dim"))
            lines.append(line)
        return lines

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "request": self.request,
            "system": self.system,
            "verb": self.verb,
            "rolls": self.rolls,
            "outcomes": {str(k) if k is not None else "null": v for k, v in self.counts.items()},
            "percent": {
                str(k) if k is not None else "null": round(100 * v / self.rolls, 3)
                for k, v in self.counts.items()
            },
            "mean": self.mean(),
            "min": self.low,
            "max": self.high,
        }
        if self.winners:
            out["winners"] = {str(n): self.winners[n] for n in range(1, self.sides + 1)}
        damage = self.damage_json()
        if damage is not None:
            out["damage"] = damage
        return out
