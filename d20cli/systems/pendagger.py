"""Pen & Dagger: every rule of this system (docs/rules.md, "pendagger").

Verbs: attempt (aliases check, attack, defend), luck, scores, fortune, roll. An attempt
names a rank (`attempt adept`) or an ability score (`attempt 14`), optionally a rank
adjustment (`attempt trained +1`), and looks the d20 face up on the Success Table.

Pure functions, for resolution and odds alike: `rank_for_score`, `adjust_rank`,
`table_level`, `attempt_level`, `grade_attempt`, `grade_luck`, `score_modifier`,
`score_plan`, `keep_best_three`.

Fortune dice: the held COUNT and its persistence belong to the session state (not here).
This module offers the pure parts:
- `attempt ... fortune` / `luck fortune`: a natural 20 is taken as a normal success (luck:
  as a 10) and the result's detail has {"fortune_gained": 1}; the caller adds the die, up
  to `FORTUNE_MAX` (`FORTUNE_MAX_BOON` with the boon option).
- `spend_fortune(request, previous, roller)`: rerolls the attempt or luck roll `previous`
  (made from `request`) until the level is better (luck: until lucky); RulesError if the
  face was 1 or there is no better level. The caller takes one die from the count first.
- `fortune_result(request, held, limit)`: the Result that shows the count.

Decisions where the texts are silent:
- Ability scores above 31 read as godlike; a score below 1 is an error.
- The row in detail gives every level as "lo-hi" ("19-20", "20-20"), or "-".
- A fortune reroll keeps the attempt's advantage, rank and reliability, and is not itself
  taken for a fortune die; every reroll's dice are shown, the replaced ones not kept.
- scores: 1 player plus the narrator makes 2; the dice are rolled ability by ability, each
  roller in turn. 7+ players: two halves (first half abilities 1-3, second 4-6); within a
  group the 12 dice go round the members in order (a group of 4 rolls 1d6 each per
  ability, as the 3-4 row says). The lowest die is dropped (the first of equal lowest).
  Without a player count, 1 player. At most 100 players.
- luck takes adv/dis like any d20 roll.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from d20cli.errors import D20Error, RulesError
from d20cli.language.requests import (
    RANK_WORDS,
    CheckRequest,
    FortuneRequest,
    LuckRequest,
    Request,
    ScoresRequest,
)
from d20cli.results import Die, Result, Score
from d20cli.systems.common import (
    Grade,
    System,
    advantage_notes,
    located,
    reject_words,
    resolve_roll,
    roll_d20,
    unknown_verb,
)

if TYPE_CHECKING:
    from d20cli.dice.roller import Roller

ID = "pendagger"
TITLE = "Pen & Dagger"

VERBS: dict[str, tuple[str, str]] = {
    "attempt": (
        "d20 on the Success Table row of a rank or ability score (aliases check, attack, defend)",
        "attempt trained +1 reliable",
    ),
    "check": ("Same as attempt", "check adept"),
    "attack": ("Same as attempt", "attack 14 adv"),
    "defend": ("Same as attempt", "defend master"),
    "luck": ("Luck roll: 1d20, 10 or higher is lucky", "luck"),
    "scores": ("Six ability scores, 4d6 drop lowest, dice shared among the players", "scores 5"),
    "fortune": ("Show or spend fortune dice (held by the session)", "fortune spend"),
    "roll": ("Roll a dice expression", "roll 2d6+3"),
}

ATTEMPT_VERBS = ("attempt", "check", "attack", "defend")

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

OUTCOMES: tuple[tuple[str, str], ...] = (
    *((level, LEVEL_LABELS[level]) for level in LEVELS),
    ("unlucky", "Unlucky"),
    ("lucky", "Lucky"),
)

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

#: The Ability Scores table: (lowest score, rank), lowest first; scores past 31 are godlike.
SCORE_RANKS: tuple[tuple[int, str], ...] = (
    (1, "doomed"),
    (2, "hopeless"),
    (4, "inept"),
    (6, "untrained"),
    (8, "novice"),
    (10, "trained"),
    (14, "adept"),
    (18, "master"),
    (22, "epic"),
    (26, "legendary"),
    (30, "godlike"),
)

LUCKY_FROM = 10  # a luck roll of 10 or higher is lucky
FORTUNE_MAX = 2  # fortune dice held at most
FORTUNE_MAX_BOON = 4  # with the boon option
FORTUNE_LUCK_FACE = 10  # a luck roll's 20 taken for a fortune die counts as this
MAX_PLAYERS = 100
ABILITIES = 6
MAX_REROLLS = 100_000

_HINTS = {
    "modifier": "a pendagger attempt takes a rank or an ability score, not a modifier: "
    "attempt adept, attempt 14, attempt trained +1",
    "target": "pendagger attempts have no DC: the rank's row on the Success Table decides "
    "(attempt adept)",
    "expertise": "pendagger has no expertise die; use adv, reliable or a rank adjustment (+1)",
    "circumstance": "pendagger has no circumstance words; use a rank adjustment (+1, -1) or "
    "reliable / unreliable",
    "dmg": "pendagger attempts have no damage roll; use roll 1d8+2",
}

# The words an attempt may carry.
_OFFERED = frozenset({"adv", "dis", "reliable", "unreliable", "fortune", "rank", "score", "adjust"})

_OTHER_VERBS = {
    "save": "use attempt (or defend) with the rank: attempt adept",
    "group": "group checks are levelup's",
    "contest": "contest is reglamento's",
    "opposed": "opposed is mm's",
    "compare": "compare is mm's",
    "percent": "percent is mm's; use roll 1d100",
    "resist": "resist is mm's; use defend",
    "routine": "routine checks are mm's",
}


# --- pure rules -----------------------------------------------------------------------


def rank_for_score(score: int) -> str:
    """The rank of an ability score (Ability Scores table): 14 -> adept."""
    if score < 1:
        raise RulesError(f"an ability score is at least 1, not {score}")
    rank = SCORE_RANKS[0][1]
    for low, name in SCORE_RANKS:
        if score >= low:
            rank = name
    return rank


def score_modifier(score: int) -> int:
    """An ability score's modifier: floor((score - 10) / 2)."""
    return (score - 10) // 2


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


