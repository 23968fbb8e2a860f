"""The documentation is true: every `$ d20 ...` example of every page (README.md and
docs/) runs and prints what the page shows (exactly where it fixes its dice with `--dice`
or `--seed`, by shape elsewhere), the Python examples run, every shell line quotes what a
shell would read, every command and option has a mention, and mkdocs.yml lists every page."""

from __future__ import annotations

import doctest
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from d20cli.__main__ import main
from d20cli.app.cli import completion_commands
from d20cli.app.options import OPTIONS
from d20cli.language.vocabulary import ALIASES, SYSTEM_IDS, VERB_HELP, VERBS
from tests.docs_pages import (
    DOCS,
    ROOT,
    code_blocks,
    env,
    examples,
    forced,
    matches,
    page_name,
    pages,
    prints_nothing_by_design,
    shell_lines,
)


def _cases() -> list[tuple[str, int, str, list[str]]]:
    found = []
    for page in pages():
        for n, (command, expected) in enumerate(examples(page.read_text(encoding="utf-8"))):
            found.append((page_name(page), n, command, expected))
    return found


CASES = _cases()


@pytest.fixture(scope="session")  # a page's examples may be run between other files'
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One home per page, its examples run in order: later ones use what earlier ones
    made (a character, the roll log), as a reader following the page would."""
    return {}


def test_every_page_has_examples() -> None:
    shown = {page for page, *_ in CASES}
    assert "README.md" in shown and "docs/notation.md" in shown
    assert len(CASES) >= 100


PAGES = sorted({page for page, *_ in CASES})


@pytest.mark.parametrize("page", PAGES)
def test_examples_run_as_shown(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page's examples, run in order in one home of the page's own: later ones use what
    earlier ones made (a character, the roll log), as a reader following the page would.
    (One test a page, so that pytest-xdist never splits a page between workers.)"""
    for _, n, command, expected in (case for case in CASES if case[0] == page):
        where = f"{page}:{n}"
        if _SHELL.search(command) or not command.startswith("d20 "):
            example_runs_as_shown(where, command, expected, tmp_path)
        else:
            example_runs_in_process(where, command, expected, tmp_path, monkeypatch, capsys)


# An example with any of these is a shell line, run by bash; any other is one `d20`
# command, run in-process by d20's own main() (a process start each is 0.1-0.2 s: half a
# minute of the suite). The process itself (its streams, status and exit) is tried by
# tests/test_streams.py, tests/test_streams_signals.py and the shell lines here.
_SHELL = re.compile(r"[|<>;&$`()*!\\~]|\b(?:echo|printf|cat|if)\b")


def example_runs_as_shown(where: str, command: str, expected: list[str], home: Path) -> None:
    if not (Path(sys.executable).parent / "d20").exists():
        command = re.sub(r"\bd20\b(?= )", f"{sys.executable} -m d20cli", command)
    proc = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        env=env(home),
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    shown_as(where, command, expected, proc.returncode, proc.stdout, proc.stderr)


