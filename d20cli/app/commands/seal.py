"""`d20 seal`, `d20 unseal`: a sealed session, whose rolls the group can verify
(d20cli.store.sealing keeps it, d20cli.app.sealed rolls from it, `d20 verify`
(d20cli.app.commands.verify) checks an exported log of it).

- `d20 seal` opens a session and prints its commitment, for the group before play. While
  one is open, `d20 seal` is an error that says so (the commitment is not shown again
  by accident as a new one); `d20 seal --status` shows the open session.
- `d20 seal --salt TEXT`, after the commitment is posted and before the first roll: the
  table's salt, which every die of the session is drawn with from then on
  (d20cli.dice.sealed, scheme 2); refused with no session open, once a roll was made, or
  when the session has one already.
- `d20 reveal N` shows secret roll #N (`--secret`) of the open session (or of the last
  one): its request and its result, rolled again from the seed as `verify` rolls it.
- `d20 unseal` closes it and prints its seed (with the nonce) and how many rolls it made,
  which the group compares with the exported log (a log cut short at its end keeps a
  hash chain that holds). The seed stays in the state database: `d20 unseal --show N`
  prints a closed session's again (`d20 unseal | head -1` loses nothing).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from d20cli.app.commands.shared import command_errors, command_options, command_output
from d20cli.errors import ParseError, StateError
from d20cli.present.output import Output

SHARE_BEFORE = "share this commitment with your group now, before you roll"
SALTED = "every die of the session comes from its seed and this salt: roll"
SHARE_AFTER = (
    "share the seed and the session's log (d20 log --export json --session {id} > rolls.json); "
    "anyone checks them with: d20 verify rolls.json SEED --receipts SEEN"
)


def _sessions(warn: Any) -> Any:
    from d20cli.store.sealing import Sessions
    from d20cli.store.state import State

    state = State.open(None, warn)
    if state.db.unusable is not None:
        state.close()
        raise StateError(f"the state database could not be read: {state.db.unusable}")
    return state, Sessions(state.db)


def _rolls(session: Any) -> str:
    return f"{session.next} roll" + ("" if session.next == 1 else "s")


def _salt_text(text: str) -> str:
    from d20cli.dice.sealed import salt_problem

    salt = text.strip()
    problem = salt_problem(salt)
    if problem is not None:
        raise ParseError(f"--salt is not a salt: {problem}")
    return salt


def give_salt(text: str, as_json: bool, out: Output) -> None:
    """`d20 seal --salt TEXT`: the open session's salt (Sessions.salt says when not)."""
    from d20cli.visible import visible

    salt = _salt_text(text)
    state, sessions = _sessions(out.warn)
    try:
        session = sessions.salt(salt)
    finally:
        state.close()
    if as_json:
        out.json(
            {
                "session": session.id,
                "commitment": session.commitment,
                "salt": salt,
                "salted": session.salted,
            }
        )
        return
    out.text(f"salted session {session.id}: {visible(json_text(salt))}")
    out.text(f"commitment: {session.commitment}")
    out.text(SALTED)


