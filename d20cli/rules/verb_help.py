"""What `d20 help VERB` says about each verb in each system: which of the system's request
words (`System.words`) the verb takes, words only that verb has, the word lists it reads
(named DCs, circumstance words, ranks), and examples that run (tests/test_help.py runs
every one).

The words themselves come from d20cli.language.vocabulary, their numbers from the system's
own module (mm's named DCs, its circumstance modifiers); this module only says which verb
takes which.
"""

from __future__ import annotations

from collections.abc import Callable

from d20cli.language.vocabulary import (
    CRIT_DMG_MODES,
    DEFENSE_WORDS,
    DICE_NOTATION,
    FORTUNE_USES,
    RANK_WORDS,
    VS,
    word_rows,
)
from d20cli.records import NamedTuple
from d20cli.rules.common import System


class VerbHelp(NamedTuple):
    """One verb in one system: keys of `System.words` it takes, (word, meaning) pairs of its
    own, (title, words) lists, and example requests (no `d20`, no system option)."""

    words: tuple[str, ...]
    own: tuple[tuple[str, str], ...]
    lists: tuple[tuple[str, str], ...]
    examples: tuple[str, ...]


_ROLL = VerbHelp(
    (),
    tuple((form, f"{meaning}: {', '.join(examples)}") for form, meaning, examples in DICE_NOTATION),
    (),
    ("roll 4d6kh3", "roll 6x 4d6kh3", "roll 1d20+5 adv", "roll 1d8[slashing] + 2d6[fire] + 3"),
)
_LABEL = ("LABEL", "a character's entry in place of the modifier, with --as NAME")


def _taking(system: System) -> Callable[[str], tuple[str, ...]]:
    """A verb's words (`System.takes`) and what it takes after `vs` (its offer), as help
    names them (the system's forms)."""

    def takes(verb: str) -> tuple[str, ...]:
        offer = system.offers.get(verb)
        targets = dict(offer.after).get(VS, ()) if offer is not None else ()
        rows = word_rows(system.takes[verb], forms=system.forms, targets=targets)
        return tuple(form for form, _ in rows)

    return takes


def _levelup(system: System) -> dict[str, VerbHelp]:
    from d20cli.rules.levelup import GROUP_RULE

    takes = _taking(system)
    dice = (("expertise dice", ", ".join(("d4", "d6", "d8"))),)
    return {
        "check": VerbHelp(
            takes("check"),
            (_LABEL,),
            dice,
            (
                "check +5 vs 15 adv expertise=d6",
                "check +3+1d4 vs 12 dis",
                "check +5 vs 15 lucky min 10",
            ),
        ),
        "save": VerbHelp(
            takes("save"), (_LABEL,), dice, ("save -1 vs 12 dis", "save +3 vs 14 expertise")
        ),
        "attack": VerbHelp(
            takes("attack"),
            (_LABEL,),
            (("crit-dmg modes", ", ".join(CRIT_DMG_MODES)),),
            (
                "attack +7 vs 15 dmg 1d8+4",
                "attack +7 vs AC 15 adv dmg 2d6+3",
                "attack +7 vs 15 crit 19 dmg 1d8+4 crit-dmg=max",
            ),
        ),
        "group": VerbHelp(
            (*takes("group"), GROUP_RULE[0]),
            (("A, B, C", "the members' modifiers, each with its own adv, dis or expertise"),),
            (),
            ("group +3, +5 adv, -1 vs 12", "group +2, +2, +0, -1 vs 10 at-least-half"),
        ),
        "roll": _ROLL,
    }


def _reglamento(system: System) -> dict[str, VerbHelp]:
    from d20cli.rules.reglamento import SIDES

    takes = _taking(system)
    return {
        "check": VerbHelp(
            takes("check"), (_LABEL,), (), ("check +3 vs 15 adv", "check -1 vs 12 crit 19")
        ),
        "save": VerbHelp(takes("save"), (_LABEL,), (), ("save +1 vs 12", "save +2 vs 14 DISADV")),
        "attack": VerbHelp(
            takes("attack"), (_LABEL,), (), ("attack +4 vs 13", "attack +4 vs 13 dmg 1d6+2")
        ),
        "contest": VerbHelp(
            (SIDES[0], *takes("contest")),
            (),
            (),
            ("contest +3 vs +1 adv", "contest +1 vs +2 adv vs +3"),
        ),
        "luck": VerbHelp(
            takes("luck"),
            (("luck", "1d20: 1-10 unfavorable, 11-20 favorable"),),
            (),
            ("luck", "luck ADV lucky"),
        ),
        "roll": _ROLL,
    }