def example_runs_in_process(
    where: str,
    command: str,
    expected: list[str],
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`d20 ARGS` as d20's main() runs it, in the environment a process would get."""
    wanted = env(home)
    for name in set(os.environ) - set(wanted):
        monkeypatch.delenv(name)
    for name, value in wanted.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    status = main(shlex.split(command)[1:])
    out, err = capsys.readouterr()
    shown_as(where, command, expected, status, out, err)


def shown_as(
    where: str, command: str, expected: list[str], status: int, out: str, err: str
) -> None:
    """The checks of one example: no traceback, its exit status, and its output as the
    page shows it (an error's message on standard error)."""
    said = f"{where}: $ {command}\n{err}"
    assert "Traceback" not in err, said
    if any(line.startswith("d20: error") for line in expected):
        assert status == 2, said
        assert err.splitlines() == expected, said
        return
    assert status == 0, said
    if not expected:  # only an example that sends its output away (a static test says so)
        assert out == "", f"{said}show what it prints:\n{out}"
        return
    if forced(command):
        assert out.splitlines() == expected, said
    else:
        assert matches(expected, out.splitlines()), f"{said}{out}"


def test_every_example_shows_its_output() -> None:
    """A reader sees what each `$ ` example prints: every example shows its output lines,
    but for one that sends its standard output away (`> /dev/null`, `> ~/rolls.json`),
    whose run must then print nothing (test_examples_run_as_shown)."""
    unseen = [
        f"{page}:{n}: $ {command}"
        for page, n, command, expected in CASES
        if not expected and not prints_nothing_by_design(command)
    ]
    assert not unseen, "show what these print:\n" + "\n".join(unseen)


def test_prints_nothing_by_design_is_a_redirection_of_standard_output() -> None:
    assert prints_nothing_by_design("d20 roll 1d6 --repeat 1000000 | head -1 > /dev/null")
    assert prints_nothing_by_design("d20 log --export json --session 1 > ~/rolls.json")
    assert prints_nothing_by_design("d20 roll 1d6 >>log.txt")
    assert not prints_nothing_by_design("d20 roll 1d6 2> /dev/null")
    assert not prints_nothing_by_design("d20 roll 1d6 2>&1")
    assert not prints_nothing_by_design("d20 roll '1d20 >= 5'")
    assert not prints_nothing_by_design("d20 roll 1d6")


def test_output_is_matched_by_shape() -> None:
    assert matches(["a ... c", "...", "z"], ["a b c", "x", "y", "z"])
    assert matches(["...", "z"], ["z"])
    assert not matches(["a ... c"], ["a b d"])
    assert not matches(["a"], ["a", "b"])


def test_the_python_examples_run() -> None:
    """Each page's ```python blocks, in order, as one doctest session (later blocks use
    what earlier ones made): every output as shown."""
    parser = doctest.DocTestParser()
    count = 0
    for page in pages():
        text = "\n".join(code_blocks(page.read_text(encoding="utf-8"), "python"))
        if ">>>" not in text:
            continue
        test = parser.get_doctest(text, {}, page_name(page), str(page), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.summarize(verbose=False).failed == 0, page
        count += len(test.examples)
    assert count >= 20


#: Words a shell line may hold unquoted with a character the shell reads: its operators
#: and redirections of the examples.
SHELL_WORDS = {"&&", "||", "|", ";", ">", "2>", ">>", "<", ">&-", "2>&1", "2>/dev/null"}


def unquoted_words(line: str) -> list[str]:
    """The words of a shell line, each with its quoted parts left out."""
    words: list[str] = []
    word, quote, any_char = "", "", False
    for ch in line:
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote, any_char = ch, True
        elif ch.isspace():
            if word or any_char:
                words.append(word)
            word, any_char = "", False
        else:
            word, any_char = word + ch, True
    if word or any_char:
        words.append(word)
    return words


def needs_quotes(line: str) -> list[str]:
    """The words of a `d20` line that a shell would read as more than a word."""
    bad = []
    for word in unquoted_words(line.split(" # ")[0]):
        if word in SHELL_WORDS or re.fullmatch(r"\$\(.*|.*\)|<\(.*", word):
            continue
        if re.search(r"[<>*(!&]", word.rstrip(";")):
            bad.append(word)
    return bad


def test_needs_quotes_finds_what_a_shell_would_read() -> None:
    assert needs_quotes("d20 roll 10d6 >= 5") == [">="]
    assert needs_quotes("d20 roll 1d6! -s m&m") == ["1d6!", "m&m"]
    assert needs_quotes("d20 roll '1d100 <= 45' -s 'm&m' > /dev/null && echo ok") == []


def test_every_example_help_shows_is_quoted() -> None:
    """`d20 help`, `d20 help VERB` and `d20 help COMMAND` (and so the manual page) show
    examples a reader types as shown."""
    from d20cli.app.commands import COMMANDS
    from d20cli.present.help_view import overview_examples, verb_examples

    shown = [*overview_examples(), *(e for verb in VERBS for e in verb_examples(verb))]
    shown += [e for _, examples in VERB_HELP.values() for e in examples]
    shown += [e for row in COMMANDS.values() for e in row.examples]
    assert not [e for e in shown if needs_quotes(f"d20 {e}")]


@pytest.mark.parametrize("page", pages(), ids=page_name)
def test_every_shell_line_is_quoted(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    bad = {line: needs_quotes(line) for line in shell_lines(text) if needs_quotes(line)}
    assert not bad, f"quote these in {page_name(page)}: {bad}"


def _docs_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.rglob("*.md")))


def test_every_command_and_subcommand_has_a_mention() -> None:
    """As sqlite-utils' test_docs.py: a command the docs pages never name fails."""
    text = _docs_text()
    missing = [f"d20 {verb}" for verb in VERBS if f"`{verb}" not in text]
    for command in completion_commands(VERBS):
        if f"d20 {command.name}" not in text:
            missing.append(f"d20 {command.name}")
        for sub in command.subcommands:
            if not re.search(rf"\b{command.name} {sub}\b", text):
                missing.append(f"d20 {command.name} {sub}")
    assert not missing, f"no page mentions {missing}"


def test_every_option_has_a_mention() -> None:
    text = _docs_text()
    names = {n for spec in OPTIONS for n in spec.names}
    names |= {n for c in completion_commands(VERBS) for o in c.options for n in o.names}
    missing = sorted(n for n in names if not re.search(rf"(?<![\w-]){n}(?![\w-])", text))
    assert not missing, f"no page mentions {missing}"


def test_the_architecture_page_names_only_what_exists() -> None:
    """docs/architecture.md names modules as paths (`rolling/prepared.py`) and names in
    them as `module.NAME` (`prepared.PreparedLines`): each is there in the package (every
    module is named by the page's generated list, which test_the_manual_page_and_the_
    notation_table_are_current keeps current)."""
    import importlib

    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    package = ROOT / "d20cli"
    modules = {p.stem: p for p in package.rglob("*.py") if p.stem != "__init__"}
    paths = [p.relative_to(ROOT).as_posix() for p in ROOT.glob("[dsbt]*/**/*.py")]
    for path in set(re.findall(r"`((?:d20cli/)?[a-z_]+(?:/[a-z_]+)+\.py)`", text)):
        assert any(p == path or p.endswith("/" + path) for p in paths), path
    for module, name in set(re.findall(r"`([a-z_]+)\.([A-Z][A-Za-z_]+)`", text)):
        if module not in modules:
            continue  # (`random.Random`, `dataclasses.FrozenInstanceError`: not ours)
        dotted = ".".join(modules[module].relative_to(ROOT).with_suffix("").parts)
        typed = f"class {name}(" in modules[module].read_text(encoding="utf-8")  # (a Protocol)
        assert hasattr(importlib.import_module(dotted), name) or typed, f"{module}.{name}"


def test_mkdocs_lists_every_page() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"([\w/-]+\.md)", nav))
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert on_disk <= listed, on_disk - listed


