"""Characters: the TOML file (round trip with comments, atomic writes, a broken file),
resolving label words and macros, the `d20 char` sub-app, and `as` in the shell."""

from __future__ import annotations

import io
import json
import multiprocessing
from pathlib import Path

import pytest
from cli_helpers import d20, write_sheet
from typer.testing import CliRunner

from d20cli.app.commands.char import app as char_app
from d20cli.app.completion.engine import Names, table
from d20cli.app.options import Options
from d20cli.app.shell import Session, completions
from d20cli.errors import D20Error, ParseError
from d20cli.language.grammar import parse_request
from d20cli.present.output import Output
from d20cli.store import as_character as resolving
from d20cli.store import characters

SHEET = """\
# The party -- keep this comment
[aria]  # the rogue
system = "levelup"
stealth = "+7 expertise=d6"   # expertise!
athletics = "+3"
perception = 4

[aria.saves]
dex = "+7"

[aria.attacks]
longsword = "+5 dmg 1d8+3"

[aria.macros]
sneak = "check stealth vs 15 adv"
stab = "attack longsword vs 12"

# the fighter
[bruno]
system = "mm"
fists = "+8"
"""

runner = CliRunner()


@pytest.fixture
def sheet() -> Path:
    return write_sheet(SHEET)


def test_path_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert characters.characters_path() == tmp_path / "config" / "d20cli" / "characters.toml"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative")
    assert characters.characters_path() == Path.home() / ".config/d20cli/characters.toml"


# --- resolving ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expanded"),
    [
        ("check stealth vs 15", "check stealth +7 expertise=d6 vs 15"),
        ("check Stealth vs 15 adv", "check Stealth +7 expertise=d6 vs 15 adv"),
        ("check perception", "check perception +4"),
        ("attack longsword vs 15", "attack longsword +5 dmg 1d8+3 vs 15"),
        ("save dex vs 14", "save dex +7 vs 14"),
        ("check goblin +3 vs 10", "check goblin +3 vs 10"),  # not an entry, has a modifier
        ("check +5 vs 15", "check +5 vs 15"),
        ("sneak", "check stealth +7 expertise=d6 vs 15 adv"),
        ("sneak dis", "check stealth +7 expertise=d6 vs 15 adv dis"),
        ("stab", "attack longsword +5 dmg 1d8+3 vs 12"),
        (
            "group stealth, athletics adv, +1 vs 12",
            "group stealth +7 expertise=d6, athletics +3 adv, +1 vs 12",
        ),
        ("contest athletics vs goblin +4", "contest athletics +3 vs goblin +4"),
        (
            "contest athletics vs goblin +4 vs perception adv",
            "contest athletics +3 vs goblin +4 vs perception +4 adv",
        ),
        ("opposed +2 vs +1 vs athletics", "opposed +2 vs +1 vs athletics +3"),
        ("roll 1d20+5", "roll 1d20+5"),
    ],
)
def test_resolve(sheet: Path, text: str, expanded: str) -> None:
    """Entries are merged into the parsed request; the request shows the entry's words
    after its label, and parsing that shown text gives the very same request."""
    request, system = resolving.read_through(text, "aria", parse_request)
    assert (request.text, system) == (expanded, "levelup")
    assert request == parse_request(expanded)


def expand(text: str, name: str) -> tuple[str, str | None]:
    """The request text as rolled through the character, and its system."""
    request, system = resolving.read_through(text, name, parse_request)
    return request.text, system


def test_resolved_label_is_the_result_name(sheet: Path) -> None:
    from d20cli.app.run import results_of

    (result,) = results_of("check stealth vs 15", Options(as_="aria", dice=(12, 3)))
    assert result.name == "stealth" and result.total == 12 + 7 + 3
    assert result.request == "check stealth +7 expertise=d6 vs 15"


