"""The posts waiting to be sent to a webhook: the `posts` table of the state database
(d20cli.store.schema), written here and read by d20cli.app.posting, which sends them.

A roll to post is queued in the very transaction that writes its roll log row
(d20cli.store.rolllog.Rolls.add, through `PostPlan.queue`): a roll that was shown is a
roll that was queued, even after a kill -9, and a post is deleted only once the receiver
took it (a 2xx answer). A post is claimed by the process sending it (`claim`, until
`claim_until`): another run does not send it at the same time, and the claim of a
process that died (kill -9 while sending) lapses at once (its process is gone) or at
`claim_until`. Imported only by a run that posts.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from d20cli.frozen import frozen
from d20cli.store.database import stored_int, stored_text, stored_text_or_none

if TYPE_CHECKING:
    from d20cli.store.database import Database

#: The forms a post takes: a Discord webhook's message, or the roll as plain JSON.
DISCORD = "discord"
JSON = "json"
#: The hosts of Discord's webhooks (format `auto` posts Discord's form to them).
DISCORD_HOSTS = frozenset(
    {"discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"}
)
RECEIPT_POSTED = 16  # hex digits of a sealed roll's receipt in a post, as the roll prints


def form_for(url: str, wanted: str | None) -> str:
    """The form of a post to `url` (`post.format`: auto, discord or json; None: auto)."""
    if wanted in (DISCORD, JSON):
        return wanted
    host = url.partition("://")[2].split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0]
    return DISCORD if host.lower() in DISCORD_HOSTS else JSON


@frozen
class PostPlan:
    """Where a run's rolls are posted: the webhook, its form, and whether only a sealed
    session's rolls are (`post.only = "sealed"`)."""

    url: str
    form: str = JSON
    sealed_only: bool = False

    def queue(self, conn: sqlite3.Connection, rows: Sequence[tuple[Any, ...]]) -> int:
        """Queue a post for each roll log row of `rows` (in the roll log's transaction:
        the row tuples of d20cli.store.rolllog.Rolls.add); how many were queued."""
        values = []
        for row in rows:
            body = post_body(row)
            if body is None or (self.sealed_only and body["sealed"] is None):
                continue
            values.append((self.url, self.form, json.dumps(body, separators=(",", ":")), row[0]))
        if values:
            conn.executemany(
                "INSERT INTO posts (url, form, body, made) VALUES (?, ?, ?, ?)", values
            )
        return len(values)


def post_body(row: tuple[Any, ...]) -> dict[str, Any] | None:
    """What a post says of a roll log row (None: not a row): the roll as plain JSON,
    each post with its own `id` (a receiver that is sent a post twice, after a kill, can
    tell). A secret roll (`--secret`) posts its session, position and receipt alone, with
    `"secret": true`: no character, verb, request, dice, total or outcome."""
    if len(row) < 9:
        return None
    at, who, system, verb, request, dice, total, outcome = row[:8]
    more = (*row[9:], *[None] * 6)[:6]
    _, session, position, _, receipt, secret = more
    try:
        faces = json.loads(dice)
    except ValueError:
        faces = []
    sealed = None
    if session is not None and position is not None:
        sealed = {
            "session": session,
            "position": position,
            "receipt": None if receipt is None else str(receipt)[:RECEIPT_POSTED],
        }
    if secret is not None and sealed is not None:
        return {
            "id": os.urandom(8).hex(),
            "at": at,
            "character": None,
            "system": system,
            "verb": None,
            "request": None,
            "dice": [],
            "total": None,
            "outcome": None,
            "sealed": sealed,
            "secret": True,
        }
    return {
        "id": os.urandom(8).hex(),
        "at": at,
        "character": who or None,
        "system": system,
        "verb": verb,
        "request": request,
        "dice": faces if isinstance(faces, list) else [],
        "total": total,
        "outcome": outcome or None,
        "sealed": sealed,
    }


#: The `kind` of a post that is a luck recap (`d20 log --luck --recap`); a roll's has none.
RECAP = "luck_recap"


def recap_body(text: str, at: str, luck: dict[str, Any]) -> dict[str, Any]:
    """What a post of a luck recap says: its `kind`, its text (Markdown, as printed) and
    the figures behind it (`luck`: of `d20 log --luck --json`), with its own `id`."""
    return {"id": os.urandom(8).hex(), "at": at, "kind": RECAP, "recap": text, "luck": luck}


@frozen
class Waiting:
    """A post in the queue."""

    id: int
    url: str
    form: str
    body: str
    made: str
    tries: int
    due: float
    error: str | None


def _waiting(raw: tuple[Any, ...]) -> Waiting:
    due = raw[6]
    return Waiting(
        stored_int(raw[0], "posts.id"),
        stored_text(raw[1], "posts.url"),
        stored_text(raw[2], "posts.form"),
        stored_text(raw[3], "posts.body"),
        stored_text(raw[4], "posts.made"),
        stored_int(raw[5], "posts.tries", 0),
        float(due) if isinstance(due, int | float) else 0.0,
        stored_text_or_none(raw[7], "posts.error"),
    )


