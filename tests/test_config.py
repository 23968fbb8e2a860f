"""The config file (issue 14): `d20 config show|set|unset|path`, what beats what (request
word > character > config file; --system > a character's system > D20_SYSTEM > the file),
house defaults only where a system takes the word, colour, bad files named with their
line and key, and a start-up that reads nothing when there is no file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from d20cli.__main__ import main
from d20cli.app.cli import app
from d20cli.store import config as config_module
from d20cli.store.config import config_path, load_config

runner = CliRunner()


def write_config(text: str | bytes) -> Path:
    path = Path(config_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    config_module._cache.clear()  # a rewrite in the same clock tick keeps time and size
    return path


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def roll_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    status, out, err = run_main([*args, "--json"], capsys)
    assert (status, err) == (0, ""), err
    loaded: dict[str, object] = json.loads(out)
    return loaded


# --- the file and the command ---------------------------------------------------------


def test_path_follows_xdg_config_home(tmp_path: Path) -> None:
    assert config_path() == str(tmp_path / "config" / "d20cli" / "config.toml")
    r = runner.invoke(app, ["config", "path"])
    assert r.exit_code == 0 and r.stdout.strip() == config_path()


def test_no_file_is_the_defaults() -> None:
    config = load_config()
    assert (config.exists, config.system, config.color, dict(config.house)) == (
        False,
        None,
        None,
        {},
    )
    r = runner.invoke(app, ["config", "show"])
    assert r.exit_code == 0
    assert 'system = "levelup"  # the default' in r.stdout
    assert "no config file yet" in r.stdout


def test_show_says_the_character_in_use() -> None:
    """Issue 42 item 12: `config show` left out `character` (`d20 char use aria`)."""
    from cli_helpers import write_sheet

    write_sheet('[aria]\nstealth = "+7"\n')
    assert runner.invoke(app, ["char", "use", "aria"]).exit_code == 0
    r = runner.invoke(app, ["config", "show"])
    assert r.exit_code == 0 and 'character = "aria"' in r.stdout.splitlines()


def test_set_show_unset_round_trip() -> None:
    for args, said in (
        (["levelup.crit-dmg", "max"], 'levelup.crit-dmg = "max"'),
        (["system", "m&m"], 'system = "mm"'),
        (["color", "NEVER"], 'color = "never"'),
        (["levelup.lucky", "yes"], "levelup.lucky = true"),
        (["a5e.crit", "19"], "levelup.crit = 19"),
        (["reg.min", "10"], "reglamento.min = 10"),
        (["levelup.group", "at-least-half"], 'levelup.group = "at-least-half"'),
    ):
        r = runner.invoke(app, ["config", "set", *args])
        assert r.exit_code == 0, r.output
        assert r.stdout.strip() == said
    assert Path(config_path()).read_text(encoding="utf-8") == (
        'system = "mm"\n'
        'color = "never"\n'
        "\n"
        "[levelup]\n"
        'crit-dmg = "max"\n'
        "lucky = true\n"
        "crit = 19\n"
        'group = "at-least-half"\n'
        "\n"
        "[reglamento]\n"
        "min = 10\n"
    )
    r = runner.invoke(app, ["config", "show", "--json"])
    assert json.loads(r.stdout) == {
        "path": config_path(),
        "exists": True,
        "system": "mm",
        "color": "never",
        "character": None,
        "house": {
            "levelup": {"crit-dmg": "max", "lucky": True, "crit": 19, "group": "at-least-half"},
            "reglamento": {"min": 10},
        },
        "log": {"keep": None},
        "post": {"url": None, "only": None, "format": None},
    }
    r = runner.invoke(app, ["config", "show"])
    assert r.stdout.splitlines()[1:4] == ['system = "mm"', 'color = "never"', ""]
    assert runner.invoke(app, ["config", "unset", "levelup.crit"]).exit_code == 0
    assert runner.invoke(app, ["config", "unset", "reglamento"]).exit_code == 0
    assert runner.invoke(app, ["config", "unset", "system"]).exit_code == 0
    config = load_config()
    assert config.system is None and "reglamento" not in config.house
    assert dict(config.house["levelup"]) == {
        "crit-dmg": "max",
        "lucky": True,
        "group": "at-least-half",
    }
    r = runner.invoke(app, ["config", "unset", "levelup.crit"])
    assert r.exit_code == 2 and "levelup.crit: not set" in r.output


def test_set_keeps_comments_and_layout() -> None:
    write_config(
        "# my table's rules\n"
        'system = "levelup"   # we play a5e\n'
        "\n"
        "[levelup]  # house\n"
        "crit = 19  # keen blades\n"
        "# more later\n"
    )
    assert runner.invoke(app, ["config", "set", "levelup.crit-dmg", "max"]).exit_code == 0
    assert runner.invoke(app, ["config", "set", "color", "always"]).exit_code == 0
    assert runner.invoke(app, ["config", "set", "levelup.crit", "18"]).exit_code == 0
    text = Path(config_path()).read_text(encoding="utf-8")
    assert text == (
        "# my table's rules\n"
        'system = "levelup"   # we play a5e\n'
        'color = "always"\n'
        "\n"
        "[levelup]  # house\n"
        "crit = 18  # keen blades\n"
        'crit-dmg = "max"\n'
        "# more later\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["levelup.crit-dmg", "maxx"], "levelup.crit-dmg: must be one of dice, double, max"),
        (["levelup.crit", "1"], "levelup.crit: must be a whole number from 2 to 20, not 1"),
        (["levelup.crit", "nineteen"], "levelup.crit: must be a whole number from 2 to 20"),
        (["levelup.min", "21"], "levelup.min: must be a whole number from 2 to 20"),
        (["levelup.lucky", "maybe"], "levelup.lucky: must be true or false"),
        (["levelup.group", "all"], "levelup.group: must be one of more-than-half, at-least-half"),
        (["mm.crit-dmg", "max"], "mm.crit-dmg: mm has no crit-dmg house rule"),
        (["pendagger.crit", "19"], "pendagger.crit: pendagger has no crit house rule"),
        (["reglamento.group", "at-least-half"], "reglamento.group: reglamento has no group"),
        (["levelup.frob", "1"], "levelup.frob: unknown key"),
        (["gurps.crit", "19"], "'gurps.crit': unknown key"),
        (["frob", "1"], "'frob': unknown key"),
        (["levelup.crit.x", "1"], "'levelup.crit.x': unknown key"),
        (["levelup", "1"], "levelup: give a house key"),
        (["system", "gurps"], "system: unknown system 'gurps'"),
        (["color", "blue"], "color: must be one of auto, always, never"),
    ],
)
def test_a_bad_key_or_value_is_refused_naming_the_key(args: list[str], message: str) -> None:
    r = runner.invoke(app, ["config", "set", *args])
    assert r.exit_code == 2
    lines = r.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("d20: error: ") and message in lines[0]
    assert "Traceback" not in r.output
    assert not os.path.exists(config_path())  # nothing written


def test_unset_removes_an_unknown_key_to_fix_the_file() -> None:
    write_config('frob = 1\n\n[levelup]\nlucky = "yes"\n')
    r = runner.invoke(app, ["config", "unset", "frob"])
    assert r.exit_code == 0 and "removed frob" in r.stdout
    assert "still has a problem" in r.stderr and "levelup.lucky" in r.stderr
    assert runner.invoke(app, ["config", "set", "levelup.lucky", "true"]).exit_code == 0
    assert load_config().house["levelup"] == {"lucky": True}


def test_a_change_that_would_break_a_good_file_is_not_written() -> None:
    path = write_config("[levelup]\ncrit = 19\n[a5e]\nmin = 10\n")  # a table twice: bad
    r = runner.invoke(app, ["config", "show"])
    assert r.exit_code == 2 and "[levelup]" in r.output and "line 3" in r.output
    path.write_text("[levelup]\ncrit = 19\n", encoding="utf-8")
    config_module._cache.clear()
    assert runner.invoke(app, ["config", "set", "a5e.min", "10"]).exit_code == 0
    assert path.read_text(encoding="utf-8") == "[levelup]\ncrit = 19\nmin = 10\n"


def test_set_on_a_file_that_does_not_parse_changes_nothing() -> None:
    path = write_config('system = "mm\n[levelup]\n')
    r = runner.invoke(app, ["config", "set", "levelup.lucky", "true"])
    assert r.exit_code == 2 and str(path) in r.output and "line 1" in r.output
    assert path.read_text(encoding="utf-8") == 'system = "mm\n[levelup]\n'


def test_a_symlinked_file_is_written_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "d20.toml"
    real.parent.mkdir()
    real.write_text("# mine\n", encoding="utf-8")
    link = Path(config_path())
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert runner.invoke(app, ["config", "set", "levelup.lucky", "true"]).exit_code == 0
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == "# mine\n\n[levelup]\nlucky = true\n"
    assert load_config().house == {"levelup": {"lucky": True}}


# --- a bad file is an error that names the file, the line and the key ----------------------


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('system = "mm\n', "line 1, column 13: illegal character"),
        ("[levelup]\ncrit = 19\ncrit = 18\n", "line 3, column"),
        ('system = "mm"\nfrob = 1\n', "line 2: frob: unknown key"),
        ('[levelup]\ncrit-dmg = "maxx"\n', "line 2: levelup.crit-dmg: must be one of dice"),
        ('[levelup]\ncrit = "19"\n', "line 2: levelup.crit: must be a whole number from 2 to 20"),
        ("[levelup]\ncrit = 1\n", "line 2: levelup.crit: must be a whole number from 2 to 20"),
        ("[levelup]\nlucky = 1\n", "line 2: levelup.lucky: must be true or false, not a number"),
        ('[mm]\ncrit-dmg = "max"\n', "line 2: mm.crit-dmg: mm has no crit-dmg house rule"),
        ("# ok\n\n[gurps]\ncrit = 19\n", "line 3: gurps: unknown key"),
        ('levelup = "max"\n', "line 1: levelup: must be a table of house rules"),
        ("levelup.crit = 25\n", "line 1: levelup.crit: must be a whole number"),
        ("[levelup]\ncrit = 19\n[a5e]\nmin = 10\n", "line 3: a5e: levelup's house rules"),
        ("system = 3\n", "line 1: system: must be a system id in quotes"),
        ('system = "gurps"\n', "line 1: system: unknown system 'gurps'"),
        ('color = "blue"\n', "line 1: color: must be one of auto, always, never"),
        (b'# caf\xe9\nsystem = "mm"\n', "line 1: not UTF-8 text (byte 6)"),
        (b"\n\n" + b"#" * 70_000 + b"\n", "a config file is at most 65,536 bytes"),
    ],
)
def test_a_bad_file_names_the_file_line_and_key(
    text: str | bytes, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(text)
    for args in (
        ["check", "+5", "vs", "15", "--dice", "10"],
        ["check", "+5", "vs", "15", "-s", "reglamento", "--dice", "10"],
        ["odds", "check", "+5", "vs", "15"],
        ["config", "show"],
    ):
        status, out, err = run_main(args, capsys)
        assert status == 2, (args, out)
        assert out == ""
        assert err.startswith("d20: error: ") and str(path) in err and where in err, err
        assert err.count("\n") == 1 and "Traceback" not in err


def test_a_byte_order_mark_at_the_start_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 31, item 18: a config file saved with a UTF-8 byte order mark was "invalid
    statement"; it is read as the same file without the mark (`config set` too)."""
    write_config(b'\xef\xbb\xbfsystem = "mm"\n[levelup]\ncrit = 19\n')
    assert load_config().system == "mm"
    assert load_config().house == {"levelup": {"crit": 19}}
    status, _, err = run_main(["config", "set", "levelup.min", "10"], capsys)
    assert status == 0 and err == "", err
    config_module._cache.clear()
    assert load_config().house == {"levelup": {"crit": 19, "min": 10}}


