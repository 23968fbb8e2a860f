"""Posting rolls to a webhook (d20cli.app.posting, issue 47 item 1), against a receiver on
127.0.0.1 that records what it is sent and misbehaves on purpose (tests/webhook_helpers):
the plain JSON and Discord forms, `post.only = "sealed"`, a failed post queued and sent
again by `d20 post --retry`, rate limits, receivers that hang, drip, redirect forever,
answer 10 MB or show a certificate that does not verify, and a run killed with kill -9
while its posts are pending: nothing lost, nothing taken twice. The URL is a secret: no
output holds it.

Every test runs in the isolated home of tests/conftest.py, with the roll log on."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import ssl
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from d20cli.app import posting
from d20cli.store.config import config_path
from d20cli.store.database import db_path
from tests.cli_helpers import d20
from tests.state_helpers import close_opened
from tests.webhook_helpers import Receiver, _handler, receiver

ROOT = Path(__file__).resolve().parent.parent
SECRET = "s3cr3t-t0ken"  # the key in every test webhook's URL (webhook_helpers)


@pytest.fixture(autouse=True)
def _logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    monkeypatch.delenv("D20_POST", raising=False)
    yield
    close_opened()


def no_secret(*texts: str) -> None:
    for text in texts:
        assert SECRET not in text


def waiting() -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path()) as conn:
        return conn.execute("SELECT id, tries, error, due FROM posts ORDER BY id").fetchall()


def test_a_roll_is_posted_as_plain_json(capsys: pytest.CaptureFixture[str]) -> None:
    with receiver() as hook:
        code, out, err = d20(
            ["check", "+5", "vs", "15", "--dice", "11", "--post", hook.url], capsys
        )
    assert code == 0, err
    assert "= 16 vs 15  Success" in out
    [body] = hook.taken
    assert {k: body[k] for k in ("request", "system", "verb", "total", "outcome", "sealed")} == {
        "request": "check +5 vs 15",
        "system": "levelup",
        "verb": "check",
        "total": 16,
        "outcome": "success",
        "sealed": None,
    }
    assert body["dice"] == [{"sides": 20, "face": 11, "kept": True, "role": "d20"}]
    assert hook.headers[0]["Idempotency-Key"] == body["id"]
    assert hook.paths == [f"/api/webhooks/42/{SECRET}"]
    assert waiting() == []  # taken: it leaves the queue
    no_secret(out, err)


def test_a_discord_webhook_gets_a_compact_message_with_the_receipt(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with receiver() as hook:
        assert d20(["config", "set", "post.url", hook.url], capsys)[0] == 0
        assert d20(["config", "set", "post.format", "discord"], capsys)[0] == 0
        assert d20(["seal"], capsys)[0] == 0
        code, out, err = d20(["roll", "1d20+2", "[@everyone", "**bold**]"], capsys)
    assert code == 0, err
    receipt = out.split("receipt ")[1].split()[0]
    [body] = hook.taken
    assert set(body) == {"content", "username", "allowed_mentions"}
    assert body["allowed_mentions"] == {"parse": []}  # no one is pinged
    content = body["content"]
    assert content.startswith("Rolled `roll 1d20+2 [@everyone **bold**]` (levelup)")
    assert f"sealed #0 (session 1) receipt `{receipt}`" in content
    assert "total **" in content
    no_secret(out, err)
    # the channel's posts, saved, are receipts `d20 verify --receipts` reads
    from d20cli.app.commands.verify_files import receipts_of

    assert receipts_of(content) == ({0: receipt}, set())


def test_post_only_sealed_posts_a_sealed_sessions_rolls_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with receiver() as hook:
        d20(["config", "set", "post.url", hook.url], capsys)
        d20(["config", "set", "post.only", "sealed"], capsys)
        assert d20(["check", "+1", "vs", "10"], capsys)[0] == 0
        d20(["seal"], capsys)
        assert d20(["check", "+2", "vs", "10"], capsys)[0] == 0
    assert [b["request"] for b in hook.taken] == ["check +2 vs 10"]
    assert hook.taken[0]["sealed"]["position"] == 0


def test_d20_post_turns_a_config_url_off(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with receiver() as hook:
        d20(["config", "set", "post.url", hook.url], capsys)
        monkeypatch.setenv("D20_POST", "off")
        assert d20(["check", "+1", "vs", "10"], capsys)[0] == 0
        monkeypatch.setenv("D20_POST", hook.url)
        d20(["config", "unset", "post.url"], capsys)
        assert d20(["check", "+2", "vs", "10"], capsys)[0] == 0
    assert [b["request"] for b in hook.taken] == ["check +2 vs 10"]


def test_a_failed_post_waits_and_post_retry_sends_it(capsys: pytest.CaptureFixture[str]) -> None:
    with receiver(["500"]) as hook:
        code, out, err = d20(["check", "+5", "vs", "15", "--post", hook.url], capsys)
        assert code == 0 and out.startswith("check +5 vs 15")
        assert "could not post (http://127.0.0.1:" in err
        assert "answered 500" in err and "d20 post --retry" in err
        [(_, tries, error, _)] = waiting()
        assert tries == 1 and error.startswith("answered 500")
        code, out, _ = d20(["post", "--status"], capsys)
        assert code == 0
        assert "1 post waits for http://127.0.0.1:" in out and "tried 1 time: answered 500" in out
        # the next roll does not try before the backoff: it waits behind the first
        d20(["check", "+6", "vs", "15", "--post", hook.url], capsys)
        assert len(waiting()) == 2 and len(hook.received) == 1
        code, out, err = d20(["post", "--retry"], capsys)
        assert (code, out) == (0, "posted 2; none wait\n")
    assert [b["request"] for b in hook.taken] == ["check +5 vs 15", "check +6 vs 15"]
    assert d20(["post", "--status", "--json"], capsys)[1] == '{"waiting": 0, "webhooks": []}\n'
    no_secret(out, err)


def test_post_retry_says_what_still_waits_with_exit_status_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/api/webhooks/42/{SECRET}"
    code, out, err = d20(["check", "+5", "vs", "15", "--post", url], capsys)
    assert code == 0 and "connection refused" in err  # no receiver: the roll is made
    code, out, err = d20(["post", "--retry", "--json"], capsys)
    assert code == 1
    found = json.loads(out)
    assert found["sent"] == 0 and found["waiting"] == 1
    assert "connection refused" in found["problems"][0]
    with receiver(port=port) as hook:  # the receiver is back
        code, out, _ = d20(["post", "--retry"], capsys)
    assert code == 0 and len(hook.taken) == 1
    no_secret(out, err)


def test_post_retry_says_how_long_it_may_wait(capsys: pytest.CaptureFixture[str]) -> None:
    """`d20 post --retry` waits up to RETRY_WAIT for a slow or rate-limiting receiver: its
    help and the "Playing online" page say how long."""
    said = f"at most {posting.RETRY_WAIT:g} seconds in all"
    code, out, _ = d20(["post", "--help"], capsys)
    assert code == 0 and said in " ".join(out.split())
    page = Path(__file__).parent.parent / "docs" / "online.md"
    assert said in " ".join(page.read_text(encoding="utf-8").split())


def test_a_short_rate_limit_is_waited_out_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    with receiver(["429:0.1", "429j:0.1"]) as hook:
        lines = "check +1 vs 10\ncheck +2 vs 10\n"
        code = _batch(lines, ["--post", hook.url])
    assert code == 0
    assert [b["request"] for b in hook.received] == ["check +1 vs 10"] * 3 + ["check +2 vs 10"]
    assert [b["request"] for b in hook.taken] == ["check +1 vs 10", "check +2 vs 10"]
    assert waiting() == []


def test_a_long_rate_limit_keeps_the_post_waiting_that_long(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with receiver(["429:600"]) as hook:
        asked = time.time()
        code, _, err = d20(["check", "+1", "vs", "10", "--post", hook.url], capsys)
        assert code == 0 and "rate limited (429), try again in 600 s" in err
        [(_, _, _, due)] = waiting()
        assert due >= asked + 600  # not tried again before the receiver's 600 s
        code, out, _ = d20(["post"], capsys)
        assert "rate limited (429)" in out and "the next try in" in out
        assert d20(["post", "--retry"], capsys)[0] == 0  # --retry does not wait for it
    assert len(hook.taken) == 1


@pytest.mark.parametrize(
    ("behaviour", "why"),
    [
        ("hang", "no answer within|it timed out"),
        ("drip", "no answer within|it timed out"),
        ("redirect", "answered 301, a redirect, which d20 does not follow"),
        ("404", "answered 404"),
    ],
)
def test_a_hostile_receiver_cannot_hang_or_crash_d20(
    behaviour: str, why: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run ends (the test would hang otherwise) with the roll shown, exit status 0,
    the post waiting in the queue and the cause said on standard error."""
    monkeypatch.setattr(posting, "POST_WAIT", 0.5)
    with receiver([behaviour]) as hook:
        code, out, err = d20(["check", "+5", "vs", "15", "--post", hook.url], capsys)
    assert code == 0 and "check +5 vs 15" in out
    assert any(cause in err for cause in why.split("|")) and "Traceback" not in err
    [(_, tries, error, _)] = waiting()
    assert tries == 1 and any(cause in error for cause in why.split("|"))
    no_secret(out, err)


