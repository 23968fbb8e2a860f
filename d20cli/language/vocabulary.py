"""The one vocabulary of the request language: the verbs (with a line of help and examples
each), the keywords, DC names, circumstance words, named defenses, ranks, fortune words,
and the system ids and their aliases.

The grammar, the fast dispatcher in __main__, the typer commands, `d20 systems`, help,
completion, the shell and characters all read these tables, so a word is added in one
place. What a word means in a game (a named DC's number, a rank's row) is a rule, and lives
in that system's module. Light: it imports only d20cli.records, so the fast start-up path
reads it freely."""

from __future__ import annotations

from d20cli.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

VERB_HELP: dict[str, tuple[str, tuple[str, ...]]] = {
    "check": (
        "Roll a d20 check against a DC (pendagger: an attempt).",
        (
            "check +5 vs 15 adv expertise=d6",
            "check stealth +7 vs 15",
            "check -1 vs 10",
            "check +5 vs 15 lucky min 10",
        ),
    ),
    "save": ("Roll a saving throw.", ("save +3 vs 14", "save -1 vs 12 dis")),
    "attack": (
        "Roll an attack against an AC or defense, with optional damage.",
        (
            "attack +7 vs 15 dmg 1d8+4",
            "attack +7 vs 15 crit 19 dmg 1d8+4 crit-dmg=max",
            "attack +8 vs defense 6 --system mm",
        ),
    ),
    "group": (
        "A group check: every member rolls against the same DC.",
        ("group +3, +5 adv, -1 vs 12",),
    ),
    "contest": (
        "Two or more sides roll; the best roll wins (reglamento).",
        ("contest +3 vs +1 --system reglamento", "contest +1 vs +2 adv vs +3 -s reglamento"),
    ),
    "opposed": (
        "An opposed check of two or more sides: higher total wins (mm).",
        ("opposed +8 vs +6 --system mm", "opposed +8 vs +6 vs +4 bonus -s mm"),
    ),
    "luck": ("A luck roll.", ("luck --system reglamento", "luck --system pendagger")),
    "attempt": (
        "An attempt on the Success Table by rank or ability score (pendagger).",
        (
            "attempt adept --system pendagger",
            "attempt 14 reliable -s pd",
            "attempt trained +1 -s pd",
        ),
    ),
    "defend": ("A defence attempt (pendagger: like attempt).", ("defend trained -s pendagger",)),
    "percent": ("A percentile chance on one d20 (mm).", ("percent 45 --system mm",)),
    "routine": ("A routine check: 10 + modifier, no die (mm).", ("routine +10 vs 20 --system mm",)),
    "compare": ("Compare two ranks; ties broken by a d20 (mm).", ("compare 8 vs 6 --system mm",)),
    "resist": (
        "A resistance check against a rank or DC (mm).",
        ("resist +6 vs rank 8 --system mm",),
    ),
    "scores": (
        "Roll six ability scores with the players (pendagger).",
        ("scores --players 4 --system pendagger",),
    ),
    "fortune": (
        "Show or spend fortune dice (pendagger).",
        ("fortune --system pendagger", "fortune show --system pendagger"),
    ),
    "roll": (
        "Roll a dice expression.",
        ("roll 4d6kh3", "roll 6x 4d6kh3", "roll 1d20+5 adv", "roll 1d8[slashing] + 2d6[fire] + 3"),
    ),
}

VERBS: tuple[str, ...] = tuple(VERB_HELP)

#: What to use in a system that lacks a verb: requests whose verb a system may have,
#: tried in order (the first whose verb the system has is the hint, d20cli.rules.hints).
#: Which systems have a verb is each system's own `verbs`; this table names none.
VERB_INSTEAD: dict[str, tuple[str, ...]] = {
    "save": ("resist", "defend"),
    "group": ("check",),
    "contest": ("opposed",),
    "opposed": ("contest",),
    "luck": ("percent 50",),
    "attempt": ("check",),
    "defend": ("save", "resist"),
    "percent": ("roll 1d100",),
    "resist": ("save", "defend"),
}


