"""The architecture, checked: every import in d20cli points down the layers, and no two
modules import each other, however indirectly. Imports inside functions and under
TYPE_CHECKING count like any other (a lazy import is still a dependency).

Layers, lowest first (docs/architecture.md explains each):
    foundation  errors, results, frozen, records, bounded, figures: the values, errors, number
                formats and the bounded memo every layer shares
    dice        the pure dice engine
    language    text -> Request
    rules       the rule systems: every rule and nothing else
    probability exact odds from the same resolvers
    present     Result -> lines for people, JSON for programs
    importers   character sheets of other programs (parsed JSON) -> entries, pure
    store       everything on disk
    rolling     a request rolled: checked, planned, resolved; prepared lines, the dice
                memo, the limits (what the command line and the Python API share)
    app         the edge: options, pipeline, stdin, shell, typer, completion
    (top)       d20cli and d20cli.api (the Python API), d20cli.__main__ (the command)
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "d20cli"
LAYERS = (
    (
        "foundation",
        (
            "d20cli.bounded",
            "d20cli.visible",
            "d20cli.errors",
            "d20cli.results",
            "d20cli.frozen",
            "d20cli.records",
            "d20cli.number_format",
        ),
    ),
    ("dice", ("d20cli.dice",)),
    ("language", ("d20cli.language",)),
    ("rules", ("d20cli.rules",)),
    ("probability", ("d20cli.probability",)),
    ("present", ("d20cli.present",)),
    ("importers", ("d20cli.importers",)),
    ("store", ("d20cli.store",)),
    ("rolling", ("d20cli.rolling",)),
    ("app", ("d20cli.app",)),
    ("top", ("d20cli.__main__", "d20cli.api", "d20cli")),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or (prefix != "d20cli" and module.startswith(prefix + ".")):
                return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The d20cli modules `module` imports, anywhere in its file."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            # a module's own packages are imported before it anyway: no edge to them
            if name.startswith("d20cli") and name != module and not module.startswith(name + "."):
                found.add(name)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {m: imports_of(m, p, known) for m, p in mods.items()}


def test_every_module_has_a_layer() -> None:
    for module in modules():
        layer_of(module)


def test_imports_point_down_the_layers() -> None:
    upward = [
        f"{m} ({LAYERS[layer_of(m)][0]}) imports {dep} ({LAYERS[layer_of(dep)][0]})"
        for m, deps in graph().items()
        for dep in sorted(deps)
        if layer_of(dep) > layer_of(m)
    ]
    assert upward == []


def test_no_import_cycles() -> None:
    edges = graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for dep in sorted(edges.get(node, ())):
            if state.get(dep) == 1:
                cycles.append([*path[path.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*path, dep])
        state[node] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_library_stands_below_the_command_line() -> None:
    """The Python API rolls through d20cli.rolling, as the command line does: it imports
    nothing of the command line (d20cli.app)."""
    edges = graph()
    assert "d20cli.rolling.rolls" in edges["d20cli.api"]
    assert sorted(dep for dep in edges["d20cli.api"] if dep.startswith("d20cli.app")) == []


def test_every_outcome_tier_has_a_tone() -> None:
    """Presentation styles badges by tone (d20cli.rules.tones), never by outcome id."""
    from d20cli.rules import SYSTEMS
    from d20cli.rules.tones import tone

    for system in SYSTEMS:
        for outcome, _ in system.outcomes:
            assert tone(outcome) is not None, (system.id, outcome)
