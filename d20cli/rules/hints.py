"""What a system says of a word or a verb it lacks: "levelup has no ranks (pendagger's);
a levelup roll takes a signed modifier: check +5 vs 15", "contest is reglamento's; use
opposed". Derived from every system's declarations, never hand-listed in a system: who
takes a word (`System.takes`) or has a verb (`System.verbs`), how an error names the word
and what it does (`vocabulary.Word.named`, `Word.role`), what the system in force offers
for that role (`System.instead`) or in place of that verb (`vocabulary.VERB_INSTEAD`). A
system's own explanation of its rules (`System.lacks`: mm's `crit N` is Improved Critical)
comes first. Read only on the way to an error, so the systems are imported then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from d20cli.language.vocabulary import CHECK_WORD, VERB_INSTEAD

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class System(Protocol):
        """What the hints read of a `rules.common.System` (this module is below it)."""

        @property
        def id(self) -> str: ...
        @property
        def verbs(self) -> Mapping[str, tuple[str, str]]: ...
        @property
        def takes(self) -> Mapping[str, frozenset[str]]: ...
        @property
        def instead(self) -> Mapping[str, str]: ...
        @property
        def lacks(self) -> Mapping[str, str]: ...


def _others(system: System) -> tuple[System, ...]:
    from d20cli.rules import SYSTEM_IDS, get_system  # the systems import this module

    return tuple(get_system(sid) for sid in SYSTEM_IDS if sid != system.id)


def _theirs(ids: Sequence[str]) -> str:
    """`levelup's`, `levelup's and mm's`, `levelup's, reglamento's and mm's`."""
    names = [f"{i}'s" for i in ids]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _listed(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def word_hint(system: System, verb: str, kind: str) -> str:
    """The error of a `verb` of `system` given a word of `kind` (a `CHECK_WORDS` kind)
    that it does not take: the system's own word on it, else the verbs of the system that
    take it, else that the system has none (and whose it is, when not every other
    system's) and what the system offers for the word's role."""
    own = system.lacks.get(f"{verb} {kind}", system.lacks.get(kind))
    if own is not None:
        return own
    word = CHECK_WORD[kind]
    named = word.named or kind
    elsewhere = [v for v, kinds in system.takes.items() if kind in kinds and v != verb]
    if elsewhere:
        takes = "takes" if len(elsewhere) == 1 else "take"
        return f"only {_listed(elsewhere)} {takes} {word.form or named} in {system.id}"
    message = f"{system.id} has no {named}"
    others = _others(system)
    owners = [s.id for s in others if any(kind in kinds for kinds in s.takes.values())]
    if owners and len(owners) < len(others):
        message += f" ({_theirs(owners)})"
    instead = system.instead.get(word.role)
    return f"{message}; {instead}" if instead else message


def verb_hint(system: System, verb: str) -> str | None:
    """What to say of a verb `system` lacks: whose it is, and what to use instead (the
    first of `VERB_INSTEAD[verb]` whose verb the system has); None for a verb no system
    has."""
    owners = [s.id for s in _others(system) if verb in s.verbs]
    if not owners:
        return None
    hint = f"{verb} is {_theirs(owners)}"
    use = next((t for t in VERB_INSTEAD.get(verb, ()) if t.split()[0] in system.verbs), None)
    return f"{hint}; use {use}" if use else hint
