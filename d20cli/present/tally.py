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

    def add(self, r: Result) -> None:
        many = r.sides is not None and len(r.sides) > 2
        if many and r.sides is not None:
            self.sides = max(self.sides, len(r.sides))
        self.add_many(r.outcome, r.label, r.total, 1, r.winner if many else None)

    def add_many(
        self,
        outcome: str | None,
        label: str | None,
        total: int | None,
        n: int,
        winner: int | None = None,
    ) -> None:
        """Count `n` results with this outcome and total (and, of a contest of three or
        more sides, this winning side)."""
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

    def mean(self) -> float | None:
        return self.total_sum / self.total_count if self.total_count else None

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
        return out