def test_a_typed_modifier_adds_to_the_entry_on_every_path(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 42 item 1: a modifier typed after an entry's name is a situational bonus
    that adds to the entry's, its words kept, in the text, the JSON and the API."""
    import d20cli

    status, out, err = d20(
        ["check", "stealth", "+2", "vs", "12", "--as", "aria", "--dice", "10,1"], capsys
    )
    assert status == 0, err
    assert out.splitlines()[0] == "check stealth (+7 expertise=d6, aria) +2 vs 12  [levelup]"
    assert "= 20 vs 12" in out  # 10 + 1 (the expertise die) + 7 + 2
    status, out, _ = d20(
        ["check", "athletics", "-1", "vs", "12", "--as", "aria", "--dice", "10", "--json"], capsys
    )
    data = json.loads(out)
    assert (data["total"], data["entry"], data["situational"]) == (12, "+3", "-1")
    attack = d20cli.roll("attack longsword +1 vs 12", character="aria", dice=[10, 4])
    assert attack.total == 16 and attack.detail["situational"] == "+1"
    assert attack.damage is not None and attack.damage.total == 7  # the entry's dmg stays


def test_save_group_is_only_for_saves(sheet: Path) -> None:
    with pytest.raises(ParseError, match="no entry 'dex'"):
        expand("check dex vs 10", "aria")


def test_unknown_entry_names_the_closest_and_its_column(sheet: Path) -> None:
    with pytest.raises(ParseError) as info:
        expand("check stealht vs 15", "aria")
    err = info.value
    assert "aria has no entry 'stealht'; did you mean stealth?" in err.message
    assert err.text == "check stealht vs 15" and err.column == 7


def test_unknown_macro_or_verb(sheet: Path) -> None:
    with pytest.raises(ParseError, match=r"no macro 'snek'.*did you mean sneak") as info:
        expand("snek", "aria")
    assert info.value.column == 1


def test_unknown_character_names_the_closest(sheet: Path) -> None:
    with pytest.raises(ParseError, match="no character 'aira'; did you mean aria"):
        expand("check stealth", "aira")
    assert expand("check fists", "BRUNO") == ("check fists +8", "mm")


def test_no_file_means_no_characters() -> None:
    assert characters.list_characters() == []
    assert characters.names("aria") == []
    with pytest.raises(ParseError, match="no characters yet"):
        expand("check stealth", "aria")


def test_names_for_completion(sheet: Path) -> None:
    assert characters.names("aria") == [
        "stealth",
        "athletics",
        "perception",
        "dex",
        "longsword",
        "sneak",
        "stab",
    ]
    assert characters.names("nobody") == [] and characters.names(None) == []


# --- writing -------------------------------------------------------------------------------


def test_writes_keep_comments_and_layout(sheet: Path) -> None:
    characters.set_entry("aria", "stealth", ["+8", "expertise=d6"])
    characters.set_entry("aria", "acrobatics", "+5")
    characters.set_entry("aria", "saves.dex", "+8")
    characters.set_entry("aria", "macros.hide", "check stealth vs 12")
    characters.set_entry("bruno", "skills.intimidate", "+6")
    characters.add("cleo", "pendagger")
    text = sheet.read_text()
    for kept in ("# The party -- keep this comment", "[aria]  # the rogue", "# expertise!"):
        assert kept in text
    assert 'stealth = "+8 expertise=d6"   # expertise!' in text
    assert text.startswith(SHEET.split("stealth =")[0])
    assert 'perception = 4\nacrobatics = "+5"\n\n[aria.saves]' in text
    assert 'hide = "check stealth vs 12"\n\n# the fighter\n[bruno]' in text
    assert '[aria.saves]\ndex = "+8"' in text
    assert '[bruno.skills]\nintimidate = "+6"' in text
    assert text.rstrip().endswith('[cleo]\nsystem = "pendagger"')
    c = characters.load("aria")
    assert c.entries["acrobatics"] == "+5" and c.macros["hide"] == "check stealth vs 12"
    assert expand("check intimidate", "bruno")[0] == "check intimidate +6"
    assert list(sheet.parent.iterdir()) == [sheet] or {p.name for p in sheet.parent.iterdir()} == {
        "characters.toml",
        "characters.toml.lock",
    }


def test_remove_and_unset(sheet: Path) -> None:
    characters.unset_entry("aria", "macros.stab")
    characters.unset_entry("aria", "dex")
    characters.remove("bruno")
    assert "stab" not in characters.load("aria").macros
    assert characters.load("aria").groups["saves"] == {}
    assert [c.name for c in characters.list_characters()] == ["aria"]
    assert "# The party -- keep this comment" in sheet.read_text()
    with pytest.raises(ParseError, match="no 'nothing'"):
        characters.unset_entry("aria", "nothing")


def test_an_entry_is_one_name_whatever_its_case(sheet: Path) -> None:
    """Issue 42 item 2: `char set bob Stealth +3` wrote a second key that no check read.
    A key is one name whatever its case: set writes the entry check reads, keeping the
    spelling first chosen; a file holding two spellings is an error that gives the fix."""
    assert characters.set_entry("aria", "STEALTH", "+9") == "stealth"
    assert characters.set_entry("aria", "Saves.DEX", "+8") == "saves.dex"
    assert characters.set_entry("aria", "macros.SNEAK", "check stealth vs 12") == "macros.sneak"
    aria = characters.load("aria")
    assert (aria.entries["stealth"], aria.groups["saves"], aria.macros["sneak"]) == (
        "+9",
        {"dex": "+8"},
        "check stealth vs 12",
    )
    assert "STEALTH" not in sheet.read_text() and "# expertise!" in sheet.read_text()
    characters.unset_entry("aria", "Athletics")
    assert "athletics" not in characters.load("aria").entries
    with sheet.open("a", encoding="utf-8") as f:
        f.write('\n[cy]\nstealth = "+1"\nStealth = "+2"\n')
    fix = r"cy has both 'stealth' and 'Stealth'.*keep one \(d20 char unset cy Stealth\)"
    with pytest.raises(ParseError, match=fix):
        characters.load("cy")
    characters.unset_entry("cy", "Stealth")  # the very spelling given, of the two
    assert characters.load("cy").entries == {"stealth": "+1"}


@pytest.mark.parametrize(
    ("key", "words", "message"),
    [
        ("stealth", "+7 vs", "do not read"),
        ("vs", "+1", "cannot name an entry"),
        ("check", "+1", "cannot name an entry"),
        ("macros.check", "check +1", "cannot name a macro"),
        ("macros.hide", "stealth +1", "starts with a verb"),
        ("system", "dnd", "dnd"),
        ("a.b.c", "+1", "ENTRY, GROUP.ENTRY"),
        ("stealth", "", "give the words"),
    ],
)
def test_bad_writes_are_refused(sheet: Path, key: str, words: str, message: str) -> None:
    with pytest.raises(D20Error, match=message):
        characters.set_entry("aria", key, words)
    assert sheet.read_text() == SHEET


def test_add_refuses_a_taken_or_odd_name(sheet: Path) -> None:
    with pytest.raises(ParseError, match="already"):
        characters.add("Aria", "levelup")
    with pytest.raises(ParseError, match="letters, digits"):
        characters.add("two words")
    assert sheet.read_text() == SHEET


def test_a_broken_file_is_reported_with_its_line_and_never_overwritten(sheet: Path) -> None:
    broken = SHEET.replace('athletics = "+3"', "athletics = +3 oops")
    sheet.write_text(broken)
    with pytest.raises(ParseError, match=r"characters.toml: line 5") as info:
        characters.set_entry("aria", "stealth", "+9")
    assert "was not changed" in info.value.message
    with pytest.raises(ParseError, match="line 5"):
        expand("check stealth", "aria")
    assert sheet.read_text() == broken
    assert characters.names("aria") == []  # completion never raises


def test_non_string_values_are_reported(sheet: Path) -> None:
    sheet.write_text("[aria]\nstealth = true\n")
    with pytest.raises(ParseError, match=r"aria\.stealth must be request words"):
        characters.load("aria")


MALFORMED = [
    ("[[aria]]\nstealth = '+1'\n", "aria must be a table ([aria]), not an array of tables"),
    ('aria = "+7"\n', "aria must be a table ([aria]), not a string"),
    ("aria = 5\n", "aria must be a table ([aria]), not a number"),
    ("aria = [1, 2]\n", "aria must be a table ([aria]), not an array"),
    ("[aria]\nmacros = 5\n", "aria.macros must be a table ([aria.macros]), not a number"),
    ("[aria]\nstealth = [1, 2]\n[bob]\n", "aria.stealth must be request words"),
    ("[aria]\n[[aria.saves]]\ndex = '+1'\n", "aria.saves must be request words"),
    ("[aria]\n[aria.saves]\ndex = {a = 1}\n", "aria.saves.dex must be request words"),
    ("[aria]\n[bob]\nborn = 1979-05-27\n", "bob.born must be request words"),
]


def _write(text: str) -> Path:
    path = characters.characters_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
@pytest.mark.parametrize(
    "args", [["set", "aria", "system", "mm"], ["add", "carl"], ["show", "aria"]], ids=" ".join
)
def test_a_malformed_file_is_a_clear_error_naming_the_file_and_the_key(
    args: list[str], text: str, message: str
) -> None:
    """Issue 22: `[[aria]]` or `aria = "+7"` made `d20 char set` an AttributeError. Any
    shape of the file that is not characters is one line naming the file and the key,
    exit status 2, and the file is left as it was."""
    path = _write(text)
    r = runner.invoke(char_app, args)
    assert r.exit_code == 2, r.output
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"d20: error: {path}: ") and message in line, line
    if args[0] != "show":
        assert line.endswith("(fix the file; it was not changed)")
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(("text", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
@pytest.mark.parametrize(
    "args",
    [
        ["set", "aria", "stealth", "+7"],
        ["set", "aria", "saves.dex", "+2"],
        ["set", "aria", "macros.sneak", "check", "stealth", "vs", "15"],
        ["unset", "aria", "stealth"],
        ["unset", "aria", "saves.dex"],
        ["rm", "bob"],
        ["list"],
    ],
    ids=lambda args: " ".join(args[:3]),
)
def test_no_change_to_a_malformed_file_is_a_traceback(
    args: list[str], text: str, message: str
) -> None:
    """Every command on every malformed shape: a one-line error with status 2 and the file
    unchanged, or (when the change itself mends the file) success and a file that reads."""
    path = _write(text)
    r = runner.invoke(char_app, args)
    assert r.exit_code in (0, 2), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    if r.exit_code == 2:
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert path.read_text(encoding="utf-8") == text
    elif args[0] != "list":
        characters.load_all()


def test_a_malformed_character_can_be_removed_and_a_bad_value_replaced() -> None:
    path = _write('aria = "+7"\n[bob]\nfists = "+8"\n')
    assert runner.invoke(char_app, ["rm", "aria"]).exit_code == 0
    assert list(characters.load_all()) == ["bob"]
    path.write_text("[aria]\nstealth = [1, 2]\n", encoding="utf-8")
    assert runner.invoke(char_app, ["set", "aria", "stealth", "+7"]).exit_code == 0
    assert characters.load("aria").entries == {"stealth": "+7"}


def test_a_symlinked_file_is_written_through_the_link(sheet: Path, tmp_path: Path) -> None:
    """A dotfiles set-up: characters.toml is a link to a file kept elsewhere. A write
    changes that file; the link stays a link (it was replaced by a regular file)."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "characters.toml"
    sheet.rename(real)
    sheet.symlink_to(real)
    characters.set_entry("aria", "stealth", "+9")
    assert sheet.is_symlink() and sheet.readlink() == real
    assert 'stealth = "+9"' in real.read_text(encoding="utf-8")
    assert characters.load("aria").entries["stealth"] == "+9"
    assert sorted(p.name for p in dotfiles.iterdir()) == ["characters.toml"]  # no temporary
    sheet.unlink()  # a relative link, from config/d20cli/ to dotfiles/
    sheet.symlink_to(Path("..") / ".." / "dotfiles" / "characters.toml")
    characters.add("carl", "mm")
    assert sheet.is_symlink() and "[carl]" in real.read_text(encoding="utf-8")
    assert sorted(p.name for p in sheet.parent.iterdir()) == [
        "characters.toml",
        "characters.toml.lock",
    ]


def _add_entries(prefix: str) -> None:
    for i in range(15):
        characters.set_entry("aria", f"{prefix}{i}", f"+{i}")


def test_two_writers_lose_no_entry(sheet: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_add_entries, args=(p,)) for p in ("one", "two")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    entries = characters.load("aria").entries
    assert all(f"{p}{i}" in entries for p in ("one", "two") for i in range(15))
    assert "# expertise!" in sheet.read_text()


# --- d20 char -------------------------------------------------------------------------------


def test_char_cli_round_trip() -> None:
    assert runner.invoke(char_app, ["add", "aria", "--system", "a5e"]).exit_code == 0
    r = runner.invoke(char_app, ["set", "aria", "stealth", "+7", "expertise=d6"])
    assert r.exit_code == 0 and "stealth = +7 expertise=d6" in r.stdout
    r = runner.invoke(char_app, ["set", "aria", "saves.dex", "--", "-1"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(char_app, ["set", "aria", "macros.sneak", "check", "stealth", "vs", "15"])
    assert r.exit_code == 0
    r = runner.invoke(char_app, ["show", "aria", "--json"])
    assert json.loads(r.stdout) == {
        "name": "aria",
        "system": "levelup",
        "entries": {"stealth": "+7 expertise=d6"},
        "groups": {"saves": {"dex": "-1"}},
        "macros": {"sneak": "check stealth vs 15"},
    }
    r = runner.invoke(char_app, ["show", "aria", "--no-color"])
    assert r.exit_code == 0
    for word in ("aria", "levelup", "stealth", "+7 expertise=d6", "saves", "macro"):
        assert word in r.stdout
    r = runner.invoke(char_app, ["list"])
    assert r.stdout.splitlines()[1].split()[:2] == ["aria", "levelup"]  # under the header
    assert runner.invoke(char_app, ["unset", "aria", "macros.sneak"]).exit_code == 0
    assert runner.invoke(char_app, ["rm", "aria"]).exit_code == 0
    assert "no characters yet" in runner.invoke(char_app, ["list"]).stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "aira"], "d20: error: no character 'aira'; did you mean aria?"),
        (["set", "aria", "stealth", "+7", "vs"], "do not read"),
        (["add", "aria"], "already a character 'aria'"),
        (["add", "bob", "--system", "gurps"], "gurps"),
        (["rm", "nobody"], "no character 'nobody'"),
    ],
)
def test_char_cli_errors_exit_2_with_one_line(args: list[str], message: str) -> None:
    characters.add("aria", "levelup")
    r = runner.invoke(char_app, args)
    assert r.exit_code == 2
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output


# --- the shell ------------------------------------------------------------------------------


def _session() -> tuple[Session, io.StringIO, io.StringIO]:
    stdout, stderr = io.StringIO(), io.StringIO()
    return Session(Options(), Output(stdout, stderr, color=False)), stdout, stderr


def test_shell_as_sets_shows_and_clears(sheet: Path) -> None:
    s, out, err = _session()
    s.handle("as")
    assert "no character" in out.getvalue()
    s.handle("as bruno")
    assert s.opts.as_ == "bruno" and s.opts.system == "mm"
    assert s.prompt() == "d20 mm bruno> " and "as: bruno" in s.toolbar()
    s.handle("as aria")
    assert s.opts.as_ == "aria" and s.prompt() == "d20 levelup aria> "
    s.handle("as")
    assert "as: aria" in out.getvalue().splitlines()[-1]
    assert s.handle("as arai") == 2
    assert "no character 'arai'; did you mean aria?" in err.getvalue()
    assert s.opts.as_ == "aria"
    s.handle("as -")
    assert s.character is None and s.prompt() == "d20 levelup> "


def test_shell_completes_entries_macros_and_characters() -> None:
    words, names = table(), Names(characters=["aria", "bruno"], default="levelup")
    entries, macros = ["stealth", "athletics"], ["sneak"]
    assert completions("sn", words, names, entries, macros)[1] == ["sneak"]
    assert completions("check st", words, names, entries, macros)[1] == ["stealth"]
    assert "athletics" in completions("group stealth, a", words, names, entries, macros)[1]
    assert completions("roll st", words, names, entries, macros)[1] == []
    assert completions("as ", words, names)[1] == ["aria", "bruno", "-"]
    assert completions("check st", words, names)[1] == []
    # not where a DC or an option's value goes
    assert completions("check +1 vs ", words, names, entries)[1] == ["DC", "dc"]
    assert completions("check --as ", words, names, entries)[1] == ["aria", "bruno"]


def test_a_result_through_a_character_names_it(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON: `character`, as the file spells the name, on each result rolled --as one
    (also through the Python API); it reads back through the one codec."""
    import d20cli
    from d20cli.__main__ import main
    from d20cli.results import Result

    assert main(["check", "stealth", "vs", "15", "--as", "ARIA", "--json", "--dice", "9,2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["character"], data["request"]) == ("aria", "check stealth +7 expertise=d6 vs 15")
    assert Result.from_json(data).character == "aria"
    assert Result.from_json(data).json_text() == json.dumps(data)
    assert d20cli.roll("check stealth vs 15", character="aria", dice=[9, 2]).character == "aria"
    assert main(["check", "+1", "vs", "15", "--json", "--dice", "9"]) == 0
    assert "character" not in json.loads(capsys.readouterr().out)


def test_char_set_takes_negative_numbers_and_options_as_words(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Everything after the key is the value, and a macro's saved options apply."""
    assert d20(["char", "set", "aria", "saves.wis", "-1"], capsys)[1] == "aria: saves.wis = -1\n"
    status, out, _ = d20(
        ["char", "set", "aria", "macros.weak", "check", "-1", "vs", "10", "-n", "2"], capsys
    )
    assert (status, out) == (0, "aria: macros.weak = check -1 vs 10 -n 2\n")
    status, out, _ = d20(["weak", "--as", "aria", "--json", "--dice", "9,12"], capsys)
    assert status == 0 and [json.loads(x)["total"] for x in out.splitlines()] == [8, 11]
    status, out, _ = d20(["weak", "--as", "aria", "-n", "3", "--json", "--dice", "9,12,1"], capsys)
    assert status == 0 and len(out.splitlines()) == 3  # an option given beats the macro's


def test_char_set_by_a_short_name_never_writes_a_verbs_group(
    sheet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`wis` is a new top-level entry even though saves.wis exists (saves.wis is for
    saves only); a short name held by two general groups asks for the full name."""
    assert d20(["char", "set", "aria", "dex", "+2"], capsys)[1] == "aria: dex = +2\n"
    assert 'dex = "+7"' in sheet.read_text()  # saves.dex untouched
    status, out, _ = d20(
        ["check", "dex", "vs", "10", "--as", "aria", "--json", "--dice", "5"], capsys
    )
    assert json.loads(out)["total"] == 7
    characters.set_entry("aria", "skills.arcana", "+1")
    assert d20(["char", "set", "aria", "arcana", "+4"], capsys)[1] == "aria: skills.arcana = +4\n"
    characters.set_entry("aria", "lore.arcana", "+1")
    status, _, err = d20(["char", "set", "aria", "arcana", "+5"], capsys)
    assert status == 2
    assert "aria has 'arcana' in more than one group; give the full name: " in err
    assert "skills.arcana or lore.arcana" in err


def test_macros_take_parameters(sheet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    characters.set_entry("aria", "macros.sneaky", "check stealth vs {dc=15} adv")
    characters.set_entry("aria", "macros.hit", "attack {bonus} vs {ac} dmg 1d8+{bonus}")
    assert expand("sneaky", "aria")[0] == "check stealth +7 expertise=d6 vs 15 adv"
    assert expand("sneaky 18", "aria")[0] == "check stealth +7 expertise=d6 vs 18 adv"
    assert expand("sneaky dc=12 dis", "aria")[0] == "check stealth +7 expertise=d6 vs 12 adv dis"
    assert expand("hit +5 14", "aria")[0] == "attack +5 vs 14 dmg 1d8+5"
    assert expand("hit ac=14 bonus=-2", "aria")[0] == "attack -2 vs 14 dmg 1d8-2"
    with pytest.raises(ParseError, match=r"the macro 'hit' needs bonus, ac: hit bonus=N ac=N"):
        expand("hit", "aria")
    status, _, err = d20(["hit", "14", "--as", "aria"], capsys)
    assert status == 2 and "needs ac: hit ac=N" in err
    status, out, _ = d20(["sneaky", "18", "--as", "aria", "--json", "--dice", "10,3,2"], capsys)
    assert status == 0 and json.loads(out)["target"] == 18


# --- hostile files (issue 31, items 15, 16 and 18) ---------------------------------------

#: The commands that read the characters file: a list, the party, a roll as a character,
#: the party's initiative.
READERS = [["char", "list"], ["party"], ["check", "+1", "--as", "aria"], ["init", "roll"]]


def _hostile_sheet(kind: str) -> Path:
    """The characters file as one of the hostile kinds of `test_a_hostile_file_...`."""
    path = characters.characters_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    elif kind == "deep":  # tomllib recursed until RecursionError
        path.write_text("x = " + "[" * 600 + "]" * 600 + "\n", encoding="utf-8")
    else:  # 5.9 MB with a syntax error at the end: 62 s and 633 MB in tomlkit
        path.write_text('[a]\nb = "+1"\n' * 450_000 + "x = = 1\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("zero", "not a regular file"),
        ("folder", "it is a directory, not a file"),
        ("deep", "not TOML: nested too deeply"),
        (
            "big",
            "cannot read {path}: a characters file is at most 65,536 bytes, "
            "and this one is 5,850,008",
        ),
    ],
)
def test_a_hostile_characters_file_is_one_line_and_exit_2(
    kind: str, message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link to /dev/zero was read until MemoryError, a TOML array 600 deep was a
    RecursionError, and a 5.9 MB file with a syntax error took a minute: each is now
    refused with one line naming the file, before it is read (or parsed) whole."""
    path = _hostile_sheet(kind)
    for args in READERS:
        status, out, err = d20(args, capsys)
        assert status == 2 and out == "", (args, out)
        assert err.startswith(f"d20: error: {'' if kind == 'deep' else 'cannot read '}{path}")
        assert message.format(path=path) in err and err.count("\n") == 1, (args, err)
    monkeypatch.setenv("D20_CHARACTER", "aria")
    status, _, err = d20(["roll", "d20"], capsys)
    assert status == 2 and message.format(path=path) in err


def test_a_fifo_as_the_characters_file_does_not_hang(tmp_path: Path) -> None:
    """A FIFO at the file's place hung `char list` and every roll with D20_CHARACTER set
    (opening it waited for a writer): it is refused as not a regular file. Run as its
    own process, so that a hang fails here instead of hanging the suite."""
    import os
    import subprocess
    import sys

    path = characters.characters_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    env = {**os.environ, "D20_CHARACTER": "aria"}
    for args in (["char", "list"], ["roll", "d20"]):
        run = subprocess.run(
            [sys.executable, "-m", "d20cli", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert run.returncode == 2 and run.stdout == "", run.stderr
        assert run.stderr == f"d20: error: cannot read {path}: not a regular file\n"


def test_a_byte_order_mark_at_the_start_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    """A file saved with a UTF-8 byte order mark (Windows' Notepad) read as TOML was an
    error ("Empty key"); it is read as the same file without the mark, and an edit keeps
    every entry."""
    path = write_sheet("")
    path.write_bytes(b"\xef\xbb\xbf" + SHEET.encode("utf-8"))
    args = ["check", "stealth", "vs", "10", "--as", "aria", "--dice", "9,4"]
    status, out, err = d20(args, capsys)
    assert status == 0 and err == "" and "stealth" in out
    assert [c.name for c in characters.list_characters()] == ["aria", "bruno"]
    assert runner.invoke(char_app, ["set", "bruno", "fists", "+9"]).exit_code == 0
    assert characters.load("aria").lookup("stealth", "check") == "+7 expertise=d6"
    assert characters.load("bruno").lookup("fists", "check") == "+9"


def test_char_list_has_a_header(sheet: Path) -> None:
    """Issue 42 item 12: `char list` printed rows with no header."""
    r = runner.invoke(char_app, ["list"])
    assert r.exit_code == 0
    head, *rows = r.stdout.splitlines()
    assert head.split() == ["character", "system", "entries", "and", "macros"]
    assert [row.split()[0] for row in rows] == ["aria", "bruno"]
