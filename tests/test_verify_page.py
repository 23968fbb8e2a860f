"""`d20 verify --page FILE.html` (issue 47 item 4): the page that verifies a sealed
session's export in a browser with d20cli's own verification, run by Pyodide.

The verification is one pure function (`verdict_json`: the export's text in, the verdict
out) that `d20 verify` and the page share, so their verdicts are compared here line for
line. The page itself runs in Debian's chromium (tests/browser_helpers.py), against
exports that verify and exports that were tampered with. Without chromium or Pyodide's
files (scripts/get_pyodide.py) those tests are skipped, but in CI (`CI` set, as .ci/run
is run, which installs both) they fail instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from d20cli.app.cli import app
from d20cli.app.commands import verify_page
from d20cli.app.commands.verify import verdict_json
from d20cli.errors import ParseError
from tests.browser_helpers import Browser, chromium
from tests.state_helpers import close_opened

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _logging(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    yield
    close_opened()


def d20(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result


def sealed_evening(tmp_path: Path) -> tuple[str, str, str]:
    """A sealed session of a check, an attack with damage and an initiative roll: the
    paths of its export and of the receipts the table saw, and its seed."""
    assert d20("seal").exit_code == 0
    seen = []
    for words in (
        ["check", "+5", "vs", "15"],
        ["attack", "+7", "vs", "AC", "12", "dmg", "1d8+4"],
        ["init", "add", "goblin", "+2"],
        ["roll", "4d6kh3"],
    ):
        result = d20(*words)
        assert result.exit_code in (0, 1), result.output
        seen.append(result.stdout)
    closed = d20("unseal", "--json")
    secret: str = json.loads(closed.stdout)["seed"]
    exported = d20("log", "--export", "json", "--session", "1")
    assert exported.exit_code == 0
    export = tmp_path / "rolls.json"
    export.write_text(exported.stdout, encoding="utf-8")
    receipts = tmp_path / "seen.txt"
    receipts.write_text("".join(seen), encoding="utf-8")
    return str(export), str(receipts), secret


SALT = "the owlbear wakes at dawn"


def salted_evening(tmp_path: Path) -> tuple[str, str, str]:
    """A sealed session with the table's salt (SALT), a roll shown, a secret roll (#1)
    and another shown, unsealed (which reveals the secret roll): the paths of its export
    and of the receipts the table saw, and its seed."""
    assert d20("seal").exit_code == 0
    assert d20("seal", "--salt", SALT).exit_code == 0
    seen = []
    for words in (["roll", "1d6"], ["check", "+3", "vs", "15", "--secret"], ["roll", "2d8"]):
        result = d20(*words)
        assert result.exit_code in (0, 1), result.output
        seen.append(result.stdout)
    assert seen[1].startswith("secret roll, sealed #1 (session 1) receipt ")
    secret: str = json.loads(d20("unseal", "--json").stdout)["seed"]
    exported = d20("log", "--export", "json", "--session", "1")
    assert exported.exit_code == 0
    export = tmp_path / "salted.json"
    export.write_text(exported.stdout, encoding="utf-8")
    receipts = tmp_path / "salted-seen.txt"
    receipts.write_text("".join(seen), encoding="utf-8")
    return str(export), str(receipts), secret


def tampered(path: str, tmp_path: Path, how: str) -> str:
    """The export at `path` changed after play (`how`), written beside it."""
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    if how == "total":
        rows[0]["total"] += 10
    elif how == "deleted":
        del rows[1]
    elif how == "time":
        rows[2]["at"] = "2020-01-01T00:00:00.000+00:00"
    elif how == "request":  # a request rewritten, the chain made again: receipts catch it
        rows[0]["request"] = "check +5 vs 10"
    out = tmp_path / f"rolls-{how}.json"
    out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return str(out)


def cli_verdict(
    export: str, secret: str, receipts: str | None, salt: str | None = None
) -> tuple[int, Any, list[str]]:
    """`d20 verify` as typed: its exit status, its --json, and its --rows lines."""
    more = [] if receipts is None else ["--receipts", receipts]
    more += [] if salt is None else ["--salt", salt]
    as_json = d20("verify", export, secret, *more, "--json")
    as_text = d20("verify", export, secret, *more, "--rows")
    assert as_json.exit_code == as_text.exit_code
    return as_json.exit_code, json.loads(as_json.stdout), as_text.stdout.splitlines()


CASES = ("good", "total", "deleted", "time", "request")


def case_export(how: str, export: str, tmp_path: Path) -> str:
    return export if how == "good" else tampered(export, tmp_path, how)


# --- one verification, in the command line and in the page ------------------------------


def test_the_page_and_the_command_line_give_one_verdict(tmp_path: Path) -> None:
    export, receipts, secret = sealed_evening(tmp_path)
    statuses = {}
    for how in CASES:
        path = case_export(how, export, tmp_path)
        for seen in (receipts, None):
            status, as_json, lines = cli_verdict(path, secret, seen)
            text = Path(seen).read_text(encoding="utf-8") if seen else ""
            page = json.loads(verdict_json(Path(path).read_text(encoding="utf-8"), secret, text))
            assert (page["status"], page["verdict"], page["lines"]) == (status, as_json, lines)
            statuses[how, seen is not None] = status
    assert statuses["good", True] == statuses["good", False] == 0
    assert all(statuses[how, True] == 1 for how in CASES[1:])
    assert statuses["request", False] == 1  # (its receipt no longer follows from it)


@pytest.mark.parametrize("salt", [SALT, "another salt", None])
def test_the_page_and_the_command_line_give_one_verdict_on_salt_and_secret_rolls(
    tmp_path: Path, salt: str | None
) -> None:
    export, receipts, secret = salted_evening(tmp_path)
    text = Path(export).read_text(encoding="utf-8")
    seen = Path(receipts).read_text(encoding="utf-8")
    status, as_json, lines = cli_verdict(export, secret, receipts, salt)
    page = json.loads(verdict_json(text, secret, seen, "", salt or ""))
    assert (page["status"], page["verdict"], page["lines"]) == (status, as_json, lines)
    assert (as_json["scheme"], as_json["salt"], as_json["secret_rolls"]) == (2, SALT, [1])
    assert as_json["salt_given_ok"] is (None if salt is None else salt == SALT)
    assert status == (1 if salt == "another salt" else 0)
    if salt == SALT:
        assert lines[-1].endswith(
            f'salt "{SALT}" (as the table gave it); 1 secret roll (#1), each the roll made then'
        )
    # the secret roll passed off as one shown: the receipts the table saw catch it
    rows = json.loads(text)
    rows[1]["secret"] = False
    forged = json.dumps(rows)
    page = json.loads(verdict_json(forged, secret, seen, "", salt or ""))
    assert page["status"] == 1
    assert "the table saw #1 as a secret roll; the row is not one (edited)" in page["lines"][1]


def test_input_that_is_not_an_export_is_the_error_verify_prints(tmp_path: Path) -> None:
    export, _, secret = sealed_evening(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "an export"}', encoding="utf-8")
    for path, seed in ((str(bad), secret), (export, "nonsense")):
        result = d20("verify", path, seed)
        assert result.exit_code == 2
        message = result.stderr.strip().removeprefix("d20: error: ")
        page = json.loads(verdict_json(Path(path).read_text(encoding="utf-8"), seed))
        assert page == {"status": 2, "error": message.replace(path, "the export")}
    page = json.loads(verdict_json(Path(export).read_text(encoding="utf-8"), secret, "", "zz"))
    assert page == {
        "status": 2,
        "error": "the commitment posted before play must be 64 hex digits",
    }
    page = json.loads(
        verdict_json(Path(export).read_text(encoding="utf-8"), secret, "", "", "\x1b[2J")
    )
    assert page == {
        "status": 2,
        "error": "the salt the table gave is not a salt: it holds control or bidi characters",
    }
    result = d20("verify", export, secret, "--salt", "\x1b[2J")
    assert result.exit_code == 2
    assert result.stderr == (
        "d20: error: --salt is not a salt: it holds control or bidi characters\n"
    )


def test_the_verification_needs_no_sqlite_typer_or_rich(tmp_path: Path) -> None:
    """What the page runs, in a Python that has none of them (as Pyodide has none)."""
    export, receipts, secret = sealed_evening(tmp_path)
    code = (
        "import sys, json\n"
        "for m in ('sqlite3', '_sqlite3', 'typer', 'click', 'rich', 'prompt_toolkit', "
        "'tomlkit'):\n"
        "    sys.modules[m] = None\n"
        "from d20cli.app.commands.verify import verdict_json\n"
        "args = [open(p, encoding='utf-8').read() for p in sys.argv[1:3]]\n"
        "out = json.loads(verdict_json(args[0], sys.argv[3], args[1]))\n"
        "print(out['status'], out['lines'][-1])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, export, receipts, secret],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0 verified: 4 rolls of session 1"), done.stdout


# --- writing the page ----------------------------------------------------------------------


def test_verify_page_without_pyodide_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("D20_PYODIDE", raising=False)
    monkeypatch.setattr(verify_page, "KIT_DIR", tmp_path / "none")
    result = d20("verify", "--page", str(tmp_path / "v.html"))
    assert result.exit_code == 2
    assert result.stderr.startswith("d20: error: --page needs Pyodide 0.28.3's files")
    assert "scripts/get_pyodide.py" in result.stderr and "D20_PYODIDE" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "v.html").exists()


def test_verify_page_refuses_pyodide_files_it_was_not_checked_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = tmp_path / "kit"
    kit.mkdir()
    for name in verify_page.PYODIDE_FILES:
        (kit / name).write_bytes(b"not pyodide")
    monkeypatch.setenv("D20_PYODIDE", str(kit))
    result = d20("verify", "--page", str(tmp_path / "v.html"))
    assert result.exit_code == 2
    assert "is not Pyodide 0.28.3's pyodide.js (its SHA-256 differs)" in result.stderr
    monkeypatch.setenv("D20_PYODIDE", str(tmp_path / "nowhere"))
    result = d20("verify", "--page", str(tmp_path / "v.html"))
    assert result.exit_code == 2 and "which is not a folder" in result.stderr
    assert not (tmp_path / "v.html").exists()


def test_verify_takes_a_log_and_a_seed_or_page_alone(tmp_path: Path) -> None:
    for args in ([], ["rolls.json"]):
        result = d20("verify", *args)
        assert result.exit_code == 2
        assert result.stderr == (
            "d20: error: verify needs LOG and SEED: d20 verify LOG SEED (or --page FILE.html)\n"
        )
    result = d20("verify", "rolls.json", "--page", str(tmp_path / "v.html"))
    assert result.exit_code == 2
    assert result.stderr == "d20: error: --page writes the page alone: give it no LOG or SEED\n"


def _kit_or_skip() -> Path:
    try:
        return verify_page.pyodide_dir()
    except ParseError as err:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the verify page's tests: {err.message}")
        pytest.skip(f"no Pyodide files here ({err.message})")


def test_the_page_is_one_file_that_connects_nowhere(tmp_path: Path) -> None:
    _kit_or_skip()
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    result = d20("verify", "--page", str(first))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {first} (")
    assert "needs no network" in result.stdout
    assert d20("verify", "--page", str(second), "--json").exit_code == 0
    assert first.read_bytes() == second.read_bytes()  # one install, one page
    text = first.read_text(encoding="utf-8")
    assert "connect-src 'none'" in text and "default-src 'none'" in text
    assert "<script src" not in text and "<link" not in text and "@pyodide" not in text
    # the page's d20cli is this one: its verification, byte for byte
    made = verify_page.wheels()
    import io
    import zipfile

    (name,) = (n for n in made if n.startswith("d20cli-"))
    with zipfile.ZipFile(io.BytesIO(made[name])) as whl:
        inside = whl.read("d20cli/app/commands/verify.py")
        assert not any(n.startswith("d20cli/page/") for n in whl.namelist())
    assert inside == (ROOT / "d20cli/app/commands/verify.py").read_bytes()


# --- the page in a real browser ------------------------------------------------------------


@pytest.fixture(scope="module")
def page_in_browser(tmp_path_factory: pytest.TempPathFactory) -> Any:
    _kit_or_skip()
    if chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the verify page's tests: chromium is not installed")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    page = tmp_path_factory.mktemp("page") / "verify.html"
    page.write_text(verify_page.page_text(), encoding="utf-8")
    browser = Browser()
    try:
        browser.open(page.as_uri())
        assert browser.evaluate("window.d20ready") is True
        yield browser
    finally:
        browser.close()


def _through_the_form(
    browser: Browser, export: str, receipts: str | None, secret: str, salt: str = ""
) -> Any:
    """The export and receipts chosen in the page's file inputs, the seed and the salt
    typed, Verify clicked, as a person does: what the page then shows."""
    browser.evaluate(
        "document.body.dataset.verdict = ''; document.getElementById('receipts').value = ''"
    )
    browser.choose_file("#export-file", export)
    if receipts is not None:
        browser.choose_file("#receipts-file", receipts)
    shown = browser.evaluate(
        f"""(async () => {{
        const $ = (id) => document.getElementById(id);
        for (let i = 0; i < 600 && !$('files').textContent.startsWith('Export: '
             + {json.dumps(Path(export).name)}); i++)
            await new Promise((r) => setTimeout(r, 50));
        for (let i = 0; i < 600 && {json.dumps(receipts is not None)} && !$('receipts').value; i++)
            await new Promise((r) => setTimeout(r, 50));
        $('seed').value = {json.dumps(secret)};
        $('salt').value = {json.dumps(salt)};
        $('verify').click();
        while (!document.body.dataset.verdict) await new Promise((r) => setTimeout(r, 50));
        return {{verdict: document.body.dataset.verdict, headline: $('headline').textContent,
                 lines: $('lines').textContent, rows: $('rows').tBodies[0].rows.length,
                 summary: Object.fromEntries([...$('summary').tBodies[0].rows].map(
                     (tr) => [tr.cells[0].textContent, tr.cells[1].textContent]))}};
        }})()"""
    )
    return shown


@pytest.mark.parametrize("how", CASES)
def test_the_page_in_chromium_gives_verifys_verdict(
    page_in_browser: Browser, tmp_path: Path, how: str
) -> None:
    export, receipts, secret = sealed_evening(tmp_path)
    path = case_export(how, export, tmp_path)
    status, as_json, lines = cli_verdict(path, secret, receipts)
    shown = _through_the_form(page_in_browser, path, receipts, secret)
    assert shown["verdict"] == ("verified" if status == 0 else "failed")
    assert shown["lines"].splitlines() == lines
    assert shown["headline"] == lines[-1]
    assert shown["rows"] == len(as_json["rows"])
    if how == "good":
        assert lines[-1].startswith("verified: 4 rolls of session 1")
        assert lines[-1].endswith(
            "4 receipts seen at the table match; no salt (the seed alone: its player could "
            "have chosen it)"
        )
    else:
        assert lines[-1].startswith("NOT verified: ")
    assert page_in_browser.errors == []


def test_the_page_in_chromium_shows_bad_input_as_verify_does(
    page_in_browser: Browser, tmp_path: Path
) -> None:
    export, _, secret = sealed_evening(tmp_path)
    shown = _through_the_form(page_in_browser, export, None, secret[:-1] + "g")
    assert shown["verdict"] == "error"
    result = d20("verify", export, secret[:-1] + "g")
    assert result.exit_code == 2
    assert shown["lines"] == result.stderr.strip()
    assert shown["headline"] == "error: " + result.stderr.strip().removeprefix("d20: error: ")


@pytest.mark.parametrize("salt", [SALT, "another salt"])
def test_the_page_in_chromium_checks_the_salt_and_secret_rolls(
    page_in_browser: Browser, tmp_path: Path, salt: str
) -> None:
    export, receipts, secret = salted_evening(tmp_path)
    status, as_json, lines = cli_verdict(export, secret, receipts, salt)
    shown = _through_the_form(page_in_browser, export, receipts, secret, salt)
    assert status == (0 if salt == SALT else 1)
    assert shown["verdict"] == ("verified" if salt == SALT else "failed")
    assert shown["lines"].splitlines() == lines
    assert shown["headline"] == lines[-1]
    assert shown["rows"] == len(as_json["rows"]) == 3
    assert shown["summary"]["scheme"] == "2"
    assert shown["summary"]["salt"] == json.dumps(SALT)
    assert shown["summary"]["secret rolls"] == "#1"
    assert shown["summary"]["salt the table gave"] == (
        "the export's" if salt == SALT else "NOT the export's"
    )
    if salt != SALT:
        assert lines[-1] == "NOT verified: the salt is not the one the table gave"
    assert page_in_browser.errors == []