#: `table NAME` rolls a roll table (d20cli.app.commands.table); not a verb of the grammar, it
#: is read wherever a request is (the command line, standard input, the shell, `odds`).
TABLE = "table"

#: The words that may follow `table` instead of a table's name.
TABLE_ACTIONS: tuple[str, ...] = ("list", "show", "check")


#: Named difficulty classes (Mutants & Masterminds), easiest first.
DC_WORDS: tuple[str, ...] = (
    "very-easy",
    "easy",
    "average",
    "tough",
    "challenging",
    "formidable",
    "heroic",
    "super-heroic",
    "nigh-impossible",
)


#: Circumstance words (Mutants & Masterminds) that add to the modifier.
CIRCUMSTANCE_WORDS: tuple[str, ...] = (
    "bonus",
    "penalty",
    "minor-bonus",
    "minor-penalty",
    "major-bonus",
    "major-penalty",
)


#: Named defenses (Mutants & Masterminds) that stand for `defense`: `vs parry 6`.
DEFENSE_WORDS: tuple[str, ...] = ("parry", "dodge", "fortitude", "toughness", "will")


#: Pen & Dagger ranks, worst to best.
RANK_WORDS: tuple[str, ...] = (
    "doomed",
    "hopeless",
    "inept",
    "untrained",
    "novice",
    "trained",
    "adept",
    "master",
    "epic",
    "legendary",
    "godlike",
)


#: Expertise die sizes that `expertise=dN` accepts; bare `expertise` grants the first.
EXPERTISE_SIZES: tuple[int, ...] = (4, 6, 8)


#: Words that may follow `fortune`.
FORTUNE_ACTIONS: tuple[str, ...] = ("show", "spend", "boon", "no-boon")


#: What a fortune die may be spent on (after `fortune spend`); the first is the default.
FORTUNE_USES: tuple[str, ...] = ("reroll", "hint", "escape", "value")


CHECK_VERBS: tuple[str, ...] = (
    "check",
    "save",
    "attack",
    "attempt",
    "defend",
    "resist",
    "routine",
)


CONTEST_VERBS: tuple[str, ...] = ("contest", "opposed")


OTHER_VERBS: tuple[str, ...] = ("group", "compare", "percent", "luck", "scores", "fortune", "roll")


ADV_WORDS: tuple[str, ...] = ("adv", "advantage")


DIS_WORDS: tuple[str, ...] = ("dis", "disadv", "disadvantage")


#: Words that may stand between `vs` and a number: `vs DC 15`, `vs AC 15` (attacks).
TARGET_NAMES: tuple[str, ...] = ("dc", "ac")


TARGET_PREFIXES: tuple[str, ...] = ("defense", "rank", "routine")

#: What the grammar says a target (after `vs`) may be, in every system; an error in a
#: system names only that system's targets (d20cli.rules.offers.in_system_terms).
TARGET_NAME = "a target: a number, a DC name, defense N, rank N or routine +N"


VS = "vs"


DMG = "dmg"


EXPERTISE = "expertise"


PLAYERS = "players"


#: House-rule words on any d20 verb: `crit N` / `crit=N`, `lucky`, `min N` / `min=N`.
CRIT = "crit"
LUCKY = "lucky"
MIN = "min"
HOUSE_WORDS: tuple[str, ...] = (CRIT, LUCKY, MIN)

#: `crit-dmg=MODE` on an attack: what a critical hit does to the damage; the first is the
#: default (every dice term rolled twice).
CRIT_DMG = "crit-dmg"
CRIT_DMG_MODES: tuple[str, ...] = ("dice", "double", "max")

#: How many members of a group check must succeed (levelup): the first is the default.
GROUP_RULES: tuple[str, ...] = ("more-than-half", "at-least-half")

#: The lowest and highest N of `crit N` and `min N`.
HOUSE_RANGE: tuple[int, int] = (2, 20)