def attempt_level(face: int, rank: str, reliable: bool = False, unreliable: bool = False) -> str:
    """The level of an attempt with the rank already adjusted: look the face up, apply the
    natural-1 rule (critical failure except at legendary and godlike), then reliability.
    reliable: unless the face is 1, one step up (critical stays); unreliable: unless the
    face is 20, one step down (critical failure stays). Both together: each keeps its own
    exception, so they cancel on 2-19, only reliable applies on a 20, only unreliable on
    a 1."""
    level = table_level(rank, face)
    if face == 1 and rank not in NAT1_EXEMPT:
        level = "critical_failure"
    return step(level, reliability_step(face, reliable, unreliable))


def reliability_step(face: int, reliable: bool, unreliable: bool) -> int:
    """The steps reliable and unreliable move a level on this face: +1, -1 or 0."""
    return int(reliable and face != 1) - int(unreliable and face != 20)


def grade_attempt(
    face: int,
    rank: str,
    reliable: bool = False,
    unreliable: bool = False,
    fortune: bool = False,
) -> Grade:
    """Outcome, label and success of an attempt; with `fortune`, a natural 20 is taken as a
    normal success (the caller gains a fortune die)."""
    level = attempt_level(face, rank, reliable, unreliable)
    if fortune and face == 20:
        level = "normal_success"
    success = LEVELS.index(level) >= LEVELS.index("limited_success")
    return Grade(level, f"{LEVEL_LABELS[level]} — {rank}", success)


def grade_luck(face: int, fortune: bool = False) -> Grade:
    """A luck roll: 10 or higher is lucky. With `fortune`, a 20 counts as a 10 (still
    lucky) and gains a fortune die."""
    value = FORTUNE_LUCK_FACE if (fortune and face == 20) else face
    if value >= LUCKY_FROM:
        return Grade("lucky", "Lucky", True)
    return Grade("unlucky", "Unlucky", False)


def keep_best_three(faces: Sequence[int]) -> tuple[int, int]:
    """(sum of the dice with the lowest dropped, index of the dropped die: the first of
    equal lowest)."""
    dropped = min(range(len(faces)), key=lambda i: (faces[i], i))
    return sum(faces) - faces[dropped], dropped


