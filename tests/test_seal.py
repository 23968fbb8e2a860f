"""Sealed sessions (issue 16, part 2): `d20 seal`, rolls of every kind from the session's
seed, `d20 unseal`, `d20 log --export json` and `d20 verify`; a tampered export, a wrong
seed and hostile files rejected; options that would make a session unverifiable refused.

Every test runs in the isolated home of tests/conftest.py, with the roll log on."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from d20cli.__main__ import main
from d20cli.app.cli import app
from d20cli.dice.sealed import commitment, dice_key, position_random, read_secret, secret_text
from d20cli.store.files import MAX_EXPORT_BYTES
from d20cli.store.sealing import GENESIS, canonical, row_hash
from tests.cli_helpers import write_sheet
from tests.state_helpers import close_opened

runner = CliRunner()

SHEET = """
[aria]
system = "levelup"
lucky = true
stealth = "+7 expertise=d6"

[aria.attacks]
longsword = "+5 dmg 1d8+3"

[aria.macros]
sneak = "check stealth vs 15 adv"

[bob]
system = "levelup"
stealth = "+2"
"""


@pytest.fixture(autouse=True)
def _logging(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    yield
    close_opened()


def d20(args: list[str], stdin: str | None = None) -> Any:
    return runner.invoke(app, args, input=stdin)


def seal() -> str:
    result = d20(["seal", "--json"])
    assert result.exit_code == 0, result.output
    promise: str = json.loads(result.stdout)["commitment"]
    return promise


def unseal() -> dict[str, Any]:
    result = d20(["unseal", "--json"])
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def export() -> list[dict[str, Any]]:
    result = d20(["log", "--export", "json"])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def write(tmp_path: Path, rows: Any, name: str = "rolls.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(rows), encoding="utf-8")
    return str(path)


def verify(path: str, seed: str, *extra: str) -> Any:
    """`d20 verify` with a line for every row (--rows), as these tests read them."""
    return d20(["verify", path, seed, "--rows", *extra])


def rechain(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with a hash chain made again (as a forger who edits them would)."""
    prev = GENESIS
    for row in rows:
        row["prev_hash"] = prev
        row["hash"] = prev = row_hash(row)
    return rows


@pytest.fixture
def session(tmp_path: Path) -> tuple[list[dict[str, Any]], str, str]:
    """A sealed session of rolls of several verbs, as a character, with house rules, in
    several systems and from a batch on standard input: its export, seed and
    commitment."""
    write_sheet(SHEET)
    assert d20(["config", "set", "levelup.crit", "19"]).exit_code == 0
    assert d20(["roll", "1d6"]).exit_code == 0  # before the session: not one of its rolls
    promise = seal()
    for args in (
        ["check", "stealth", "vs", "15", "--as", "aria"],
        ["attack", "longsword", "vs", "14", "--as", "aria"],
        ["group", "stealth", "vs", "12", "--as", "aria,bob"],
        ["check", "+5", "vs", "15", "-s", "mm"],
        ["luck", "-s", "pendagger"],
        ["roll", "1d20+5; 2d6", "-n", "2"],
        ["roll", "4d6kh3", "-n", "3", "--summary"],
    ):
        result = d20(args)
        assert result.exit_code == 0, (args, result.output)
    assert main(["sneak", "--as", "aria"]) == 0  # a macro: the entry point's fast path
    batch = d20([], stdin="check +1 vs 10 adv\nroll 3x 1d6\ncheck +2 vs 12 -s reglamento\n")
    assert batch.exit_code == 0, batch.output
    done = unseal()
    rows = export()
    assert done["commitment"] == promise
    assert done["rolls"] == sum(1 for r in rows if r["session"] is not None) == 18
    return rows, done["seed"], promise


