"""Posting rolls to a webhook (`--post URL`, D20_POST, the config file's `[post]`): what a
post says (Discord's webhook message, or the roll as plain JSON), sending it, and
delivering the queue (d20cli.store.post_queue) without ever holding a roll up for long.

- A roll's post is queued with its roll log row (one transaction), so it is never lost;
  the run sends the queue after the output that shows the rolls (`deliver_after_run`:
  at its end, and after each line of the shell), waiting at most POST_WAIT seconds in
  all. What is not sent then waits in the queue: the next run that posts, or `d20 post
  --retry`, sends it; `d20 post --status` says what waits and why.
- Each post goes out in order (per webhook); a post whose try fails stops that
  webhook's queue until its next try (a backoff: BACKOFF seconds, doubling with each
  failure, at most MAX_BACKOFF), so a receiver that is down costs each run nothing.
- A 429 answer (rate limited) is waited out when its `Retry-After` (or Discord's
  `retry_after`) fits in the time left, else the post waits that long in the queue.
- A receiver cannot hang or crash d20: each try runs in a thread joined for at most the
  time left (a receiver that never answers, or drips its answer a byte at a time, is
  left behind; the socket's own timeout ends the thread), the answer is read up to
  MAX_ANSWER bytes (a 10 MB answer is cut there), redirects are not followed (a 3xx is a
  failure that says so), a TLS certificate that does not verify is a failure, and any
  error of the exchange is a failure with its cause in words.
- The URL is a secret: what d20 prints shows its scheme and host only
  (d20cli.store.config.masked_url), and an error's text never holds it.

Only a run that posts imports this module (and http.client, ssl and threading).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from d20cli.frozen import frozen
from d20cli.store.config import masked_url
from d20cli.store.database import Database
from d20cli.store.post_queue import DISCORD, RECAP, Held, Posts, Waiting
from d20cli.visible import visible, visible_lines

POST_WAIT = 3.0  # seconds a run waits, in all, for its posts after its output
RETRY_WAIT = 30.0  # seconds `d20 post --retry` waits in all
TRY_WAIT = 5.0  # seconds one try may take at most
CLAIM_MARGIN = 5.0  # seconds a claim outlasts its try (a process killed while sending)
MAX_ANSWER = 65_536  # bytes of a receiver's answer read at most
BACKOFF = 5.0  # seconds before a failed post is tried again, doubled with each failure
MAX_BACKOFF = 900.0
MAX_RETRY_AFTER = 3600.0  # a receiver's Retry-After is taken up to this
DISCORD_LIMIT = 2000  # characters of a Discord message
DICE_SHOWN = 30  # dice a Discord message lists
USER_AGENT = "d20cli webhook (+https://github.com/d20cli)"


@frozen
class Answer:
    """What one try gave: sent (a 2xx), else why not, the status (None: no answer) and
    a rate limit's wait in seconds."""

    ok: bool
    why: str = ""
    status: int | None = None
    retry_after: float | None = None


@frozen
class Delivery:
    """What a delivery did: posts sent, posts still waiting, and the problems met (in
    words, URLs shown by their host only)."""

    sent: int
    waiting: int
    problems: tuple[str, ...] = ()


# --- what a post says ------------------------------------------------------------------


def message(post: Waiting) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a queued post, in its form."""
    record = json.loads(post.body)
    if post.form == DISCORD:
        payload: dict[str, Any] = {
            "content": discord_text(record),
            "username": "d20",
            "allowed_mentions": {"parse": []},  # a name or request never pings anyone
        }
    else:
        payload = record
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Idempotency-Key": str(record.get("id", post.id)),
    }
    return json.dumps(payload, separators=(",", ":")).encode("ascii"), headers


_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\*_~`|>#[]()<@:-"})


def _plain(text: Any, most: int = 200) -> str:
    """Text from the user (a name, a label) for a Discord message: control characters
    made visible, Markdown and mentions escaped, cut to `most` characters."""
    shown = visible(str(text))
    if len(shown) > most:
        shown = shown[: most - 1] + "…"
    return shown.translate(_MARKDOWN)


def _code(text: Any, most: int = 300) -> str:
    """A request's text in a code span (no backtick inside can end it)."""
    shown = visible(str(text)).replace("`", "ˋ")
    if len(shown) > most:
        shown = shown[: most - 1] + "…"
    return f"`{shown}`"