_COLUMNS = "id, url, form, body, made, tries, due, error"


@frozen
class Held:
    """Why the oldest post to a webhook cannot be sent now: `claimed` (another process
    is sending it) or `due` (it waits for its next try), with the post."""

    reason: str
    post: Waiting


def alive(pid: int) -> bool:
    """Whether process `pid` is running (a claim of a process that died lapses)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process: it is there)
        return True
    return True


class Posts:
    """The `posts` table: what is waiting, claiming one to send, and its end (sent:
    deleted; failed: tried again later)."""

    WHAT = "the posts waiting"

    def __init__(self, db: Database) -> None:
        self.db = db

    def waiting(self, limit: int = 10_000) -> list[Waiting]:
        """The posts waiting, oldest first."""
        select = f"SELECT {_COLUMNS} FROM posts ORDER BY id LIMIT ?"
        return self.db.read(
            self.WHAT, lambda conn: [_waiting(r) for r in conn.execute(select, (limit,))]
        )

    def count(self) -> int:
        return int(
            self.db.read(
                self.WHAT, lambda conn: conn.execute("SELECT count(*) FROM posts").fetchone()[0]
            )
        )

    def claim(self, url: str, lease: float, force: bool = False) -> Waiting | Held | None:
        """Claim the oldest post to `url` for this process until `lease` seconds from now:
        the post; None when none is waiting; else why none can be sent now: "claimed"
        (another process is sending it) or "due" (it waits for its next try: a failure's
        backoff or a rate limit; `force`: sent anyway)."""

        def change(conn: sqlite3.Connection) -> Waiting | Held | None:
            raw = conn.execute(
                f"SELECT {_COLUMNS}, claim, claim_until FROM posts WHERE url = ? "
                "ORDER BY id LIMIT 1",
                (url,),
            ).fetchone()
            if raw is None:
                return None
            now = time.time()
            claim, until = raw[8], raw[9]
            post = _waiting(raw[:8])
            if (
                isinstance(claim, int)
                and claim != os.getpid()
                and isinstance(until, int | float)
                and until > now
                and alive(claim)
            ):
                return Held("claimed", post)
            if post.due > now and not force:
                return Held("due", post)
            conn.execute(
                "UPDATE posts SET claim = ?, claim_until = ? WHERE id = ?",
                (os.getpid(), now + lease, post.id),
            )
            return post

        return self.db.write(self.WHAT, change)

    def urls(self) -> list[str]:
        """The webhooks posts are waiting for, by their oldest post."""
        select = "SELECT url FROM posts GROUP BY url ORDER BY min(id)"
        return self.db.read(
            self.WHAT, lambda conn: [stored_text(r[0], "posts.url") for r in conn.execute(select)]
        )

    def sent(self, post_id: int) -> None:
        """The receiver took it: it leaves the queue."""
        self.db.write(
            self.WHAT, lambda conn: conn.execute("DELETE FROM posts WHERE id = ?", (post_id,))
        )

    def failed(self, post_id: int, why: str, due: float) -> None:
        """It was not taken (`why`): tried again from `due` (seconds since the epoch)."""
        self.db.write(
            self.WHAT,
            lambda conn: conn.execute(
                "UPDATE posts SET tries = tries + 1, due = ?, error = ?, claim = NULL, "
                "claim_until = NULL WHERE id = ?",
                (due, why[:500], post_id),
            ),
        )

    def release(self, post_id: int) -> None:
        """Give a claimed post back untried (a send that was interrupted)."""
        self.db.write(
            self.WHAT,
            lambda conn: conn.execute(
                "UPDATE posts SET claim = NULL, claim_until = NULL WHERE id = ?", (post_id,)
            ),
        )

    def add(self, plan: PostPlan, body: dict[str, Any]) -> None:
        """Queue a post that is no roll (a luck recap, `recap_body`) to `plan`'s webhook."""
        text = json.dumps(body, separators=(",", ":"))
        self.db.write(
            self.WHAT,
            lambda conn: conn.execute(
                "INSERT INTO posts (url, form, body, made) VALUES (?, ?, ?, ?)",
                (plan.url, plan.form, text, body["at"]),
            ),
        )

    def clear(self) -> int:
        """Drop every waiting post (the rolls stay in the roll log); how many."""
        return int(
            self.db.write(self.WHAT, lambda conn: conn.execute("DELETE FROM posts").rowcount)
        )


__all__ = [
    "DISCORD",
    "JSON",
    "RECAP",
    "Held",
    "PostPlan",
    "Posts",
    "Waiting",
    "form_for",
    "post_body",
    "recap_body",
]
