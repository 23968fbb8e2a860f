"""What a verb of a system takes, for completion: the kinds of word after the verb, and the
kinds after a word that opens a place of its own (`vs`: what may follow it; `spend`: what
a fortune die buys).

A system module builds its offers from the same sets of word kinds it checks a request
against (`reject_words`), so completion offers what the rules accept. The words of each
kind are in `d20cli.language.vocabulary.KIND_WORDS`; a kind without words (a modifier,
a score) offers nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from d20cli.errors import D20Error
from d20cli.frozen import frozen
from d20cli.language.vocabulary import KIND_WORDS, TARGET_FORMS, TARGET_NAME, VS

__all__ = ["Offer", "in_system_terms", "offer"]


def _ordered(kinds: Collection[str]) -> tuple[str, ...]:
    """The kinds that have words, in the order of KIND_WORDS (a set has no stable order)."""
    return tuple(k for k in KIND_WORDS if k in kinds)


@frozen
class Offer:
    """kinds: the kinds of word offered after the verb; after: (word, kinds) for the words
    that open a place of their own (`vs`)."""

    kinds: tuple[str, ...]
    after: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def words(self, place: str = "") -> tuple[str, ...]:
        """The words offered after `place` (a word of `after`), or after the verb."""
        kinds = dict(self.after).get(place.lower(), self.kinds) if place else self.kinds
        return tuple(w for kind in kinds for w in KIND_WORDS[kind])

    def places(self) -> tuple[str, ...]:
        return tuple(word for word, _ in self.after)


def offer(kinds: Collection[str], **after: Collection[str]) -> Offer:
    """An Offer of these kinds (any order); `after`: word -> the kinds after it
    (`vs=("dc", "ac")`)."""
    return Offer(_ordered(kinds), tuple((word, _ordered(k)) for word, k in after.items()))


#: A kind of target (after `vs`) in words (`TargetForm.named`).
_TARGET_WORDS: dict[str, str] = {target.kind: target.named for target in TARGET_FORMS}


def in_system_terms(err: D20Error, system: str, offers: Mapping[str, Offer]) -> D20Error:
    """A parse error that lists every target of every system (`expected a target: ...`),
    listing only what the verb of `system` takes after `vs` (`offers`: the system's)."""
    if TARGET_NAME not in err.message or err.text is None:
        return err
    verb = err.text.split(None, 1)[0].lower() if err.text.strip() else ""
    found = offers.get(verb)
    if found is None:  # not a verb of the system: that is what to say
        return type(err)(
            f"{system} has no {verb!r}; its verbs are {', '.join(offers)}", err.text, 1
        )
    kinds = dict(found.after).get(VS, ())
    words = [_TARGET_WORDS[k] for k in kinds if k in _TARGET_WORDS]
    if not words:
        message = f"a {system} {verb} takes no target (vs ...)"
    else:
        listed = ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]
        message = err.message.replace(TARGET_NAME, f"a target: {listed}")
    return type(err)(message, err.text, err.column)