def _dice(dice: Any) -> str:
    if not isinstance(dice, list) or not dice:
        return ""
    first = dice[0]
    if isinstance(first, dict) and isinstance(first.get("summary"), dict):
        return f"{first['summary'].get('count', '?')} dice"
    parts = []
    for die in dice[:DICE_SHOWN]:
        if not isinstance(die, dict):
            continue
        shown = f"d{die.get('sides', '?')} {die.get('face', '?')}"
        parts.append(shown if die.get("kept", True) else f"~~{shown}~~")
    more = len(dice) - DICE_SHOWN
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def discord_text(record: dict[str, Any]) -> str:
    """A roll as a compact Discord message: who, the request, the dice, the total, the
    outcome, and for a sealed roll its `#P` receipt. A luck recap: its text, which is
    Markdown already (every text from the log in it escaped: d20cli.present.luck_view)."""
    if record.get("kind") == RECAP:
        recap = visible_lines(str(record.get("recap", "")))
        return recap if len(recap) <= DISCORD_LIMIT else recap[: DISCORD_LIMIT - 1] + "…"
    sealed = record.get("sealed")
    if record.get("secret") is True and isinstance(sealed, dict):  # its position and receipt
        return (
            f"A secret roll: sealed #{sealed.get('position')} (session {sealed.get('session')}) "
            f"receipt `{_plain(sealed.get('receipt'), 16)}`"
        )
    who = record.get("character")
    head = f"**{_plain(who, 60)}** rolled" if who else "Rolled"
    lines = [f"{head} {_code(record.get('request', ''))} ({_plain(record.get('system', ''), 30)})"]
    said = []
    dice = _dice(record.get("dice"))
    if dice:
        said.append(dice)
    if record.get("total") is not None:
        said.append(f"total **{record['total']}**")
    outcome = record.get("outcome")
    if outcome:
        said.append(_plain(str(outcome).replace("_", " "), 40))
    if said:
        lines.append(" · ".join(said))
    if isinstance(sealed, dict):
        lines.append(
            f"sealed #{sealed.get('position')} (session {sealed.get('session')}) "
            f"receipt `{_plain(sealed.get('receipt'), 16)}`"
        )
    text = "\n".join(lines)
    return text if len(text) <= DISCORD_LIMIT else text[: DISCORD_LIMIT - 1] + "…"


# --- sending one post ----------------------------------------------------------------


def send(url: str, body: bytes, headers: dict[str, str], wait: float) -> Answer:
    """POST `body` to `url`, taking at most `wait` seconds whatever the receiver does:
    the exchange runs in a thread that is left behind when it takes longer."""
    import threading

    got: list[Answer] = []

    def work() -> None:
        got.append(_exchange(url, body, headers, wait))

    worker = threading.Thread(target=work, name="d20-post", daemon=True)
    worker.start()
    worker.join(wait)
    if not got:
        return Answer(False, f"no answer within {wait:g} seconds")
    return got[0]


def _exchange(url: str, body: bytes, headers: dict[str, str], wait: float) -> Answer:
    try:
        return _post(url, body, headers, wait)
    except Exception as err:  # a hostile receiver never crashes d20
        return Answer(False, _scrub(_why(err), url))


def _post(url: str, body: bytes, headers: dict[str, str], wait: float) -> Answer:
    import http.client
    import ssl
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host = parts.hostname or ""
    conn: http.client.HTTPConnection
    if parts.scheme.lower() == "https":
        conn = http.client.HTTPSConnection(
            host, parts.port, timeout=wait, context=ssl.create_default_context()
        )
    else:
        conn = http.client.HTTPConnection(host, parts.port, timeout=wait)
    try:
        conn.request("POST", path, body, headers)
        answer = conn.getresponse()
        status = answer.status
        text = answer.read(MAX_ANSWER)  # never more, however much it sends
        retry = answer.getheader("Retry-After")
    finally:
        conn.close()
    if 200 <= status < 300:
        return Answer(True, status=status)
    if status == 429:
        after = _retry_after(retry, text)
        return Answer(False, f"rate limited (429), try again in {after:g} s", status, after)
    if 300 <= status < 400:
        return Answer(
            False,
            f"answered {status}, a redirect, which d20 does not follow (give the webhook's "
            "own URL)",
            status,
        )
    return Answer(False, f"answered {status} {_reason(answer.reason)}".rstrip(), status)


def _reason(reason: Any) -> str:
    shown = visible(str(reason or ""))[:60]
    return f"({shown})" if shown else ""


