"""What the user asked for: frozen dataclasses built by the grammar.

A request knows words, not rules: `check +5 vs 15 adv` becomes a `CheckRequest` with a
modifier, a target and one advantage; whether the chosen system has advantage at all, and
what it does with it, is decided by `d20cli.rules`. Every request carries `verb`, `text`
(the line as typed) and `repeat` (how many times the caller rolls it; default 1).

The word tables here (`TARGET_WORDS`, `CIRCUMSTANCE_WORDS`, `RANK_WORDS`, ...) are the
vocabulary the grammar accepts and completion offers; the numbers behind the words (a named
DC's value, a rank's row) are rules and live in the system modules, which check that they
cover exactly these words.

`columns` maps a word kind ("verb", "adv", "dis", "expertise", "dmg", "target",
"reliable", "unreliable", "fortune", "circumstance", "rank", "score", "adjust",
"modifier", "label") to the 1-based column where it first appears in `text`, so a system
can point its error at the word it does not offer.
"""

from __future__ import annotations

from operator import attrgetter

from d20cli.frozen import field, fields, frozen
from d20cli.language.vocabulary import CHECK_WORD, CHECK_WORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar, TypeAlias, TypeVar

    T = TypeVar("T")

    from d20cli.dice.tree import Compare, Expr


#: The kinds of word a check request may carry besides its verb, in the order a system
#: reports the first one it does not offer (see `CheckRequest.word_kinds`): the kinds of
#: `vocabulary.CHECK_WORDS`, where each is declared.
CHECK_WORD_KINDS: tuple[str, ...] = tuple(word.kind for word in CHECK_WORDS)

Columns: TypeAlias = tuple[tuple[str, int], ...]


class _Located:
    """What every request has: `columns`, where each kind of word was typed."""

    columns: Columns

    def column(self, key: str) -> int | None:
        """The 1-based column of the first word of this kind, if it was typed."""
        for name, col in self.columns:
            if name == key:
                return col
        return None


@frozen(slots=True)
class Target:
    """What a check is made against.

    kind "number": `vs 15` (also `vs DC 15`, `vs AC 15`); "named": `vs tough` (name holds
    the word); "defense": `vs defense 6`, or a named defense `vs parry 6` (name holds it);
    "rank": `vs rank 8`; "routine": `vs routine +3` (value is the opposing modifier).
    Ranks and defenses may be negative. What the value means is up to the system.
    """

    kind: str
    value: int
    name: str | None = None

    def __str__(self) -> str:
        if self.kind == "number":
            return str(self.value)
        if self.kind == "named":
            return str(self.name)
        if self.kind == "routine":
            return f"routine {self.value:+d}"
        return f"{self.name or self.kind} {self.value}"


def _word_fields(cls: type[T]) -> type[T]:
    """`cls` with a field for each check word whose field it does not declare (a flag or a
    counted word: `vocabulary.Word.value_field`), after its own: a new word is its row of
    `vocabulary.CHECK_WORDS` alone, and its rule reads it by its kind (`word_kinds`, or
    `count`)."""
    annotations = cls.__dict__["__annotations__"]  # noqa: RUF063 (as frozen.py: inspect is heavy)
    for word in CHECK_WORDS:
        if word.field not in annotations:
            annotations[word.field], default = word.value_field()
            setattr(cls, word.field, default)
    return cls