def json_text(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


def seal(status: bool, as_json: bool, out: Output, salt: str | None = None) -> None:
    """`d20 seal [--status] [--salt TEXT]`."""
    if salt is not None:
        if status:
            raise ParseError("--salt and --status go apart: d20 seal --salt TEXT gives the salt")
        give_salt(salt, as_json, out)
        return
    state, sessions = _sessions(out.warn)
    try:
        session = sessions.current()
        if status:
            _status(session, sessions.last_closed() if session is None else None, as_json, out)
            return
        if session is not None:
            raise ParseError(
                f"a sealed session is open already (session {session.id}, commitment "
                f"{session.commitment[:16]}...): d20 seal --status shows it, d20 unseal ends it"
            )
        session = sessions.open()
    finally:
        state.close()
    if as_json:
        out.json(
            {"session": session.id, "commitment": session.commitment, "opened": session.opened}
        )
        return
    out.text(f"sealed session {session.id}")
    out.text(f"commitment: {session.commitment}")
    out.text(SHARE_BEFORE)


def _status(session: Any, last: Any, as_json: bool, out: Output) -> None:
    if as_json:
        found = None
        if session is not None:
            found = {
                "session": session.id,
                "commitment": session.commitment,
                "opened": session.opened,
                "rolls": session.next,
                "scheme": session.scheme,
                "salt": session.salt,
            }
        shown: dict[str, Any] = {"sealed": found}
        if last is not None:  # the session closed last, with its seed
            shown["last"] = _closed_json(last)
        out.json(shown)
    elif session is None:
        out.text("no sealed session is open (d20 seal opens one)")
        if last is not None:
            out.text(
                f"session {last.id} was closed {last.closed} after {_rolls(last)}: "
                f"d20 unseal --show {last.id} prints its seed"
            )
    else:
        out.text(f"sealed session {session.id}, opened {session.opened}, {_rolls(session)}")
        out.text(f"commitment: {session.commitment}")
        out.text(_salt_line(session))


def _salt_line(session: Any) -> str:
    from d20cli.visible import visible

    if session.salt is not None:
        return f"salt: {visible(json_text(session.salt))} (given {session.salted})"
    if session.scheme < 2:
        return "salt: none (opened by an older d20, which takes none)"
    if session.next == 0 and session.closed is None:
        return "salt: none yet (the table gives one after the commitment: d20 seal --salt TEXT)"
    return "salt: none (its dice come from the seed alone)"


def _closed_json(session: Any, logged: int | None = None) -> dict[str, Any]:
    from d20cli.dice.sealed import secret_text

    shown = {
        "session": session.id,
        "commitment": session.commitment,
        "scheme": session.scheme,
        "salt": session.salt,
        "seed": secret_text(session.seed, session.nonce),
        "rolls": session.next,
        "opened": session.opened,
        "closed": session.closed,
    }
    if logged is not None:
        shown["logged"] = logged
    return shown


def unseal(as_json: bool, out: Output, show: int | None = None) -> None:
    """`d20 unseal`, and `d20 unseal --show N` (the seed of closed session N, again)."""
    state, sessions = _sessions(out.warn)
    try:
        if show is None:
            session = sessions.close()
            if session is None:
                raise ParseError("no sealed session is open (d20 seal opens one)")
        else:
            session = sessions.get(show)
            if session is None:
                raise ParseError(f"there is no sealed session {show} (d20 seal --status)")
            if session.closed is None:
                raise ParseError(
                    f"sealed session {show} is open: its seed is secret until d20 unseal ends it"
                )
        logged = sessions.logged(session.id)
        secrets = sessions.secret_rows(session.id)
        if show is None:
            sessions.reveal(session.id)
    finally:
        state.close()
    shown = _closed_json(session, logged)
    revealed = [_revealed(session, row) for row in secrets]
    if as_json:
        shown["secret"] = [r.to_json() for r in revealed]
        out.json(shown)
        return
    if show is None:
        out.text(f"unsealed session {session.id} after {_rolls(session)}")
    else:
        out.text(f"session {session.id}, closed {session.closed}, after {_rolls(session)}")
    out.text(f"commitment: {session.commitment}")
    out.text(f"seed: {shown['seed']}")
    if logged < session.next:
        gaps = session.next - logged
        out.text(
            f"{gaps} of its positions {'has' if gaps == 1 else 'have'} no roll in the log "
            "(a request that failed after drawing a die, or a roll that could not be saved): "
            "verify reports them missing"
        )
    out.text(f"salt: {_salt_line(session).partition(': ')[2]}")
    if revealed:
        out.text(f"its {_count(len(revealed), 'secret roll')}, revealed:")
        _show_revealed(revealed, out)
    out.text(SHARE_AFTER.format(id=session.id))


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _revealed(session: Any, row: Any) -> Any:
    """A secret roll's row as its roll: rolled again from the session's seed (and salt)
    at its position, as `d20 verify` rolls it, with its `sealed` marker, receipt and
    `"secret": true`."""
    import json

    from d20cli.app.commands.verify import replay_result
    from d20cli.app.sealed import mark_sealed
    from d20cli.dice.sealed import RECEIPT_SHOWN, dice_key

    key = dice_key(session.seed, session.scheme, session.salt)
    data = {"replay": json.loads(row.replay), "position": row.position, "system": row.system}
    try:
        result = replay_result(data, key, [10**9])
    except (ValueError, KeyError, TypeError) as err:
        raise StateError(f"secret roll #{row.position} cannot be rolled again: {err}") from None
    result = mark_sealed(result, session.id, row.position)
    receipt = {"position": row.position, "hash": (row.receipt or "")[:RECEIPT_SHOWN]}
    return result.with_detail({"receipt": receipt, "secret": True, "at": row.at})


def _show_revealed(results: list[Any], out: Output) -> None:
    from d20cli.present.render import render_result

    for result in results:
        out.lines(render_result(result, True))


def reveal(position: int, session_id: int | None, as_json: bool, out: Output) -> None:
    """`d20 reveal N [--session S]`: secret roll #N of the open session (else of the
    last closed one, or of session S), shown and marked revealed in the log."""
    state, sessions = _sessions(out.warn)
    try:
        if session_id is not None:
            session = sessions.get(session_id)
            if session is None:
                raise ParseError(f"there is no sealed session {session_id} (d20 seal --status)")
        else:
            session = sessions.current() or sessions.last_closed()
            if session is None:
                raise ParseError("there is no sealed session (d20 seal opens one)")
        rows = sessions.secret_rows(session.id, position)
        if not rows:
            raise ParseError(
                f"session {session.id} has no secret roll #{position} (d20 log --session "
                f"{session.id} shows its rolls)"
            )
        sessions.reveal(session.id, position)
    finally:
        state.close()
    result = _revealed(session, rows[0])
    if as_json:
        out.json(result.to_json())
        return
    out.text(f"secret roll #{position} of session {session.id}, made {rows[0].at}, revealed:")
    _show_revealed([result], out)


def seal_command(
    status: Annotated[
        bool, typer.Option("--status", help="Show the open session's commitment and salt.")
    ] = False,
    salt: Annotated[
        str | None,
        typer.Option(
            "--salt",
            metavar="TEXT",
            help="The table's salt, given after the commitment is posted and before the "
            "first roll: every die comes from the seed and it.",
        ),
    ] = None,
    json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
) -> None:
    """Start a sealed session: print a commitment to share before play."""
    out = command_output()
    with command_errors(out):
        seal(status, command_options().json, out, salt)


def reveal_command(
    n: Annotated[int, typer.Argument(min=0, help="The secret roll's position, #N.")],
    session: Annotated[
        int | None,
        typer.Option(
            "--session",
            metavar="S",
            min=1,
            help="Of sealed session S (default: the open one, else the last closed).",
        ),
    ] = None,
    json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
) -> None:
    """Show a secret roll (--secret): its request and result."""
    out = command_output()
    with command_errors(out):
        reveal(n, session, command_options().json, out)


def unseal_command(
    show: Annotated[
        int | None,
        typer.Option(
            "--show",
            metavar="N",
            min=1,
            help="Print the seed of closed session N again (it stays in the state database).",
        ),
    ] = None,
    json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
) -> None:
    """End the sealed session and print its seed."""
    out = command_output()
    with command_errors(out):
        unseal(command_options().json, out, show)


def verify_command(
    log: Annotated[
        str | None,
        typer.Argument(help="The session's d20 log --export json --session N (- reads stdin)."),
    ] = None,
    seed: Annotated[str | None, typer.Argument(help="The seed as d20 unseal printed it.")] = None,
    posted: Annotated[
        str | None,
        typer.Option(
            "--commitment", metavar="HEX", help="The commitment posted before play, to check."
        ),
    ] = None,
    receipts: Annotated[
        str | None,
        typer.Option(
            "--receipts",
            metavar="FILE",
            help="Receipts the table saw (sealed #P receipt HEX lines, 16 hex digits at "
            "least, or the saved output), to check (- reads stdin).",
        ),
    ] = None,
    salt: Annotated[
        str | None,
        typer.Option("--salt", metavar="TEXT", help="The salt the table gave, to check."),
    ] = None,
    rows: Annotated[
        bool, typer.Option("--rows", help="A line for every row, not only the failed ones.")
    ] = False,
    page: Annotated[
        str | None,
        typer.Option(
            "--page",
            metavar="FILE.html",
            help="Write a page that verifies in a browser, offline, with d20's own code "
            "(no LOG or SEED: they are given to the page).",
        ),
    ] = None,
    json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
) -> None:
    """Check a sealed session's exported log against its seed."""
    from d20cli.app.commands.verify import run_verify

    out = command_output()
    if page is not None:
        with command_errors(out):
            write_verify_page(page, log is not None or seed is not None, out)
        return
    if log is None or seed is None:
        with command_errors(out):
            raise ParseError("verify needs LOG and SEED: d20 verify LOG SEED (or --page FILE.html)")
    status = run_verify(log, seed, command_options().json, out, posted, receipts, rows, salt)
    raise typer.Exit(int(status))


def write_verify_page(path: str, given: bool, out: Output) -> None:
    """`d20 verify --page FILE.html` (d20cli.app.commands.verify_page)."""
    from d20cli.app.commands.verify_page import PYODIDE_VERSION, write_page
    from d20cli.visible import visible

    if given:
        raise ParseError("--page writes the page alone: give it no LOG or SEED")
    size = write_page(path)
    if command_options().json:
        out.json({"page": path, "bytes": size, "pyodide": PYODIDE_VERSION})
        return
    out.text(
        f"wrote {visible(path)} ({size / 2**20:.1f} MB): open it in a browser, drop the "
        "session's export and the receipts the table saw onto it, and give it the seed; "
        "it runs this d20's own verify and needs no network"
    )


VERIFY_EXIT = (
    "Exit status: 0 every roll verifies; 1 it does not (a roll edited, missing or out of "
    "order, the hash chain broken, a receipt that is not the one the table saw, a seed "
    "that does not open the commitment); 2 bad input. Without --receipts, verify cannot "
    "tell a request rewritten after play from the one rolled: see docs/sealed-sessions.md."
)


SEAL_NOTE = (
    "Post the commitment where the group sees it before you roll; then the table may give "
    "a salt (d20 seal --salt TEXT, before the first roll), so that no one could choose the "
    "dice. Until d20 unseal, every "
    "roll comes from the session's seed, in order, says so in its output (sealed #P, "
    'JSON "sealed"), and the roll log keeps each one (tables and init roll/add too); '
    "--seed, --dice, --no-log and a fortune reroll are refused. A "
    "request that fails after drawing a die, or a roll that cannot be saved, keeps its "
    "position (verify reports it missing). A batch on standard input stops when the "
    "session is closed. d20 seal while a session is open is an error; --status shows it "
    "(with none open, --status --json also shows the last closed one and its seed)."
)
UNSEAL_NOTE = (
    "Then share the seed and d20 log --export json; anyone checks them with "
    "d20 verify LOG SEED --commitment HEX. Compare the number of rolls with verify's. "
    "unseal waits for a run that is rolling in the session. The seed stays in the state "
    "database: d20 unseal --show N prints it again. It shows the session's secret rolls."
)
REVEAL_NOTE = (
    "A secret roll (VERB ... --secret, in a sealed session) shows only its position and "
    "receipt; d20 reveal N shows its request and result, rolled again from the seed, and "
    "the log shows them from then on. d20 verify proves it is the roll made then."
)


app = typer.Typer()
app.command("seal", epilog=SEAL_NOTE)(seal_command)
app.command("unseal", epilog=UNSEAL_NOTE)(unseal_command)
app.command("verify", epilog=VERIFY_EXIT)(verify_command)
app.command("reveal", epilog=REVEAL_NOTE)(reveal_command)