def _mm(system: System) -> dict[str, VerbHelp]:
    from d20cli.rules.mm.checks import CIRCUMSTANCES, NAMED_DCS

    takes = _taking(system)
    named = (("named DCs", ", ".join(f"{w} {dc}" for w, dc in NAMED_DCS.items())),)
    around = (("circumstances", ", ".join(f"{w} {n:+d}" for w, n in CIRCUMSTANCES.items())),)
    defenses = (("defenses", ", ".join(DEFENSE_WORDS)),)
    return {
        "check": VerbHelp(
            takes("check"),
            (_LABEL,),
            named + around,
            ("check +4 vs tough bonus", "check +6 vs 15", "check +4 vs very easy"),
        ),
        "attack": VerbHelp(
            takes("attack"),
            (_LABEL,),
            defenses,
            ("attack +8 vs defense 6", "attack +8 vs parry 6 crit 19"),
        ),
        "resist": VerbHelp(
            takes("resist"),
            (_LABEL,),
            defenses,
            ("resist +6 vs rank 8", "resist +6 vs toughness 8"),
        ),
        "routine": VerbHelp(takes("routine"), (), named + around, ("routine +10 vs 20",)),
        "opposed": VerbHelp(
            takes("opposed"),
            (("A vs B vs C", "two or more sides, each with its bonus and circumstance words"),),
            (),
            ("opposed +8 vs +6", "opposed +8 vs +6 vs +4 bonus"),
        ),
        "compare": VerbHelp(
            (), (("N vs M", "two ranks; no roll unless they are equal"),), (), ("compare 8 vs 6",)
        ),
        "percent": VerbHelp(
            (),
            (("N", "the percent chance, 0-100: succeeds when face x 5 <= N"),),
            (),
            ("percent 45",),
        ),
        "roll": _ROLL,
    }


def _pendagger(system: System) -> dict[str, VerbHelp]:
    from d20cli.rules.pendagger import SPEND

    takes = _taking(system)
    attempt = VerbHelp(
        takes("attempt"),
        (),
        (("ranks", ", ".join(RANK_WORDS)),),
        (
            "attempt adept",
            "attempt 14 reliable",
            "attempt trained +1 -1 adv",
            "attempt master fortune",
        ),
    )
    return {
        "attempt": attempt,
        "check": attempt._replace(examples=("check adept", "check 12 unreliable")),
        "attack": attempt._replace(examples=("attack 14 adv", "attack trained +1")),
        "defend": attempt._replace(examples=("defend master", "defend novice dis")),
        "luck": VerbHelp(
            tuple(form for form in takes("luck") if form != "fortune"),  # its own below
            (
                ("luck", "1d20: 10 or higher is lucky"),
                ("fortune", "take a natural 20 as a 10 to gain a fortune die"),
            ),
            (),
            ("luck", "luck adv lucky", "luck fortune"),
        ),
        "scores": VerbHelp(
            (),
            (("N / players=N", "how many players share the dice (also --players N)"),),
            (),
            ("scores", "scores 5", "scores players=3"),
        ),
        "fortune": VerbHelp(
            (SPEND[0],),
            (
                ("show", "how many fortune dice are held (the default)"),
                ("boon / no-boon", "hold up to 4 fortune dice, or the usual 2"),
            ),
            (("uses", ", ".join(FORTUNE_USES)),),
            ("fortune", "fortune show"),
        ),
        "roll": _ROLL,
    }


_TABLES = {"levelup": _levelup, "reglamento": _reglamento, "mm": _mm, "pendagger": _pendagger}


def verb_help(system: System, verb: str) -> VerbHelp | None:
    """What help says about `verb` in `system` (None: the system has no such verb)."""
    if verb not in system.verbs:
        return None
    table = _TABLES.get(system.id)
    found = table(system).get(verb) if table is not None else None
    if found is None:
        _, example = system.verbs[verb]
        return VerbHelp(tuple(w for w, _ in system.words), (), (), (example,))
    return found


def word_meanings(system: System, help_: VerbHelp) -> list[tuple[str, str]]:
    """The (word, meaning) rows of one verb in one system: its own words, then the
    system's words it takes, in the system's order."""
    meanings = dict(system.words)
    return [*help_.own, *((w, meanings[w]) for w in help_.words if w in meanings)]


#: What `-q` prints for each result of a verb: one shape a verb, the same fields for
#: every result of it (d20cli.present.render.quiet_text writes it).
_TOTAL = "the total (17)"
_SIDES = "the outcome id and the winning side, `-` on a tie (first_wins 1, side_wins 3, tie -)"
QUIET: dict[str, str] = {
    "check": _TOTAL,
    "save": _TOTAL,
    "attack": "the total and the damage, `-` when none is rolled (17 9, 12 -)",
    "group": "the outcome id, `-` with no DC (success)",
    "contest": _SIDES,
    "opposed": _SIDES,
    "compare": _SIDES,
    "luck": "the total, the d20's face (14)",
    "attempt": _TOTAL,
    "defend": _TOTAL,
    "resist": _TOTAL,
    "routine": _TOTAL,
    "percent": "the total, the face x 5 (45)",
    "scores": "the six scores (12 15 9 14 11 13)",
    "fortune": "the fortune dice held (1)",
    "roll": "the total (17); an inline roll: its text filled in",
}
