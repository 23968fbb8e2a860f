"""What `d20 log --stats` computes from the roll log (d20cli.store.rolllog): a fairness
test of the d20s, and the naturals (each die's lowest and highest face) per character
and per session for every die size rolled.

The fairness test: per character, every 20-sided die rolled (kept or not, any role) whose
face was not forced (`--dice`) or clamped (`mi`/`ma`) is counted by face; Pearson's
chi-square against 1/20 each, with 19 degrees of freedom, gives a p-value (the
regularized upper incomplete gamma function, computed here: no scipy).
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from d20cli.frozen import frozen
from d20cli.store.database import BadValue, stored_text, stored_text_or_none
from d20cli.store.rolllog import combine, summary_d20

if TYPE_CHECKING:
    from d20cli.store.rolllog import LogFilter, Rolls

SIDES = 20
MIN_ROLLS = 100  # below this (fewer than 5 expected per face) the test says too few


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


@frozen
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
    def mean(self) -> float | None:
        """The mean face (10.5 for a fair die); None without a d20."""
        n = self.rolls
        return sum(f * c for f, c in enumerate(self.counts, 1)) / n if n else None

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


def fairness(
    rolls: Rolls, character: str | None = None, only: LogFilter | None = None
) -> list[Fairness]:
    """Face counts of the d20s, per character (None: rolls made as no character)."""
    only = combine(character, only)
    where, args = _filter(only)
    counts: dict[str | None, list[int]] = {}

    def query(conn: sqlite3.Connection) -> bool:
        counts.clear()
        try:
            return _by_sql(conn)
        except sqlite3.OperationalError as err:
            if "no such" not in str(err):  # function or table-valued function
                raise _stored(err) from err
            return False

    def _by_sql(conn: sqlite3.Connection) -> bool:
        found = conn.execute(
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
                counts.setdefault(_who(who), [0] * SIDES)[face - 1] += int(n)
        summaries = conn.execute(  # rows that hold a summary (store/rolllog.py)
            "SELECT r.character, json_extract(r.dice, '$[0].summary.faces.\"20\"') "
            "FROM rolls AS r WHERE r.source != 'dice' "
            f"AND json_extract(r.dice, '$[0].summary') IS NOT NULL{where}",
            args,
        ).fetchall()
        for who, faces in summaries:
            _add_summary(counts, _who(who), faces)
        return True

    if not rolls.db.read("the roll log", query):  # an SQLite without JSON functions
        counts.clear()
        for row in rolls.rows(only=only):
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


def _who(value: object) -> str | None:
    """The character of a row read by SQL, checked (BadValue: not text)."""
    return stored_text_or_none(value, "rolls.character")


def _stored(err: sqlite3.OperationalError) -> sqlite3.Error:
    """The error of a query over the rows' JSON: a column that is not JSON (SQLite:
    "malformed JSON", also for JSON nested over 1,000 deep) is a value d20 does not
    write (BadValue: the file is moved aside); any other is raised as it is."""
    if "malformed JSON" in str(err):
        return BadValue("rolls.dice holds text that is not the JSON of a list of dice")
    return err


def _filter(only: LogFilter) -> tuple[str, tuple[Any, ...]]:
    """` AND ...` for the rows `only` keeps (columns of `rolls AS r`), and its values: never
    a secret roll not yet revealed (d20cli.store.rolllog: its dice are not shown)."""
    sql, args = only.where("r.")
    hidden = " AND (r.secret IS NULL OR r.secret != 1)"
    return (f" AND {sql}" if sql else "") + hidden, args


# --- outcomes --------------------------------------------------------------------------


@frozen
class Outcomes:
    """One character's logged rolls, and how many of them succeeded or failed (an outcome
    id that ends in `success` or `failure`: every system's tiers; a contest's winner or a
    luck roll is neither)."""

    rolls: int = 0
    successes: int = 0
    failures: int = 0

    def to_json(self) -> dict[str, int]:
        return {"rolls": self.rolls, "successes": self.successes, "failures": self.failures}


def outcomes(rolls: Rolls, only: LogFilter | None = None) -> dict[str | None, Outcomes]:
    """The rows `only` keeps, counted per character (None: rolls made as no character);
    forced faces (`--dice`: dice read off the table, say) count here as any roll."""
    where, args = _filter(combine(None, only))

    def query(conn: sqlite3.Connection) -> dict[str | None, Outcomes]:
        found = conn.execute(
            "SELECT r.character, count(*), sum(r.outcome LIKE '%success'), "
            f"sum(r.outcome LIKE '%failure') FROM rolls AS r WHERE 1{where} GROUP BY r.character",
            args,
        ).fetchall()
        return {_who(who): Outcomes(n, int(s or 0), int(f or 0)) for who, n, s, f in found}

    return rolls.db.read("the roll log", query)


# --- naturals ---------------------------------------------------------------------------

SESSION_GAP = timedelta(hours=2)  # a pause this long between two rolls starts a session


@dataclass
class Tally:
    """Dice of one size: how many were rolled, and how many showed 1 and the top face."""

    rolled: int = 0
    ones: int = 0
    tops: int = 0

    def add(self, rolled: int, ones: int, tops: int) -> None:
        self.rolled += rolled
        self.ones += ones
        self.tops += tops

    def to_json(self, sides: int) -> dict[str, Any]:
        return {
            "rolled": self.rolled,
            "ones": self.ones,
            "tops": self.tops,
            "expected": self.rolled / sides,
        }


#: character -> die size -> tally
ByCharacter = dict[str | None, dict[int, Tally]]


@dataclass
class Session:
    """Rolls with no pause longer than SESSION_GAP between two of them."""

    start: str
    end: str
    naturals: ByCharacter = field(default_factory=dict)


@dataclass
class Naturals:
    """The naturals of every die size rolled (`d20 log --stats`): per character, and per
    character within each session. Forced (`--dice`) and clamped (`mi`/`ma`) dice are
    left out, as in the fairness test."""

    characters: ByCharacter = field(default_factory=dict)
    sessions: list[Session] = field(default_factory=list)

    def add(self, at: str, who: str | None, sides: int, counts: tuple[int, int, int]) -> None:
        if sides < 1 or counts[0] <= 0:
            return
        session = self.sessions[-1] if self.sessions else None
        if session is None or _gap(session.end, at) > SESSION_GAP:
            session = Session(at, at)
            self.sessions.append(session)
        session.end = at
        for table in (self.characters, session.naturals):
            table.setdefault(who, {}).setdefault(sides, Tally()).add(*counts)

    def to_json(self, who: str | None) -> dict[str, Any]:
        """One character's naturals and sessions, for the JSON of `--stats`."""
        return {
            "naturals": _sizes_json(self.characters.get(who, {})),
            "sessions": [
                {"start": s.start, "end": s.end, "naturals": _sizes_json(s.naturals[who])}
                for s in self.sessions
                if who in s.naturals
            ],
        }


