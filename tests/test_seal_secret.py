"""Secret rolls, revealed later (issue 47, item 3): `VERB ... --secret` in a sealed
session shows only its position and receipt; the log and the posts hide its request and
result until `d20 reveal N` or `d20 unseal` shows them; `verify` proves the roll shown
then is the one made then (its receipt, with the blind only the seed gives)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from d20cli.app.cli import app
from d20cli.app.commands.verify import MAX_VERIFY_WORK, replayed
from d20cli.app.posting import discord_text
from d20cli.dice.sealed import (
    canonical,
    dice_key,
    next_receipt,
    read_secret,
    receipt_body,
    receipts_start,
    secret_blind,
)
from d20cli.language.grammar import parse_request
from d20cli.language.parse_cache import encode
from d20cli.store.post_queue import post_body
from d20cli.store.sealing import GENESIS, row_hash
from tests.state_helpers import logging_on

pytestmark = pytest.mark.usefixtures(logging_on.__name__)
runner = CliRunner()
HIDDEN = "check +3 vs 15"
# The whole line: nothing of the request or its result besides position and receipt.
SHOWN_LINE = re.compile(r"^secret roll, sealed #1 \(session 1\) receipt [0-9a-f]{16}$", re.M)


def d20(args: list[str]) -> Any:
    return runner.invoke(app, args)


def evening() -> str:
    """A sealed session with a roll shown, a secret roll (#1) and another shown: what the
    table saw."""
    d20(["seal"])
    shown = [d20(["roll", "1d6"]).stdout]
    secret = d20([*HIDDEN.split(), "--secret"])
    assert secret.exit_code == 0, secret.output
    shown.append(secret.stdout)
    shown.append(d20(["check", "+1", "vs", "10"]).stdout)
    return "".join(shown)


def test_a_secret_roll_shows_its_position_and_receipt_only() -> None:
    seen = evening()
    assert SHOWN_LINE.search(seen)
    assert "+3" not in seen and "vs 15" not in seen
    as_json = d20([*HIDDEN.split(), "--secret", "--json"])
    shown = json.loads(as_json.stdout)
    assert set(shown) == {"secret", "system", "sealed", "receipt"}
    assert shown["secret"] is True and shown["sealed"] == {"session": 1, "position": 3}
    quiet = d20([*HIDDEN.split(), "--secret", "-q", "--exit-status"])
    assert quiet.exit_code == 0  # (an exit status would tell its outcome)
    assert quiet.stdout.startswith("secret roll, sealed #4 ")


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ([*HIDDEN.split(), "--secret"], "--secret rolls in a sealed session only"),
        (["table", "road", "--secret"], "--secret takes a roll of a verb"),
    ],
)
def test_secret_where_it_cannot_be_kept_is_refused(args: list[str], problem: str) -> None:
    result = d20(args)
    assert result.exit_code == 2 and problem in result.stderr


@pytest.mark.parametrize("option", [["--odds"], ["--summary", "-n", "5"]])
def test_secret_with_what_would_show_it_is_refused(option: list[str]) -> None:
    d20(["seal"])
    result = d20([*HIDDEN.split(), "--secret", *option])
    assert result.exit_code == 2 and "would show what a secret roll hides" in result.stderr
    assert json.loads(d20(["seal", "--status", "--json"]).stdout)["sealed"]["rolls"] == 0


def test_the_log_hides_a_secret_roll_until_it_is_revealed() -> None:
    evening()
    assert HIDDEN not in d20(["log"]).stdout
    rows = json.loads(d20(["log", "--export", "json"]).stdout)
    hidden = rows[1]
    assert hidden["request"] == "secret roll" and hidden["secret"] is True
    assert (hidden["dice"], hidden["total"], hidden["outcome"], hidden["replay"]) == (
        [],
        None,
        None,
        None,
    )
    assert HIDDEN not in d20(["log", "--stats"]).stdout
    revealed = d20(["reveal", "1"])
    assert revealed.exit_code == 0, revealed.output
    lines = revealed.stdout.splitlines()
    assert lines[0].startswith("secret roll #1 of session 1, made ")
    assert lines[1] == f"{HIDDEN}  [levelup]"
    assert re.fullmatch(r"  sealed #1 \(session 1\) receipt [0-9a-f]{16}", lines[-1])
    assert HIDDEN in d20(["log"]).stdout
    for position in ("0", "99"):  # a roll shown; no roll at all
        refused = d20(["reveal", position])
        assert refused.exit_code == 2
        assert f"session 1 has no secret roll #{position} (d20 log" in refused.stderr


def test_unseal_reveals_every_secret_roll() -> None:
    evening()
    result = d20(["unseal"])
    assert "its 1 secret roll, revealed:" in result.stdout
    assert f"{HIDDEN}  [levelup]" in result.stdout
    d20(["seal"])  # (another session: unseal --json shows its secret rolls too)
    d20([*HIDDEN.split(), "--secret"])
    shown = json.loads(d20(["unseal", "--json"]).stdout)["secret"]
    assert [(s["request"], s["sealed"]["position"], s["secret"]) for s in shown] == [
        (HIDDEN, 0, True)
    ]


def test_a_secret_roll_posts_its_position_and_receipt_only() -> None:
    dice = '[{"sides":20,"face":17}]'
    row = ("t", "aria", "levelup", "check", HIDDEN, dice, 20, "success", "random")
    sealed = (*row, None, 1, 4, "{}", "ab" * 32)
    body = post_body((*sealed, 1))
    assert body is not None and body["secret"] is True
    assert body["sealed"] == {"session": 1, "position": 4, "receipt": "ab" * 8}
    assert [body[k] for k in ("character", "verb", "request", "total", "outcome")] == [None] * 5
    assert body["dice"] == []
    text = discord_text(body)
    assert text == f"A secret roll: sealed #4 (session 1) receipt `{'ab' * 8}`"
    shown = post_body(sealed)
    assert shown is not None and shown["request"] == HIDDEN and "secret" not in shown


def rereceipt(rows: list[dict[str, Any]], promise: str, seed: str) -> list[dict[str, Any]]:
    """The receipts and hash chain made again, as a forger holding the seed would (a
    secret roll's blind included)."""
    found = read_secret(seed)
    assert found is not None
    head, prev = receipts_start(promise, 2, None), GENESIS
    for row in rows:
        blind = secret_blind(found[0], row["position"]) if row["secret"] else None
        fields = (row[k] for k in ("at", "character", "system", "verb", "request"))
        body = receipt_body(
            promise, row["position"], row["session"], *fields, canonical(row["replay"]), blind
        )
        row["receipt"] = head = next_receipt(head, body)
        row["prev_hash"] = prev
        row["hash"] = prev = row_hash(row)
    return rows


def _export_after_unseal(tmp_path: Path) -> tuple[list[dict[str, Any]], str, str, str]:
    seen = evening()
    promise = json.loads(d20(["seal", "--status", "--json"]).stdout)["sealed"]["commitment"]
    seed = json.loads(d20(["unseal", "--json"]).stdout)["seed"]
    rows = json.loads(d20(["log", "--export", "json"]).stdout)
    path = tmp_path / "seen.txt"
    path.write_text(seen, encoding="utf-8")
    return rows, seed, promise, str(path)


def verify(rows: Any, seed: str, tmp_path: Path, *extra: str) -> Any:
    path = tmp_path / "rolls.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return d20(["verify", str(path), seed, *extra])


def test_verify_proves_a_secret_roll_was_made_then(tmp_path: Path) -> None:
    rows, seed, promise, seen = _export_after_unseal(tmp_path)
    assert rereceipt(copy.deepcopy(rows), promise, seed) == rows  # the documented derivation
    assert rows[1]["request"] == HIDDEN and rows[1]["secret"] is True  # revealed by unseal
    result = verify(rows, seed, tmp_path, "--receipts", seen)
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().endswith("1 secret roll (#1), each the roll made then")
    assert json.loads(verify(rows, seed, tmp_path, "--json").stdout)["secret_rolls"] == [1]
    found = read_secret(seed)
    assert found is not None
    key = dice_key(found[0], 2, None)

    rewritten = copy.deepcopy(rows)  # the secret roll rewritten once the seed is out
    row = rewritten[1]
    row["request"] = "check +9 vs 15"
    row["replay"] = encode(parse_request(row["request"]))
    row.update(replayed(row, key, [MAX_VERIFY_WORK]))
    rewritten = rereceipt(rewritten, promise, seed)
    assert verify(rewritten, seed, tmp_path).exit_code == 0  # the seed alone cannot tell
    held = verify(rewritten, seed, tmp_path, "--receipts", seen)
    assert held.exit_code == 1 and "FAILED: the table saw receipt" in held.stdout

    shown = copy.deepcopy(rows)  # the secret roll passed off as one the table saw
    shown[1]["secret"] = False
    shown = rereceipt(shown, promise, seed)
    held = verify(shown, seed, tmp_path, "--receipts", seen)
    assert held.exit_code == 1
    assert "the table saw #1 as a secret roll; the row is not one" in held.stdout


def test_a_secret_receipt_hides_its_request_until_the_seed_is_shown(tmp_path: Path) -> None:
    """Whoever guesses the request, time and all (not the seed) cannot make its receipt:
    the blind from the seed is in its body."""
    rows, seed, promise, _ = _export_after_unseal(tmp_path)
    found = read_secret(seed)
    assert found is not None
    row = rows[1]

    def body(blind: str | None) -> bytes:
        fields = ("at", "character", "system", "verb", "request")
        return receipt_body(
            promise,
            row["position"],
            row["session"],
            *(row[k] for k in fields),
            canonical(row["replay"]),
            blind,
        )

    before = rows[0]["receipt"]
    assert next_receipt(before, body(None)) != row["receipt"]
    assert next_receipt(before, body(secret_blind(found[0], 1))) == row["receipt"]
    assert receipts_start(promise, 2, None) != receipts_start(promise)
