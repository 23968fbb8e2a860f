"""The pages of the documentation (README.md and docs/), read as tests read them: their
code blocks, their `$ ` examples, and how an example's output is matched."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """README.md and every page under docs/, in a stable order."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def page_name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def code_blocks(text: str, kind: str) -> list[str]:
    """The bodies of the fenced blocks of one kind (```console, ```sh, ...), at any indent."""
    return [
        re.sub(rf"^{indent}", "", body, flags=re.M)
        for indent, body in re.findall(rf"^( *)```{kind}\n(.*?)^ *```", text, flags=re.S | re.M)
    ]


def examples(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each `$ ` line in a console block."""
    found: list[tuple[str, list[str]]] = []
    for block in code_blocks(text, "console"):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, *expected = chunk.rstrip("\n").split("\n")
            found.append((command, expected))
    return found


def shell_lines(text: str) -> list[str]:
    """Every command line a reader may type: the `$ ` lines of console and text blocks,
    the lines of sh blocks, and inline code that starts with `d20 `."""
    lines = [cmd for cmd, _ in examples(text)]
    for block in code_blocks(text, "text"):
        lines += [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    for block in code_blocks(text, "sh"):
        lines += [line.removeprefix("$ ") for line in block.splitlines() if line.strip()]
    prose = re.sub(r"^ *```.*?^ *```", "", text, flags=re.S | re.M)
    lines += re.findall(r"`(d20 [^`]+)`", prose)
    return lines


def forced(command: str) -> bool:
    """Whether an example fixes its dice (`--dice` or `--seed`): its output is exact."""
    return bool(re.search(r"(^|\s)--(dice|seed)\b", command))


def prints_nothing_by_design(command: str) -> bool:
    """Whether an example sends its standard output away (`> /dev/null`, `> ~/rolls.json`):
    the one kind of example a page shows with no output. Its run must print nothing."""
    unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", "''", command)
    return bool(re.search(r"(?:^|\s)1?>>? *[^=&\s]", unquoted))


def matches(expected: list[str], actual: list[str]) -> bool:
    """Output by shape: a line `...` stands for any lines (none too) and `...` inside a line
    for any text; every other character is compared as it is."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?" if line == "..." else ".*?".join(map(re.escape, line.split("..."))) + "\n"
        for line in expected
    )
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


def env(home: Path) -> dict[str, str]:
    """An environment of one home of its own: nothing of the user's is read or written."""
    out = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        out[name] = str(home / name.lower())
    out["HOME"] = str(home)
    out["PATH"] = str(Path(sys.executable).parent) + os.pathsep + out.get("PATH", "")
    out["NO_COLOR"] = "1"
    for name in ("D20_SYSTEM", "D20_CHARACTER", "D20_NO_LOG", "MANPATH"):
        out.pop(name, None)
    return out
