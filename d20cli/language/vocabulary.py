"""The verbs, with a line of help and examples each: read by the fast dispatcher in
__main__, the typer commands, `d20 systems` and completion. Light: no imports."""

from __future__ import annotations

VERB_HELP: dict[str, tuple[str, tuple[str, ...]]] = {
    "check": (
        "Roll a d20 check against a DC (pendagger: an attempt).",
        ("check +5 vs 15 adv expertise=d6", "check stealth +7 vs 15", "check -1 vs 10"),
    ),
    "save": ("Roll a saving throw.", ("save +3 vs 14", "save -1 vs 12 dis")),
    "attack": (
        "Roll an attack against an AC or defense, with optional damage.",
        ("attack +7 vs 15 dmg 1d8+4", "attack +8 vs defense 6 --system mm"),
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
        ("fortune --system pendagger", "fortune spend --system pendagger"),
    ),
    "roll": (
        "Roll a dice expression.",
        ("roll 4d6kh3", "roll 6x 4d6kh3", "roll 1d20+5 adv", "roll 1d8[slashing] + 2d6[fire] + 3"),
    ),
}

VERBS: tuple[str, ...] = tuple(VERB_HELP)
