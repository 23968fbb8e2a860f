"""The roll log: every roll appended to the state database (d20cli.store.state), and what
`d20 log` reads back: recent rolls, exports, and a fairness test of the d20s.

A row holds the time (UTC, ISO 8601), the character (`--as`, else null), the system, the
verb, the request text as rolled (label words resolved), the dice (a JSON list of
{sides, face, kept, role, ...}: the request's dice, then its damage dice), the total, the
outcome id, and where the faces came from: `random`, `seed` (--seed) or `dice` (--dice).

Rows are buffered and written in one transaction before the output that shows them is
written (group commit: `Context.save`, called by `Output` before every write on stdout),
when the run ends (`RollLog.close`), or every `FLUSH_ROWS` rows: a batch on standard input
costs a transaction per piece of output, not one per line, and a roll that was shown is
a roll that was logged, even after a kill -9. `--no-log` or `D20_NO_LOG=1` (`true`,
`yes`) turns the log off. A log that cannot be written gives one warning and the rolls go on.

The fairness test (`d20 log --stats`): per character, every 20-sided die rolled (kept or
not, any role) whose face was not forced (`--dice`) or clamped (`mi`/`ma`) is counted by
face; Pearson's chi-square against 1/20 each, with 19 degrees of freedom, gives a p-value
(the regularized upper incomplete gamma function, computed here: no scipy).
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from d20cli.errors import D20Error
from d20cli.store.log_rows import FLUSH_BYTES, MAX_RUN_BYTES, row_bytes, row_dice, summary_d20

if TYPE_CHECKING:
    from d20cli.present.output import Output
    from d20cli.results import Result
    from d20cli.store.state import State

FLUSH_ROWS = 10_000
SIDES = 20
MIN_ROLLS = 100  # below this (fewer than 5 expected per face) the test says too few
COLUMNS = (
    "id",
    "at",
    "character",
    "system",
    "verb",
    "request",
    "dice",
    "total",
    "outcome",
    "source",
)


#: Columns that hold whole numbers: written to CSV as they are (`-1` is a total, not a
#: formula). Every other column is text.
NUMBER_COLUMNS = frozenset({"id", "total"})
#: What a spreadsheet reads as the start of a formula in a CSV cell (OWASP, CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(column: str, value: Any) -> Any:
    """One CSV cell of a row. A text cell that starts like a formula (`=HYPERLINK(...)` as
    a hand-edited character name) gets a single quote in front, as OWASP recommends, so a
    spreadsheet shows it as text instead of running it; whole numbers stay numbers."""
    if value is None:
        return ""
    if column in NUMBER_COLUMNS and isinstance(value, int):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_row(row: Row) -> list[Any]:
    """A row as CSV cells, in COLUMNS order (the dice as compact JSON text)."""
    values = row.to_json()
    values["dice"] = json.dumps(row.dice, separators=(",", ":"))
    return [csv_cell(c, values[c]) for c in COLUMNS]


def stamp(ms: int) -> str:
    """The log's time text for a time in milliseconds since the epoch (ISO 8601, UTC)."""
    at = datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000)
    return at.isoformat(timespec="milliseconds")


def dice_text(result: Result) -> str:
    """The JSON list of every die of a result: its own (a group's or contest's include
    their members'), or its members' and sides' when it lists none itself, then its damage
    dice."""
    if result.damage is None and result.dice:
        return result.dice_text()  # the usual case, shared with the JSON line
    lists = [result.dice_text()]
    if not result.dice:
        for part in (*(result.members or ()), *(result.sides or ())):
            lists.append(part.dice_text())
            if part.damage is not None:
                lists.append(part.damage.dice_text())
    if result.damage is not None:
        lists.append(result.damage.dice_text())
    return f"[{', '.join(text[1:-1] for text in lists if text != '[]')}]"


