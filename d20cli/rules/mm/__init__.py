"""Mutants & Masterminds: every rule of this system (docs/rules.md, "mm").

Verbs: check, attack, resist, routine, opposed, compare, percent, roll. Every check is
graded in signed degrees (`degree`); pure functions (`degree`, `raise_degree`,
`grade_check`, `grade_attack`, `grade_routine`, `grade_opposed`, `opposed_leaders`,
`tiebreak_pair`, `tiebreak_round`, `grade_compare`, `grade_percent`) decide outcomes so
odds can reuse them.

Decisions where the texts are silent:
- `vs defense N` and `vs rank N` both mean DC 10 + N and are accepted on check, attack,
  resist and routine; `vs routine +N` (routine opposition) likewise means DC 10 + N. The
  named defenses (`vs parry 6`, `dodge`, `fortitude`, `toughness`, `will`) mean
  `defense N`. Ranks and defenses may be negative (`vs rank -1` is DC 9).
- `minor-bonus` / `minor-penalty` are `bonus` / `penalty` (+2 / -2) by another name.
- Degrees: the text's prose ("every five full points adds a degree") and its table (a
  result of DC-5 is still one degree of failure) disagree exactly at DC-5, DC-10, ...;
  this module follows the table.
- `opposed` compares totals only: a natural 20 or 1 has no effect on who wins. "Bonus"
  for the tie-break is each side's modifier as rolled (circumstance words included).
- `opposed` of three or more sides: the highest total wins; equal: the higher bonus;
  equal again: while three or more are still tied, each of them rolls a d20 and those
  with the highest face stay tied (a round where all show one face is rolled again);
  when exactly two are still tied, at the start or after a round, one d20 decides
  (1-10 the earlier side, 11-20 the later), as between two sides.
- `percent` accepts 0..100; 0 never succeeds, 100 always does.
- `compare` ranks are whole numbers (signed allowed).
"""

from __future__ import annotations

from d20cli.language.requests import (
    CheckRequest,
    CompareRequest,
    ContestRequest,
    PercentRequest,
)
from d20cli.language.vocabulary import word_rows
from d20cli.rules.common import (
    SIDE_WINS,
    System,
    resolver,
)
from d20cli.rules.mm.checks import (
    CHECK_VERBS,
    CIRCUMSTANCES,
    HOUSE_WORDS,
    ID,
    INSTEAD,
    LACKS,
    NAMED_DCS,
    OFFERS,
    ROUTINE_BASE,
    TAKES,
    TARGETS,
    _resolve_check,
    _resolve_percent,
    check_plan,
    circumstance_note,
    circumstance_total,
    degree,
    degree_label,
    grade_attack,
    grade_check,
    grade_percent,
    grade_routine,
    raise_degree,
)
from d20cli.rules.mm.opposed import (
    _resolve_compare,
    _resolve_opposed,
    grade_compare,
    grade_opposed,
    grade_tiebreak,
    opposed_leaders,
    tiebreak_pair,
    tiebreak_round,
)

TITLE = "Mutants & Masterminds"


VERBS: dict[str, tuple[str, str]] = {
    "check": (
        "Graded check vs a DC (number or name); natural 20 raises the degree one step",
        "check +4 vs tough bonus",
    ),
    "attack": (
        "Attack vs a DC or `defense N` (DC 10+N); natural 20 critical hit, natural 1 misses",
        "attack +8 vs defense 6",
    ),
    "resist": ("Resistance check vs `rank N` (DC 10+N) or a DC", "resist +6 vs rank 8"),
    "routine": ("Routine check: no die, the result is 10 + modifier, graded", "routine +10 vs 20"),
    "opposed": (
        "Two or more roll; higher total wins; tie: higher bonus, then d20s (two: 1-10 first)",
        "opposed +8 vs +6",
    ),
    "compare": ("No roll: higher rank wins; equal: a d20 (1-10 first)", "compare 8 vs 6"),
    "percent": ("Percent chance on a d20: succeeds when face x 5 <= percent", "percent 45"),
    "roll": ("Roll a dice expression", "roll 2d6+3"),
}


OUTCOMES: tuple[tuple[str, str], ...] = (
    ("failure", "Failure"),
    ("success", "Success"),
    ("critical_success", "Critical success"),
    ("first_wins", "First side wins"),
    ("second_wins", "Second side wins"),
    SIDE_WINS,
)

#: An attack names its tiers as a hit or a miss.
VERB_OUTCOMES: dict[str, dict[str, str]] = {
    "attack": {"failure": "Miss", "success": "Hit", "critical_success": "Critical hit"},
}


#: Resolve a request with the Mutants & Masterminds rules.
resolve = resolver(
    ID,
    VERBS,
    (CheckRequest, CHECK_VERBS, _resolve_check),
    (ContestRequest, ("opposed",), _resolve_opposed),
    (CompareRequest, None, _resolve_compare),
    (PercentRequest, None, _resolve_percent),
)


#: How mm writes its words (`word_rows`): the circumstance words in two rows, by size.
FORMS = {"circumstance": ("bonus / penalty", "major-bonus")}
#: What mm's words mean, by kind or by form, for `d20 systems` and help (`word_rows`).
_MEANINGS = {
    "modifier": "the bonus: +8, -1",
    "target": "a DC: vs 15, vs DC 15, or a name: vs tough, vs very easy",
    "vs defense N": "DC 10+N; also parry, dodge, fortitude, toughness, will N",
    "vs rank N": "DC 10+N (resistance); ranks and defenses may be negative",
    "vs routine +N": "routine opposition: DC 10+N",
    "bonus / penalty": "+2 / -2 (also minor-bonus, minor-penalty)",
    "major-bonus": "+5; major-penalty -5 (also with a space: major bonus)",
    "crit": "house: Improved Critical on attacks, N-19 crits if it hits (crit 19)",
    "lucky": "house: a d20 showing 1 is rolled once more (not routine)",
    "min": "house: a d20 face below N counts as N for the total (not routine)",
}

#: The words a request may carry in this system, for `d20 systems` and help.
WORDS: tuple[tuple[str, str], ...] = word_rows(
    frozenset().union(*TAKES.values()), _MEANINGS, FORMS, TARGETS
)


SYSTEM = System(
    ID,
    TITLE,
    VERBS,
    OUTCOMES,
    resolve,
    aliases=("mutants", "m&m", "mnm"),
    words=WORDS,
    house_words=HOUSE_WORDS,
    encounter="d20cli.rules.mm.encounter",
    offers=OFFERS,
    check_plan=check_plan,
    verb_outcomes=VERB_OUTCOMES,
    takes=TAKES,
    instead=INSTEAD,
    lacks=LACKS,
    forms=FORMS,
)

__all__ = [
    "CHECK_VERBS",
    "CIRCUMSTANCES",
    "ID",
    "NAMED_DCS",
    "OUTCOMES",
    "ROUTINE_BASE",
    "SYSTEM",
    "TITLE",
    "VERBS",
    "WORDS",
    "circumstance_note",
    "circumstance_total",
    "degree",
    "degree_label",
    "grade_attack",
    "grade_check",
    "grade_compare",
    "grade_opposed",
    "grade_percent",
    "grade_routine",
    "grade_tiebreak",
    "opposed_leaders",
    "raise_degree",
    "resolve",
    "tiebreak_pair",
    "tiebreak_round",
]