def test_the_home_page_leads_with_an_evening_at_the_table() -> None:
    """The site's first page starts with what players type at the table and what it
    prints, before the install."""
    page = (DOCS / "index.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", page, flags=re.M)
    assert sections[1].startswith("An evening at the table\n")
    shown = examples(sections[1])
    assert len(shown) >= 8 and all(expected for _, expected in shown)
    assert {"check", "attack", "init", "odds"} <= {c.split()[1] for c, _ in shown}


def test_mkdocs_names_the_site_url() -> None:
    """The site's address, which the sitemap and the canonical links need (without it
    mkdocs writes an empty sitemap)."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^site_url: https://\S+/$", config, flags=re.M)


def test_the_systems_table_is_the_systems_data() -> None:
    """docs/systems/index.md's table: every id with every alias and verb `d20 systems`
    names; the README's list: every id, with verbs of that system."""
    from d20cli.api import systems

    page = (DOCS / "systems" / "index.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| [^|]+ \| `(\w+)` \(([^)]*)\) \| ([^|]+) \|", page, flags=re.M)
    assert [sid for sid, _, _ in rows] == list(SYSTEM_IDS)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^- `(\w+)`: [^:]+: (.+)$", readme, flags=re.M))
    assert list(listed) == list(SYSTEM_IDS)
    for info, (sid, aliases, verbs) in zip(systems(), rows, strict=True):
        assert sid == info.id
        assert re.findall(r"`([^`]+)`", aliases) == list(info.aliases)
        assert all(ALIASES[a] == sid for a in info.aliases)
        names = {v.name for v in info.verbs}
        assert set(re.findall(r"[a-z]+", verbs)) == names
        assert set(re.findall(r"[a-z]+", listed[sid])) <= names


