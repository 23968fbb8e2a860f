"""Roll tables (issue 16, part 1): the files, rolling them on the command line, standard
input and the shell, `table list/show/check`, the exact odds (checked against brute
force), and hostile files."""

from __future__ import annotations

import io
import json
import os
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from d20cli.__main__ import main
from d20cli.app.options import Options
from d20cli.app.shell import Session, run_lines_in_session
from d20cli.app.stdin import run_lines
from d20cli.dice.roller import ForcedRoller, Roller
from d20cli.language.tables import read_table
from d20cli.present.output import Output
from d20cli.probability.tables import table_odds
from d20cli.rules import get_system
from d20cli.rules.tables import roll_table
from d20cli.store.tables import load

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "tables"

LOOT = """\
# the den's loot
die = "1d6"
title = "A goblin den"

[entries]
"1-3" = "{1d4+2} goblins"
"4-5" = "a chest: {table:chest}"
6 = "a trap! {check +5 vs 15}"
"""

CHEST = """\
[[entry]]
weight = 2
text = "{2d4} coins"

[[entry]]
weight = 1
text = "nothing"
"""


@pytest.fixture
def tables_dir(tmp_path: Path) -> Path:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "d20cli" / "tables"
    folder.mkdir(parents=True)
    (folder / "loot.toml").write_text(LOOT, encoding="utf-8")
    (folder / "chest.toml").write_text(CHEST, encoding="utf-8")
    return folder


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- the file ---------------------------------------------------------------------------


def test_both_forms_are_read_with_their_lines() -> None:
    table, problems = read_table(LOOT, "loot", "loot.toml")
    assert problems == [] and table is not None
    assert [(e.key, e.lo, e.hi, e.line) for e in table.entries] == [
        ("1-3", 1, 3, 6),
        ("4-5", 4, 5, 7),
        ("6", 6, 6, 8),
    ]
    assert [p.kind for p in table.entries[2].parts] == ["text", "request"]
    chest, problems = read_table(CHEST, "chest", "chest.toml")
    assert problems == [] and chest is not None
    assert chest.weighted and chest.die == "1d3"
    assert [(e.key, e.weight, e.line) for e in chest.entries] == [("1-2", 2, 1), ("3", 1, 5)]


def test_gaps_overlaps_unreachable_and_outside_the_die() -> None:
    text = 'die = "1d6*2"\n[entries]\n"2-4" = "a"\n"4-6" = "b"\n"3" = "c"\n"14" = "d"\n'
    _, problems = read_table(text, "t", "t.toml")
    messages = {(p.line, p.message) for p in problems}
    assert (4, "entry '4-6' overlaps entry '2-4'") in messages
    assert (5, "entry '3' is unreachable: 1d6*2 never shows that total") in messages
    assert (6, "entry '14' is outside the die 1d6*2 (2-12)") in messages
    assert (None, "a gap: no entry for 8-12 (which 1d6*2 can show)") in messages
    assert all(str(p).startswith("t.toml") for p in problems)


# -- rolling ----------------------------------------------------------------------------