def test_a_device_or_a_deep_file_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A link to /dev/zero is refused as not a regular file (never read), and TOML nested
    600 deep is an error naming the file, not a RecursionError."""
    path = Path(config_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to("/dev/zero")
    for text, message in ((None, "not a regular file"), ("x = " + "[" * 600, "nested too deeply")):
        if text is not None:
            path.unlink()
            write_config(text + "]" * 600 + "\n")
        status, out, err = run_main(["roll", "d20"], capsys)
        assert status == 2 and out == "" and str(path) in err and message in err, err
        assert err.count("\n") == 1


def test_a_directory_in_the_files_place_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    Path(config_path()).mkdir(parents=True)
    status, _, err = run_main(["check", "+5", "vs", "15", "--dice", "10"], capsys)
    assert status == 2 and "it is a directory, not a file" in err and config_path() in err


def test_stdin_reports_a_bad_file_on_each_line() -> None:
    from d20cli.app.options import Options
    from d20cli.app.stdin import run_lines
    from d20cli.present.output import Output

    write_config("frob = 1\n")
    out, err = io.StringIO(), io.StringIO()
    status = run_lines(["check +1 vs 10\n", "roll 1d6\n"], Options(), Output(out, err, False))
    assert int(status) == 2
    assert err.getvalue().count("frob: unknown key") == 2


def test_odds_lines_read_the_files_system_once_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Odds lines of a batch without --system play the config file's system, read once a
    run as a roll reads it (Context.system_name: issue 43 item 3), not once a line."""
    from d20cli.app.options import Options
    from d20cli.app.stdin import run_lines
    from d20cli.present.output import Output

    write_config('system = "m&m"\n')
    reads = []
    real = config_module.config_system
    monkeypatch.setattr(config_module, "config_system", lambda: reads.append(1) or real())
    out, err = io.StringIO(), io.StringIO()
    lines = ["odds check +4 vs 15\n", "odds check +6 vs 15\n", "odds check +4 vs 15\n"]
    status = run_lines(lines, Options(json=True), Output(out, err, False))
    assert int(status) == 0, err.getvalue()
    printed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [p["system"] for p in printed] == ["mm"] * 3
    assert printed[0] == printed[2] != printed[1]
    assert len(reads) == 1


