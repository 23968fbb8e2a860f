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
- luck takes adv/dis like any d20 roll, and the house word `lucky` (a 1 rolled again).
"""

from __future__ import annotations

from d20cli.errors import RulesError
from d20cli.language.requests import (
    CheckRequest,
    FortuneRequest,
    LuckRequest,
    ScoresRequest,
)
from d20cli.language.vocabulary import word_rows
from d20cli.results import Result
from d20cli.rules import roll
from d20cli.rules.common import (
    Fortune,
    System,
    VerbOdds,
    house_words_of,
    resolver,
)
from d20cli.rules.offers import offer
from d20cli.rules.pendagger.attempts import (
    ATTEMPT_VERBS,
    FORTUNE_GAINED,
    INSTEAD,
    LACKS,
    TAKES,
    attempt_level,
    check_plan,
    grade_attempt,
    grade_luck,
    resolve_attempt,
    resolve_luck,
)
from d20cli.rules.pendagger.fortune import (
    FORTUNE_MAX,
    FORTUNE_MAX_BOON,
    fortune_result,
    spend_fortune,
)
from d20cli.rules.pendagger.ladder import (
    ID,
    LEVEL_LABELS,
    LEVELS,
    RANKS,
    SUCCESS_TABLE,
    adjust_rank,
    row_text,
    table_level,
)
from d20cli.rules.pendagger.scores import (
    keep_best_three,
    rank_for_score,
    resolve_scores,
    score_modifier,
    score_plan,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from d20cli.dice.roller import Roller


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
    "fortune": ("Show or spend fortune dice (held by the session)", "fortune show"),
    "roll": ("Roll a dice expression", "roll 2d6+3"),
}


OUTCOMES: tuple[tuple[str, str], ...] = (
    *((level, LEVEL_LABELS[level]) for level in LEVELS),
    ("unlucky", "Unlucky"),
    ("lucky", "Lucky"),
)


def _fortune_held(request: FortuneRequest, roller: Roller) -> Result:
    """The `fortune` verb without the state that holds the dice (the Python API)."""
    raise RulesError(
        "fortune dice are held by the session: use `fortune` in `d20 shell` "
        "(or with the saved state)",
        request.text,
        1,
    )


#: Resolve a request with the Pen & Dagger rules.
resolve = resolver(
    ID,
    VERBS,
    (CheckRequest, ATTEMPT_VERBS, resolve_attempt),
    (LuckRequest, None, resolve_luck),
    (ScoresRequest, None, resolve_scores),
    (FortuneRequest, None, _fortune_held),
)


#: What pendagger's words mean its own way, for `d20 systems` and help (`word_rows`).
_MEANINGS = {
    "adv": "advantage, disadvantage (also ADV, DISADV, disadv)",
    "lucky": "house: a d20 showing 1 is rolled once more (attempt, luck; no crit N, min N)",
}
#: `fortune spend USE`: (form, meaning), as `word_rows` gives a word's.
SPEND = ("spend [USE]", "fortune spend: reroll (the default), hint, escape or value")

#: The words a request may carry in this system, for `d20 systems` and help.
WORDS: tuple[tuple[str, str], ...] = (
    *word_rows(frozenset().union(*TAKES.values()), _MEANINGS),
    SPEND,
)


FORTUNE = Fortune(
    verb="fortune",
    verbs=(*ATTEMPT_VERBS, "luck"),
    most=FORTUNE_MAX,
    most_boon=FORTUNE_MAX_BOON,
    show=fortune_result,
    reroll=spend_fortune,
    gained=FORTUNE_GAINED,
)


SYSTEM = System(
    ID,
    TITLE,
    VERBS,
    OUTCOMES,
    resolve,
    aliases=("pd", "pen-and-dagger"),
    words=WORDS,
    verb_odds={
        "scores": VerbOdds(
            "4d6dl1", "one ability score: 4d6 with the lowest die dropped", rank_for_score
        ),
        "fortune": VerbOdds(
            refused="fortune has no odds: it shows or spends the fortune dice you hold"
        ),
    },
    check_plan=check_plan,
    fortune=FORTUNE,
    house_words=house_words_of(TAKES),
    takes=TAKES,
    instead=INSTEAD,
    lacks=LACKS,
    encounter="d20cli.rules.pendagger.encounter",
    offers={
        **{verb: offer(kinds) for verb, kinds in TAKES.items()},
        "scores": offer(("players",)),
        "fortune": offer(("fortune-action",), spend=("fortune-use",)),
        "roll": roll.OFFER,
    },
)

__all__ = [
    "FORTUNE",
    "FORTUNE_MAX",
    "FORTUNE_MAX_BOON",
    "ID",
    "LEVELS",
    "LEVEL_LABELS",
    "OUTCOMES",
    "RANKS",
    "SUCCESS_TABLE",
    "SYSTEM",
    "TITLE",
    "VERBS",
    "WORDS",
    "adjust_rank",
    "attempt_level",
    "fortune_result",
    "grade_attempt",
    "grade_luck",
    "keep_best_three",
    "rank_for_score",
    "resolve",
    "row_text",
    "score_modifier",
    "score_plan",
    "spend_fortune",
    "table_level",
]