def test_a_roll_shows_the_die_the_entry_and_every_nested_roll(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --dice: the table's die (4), the chest's 1d3 (1), then its 2d4 (3, 4)
    status, out, err = run(["table", "loot", "--dice", "4,1,3,4", "--no-color"], capsys)
    assert status == 0, err
    assert out.splitlines() == [
        "table loot  [levelup]",
        "  a chest: 7 coins",
        "  1d6 (4)  = 4 \u2192 entry 4-5",
        "    table chest: 1d3 (1)  = 1 \u2192 entry 1-2: 7 coins",
        "      2d4 (3 4)  = 7",
    ]


def test_json_has_one_object_per_roll_with_the_documented_fields(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(
        ["table", "loot", "--dice", "4,1,3,4,2,1", "--repeat", "2", "--json"], capsys
    )
    assert status == 0
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["verb"] == "table" and first["table"] == "loot"
    assert (first["die"], first["roll"], first["entry"]) == ("1d6", 4, "4-5")
    assert first["text"] == "a chest: 7 coins"
    assert [d["face"] for d in first["dice"]] == [4, 1, 3, 4]
    [chest] = first["nested"]
    assert chest["kind"] == "table" and chest["table"] == "chest" and chest["roll"] == 1
    assert chest["nested"] == [
        {
            "kind": "dice",
            "expression": "2d4",
            "total": 7,
            "text": "7",
            "dice": [
                {"sides": 4, "face": 3, "kept": True, "role": "roll"},
                {"sides": 4, "face": 4, "kept": True, "role": "roll"},
            ],
        }
    ]
    assert second["text"] == "3 goblins" and second["nested"][0]["total"] == 3


def test_a_request_in_an_entry_uses_the_tables_system(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tables_dir / "hero.toml").write_text(
        'die = "1d2"\nsystem = "mm"\n[entries]\n"1-2" = "{check +5 vs 15}"\n', encoding="utf-8"
    )
    status, out, _ = run(["table", "hero", "--dice", "1,12", "--json"], capsys)
    assert status == 0
    result = json.loads(out)
    assert result["system"] == "mm"
    [request] = result["nested"]
    assert request["kind"] == "request" and request["result"]["system"] == "mm"
    assert request["result"]["total"] == 17
    assert result["text"].startswith("17 (")
    # without a system key: the run's system (levelup by default)
    status, out, _ = run(["table", "loot", "--dice", "6,20", "--json"], capsys)
    assert json.loads(out)["nested"][0]["result"]["system"] == "levelup"


def test_dice_faces_too_few_or_too_many_show_nothing(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(["table", "loot", "--dice", "4,1"], capsys)
    assert status == 2 and out == ""
    assert "--dice gave 2 face(s) but the request needs more" in err
    status, out, err = run(["table", "loot", "--dice", "1,2,3"], capsys)
    assert status == 2 and out == "" and "used only 2" in err


def test_seed_repeat_and_quiet(tables_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = run(["table", "loot", "--seed", "11", "--repeat", "20", "-q"], capsys)
    again = run(["table", "loot", "--seed", "11", "--repeat", "20", "-q"], capsys)
    assert first == again and first[0] == 0
    lines = first[1].splitlines()
    assert len(lines) == 20 and all(line and "{" not in line for line in lines)


def test_a_file_path_and_references_beside_it(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        ["table", str(EXAMPLES / "road.toml"), "--dice", "1,1,1,4,3", "-q"], capsys
    )
    assert status == 0, err
    assert out == "a burned-out wagon; in the ashes, 7 copper coins\n"


def test_standard_input_and_the_shell_take_table_lines(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = io.StringIO(), io.StringIO()
    lines = ["table loot --dice 2,1\n", "table nothing\n", "odds table chest --json\n"]
    status = run_lines(lines, Options(quiet=True), Output(out, err, color=False))
    assert int(status) == 2
    assert out.getvalue().splitlines()[0] == "3 goblins"
    assert json.loads(out.getvalue().splitlines()[1])["table"] == "chest"
    assert "error at line 2: no table 'nothing'" in err.getvalue()
    stdout, stderr = io.StringIO(), io.StringIO()
    session = Session(Options(), Output(stdout, stderr, color=False))
    status = run_lines_in_session(session, io.StringIO("table loot --dice 3,4 -q\nquit\n"))
    assert status == 0 and stdout.getvalue() == "6 goblins\n"


def test_list_show_and_check(tables_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["table", "list", "--no-color"], capsys)
    assert status == 0
    assert out.splitlines() == ["chest  1d3", "loot   1d6     A goblin den"]
    status, out, _ = run(["table", "show", "loot", "--no-color"], capsys)
    assert status == 0 and "  4-5  a chest: {table:chest}" in out.splitlines()
    status, out, _ = run(["table", "check", str(tables_dir / "loot.toml")], capsys)
    assert status == 0 and out.endswith("loot.toml: ok (3 entries, 1d6)\n")
    bad = tables_dir / "bad.toml"
    bad.write_text('die = "1d6"\n[entries]\n"1-3" = "{table:nowhere}"\n"3-5" = "{1d}"\n')
    status, out, err = run(["table", "check", str(bad)], capsys)
    assert status == 2 and out == ""
    assert err.splitlines() == [
        f"d20: error: {bad}: a gap: no entry for 6 (which 1d6 can show)",
        f"d20: error: {bad} line 3: entry '1-3': no table 'nowhere'",
        f"d20: error: {bad} line 4: entry '3-5' overlaps entry '1-3'",
        f"d20: error: {bad} line 4: entry '3-5': {{1d}}: expected a number of sides after 'd', "
        "found the end",
    ]
    status, _, err = run(["table", "bad"], capsys)  # rolling refuses a table with problems
    assert status == 2 and err.count("\n") == 1 and "a gap" in err


def test_control_characters_and_markup_from_a_file_are_shown_as_text(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tables_dir / "ctrl.toml").write_text(
        'die = "1d1"\n[entries]\n1 = "\\u001b]0;owned\\u0007 [bold red]x[/] \\u202e"\n',
        encoding="utf-8",
    )
    status, out, _ = run(["table", "ctrl", "--dice", "1"], capsys)
    assert status == 0
    assert "\x1b" not in out and "\u202e" not in out
    assert "\\x1b]0;owned\\x07 [bold red]x[/] \\u202e" in out


# -- odds -------------------------------------------------------------------------------


class PathRoller(Roller):
    """Hands out the faces of one path through every roll; `advance` moves to the next
    path (an odometer over the faces each roll could show), so every way a roll can go
    is visited once, with its probability: brute force."""

    def __init__(self) -> None:
        super().__init__(budget=10_000)
        self.path: list[int] = []
        self.ranges: list[tuple[int, int]] = []
        self.used = 0

    def start(self) -> None:
        self.used = 0
        self.count = 0
        self.ranges = []

    def _draw(self, lo: int, hi: int) -> int:
        if self.used == len(self.path):
            self.path.append(lo)
        self.ranges.append((lo, hi))
        face = self.path[self.used]
        self.used += 1
        return face

    def chance(self) -> Fraction:
        p = Fraction(1)
        for lo, hi in self.ranges:
            p /= hi - lo + 1
        return p

    def advance(self) -> bool:
        del self.path[self.used :]
        while self.path:
            hi = self.ranges[len(self.path) - 1][1]
            if self.path[-1] < hi:
                self.path[-1] += 1
                return True
            self.path.pop()
        return False


def test_nested_odds_agree_with_brute_force(tables_dir: Path) -> None:
    root, tables = load("loot")
    system = get_system("levelup")
    odds = table_odds(root, tables, lambda key: "levelup")
    entry_p: dict[str, Fraction] = defaultdict(Fraction)
    goblins: dict[int, Fraction] = defaultdict(Fraction)
    chest_p: dict[str, Fraction] = defaultdict(Fraction)
    coins: dict[int, Fraction] = defaultdict(Fraction)
    outcomes: dict[str, Fraction] = defaultdict(Fraction)
    roller = PathRoller()
    paths = 0
    while True:
        roller.start()
        result = roll_table(root, tables, roller, lambda key: system, "table loot")
        p = roller.chance()
        paths += 1
        detail = result.detail
        entry_p[detail["entry"]] += p
        nested = detail["nested"][0]
        if detail["entry"] == "1-3":
            goblins[nested["total"]] += p
        elif detail["entry"] == "4-5":
            chest_p[nested["entry"]] += p
            if nested["nested"]:
                coins[nested["nested"][0]["total"]] += p
        else:
            outcomes[nested["result"]["outcome"]] += p
        if not roller.advance():
            break
    assert paths > 50
    assert sum(entry_p.values()) == 1
    by_key = {e.key: e for e in odds.entries}
    assert {k: e.chance for k, e in by_key.items()} == dict(entry_p)
    # `{1d4+2} goblins`: how likely 6 goblins are, given the entry and in all
    [gob] = by_key["1-3"].rolls
    assert {t: p * by_key["1-3"].chance for t, p in gob.totals.items()} == dict(goblins)
    assert goblins[6] == Fraction(1, 8)
    [chest_roll] = by_key["4-5"].rolls
    assert chest_roll.table is not None
    chest = {e.key: e for e in chest_roll.table.entries}
    assert {k: e.overall for k, e in chest.items()} == dict(chest_p)
    [coin_roll] = chest["1-2"].rolls
    assert {t: p * chest["1-2"].overall for t, p in coin_roll.totals.items()} == dict(coins)
    [check] = by_key["6"].rolls
    assert {o: p * by_key["6"].chance for o, p in check.outcomes.items()} == {
        o: p for o, p in outcomes.items()
    }


def test_odds_table_on_the_command_line(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(["odds", "table", "loot", "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    assert [(e["entry"], e["chance"]) for e in data["entries"]] == [
        ("1-3", "1/2"),
        ("4-5", "1/3"),
        ("6", "1/6"),
    ]
    six = [t for t in data["entries"][0]["nested"][0]["totals"] if t["total"] == 6]
    assert six == [
        {
            "total": 6,
            "chance": "1/4",
            "chance_decimal": 0.25,
            "overall": "1/8",
            "overall_decimal": 0.125,
        }
    ]
    status, out, _ = run(["odds", "table", "loot", "--no-color"], capsys)
    assert status == 0 and "  1-3   50.00%  {1d4+2} goblins" in out.splitlines()


# -- hostile files ----------------------------------------------------------------------


def _hostile(folder: Path) -> dict[str, tuple[bytes, str]]:
    entries = "".join(f'{i} = "e"\n' for i in range(1, 10_001))
    return {
        "cycle_a": (b'die = "1d2"\n[entries]\n1 = "{table:cycle_b}"\n2 = "x"\n', "a cycle: "),
        "cycle_b": (b'die = "1d2"\n[entries]\n1 = "{table:cycle_a}"\n2 = "x"\n', "a cycle: "),
        "self": (b'die = "1d1"\n[entries]\n1 = "{table:self}"\n', "a cycle: self -> self"),
        "weights": (b"[[entry]]\nweight = 99999999999999\ntext = 'a'\n", "weight must be from 1"),
        "sum": (b"[[entry]]\nweight = 900000\ntext = 'a'\n" * 2, "weights add up to more"),
        "many": (f'die = "1d10000"\n[entries]\n{entries}'.encode(), "10,000 entries"),
        "utf8": (
            b'die = "1d1"\n[entries]\n1 = "\xff"\n',
            "utf8.toml, line 3: not UTF-8 text (byte 28)",
        ),
        "huge": (b"#" + b"x" * 1_000_000 + b"\n", "a table file is at most 262,144 bytes"),
        "deep": (b"a = " + b"[" * 50_000 + b"]" * 50_000 + b"\n", "nested too deeply"),
        "parens": (
            b'die = "1d1"\n[entries]\n1 = "{' + b"(" * 500 + b"1" + b")" * 500 + b'}"\n',
            "parentheses nest more than 100 levels deep",
        ),
        "fan": (
            b'die = "1d1"\n[entries]\n1 = "' + b"{table:fan2}" * 20 + b'"\n',
            "could make more than 1,000 rolls",
        ),
        "fan2": (b'die = "1d1"\n[entries]\n1 = "' + b"{table:fan3}" * 20 + b'"\n', ""),
        "fan3": (b'die = "1d1"\n[entries]\n1 = "' + b"{1d6}" * 20 + b'"\n', ""),
        "chain0": (b'die = "1d1"\n[entries]\n1 = "{table:chain1}"\n', "nest more than 12 deep"),
        **{
            f"chain{i}": (f'die = "1d1"\n[entries]\n1 = "{{table:chain{i + 1}}}"\n'.encode(), "")
            for i in range(1, 30)
        },
    }


def test_hostile_files_end_in_one_clear_line(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _hostile(tables_dir)
    for name, (data, _) in files.items():
        (tables_dir / f"{name}.toml").write_bytes(data)
    for name, (_, message) in files.items():
        if not message:
            continue
        for args in (["table", name], ["odds", "table", name], ["table", "check", name]):
            status, out, err = run(args, capsys)
            assert status == 2, (name, args)
            assert out == "" and "Traceback" not in err
            assert message in err, (name, err)
            assert len(err.splitlines()) == 1 and ".toml" in err, err  # the file it is about


def test_a_fifo_or_a_folder_is_not_read(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tables_dir / "pipe.toml")
    (tables_dir / "folder.toml").mkdir()
    for name, says in (("pipe", "not a regular file"), ("folder", "a directory, not a file")):
        status, _, err = run(["table", name], capsys)
        assert status == 2 and says in err


# -- properties -------------------------------------------------------------------------


@given(st.lists(st.integers(1, 50), min_size=1, max_size=12), st.data())
def test_a_weighted_table_is_a_die_of_its_weights(weights: list[int], data: st.DataObject) -> None:
    text = "".join(f'[[entry]]\nweight = {w}\ntext = "entry {i}"\n' for i, w in enumerate(weights))
    table, problems = read_table(text, "w", "w.toml")
    assert table is not None and problems == []
    assert table.die == f"1d{sum(weights)}"
    odds = table_odds("w", {"w": table}, lambda key: "levelup")
    assert [e.chance for e in odds.entries] == [Fraction(w, sum(weights)) for w in weights]
    face = data.draw(st.integers(1, sum(weights)))
    result = roll_table(
        "w", {"w": table}, ForcedRoller([face]), lambda k: get_system("levelup"), "t"
    )
    index = next(i for i in range(len(weights)) if face <= sum(weights[: i + 1]))
    assert result.detail["text"] == f"entry {index}"


@given(st.integers(1, 6), st.integers(1, 6))
def test_a_ranged_table_picks_the_entry_its_total_falls_in(a: int, b: int) -> None:
    text = 'die = "2d6"\n[entries]\n"2-6" = "low"\n"7" = "seven"\n"8-12" = "high"\n'
    table, problems = read_table(text, "r", "r.toml")
    assert table is not None and problems == []
    result = roll_table("r", {"r": table}, ForcedRoller([a, b]), lambda k: get_system("mm"), "t")
    assert result.total == a + b
    assert result.detail["text"] == ("low" if a + b < 7 else "seven" if a + b == 7 else "high")
    assert result.system == "mm"


def test_braces_nest_for_groups_and_the_system_option_applies(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tables_dir / "group.toml").write_text(
        'die = "1d1"\n[entries]\n1 = "best of {{2d6,1d12}kh1}: {check +1 vs 10}"\n',
        encoding="utf-8",
    )
    status, out, err = run(
        ["table", "group", "--dice", "1,3,4,9,12", "--system", "mm", "--json"], capsys
    )
    assert status == 0, err
    result = json.loads(out)
    assert result["system"] == "mm" and result["nested"][1]["result"]["system"] == "mm"
    assert result["text"].startswith("best of 9: 13 (")


def test_many_dice_in_an_entry_are_summarised_as_a_roll_of_many_dice_is(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tables_dir / "ants.toml").write_text(
        'die = "1d1"\n[entries]\n1 = "{5000d6} ants"\n', encoding="utf-8"
    )
    status, out, _ = run(["table", "ants", "--seed", "1", "--json"], capsys)
    assert status == 0
    result = json.loads(out)
    assert result["dice"] == [] and result["dice_summary"]["count"] == 5001
    [ants] = result["nested"]
    assert ants["dice"] == [] and ants["dice_summary"]["count"] == 5000
    assert result["text"] == f"{ants['total']} ants"
    status, out, _ = run(["table", "ants", "--seed", "1", "--no-color"], capsys)
    assert status == 0 and "5000d6 (5,000 dice (d6), 5,000 kept; faces: 1\u00d7" in out


def test_help_and_a_broken_table_in_the_list(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from typer.testing import CliRunner

    from d20cli.app.cli import app

    result = CliRunner().invoke(app, ["table", "--help"])
    assert result.exit_code == 0
    assert "the table's die, then each roll in the entry" in " ".join(result.output.split())
    (tables_dir / "broken.toml").write_text("die = \n", encoding="utf-8")
    status, out, _ = run(["table", "list", "--json"], capsys)
    assert status == 0
    rows = {row["table"]: row for row in json.loads(out)["tables"]}
    assert rows["loot"] == {"table": "loot", "die": "1d6", "title": "A goblin den"}
    assert rows["broken"]["die"] is None and "not valid TOML" in rows["broken"]["title"]


def test_what_a_command_prints_is_bounded_by_its_work(
    tables_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tables_dir / "long.toml").write_text(
        'die = "1d1"\n[entries]\n1 = "' + "x" * 1900 + '"\n', encoding="utf-8"
    )
    status, out, err = run(["table", "long", "--repeat", "1000", "--work", "1000", "-q"], capsys)
    assert status == 2 and "printed more than 100,000 characters" in err
    assert 100_000 < len(out) < 110_000