def test_a_sealed_session_verifies(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, promise = session
    sealed = [r for r in rows if r["session"] is not None]
    assert [r["position"] for r in sealed] == list(range(18))
    assert {r["commitment"] for r in sealed} == {promise}
    assert rows[0]["session"] is None and rows[0]["replay"] is None  # rolled before it
    path = write(tmp_path, rows)
    result = verify(path, seed)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "row 1 (id 1): not a roll of this session, not checked"
    assert lines[1] == "row 2 (id 2, position 0): ok"
    assert lines[-1].startswith("verified: 18 rolls of session 1, every one as the seed gives")
    report = json.loads(verify(path, seed, "--json").stdout)
    assert report["verified"] is True and report["rolls"] == 18
    assert report["commitment"] == promise and report["chain_ok"] is True


def test_verify_reads_nothing_of_the_verifier(
    session: tuple[list[dict[str, Any]], str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another home: no characters file, no config (its house rules), another system by
    default; the rolls still verify."""
    rows, seed, _ = session
    path = write(tmp_path, rows)
    other = tmp_path / "elsewhere"
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(other / name.lower()))
    monkeypatch.setenv("HOME", str(other))
    monkeypatch.setenv("D20_SYSTEM", "mm")
    write_sheet('[aria]\nsystem = "mm"\nstealth = "+1"\n')
    result = verify(path, seed)
    assert result.exit_code == 0, result.output
    assert not (other / "xdg_state_home").exists()  # verify keeps no state


def test_the_dice_follow_the_documented_derivation(
    session: tuple[list[dict[str, Any]], str, str],
) -> None:
    rows, seed, promise = session
    found = read_secret(seed)
    assert found is not None
    key, nonce = found
    assert commitment(key, nonce) == promise
    assert secret_text(key, nonce) == seed
    roll = next(r for r in rows if r["request"] == "check +1 vs 10 adv")
    assert roll["scheme"] == 2 and roll["salt"] is None  # no salt given: "" in the key
    rng = position_random(dice_key(key, 2, None), roll["position"])
    d20s = [1 + rng._randbelow(20) for _ in range(2)]  # as RandomRoller draws them
    assert [d["face"] for d in roll["dice"]] == d20s


def test_the_hash_chain(session: tuple[list[dict[str, Any]], str, str]) -> None:
    rows, _, _ = session
    assert rows[0]["prev_hash"] == GENESIS
    for before, row in itertools.pairwise(rows):
        assert row["prev_hash"] == before["hash"]
    for row in rows:
        body = {k: v for k, v in row.items() if k != "hash"}
        encoded = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
        assert canonical(row) == encoded


def failed(result: Any) -> list[str]:
    assert result.exit_code == 1, result.output
    lines: list[str] = result.stdout.splitlines()
    assert lines[-1].startswith("NOT verified: ")
    return lines


def test_an_edited_total_is_named(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, _ = session
    edited = copy.deepcopy(rows)
    edited[5]["total"] += 1
    lines = failed(verify(write(tmp_path, edited), seed))
    assert lines[5].startswith("row 6 (id 6, position 4): FAILED: the hash chain breaks")
    assert "edited: total is" in lines[5]
    assert "the hash chain breaks at row 6" in lines[-1]
    # a forger who makes the chain again is still caught by the seed
    lines = failed(verify(write(tmp_path, rechain(edited)), seed))
    assert lines[5].startswith("row 6 (id 6, position 4): FAILED: edited: total is")
    assert sum("FAILED" in line for line in lines) == 1
    assert lines[-1] == "NOT verified: 1 row failed"


def test_an_edited_die_or_outcome_is_named(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, _ = session
    edited = copy.deepcopy(rows)
    edited[2]["dice"][0]["face"] = 21 - edited[2]["dice"][0]["face"]
    edited[3]["outcome"] = "tampered"
    lines = failed(verify(write(tmp_path, rechain(edited)), seed))
    assert "row 3 (id 3, position 1): FAILED: edited: dice is" in lines[2]
    assert "edited: outcome is" in lines[3]


def test_a_deleted_row_is_missing(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, _ = session
    cut = rows[:7] + rows[8:]  # position 6
    lines = failed(verify(write(tmp_path, cut), seed))
    assert lines[7].startswith("row 8 (id 9, position 7): FAILED: the hash chain breaks")
    assert "position 6: MISSING from the log" in lines
    assert lines[-1] == "NOT verified: 1 row failed, 1 roll missing, the hash chain breaks at row 8"
    lines = failed(verify(write(tmp_path, rechain(copy.deepcopy(cut))), seed))
    assert lines[-1] == "NOT verified: 1 roll missing"


def test_swapped_rows_are_out_of_order(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, _ = session
    swapped = copy.deepcopy(rows)
    swapped[4], swapped[5] = swapped[5], swapped[4]
    lines = failed(verify(write(tmp_path, swapped), seed))
    assert "the hash chain breaks" in lines[4]
    assert "out of order: it comes after position 4" in lines[5]
    lines = failed(verify(write(tmp_path, rechain(swapped)), seed))
    assert lines[5] == "row 6 (id 5, position 3): FAILED: out of order: it comes after position 4"


def test_a_copied_row_is_named(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, _ = session
    twice = rechain(copy.deepcopy([*rows[:4], dict(rows[3]), *rows[4:]]))
    lines = failed(verify(write(tmp_path, twice), seed))
    assert lines[4] == "row 5 (id 4, position 2): FAILED: row 4 has the same position (a copy)"


def test_an_edited_hash_breaks_the_chain_there(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, _ = session
    edited = copy.deepcopy(rows)
    edited[9]["hash"] = "f" * 64
    lines = failed(verify(write(tmp_path, edited), seed))
    assert lines[9].endswith("FAILED: the hash chain breaks: its hash is not that of its content")
    assert lines[-1] == "NOT verified: 2 rows failed, the hash chain breaks at row 10"
    report = json.loads(verify(write(tmp_path, edited), seed, "--json").stdout)
    assert report["verified"] is False and report["chain_break"] == 10


def test_a_wrong_seed_or_commitment_is_rejected(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, _ = session
    path = write(tmp_path, rows)
    other = ("0" if seed[0] != "0" else "1") + seed[1:]
    lines = failed(verify(path, other))
    assert "no row of the log carries the commitment of this seed" in lines[-2]
    assert lines[-1] == "NOT verified: the seed does not match the log's commitment"
    # a log whose commitment was changed is not the session the seed opens
    forged = copy.deepcopy(rows)
    for row in forged:
        if row["commitment"] is not None:
            row["commitment"] = "a" * 64
    failed(verify(write(tmp_path, rechain(forged)), seed))
    # one row said to be of another session: its position goes missing
    one = copy.deepcopy(rows)
    one[3]["commitment"] = "a" * 64
    lines = failed(verify(write(tmp_path, rechain(one)), seed))
    assert "position 2: MISSING from the log" in lines


@pytest.mark.parametrize(
    "option", [["--seed", "7"], ["--dice", "12"], ["--no-log"], ["--as", "none", "--seed", "1"]]
)
def test_what_would_make_it_unverifiable_is_refused(option: list[str]) -> None:
    seal()
    result = d20(["check", "+5", "vs", "15", *option])
    assert result.exit_code == 2
    assert result.stderr.startswith("d20: error: ")
    assert result.stderr.rstrip().endswith("d20 unseal first")
    assert len(result.stderr.splitlines()) == 1


def test_refusals_in_a_batch_and_for_unreplayable_rolls(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seal()
    batch = d20([], stdin="roll 1d6 --dice 3\nroll 1d6\n")
    assert batch.exit_code == 2
    assert "line 1" in batch.stderr and "--dice cannot be used in a sealed session" in batch.stderr
    assert d20(["--seed", "7"], stdin="roll 1d6\n").exit_code == 2
    assert "--seed cannot be used" in d20(["init", "roll", "--seed", "3"]).stderr
    assert "--seed cannot be used" in d20(["table", "loot", "--seed", "3"]).stderr
    monkeypatch.setenv("D20_NO_LOG", "1")
    assert d20(["roll", "1d6"]).exit_code == 2
    monkeypatch.delenv("D20_NO_LOG")
    assert unseal()["rolls"] == 1  # the batch's good line
    assert d20(["roll", "1d6", "--seed", "7"]).exit_code == 0  # unsealed: as before


def test_seal_while_open_unseal_when_closed_and_status() -> None:
    assert "no sealed session is open" in d20(["seal", "--status"]).stdout
    promise = seal()
    again = d20(["seal"])
    assert again.exit_code == 2
    assert again.stderr.startswith("d20: error: a sealed session is open already (session 1")
    assert d20(["roll", "1d20"]).exit_code == 0
    status = d20(["seal", "--status", "--json"])
    assert json.loads(status.stdout)["sealed"]["commitment"] == promise
    assert json.loads(status.stdout)["sealed"]["rolls"] == 1
    text = d20(["seal", "--status"]).stdout.splitlines()
    assert text[1] == f"commitment: {promise}"
    shown = d20(["unseal"])
    assert shown.exit_code == 0
    assert shown.stdout.splitlines()[0] == "unsealed session 1 after 1 roll"
    assert shown.stdout.splitlines()[2].startswith("seed: ")
    closed = d20(["unseal"])
    assert closed.exit_code == 2 and "no sealed session is open" in closed.stderr
    assert seal() != promise  # a new session, a new seed


def test_a_failed_roll_takes_no_position(tmp_path: Path) -> None:
    seal()
    assert d20(["check", "+5", "vs"]).exit_code == 2
    assert d20(["roll", "1d6"]).exit_code == 0
    seed = unseal()["seed"]
    rows = export()
    assert [r["position"] for r in rows] == [0]
    assert verify(write(tmp_path, rows), seed).exit_code == 0


def test_a_cleared_log_keeps_the_open_sessions_rows(tmp_path: Path) -> None:
    """Issue 40, item 4: `log --clear --yes` deleted them, and verify found them missing."""
    seal()
    assert d20(["roll", "1d6"]).exit_code == 0
    assert d20(["log", "--clear", "--yes"]).exit_code == 0
    assert d20(["roll", "1d6"]).exit_code == 0
    seed = unseal()["seed"]
    rows = export()
    assert [r["position"] for r in rows] == [0, 1]
    assert verify(write(tmp_path, rows), seed).exit_code == 0


def test_the_shell_reads_a_session_opened_in_it() -> None:
    """`seal` and `unseal` typed in the shell: its run reads the session again."""
    from d20cli.app.context import Context
    from d20cli.app.options import Options
    from d20cli.app.run import run as run_tokens
    from tests.state_helpers import output

    context = Context()
    out, _ = output()
    run_tokens(["roll", "1d6"], Options(), out, context)
    seal()
    run_tokens(["roll", "1d6"], Options(), out, context)
    context.flush()
    assert unseal()["rolls"] == 1
    assert run_tokens(["roll", "1d6", "--seed", "3"], Options(), out, context).status == 0
    context.close()
    assert [r["position"] for r in export()] == [None, 0, None]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"{not json", "is not JSON"),
        (b"\xff\xfe[]", "is not UTF-8"),
        (b'{"rows": []}', "is not a roll log export"),
        (b"[1]", "row 1 of the export is not a JSON object"),
        (b'[{"id": 1}]', "row 1 of the export has no 'system'"),
    ],
)
def test_hostile_files_are_one_line_errors(content: bytes, message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    result = verify(str(path), "a" * 64 + ":" + "b" * 32)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("d20: error: ") and message in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_rows_with_wrong_types_and_a_huge_file(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, _ = session
    for name, value in (
        ("total", "12"),
        ("position", True),
        ("position", -1),
        ("dice", {}),
        ("replay", "x"),
        ("hash", None),
    ):
        bad = copy.deepcopy(rows)
        bad[4][name] = value
        result = verify(write(tmp_path, bad), seed)
        assert result.exit_code == 2, (name, result.output)
        assert result.stderr.startswith(f"d20: error: row 5 of the export: '{name}' is ")
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(MAX_EXPORT_BYTES + 1)
    result = verify(str(big), seed)  # refused by its size, before it is read
    assert result.exit_code == 2 and "larger than 64 MiB" in result.stderr
    assert verify(str(tmp_path / "absent.json"), seed).stderr.startswith("d20: error: cannot read")
    assert verify(write(tmp_path, rows), "not-a-seed").exit_code == 2


def test_a_hostile_replay_is_a_failed_row_not_a_crash(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, _ = session
    bad = copy.deepcopy(rows)
    replay = bad[2]["replay"]
    bad[2]["replay"] = {"@": "RollRequest", "text": replay["text"], "expr": {"@": "os.system"}}
    bad[3]["replay"] = {"@": "CheckRequest", "text": "x"}
    bad[4]["system"] = "nosuch"
    deep: dict[str, Any] = {"text": "roll 1d6"}
    for _ in range(600):
        deep = {"@": "Neg", "expr": deep, "text": "roll 1d6"}
    bad[5]["replay"] = deep
    lines = failed(verify(write(tmp_path, rechain(bad)), seed))
    assert "its request cannot be read" in lines[2]
    assert "FAILED" in lines[3] and "FAILED" in lines[4] and "FAILED" in lines[5]


def test_a_replay_over_the_dice_budget_fails_its_row(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    """A forged row that asks for more dice than a roll may have is a failed row, refused
    before a die is rolled."""
    from d20cli.language.grammar import parse_request
    from d20cli.language.parse_cache import encode

    rows, seed, _ = session
    bad = copy.deepcopy(rows)
    bad[2]["replay"] = encode(parse_request("roll 5000000d6"))
    lines = failed(verify(write(tmp_path, rechain(bad)), seed))
    assert lines[2].startswith("row 3 (id 3, position 1): FAILED: cannot be rolled again: ")
    assert "dice budget" in lines[2]


def test_a_lost_session_stops_the_rolls_until_unseal() -> None:
    """Fail closed: the marker there and no open session in the database (a damaged
    database moved aside, here removed): no roll is made unsealed until `d20 unseal`."""
    from d20cli.store.database import db_path

    seal()
    close_opened()
    path = db_path()
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    result = d20(["roll", "1d6"])
    assert result.exit_code == 2
    assert "no roll is made: d20 unseal clears this" in result.stderr
    assert d20(["unseal"]).exit_code == 2  # none was open
    assert d20(["roll", "1d6"]).exit_code == 0


def test_verify_reads_standard_input(session: tuple[list[dict[str, Any]], str, str]) -> None:
    rows, seed, _ = session
    result = runner.invoke(app, ["verify", "-", seed], input=json.dumps(rows))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1].startswith("verified: 18 rolls")
    edited = copy.deepcopy(rows)
    edited[1]["request"] = "roll 1d6\x1b[31m"
    result = runner.invoke(app, ["verify", "-", seed, "--json"], input=json.dumps(edited))
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["verified"] is False and report["chain_break"] == 2
    assert any("edited: request is" in p for p in report["rows"][1]["problems"])
    assert "\x1b" not in result.stdout


def test_the_shell_sees_a_session_opened_elsewhere() -> None:
    """A session opened by another process (here: the marker and the table written
    without this context knowing): the shell reads it again after its line."""
    from d20cli.app.context import Context
    from d20cli.app.options import Options
    from d20cli.app.run import run as run_tokens
    from d20cli.store import seal_marker
    from tests.state_helpers import output

    context = Context()
    out, _ = output()
    run_tokens(["roll", "1d6"], Options(), out, context)
    seal()
    seal_marker.CHANGES[0] -= 1  # as if `d20 seal` ran in another process
    context.recheck_seal()
    run_tokens(["roll", "1d6"], Options(), out, context)
    context.close()
    assert unseal()["rolls"] == 1
    assert [r["position"] for r in export()] == [None, 0]


def test_the_commitment_posted_before_play(
    session: tuple[list[dict[str, Any]], str, str], tmp_path: Path
) -> None:
    rows, seed, promise = session
    path = write(tmp_path, rows)
    result = verify(path, seed, "--commitment", promise.upper())
    assert result.exit_code == 0, result.output
    assert f"commitment {promise} (as posted); hash chain intact" in result.stdout
    other = "0" * 64
    lines = failed(verify(path, seed, "--commitment", other))
    assert lines[-2].startswith(
        f"the seed does not open the commitment posted before play ({other})"
    )
    assert lines[-1] == "NOT verified: the seed does not open the posted commitment"
    report = json.loads(verify(path, seed, "--commitment", other, "--json").stdout)
    assert report["posted_commitment_ok"] is False and report["verified"] is False
    bad = verify(path, seed, "--commitment", "xyz")
    assert bad.exit_code == 2 and bad.stderr.startswith("d20: error: --commitment must be")


def test_the_log_marks_a_sealed_roll() -> None:
    assert d20(["roll", "1d6"]).exit_code == 0
    seal()
    assert d20(["roll", "1d8"]).exit_code == 0
    unseal()
    lines = d20(["log", "--tsv"]).stdout.splitlines()
    assert [line.split("\t")[-1] for line in lines] == ["", "sealed 1"]


def test_a_marker_that_cannot_be_written_opens_no_session(tmp_path: Path) -> None:
    from d20cli.store.seal_marker import marker_path

    Path(marker_path()).mkdir(parents=True)  # a directory where the marker goes
    result = d20(["seal"])
    assert result.exit_code == 2
    assert result.stderr.startswith("d20: error: cannot write ")
    assert len(result.stderr.splitlines()) == 1
    Path(marker_path()).rmdir()
    assert "no sealed session is open" in d20(["seal", "--status"]).stdout