# --- what beats what ---------------------------------------------------------------------


def test_the_default_system_and_what_beats_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    check = ["check", "+1", "vs", "10", "--dice", "9"]
    assert roll_json(check, capsys)["system"] == "levelup"
    write_config('system = "m&m"\n')
    assert roll_json(check, capsys)["system"] == "mm"
    monkeypatch.setenv("D20_SYSTEM", "reglamento")  # the environment beats the file
    assert roll_json(check, capsys)["system"] == "reglamento"
    assert roll_json([*check, "-s", "levelup"], capsys)["system"] == "levelup"
    monkeypatch.delenv("D20_SYSTEM")
    runner.invoke(app, ["char", "add", "aria", "--system", "reglamento"])
    runner.invoke(app, ["char", "set", "aria", "stealth", "+2"])
    found = roll_json(["check", "stealth", "vs", "10", "--dice", "9", "--as", "aria"], capsys)
    assert found["system"] == "reglamento"  # a character's own system beats the file


def test_config_house_defaults_apply_to_rolls(capsys: pytest.CaptureFixture[str]) -> None:
    write_config('[levelup]\ncrit-dmg = "max"\ncrit = 19\n')
    r = roll_json(["attack", "+7", "vs", "15", "dmg", "1d8+4", "--dice", "19,3"], capsys)
    assert r["house"] == {"crit": 19, "crit-dmg": "max"}
    assert r["damage"] == {
        "total": 15,
        "dice": [{"sides": 8, "face": 3, "kept": True, "role": "damage"}],
        "critical": True,
        "expression": "1d8+8+4",
    }
    # a word on the request beats the file
    r = roll_json(
        [
            "attack",
            "+7",
            "vs",
            "15",
            "dmg",
            "1d8+4",
            "crit-dmg=dice",
            "crit",
            "20",
            "--dice",
            "20,3,5",
        ],
        capsys,
    )
    assert r["house"] == {"crit": 20, "crit-dmg": "dice"}
    assert r["damage"]["expression"] == "2d8+4"  # type: ignore[index]
    # the request text is the one typed: the output says the house rules in `house`
    status, out, _ = run_main(["attack", "+7", "vs", "15", "--dice", "19"], capsys)
    assert status == 0 and out.splitlines()[:3] == [
        "attack +7 vs 15  [levelup]",
        "  d20 19  +7  = 26 vs 15  Critical hit",
        "  19: critical (crit 19-20)",
    ]


