"""Each rule of the four rule texts as written (read a second time in issue 12): the results,
the words the texts use, and output that says why. Every rule with forced dice, boundaries
first."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from brute import every_roll

from d20cli.app.options import Options
from d20cli.app.run import run as run_tokens
from d20cli.app.shell import Session, run_lines_in_session
from d20cli.dice.roller import ForcedRoller
from d20cli.errors import ParseError
from d20cli.language.grammar import parse_request
from d20cli.language.requests import CheckRequest, FortuneRequest, GroupRequest
from d20cli.present.output import Output, plain_text
from d20cli.present.render import render_result
from d20cli.probability.engine import odds_of
from d20cli.results import Result
from d20cli.rules import get_system
from d20cli.rules.levelup import expertise_size
from d20cli.rules.pendagger import RANKS, attempt_level, row_text

ROOT = Path(__file__).resolve().parent.parent


def run(line: str, system: str, *faces: int) -> Result:
    roller = ForcedRoller(faces)
    result = get_system(system).resolve(parse_request(line), roller)
    roller.finish()  # every face was used
    return result


def text_of(result: Result) -> str:
    return "\n".join(plain_text(line) for line in render_result(result))


def d20(*args: str, stdin: str | None = None, env_home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "XDG_STATE_HOME": str(env_home / "state"),
        "XDG_CONFIG_HOME": str(env_home / "config"),
        "XDG_CACHE_HOME": str(env_home / "cache"),
        "NO_COLOR": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )


# --- 1. expertise never depends on word order ------------------------------------------


@pytest.mark.parametrize(
    ("grants", "size"),
    [((8, 4), 8), ((4, 8), 8), ((4, 6), 8), ((6, 4), 8), ((4, 4), 6), ((6, 6, 4), 8)],
)
def test_expertise_starts_from_the_largest_grant(grants: tuple[int, ...], size: int) -> None:
    assert expertise_size(grants) == size


@pytest.mark.parametrize(
    "words", ["expertise expertise=d8", "expertise=d8 expertise", "expertise=d6 expertise"]
)
def test_expertise_word_order_gives_the_same_die(words: str) -> None:
    r = run(f"check +2 vs 15 {words}", "levelup", 10, 7)
    assert [d.sides for d in r.dice] == [20, 8]
    assert r.total == 19


# --- 2. critical damage rolls every dice term twice ------------------------------------


def test_critical_keep_highest_is_rolled_twice_not_eight_dice_keep_three() -> None:
    r = run("attack +7 vs 15 dmg 4d6kh3", "levelup", 20, 6, 6, 6, 1, 5, 5, 5, 1)
    assert r.damage is not None and r.damage.critical
    assert r.damage.expression == "4d6kh3+4d6kh3"
    assert r.damage.total == 18 + 15
    assert [d.kept for d in r.damage.dice] == [True, True, True, False] * 2


@pytest.mark.parametrize(
    ("damage", "doubled"),
    [
        ("1d8+4", "2d8+4"),
        ("2d20kh1", "2d20kh1+2d20kh1"),
        ("6d10>=7", "6d10>=7+6d10>=7"),
        ("1d6!+2", "1d6!+1d6!+2"),
        ("1d8-1d4kh1", "2d8-1d4kh1-1d4kh1"),
        ("2*1d6kh1", "2*(1d6kh1+1d6kh1)"),
    ],
)
def test_critical_damage_expression(damage: str, doubled: str) -> None:
    from d20cli.rules.common import double_dice

    request = parse_request(f"attack +0 vs 10 dmg {damage}")
    assert isinstance(request, CheckRequest) and request.damage is not None
    assert str(double_dice(request.damage)) == doubled


def test_a_critical_is_never_worse_than_the_best_hit() -> None:
    odds = odds_of("attack +7 vs 15 dmg 4d6kh3", "levelup")
    assert odds.damage_distribution is not None
    assert max(odds.damage_distribution) == 36  # 6+6+6 twice: only a critical reaches it


def _damage_brute_force(text: str) -> dict[int, Fraction]:
    system = get_system("levelup")
    request = parse_request(text)
    out: dict[int, Fraction] = {}
    for result, p in every_roll(system, request):
        dmg = result.damage.total if result.damage is not None else 0
        out[dmg] = out.get(dmg, Fraction(0)) + p
    return out


@pytest.mark.parametrize("damage", ["2d4kh1", "1d4+1", "2d3dl1+1d2"])
def test_critical_damage_odds_equal_brute_force(damage: str) -> None:
    text = f"attack +7 vs 15 dmg {damage}"
    assert odds_of(text, "levelup").damage_distribution == _damage_brute_force(text)


# --- 3. one seed, one stream for a batch and a shell -----------------------------------


def test_seed_on_a_batch_starts_one_stream(tmp_path: Path) -> None:
    lines = "roll 1d20\n" * 8
    first = d20("--seed", "7", "-q", "--no-log", stdin=lines, env_home=tmp_path)
    again = d20("--seed", "7", "-q", "--no-log", stdin=lines, env_home=tmp_path)
    faces = first.stdout.split()
    assert len(faces) == 8 and len(set(faces)) > 1  # not the same face eight times
    assert again.stdout == first.stdout  # reproducible run to run


def test_a_lines_own_seed_restarts_the_dice_for_that_line(tmp_path: Path) -> None:
    lines = "roll 1d20 --seed 7\nroll 1d20\nroll 1d20 --seed 7\nroll 1d20\n"
    out = d20("--seed", "7", "-q", "--no-log", stdin=lines, env_home=tmp_path).stdout.split()
    alone = d20("roll", "1d20", "--seed", "7", "-q", "--no-log", env_home=tmp_path).stdout
    assert out[0] == out[2] == alone.strip()
    stream = d20("--seed", "7", "-q", "--no-log", stdin="roll 1d20\n" * 2, env_home=tmp_path)
    assert out[1] == stream.stdout.split()[0] and out[3] == stream.stdout.split()[1]


def test_seed_on_the_shell_starts_one_stream() -> None:
    def session_faces() -> list[str]:
        stdout = io.StringIO()
        session = Session(Options(seed=11, quiet=True, no_log=True), Output(stdout, color=False))
        run_lines_in_session(session, io.StringIO("roll 1d100\n" * 5))
        return stdout.getvalue().split()

    faces = session_faces()
    assert len(set(faces)) > 1 and faces == session_faces()


# --- 4. pendagger reliable with unreliable ---------------------------------------------


@pytest.mark.parametrize(
    ("rank", "face", "level"),
    [
        ("doomed", 20, "major_success"),  # only reliable applies on a 20
        ("legendary", 1, "critical_failure"),  # only unreliable applies on a 1
        ("trained", 10, "normal_success"),  # they cancel on 2-19
        ("adept", 20, "critical_success"),  # critical stays critical
        ("adept", 1, "critical_failure"),  # critical failure stays
    ],
)
def test_reliable_and_unreliable_each_keep_their_exception(
    rank: str, face: int, level: str
) -> None:
    assert attempt_level(face, rank, True, True) == level
    r = run(f"attempt {rank} reliable unreliable", "pendagger", face)
    assert r.outcome == level


# --- 5. --dice faces are counted before anything happens --------------------------------


def test_too_many_dice_faces_print_and_log_nothing(tmp_path: Path) -> None:
    bad = d20("roll", "1d20", "--dice", "5,6", env_home=tmp_path)
    assert bad.returncode == 2 and bad.stdout == ""
    assert "--dice gave 2 faces" in bad.stderr and "Traceback" not in bad.stderr
    assert "no rolls" in d20("log", env_home=tmp_path).stdout


def test_a_fortune_spend_with_a_face_left_over_spends_nothing(tmp_path: Path) -> None:
    pd = ("-s", "pd")
    assert d20("luck", "fortune", "--dice", "20", *pd, env_home=tmp_path).returncode == 0
    assert d20("attempt", "adept", "--dice", "5", *pd, env_home=tmp_path).returncode == 0
    spent = d20("fortune", "spend", "--dice", "12,3", *pd, env_home=tmp_path)
    assert spent.returncode == 2 and spent.stdout == ""
    shown = d20("fortune", "--json", *pd, env_home=tmp_path)
    assert json.loads(shown.stdout)["fortune"] == 1  # the die is still held
    ok = d20("fortune", "spend", "--dice", "12", "--json", *pd, env_home=tmp_path)
    assert json.loads(ok.stdout)["fortune"] == 0


def test_too_few_faces_on_an_attempt_with_fortune_gains_no_die(tmp_path: Path) -> None:
    pd = ("-s", "pd")
    bad = d20("attempt", "adept", "fortune", "adv", "--dice", "20", *pd, env_home=tmp_path)
    assert bad.returncode == 2 and bad.stdout == ""
    assert json.loads(d20("fortune", "--json", *pd, env_home=tmp_path).stdout)["fortune"] == 0


# --- 6. a group without its comma --------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "column", "shown"),
    [
        ("group +3 +5 vs 12", 10, "+3, +5"),
        ("group stealth +3 -1, +2 vs 12", 18, "+3, -1"),
        ("group +1d4 +2 vs 12", 12, "+1d4, +2"),
    ],
)
def test_a_forgotten_comma_in_a_group_is_an_error(line: str, column: int, shown: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_request(line)
    assert caught.value.column == column
    assert "comma is missing" in caught.value.message and shown in caught.value.message


@pytest.mark.parametrize("line", ["group +3, +5 vs 12", "group +3 + 5, +1 vs 12"])
def test_groups_with_their_commas_still_parse(line: str) -> None:
    request = parse_request(line)
    assert isinstance(request, GroupRequest) and len(request.members) == 2


# --- 7. a word with no value is said on stderr -------------------------------------------


def _run(tokens: list[str]) -> tuple[str, str, int]:
    stdout, stderr = io.StringIO(), io.StringIO()
    outcome = run_tokens(tokens, Options(), Output(stdout, stderr, color=False))
    return stdout.getvalue(), stderr.getvalue(), int(outcome.status)


def test_a_label_without_a_value_rolls_and_says_so() -> None:
    out, err, status = _run(["check", "stealth", "vs", "15", "--dice", "12"])
    assert status == 0 and "12 vs 15" in out
    assert "'stealth' has no value here" in err and "+N" in err


@pytest.mark.parametrize(
    "tokens",
    [
        ["check", "stealth", "+3", "vs", "15", "--dice", "12"],
        ["check", "stealth", "vs", "15", "--dice", "12,4"],  # an error: no warning then
    ],
)
def test_no_warning_for_a_valued_label_or_a_bad_request(tokens: list[str]) -> None:
    assert "no value" not in _run(tokens)[1]


# --- words the texts use ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "system", "faces", "kept"),
    [
        ("ADV", "levelup", (4, 15), 15),
        ("Advantage", "reglamento", (4, 15), 15),
        ("DISADV", "reglamento", (4, 15), 4),
        ("disadv", "levelup", (4, 15), 4),
        ("DisAdvantage", "levelup", (4, 15), 4),
    ],
)
def test_advantage_words_in_any_case(
    words: str, system: str, faces: tuple[int, ...], kept: int
) -> None:
    assert run(f"check +1 vs 10 {words}", system, *faces).natural == kept


def test_advantage_and_disadvantage_together_say_they_cancelled() -> None:
    for system, line in (
        ("levelup", "check +1 vs 10 adv dis"),
        ("reglamento", "check +1 vs 10 ADV DISADV"),
        ("pendagger", "attempt adept adv dis"),
    ):
        r = run(line, system, 12)
        assert len(r.dice) == 1
        assert "advantage and disadvantage cancel: one d20" in r.notes


@pytest.mark.parametrize(
    ("line", "target"),
    [("check +3 vs DC 15", 15), ("attack +3 vs AC 15", 15), ("save +1 vs dc 12", 12)],
)
def test_dc_and_ac_before_a_target(line: str, target: int) -> None:
    assert run(line, "levelup", 10).target == target


def test_ac_is_only_for_attacks() -> None:
    with pytest.raises(ParseError) as caught:
        parse_request("check +3 vs AC 15")
    assert "vs DC 15" in caught.value.message and caught.value.column == 13


@pytest.mark.parametrize("minus", ["\u2013", "\u2212"])
def test_a_minus_as_the_texts_print_it(minus: str) -> None:
    r = run(f"check {minus}1 vs 10", "levelup", 11)
    assert (r.modifier, r.total, r.outcome) == (-1, 10, "success")
    roll = run(f"roll d20{minus}4", "levelup", 7)
    assert roll.total == 3


@pytest.mark.parametrize(
    ("line", "dc"),
    [
        ("resist +6 vs rank -1", 9),
        ("check +6 vs defense -2", 8),
        ("check +6 vs parry 6", 16),
        ("attack +6 vs dodge 4", 14),
        ("resist +6 vs fortitude 4", 14),
        ("resist +6 vs Toughness 8", 18),
        ("resist +6 vs will -1", 9),
        ("check +6 vs very easy", 0),
        ("check +6 vs Nigh Impossible", 40),
    ],
)
def test_mm_targets_as_the_text_writes_them(line: str, dc: int) -> None:
    assert run(line, "mm", 10).target == dc


@pytest.mark.parametrize(
    ("words", "added"),
    [
        ("minor-bonus", 2),
        ("minor-penalty", -2),
        ("major bonus", 5),
        ("Major Penalty", -5),
        ("bonus minor penalty major-bonus", 5),
    ],
)
def test_mm_circumstance_words_and_what_they_added(words: str, added: int) -> None:
    r = run(f"check +4 vs 15 {words}", "mm", 10)
    assert r.modifier == 4 + added
    assert r.notes[0] == ", ".join(f"{w} {v:+d}" for w, v in _circumstances(words))


def _circumstances(words: str) -> list[tuple[str, int]]:
    from d20cli.rules.mm import CIRCUMSTANCES

    request = parse_request(f"check +0 {words}")
    assert isinstance(request, CheckRequest)
    return [(w, CIRCUMSTANCES[w]) for w in request.circumstances]


@pytest.mark.parametrize(
    ("line", "rank"),
    [
        ("attempt trained +1 -1", "trained"),
        ("attempt trained +1 +1", "master"),
        ("attempt 14 +1 -3", "novice"),
        ("attempt doomed -1 -1", "doomed"),
        ("attempt master +5 +5", "godlike"),
    ],
)
def test_pendagger_rank_adjustments_add_up(line: str, rank: str) -> None:
    assert run(line, "pendagger", 10).detail["rank"] == rank


@pytest.mark.parametrize(
    ("use", "word"), [("", "reroll"), (" reroll", "reroll"), (" hint", "hint")]
)
def test_fortune_spend_names_its_use(use: str, word: str) -> None:
    request = parse_request(f"fortune spend{use}")
    assert isinstance(request, FortuneRequest) and (request.action, request.use) == ("spend", word)


def test_fortune_spent_on_a_hint_escape_or_value(tmp_path: Path) -> None:
    pd = ("-s", "pd", "--json")
    for _ in range(2):
        d20("luck", "fortune", "--dice", "20", *pd, env_home=tmp_path)
    hint = json.loads(d20("fortune", "spend", "hint", *pd, env_home=tmp_path).stdout)
    assert (hint["use"], hint["fortune"], hint["fortune_spent"]) == ("hint", 1, 1)
    value = json.loads(d20("fortune", "spend", "value", *pd, env_home=tmp_path).stdout)
    assert value["fortune"] == 0
    none = d20("fortune", "spend", "escape", "-s", "pd", env_home=tmp_path)
    assert none.returncode == 2 and "no fortune die held" in none.stderr


# --- output that says why ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "faces", "note"),
    [
        ("save +14 vs 12", (1,), "natural 1: a save always fails"),
        ("save +0 vs 25", (20,), "natural 20: a critical save, a success whatever the DC"),
        ("attack +0 vs 25", (20,), "natural 20: a critical hit whatever the AC"),
        ("attack +20 vs 12", (1,), "natural 1: a fumble, always a miss"),
        ("check +0 vs 25", (20,), "natural 20 below the DC: a plain failure"),
    ],
)
def test_levelup_says_when_a_natural_decided(line: str, faces: tuple[int, ...], note: str) -> None:
    assert note in run(line, "levelup", *faces).notes


def test_mm_natural_1_attack_says_it_always_misses() -> None:
    r = run("attack +20 vs 12", "mm", 1)
    assert r.success is False and "natural 1: an attack always misses" in r.notes


def test_pendagger_shows_score_rank_and_adjusted_rank_with_the_clamp() -> None:
    text = text_of(run("attempt 30 +2 reliable", "pendagger", 9))
    assert "score 30 -> godlike, +2 -> godlike (godlike is the top of the ladder)" in text
    assert "reliable: normal success -> major success" in text
    text = text_of(run("attempt hopeless -3", "pendagger", 12))
    assert "hopeless -3 -> doomed (doomed is the bottom of the ladder)" in text


def test_pendagger_says_which_step_reliability_took() -> None:
    text = text_of(run("attempt doomed reliable unreliable", "pendagger", 20))
    assert "on a 20 only reliable applies: normal success -> major success" in text
    text = text_of(run("attempt legendary reliable unreliable", "pendagger", 1))
    assert "on a 1 only unreliable applies: failure -> critical failure" in text


@pytest.mark.parametrize("rank", RANKS)
def test_success_table_rows_fit_80_columns(rank: str) -> None:
    r = run(f"attempt {rank}", "pendagger", 10)
    row = [line for line in text_of(r).splitlines() if line.startswith(f"  {rank}: ")]
    assert len(row) == 1 and len(row[0]) <= 80
    assert "20-20" not in row[0] and " -," not in row[0] and not row[0].endswith(" -")
    for level, faces in row_text(rank).items():
        if faces == "-":
            assert level.split("_")[0] not in row[0].split(": ", 1)[1]


def test_d20_shell_takes_a_seed_for_the_session(tmp_path: Path) -> None:
    lines = "roll 1d20\nroll 1d20\n"
    first = d20("shell", "--seed", "7", stdin=lines, env_home=tmp_path)
    assert first.returncode == 0
    faces = [line.split()[-1] for line in first.stdout.splitlines() if "= " in line]
    batch = d20("--seed", "7", "-q", "--no-log", stdin=lines, env_home=tmp_path).stdout.split()
    assert faces == batch and len(set(faces)) > 1