def rollers(players: int) -> tuple[str, ...]:
    """Who rolls: "player 1".."player N", plus "narrator" when N is odd."""
    names = tuple(f"player {i}" for i in range(1, players + 1))
    return (*names, "narrator") if players % 2 else names


def score_plan(players: int) -> tuple[tuple[int, str], ...]:
    """The 24 score dice in roll order, each as (ability index 0..5, who rolls it), by the
    Ability Score Generation table (an odd count adds the narrator as a player):
    2 rollers: each 2d6 per ability; 4: each 1d6 per ability; 6: each 4d6 for one
    ability; 8+: two groups (first half abilities 1-3, second half 4-6), each group's dice
    going round its members."""
    if not 1 <= players <= MAX_PLAYERS:
        raise RulesError(f"scores needs 1 to {MAX_PLAYERS} players, not {players}")
    who = rollers(players)
    n = len(who)
    plan: list[tuple[int, str]] = []
    if n == 2:
        for a in range(ABILITIES):
            plan += [(a, who[0]), (a, who[0]), (a, who[1]), (a, who[1])]
    elif n == 4:
        for a in range(ABILITIES):
            plan += [(a, name) for name in who]
    elif n == 6:
        for a in range(ABILITIES):
            plan += [(a, who[a])] * 4
    else:
        half = n // 2
        for g, group in enumerate((who[:half], who[half:])):
            for k in range(12):
                plan.append((3 * g + k // 4, group[k % len(group)]))
    return tuple(plan)


# --- resolution -----------------------------------------------------------------------


def attempt_rank(request: CheckRequest) -> tuple[str, dict[str, object]]:
    """The rank an attempt uses (rank word or ability score, adjusted and clamped) and the
    detail entries that explain it: "score", "base_rank" and "rank_adjust" when they
    differ from the rank used."""
    detail: dict[str, object] = {}
    if request.rank is not None:
        base = request.rank
    elif request.score is not None:
        try:
            base = rank_for_score(request.score)
        except RulesError as err:
            raise located(request, err.message, "score") from None
        detail["score"] = request.score
    else:
        raise located(
            request,
            "an attempt names a rank or an ability score: attempt adept, attempt 14",
            "verb",
        )
    rank = base
    if request.adjust is not None:
        rank = adjust_rank(base, request.adjust)
        detail["base_rank"] = base
        detail["rank_adjust"] = request.adjust
    return rank, detail


def rank_path(detail: dict[str, object]) -> str:
    """How the rank was reached, for people: `score 14 -> adept, +1 -> master`, with the
    clamp at the ends of the ladder named; "" when a rank word was used as it is."""
    rank = str(detail.get("rank"))
    base = detail.get("base_rank", rank)
    parts = []
    if "score" in detail:
        parts.append(f"score {detail['score']} -> {base}")
    adjust = detail.get("rank_adjust")
    if isinstance(adjust, int):
        text = f"{adjust:+d} -> {rank}"
        if isinstance(base, str) and RANKS.index(base) + adjust != RANKS.index(rank):
            text += f" ({rank} is the {'top' if adjust > 0 else 'bottom'} of the ladder)"
        parts.append(text if parts else f"{base} {text}")
    return ", ".join(parts)


def _level_name(level: str) -> str:
    return LEVEL_LABELS[level].lower()


def _check_attempt_words(request: CheckRequest) -> None:
    if request.rank is None and request.score is None and request.modifier is not None:
        raise located(request, _HINTS["modifier"], "modifier")
    reject_words(request, _OFFERED, _HINTS, ID)


def _attempt_result(
    request: CheckRequest,
    face: int,
    dice: tuple[Die, ...],
    rank: str,
    detail: dict[str, object],
    fortune: bool,
) -> Result:
    reliable = request.reliable > 0
    unreliable = request.unreliable > 0
    grade = grade_attempt(face, rank, reliable, unreliable, fortune)
    detail = {**detail, "rank": rank, "row": row_text(rank)}
    notes = [*advantage_notes(request.adv, request.dis)]
    path = rank_path(detail)
    if path:
        notes.append(path)
    table = table_level(rank, face)
    if face == 1 and rank in NAT1_EXEMPT:
        notes.append(f"natural 1 at {rank}: the table's level, not a critical failure")
    elif face == 1:
        table = "critical_failure"
        notes.append("natural 1: a critical failure")
    moved = reliability_step(face, reliable, unreliable)
    words = " and ".join(w for w, on in (("reliable", reliable), ("unreliable", unreliable)) if on)
    if moved:
        after = step(table, moved)
        change = f"{_level_name(table)} -> {_level_name(after)}"
        if after == table:
            change = f"{_level_name(table)} stays ({'top' if moved > 0 else 'bottom'} of the scale)"
        if reliable and unreliable:
            why = (
                "on a 20 only reliable applies" if face == 20 else "on a 1 only unreliable applies"
            )
            notes.append(f"{why}: {change}")
        else:
            notes.append(f"{words}: {change}")
    elif reliable and unreliable:
        notes.append("reliable and unreliable cancel")
    elif reliable:
        notes.append("reliable has no effect on a 1")
    elif unreliable:
        notes.append("unreliable has no effect on a 20")
    if fortune and face == 20:
        detail["fortune_gained"] = 1
        notes.append("natural 20 taken as a normal success: +1 fortune die")
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=dice,
        natural=face,
        total=face,
        outcome=grade.outcome,
        label=grade.label,
        success=grade.success,
        name=request.name,
        detail=detail,
        notes=tuple(notes),
    )


def _resolve_attempt(request: CheckRequest, roller: Roller) -> Result:
    _check_attempt_words(request)
    rank, detail = attempt_rank(request)
    d20 = roll_d20(roller, request.adv, request.dis)
    return _attempt_result(request, d20.natural, d20.dice, rank, detail, request.fortune)


def _luck_result(request: LuckRequest, face: int, dice: tuple[Die, ...], fortune: bool) -> Result:
    grade = grade_luck(face, fortune)
    detail: dict[str, object] = {}
    notes = advantage_notes(request.adv, request.dis)
    total = face
    if fortune and face == 20:
        total = FORTUNE_LUCK_FACE
        detail["fortune_gained"] = 1
        notes += ("20 taken as a 10: +1 fortune die",)
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=dice,
        natural=face,
        total=total,
        target=LUCKY_FROM,
        outcome=grade.outcome,
        label=grade.label,
        success=grade.success,
        detail=detail,
        notes=notes,
    )