@frozen
@_word_fields
class CheckRequest(_Located):
    """One d20 roll against a target: check, save, attack, attempt, defend, resist, routine.

    modifier: the signed modifier expression (`+5`, `-1`, `+5+1d4`), None when not given.
    name: the optional label word (`check stealth +7`).
    adv / dis: how many times advantage / disadvantage was asked for.
    expertise: the expertise grants in order (`expertise` = 4, `expertise=d6` = 6).
    circumstances: circumstance words in order (`bonus`, `major-penalty`).
    reliable / unreliable: how many times each was asked for.
    rank: a rank word (`attempt adept`); score: an unsigned number in the modifier's place
    (`attempt 14`: an ability score); adjust: the signed numbers after a rank or score,
    added up (`attempt trained +1 -2` is -1), the rank adjustment.
    damage: the expression after `dmg`. fortune: the word `fortune` was given.
    House words (docs/rules-decisions.md, "House rules"): crit: `crit N`, the lowest kept
    face that counts as a natural 20 for critical rules; lucky: `lucky`, each d20 showing
    a 1 is rolled once more; floor: `min N`, a d20 face below N counts as N for the total;
    crit_dmg: `crit-dmg=dice|double|max`, what a critical hit does to the damage.
    A check word declared after these (its row of `vocabulary.CHECK_WORDS`) has its field
    made from its row, after `house_from`: a flag is a bool, a counted word an int.
    word_kinds: the kinds of word given (of CHECK_WORD_KINDS), computed once when the
    request is built, so a system compares them with what it offers in one set operation
    (`"lucky" in request.word_kinds`).
    Not an argument (the parse cache stores the fields above and rebuilds this one).
    Where the words came from, for the output (neither changes what the request means, so
    requests compare without them): entry: the words of the character's entry its label
    named, as shown after the label (d20cli.language.character_entries); situational: the
    modifier typed after such a label (`+2`), added to the entry's; house_from: (house key,
    where it came from: a character's name or "config") for each house word put in by
    default (d20cli.rules.house).
    """

    verb: str
    text: str
    modifier: Expr | None = None
    target: Target | None = None
    name: str | None = None
    adv: int = 0
    dis: int = 0
    expertise: tuple[int, ...] = ()
    circumstances: tuple[str, ...] = ()
    reliable: int = 0
    unreliable: int = 0
    rank: str | None = None
    score: int | None = None
    adjust: int | None = None
    damage: Expr | None = None
    fortune: bool = False
    crit: int | None = None
    lucky: bool = False
    floor: int | None = None
    crit_dmg: str | None = None
    repeat: int = 1
    columns: Columns = ()
    entry: str | None = field(default=None, compare=False)
    situational: str | None = field(default=None, compare=False)
    house_from: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    word_kinds: frozenset[str] = field(init=False, repr=False, compare=False, default=frozenset())

    def __post_init__(self) -> None:
        # a kind is given when its field differs from the field's default
        values = _GIVEN_VALUES(self)
        if values == _GIVEN_DEFAULTS:  # (each is its default, or equal to it)
            return  # no word given: the field's default, the empty set, is right
        kinds = frozenset(
            kind
            for (kind, _, default), value in zip(_GIVEN, values, strict=True)
            if value is not default and value != default
        )
        object.__setattr__(self, "word_kinds", kinds)

    def count(self, kind: str) -> int:
        """How many times a counted word of this kind was given (`Word.merge` "count"),
        or whether a flag was (1 or 0): for a rule that reads a word by its kind."""
        return int(getattr(self, CHECK_WORD[kind].field))

    def die(self, kind: str) -> int | None:
        """The sides of the die a word of this kind took (`Word.values` of dice:
        `inspiration=d8` is 8), None when it was not given."""
        value: int | None = getattr(self, CHECK_WORD[kind].field)
        return value

    def choice(self, kind: str) -> str | None:
        """The word a word of this kind took (`Word.values` of words: `NAME=max` is
        "max"), None when it was not given."""
        value: str | None = getattr(self, CHECK_WORD[kind].field)
        return value


#: (kind, CheckRequest field, the field's default) of each check word.
_DEFAULTS = {f.name: f.default for f in fields(CheckRequest)}
_GIVEN: tuple[tuple[str, str, object], ...] = tuple(
    (word.kind, word.field, _DEFAULTS[word.field]) for word in CHECK_WORDS
)
#: The check words' fields of a request, read at once, and their defaults.
_GIVEN_VALUES = attrgetter(*(name for _, name, _ in _GIVEN))
_GIVEN_DEFAULTS = tuple(default for _, _, default in _GIVEN)