class Word(NamedTuple):
    """One kind of word of a d20 check (check, save, attack, ..., a group member, a contest
    side), declared once: the grammar, the Request's `word_kinds`, a character's entries,
    completion, help and the odds properties read it; a system names the kinds each of its
    verbs takes (`System.takes`), and its rules read the field.

    kind: the kind's name (`CheckRequest.word_kinds`, the request's columns, a system's
    lists); field: the `CheckRequest` field it sets, whose default means "not given"
    (a flag's or counted word's is made from this row unless that class declares it:
    `value_field`);
    spellings: what completion offers, as typed (none: a number or an expression);
    merge: how a character's entry and the request combine it: "count" (they add up),
    "list" (joined, the entry's first) or "one" (the request's value wins);
    flag: a word alone that sets its field (a count by one, else True), read by the
    grammar's flag element; house: a house rule word (`d20cli.rules.house`);
    form, meaning: its row in `d20 systems` and `d20 help VERB` (a system may say the
    meaning its own way); samples: words as typed that the odds properties draw from
    (tests/test_odds_checks.py); named: how an error names it in a system that lacks it
    ("levelup has no ranks"); role: what it does, one of ROLES, which says what that
    system offers instead (`System.instead`; d20cli.rules.hints writes the message);
    values: what a word that takes a value may have after its `=` (`NAME=VALUE`, the name
    alone the first value; merge "one"): dice (`d4`, `d6`: its field holds the sides, an
    int, read by `CheckRequest.die`) or words (its field holds the word, read by
    `CheckRequest.choice`); its grammar element and its field are made from the row."""

    kind: str
    field: str
    spellings: tuple[str, ...] = ()
    merge: str = "one"
    flag: bool = False
    house: bool = False
    form: str = ""
    meaning: str = ""
    samples: tuple[str, ...] = ()
    named: str = ""
    role: str = "roll"
    values: tuple[str, ...] = ()

    def dice(self) -> bool:
        """Whether its values are dice (`d4`, `d6`, ...), read as their sides."""
        return bool(self.values) and all(v[:1] == "d" and v[1:].isdigit() for v in self.values)

    def typed(self) -> tuple[str, ...]:
        """Its spellings as completion offers them: with each value (`NAME=VALUE`)."""
        return (*self.spellings, *(f"{self.spellings[0]}={v}" for v in self.values))

    def value_field(self) -> tuple[str, object]:
        """The annotation and default of its `CheckRequest` field, when that class does
        not declare it: a counted word's is an int (0), a flag's a bool (False), a word
        with `values` its die's sides (int) or one of its words (a Literal), None when not
        given. Any other word declares its field there (and its grammar element)."""
        if self.merge == "count":
            return "int", 0
        if self.flag and self.merge == "one":
            return "bool", False
        if self.values and self.merge == "one":
            words = ", ".join(repr(v) for v in self.values)
            return ("int" if self.dice() else f"Literal[{words}]") + " | None", None
        raise TypeError(f"the check word {self.kind!r} needs its field on CheckRequest")


#: What a check word does, for the error of a system that lacks it (`Word.role`): it makes
#: the roll better or worse, it is what the d20 adds (a modifier, a rank), the target, a
#: damage roll, or a house rule.
ROLES: tuple[str, ...] = ("roll", "base", "target", "damage", "house")