def test_a_default_goes_only_where_the_system_takes_the_word(
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_config(
        '[levelup]\ncrit-dmg = "max"\nlucky = true\n'
        "[mm]\ncrit = 19\nlucky = true\nmin = 10\n"
        "[pendagger]\nlucky = true\n"
    )
    # an attack without damage: crit-dmg has nothing to change, and no error
    r = roll_json(["attack", "+7", "vs", "15", "--dice", "1,12"], capsys)
    assert r["house"] == {"lucky": True}
    # mm: crit only on attacks, nothing on a routine check (no die)
    r = roll_json(["check", "+1", "vs", "15", "-s", "mm", "--dice", "3"], capsys)
    assert r["house"] == {"lucky": True, "min": 10} and r["total"] == 11
    r = roll_json(["attack", "+1", "vs", "15", "-s", "mm", "--dice", "19"], capsys)
    assert r["house"] == {"crit": 19, "lucky": True, "min": 10}
    r = roll_json(["routine", "+10", "vs", "20", "-s", "mm"], capsys)
    assert "house" not in r
    r = roll_json(["opposed", "+3", "vs", "+1", "-s", "mm", "--dice", "1,5,12"], capsys)
    assert r["sides"][0]["house"] == {"lucky": True, "min": 10}  # type: ignore[index]
    # pendagger: lucky only (no critical range, no minimum face)
    r = roll_json(["attempt", "adept", "-s", "pendagger", "--dice", "1,15"], capsys)
    assert r["house"] == {"lucky": True} and r["natural"] == 15
    # reglamento has no table here: nothing changes
    assert "house" not in roll_json(["check", "+1", "vs", "15", "-s", "reg", "--dice", "1"], capsys)


def test_group_rule_from_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    group = ["group", "+0, +0", "vs", "10", "--dice", "15,2"]
    assert roll_json(group, capsys)["outcome"] == "failure"
    write_config('[levelup]\ngroup = "at-least-half"\n')
    r = roll_json(group, capsys)
    assert r["outcome"] == "success" and r["house"] == {"group": "at-least-half"}
    r = roll_json([*group[:4], "more-than-half", *group[4:]], capsys)
    assert r["outcome"] == "failure"  # the request's word wins


def test_a_character_beats_the_file_and_the_request_beats_both(
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_config('[levelup]\ncrit-dmg = "max"\nlucky = true\n')
    runner.invoke(app, ["char", "add", "aria", "--system", "levelup"])
    runner.invoke(app, ["char", "set", "aria", "attacks.sword", "+7", "dmg", "1d8+4"])
    r = runner.invoke(app, ["char", "set", "aria", "crit-dmg", "double"])
    assert r.exit_code == 0 and r.stdout.strip() == "aria: crit-dmg = double"
    assert runner.invoke(app, ["char", "set", "aria", "lucky", "false"]).exit_code == 0
    sword = ["attack", "sword", "vs", "15", "--as", "aria"]
    r = roll_json([*sword, "--dice", "20,3"], capsys)
    assert r["house"] == {"crit-dmg": "double"}  # aria's lucky = false beats the file's true
    assert r["damage"]["expression"] == "(1d8+4)*2"  # type: ignore[index]
    r = roll_json([*sword, "crit-dmg=max", "lucky", "--dice", "1,20,3"], capsys)
    assert r["house"] == {"lucky": True, "crit-dmg": "max"}
    assert r["damage"]["expression"] == "1d8+8+4"  # type: ignore[index]


def test_a_character_wide_lucky(capsys: pytest.CaptureFixture[str]) -> None:
    runner.invoke(app, ["char", "add", "aria", "--system", "levelup"])
    runner.invoke(app, ["char", "set", "aria", "stealth", "+7"])
    r = runner.invoke(app, ["char", "set", "aria", "lucky"])
    assert r.exit_code == 0 and r.stdout.strip() == "aria: lucky = true"
    text = (Path(config_path()).parent / "characters.toml").read_text(encoding="utf-8")
    assert "lucky = true\n" in text
    for args, faces, totals in (
        (["check", "stealth", "vs", "15"], "1,12", ["19"]),
        (["save", "+2", "vs", "15"], "1,9", ["11"]),
    ):
        status, out, err = run_main([*args, "--as", "aria", "--dice", faces, "-q"], capsys)
        assert (status, err, out.split()) == (0, "", totals)
    group = roll_json(["group", "+1, +2", "vs", "15", "--as", "aria", "--dice", "1,12,5"], capsys)
    members = group["members"]
    assert isinstance(members, list)  # a reroll's face comes right after its d20
    assert [(m["natural"], m["total"], m["house"]) for m in members] == [
        (12, 13, {"lucky": True}),
        (5, 7, {"lucky": True}),
    ]
    r = roll_json(["check", "stealth", "vs", "15", "--as", "aria", "--dice", "1,14"], capsys)
    assert (r["house"], r["natural"], r["notes"]) == (
        {"lucky": True},
        14,
        ["1 rerolled -> 14 (lucky)"],
    )
    import d20cli  # the library reads a character's house keys too

    lucky = d20cli.roll("check stealth vs 15", character="aria", dice=[1, 14])
    assert (lucky.natural, lucky.detail["house"]) == (14, {"lucky": True})
    chances = d20cli.odds("check stealth vs 15", character="aria")
    assert chances.success == Fraction(13, 20) + Fraction(1, 20) * Fraction(13, 20)
    shown = runner.invoke(app, ["char", "show", "aria", "--json"])
    assert json.loads(shown.stdout)["house"] == {"lucky": True}
    # another character, or none, is not lucky
    assert "house" not in roll_json(["check", "+7", "vs", "15", "--dice", "1"], capsys)
    assert runner.invoke(app, ["char", "unset", "aria", "lucky"]).exit_code == 0
    assert "house" not in roll_json(
        ["check", "stealth", "vs", "15", "--as", "aria", "--dice", "1"], capsys
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["lucky", "maybe"], "lucky: must be true or false"),
        (["crit", "1"], "crit: must be a whole number from 2 to 20, not 1"),
        (["crit"], "crit: must be a whole number from 2 to 20"),
        (["crit-dmg", "triple"], "crit-dmg: must be one of dice, double, max"),
    ],
)
def test_a_bad_character_house_key_is_refused(args: list[str], message: str) -> None:
    runner.invoke(app, ["char", "add", "aria"])
    r = runner.invoke(app, ["char", "set", "aria", *args])
    assert r.exit_code == 2 and message in r.output and r.output.count("\n") == 1


