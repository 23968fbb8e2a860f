"""Roll table files: `NAME.toml` in `$XDG_CONFIG_HOME/d20cli/tables/` (d20cli.store.files'
XDG rule), or a file named on the command line (a word with a `/` or ending in `.toml`).

A reference `{table:NAME}` in a file is looked up beside that file first, then in the
tables directory, so a folder of tables that name each other works from anywhere.
Reading is bounded (d20cli.store.files.read_text): a file over MAX_TABLE_FILE_BYTES, anything
but a regular file, text that is not UTF-8, and more than MAX_TABLES files reached from
one table are errors that name the file. A table read once is kept (by its path, size
and time) for the rest of the run.
"""

from __future__ import annotations

import os

from d20cli.bounded import Bounded, declare
from d20cli.errors import D20Error, ParseError
from d20cli.frozen import frozen
from d20cli.language.tables import (
    MAX_TABLE_FILE_BYTES,
    NAME,
    Problem,
    Table,
    graph_problem,
    read_table,
)
from d20cli.store.files import read_text, xdg_dir

MAX_TABLES = 32  # files one table may reach through its references
MAX_TABLES_LISTED = 1000  # files `d20 table list` reads


def tables_dir() -> str:
    return os.path.join(xdg_dir("XDG_CONFIG_HOME", ".config"), "d20cli", "tables")


def is_path(word: str) -> bool:
    """Whether a table's word names a file rather than a table in the tables directory."""
    return "/" in word or os.sep in word or word.lower().endswith(".toml")


def table_path(name: str, near: str | None = None) -> str | None:
    """The file of table `name`: beside `near` (a directory) first, then in the tables
    directory; None when there is none."""
    if NAME.fullmatch(name) is None:
        raise ParseError(
            f"{name[:40]!r} is not a table's name (letters, digits, '_', '-' and '.'; "
            "a file's path has a '/' or ends in .toml)"
        )
    for folder in (near, tables_dir()):
        if folder is None:
            continue
        path = os.path.join(folder, f"{name}.toml")
        if os.path.exists(path):
            return path
    return None


@frozen
class Read:
    table: Table | None
    problems: tuple[Problem, ...]


_cache: Bounded[str, tuple[tuple[int, int], Read]] = declare(
    "tables._cache",
    256,
    holds="path → the table file read, with its stamp",
    buys="`read_file`: 2.4 µs instead of 130 µs (x55)",
).new()


def read_file(path: str, name: str | None = None) -> Read:
    """The table in the file at `path` and its problems (kept for the run by path)."""
    try:
        info = os.stat(path)
        key = (info.st_mtime_ns, info.st_size)
    except OSError:
        key = (0, -1)
    cached = _cache.get(path)
    if cached is not None and cached[0] == key and key[1] >= 0:
        return cached[1]
    text = read_text(path, MAX_TABLE_FILE_BYTES, "a table file")
    stem = name or os.path.basename(path).removesuffix(".toml")
    table, problems = read_table(text, stem, path)
    read = Read(table, tuple(problems))
    _cache[path] = (key, read)
    return read


def find(word: str) -> str:
    """The path of the table a command names (a name or a file's path)."""
    if is_path(word):
        if not os.path.exists(word):
            raise ParseError(f"no table file {word}")
        return word
    path = table_path(word)
    if path is None:
        raise ParseError(f"no table {word!r} (put {word}.toml in {tables_dir()}; `d20 table list`)")
    return path


def load(word: str) -> tuple[str, dict[str, Table]]:
    """The table a command names, with every table it reaches: (its name, the tables by
    name). ParseError for the first problem of any of them."""
    root, tables, problems = reach(find(word))
    if problems:
        raise problems[0].error()
    return root, tables


def reach(path: str) -> tuple[str, dict[str, Table], list[Problem]]:
    """The table at `path` and those it reaches, and every problem found on the way (a
    file's own, then those of the references: missing tables, cycles, depth)."""
    first = read_file(path)
    if first.table is None:
        return "", {}, list(first.problems)
    root = first.table.name
    tables = {root: first.table}
    problems = list(first.problems)
    todo = [first.table]
    broken = False  # a file reached that is not a table at all
    while todo:
        table = todo.pop(0)
        near = os.path.dirname(table.source) or "."
        for entry in table.entries:
            for ref in entry.refs:
                if ref in tables:
                    continue
                try:
                    ref_path = table_path(ref, near)
                except D20Error as err:
                    problems.append(Problem(table.source, entry.line, err.message))
                    continue
                if ref_path is None:
                    continue  # graph_problem names it, with the entry's line
                if len(tables) >= MAX_TABLES:
                    message = f"more than {MAX_TABLES} tables are reached from {root!r}"
                    return root, tables, [*problems, Problem(table.source, entry.line, message)]
                read = read_file(ref_path, ref)
                problems.extend(read.problems)
                if read.table is None:
                    broken = True
                    continue
                tables[ref] = read.table
                todo.append(read.table)
    for table in tables.values():
        problem = _system_problem(table)
        if problem is not None:
            problems.append(problem)
    if not broken:
        problem = graph_problem(root, tables)
        if problem is not None:
            problems.append(problem)
    return root, tables, sorted(problems, key=_order)


def _system_problem(table: Table) -> Problem | None:
    from d20cli.rules import system_id

    if table.system is None:
        return None
    try:
        system_id(table.system)
    except D20Error as err:
        return Problem(table.source, table.system_line, err.message)
    return None


def check(path: str) -> tuple[Table | None, list[Problem]]:
    """`d20 table check FILE`: the table and every problem found: the file's own, those
    of the tables it reaches, and each roll in its entries that does not parse."""
    from d20cli.language.table_parts import parsed

    root, tables, problems = reach(path)
    table = tables.get(root)
    if table is None:
        return None, problems
    for entry in table.entries:
        for part in entry.parts:
            if part.kind in ("dice", "request"):
                try:
                    parsed(part)
                except D20Error as err:
                    where = f"entry {entry.key!r}: {err.message}"
                    problems.append(Problem(table.source, entry.line, where))
    return table, sorted(problems, key=_order)  # by file, then line


def _order(problem: Problem) -> tuple[str, int]:
    return problem.source, problem.line or 0


def names() -> list[str]:
    """The tables in the tables directory, by name (completion and `table list`)."""
    try:
        found = sorted(
            entry.name.removesuffix(".toml")
            for entry in os.scandir(tables_dir())
            if entry.name.endswith(".toml") and not entry.name.startswith(".")
        )
    except OSError:
        return []
    return [n for n in found if NAME.fullmatch(n)][:MAX_TABLES_LISTED]