#: Every kind of word a d20 check may carry besides its verb and label, in the order a
#: system reports the first one it does not take (`rules.common.reject_words`).
CHECK_WORDS: tuple[Word, ...] = (
    Word(
        "adv",
        "adv",
        ADV_WORDS,
        "count",
        form="adv / dis",
        meaning="advantage, disadvantage (also advantage, disadv, ADV, DISADV)",
        samples=("adv",),
        named="advantage",
    ),
    Word(
        "dis", "dis", DIS_WORDS, "count", form="adv / dis", samples=("dis",), named="disadvantage"
    ),
    Word(
        "expertise",
        "expertise",
        (EXPERTISE, *(f"{EXPERTISE}=d{n}" for n in EXPERTISE_SIZES)),
        "list",
        form="expertise[=dN]",
        meaning="an expertise die: d4, d6 or d8; more grants step it up",
        samples=("expertise=d4", "expertise=d6", "expertise=d8", "expertise expertise"),
        named="expertise die",
    ),
    Word(
        "circumstance",
        "circumstances",
        CIRCUMSTANCE_WORDS,
        "list",
        form="bonus / penalty",
        meaning="words that add to the modifier: bonus, penalty, minor-bonus, minor-penalty,"
        " major-bonus, major-penalty",
        named="circumstance words",
    ),
    Word(
        "reliable",
        "reliable",
        ("reliable",),
        "count",
        flag=True,
        form="reliable",
        meaning="one level up unless the face is 1; unreliable: down unless 20",
        named="'reliable'",
    ),
    Word(
        "unreliable",
        "unreliable",
        ("unreliable",),
        "count",
        flag=True,
        form="reliable",
        named="'unreliable'",
    ),
    Word(
        "fortune",
        "fortune",
        ("fortune",),
        flag=True,
        form="fortune",
        meaning="take a natural 20 as a normal success to gain a fortune die",
        named="fortune dice",
    ),
    Word(
        "rank",
        "rank",
        RANK_WORDS,
        form="RANK / SCORE",
        meaning="a rank (adept) or an ability score (14)",
        named="ranks",
        role="base",
    ),
    Word("score", "score", form="RANK / SCORE", named="ability scores", role="base"),
    Word(
        "adjust",
        "adjust",
        form="+N / -N",
        meaning="rank adjustments after it; several add up: trained +1 -1",
        named="rank adjustments",
        role="base",
    ),
    Word(
        "dmg",
        "damage",
        (DMG,),
        form="dmg EXPR",
        meaning="attack damage: dmg 1d8+4; a critical rolls every dice term twice",
        named="damage roll",
        role="damage",
    ),
    Word(
        "modifier",
        "modifier",
        form="+N / -N",
        meaning="the modifier, dice allowed: +5, -1, +3+1d4",
        named="modifier",
        role="base",
    ),
    Word(
        "target",
        "target",
        (VS,),
        form="vs N",
        meaning="the DC or AC: vs 15, vs DC 15, vs AC 15 (attacks)",
        named="DC (vs N)",
        role="target",
    ),
    Word(
        "crit",
        "crit",
        (CRIT,),
        house=True,
        form="crit N",
        meaning="house: a face of N or more reads as a natural 20 (crit 19, crit=19)",
        samples=("crit 19", "crit 18"),
        named="crit N",
        role="house",
    ),
    Word(
        "lucky",
        "lucky",
        (LUCKY,),
        house=True,
        form="lucky",
        meaning="house: a d20 showing 1 is rolled once more, the new face used",
        samples=("lucky",),
        named="lucky",
        role="house",
    ),
    Word(
        "min",
        "floor",
        (MIN,),
        house=True,
        form="min N",
        meaning="house: a d20 face below N counts as N for the total (min 10)",
        samples=("min 10", "min 6"),
        named="min N",
        role="house",
    ),
    Word(
        "crit-dmg",
        "crit_dmg",
        tuple(f"{CRIT_DMG}={mode}" for mode in CRIT_DMG_MODES),
        house=True,
        form="crit-dmg=MODE",
        meaning="house: a critical's damage: dice (twice, the default), double, max",
        named="crit-dmg",
        role="damage",
    ),
)

#: Each check word by its kind.
CHECK_WORD: dict[str, Word] = {word.kind: word for word in CHECK_WORDS}

#: The words that stand alone and set their field (the grammar's flag element).
FLAG_WORDS: tuple[str, ...] = tuple(s for w in CHECK_WORDS if w.flag for s in w.spellings)