def _retry_after(header: str | None, body: bytes) -> float:
    """A 429's wait in seconds: its Retry-After header, else Discord's `retry_after`,
    else 5; at most MAX_RETRY_AFTER."""
    found: float | None = None
    if header is not None:
        try:
            found = float(header.strip())
        except ValueError:
            found = None  # (an HTTP date: waited as the default)
    if found is None:
        try:
            data = json.loads(body[:MAX_ANSWER] or b"{}")
            value = data.get("retry_after") if isinstance(data, dict) else None
            found = float(value) if isinstance(value, int | float) else None
        except ValueError:
            found = None
    if found is None or found != found or found < 0:  # (NaN)
        found = 5.0
    return min(found, MAX_RETRY_AFTER)


def _why(err: BaseException) -> str:
    import ssl

    if isinstance(err, ssl.SSLCertVerificationError):
        return f"its TLS certificate does not verify ({err.verify_message or err.reason})"
    if isinstance(err, ssl.SSLError):
        return f"TLS failed ({err.reason or err})"
    if isinstance(err, TimeoutError):
        return "it timed out"
    if isinstance(err, OSError) and err.strerror:
        return err.strerror.lower()
    text = visible(str(err))[:120]
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _scrub(text: str, url: str) -> str:
    """`text` with the URL, or its path (the webhook's key), never in it."""
    path = url.partition("://")[2].partition("/")[2]
    for secret in (url, path):
        if secret:
            text = text.replace(secret, "...")
    return text


# --- delivering the queue ------------------------------------------------------------


def backoff(tries: int) -> float:
    """Seconds before a post that failed `tries` times before is tried again."""
    return min(BACKOFF * float(2 ** min(tries, 20)), MAX_BACKOFF)


def deliver(
    db: Database,
    wait: float,
    force: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> Delivery:
    """Send the waiting posts, oldest first for each webhook, in at most `wait` seconds;
    `force`: also the posts that wait for their next try. A failure stops its webhook's
    queue for this delivery."""
    posts = Posts(db)
    end = time.monotonic() + wait
    sent = 0
    problems: list[str] = []
    for url in posts.urls():
        while True:
            left = end - time.monotonic()
            if left <= 0.05:
                problems.append(f"{masked_url(url)}: out of time (the rest wait)")
                break
            took = min(left, TRY_WAIT)
            claimed = posts.claim(url, took + CLAIM_MARGIN, force)
            if isinstance(claimed, Held):  # another process sends it, or it waits its turn
                if claimed.reason == "due":
                    after = max(claimed.post.due - time.time(), 0)
                    problems.append(
                        f"{masked_url(url)}: the last try failed ({claimed.post.error}); "
                        f"the next is in {after:.0f} s"
                    )
                break
            if claimed is None:
                break
            body, headers = message(claimed)
            try:
                answer = send(url, body, headers, took)
            except BaseException:
                posts.release(claimed.id)
                raise
            if answer.ok:
                posts.sent(claimed.id)
                sent += 1
                continue
            wanted = answer.retry_after
            if wanted is not None and wanted + 0.05 < end - time.monotonic():
                posts.release(claimed.id)  # a short rate limit: waited out
                sleep(wanted)
                continue
            due = answer.retry_after if answer.retry_after is not None else backoff(claimed.tries)
            posts.failed(claimed.id, answer.why, time.time() + due)
            problems.append(f"{masked_url(url)}: {answer.why}")
            break
    return Delivery(sent, posts.count(), tuple(problems))


def deliver_after_run(db: Database, warn: Callable[[str], None]) -> Delivery | None:
    """The delivery at the end of a run (and after each line of the shell): at most
    POST_WAIT seconds; one warning when posts are left waiting because of a problem.
    None when the state database cannot hold the queue (it was warned about)."""
    from d20cli.errors import StateError

    try:
        done = deliver(db, POST_WAIT)
    except StateError as err:
        warn(f"cannot send the posts: {err.message}")
        return None
    if done.waiting and done.problems:
        many = "post waits" if done.waiting == 1 else "posts wait"
        warn(
            f"could not post ({done.problems[0]}); {done.waiting} {many} in the queue: "
            "d20 post --retry sends them, d20 post --status shows them"
        )
    return done


__all__ = ["Answer", "Delivery", "deliver", "deliver_after_run", "discord_text", "message", "send"]
