"""Receipts bind a sealed session's requests to what the table saw (issue 31, item 6): a
request rewritten after play (its outcome recomputed, the export's hash chain and even
its receipts made again), two rows' requests swapped, a character or a time changed, are
all caught by `d20 verify --receipts` with the receipts printed with the rolls; without
them verify says that it compared none."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from d20cli.app.cli import app
from d20cli.app.commands.verify import MAX_VERIFY_WORK, replayed
from d20cli.app.commands.verify_files import read_receipts
from d20cli.dice.sealed import (
    RECEIPT_SHOWN,
    canonical,
    dice_key,
    next_receipt,
    read_secret,
    receipt_body,
    receipts_start,
)
from d20cli.errors import ParseError
from d20cli.language.grammar import parse_request
from d20cli.language.parse_cache import encode
from d20cli.store.sealing import GENESIS, SCHEME_FIELDS, row_hash
from tests.cli_helpers import write_sheet
from tests.state_helpers import logging_on

pytestmark = pytest.mark.usefixtures(logging_on.__name__)
runner = CliRunner()

REQUESTS = (["check", "+5", "vs", "15"], ["check", "+2", "vs", "12"], ["roll", "1d6", "-n", "2"])


def d20(args: list[str], stdin: str | None = None) -> Any:
    return runner.invoke(app, args, input=stdin)


@pytest.fixture
def played(tmp_path: Path) -> tuple[list[dict[str, Any]], str, str, str]:
    """A session of four rolls (one as a character): its export, its seed, its
    commitment, and the file of what the table saw (every roll's output)."""
    write_sheet('[aria]\nsystem = "levelup"\nstealth = "+7"\n')
    promise = json.loads(d20(["seal", "--json"]).stdout)["commitment"]
    shown = []
    for args in (*REQUESTS, ["check", "stealth", "vs", "14", "--as", "aria"]):
        result = d20(args)
        assert result.exit_code == 0, result.output
        shown.append(result.stdout)
    seed = json.loads(d20(["unseal", "--json"]).stdout)["seed"]
    exported = d20(["log", "--export", "json"])
    assert exported.exit_code == 0
    seen = tmp_path / "seen.txt"
    seen.write_text("".join(shown), encoding="utf-8")
    return json.loads(exported.stdout), seed, promise, str(seen)


def write(tmp_path: Path, rows: Any) -> str:
    path = tmp_path / "rolls.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return str(path)


def verify(path: str, seed: str, *extra: str) -> Any:
    return d20(["verify", path, seed, *extra])


def rereceipt(
    rows: list[dict[str, Any]], promise: str, receipts: bool = True, old: bool = False
) -> list[dict[str, Any]]:
    """The rows with their receipts (unless not `receipts`) and hash chain made again, as
    a forger would (`old`: receipts as d20 0.1.0 made them, with no session number)."""
    mine = [r for r in rows if r["commitment"] == promise]
    first = mine[0] if mine else {}
    head = receipts_start(promise, first.get("scheme", 1), first.get("salt"))
    prev = GENESIS
    for row in rows:
        if receipts and row["commitment"] == promise:
            head = next_receipt(head, _body(row, old))
            row["receipt"] = head
        row["prev_hash"] = prev
        row["hash"] = prev = row_hash(row)
    return rows


def _body(row: dict[str, Any], old: bool = False) -> bytes:
    """body_p as docs/sealed-sessions.md defines it (and as receipt_body writes it); `old`:
    as d20 0.1.0 made it, with no session number."""
    keys = ("at", "character", "commitment", "position", "replay", "request", "session")
    keys += ("system", "verb")
    body = {k: row[k] for k in keys if not (old and k == "session")}
    encoded = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    assert encoded == receipt_body(
        row["commitment"],
        row["position"],
        None if old else row["session"],
        row["at"],
        row["character"],
        row["system"],
        row["verb"],
        row["request"],
        canonical(row["replay"]),
    )
    return encoded


def rewrite(row: dict[str, Any], text: str, seed: str) -> None:
    """The row's request rewritten as `text`, its dice, total and outcome as the seed
    gives them for it (a forger holds the seed once it is shown)."""
    from d20cli.dice.sealed import read_secret

    found = read_secret(seed)
    assert found is not None
    row["request"] = text
    row["replay"] = encode(parse_request(text))
    key = dice_key(found[0], row.get("scheme", 1), row.get("salt"))
    row.update(replayed(row, key, [MAX_VERIFY_WORK]))


def test_every_sealed_roll_shows_its_receipt(
    played: tuple[list[dict[str, Any]], str, str, str],
) -> None:
    rows, _, promise, seen = played
    text = Path(seen).read_text(encoding="utf-8")
    head = receipts_start(promise, 2, None)  # scheme 2, no salt given
    for row in rows:  # the documented derivation, from the commitment shown before play
        head = next_receipt(head, _body(row))
        assert row["receipt"] == head
        assert f"sealed #{row['position']} (session 1) receipt {head[:RECEIPT_SHOWN]}" in text
    assert [r["position"] for r in rows] == [0, 1, 2, 3, 4]
    d20(["seal"])
    result = d20(["check", "+1", "vs", "10", "--json"])
    d20(["unseal"])
    receipt = json.loads(result.stdout)["receipt"]
    assert receipt["position"] == 0 and len(receipt["hash"]) == RECEIPT_SHOWN


def test_an_honest_session_verifies_with_the_tables_receipts(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    rows, seed, promise, seen = played
    result = verify(write(tmp_path, rows), seed, "--receipts", seen, "--commitment", promise)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1].endswith(
        "hash chain intact; 5 receipts seen at the table match; "
        "no salt (the seed alone: its player could have chosen it)"
    )
    report = json.loads(verify(write(tmp_path, rows), seed, "--receipts", seen, "--json").stdout)
    assert report["verified"] is True and report["receipts_matched"] == 5


def test_a_request_rewritten_after_play_is_caught(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    """`check +5 vs 15` rewritten as `check +5 vs 10`, its outcome recomputed."""
    rows, seed, promise, seen = played
    forged = copy.deepcopy(rows)
    rewrite(forged[0], "check +5 vs 10", seed)
    chained = rereceipt(copy.deepcopy(forged), promise)
    # the receipts kept in the rows, not made again: the row's receipt is not its own
    result = verify(write(tmp_path, rereceipt(forged, promise, receipts=False)), seed)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("row 1 (id 1, position 0): FAILED: its receipt")
    # every receipt made again: only what the table saw tells the two apart
    result = verify(write(tmp_path, chained), seed)
    assert result.exit_code == 0
    assert "no receipts from the table compared (--receipts)" in result.stdout
    result = verify(write(tmp_path, chained), seed, "--receipts", seen)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("row 1 (id 1, position 0): FAILED: the table saw receipt ")
    assert sum("FAILED" in line for line in lines) == 5  # each receipt holds those before
    # the last receipt alone (noted by hand) holds the whole session
    last = tmp_path / "last.txt"
    last.write_text(f"#4 {rows[4]['receipt'][:16]}\n", encoding="utf-8")
    assert verify(write(tmp_path, chained), seed, "--receipts", str(last)).exit_code == 1
    assert verify(write(tmp_path, rows), seed, "--receipts", str(last)).exit_code == 0


def test_swapped_requests_are_caught(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    rows, seed, promise, seen = played
    forged = copy.deepcopy(rows)
    first, second = forged[0]["request"], forged[1]["request"]
    rewrite(forged[0], second, seed)
    rewrite(forged[1], first, seed)
    forged = rereceipt(forged, promise)
    assert verify(write(tmp_path, forged), seed).exit_code == 0  # the seed alone: no
    lines = verify(write(tmp_path, forged), seed, "--receipts", seen).stdout.splitlines()
    assert lines[0].startswith("row 1 (id 1, position 0): FAILED: the table saw receipt")
    assert lines[1].startswith("row 2 (id 2, position 1): FAILED: the table saw receipt")


@pytest.mark.parametrize(
    ("name", "value"), [("character", "bob"), ("at", "2026-12-24T20:00:00.000+00:00")]
)
def test_a_changed_character_or_time_is_caught(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path, name: str, value: str
) -> None:
    rows, seed, promise, seen = played
    forged = copy.deepcopy(rows)
    forged[4][name] = value
    kept = rereceipt(copy.deepcopy(forged), promise, receipts=False)
    lines = verify(write(tmp_path, kept), seed).stdout.splitlines()
    assert lines[0].startswith("row 5 (id 5, position 4): FAILED: its receipt is not that of")
    lines = verify(write(tmp_path, rereceipt(forged, promise)), seed, "--receipts", seen)
    assert "row 5 (id 5, position 4): FAILED: the table saw receipt" in lines.stdout


def test_receipts_are_read_as_printed_as_json_or_as_noted(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    rows, seed, _, _ = played
    receipts = [r["receipt"] for r in rows]
    noted = tmp_path / "noted.txt"
    noted.write_text(
        f"  sealed #0 receipt {receipts[0][:16]}\n"
        f'{{"total": 3, "receipt": {{"position": 1, "hash": "{receipts[1][:16]}"}}}}\n'
        f"#2 {receipts[2][:20]}\n3: {receipts[3]}\nsome other line of the evening\n",
        encoding="utf-8",
    )
    assert read_receipts(str(noted)) == {
        0: receipts[0][:16],
        1: receipts[1][:16],
        2: receipts[2][:20],
        3: receipts[3],
    }
    assert verify(write(tmp_path, rows), seed, "--receipts", str(noted)).exit_code == 0
    noted.write_text(f"#9 {receipts[0][:16]}\n", encoding="utf-8")  # a roll the log lacks
    result = verify(write(tmp_path, rows), seed, "--receipts", str(noted))
    assert result.exit_code == 1
    assert "receipt #9 (seen at the table): no row of the log has position 9" in result.stdout
    assert result.stdout.splitlines()[-1] == "NOT verified: 1 receipt seen at the table with no row"
    noted.write_text("#1 0123456789abcdef\n#1 ffffffffffffffff\n", encoding="utf-8")
    with pytest.raises(ParseError, match="receipt #1 is ffffffffffffffff, but an earlier line"):
        read_receipts(str(noted))
    noted.write_text("check +5 vs 15\n", encoding="utf-8")
    result = verify(write(tmp_path, rows), seed, "--receipts", str(noted))
    assert result.exit_code == 2 and "holds no receipts" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    result = d20(["verify", "-", seed, "--receipts", "-"], stdin="[]")
    assert result.exit_code == 2 and "cannot both read standard input" in result.stderr


def test_receipts_go_on_across_runs_and_a_cleared_log() -> None:
    """`log --clear` keeps the rows of the sealed session that is open (as `--prune`
    does: issue 40, item 4), so a roll in a later run follows the receipt of the roll
    before it, and the session's export verifies whole."""
    d20(["roll", "1d4"])  # not sealed: cleared
    d20(["seal"])
    assert d20(["roll", "1d6"]).exit_code == 0
    first = json.loads(d20(["log", "--export", "json"]).stdout)[1]
    cleared = d20(["log", "--clear", "--yes"])
    assert cleared.exit_code == 0
    assert cleared.stdout == "deleted 1 roll; the open sealed session's 1 are kept\n"
    assert d20(["log", "--clear", "--yes", "-c", "nobody"]).exit_code == 0
    second = d20(["roll", "1d8", "--json"])
    d20(["unseal"])
    rows = json.loads(d20(["log", "--export", "json"]).stdout)
    assert [r["position"] for r in rows] == [0, 1]
    assert rows[0]["receipt"] == first["receipt"]
    assert rows[1]["receipt"] == next_receipt(first["receipt"], _body(rows[1]))
    assert json.loads(second.stdout)["receipt"] == {
        "position": 1,
        "hash": rows[1]["receipt"][:RECEIPT_SHOWN],
    }
    gone = d20(["log", "--clear", "--yes"])  # the session is closed: its rows go
    assert gone.stdout == "deleted 2 rolls\n"


# --- 64-bit receipts, bound to their session (issue 40, items 3, 6 and 8) -----------------


def test_a_receipt_the_table_holds_binds_with_64_bits(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    """A roll prints 16 hex digits of its receipt (so does --json), and verify refuses a
    receipt of fewer, however it was written down: a rewritten roll whose label was
    searched to keep 8 digits (2**32 hashes) is not taken for the one the table saw."""
    rows, seed, _, seen = played
    assert RECEIPT_SHOWN == 16
    receipts = [r["receipt"] for r in rows]
    assert read_receipts(seen) == {r["position"]: r["receipt"][:16] for r in rows}
    noted = tmp_path / "noted.txt"
    for line in (
        f"#4 {receipts[4][:8]}",
        f"4: {receipts[4][:15]}",
        f"  sealed #4 (session 1) receipt {receipts[4][:12]}",
        f'{{"receipt": {{"position": 4, "hash": "{receipts[4][:12]}"}}}}',
    ):
        noted.write_text(f"#0 {receipts[0][:16]}\n{line}\n", encoding="utf-8")
        result = verify(write(tmp_path, rows), seed, "--receipts", str(noted))
        assert result.exit_code == 2, (line, result.output)
        assert result.stderr.startswith(f"d20: error: line 2 of {noted}: receipt #4 has ")
        assert "verify needs at least 16" in result.stderr
        assert len(result.stderr.splitlines()) == 1


def test_a_session_renumbered_is_caught(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    """The receipt binds the session's number: rows renumbered to session 2, their
    receipts and hash chain made again, fail against the receipts the table saw."""
    rows, seed, promise, seen = played
    forged = copy.deepcopy(rows)
    for row in forged:
        row["session"] = 2
    kept = verify(write(tmp_path, rereceipt(copy.deepcopy(forged), promise, False)), seed)
    assert kept.exit_code == 1
    assert "FAILED: its receipt is not that of its request, time, character, position and " in (
        kept.stdout
    )
    remade = write(tmp_path, rereceipt(forged, promise))
    assert verify(remade, seed).exit_code == 0  # with the seed alone, nothing tells
    result = verify(remade, seed, "--receipts", seen)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith(
        "row 1 (id 1, position 0): FAILED: the table saw receipt "
    )


def test_receipts_of_d20_0_1_0_verify_without_the_tables_only(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    """An export of d20 0.1.0, whose receipts hold no session number, still verifies with
    the seed alone; held to receipts the table saw, it does not (they cannot bind its
    session, and 0.1.0 showed 12 hex digits, which verify refuses anyway)."""
    rows, seed, promise, seen = played
    found = read_secret(seed)
    assert found is not None
    older = copy.deepcopy(rows)
    for row in older:  # as d20 0.1.0 made them: scheme 1, the dice from the seed alone
        for name in SCHEME_FIELDS:
            row.pop(name)
        row.update(replayed(row, found[0], [MAX_VERIFY_WORK]))
    old = write(tmp_path, rereceipt(older, promise, old=True))
    result = verify(old, seed)
    assert result.exit_code == 0, result.output
    result = verify(old, seed, "--receipts", seen)
    assert result.exit_code == 1
    assert "FAILED: its receipt is of d20 0.1.0, which does not bind the session number" in (
        result.stdout
    )


@pytest.mark.parametrize(
    "line",
    [
        "1" + " " * 30_000 + "z",  # took hours: a run of spaces tried in every split
        "1 :" + " " * 30_000 + "z",
        "sealed #1 (session " + " " * 30_000 + "z",
        "sealed " * 5_000,
        "sealed #1 receipt " + "a" * 65 + " ",
    ],
)
def test_a_receipts_file_is_read_in_one_pass(line: str, tmp_path: Path) -> None:
    """Each line of the largest receipts file verify reads (4 MiB) of such text is read
    once (bench_bounds.py times it): no receipt in it, one line."""
    from d20cli.app.commands.verify_files import MAX_RECEIPTS_BYTES

    path = tmp_path / "seen.txt"
    text = (line + "\n") * (MAX_RECEIPTS_BYTES // (len(line) + 1))
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ParseError, match="holds no receipts"):
        read_receipts(str(path))
    path.write_text(text.replace("\n", " "), encoding="utf-8")  # one line of 4 MiB
    with pytest.raises(ParseError, match="holds no receipts"):
        read_receipts(str(path))


@pytest.mark.parametrize("opening", ["[", '{"a":', '{"position": 0, "hash": ['])
def test_a_json_line_nested_deeply_is_a_one_line_error(opening: str, tmp_path: Path) -> None:
    path = tmp_path / "seen.txt"
    closing = "".join("]" if c == "[" else "}" for c in reversed(opening * 100_000) if c in "[{")
    path.write_text('{"receipt": ' + opening * 100_000 + closing + "}\n", encoding="utf-8")
    result = verify(str(path), "a" * 64 + ":" + "b" * 32, "--receipts", str(path))
    assert result.exit_code == 2, result.output
    assert result.stderr == f"d20: error: line 1 of {path} is JSON nested too deeply\n"


def test_a_row_nested_deeply_anywhere_is_no_traceback(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    """Every JSON and TOML text verify reads: a row's field nested 100,000 deep is a
    one-line error (exit status 2); a table roll's TOML nested so deep fails its row."""
    rows, seed, promise, _ = played
    deep = tmp_path / "deep.json"
    text = json.dumps(rows)
    deep.write_text(text.replace('"dice": [', '"dice": ' + "[" * 100_000, 1), encoding="utf-8")
    result = verify(str(deep), seed)
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "nested too deeply" in result.stderr
    table = copy.deepcopy(rows[:1])
    table[0]["replay"] = {
        "@": "TableRoll",
        "text": table[0]["request"],
        "table": "t",
        "system": "levelup",
        "files": {"t": 'die = "1d2"\nx = ' + "[" * 30_000 + "]" * 30_000 + "\n"},
    }
    result = verify(write(tmp_path, rereceipt(table, promise)), seed)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "FAILED: cannot be rolled again: t: not valid TOML: nested too deeply" in result.stdout


# --- one session's export, and verify's summary (item 9) ---------------------------------


def test_one_sessions_export_and_a_summary(
    played: tuple[list[dict[str, Any]], str, str, str], tmp_path: Path
) -> None:
    """`log --export json --session N` holds that session's rows alone, with a hash
    chain of its own; verify of the whole history prints a summary line for the other
    rows, not one line each."""
    rows, seed, _, seen = played
    assert d20(["roll", "1d4"]).exit_code == 0  # after the session: not one of its rolls
    d20(["seal"])
    assert d20(["roll", "1d8"]).exit_code == 0
    d20(["unseal"])
    first = d20(["log", "--export", "json", "--session", "1"])
    assert first.exit_code == 0
    assert json.loads(first.stdout) == rows
    second = json.loads(d20(["log", "--export", "json", "--session", "2"]).stdout)
    assert [(r["session"], r["position"], r["prev_hash"]) for r in second] == [(2, 0, GENESIS)]
    everything = json.loads(d20(["log", "--export", "json"]).stdout)
    assert len(everything) == 7
    result = verify(write(tmp_path, everything), seed, "--receipts", seen)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "2 other rows of the log (not rolls of this session): not checked but for the hash chain",
        result.stdout.splitlines()[-1],
    ]
    assert result.stdout.splitlines()[-1].startswith("verified: 5 rolls of session 1")
    report = json.loads(verify(write(tmp_path, everything), seed, "--json").stdout)
    assert report["other_rows"] == 2 and len(report["rows"]) == 7
    every = verify(write(tmp_path, everything), seed, "--rows").stdout.splitlines()
    assert every[0] == "row 1 (id 1, position 0): ok" and len(every) == 8
    missing = d20(["log", "--export", "json", "--session", "3"])
    assert missing.exit_code == 2
    assert missing.stderr.startswith("d20: error: there is no sealed session 3")
    assert d20(["log", "--clear", "--yes", "--session", "1"]).exit_code == 2


# --- the export read a piece at a time (item 14) ------------------------------------------


def test_the_export_is_read_in_pieces(
    played: tuple[list[dict[str, Any]], str, str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pieces of a few bytes, split anywhere in a row or a number: the same verdict; a row
    larger than a row may be is refused, not read whole; a broken file is named."""
    from d20cli.app.commands import verify_files as verify_module

    rows, seed, _, seen = played
    text = json.dumps(rows, indent=1, ensure_ascii=False)
    path = tmp_path / "pretty.json"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(verify_module, "CHUNK", 7)
    result = verify(str(path), seed, "--receipts", seen)
    assert result.exit_code == 0, result.output
    monkeypatch.setattr(verify_module, "MAX_ROW_BYTES", 200)
    result = verify(str(path), seed)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"d20: error: row 1 of {path} is larger than")
    monkeypatch.undo()
    # a byte order mark, split across the first pieces as a slow pipe may give it
    path.write_bytes("\ufeff".encode() + text.encode())
    monkeypatch.setattr(verify_module, "CHUNK", 1)
    assert verify(str(path), seed).exit_code == 0
    monkeypatch.undo()
    for content, message in (
        (text[:-5], "is not JSON: "),
        (text + "[]", "something follows the closing ']'"),
        (text.replace("\n },\n {", "\n } x\n {", 1), "row 1 is followed by 'x', not ',' or ']'"),
    ):
        path.write_text(content, encoding="utf-8")
        result = verify(str(path), seed)
        assert result.exit_code == 2 and message in result.stderr, (message, result.stderr)


def test_verify_holds_a_piece_of_the_export_not_all_of_it(tmp_path: Path) -> None:
    """The memory verify takes for an export of many rows is well below the export's
    size (parsing it whole took about six times its size: 60 MB for this one)."""
    import tracemalloc

    from d20cli.app.commands.verify import check
    from d20cli.app.commands.verify_files import read_export

    row = {
        "id": 0,
        "at": "2026-12-01T21:00:00.000+00:00",
        "character": None,
        "system": "levelup",
        "verb": "roll",
        "request": "roll 1d6",
        "dice": [{"sides": 6, "face": 3, "kept": True, "role": "roll"}],
        "total": 3,
        "outcome": None,
        "source": "random",
        "house": None,
        "session": None,
        "position": None,
        "replay": None,
        "commitment": None,
        "receipt": None,
    }
    rows = rereceipt([dict(row, id=i) for i in range(1, 20_001)], GENESIS, receipts=False)
    path = write(tmp_path, rows)
    size = Path(path).stat().st_size
    del rows
    tracemalloc.start()
    try:
        report = check(read_export(path), bytes(32), bytes(16))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.others == 20_000 and report.chain_break is None
    assert peak < size, (peak, size)


# --- the request's text against the request rolled (item 5) ---------------------------------


def forge_replay(row: dict[str, Any], shown: str, rolled: str, seed: str) -> None:
    """The row's replay made `rolled` while its text stays `shown`, its dice, total and
    outcome as the seed gives them for `rolled`."""
    from d20cli.dice.sealed import read_secret

    found = read_secret(seed)
    assert found is not None
    row["replay"] = {**encode(parse_request(rolled)), "text": shown}
    key = dice_key(found[0], row.get("scheme", 1), row.get("salt"))
    row.update(replayed(row, key, [MAX_VERIFY_WORK]))
    assert row["request"] == shown


@pytest.mark.parametrize(
    ("shown", "rolled", "problem"),
    [
        ("check +5 vs 15", "check +15 vs 15", "is not the request rolled (they differ at modifier"),
        ("check +5 vs 15", "check +5 vs 5", "is not the request rolled (they differ at target"),
        ("check +5 vs 15 adv", "check +5 vs 15", "is not the request rolled (they differ at adv"),
        ("roll 1d6", "roll 1d20", "is not the request rolled (they differ at expr.sides"),
        ("check +5 vs 15 (the DM said +15)", "check +15 vs 15", "is not a request"),
        ("check +5 vs 15 \u202e51+", "check +15 vs 15", "holds control or bidi characters"),
    ],
)
def test_a_replay_its_text_does_not_spell_is_refused(
    played: tuple[list[dict[str, Any]], str, str, str],
    tmp_path: Path,
    shown: str,
    rolled: str,
    problem: str,
) -> None:
    """`check +5 vs 15` that rolled +15 (d20 11, total 26, success): the seed gives those
    dice, the receipts are made again, and still the row fails."""
    rows, seed, promise, _ = played
    forged = copy.deepcopy(rows)
    forge_replay(forged[0], shown, rolled, seed)
    result = verify(write(tmp_path, rereceipt(forged, promise)), seed)
    assert result.exit_code == 1, result.output
    line = result.stdout.splitlines()[0]
    assert line.startswith("row 1 (id 1, position 0): FAILED: its request text") and problem in line
    assert "\u202e" not in result.stdout


def test_what_the_text_cannot_show_is_allowed(tmp_path: Path) -> None:
    """House rules (named in the row's `house`) and a character's entries where the text
    names them (`group stealth vs 12 --as aria,bob`, `roll 1d20+dex`) are not in the text:
    an honest session with them verifies."""
    write_sheet(
        '[aria]\nsystem = "levelup"\nlucky = true\nstealth = "+7"\ndex = "+3"\n'
        'perception = "+4 vs 12"\n[bob]\nsystem = "levelup"\nstealth = "+2"\n'
    )
    assert d20(["config", "set", "levelup.crit", "19"]).exit_code == 0
    d20(["seal"])
    for args in (
        ["group", "stealth", "vs", "12", "--as", "aria,bob"],
        ["roll", "1d20+dex", "--as", "aria"],
        ["attack", "+5", "vs", "14"],
        ["check", "perception", "vs", "15", "--as", "aria"],  # shown `+4 vs 12 vs 15`
        ["group", "stealth,", "perception", "vs", "12", "--as", "aria"],
    ):
        assert d20(args).exit_code == 0, args
    seed = json.loads(d20(["unseal", "--json"]).stdout)["seed"]
    rows = json.loads(d20(["log", "--export", "json", "--session", "1"]).stdout)
    assert rows[2]["house"] == {"crit": 19}
    result = verify(write(tmp_path, rows), seed)
    assert result.exit_code == 0, result.output
    forged = copy.deepcopy(rows)
    forged[1]["character"] = None  # no character: the name has no entry to stand for
    prev = GENESIS
    for row in forged:
        row["prev_hash"] = prev
        row["hash"] = prev = row_hash(row)
    assert "its request text" in verify(write(tmp_path, forged), seed).stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty, not a roll log export"),
        (b'{"a": 1', "is not JSON"),
        (b"[", "is not JSON: row 1: "),
        (b'[{"id": ' + b"9" * 5000 + b"}]", "row 1: Exceeds the limit"),
        (b"[1 ", "row 1 of the export is not a JSON object"),
    ],
)
def test_broken_exports_are_one_line_errors(content: bytes, message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    result = verify(str(path), "a" * 64 + ":" + "b" * 32)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("d20: error: ") and message in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1


# --- what verify parses is counted (issue 40, item 7) --------------------------------------


def _rows_of(texts: list[str], played_row: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of the played session at positions 0, 1, ... with these request texts (their
    replay the played row's: verify rolls each again, then parses its text)."""
    rows = []
    for i, text in enumerate(texts):
        rows.append({**copy.deepcopy(played_row), "id": i + 1, "position": i, "request": text})
    return rows


def test_verify_parses_each_text_once_and_at_most_its_budget(
    played: tuple[list[dict[str, Any]], str, str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each sealed row's text is parsed with the grammar, 100-200 microseconds a
    character: an export of different long texts (10,000 characters each, about 2 s of
    parsing) took hours at 64 MiB. Now each different text is parsed once, and all of them
    together at most MAX_PARSED characters (PARSE_COST more each): past that, one line
    and exit status 2, at the row that passes it."""
    from d20cli.app.commands import verify_text
    from d20cli.language import grammar

    rows, seed, promise, _ = played
    parsed: list[str] = []
    parse = grammar.parse_request

    def counted(text: str) -> Any:
        parsed.append(text)
        return parse(text)

    monkeypatch.setattr(grammar, "parse_request", counted)
    monkeypatch.setattr(verify_text, "MAX_PARSED", 1_000)
    same = _rows_of(["check +5 vs 15 " + "x" * 400] * 300, rows[0])
    result = verify(write(tmp_path, rereceipt(same, promise)), seed)
    assert result.exit_code == 1  # (the text is not the request rolled: parsed, refused)
    assert "is not the request rolled (they differ at name)" in result.stdout
    assert len(parsed) == 1
    parsed.clear()
    texts = [f"check +{i} vs 15 " + "x" * 400 for i in range(300)]
    result = verify(write(tmp_path, rereceipt(_rows_of(texts, rows[0]), promise)), seed)
    assert result.exit_code == 2
    assert result.stderr == (
        "d20: error: row 3 of the export: its request texts and tables hold more than 1,000 "
        "characters for verify to parse (each different one once; an evening's rolls hold "
        "far fewer): refused\n"
    )
    assert len(parsed) == 2  # 2 x (416 + PARSE_COST) fit in 1,000; the third does not
    assert verify_text.MAX_PARSED == 1_000 and verify_text.PARSE_COST == 16


def test_verify_reads_each_set_of_tables_once_within_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table roll's row keeps its tables' text (up to 64 KiB), which verify reads to
    roll it again: each different text once, counted with the request texts (its `{...}`
    rolls, which the grammar reads, and a 64th of the rest)."""
    from d20cli.app import sealed
    from d20cli.app.commands import verify_text
    from d20cli.store.tables import tables_dir

    read: list[str] = []
    tables = sealed.read_tables

    def counted(root: str, files: dict[str, str]) -> Any:
        read.append(root)
        return tables(root, files)

    monkeypatch.setattr(sealed, "read_tables", counted)
    Path(tables_dir()).mkdir(parents=True)
    road = 'die = "1d2"\n[entries]\n"1" = "a {1d4} x"\n"2" = "b"\n'
    (Path(tables_dir()) / "road.toml").write_text(road, encoding="utf-8")
    promise = json.loads(d20(["seal", "--json"]).stdout)["commitment"]
    for _ in range(5):
        assert d20(["table", "road"]).exit_code == 0
    seed = json.loads(d20(["unseal", "--json"]).stdout)["seed"]
    rows = json.loads(d20(["log", "--export", "json"]).stdout)
    assert verify(write(tmp_path, rows), seed).exit_code == 0
    assert read == ["road"]
    from d20cli.app.commands import verify as verify_module

    with monkeypatch.context() as patched:  # a table's die counts TABLE_WORK: 24 is none
        patched.setattr(verify_module, "MAX_VERIFY_WORK", verify_module.TABLE_WORK - 1)
        result = verify(write(tmp_path, rows), seed)
    assert result.exit_code == 1
    assert result.stdout.startswith("row 1 (id 1, position 0): FAILED: cannot be rolled again")
    monkeypatch.setattr(verify_text, "MAX_PARSED", 30)  # 21 a set: {1d4}, and PARSE_COST
    for i, row in enumerate(rows):  # each row's tables made different (a comment)
        row["replay"]["files"]["road"] += f"# {i}\n"
    result = verify(write(tmp_path, rereceipt(rows, promise)), seed)
    assert result.exit_code == 2
    assert "row 2 of the export: its request texts and tables hold more than 30 " in (result.stderr)


def test_verify_rolls_a_bounded_number_of_dice_and_a_table_die_counts_more(
    played: tuple[list[dict[str, Any]], str, str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """verify rolls at most MAX_VERIFY_WORK dice again in all, a die of a table roll counting
    TABLE_WORK (it picks an entry and rolls its text's rolls): the rows past that fail,
    they are not rolled."""
    from d20cli.app.commands import verify as verify_module

    rows, seed, _, _ = played
    assert verify_module.TABLE_WORK == 25
    used = [0]
    replayed_as = verify_module.replayed

    def counted(row: dict[str, Any], seed: bytes, work: list[int], texts: Any = None) -> Any:
        before = work[0]
        try:
            return replayed_as(row, seed, work, texts)
        finally:
            used[0] += before - work[0]

    monkeypatch.setattr(verify_module, "replayed", counted)
    result = verify(write(tmp_path, rows), seed)
    assert result.exit_code == 0
    needed = used[0]  # the dice of the session's five rolls
    monkeypatch.setattr(verify_module, "MAX_VERIFY_WORK", needed - 1)
    result = verify(write(tmp_path, rows), seed)
    assert result.exit_code == 1
    assert "FAILED: cannot be rolled again" in result.stdout.splitlines()[-2]