#: The words that take a value declared by their row (`Word.values`; the grammar's valued
#: elements), each as typed (`NAME`, `NAME=VALUE`).
VALUED_WORDS: tuple[str, ...] = tuple(s for w in CHECK_WORDS if w.values for s in w.typed())


class TargetForm(NamedTuple):
    """One kind of target, what may follow `vs`, declared once: a system's verbs name the
    kinds they take after `vs` (`rules.offers.offer(..., vs=KINDS)`), and completion
    (`KIND_WORDS`), help and `d20 systems` (`word_rows`) and the grammar's error in a
    system's terms (`rules.offers.in_system_terms`) read the row.

    kind: its name in a system's offers; words: what completion offers after `vs`; form,
    meaning: its row in help (none: the target word's own row, `vs N`; a system may say
    the meaning its own way, keyed by the form); named: how an error lists it."""

    kind: str
    words: tuple[str, ...]
    named: str
    form: str = ""
    meaning: str = ""


#: Every kind of target, in the order completion offers them and help lists them.
TARGET_FORMS: tuple[TargetForm, ...] = (
    TargetForm("dc", ("DC", "dc"), "a number or DC N"),
    TargetForm("ac", ("AC", "ac"), "AC N"),
    TargetForm("named-dc", DC_WORDS, "a DC name (" + ", ".join(DC_WORDS) + ")"),
    TargetForm(
        "defense",
        ("defense", *DEFENSE_WORDS),
        "defense N (or " + ", ".join(DEFENSE_WORDS) + " N)",
        "vs defense N",
        "a defense: vs defense 6, or by its name: vs parry 6",
    ),
    TargetForm("rank-target", ("rank",), "rank N", "vs rank N", "a rank: vs rank 8"),
    TargetForm(
        "routine-target",
        ("routine",),
        "routine +N",
        "vs routine +N",
        "routine opposition: vs routine +3",
    ),
)


_ROW_ORDER = {"base": 0, "target": 1}  # the roles listed first, in this order


def word_rows(
    kinds: Collection[str],
    meanings: Mapping[str, str] | None = None,
    forms: Mapping[str, tuple[str, ...]] | None = None,
    targets: Collection[str] = (),
) -> tuple[tuple[str, str], ...]:
    """The (form, meaning) rows of help and `d20 systems` for these kinds of check word
    (a collection of kinds): what the d20 adds first (a modifier, a rank), then the
    target and the forms of the `targets` (kinds of TARGET_FORMS: what may follow `vs`)
    that have their own, then in the order of CHECK_WORDS, one row a form (`adv / dis`).
    `forms`: a system's own forms of a kind (`System.forms`: `ADV / DISADV`; several, one
    row each), else the word's; `meanings`: a system's own meaning of a form, or of a
    kind, else the word's. A system's verbs list the rows of the kinds each takes."""
    own = meanings or {}
    spelt = forms or {}
    rows: dict[str, str] = {}
    for word in sorted(CHECK_WORDS, key=lambda w: _ROW_ORDER.get(w.role, 2)):
        if word.kind not in kinds:
            continue
        for form in spelt.get(word.kind, (word.form,) if word.form else ()):
            rows.setdefault(form, own.get(form, own.get(word.kind, word.meaning)))
        if word.kind == "target":
            for target in TARGET_FORMS:
                if target.kind in targets and target.form:
                    rows.setdefault(target.form, own.get(target.form, target.meaning))
    return tuple(rows.items())