def _make_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_docs", ROOT / "scripts" / "make_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_manual_page_and_the_notation_table_are_current() -> None:
    """man/d20.1, docs/notation.md's table, the systems' pages and architecture.md's list
    of every module are what scripts/make_docs.py makes from the help data and the
    modules' docstrings (run it after changing a verb, the notation, a system, an option,
    a command or a module)."""
    make_docs = _make_docs()
    assert (ROOT / "man" / "d20.1").read_text(encoding="utf-8") == make_docs.man_page()
    page = (DOCS / "notation.md").read_text(encoding="utf-8")
    assert make_docs.notation_page(page) == page
    for path, text in make_docs.system_pages().items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name}: run scripts/make_docs.py"
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    assert make_docs.architecture_page(page) == page, "architecture.md: run scripts/make_docs.py"


def test_a_system_page_is_headings_and_tables_made_from_the_program() -> None:
    """Each system's page has its verbs, outcome tiers and words as tables made from the
    program's data (checked above), not a paste of `d20 systems` output."""
    from d20cli.api import systems

    for info in systems():
        page = (DOCS / "systems" / f"{info.id}.md").read_text(encoding="utf-8")
        assert "$ d20 systems" not in page, info.id
        assert "### Verbs" in page and "### Outcome tiers" in page, info.id
        for verb in info.verbs:
            assert f"| `{verb.name}` | " in page and f"`d20 {verb.example} " in page
        assert all(f"| `{outcome.id}` |" in page for outcome in info.outcomes)
        assert all(f"| `{word}` | {meaning} |" in page for word, meaning in info.words)


def test_the_manual_page_names_every_verb_command_option_and_form() -> None:
    from d20cli.app.commands import COMMANDS
    from d20cli.language.vocabulary import DICE_NOTATION

    page = (ROOT / "man" / "d20.1").read_text(encoding="utf-8").replace("\\-", "-")
    assert all(f"\\fB{verb}\\fR" in page for verb in VERBS)
    assert all(f".SS d20 {name}" in page for name in COMMANDS)
    assert all(name in page for spec in OPTIONS for name in spec.names)
    assert all(f"\\fB{form}\\fR" in page for form, _, _ in DICE_NOTATION)


def test_the_wheel_ships_the_manual_page() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shared = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    assert shared["man/d20.1"] == "share/man/man1/d20.1"


def test_the_changelog_starts_at_the_current_version() -> None:
    """CHANGELOG.md is in the Keep a Changelog form: Unreleased first, then each version,
    the project's own among them."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    log = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", log, flags=re.M)
    assert headings[0] == "Unreleased"
    assert version["version"] in headings
    assert "keepachangelog.com" in log


def test_the_quiet_table_names_every_verb() -> None:
    """docs/scripting.md says what `-q` prints for each verb."""
    page = (DOCS / "scripting.md").read_text(encoding="utf-8")
    table = page.split("| verb | `-q` prints |", 1)[1].split("\n\n", 1)[0]
    rows = [row.split("|")[1] for row in table.splitlines() if row.startswith("|")]
    named = {verb for row in rows for verb in re.findall(r"`(\w+)`", row)}
    assert set(VERBS) <= named, set(VERBS) - named