class RollLog:
    """Rows waiting to be written; `close` writes them. Their size is bounded as
    d20cli.store.log_rows says: a row's dice (a summary past MAX_ROW_DICE characters),
    the buffer (written at FLUSH_BYTES) and one run's rows (MAX_RUN_BYTES)."""

    def __init__(
        self,
        character: str | None,
        source: str,
        out: Output,
        store: State | None = None,
        flush_rows: int = FLUSH_ROWS,
    ) -> None:
        self.character = character
        self.source = source
        self.out = out
        self.flush_rows = flush_rows
        self._store = store
        self._rows: list[tuple[Any, ...]] = []
        self._failed = False
        self._ms = -1  # the time of the last row, and its text (a batch rolls many per ms)
        self._stamp = ""
        self._bytes = 0  # of the buffered rows, and of every row of the run
        self._run_bytes = 0
        self._full = False  # the run has added MAX_RUN_BYTES: the rest is not logged

    def now(self) -> str:
        ms = time.time_ns() // 1_000_000
        if ms != self._ms:
            self._ms, self._stamp = ms, stamp(ms)
        return self._stamp

    def add(self, result: Result) -> None:
        if self._failed or self._full:
            return
        dice = row_dice(result, dice_text)
        size = row_bytes(result.request, dice)
        self._run_bytes += size
        if self._run_bytes > MAX_RUN_BYTES:
            self.flush()
            self._full = True
            self.out.warn(
                f"the roll log takes at most {MAX_RUN_BYTES:,} bytes of rolls per run; "
                "the rest of these rolls are not logged"
            )
            return
        self._bytes += size
        self._rows.append(
            (
                self.now(),
                self.character,
                result.system,
                result.verb,
                result.request,
                dice,
                result.total,
                result.outcome,
                self.source,
            )
        )
        if len(self._rows) >= self.flush_rows or self._bytes >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows in one transaction."""
        rows, self._rows = self._rows, []
        self._bytes = 0
        if not rows or self._failed:
            return
        try:
            if self._store is None:
                from d20cli.store.state import shared

                self._store = shared(self.out.warn)
            self._store.add_rolls(rows)
        except (sqlite3.Error, D20Error, OSError) as err:
            self._failed = True
            message = err.message if isinstance(err, D20Error) else str(err)
            self.out.warn(f"cannot write the roll log ({message}); these rolls are not logged")

    def close(self) -> None:
        self.flush()


# --- reading --------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    id: int
    at: str
    character: str | None
    system: str
    verb: str
    request: str
    dice: list[dict[str, Any]]
    total: int | None
    outcome: str | None
    source: str

    def to_json(self) -> dict[str, Any]:
        return {c: getattr(self, c) for c in COLUMNS}


def _where(character: str | None) -> tuple[str, tuple[Any, ...]]:
    if character is None:
        return "", ()
    return " WHERE character = ?", (character,)


def _row(raw: tuple[Any, ...]) -> Row:
    try:
        dice = json.loads(raw[6])
    except ValueError:
        dice = []
    return Row(
        int(raw[0]),
        str(raw[1]),
        raw[2],
        str(raw[3]),
        str(raw[4]),
        str(raw[5]),
        dice if isinstance(dice, list) else [],
        raw[7],
        raw[8],
        str(raw[9]),
    )


def recent(store: State, limit: int = 20, character: str | None = None) -> list[Row]:
    """The last `limit` rolls, oldest first."""
    where, args = _where(character)
    raws = store.conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM rolls{where} ORDER BY id DESC LIMIT ?",
        (*args, limit),
    ).fetchall()
    return [_row(r) for r in reversed(raws)]


def rows(store: State, character: str | None = None) -> Iterator[Row]:
    """Every logged roll, oldest first (streamed)."""
    where, args = _where(character)
    cursor = store.conn.execute(f"SELECT {', '.join(COLUMNS)} FROM rolls{where} ORDER BY id", args)
    for raw in cursor:
        yield _row(raw)


def count(store: State, character: str | None = None) -> int:
    where, args = _where(character)
    return int(store.conn.execute(f"SELECT count(*) FROM rolls{where}", args).fetchone()[0])


# --- fairness ---------------------------------------------------------------------------


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the regularized upper incomplete gamma function: a series
    for x < a + 1, a continued fraction (modified Lentz) beyond (Numerical Recipes 6.2)."""
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_prefix) * h)


def chi_square_p(statistic: float, degrees: int) -> float:
    """P(X >= statistic) for X chi-square distributed with `degrees` degrees of freedom."""
    return regularized_gamma_q(degrees / 2, statistic / 2)


