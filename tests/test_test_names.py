"""Test files are named after what they test (issue 41 item 7): `tests/test_<subject>.py`
or `tests/test_<subject>_<aspect>.py`, where the subject is a module or package of d20cli
(the last part of its path), a command, a verb, a system id, a docs page (each page states
a contract), or one of the few topics in TOPICS below, each with its reason. The aspect says
which part of the subject: never the history of an issue (`test_odds_two`,
`test_rules_second_reading`, `test_edges`).

The subjects are read from the program itself (its files, `COMMANDS`, `VERBS`,
`SYSTEM_IDS`, the docs pages), so a new module, command or page needs no edit here.
A test's own name says what it proves, not which issue found it (`test_the_issue_example`);
its docstring may name the issue.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from d20cli.app.commands import COMMANDS
from d20cli.language.vocabulary import SYSTEM_IDS, VERBS

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

# Test files whose subject is no module, command, verb, system or docs page: a contract
# of the whole project, each with the reason it is one.
TOPICS: dict[str, str] = {
    "docs": "every docs page's console examples run, and the pages name every command",
    "readme": "the README's examples and its install and test commands",
    "layers": "the import layers of the whole package (docs/architecture.md)",
    "examples": "the programs in examples/ work with the public API alone",
    "golden": "the rich output of every verb against its golden file",
    "screens": "the pictures in the docs are what the program prints now",
    "fuzz": "no input of any kind escapes the request path as an exception",
    "isolation": "the test suite never touches the user's real home",
    "test_names": "this file: the names of the test files and tests",
}

# Words of an aspect that record when a test was written, not what it tests.
HISTORY: frozenset[str] = frozenset(
    {
        "two",
        "three",
        "second",
        "third",
        "ii",
        "iii",
        "again",
        "more",
        "new",
        "old",
        "misc",
        "other",
        "extra",
        "edges",
        "fixes",
        "issue",
        "issues",
        "regression",
        "regressions",
    }
)

# Words that make a test function's name a piece of history.
HISTORY_IN_A_TEST: frozenset[str] = frozenset(
    {"issue", "issues", "regression", "regressions", "bug", "bugs", "ticket"}
)


def subjects() -> frozenset[str]:
    """Every name a test file may be named after (TOPICS aside)."""
    names: set[str] = set()
    for path in (ROOT / "d20cli").rglob("*.py"):
        names.update(p for p in path.relative_to(ROOT / "d20cli").with_suffix("").parts)
    names.discard("__init__")
    names.discard("__main__")
    names.update(COMMANDS, VERBS, SYSTEM_IDS)
    pages = (p.stem.replace("-", "_") for p in (ROOT / "docs").rglob("*.md"))
    names.update(page for page in pages if page != "index")
    return frozenset(names)


def subject_of(stem: str, known: frozenset[str]) -> str | None:
    """What `test_<stem>.py` tests: a topic, or the subject its name starts with when the
    rest (the aspect) records no history; None for a name that says neither."""
    if stem in TOPICS:
        return stem
    parts = stem.split("_")
    for end in range(len(parts), 0, -1):
        head, aspect = "_".join(parts[:end]), parts[end:]
        if head in known and not any(p in HISTORY or not p.isalpha() for p in aspect):
            return head
    return None


def test_every_test_file_is_named_after_what_it_tests() -> None:
    known = subjects()
    stems = sorted(p.stem.removeprefix("test_") for p in TESTS.glob("test_*.py"))
    assert len(stems) > 50
    assert [s for s in stems if subject_of(s, known) is None] == []


@pytest.mark.parametrize(
    ("stem", "subject"),
    [
        ("seal_receipts", "seal"),  # a command and its aspect
        ("peer_readings_corpus", "peer_readings"),  # a module
        ("levelup", "levelup"),  # a system
        ("check_word_order", "check"),  # a verb
        ("scripting", "scripting"),  # a docs page
        ("layers", "layers"),  # a topic
        ("odds_two", None),  # history: the second file about odds
        ("rules_second_reading", None),
        ("notation_ii", None),
        ("odds_issue31", None),
        ("edges", None),  # about nothing in particular
        ("stuff", None),
    ],
)
def test_a_name_is_read_for_its_subject(stem: str, subject: str | None) -> None:
    assert subject_of(stem, subjects()) == subject


def test_every_topic_names_a_test_file() -> None:
    assert [t for t in TOPICS if not (TESTS / f"test_{t}.py").is_file()] == []


def test_no_topic_is_a_subject_already() -> None:
    assert sorted(set(TOPICS) & subjects()) == []


def history_in(name: str) -> bool:
    """Whether a test function's name records an issue instead of what it proves."""
    return any(part in HISTORY_IN_A_TEST for part in name.split("_"))


def test_every_test_is_named_for_what_it_proves() -> None:
    named: list[str] = []
    for path in sorted(TESTS.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if node.name.startswith("test_") and history_in(node.name):
                named.append(f"{path.name}::{node.name}")
    assert named == []


def test_a_test_named_for_its_history_is_found() -> None:
    assert history_in("test_the_issue_examples_parse")
    assert history_in("test_regression_of_a_caret")
    assert not history_in("test_a_second_run_serves_a_new_text_of_the_shape")
