"""The tone of each outcome tier, for presentation: it styles a badge by tone, so nothing
outside the rules names an outcome id. Every system's tiers have one (tests check it)."""

from __future__ import annotations

#: How each outcome tier of any system reads: the best and worst tiers, a plain success
#: ("good") or failure ("bad"), a partial one, and for contests which side won or neither.
#: Presentation styles a badge by tone, so it never names an outcome id.
_TONES = {
    "critical_success": "best",
    "major_success": "good",
    "normal_success": "good",
    "success": "good",
    "limited_success": "partial",
    "failure": "bad",
    "critical_failure": "worst",
    "first_wins": "first",
    "second_wins": "second",
    "side_wins": "first",
    "tie": "even",
    "favorable": "good",
    "lucky": "good",
    "unfavorable": "bad",
    "unlucky": "bad",
}


def tone(outcome: str | None) -> str | None:
    """The tone of an outcome id (None for none or an id no system gives)."""
    return _TONES.get(outcome or "")