def _resolve_luck(request: LuckRequest, roller: Roller) -> Result:
    d20 = roll_d20(roller, request.adv, request.dis, role="luck")
    return _luck_result(request, d20.natural, d20.dice, request.fortune)


def _resolve_scores(request: ScoresRequest, roller: Roller) -> Result:
    players = 1 if request.players is None else request.players
    try:
        plan = score_plan(players)
    except RulesError as err:
        raise RulesError(err.message, request.text, request.column("players")) from None
    rolled = [(a, who, roller.roll(1, 6)) for a, who in plan]
    scores: list[Score] = []
    all_dice: list[Die] = []
    for a in range(ABILITIES):
        mine = [(who, face) for ability, who, face in rolled if ability == a]
        total, dropped = keep_best_three([face for _, face in mine])
        dice = tuple(
            Die(6, face, i != dropped, "score", by=who) for i, (who, face) in enumerate(mine)
        )
        all_dice.extend(dice)
        scores.append(Score(str(a + 1), dice, total, score_modifier(total), rank_for_score(total)))
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        dice=tuple(all_dice),
        scores=tuple(scores),
        detail={"players": players, "rollers": list(rollers(players))},
    )


def fortune_result(request: FortuneRequest, held: int, limit: int = FORTUNE_MAX) -> Result:
    """The Result that shows how many fortune dice are held (the count comes from the
    session state). detail: {"fortune": held, "fortune_max": limit}."""
    return Result(
        request=request.text,
        system=ID,
        verb=request.verb,
        label=f"{held} of {limit} fortune dice",
        detail={"fortune": held, "fortune_max": limit},
    )