# The grammar's number limits, stated once: the grammar (grammar_checks, dice_grammar,
# dice_modifiers) refuses past them, and what reads a request without the grammar (the
# disk caches' codec, d20cli.language.parse_cache; the shapes, d20cli.language.shapes)
# checks them from here. A die's sides are the dice engine's (d20cli.dice.tree.MAX_SIDES).
MAX_REQUEST = 10_000  # characters of a request
DICE_DIGITS = 12  # digits of a number in a dice expression
WORD_DIGITS = 9  # digits of a number in a request's own words (DCs, scores, modifiers)
MAX_NUMBER = 10**DICE_DIGITS - 1
MAX_SIGNED = 10 ** (DICE_DIGITS - 1) - 1  # a signed number: 12 characters with the sign
MAX_WORD_NUMBER = 10**WORD_DIGITS - 1
MAX_NX = 1000  # `Nx` repeats inside one roll expression (`6x 4d6kh3`)
MAX_PARTS = 1000  # members of a group check, sides of a contest or opposed check
MAX_TREE_DEPTH = 200  # levels of an expression
#: nodes of an expression whose names a character's entries filled in: as many as the
#: longest request can type (`1+1+1...`: a number and a sign each)
MAX_TREE_NODES = MAX_REQUEST // 2


KEYWORDS: tuple[str, ...] = (
    VS,
    *ADV_WORDS,
    *DIS_WORDS,
    EXPERTISE,
    *(f"{EXPERTISE}=d{n}" for n in EXPERTISE_SIZES),
    DMG,
    *HOUSE_WORDS,
    *(f"{CRIT_DMG}={mode}" for mode in CRIT_DMG_MODES),
    *GROUP_RULES,
    *FLAG_WORDS,
    *VALUED_WORDS,
    *TARGET_PREFIXES,
    *FORTUNE_ACTIONS,
    f"{PLAYERS}=",
    *RANK_WORDS,
    *DC_WORDS,
    *CIRCUMSTANCE_WORDS,
)


#: What completion offers after a verb: the keywords, and the words that are keywords only
#: in their place (after `vs`, after `fortune spend`), so they stay usable as labels.
COMPLETION_WORDS: tuple[str, ...] = (*KEYWORDS, *DEFENSE_WORDS, *FORTUNE_USES, "DC", "AC")
#: The same in lower case: a word after `vs` that is none of them names a combatant.
COMPLETION_LOWER: frozenset[str] = frozenset(w.lower() for w in COMPLETION_WORDS)


#: The words of each kind of request word, as completion offers them: a kind of
#: `requests.CHECK_WORD_KINDS` (a kind without words, such as a modifier, is absent), or a
#: word that is a keyword only in its place: the sides of a contest (`side`), the group rule,
#: `players=`, the fortune actions and uses, and what may follow `vs` (the kinds of
#: `TARGET_FORMS`). A system names the kinds each of its verbs takes (`rules.offers`); this
#: table holds the words, in the order offered.
_PLACED = ("target", "rank")  # offered first, in this order
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "target": (VS,),
    "side": (VS,),
    "rank": RANK_WORDS,
    **{w.kind: w.typed() for w in CHECK_WORDS if w.spellings and w.kind not in _PLACED},
    "group-rule": GROUP_RULES,
    "players": (f"{PLAYERS}=",),
    "fortune-action": FORTUNE_ACTIONS,
    "fortune-use": FORTUNE_USES,
    **{target.kind: target.words for target in TARGET_FORMS},
}


#: The system ids, in the order they are listed.
SYSTEM_IDS: tuple[str, ...] = ("levelup", "reglamento", "mm", "pendagger")

#: The system a request is rolled in when none is named (--system, D20_SYSTEM, the config
#: file, a character's own): stated here once, read wherever a default is needed.
DEFAULT_SYSTEM: str = "levelup"


#: Other names for the systems (lower case; spaces, underscores and dots read as "-").
ALIASES: dict[str, str] = {
    "a5e": "levelup",
    "level-up": "levelup",
    "levelup-a5e": "levelup",
    "level-up-a5e": "levelup",
    "lu": "levelup",
    "reg": "reglamento",
    "mutants": "mm",
    "m&m": "mm",
    "mnm": "mm",
    "m-m": "mm",
    "mandm": "mm",
    "mutants-masterminds": "mm",
    "mutants-and-masterminds": "mm",
    "pd": "pendagger",
    "p&d": "pendagger",
    "pnd": "pendagger",
    "pen-and-dagger": "pendagger",
    "pen-dagger": "pendagger",
    "pen&dagger": "pendagger",
}


