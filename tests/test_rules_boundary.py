"""System knowledge stays inside the systems (issue 41 item 3): no module outside
`d20cli/rules` names a system id (or alias) or a verb that only some systems have to decide
what to do. Code outside the rules asks the request's `System` for a hook (`fortune`,
`verb_odds`, `check_plan`, ...) instead, and the default system is
`vocabulary.DEFAULT_SYSTEM`, stated once.

A name "decides" where the AST uses it as a value to test or fall back on: an operand of
a comparison (`verb == "fortune"`, `verb in ("fortune", "scores")`), of `or`/`and`
(`system or "levelup"`), a `case` pattern, or an element of a literal tuple, list or set
(a hand-kept list of verbs). A docstring, a dictionary key, a subscript or a call's
argument (a JSON field or a word kind that happens to share the name) does not.

The targets are read from the rules themselves: every system id and alias, and every verb
that not every system has, so a new system or verb is covered without editing this test.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import d20

from d20cli.rules import ALIASES, DEFAULT_SYSTEM, SYSTEM_IDS, SYSTEMS, get_system

PACKAGE = Path(__file__).resolve().parent.parent / "d20cli"

#: (module, name) -> why the module may name it. Keep it short: each entry is a place
#: where the name is the language's own word, not a system's rule.
EXCEPTIONS: dict[tuple[str, str], str] = {
    # The request language: it declares every verb, system id and alias (the words a user
    # types) and reads each verb's words into its Request (issue 41 item 1's word home).
    **{
        ("language/vocabulary.py", name): "the vocabulary declares the words"
        for name in (*SYSTEM_IDS, *ALIASES, *(v for s in SYSTEMS for v in s.verbs))
    },
    **{
        ("language/grammar.py", verb): "the grammar builds each verb's Request from its words"
        for verb in ("group", "compare", "percent", "luck", "scores", "fortune")
    },
    ("language/grammar.py", "fortune"): "the flag word `fortune` and the `fortune` verb",
    (
        "language/grammar_checks.py",
        "contest",
    ): "an error's wording: 'a contest' or 'an opposed check'",
    ("language/requests.py", "routine"): "a target's kind (`vs routine +N`), not the verb",
    ("language/shapes.py", "percent"): "the `percent` field of a PercentRequest",
    ("language/table_parts.py", "fortune"): "a table entry cannot hold a verb that rolls nothing",
    ("language/table_parts.py", "scores"): "a table entry cannot hold a verb that rolls nothing",
    # The option table: which verbs' command lines take `--players` and `--boon` (an option
    # is a word written as an option: the table is read before any system is imported).
    ("app/options.py", "scores"): "OPTIONS: `--players` is the `players` word of scores",
    ("app/options.py", "luck"): "OPTIONS: the verbs whose command line takes --boon",
    ("app/options.py", "fortune"): "OPTIONS: the verbs whose command line takes --boon",
    # Not verbs at all, names that happen to be one.
    ("frozen.py", "compare"): "the dataclass parameter `compare`",
    ("__init__.py", "luck"): "the public name `d20cli.luck` (the luck ledger) in `__all__`",
    ("api.py", "luck"): "the public name `d20cli.luck` (the luck ledger) in `__all__`",
    ("results.py", "scores"): "the JSON field `scores` of a Result",
    ("store/config.py", "group"): "the config key `group` (the group rule word)",
    ("importers/__init__.py", "a5e"): "the sheet format's id (Foundry's system id `a5e`)",
    ("importers/a5e.py", "a5e"): "Foundry's `_stats.systemId` of an A5E actor",
    ("app/cli.py", "compare"): "the `odds compare` command's word",
    ("app/run.py", "compare"): "the `odds compare` command's word",
    ("app/shell.py", "fortune"): "the shell's `let go fortune`",
    ("app/commands/initiative.py", "save"): "the `init save NAME` command's word",
    ("app/completion/engine.py", "group"): "completion offers a check's words after `group`",
}


def targets() -> set[str]:
    every = [set(system.verbs) for system in SYSTEMS]
    some_only = set.union(*every) - set.intersection(*every)
    return {*SYSTEM_IDS, *ALIASES, *some_only}


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:  # a module's, class's or function's, and attribute strings
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def _deciding(tree: ast.AST) -> Iterator[ast.Constant]:
    """The string constants used to decide: compared, fallen back on, matched, or listed."""
    docs = _docstrings(tree)
    seen: set[int] = set()
    for node in ast.walk(tree):
        values: list[ast.expr] = []
        if isinstance(node, ast.Compare):
            values = [node.left, *node.comparators]
        elif isinstance(node, ast.BoolOp):
            values = list(node.values)
        elif isinstance(node, ast.MatchValue):
            values = [node.value]
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            values = list(node.elts)
        for value in values:
            inner = value.elts if isinstance(value, ast.Tuple | ast.List | ast.Set) else [value]
            for item in inner:
                if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                    continue
                if id(item) not in docs and id(item) not in seen:
                    seen.add(id(item))
                    yield item


def system_names_outside_rules() -> list[tuple[str, int, str]]:
    """(module, line, name) of each system id or system's verb that decides, outside rules/."""
    names = targets()
    found: set[tuple[str, int, str]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module.startswith("rules/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for constant in _deciding(tree):
            if constant.value in names:
                found.add((module, constant.lineno, constant.value))
    return sorted(found)


def test_no_system_name_decides_outside_rules() -> None:
    unexcused = [
        f"d20cli/{module}:{line}: {name!r}"
        for module, line, name in system_names_outside_rules()
        if (module, name) not in EXCEPTIONS
    ]
    assert not unexcused, (
        "a system id or a system's verb decides behaviour outside d20cli/rules (ask the "
        "System for a hook instead, or add a named exception with its reason):\n"
        + "\n".join(unexcused)
    )


def test_every_exception_is_still_needed() -> None:
    """An exception that no longer matches anything is dropped, so the list stays short."""
    used = {(module, name) for module, _, name in system_names_outside_rules()}
    vocabulary = {key for key in EXCEPTIONS if key[0] == "language/vocabulary.py"}
    stale = sorted(set(EXCEPTIONS) - used - vocabulary)
    assert not stale, stale


def test_the_scan_finds_a_decision() -> None:
    """The scan sees the shapes it is meant to catch (so an empty result means something)."""
    code = (
        'if request.verb == "fortune": pass\n'
        'x = opts.system or "levelup"\n'
        'if verb in ("scores", "luck"): pass\n'
        'NAMES = ("mm",)\n'
        'detail["fortune"] = 1\n'
        'f(verb="scores")\n'
    )
    found = sorted(c.value for c in _deciding(ast.parse(code)) if c.value in targets())
    assert found == ["fortune", "levelup", "luck", "mm", "scores"]


def test_the_default_system_is_the_rules_default() -> None:
    assert DEFAULT_SYSTEM in SYSTEM_IDS
    assert get_system(DEFAULT_SYSTEM).id == DEFAULT_SYSTEM


def test_hooks_carry_the_verbs() -> None:
    """Each verb a system handles apart is one of its own verbs."""
    for system in SYSTEMS:
        assert set(system.verb_odds) <= set(system.verbs), system.id
        if system.fortune is not None:
            assert system.fortune.verb in system.verbs
            assert set(system.fortune.verbs) <= set(system.verbs)


def test_odds_of_a_verb_the_system_lacks_say_so(capsys: pytest.CaptureFixture[str]) -> None:
    """`odds scores` asks the request's system: levelup has no scores, as `d20 scores` says."""
    status, _, rolled = d20(["scores"], capsys)
    odds_status, _, odds = d20(["odds", "scores"], capsys)
    assert status == odds_status == 2
    assert "levelup has no 'scores'" in rolled
    assert "levelup has no 'scores'" in odds
    status, out, err = d20(["odds", "scores", "-s", "pd", "--json"], capsys)
    assert status == 0, err
    assert '"ranks"' in out


def test_fortune_has_no_odds_in_its_system(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = d20(["odds", "fortune", "-s", "pendagger"], capsys)
    assert status == 2
    assert "fortune has no odds" in err
