"""`d20 post [--status | --retry | --clear]`: the posts waiting to be sent to a webhook
(d20cli.store.post_queue), and sending them now (d20cli.app.posting). A webhook's URL is
shown by its scheme and host only."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer

from d20cli.app.commands.shared import command_errors, command_options, command_output
from d20cli.errors import StateError
from d20cli.present.output import Output


def _posts(warn: Any) -> Any:
    from d20cli.store.post_queue import Posts
    from d20cli.store.state import State

    state = State.open(None, warn)
    if state.db.unusable is not None:
        state.close()
        raise StateError(f"the state database could not be read: {state.db.unusable}")
    return state, Posts(state.db)


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def status(as_json: bool, out: Output) -> None:
    """What waits, by webhook: how many, since when, how often tried, the last error and
    when the next try is due."""
    from d20cli.store.config import masked_url

    state, posts = _posts(out.warn)
    try:
        waiting = posts.waiting()
    finally:
        state.close()
    now = time.time()
    hooks: dict[str, list[Any]] = {}
    for post in waiting:
        hooks.setdefault(post.url, []).append(post)
    shown = []
    for url, queued in hooks.items():
        oldest = queued[0]
        shown.append(
            {
                "url": masked_url(url),
                "waiting": len(queued),
                "oldest": oldest.made,
                "tries": oldest.tries,
                "error": oldest.error,
                "next_try_in": max(round(oldest.due - now), 0),
            }
        )
    if as_json:
        out.json({"waiting": len(waiting), "webhooks": shown})
        return
    if not waiting:
        out.text("no posts wait: every roll was posted")
        return
    for hook in shown:
        line = (
            f"{_plural(hook['waiting'], 'post waits', 'posts wait')} for {hook['url']}, "
            f"the oldest from {hook['oldest']}"
        )
        if hook["tries"]:
            line += f", tried {_plural(hook['tries'], 'time', 'times')}: {hook['error']}"
            if hook["next_try_in"]:
                line += f"; the next try in {hook['next_try_in']} s"
        out.text(line)
    out.text("d20 post --retry sends them now")


def retry(as_json: bool, out: Output) -> int:
    """Send every waiting post now (the backoff of failed ones waived), waiting at most
    RETRY_WAIT seconds; the exit status: 0 when none waits after, else 1."""
    from d20cli.app.posting import RETRY_WAIT, deliver

    state, _ = _posts(out.warn)
    try:
        done = deliver(state.db, RETRY_WAIT, force=True)
    finally:
        state.close()
    if as_json:
        out.json({"sent": done.sent, "waiting": done.waiting, "problems": list(done.problems)})
    else:
        line = f"posted {done.sent}; " + (
            "none wait" if not done.waiting else f"{done.waiting} still wait"
        )
        if done.problems:
            line += f" ({done.problems[0]})"
        out.text(line)
    return 1 if done.waiting else 0


def clear(as_json: bool, out: Output) -> None:
    """Drop every waiting post (the rolls stay in the roll log)."""
    state, posts = _posts(out.warn)
    try:
        dropped = posts.clear()
    finally:
        state.close()
    if as_json:
        out.json({"dropped": dropped})
    else:
        out.text(f"dropped {_plural(dropped, 'post', 'posts')} (the rolls stay in the roll log)")


def post_command(
    show: Annotated[
        bool, typer.Option("--status", help="What waits to be posted, and why (the default).")
    ] = False,
    again: Annotated[
        bool,
        typer.Option(
            "--retry",
            help="Send the waiting posts now, waiting at most 30 seconds in all; exit status 1 "
            "if any stay.",
        ),
    ] = False,
    drop: Annotated[
        bool, typer.Option("--clear", help="Drop the waiting posts (the roll log keeps the rolls).")
    ] = False,
    json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
) -> None:
    """The posts waiting for a webhook: --status shows them, --retry sends them now."""
    out = command_output()
    as_json = command_options().json
    code = 0
    with command_errors(out):
        if sum((show, again, drop)) > 1:
            from d20cli.errors import ParseError

            raise ParseError("give one of --status, --retry and --clear")
        if again:
            code = retry(as_json, out)
        elif drop:
            clear(as_json, out)
        else:
            status(as_json, out)
    raise typer.Exit(code)


POST_NOTE = (
    "Rolls are posted when --post URL, D20_POST or the config file's post.url names a "
    "webhook (post.only = sealed: only a sealed session's rolls). Each roll's post is kept "
    "in the state database with its roll until the receiver takes it: a post that failed "
    "waits there and is tried again by the next run that posts, or now by --retry."
)

app = typer.Typer()
app.command("post", epilog=POST_NOTE)(post_command)