def test_a_bad_house_key_in_the_characters_file_names_the_file_and_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = Path(config_path()).parent / "characters.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[aria]\nstealth = "+7"\nlucky = "often"\n', encoding="utf-8")
    status, _, err = run_main(["check", "stealth", "vs", "15", "--as", "aria"], capsys)
    assert status == 2 and f"{path}: aria.lucky: must be true or false" in err


# --- odds follow the same defaults ---------------------------------------------------------


def odds_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    status, out, err = run_main(["odds", *args, "--json"], capsys)
    assert (status, err) == (0, ""), err
    loaded: dict[str, object] = json.loads(out)
    return loaded


def test_odds_use_the_file_defaults_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    attack = ["attack", "+7", "vs", "15", "dmg", "1d8+4"]
    plain = odds_json(attack, capsys)
    assert Fraction(str(plain["damage_mean"])) == Fraction(23, 4)
    write_config('[levelup]\ncrit-dmg = "max"\nlucky = true\n')
    chances = odds_json(attack, capsys)
    # lucky: a 1 rolls again; hits on 8-20 (13/20 of faces), crits on 20
    hit = Fraction(13, 20) + Fraction(1, 20) * Fraction(13, 20)
    crit = Fraction(1, 20) + Fraction(1, 20) * Fraction(1, 20)
    normal_mean, crit_mean = Fraction(17, 2), Fraction(17, 2) + 8  # 1d8+4; 1d8+8+4
    assert Fraction(str(chances["damage_mean"])) == (hit - crit) * normal_mean + crit * crit_mean
    typed = odds_json([*attack, "crit-dmg=max", "lucky"], capsys)
    assert (chances["odds"], chances["damage_mean"]) == (typed["odds"], typed["damage_mean"])
    check = odds_json(["check", "+5", "vs", "15"], capsys)
    success = Fraction(11, 20) + Fraction(1, 20) * Fraction(11, 20)
    odds = check["odds"]
    assert isinstance(odds, dict)
    assert Fraction(odds["success"]) + Fraction(odds["critical_success"]) == success


