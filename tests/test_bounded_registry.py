"""The cache policy is a test (issue 41 item 4): every memo of the package is made through
d20cli/bounded.py (`declare(...).new()` or `@memo`), which registers its name, module and
bounds, and docs/performance.md's table of caches is made from that registry.

The source is read (ast), so a memo made another way in a new module is caught: a
`Bounded` made without `declare`, `functools.cache`/`lru_cache`/`cached_property`, a dict
emptied when it reaches a size, an object's `__dict__` filled from outside `__init__`, or
a module's dict filled by its functions. The deliberate exceptions are named below, each
with its reason."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import d20cli
from d20cli.bounded import CACHES, SIZE, Bounded, Cache, declare, memo

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "d20cli"

#: (file, what) -> why it is not made through the helper. `what` is the site as
#: `ast.unparse` writes it.
EXCEPTIONS = {
    ("d20cli/results.py", "self.__dict__['_json_text']"): (
        "kept with a value: a Die's and a Result's JSON text, one entry a value (the bound "
        "is the value itself: docs/performance.md, 'Kept with a value')"
    ),
    ("d20cli/results.py", "self.__dict__['_dice_text']"): "kept with a value (as above)",
    ("d20cli/results.py", "self.__dict__['_derived']"): "kept with a value (as above)",
    ("d20cli/app/tallies.py", "result.__dict__['_with_chance']"): (
        "kept with a value: the copy of a Result that --odds noted (`results.MADE`)"
    ),
    ("d20cli/rolling/prepared.py", "self.by_text"): (
        "the prepared lines (`Lookups.prepared`, declared with its bound): emptied together "
        "with the space their DiceMemos share, which a Bounded's own emptying would not free"
    ),
    ("d20cli/results.py", "_SHOWN"): (
        "not a memo: each value class's text function, registered once by its decorator"
    ),
    ("d20cli/probability/memo.py", "self._same"): (
        "not emptied at a size: the identities are let go with the odds table they point "
        "into (both declared Bounded)"
    ),
    ("d20cli/store/request_cache.py", "entries"): (
        "a disk cache file's entries (the oldest go past MAX_ENTRIES), written to the file: "
        "a limit of the file, not a memo"
    ),
}


def _sources() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(ROOT).as_posix(), ast.parse(path.read_text("utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "bounded.py" or path.parent != PACKAGE
    ]


def _bounded_kinds(tree: ast.Module) -> set[str]:
    """d20cli.bounded's `Bounded` and the module's classes made from it, where the module
    imports it (d20cli.dice.arith has a `Bounded` of its own: an interval)."""
    if not any(
        isinstance(node, ast.ImportFrom)
        and node.module == "d20cli.bounded"
        and any(alias.name == "Bounded" for alias in node.names)
        for node in ast.walk(tree)
    ):
        return set()
    kinds = {"Bounded"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
            _name(base.value if isinstance(base, ast.Subscript) else base) == "Bounded"
            for base in node.bases
        ):
            kinds.add(node.name)
    return kinds


def _name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def memos_made_another_way(sources: list[tuple[str, ast.Module]]) -> list[tuple[str, str, str]]:
    """(file, site, why) of each memo the source makes without d20cli.bounded."""
    found: list[tuple[str, str, str]] = []
    for file, tree in sources:
        kinds = _bounded_kinds(tree)
        module_dicts = {
            _name(t)
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            and isinstance(node.value, ast.Dict | ast.Call)
            and (isinstance(node.value, ast.Dict) or _name(node.value.func) == "dict")
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        functions = [
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node.func) in kinds:
                found.append((file, ast.unparse(node), "a Bounded made without declare"))
            if isinstance(node, ast.ImportFrom) and node.module == "functools":
                for alias in node.names:
                    if alias.name in {"cache", "lru_cache", "cached_property"}:
                        found.append((file, f"functools.{alias.name}", "functools memo"))
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "functools"
                and node.attr in {"cache", "lru_cache", "cached_property"}
            ):
                found.append((file, ast.unparse(node), "functools memo"))
            if isinstance(node, ast.If) and any(
                isinstance(n, ast.Call) and _name(n.func) == "len" for n in ast.walk(node.test)
            ):
                for inner in node.body:
                    for call in ast.walk(inner):
                        if (
                            isinstance(call, ast.Call)
                            and isinstance(call.func, ast.Attribute)
                            and call.func.attr == "clear"
                            and not call.args
                        ):
                            site = ast.unparse(call.func.value)
                            found.append((file, site, "a dict emptied at a size"))
        for function in functions:
            for node in ast.walk(function):
                targets = (
                    node.targets
                    if isinstance(node, ast.Assign)
                    else [node.target]
                    if isinstance(node, ast.AugAssign | ast.AnnAssign)
                    else []
                )
                for target in targets:
                    if not isinstance(target, ast.Subscript):
                        continue
                    if _name(target.value) == "__dict__" and function.name != "__init__":
                        found.append((file, ast.unparse(target), "an attribute filled lazily"))
                    elif isinstance(target.value, ast.Name) and target.value.id in module_dicts:
                        found.append((file, target.value.id, "a module's dict filled"))
    return found


def test_every_memo_is_made_through_the_helper() -> None:
    """No memo of the package is made another way, but the named exceptions."""
    found = memos_made_another_way(_sources())
    unexplained = [f for f in found if (f[0], f[1]) not in EXCEPTIONS]
    assert unexplained == [], "make these with d20cli.bounded (declare, memo)"
    stale = set(EXCEPTIONS) - {(f[0], f[1]) for f in found}
    assert stale == set(), "exceptions that no longer match a site: remove them"


@pytest.mark.parametrize(
    "source",
    [
        "import functools\n@functools.cache\ndef f(x): return x\n",
        "from functools import lru_cache\n@lru_cache(8)\ndef f(x): return x\n",
        "from d20cli.bounded import Bounded\nKEPT = Bounded(16)\n",
        "_seen = {}\ndef f(k):\n    _seen[k] = 1\n",
        "class A:\n    def get(self):\n        self.__dict__['x'] = 1\n",
        "def keep(d, k, v):\n    if len(d) >= 100:\n        d.clear()\n    d[k] = v\n",
    ],
)
def test_a_memo_made_another_way_is_found(source: str) -> None:
    """Each way the policy names is caught in a new module's source."""
    assert memos_made_another_way([("d20cli/new.py", ast.parse(source))]) != []


