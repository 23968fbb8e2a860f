"""Pen & Dagger's ladder of ranks and its Success Table: the tables every other part reads."""

from __future__ import annotations

from d20cli.language.vocabulary import RANK_WORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass


ID = "pendagger"


#: Success levels, worst to best.
LEVELS: tuple[str, ...] = (
    "critical_failure",
    "failure",
    "limited_success",
    "normal_success",
    "major_success",
    "critical_success",
)


LEVEL_LABELS: dict[str, str] = {
    "critical_failure": "Critical failure",
    "failure": "Failure",
    "limited_success": "Limited success",
    "normal_success": "Normal success",
    "major_success": "Major success",
    "critical_success": "Critical success",
}


#: The Success Table's columns.
TABLE_LEVELS: tuple[str, ...] = LEVELS[1:]


#: Ranks, worst to best: the grammar's rank words are listed in ladder order, so the
#: vocabulary and the ladder are one table (d20cli.language.requests.RANK_WORDS).
RANKS: tuple[str, ...] = RANK_WORDS


Span = tuple[int, int] | None


#: The Success Table: rank -> (failure, limited, normal, major, critical) face ranges.
SUCCESS_TABLE: dict[str, tuple[Span, Span, Span, Span, Span]] = {
    "godlike": (None, (1, 4), (5, 10), (11, 14), (15, 20)),
    "legendary": ((1, 1), (2, 5), (6, 11), (12, 15), (16, 20)),
    "epic": ((1, 2), (3, 6), (7, 12), (13, 16), (17, 20)),
    "master": ((1, 3), (4, 7), (8, 13), (14, 17), (18, 20)),
    "adept": ((1, 4), (5, 8), (9, 14), (15, 18), (19, 20)),
    "trained": ((1, 5), (6, 9), (10, 15), (16, 19), (20, 20)),
    "novice": ((1, 6), (7, 10), (11, 16), (17, 19), (20, 20)),
    "untrained": ((1, 7), (8, 11), (12, 17), (18, 19), (20, 20)),
    "inept": ((1, 8), (9, 12), (13, 18), (19, 19), (20, 20)),
    "hopeless": ((1, 9), (10, 13), (14, 19), (20, 20), None),
    "doomed": ((1, 10), (11, 14), (15, 20), None, None),
}


#: Natural 1 is a critical failure except at these ranks (where the table's level stands).
NAT1_EXEMPT: tuple[str, ...] = ("legendary", "godlike")


def adjust_rank(rank: str, steps: int) -> str:
    """Move a rank along the ladder by `steps`, stopping at doomed and godlike."""
    index = RANKS.index(rank) + steps
    return RANKS[max(0, min(len(RANKS) - 1, index))]


def table_level(rank: str, face: int) -> str:
    """The Success Table's level for a d20 face on a rank's row."""
    for level, span in zip(TABLE_LEVELS, SUCCESS_TABLE[rank], strict=True):
        if span is not None and span[0] <= face <= span[1]:
            return level
    raise AssertionError(f"the Success Table has no level for {face} at {rank}")


def row_text(rank: str) -> dict[str, str]:
    """A rank's Success Table row as {level: "lo-hi" or "-"}."""
    return {
        level: "-" if span is None else f"{span[0]}-{span[1]}"
        for level, span in zip(TABLE_LEVELS, SUCCESS_TABLE[rank], strict=True)
    }


def step(level: str, by: int) -> str:
    """A level moved by `by` steps, staying within critical_failure..critical_success."""
    index = LEVELS.index(level) + by
    return LEVELS[max(0, min(len(LEVELS) - 1, index))]


def level_name(level: str) -> str:
    return LEVEL_LABELS[level].lower()