def spend_fortune(request: CheckRequest | LuckRequest, previous: Result, roller: Roller) -> Result:
    """Spend a fortune die on `previous` (the result of `request`, an attempt or luck roll):
    reroll until the level is better (luck: until lucky).

    RulesError when `previous` is not a pendagger attempt or luck roll, when its face was 1,
    or when no better level can be reached. The caller checks and lowers the held count.
    The new result's detail adds {"fortune_spent": 1, "rerolls": n, "previous": outcome};
    its dice are every reroll's dice, the replaced ones not kept and flagged "rerolled"."""
    if previous.system != ID or previous.natural is None or previous.outcome is None:
        raise RulesError("a fortune die rerolls a pendagger attempt or luck roll")
    if previous.natural == 1:
        raise RulesError("a fortune die cannot reroll a roll of 1")
    before = previous.outcome
    if isinstance(request, LuckRequest):
        if before == "lucky":
            raise RulesError("the luck roll is already lucky: there is nothing better")

        def better_luck(face: int) -> bool:
            return grade_luck(face).outcome == "lucky"

        face, dice, n = _reroll(roller, request.adv, request.dis, "luck", better_luck)
        result = _luck_result(request, face, dice, False)
    else:
        rank, detail = attempt_rank(request)
        reliable, unreliable = request.reliable > 0, request.unreliable > 0
        floor = LEVELS.index(before)

        def better(face: int) -> bool:
            return LEVELS.index(attempt_level(face, rank, reliable, unreliable)) > floor

        if not any(better(f) for f in range(1, 21)):
            raise RulesError(
                f"no better level than {LEVEL_LABELS[before].lower()} at {rank}: "
                "a fortune die cannot help"
            )
        face, dice, n = _reroll(roller, request.adv, request.dis, "d20", better)
        result = _attempt_result(request, face, dice, rank, detail, False)
    from dataclasses import replace

    detail = {**result.detail, "fortune_spent": 1, "rerolls": n, "previous": before}
    return replace(result, detail=detail, notes=(*result.notes, f"fortune die: {n} reroll(s)"))


def _reroll(
    roller: Roller,
    adv: int,
    dis: int,
    role: str,
    good: Callable[[int], bool],
) -> tuple[int, tuple[Die, ...], int]:
    dice: list[Die] = []
    for n in range(1, MAX_REROLLS + 1):
        d20 = roll_d20(roller, adv, dis, role)
        if good(d20.natural):
            return d20.natural, (*dice, *d20.dice), n
        dice.extend(Die(d.sides, d.face, False, role, flags=("rerolled",)) for d in d20.dice)
    raise D20Error("the fortune reroll did not reach a better level")


def resolve(request: Request, roller: Roller) -> Result:
    """Resolve a request with the Pen & Dagger rules."""
    if isinstance(request, CheckRequest) and request.verb in ATTEMPT_VERBS:
        return _resolve_attempt(request, roller)
    if isinstance(request, LuckRequest):
        return _resolve_luck(request, roller)
    if isinstance(request, ScoresRequest):
        return _resolve_scores(request, roller)
    if isinstance(request, FortuneRequest):
        raise RulesError(
            "fortune dice are held by the session: use `fortune` in `d20 shell` "
            "(or with the saved state)",
            request.text,
            1,
        )
    rolled = resolve_roll(request, roller, ID)
    if rolled is not None:
        return rolled
    raise unknown_verb(request, ID, VERBS, _OTHER_VERBS.get(request.verb))


#: The words a request may carry in this system, for `d20 systems` and help.
WORDS: tuple[tuple[str, str], ...] = (
    ("RANK / SCORE", "a rank (adept) or an ability score (14)"),
    ("+N / -N", "rank adjustments after it; several add up: trained +1 -1"),
    ("adv / dis", "advantage, disadvantage (also ADV, DISADV, disadv)"),
    ("reliable", "one level up unless the face is 1; unreliable: down unless 20"),
    ("fortune", "take a natural 20 as a normal success to gain a fortune die"),
    ("spend [USE]", "fortune spend: reroll (the default), hint, escape or value"),
)

SYSTEM = System(ID, TITLE, VERBS, OUTCOMES, resolve, aliases=("pd", "pen-and-dagger"), words=WORDS)
