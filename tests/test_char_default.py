"""A default character (`d20 char use NAME`, kept as `character` in the config file;
`D20_CHARACTER` beats it; `--as none` skips it for one request), also in the shell."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from cli_helpers import d20, write_sheet

from d20cli.app.options import Options
from d20cli.app.shell import Session
from d20cli.present.output import Output
from d20cli.store import config

SHEET = """\
[aria]
system = "levelup"
stealth = "+7"

[bruno]
system = "mm"
stealth = "+2"
"""


@pytest.fixture
def sheet() -> Path:
    return write_sheet(SHEET)


def total(args: list[str], capsys: pytest.CaptureFixture[str]) -> object:
    status, out, err = d20([*args, "--json", "--dice", "10"], capsys)
    assert status == 0, err
    return json.loads(out)["total"], json.loads(out).get("character")


def test_char_use_sets_who_a_request_rolls_as(
    sheet: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    request = ["check", "stealth", "vs", "15"]
    assert d20(["char", "use"], capsys)[1] == "no character in use (d20 char use NAME)\n"
    assert d20(["char", "use", "ARIA"], capsys)[1].startswith("using aria: ")
    assert 'character = "aria"' in Path(config.config_path()).read_text()
    assert d20(["char", "use"], capsys)[1] == "using aria\n"
    assert total(request, capsys) == (17, "aria")
    assert total([*request, "--as", "none"], capsys) == (10, None)
    assert total([*request, "--as", "bruno"], capsys) == (12, "bruno")
    monkeypatch.setenv("D20_CHARACTER", "bruno")  # the environment beats the file
    assert total(request, capsys) == (12, "bruno")
    monkeypatch.setenv("D20_CHARACTER", "none")
    assert total(request, capsys) == (10, None)
    monkeypatch.delenv("D20_CHARACTER")
    assert d20(["char", "use", "none"], capsys)[1] == "no character in use\n"
    assert total(request, capsys) == (10, None)
    status, _, err = d20(["char", "use", "cleo"], capsys)
    assert status == 2 and "no character 'cleo'" in err


def test_a_bad_character_in_the_config_file_is_an_error(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = Path(config.config_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("character = 7\n", encoding="utf-8")
    status, _, err = d20(["config", "show"], capsys)
    assert status == 2 and "line 1" in err and "character" in err


def test_the_shell_starts_as_the_character_in_use(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d20(["char", "use", "bruno"], capsys)
    out = Output(io.StringIO(), io.StringIO(), color=False)
    session = Session(Options(), out)
    assert session.prompt() == "d20 mm bruno> "
    session.handle("as -")
    assert session.character is None and session.prompt() == "d20 mm> "
