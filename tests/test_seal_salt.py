"""A seed no one could choose (issue 47, item 2): `d20 seal --salt TEXT`, given after the
commitment and before the first roll, goes into every die and receipt (scheme 2 of
d20cli.dice.sealed); `verify` shows the salt and checks the one the table gave; the
attacks (a salt before the commitment, after a roll, changed afterwards, stripped) are
refused or caught; exports of scheme 1 (d20 before salts, tests/fixtures/sealed_v1) still
verify."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from d20cli.app.cli import app
from d20cli.app.commands.verify import MAX_VERIFY_WORK, replayed, report_lines, verify_rows
from d20cli.app.commands.verify_files import export_rows, receipts_of
from d20cli.dice.sealed import dice_key, position_random, read_secret, receipts_start
from d20cli.store.sealing import SCHEME_FIELDS
from tests.state_helpers import logging_on
from tests.test_seal_receipts import rereceipt

pytestmark = pytest.mark.usefixtures(logging_on.__name__)
runner = CliRunner()
SALT = "owlbear at dawn"
FIXTURE = Path(__file__).parent / "fixtures" / "sealed_v1"


def d20(args: list[str]) -> Any:
    return runner.invoke(app, args)


@pytest.fixture
def salted(tmp_path: Path) -> tuple[list[dict[str, Any]], str, str, str]:
    """A salted session of three rolls: its export, seed, commitment and what the table saw."""
    promise = json.loads(d20(["seal", "--json"]).stdout)["commitment"]
    given = d20(["seal", "--salt", f"  {SALT} ", "--json"])  # (spaces around are not the salt)
    assert given.exit_code == 0, given.output
    assert json.loads(given.stdout)["salt"] == SALT
    shown = []
    for args in (["roll", "10d20"], ["check", "+5", "vs", "15"], ["roll", "2d6"]):
        result = d20(args)
        assert result.exit_code == 0, result.output
        shown.append(result.stdout)
    seed = json.loads(d20(["unseal", "--json"]).stdout)["seed"]
    seen = tmp_path / "seen.txt"
    seen.write_text("".join(shown), encoding="utf-8")
    rows = json.loads(d20(["log", "--export", "json", "--session", "1"]).stdout)
    return rows, seed, promise, str(seen)


def verify(rows: Any, seed: str, tmp_path: Path, *extra: str) -> Any:
    path = tmp_path / "rolls.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return d20(["verify", str(path), seed, *extra])


def test_a_salt_before_the_commitment_is_refused() -> None:
    result = d20(["seal", "--salt", SALT])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "d20: error: no sealed session is open: the salt comes after the commitment is posted"
    )
    assert json.loads(d20(["seal", "--status", "--json"]).stdout)["sealed"] is None


def test_a_salt_after_a_roll_or_a_second_salt_is_refused() -> None:
    d20(["seal"])
    assert d20(["roll", "1d6"]).exit_code == 0
    late = d20(["seal", "--salt", SALT])
    assert late.exit_code == 2 and "has rolled already" in late.stderr
    d20(["unseal"])
    d20(["seal"])
    assert d20(["seal", "--salt", SALT]).exit_code == 0
    again = d20(["seal", "--salt", "another"])
    assert again.exit_code == 2 and "a salt is never changed" in again.stderr
    status = json.loads(d20(["seal", "--status", "--json"]).stdout)["sealed"]
    assert status["salt"] == SALT and status["scheme"] == 2
    assert f'salt: "{SALT}"' in d20(["seal", "--status"]).stdout


@pytest.mark.parametrize(
    ("salt", "problem"), [("", "it is empty"), ("a\x1b[31m", "control"), ("x" * 201, "longer")]
)
def test_a_salt_that_is_not_one_is_refused(salt: str, problem: str) -> None:
    d20(["seal"])
    result = d20(["seal", "--salt", salt])
    assert result.exit_code == 2 and problem in result.stderr
    assert "\x1b" not in result.stderr


def test_the_dice_come_from_the_seed_and_the_salt(
    salted: tuple[list[dict[str, Any]], str, str, str],
) -> None:
    rows, seed, _, _ = salted
    found = read_secret(seed)
    assert found is not None
    first = rows[0]
    assert (first["scheme"], first["salt"]) == (2, SALT)

    def faces(key: bytes) -> list[int]:
        rng = position_random(key, first["position"])  # a pool, as RandomRoller draws it
        return rng.choices(range(1, 21), k=10)

    rolled = [d["face"] for d in first["dice"]]
    assert rolled == faces(dice_key(found[0], 2, SALT))
    assert rolled != faces(dice_key(found[0], 2, None))  # the seed alone gives others
    assert rolled != faces(dice_key(found[0], 2, SALT + "!"))


def test_verify_shows_the_salt_and_checks_the_tables(
    salted: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    rows, seed, _, seen = salted
    result = verify(rows, seed, tmp_path, "--salt", SALT, "--receipts", seen)
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().endswith(f'salt "{SALT}" (as the table gave it)')
    report = json.loads(verify(rows, seed, tmp_path, "--salt", SALT, "--json").stdout)
    assert (report["scheme"], report["salt"], report["salt_given_ok"]) == (2, SALT, True)
    other = verify(rows, seed, tmp_path, "--salt", "owlbear at dusk")
    assert other.exit_code == 1
    assert other.stdout.splitlines()[-1] == "NOT verified: the salt is not the one the table gave"


def _forged(rows: list[dict[str, Any]], seed: str, promise: str, salt: str | None) -> Any:
    """The rows as a forger who holds the seed would make them with another salt (None:
    as scheme 1, with no salt at all): every roll again, the receipts and chain again."""
    found = read_secret(seed)
    assert found is not None
    forged = copy.deepcopy(rows)
    for row in forged:
        if salt is None:
            for name in SCHEME_FIELDS:
                row.pop(name)
        else:
            row["salt"] = salt
        key = dice_key(found[0], row.get("scheme", 1), row.get("salt"))
        row.update(replayed(row, key, [MAX_VERIFY_WORK]))
    return rereceipt(forged, promise)


@pytest.mark.parametrize("salt", ["the player's own salt", None])
def test_a_salt_changed_or_stripped_afterwards_is_caught(
    salted: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path, salt: str | None
) -> None:
    rows, seed, promise, seen = salted
    forged = _forged(rows, seed, promise, salt)
    alone = verify(forged, seed, tmp_path)  # consistent: the seed alone cannot tell
    assert alone.exit_code == 0, alone.output
    assert SALT not in alone.stdout  # but it shows the salt it was made with
    given = verify(forged, seed, tmp_path, "--salt", SALT)
    assert given.exit_code == 1
    assert "the salt is not the one the table gave" in given.stdout
    held = verify(forged, seed, tmp_path, "--receipts", seen)
    assert held.exit_code == 1
    assert "FAILED: the table saw receipt" in held.stdout


def test_the_receipts_start_from_the_salt(
    salted: tuple[list[dict[str, Any]], str, str, str],
) -> None:
    rows, _, promise, _ = salted
    assert receipts_start(promise, 2, SALT) != receipts_start(promise, 2, None)
    assert rereceipt(copy.deepcopy(rows), promise) == rows  # the documented derivation


def test_an_export_of_scheme_1_still_verifies() -> None:
    seed, promise = FIXTURE.joinpath("secret.txt").read_text().split()
    rolls, seen = str(FIXTURE / "rolls.json"), str(FIXTURE / "seen.txt")
    args = ["verify", rolls, seed, "--commitment", promise, "--receipts", seen]
    result = d20(args)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"verified: 4 rolls of session 1, every one as the seed gives it; commitment {promise} "
        "(as posted); hash chain intact; 4 receipts seen at the table match\n"
    )
    report = json.loads(d20([*args, "--json"]).stdout)
    assert (report["scheme"], report["salt"], report["secret_rolls"]) == (1, None, [])
    assert d20([*args, "--salt", SALT]).exit_code == 1  # a salt the table gave: it had none


def test_the_pure_functions_verify_an_export_from_its_text() -> None:
    """What the verify page runs in a browser (no file opened): the rows and receipts from
    their text, `verify_rows`, and the lines `d20 verify` prints."""
    seed, promise = FIXTURE.joinpath("secret.txt").read_text().split()
    seen, secret = receipts_of(FIXTURE.joinpath("seen.txt").read_text())
    rows = export_rows([FIXTURE.joinpath("rolls.json").read_text()])
    report = verify_rows(rows, seed, seen, None, secret)
    assert report.ok and report.promise == promise and report.receipts == 4
    assert report_lines(report, False, True)[-1].startswith("verified: 4 rolls of session 1")