@frozen
class GroupRequest(_Located):
    """`group +3, +5 adv, -1 vs 12`: members (each a `CheckRequest` with verb "check" and
    no target of its own) against one shared target. rule: a house group rule word
    (`more-than-half`, `at-least-half`), None when not given (the system's default)."""

    verb: str
    text: str
    members: tuple[CheckRequest, ...]
    target: Target | None = None
    rule: str | None = None
    repeat: int = 1
    columns: Columns = ()


@frozen
class ContestRequest(_Located):
    """`contest +3 vs +1 adv`, `opposed +8 vs +6 vs +4`: two or more sides (each a
    `CheckRequest` with verb "check" and no target, in the order typed) that all roll.

    sides: at least two (the grammar reads at most `grammar.MAX_CONTEST_SIDES`)."""

    verb: str
    text: str
    sides: tuple[CheckRequest, ...]
    repeat: int = 1
    columns: Columns = ()


@frozen
class CompareRequest(_Located):
    """`compare 8 vs 6`: two ranks compared without a roll."""

    verb: str
    text: str
    first: int
    second: int
    repeat: int = 1
    columns: Columns = ()


@frozen
class PercentRequest(_Located):
    """`percent 45`: a percent chance rolled on a d20. lucky: `lucky` was given (read so
    that mm can say why it does not apply: d20cli.rules.mm.checks)."""

    verb: str
    text: str
    percent: int
    repeat: int = 1
    columns: Columns = ()
    lucky: bool = False


@frozen
class LuckRequest(_Located):
    """`luck` (optionally `adv`, `dis`, `fortune`, and the house word `lucky`: each d20
    showing a 1 is rolled once more, as on a check). house_from: as a CheckRequest's,
    where a `lucky` put in by default came from (d20cli.rules.house)."""

    verb: str
    text: str
    adv: int = 0
    dis: int = 0
    fortune: bool = False
    repeat: int = 1
    columns: Columns = ()
    lucky: bool = False
    house_from: tuple[tuple[str, str], ...] = field(default=(), compare=False)


@frozen
class ScoresRequest(_Located):
    """`scores`, `scores 5`, `scores players=5`: generate six ability scores.

    players is None when not given (the system picks its default)."""

    verb: str
    text: str
    players: int | None = None
    repeat: int = 1
    columns: Columns = ()


@frozen
class FortuneRequest(_Located):
    """`fortune` (action "show") or `fortune spend [USE]` (action "spend"; use one of
    FORTUNE_USES, "reroll" when not given).

    The held count lives in the session state; see `d20cli.rules.pendagger`
    (`fortune_result`, `spend_fortune`) for the pure parts."""

    verb: str
    text: str
    action: str = "show"
    use: str = "reroll"
    repeat: int = 1
    columns: Columns = ()


@frozen(slots=True)
class RollRequest:
    """`roll [Nx] EXPR [adv|dis] [vs N | <= N ...] [# comment]` as parsed by
    `dice_grammar.parse_roll`. `target`: the compare the total must meet to succeed
    (`vs 12` is `>=12`), None for a plain roll."""

    text: str
    expr: Expr
    repeat: int = 1
    adv: int = 0  # +1 advantage, -1 disadvantage, 0 neither (or both, which cancel)
    comment: str | None = None
    target: Compare | None = None
    # `1d20+5; 2d6+3`: the rolls of the line, one result each (expr is the first's);
    # with `template`, inline rolls: the text pieces around them (one more than parts)
    parts: tuple[RollRequest, ...] = ()
    template: tuple[str, ...] | None = None
    verb: ClassVar[str] = "roll"


Request: TypeAlias = (
    "CheckRequest | GroupRequest | ContestRequest | CompareRequest | PercentRequest"
    " | LuckRequest | ScoresRequest | FortuneRequest | RollRequest"
)