def test_odds_compare_dice_and_max_with_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    write_config('[levelup]\ncrit-dmg = "max"\n')
    status, out, err = run_main(
        [
            "odds",
            "compare",
            "attack +7 vs 15 dmg 1d8+4 crit-dmg=dice",
            "attack +7 vs 15 dmg 1d8+4",
            "--json",
        ],
        capsys,
    )
    assert (status, err) == (0, "")
    a, b = json.loads(out)["compare"]
    assert (Fraction(a["damage_mean"]), Fraction(b["damage_mean"])) == (
        Fraction(23, 4),
        Fraction(237, 40),
    )


def test_summary_and_odds_option_follow_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    write_config("[levelup]\nmin = 10\n")
    status, out, _ = run_main(
        ["check", "+0", "vs", "10", "--dice", "3", "--odds", "--json"], capsys
    )
    result = json.loads(out)
    assert status == 0 and result["total"] == 10 and result["success_chance"] == "1/1"
    status, out, _ = run_main(
        ["check", "+0", "vs", "10", "--repeat", "500", "--summary", "--seed", "1", "--json"],
        capsys,
    )
    tally = json.loads(out)  # drawn from the exact odds with min 10: never below 10
    assert status == 0 and set(tally["outcomes"]) == {"success", "critical_success"}
    assert tally["min"] == 10