#: Every form of the dice notation: (form, meaning, examples). `d20 help roll`, the notation
#: table of docs/notation.md and the manual page are made from it; tests roll every example.
DICE_NOTATION: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "NdS",
        "N dice of S sides (dF a Fudge die: -1, 0, +1; dF.1: -1, four blanks, +1)",
        ("2d6", "d20", "d100", "dF"),
    ),
    ("(EXPR)dS", "a computed number of dice", ("(1+1)d6",)),
    (
        "kh / kl / dh / dl",
        "keep highest / lowest, drop highest / lowest",
        ("4d6kh3", "2d20kl1", "4d6dl1"),
    ),
    ("d / kh", "d drops the lowest; a keep or drop without a count means 1", ("4d6d1", "2d20kh")),
    ("!", "explode on the highest face, or on a compare point", ("1d6!", "1d10!>=9")),
    ("!!", "compound: the extra dice add into one die", ("1d6!!",)),
    ("!p / !!p", "penetrate: every extra die counts one less", ("1d6!p", "1d10!p>=9")),
    (
        "r / ro",
        "reroll while the face matches / reroll once (<> or != : every face but one)",
        ("2d6r1", "2d6r<=2", "2d6ro<3", "1d6r<>6"),
    ),
    ("r1r2", "chained rerolls: reroll on any of the points", ("2d6r1r2", "2d6ro1ro2")),
    ("u", "unique: a face another die shows is rolled again", ("6d6u", "4d6kh3u")),
    ("s / sa / sd", "sort the dice shown (the total is unchanged)", ("4d6s", "4d6sd")),
    (
        "cs / cf",
        "mark critical successes / failures (no effect on the total)",
        ("1d20cs>19", "1d20cs20cf1"),
    ),
    ("mi / ma", "each die at least / at most a value", ("4d6mi2", "4d6ma5")),
    (
        "NdS>=T fF",
        "a dice pool: count the dice that meet T, minus failures",
        ("6d10>=7", "6d10>=7f1"),
    ),
    (
        "+ - * / % ( )",
        "arithmetic on whole numbers; / rounds down; % is the remainder",
        ("2d6+3", "(1d6+2)*2", "1d20%3"),
    ),
    ("max min abs", "functions over expressions", ("max(1d6,1d8)", "min(2d6,8)", "abs(1d6-4)")),
    (
        "floor ceil round",
        "rounding: inside them / divides exactly",
        ("floor(1d6/2)", "round(1d6/4)"),
    ),
    (
        "{A,B} (A,B)",
        "groups: keep/drop whole expressions, or count those that meet a target",
        ("{4d6,3d8}kh1", "(1d4, 2+2, 3d6kl1)kh1", "{1d20+5,1d20+2}>=15"),
    ),
    ("d{F,F,...}", "custom faces, each equally likely", ("d{0,0,1,2}", "3d{1,3,5}kh2")),
    ("Nd(EXPR)", "computed sides: the sides are rolled first", ("1d(1d4+2)",)),
    ("Nx EXPR", "N separate results", ("6x 4d6kh3",)),
    (
        "[label]",
        "name a part: its subtotal is shown, and the rest of the total as `untyped`",
        ("1d8[slashing] + 2d6[fire] + 3",),
    ),
    ("adv / dis", "on a lone 1d20: two d20s, keep the higher / lower", ("1d20+5 adv",)),
    ("# comment", "a comment, kept with the result", ("1d20 # initiative",)),
    (
        "vs T, <= T, > T",
        "a target for the total (vs means >=)",
        ("3d6 vs 12", "1d100 <= 45", "2d6 > 7"),
    ),
    ("A; B", "several rolls on one line", ("1d20+5 adv vs 15; 2d6+3",)),
    (
        "[[EXPR]]",
        "inline rolls in text, each total filled in",
        ("I hit for [[1d8+3]] and [[1d6]] fire",),
    ),
)
