"""Pen & Dagger ability scores: the Ability Scores table (score -> rank, modifier) and
the generation of six scores, the dice shared among the players."""

from __future__ import annotations

from collections.abc import Sequence

from d20cli.errors import RulesError
from d20cli.language.requests import ScoresRequest
from d20cli.results import Die, Result, Score
from d20cli.rules.pendagger.ladder import ID

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller


MAX_PLAYERS = 100


ABILITIES = 6


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


def resolve_scores(request: ScoresRequest, roller: Roller) -> Result:
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