def test_systems_list_each_systems_house_keys(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(["systems", "--json"], capsys)
    assert status == 0
    keys = {s["id"]: s["house_keys"] for s in json.loads(out)}
    assert keys == {
        "levelup": ["crit", "lucky", "min", "crit-dmg", "group"],
        "reglamento": ["crit", "lucky", "min"],
        "mm": ["crit", "lucky", "min"],
        "pendagger": ["lucky"],
    }
    status, out, _ = run_main(["systems"], capsys)
    assert status == 0
    assert (
        "  house defaults: [pendagger] lucky\n    e.g. d20 config set pendagger.lucky true" in out
    )
    keys = config_module.config_keys()[:4]
    assert keys == ["system", "color", "character", "levelup.crit"]
    r = runner.invoke(app, ["--help"])
    assert "config" in r.stdout


# --- colour ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "env", "wanted"),
    [
        (None, {}, False),
        ("always", {}, True),
        ("never", {}, False),
        ("auto", {}, False),
        ("always", {"NO_COLOR": "1"}, False),  # the environment beats the file
        ("never", {"FORCE_COLOR": "1"}, True),
    ],
)
def test_colour_choice(
    choice: str | None, env: dict[str, str], wanted: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import d20cli.app  # noqa: F401  (registers the file's colour choice)
    from d20cli.present.output import Output, color_wanted

    if choice is not None:
        write_config(f'color = "{choice}"\n')
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert color_wanted(io.StringIO()) is wanted
    assert Output(io.StringIO(), io.StringIO()).color is wanted
    assert color_wanted(io.StringIO(), no_color=True) is False  # --no-color beats all


# --- start-up ----------------------------------------------------------------------------


def test_no_file_imports_no_toml_reader(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from d20cli.__main__ import main\n"
        "status = main(['check', '+1', 'vs', '10', '--dice', '5', '-q'])\n"
        "print(status, 'tomllib' in sys.modules, 'tomlkit' in sys.modules)\n"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "none"), "D20_NO_LOG": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "0 False False"


def test_the_library_reads_no_config_file() -> None:
    import d20cli

    write_config('system = "mm"\n[levelup]\ncrit-dmg = "max"\n')
    result = d20cli.roll("attack +7 vs 15 dmg 1d8+4", dice=[20, 3, 5])
    assert result.system == "levelup" and result.damage is not None
    assert result.damage.expression == "2d8+4"


def test_the_roll_log_keeps_the_house_rules_a_roll_had(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the request's words and from the config file alike; the export says them."""
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    Path(config_path()).parent.mkdir(parents=True, exist_ok=True)
    Path(config_path()).write_text('[levelup]\ncrit-dmg = "max"\n', encoding="utf-8")
    assert main(["attack", "+5", "vs", "15", "crit", "19", "dmg", "1d8", "--dice", "19,3"]) == 0
    assert main(["check", "+1", "vs", "10", "--dice", "4"]) == 0
    capsys.readouterr()
    assert main(["log", "--export", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["house"] for row in rows] == [{"crit": 19, "crit-dmg": "max"}, None]
    assert main(["log", "--export", "csv"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].endswith(",house")
    assert '"{""crit"":19,""crit-dmg"":""max""}"' in text