def test_a_10_mb_answer_is_read_no_further_than_its_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with receiver(["big"]) as hook:
        code, _, err = d20(["check", "+5", "vs", "15", "--post", hook.url], capsys)
    assert code == 0 and err == ""
    assert len(hook.taken) == 1 and waiting() == []


def test_a_certificate_that_does_not_verify_is_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("openssl") is None:
        if os.environ.get("CI"):  # .ci/run installs it: there it is never skipped
            pytest.fail("openssl makes the self-signed certificate: .ci/run installs it")
        pytest.skip("openssl makes the self-signed certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    found = Receiver()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(found))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "none.pem"))  # (no system trust of it)
    try:
        url = f"https://127.0.0.1:{server.server_address[1]}/api/webhooks/42/{SECRET}"
        code, out, err = d20(["check", "+5", "vs", "15", "--post", url], capsys)
    finally:
        server.shutdown()
        server.server_close()
    assert code == 0 and "its TLS certificate does not verify" in err
    assert found.taken == [] and len(waiting()) == 1
    no_secret(out, err)


def test_a_run_killed_while_posting_loses_nothing_and_posts_nothing_twice() -> None:
    """kill -9 while the receiver holds the first post without answering: the three
    rolls' posts stay queued (the claim of the dead process lapses), and `d20 post
    --retry` has the receiver take each once, in order."""
    with receiver(["hang"]) as hook:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        run = subprocess.Popen(
            [sys.executable, "-m", "d20cli", "--post", hook.url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert run.stdin is not None
        run.stdin.write(b"check +1 vs 10\ncheck +2 vs 10\ncheck +3 vs 10\n")
        run.stdin.close()
        end = time.monotonic() + 60
        while not hook.received and time.monotonic() < end:
            time.sleep(0.02)
        assert hook.received, "the run never posted"
        run.send_signal(signal.SIGKILL)
        run.wait()
        assert run.stdout is not None and run.stdout.read().count(b"check +") == 3
        assert len(waiting()) == 3  # nothing lost
        status = subprocess.run(
            [sys.executable, "-m", "d20cli", "post", "--retry"],
            capture_output=True,
            text=True,
            env=env,
        )
        assert status.returncode == 0, status.stderr
        assert status.stdout == "posted 3; none wait\n"
    requests = [b["request"] for b in hook.taken]
    assert requests == ["check +1 vs 10", "check +2 vs 10", "check +3 vs 10"]
    ids = [b["id"] for b in hook.taken]
    assert len(set(ids)) == 3 and hook.received[0]["id"] == ids[0]  # the held one, once taken
    assert waiting() == []


def test_the_url_is_a_secret_in_the_config_file_and_every_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = Path(config_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('color = "never"\n', encoding="utf-8")
    path.chmod(0o644)
    url = f"https://discord.com/api/webhooks/42/{SECRET}"
    code, out, err = d20(["config", "set", "post.url", url], capsys)
    assert code == 0
    assert out == 'post.url = "https://discord.com/..."  (the file is private: 0600)\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    shown = [d20(["config", "show"], capsys)[1], d20(["config", "show", "--json"], capsys)[1]]
    assert 'url = "https://discord.com/..."  # the rest is not shown' in shown[0]
    assert json.loads(shown[1])["post"]["url"] == "https://discord.com/..."
    no_secret(out, err, *shown)


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["config", "set", "post.url", f"ftp://x/{SECRET}"], None, "must start with https://"),
        (["config", "set", "post.only", "some"], None, "must be one of all, sealed"),
        (["check", "+1", "vs", "10", "--post", f"x/{SECRET}"], None, "--post takes a webhook"),
        (["check", "+1", "vs", "10"], f"https://u:p@h/{SECRET}", "D20_POST must be a webhook"),
        (["check", "+1", "vs", "10", "--no-log", "--post", "https://h/x"], None, "--no-log"),
        # a command that takes no --post, or a mistyped option: the line under it masked
        (["char", "list", "--post", f"https://h/{SECRET}"], None, "unknown option --post"),
        (["char", "list", f"--webhook=https://h/{SECRET}"], None, "unknown option --webhook"),
        (["check", "+1", "vs", "10", f"https://h/{SECRET}", "--bogus"], None, "--bogus"),
    ],
)
def test_a_bad_webhook_setting_is_one_line_without_the_url(
    args: list[str],
    env: str | None,
    said: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if env is not None:
        monkeypatch.setenv("D20_POST", env)
    code, _, err = d20(args, capsys)
    assert code == 2 and said in err and err.startswith("d20: error")
    assert "Traceback" not in err
    no_secret(err)


def test_a_run_that_does_not_post_imports_nothing_of_posting(tmp_path: Path) -> None:
    """The start-up guard: a logged roll with no webhook set imports neither the queue,
    the sender nor the network modules (read from sys.modules)."""
    heavy = ("d20cli.app.posting", "d20cli.store.post_queue", "http.client", "ssl")
    code = (
        "import sys\n"
        "from d20cli.__main__ import main\n"
        "main(sys.argv[1:])\n"
        f"print('LOADED', [m for m in {heavy!r} if m in sys.modules])\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("D20_NO_LOG", "D20_POST")}
    found = subprocess.run(
        [sys.executable, "-c", code, "check", "+5", "vs", "15"],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(ROOT)},
        check=True,
    ).stdout
    assert "LOADED []" in found


def _batch(lines: str, args: list[str]) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "d20cli", *args],
        input=lines,
        capture_output=True,
        text=True,
        env=env,
    ).returncode


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_luck_recap_is_posted_as_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """`d20 log --luck --recap` with a webhook: the recap printed is the recap posted, as
    plain JSON (with its figures) or as a Discord message; a failed post waits for
    `d20 post --retry`."""
    for face in (15, 3, 20):
        assert d20(["check", "+0", "vs", "11", "--seed", str(face), "-q"], capsys)[0] == 0
    with receiver() as hook:
        code, out, err = d20(["log", "--luck", "--recap", "--post", hook.url], capsys)
    assert code == 0, err
    assert out.startswith("**Luck of 3 rolls**\n- Successes: ")
    assert "d20: recap posted to http://127.0.0.1:" in err
    [body] = hook.taken
    assert (body["kind"], body["recap"]) == ("luck_recap", out.rstrip("\n"))
    assert body["luck"]["priced"] == 3 and body["luck"]["successes"]["expected"] == 1.5
    assert waiting() == []
    no_secret(out, err)

    with receiver(["500"]) as hook:
        code, out, err = d20(["log", "--luck", "--recap", "--post", hook.url], capsys)
        assert code == 0 and "the recap could not be posted" in err and "d20 post --retry" in err
        assert len(waiting()) == 1
        assert d20(["post", "--retry"], capsys)[1] == "posted 1; none wait\n"
    assert hook.taken[0]["recap"] == out.rstrip("\n")
    no_secret(out, err)

    with receiver() as hook:
        assert d20(["config", "set", "post.url", hook.url], capsys)[0] == 0
        assert d20(["config", "set", "post.format", "discord"], capsys)[0] == 0
        code, out, err = d20(["log", "--luck", "--recap"], capsys)
    assert code == 0, err
    [body] = hook.taken
    assert body["content"] == out.rstrip("\n")
    assert body["allowed_mentions"] == {"parse": []}


def test_a_recap_is_not_posted_where_only_sealed_rolls_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with receiver() as hook:
        d20(["config", "set", "post.url", hook.url], capsys)
        d20(["config", "set", "post.only", "sealed"], capsys)
        assert d20(["log", "--luck", "--recap"], capsys)[0] == 0
        code, _, err = d20(["log", "--luck", "--recap"], capsys)
    assert code == 0 and "the recap is not posted: post.only = sealed" in err
    assert hook.received == []