def _sizes_json(sizes: dict[int, Tally]) -> dict[str, Any]:
    return {f"d{s}": sizes[s].to_json(s) for s in sorted(sizes)}


def _gap(earlier: str, later: str) -> timedelta:
    try:
        return datetime.fromisoformat(later) - datetime.fromisoformat(earlier)
    except ValueError:  # a hand-edited time: no new session
        return timedelta(0)


def naturals(rolls: Rolls, character: str | None = None, only: LogFilter | None = None) -> Naturals:
    """The naturals of the rows `only` keeps (see `Naturals`), oldest first."""
    only = combine(character, only)
    where, args = _filter(only)
    found = Naturals()

    def query(conn: sqlite3.Connection) -> bool:
        try:
            cursor = conn.execute(
                "SELECT r.at, r.character, json_extract(d.value, '$.sides') AS s, count(*), "
                "sum(json_extract(d.value, '$.face') = 1), "
                "sum(json_extract(d.value, '$.face') = json_extract(d.value, '$.sides')), "
                "json_extract(d.value, '$.summary') "
                "FROM rolls AS r, json_each(r.dice) AS d "
                "WHERE r.source != 'dice' AND NOT EXISTS (SELECT 1 FROM "
                "json_each(d.value, '$.flags') AS f WHERE f.value IN ('min', 'max'))"
                f"{where} GROUP BY r.id, s ORDER BY r.id",
                args,
            )
            for raw_at, who, sides, n, ones, tops, summary in cursor:
                at = stored_text(raw_at, "rolls.at")
                if summary is not None:
                    _add_summary_naturals(found, at, _who(who), summary)
                elif isinstance(sides, int):
                    found.add(at, _who(who), sides, (int(n), int(ones or 0), int(tops or 0)))
        except sqlite3.OperationalError as err:
            if "no such" not in str(err):
                raise _stored(err) from err
            return False
        return True

    if not rolls.db.read("the roll log", query):  # an SQLite without JSON functions
        found = Naturals()
        for row in rolls.rows(only=only):
            if row.source != "dice":
                _add_row_naturals(found, row.at, row.character, row.dice)
    return found


def _add_row_naturals(found: Naturals, at: str, who: str | None, dice: list[Any]) -> None:
    counts: dict[int, list[int]] = {}
    for die in dice:
        if not isinstance(die, dict):
            continue
        if isinstance(die.get("summary"), dict):
            _add_summary_naturals(found, at, who, die["summary"])
            continue
        sides, face, flags = die.get("sides"), die.get("face"), die.get("flags") or ()
        if not isinstance(sides, int) or "min" in flags or "max" in flags:
            continue
        c = counts.setdefault(sides, [0, 0, 0])
        c[0] += 1
        c[1] += face == 1
        c[2] += face == sides
    for sides, (n, ones, tops) in counts.items():
        found.add(at, who, sides, (n, ones, tops))


def _add_summary_naturals(found: Naturals, at: str, who: str | None, summary: object) -> None:
    """A summary row (d20cli.store.rolllog) counts the faces of dice up to 100 sides."""
    if isinstance(summary, str):
        try:
            summary = json.loads(summary)
        except ValueError:
            return
    faces = summary.get("faces") if isinstance(summary, dict) else None
    if not isinstance(faces, dict):
        return
    for size, counts in faces.items():
        if not (isinstance(size, str) and size.isascii() and size.isdigit()):
            continue
        if not isinstance(counts, dict):
            continue
        good = {f: n for f, n in counts.items() if isinstance(n, int) and not isinstance(n, bool)}
        n = sum(v for v in good.values() if 0 < v <= 10**15)
        found.add(at, who, int(size), (n, good.get("1", 0), good.get(size, 0)))


@frozen
class LogSize:
    """How big the roll log is: its rows, and the bytes of the state database's files on
    disk (the log is most of them)."""

    rows: int
    bytes: int

    def to_json(self) -> dict[str, int]:
        return {"rows": self.rows, "bytes": self.bytes}


def log_size(rolls: Rolls) -> LogSize:
    return LogSize(rolls.count(), rolls.db.disk_bytes())