@dataclass(frozen=True)
class Fairness:
    character: str | None
    counts: tuple[int, ...]  # counts[f - 1]: how many times face f came up

    @property
    def rolls(self) -> int:
        return sum(self.counts)

    @property
    def expected(self) -> float:
        return self.rolls / SIDES

    @property
    def chi_square(self) -> float:
        e = self.expected
        return sum((c - e) ** 2 / e for c in self.counts) if e else 0.0

    @property
    def p_value(self) -> float | None:
        return chi_square_p(self.chi_square, SIDES - 1) if self.rolls else None

    @property
    def verdict(self) -> str:
        p = self.p_value
        if p is None or self.rolls < MIN_ROLLS:
            return f"too few rolls to judge (at least {MIN_ROLLS} d20s needed)"
        if p < 0.001:
            return "unlikely to be a fair die (p < 0.001)"
        if p < 0.05:
            return "somewhat unusual (p < 0.05): roll more to tell"
        return "consistent with a fair die"

    def to_json(self) -> dict[str, Any]:
        return {
            "character": self.character,
            "rolls": self.rolls,
            "counts": {str(f): c for f, c in enumerate(self.counts, 1)},
            "expected": self.expected,
            "chi_square": round(self.chi_square, 6),
            "degrees_of_freedom": SIDES - 1,
            "p_value": self.p_value,
            "verdict": self.verdict,
        }


def _fair_face(die: Any) -> int | None:
    if not isinstance(die, dict) or die.get("sides") != SIDES:
        return None
    flags = die.get("flags") or ()
    if "min" in flags or "max" in flags:
        return None
    face = die.get("face")
    return face if isinstance(face, int) and 1 <= face <= SIDES else None


def _add_summary(counts: dict[str | None, list[int]], who: str | None, faces: object) -> None:
    found = summary_d20(faces)
    if found is not None:
        mine = counts.setdefault(who, [0] * SIDES)
        for i, n in enumerate(found):
            mine[i] += n


def fairness(store: State, character: str | None = None) -> list[Fairness]:
    """Face counts of the d20s, per character (None: rolls made as no character)."""
    where = " AND r.character = ?" if character is not None else ""
    args: tuple[Any, ...] = (character,) if character is not None else ()
    counts: dict[str | None, list[int]] = {}
    try:
        found = store.conn.execute(
            "SELECT r.character, json_extract(d.value, '$.face') AS face, count(*) "
            "FROM rolls AS r, json_each(r.dice) AS d "
            "WHERE r.source != 'dice' AND json_extract(d.value, '$.sides') = 20 "
            "AND NOT EXISTS (SELECT 1 FROM json_each(d.value, '$.flags') AS f "
            "WHERE f.value IN ('min', 'max'))"
            f"{where} GROUP BY r.character, face",
            args,
        ).fetchall()
        for who, face, n in found:
            if isinstance(face, int) and 1 <= face <= SIDES:
                counts.setdefault(who, [0] * SIDES)[face - 1] += int(n)
        summaries = store.conn.execute(  # rows that hold a summary (store/log_rows.py)
            "SELECT r.character, json_extract(r.dice, '$[0].summary.faces.\"20\"') "
            "FROM rolls AS r WHERE r.source != 'dice' "
            f"AND json_extract(r.dice, '$[0].summary') IS NOT NULL{where}",
            args,
        ).fetchall()
        for who, faces in summaries:
            _add_summary(counts, who, faces)
    except sqlite3.OperationalError:  # an SQLite without JSON functions
        counts.clear()
        for row in rows(store, character):
            if row.source == "dice":
                continue
            for die in row.dice:
                face = _fair_face(die)
                if face is not None:
                    counts.setdefault(row.character, [0] * SIDES)[face - 1] += 1
                elif isinstance(die, dict) and isinstance(die.get("summary"), dict):
                    _add_summary(counts, row.character, die["summary"].get("faces", {}).get("20"))
    order = sorted(counts, key=lambda c: (c is not None, c or ""))
    return [Fairness(who, tuple(counts[who])) for who in order]