def test_the_registry_names_every_memo_with_its_module_and_bound() -> None:
    """Importing the package registers its memos: each names the module that makes it,
    and a memo made from a declaration has the declared bounds."""
    for info in pkgutil.walk_packages(d20cli.__path__, "d20cli."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    package = {c.name: c for c in CACHES.values() if c.module.startswith("d20cli")}
    assert {"api._READY", "api._PARSED", "Lookups.parsed", "engine.MEMO"} <= set(package)
    for cache in package.values():
        assert importlib.import_module(cache.module) is not None
        assert cache.holds and cache.buys, cache.name
    from d20cli.api import _READY
    from d20cli.app.sealed import REPLAYS

    assert _READY.size == package["api._READY"].size
    assert REPLAYS.new().size == SIZE


def test_declare_registers_once_and_refuses_a_second_memo_of_a_name() -> None:
    cache = declare("test_bounded_registry.kept", 3, holds="k → v", buys="a test")
    assert (
        CACHES["test_bounded_registry.kept"]
        == cache
        == declare("test_bounded_registry.kept", 3, holds="k → v", buys="a test")
    )
    made = cache.new()
    assert isinstance(made, Bounded) and made.size == 3
    with pytest.raises(ValueError, match="two memos"):
        declare("test_bounded_registry.kept", 4, holds="k → v", buys="a test")

    @memo(2, holds="x → x", buys="a test")
    def same(x: int) -> int:
        return x

    assert same(1) == 1
    assert isinstance(CACHES[f"test_bounded_registry.{same.__qualname__}"], Cache)


def test_the_cache_table_is_made_from_the_registry() -> None:
    """docs/performance.md's table of caches is what scripts/make_docs.py makes from the
    registry: a bound changed in its one line changes the page (run make_docs.py)."""
    from test_docs import _make_docs

    make_docs = _make_docs()
    page = (ROOT / "docs" / "performance.md").read_text("utf-8")
    assert make_docs.cache_page(page) == page, "run python scripts/make_docs.py"
    for cache in CACHES.values():
        if cache.module.startswith("d20cli"):
            assert f"`{cache.name}`" in page, cache.name


def test_the_limits_table_is_made_from_each_limits_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/limits.md's table is what scripts/make_docs.py makes from each limit's one
    constant (LIMIT_HOMES): changing the constant changes the page, and the rows' text
    types no limit of its own (a number of four digits or more is in an example)."""
    import re

    from test_docs import _make_docs

    from d20cli.language import vocabulary

    make_docs = _make_docs()
    page = (ROOT / "docs" / "limits.md").read_text("utf-8")
    assert make_docs.limits_page(page) == page, "run python scripts/make_docs.py"
    monkeypatch.setattr(vocabulary, "MAX_REQUEST", 12_345)
    assert "| request length | 12,345 characters" in make_docs.limits_table()
    for limit, default in make_docs.LIMITS:
        literal = re.sub(r"`[^`]*`|\{[^}]*\}", "", limit + default)
        assert not re.search(r"\d[\d,]{3,}", literal), limit


def test_a_limit_is_one_constant_imported_where_it_is_used() -> None:
    """The request's length is one constant: the grammar, the disk caches' codec, standard
    input, the shell and `roll` read the same object, and no module of the package
    defines another constant of the same name with another value."""
    from d20cli.app import shell, stdin
    from d20cli.language import dice_grammar, parse_cache, vocabulary
    from d20cli.rolling import rolls

    homes = (dice_grammar, parse_cache, stdin, shell, rolls)
    assert all(m.MAX_REQUEST is vocabulary.MAX_REQUEST for m in homes)
    values: dict[str, set[object]] = {}
    for _file, tree in _sources():
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id.startswith("MAX_"):
                        values.setdefault(target.id, set()).add(node.value.value)
    assert {n: v for n, v in values.items() if len(v) > 1 and n in RENAMED} == {}


#: Names that meant different numbers in different modules (issue 41): each now has one.
RENAMED = ("MAX_TEXT", "MAX_REQUEST", "MAX_MEMO_TEXT", "MAX_ENTRY_TEXT", "MAX_SHAPE_TEXT")
