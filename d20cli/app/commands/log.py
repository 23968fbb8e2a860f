"""`d20 log`: the roll log (d20cli.store.rolllog) read back for people and for scripts.

- Recent rolls: on a terminal a table that fits its width; on a pipe one plain line per
  roll (`--tsv`: the same fields, tab-separated), so that `grep`, `cut` and `awk` read it.
  Outcomes are shown by their labels; rolls whose faces were forced (`--dice`) or seeded
  (`--seed`) are marked.
- Filters for every view: `--character`, `--since`/`--until` (a date, a date and time, or
  a time ago such as `2h`), `--system`, `--outcome`.
- `--stats`: a summary per character (rolls, successes and failures, natural 20s and 1s,
  the mean d20, the fairness of the d20s); `--stats --details` adds the faces of the d20s
  and the naturals (1 and the top face) of every die size, per character and per
  session (d20cli.store.log_stats).
- On a terminal, the table and `--stats` go through a pager when they are taller than
  it (d20cli.app.pager; `PAGER`, `--no-pager`).
- `--session N`: only the rolls of sealed session N (`d20 seal`); `--export json
  --session N` is the export of one session for `d20 verify`, with its own hash chain.
- `--export json|csv`: every row, streamed; `--clear`: delete (never the rows of a
  sealed session that is open), after a question on a terminal, or with `--yes`.
- `--prune --before DATE` / `--prune --keep N`: delete the rows before then / all but the
  newest N (never those of a sealed session that is open), asked as `--clear` is.
  After a clear or a prune the database is vacuumed, so that its file shrinks.

Errors are one line on standard error and exit status 2, never a traceback.
"""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer

from d20cli.app.commands.char import _cell, _console
from d20cli.app.commands.shared import command_errors as _errors
from d20cli.app.commands.shared import command_options, command_output
from d20cli.app.options import file_value, url_value
from d20cli.errors import ExitStatus, ParseError, StateError
from d20cli.language.vocabulary import SYSTEM_IDS
from d20cli.present.output import Output
from d20cli.visible import visible

if TYPE_CHECKING:
    from d20cli.probability.luck import Ledger
    from d20cli.store.log_stats import Fairness, Naturals, Outcomes
    from d20cli.store.rolllog import LogFilter, Rolls, Row

app = typer.Typer(
    name="log",
    help="The roll log: recent rolls, exports, and a fairness test of the dice.",
    subcommand_metavar="",  # no subcommands: `d20 log [OPTIONS]`
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["--help", "-h"]},
)

MARKS = {"dice": "forced", "seed": "seeded", "random": ""}
MAX_SHOWN_DICE = 40  # faces a line lists before it says how many more


#: What `log --export` writes (completion offers these).
EXPORT_FORMATS: tuple[str, ...] = ("json", "csv")


@app.callback(invoke_without_command=True)
def log_main(
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-l", min=1, help="How many recent rolls (20 by default)."),
    ] = None,
    character: Annotated[
        str | None, typer.Option("--character", "-c", help="Only this character's rolls.")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since", help="Rolls from then on (local time): 2026-05-01, '2026-05-01 18:00', 2h."
        ),
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", help="Rolls before then (a date: up to its end).")
    ] = None,
    system: Annotated[
        str | None, typer.Option("--system", "-s", help="Only rolls of this system.")
    ] = None,
    outcome: Annotated[
        str | None,
        typer.Option(
            "--outcome", help="Only these outcomes (ids or labels): success,critical_success."
        ),
    ] = None,
    session: Annotated[
        int | None,
        typer.Option(
            "--session", min=1, help="Only the rolls of this sealed session (for d20 verify)."
        ),
    ] = None,
    stats: Annotated[
        bool,
        typer.Option(
            "--stats",
            help="A summary per character: rolls, successes, natural 20s and 1s, mean d20, "
            "fairness.",
        ),
    ] = False,
    luck: Annotated[
        bool,
        typer.Option(
            "--luck",
            help="How lucky the dice were: each roll priced by its exact odds, successes and "
            "damage against expected, the least likely roll, streaks, per character and verb.",
        ),
    ] = False,
    recap: Annotated[
        bool,
        typer.Option(
            "--recap",
            help="With --luck: a few plain lines to paste or post in a chat (Markdown, no "
            "colour); posted too where rolls are posted (--post URL, D20_POST, post.url).",
        ),
    ] = False,
    post: Annotated[
        str | None,
        typer.Option(
            "--post",
            metavar="URL",
            help="With --luck --recap: post the recap to this webhook (Discord, or JSON to "
            "any other).",
        ),
    ] = None,
    details: Annotated[
        bool,
        typer.Option(
            "--details",
            help="With --stats: each character's d20 faces, the naturals of every die and "
            "of each session.",
        ),
    ] = False,
    export: Annotated[
        str | None, typer.Option("--export", help="Print every roll as json or csv.")
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Delete the logged rolls.")] = False,
    prune: Annotated[
        bool,
        typer.Option("--prune", help="Delete old rolls: with --before DATE and/or --keep N."),
    ] = False,
    before: Annotated[
        str | None,
        typer.Option(
            "--before",
            metavar="DATE",
            help="With --prune: the rolls before then (2026-05-01, 30d).",
        ),
    ] = None,
    keep: Annotated[
        int | None, typer.Option("--keep", help="With --prune: keep only the newest N rolls.")
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="With --clear or --prune: do not ask.")
    ] = False,
    svg: Annotated[
        str | None,
        typer.Option(
            "--svg", metavar="FILE", help="With --luck: also write it as a chart, an SVG file."
        ),
    ] = None,
    png: Annotated[
        str | None,
        typer.Option(
            "--png", metavar="FILE", help="With --luck: also write it as a chart, a PNG image."
        ),
    ] = None,
    tsv: Annotated[bool, typer.Option("--tsv", help="Tab-separated lines.")] = False,
    json: Annotated[bool, typer.Option("--json", help="JSON instead of a table.")] = False,
    no_pager: Annotated[
        bool,
        typer.Option(
            "--no-pager",
            help="Never page: on a terminal, output taller than it goes through PAGER (less).",
        ),
    ] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain text.")] = False,
) -> None:
    """Show recent rolls; --stats tests the dice, --export json|csv prints them all."""
    from d20cli.store.database import clean
    from d20cli.store.rolllog import LogFilter
    from d20cli.store.state import State

    out = command_output()
    if character is not None:  # as the log keeps a name: bytes that were not UTF-8 as U+FFFD
        character = clean(character)
    with _errors(out):
        if sum((stats, luck, export is not None, clear, prune)) > 1:
            raise ParseError("use one of --stats, --luck, --export, --clear and --prune at a time")
        if (svg is not None or png is not None) and not luck:
            option = "--svg" if svg is not None else "--png"
            raise ParseError(f"{option} goes with --luck: d20 log --luck {option} FILE")
        if recap and not luck:
            raise ParseError("--recap goes with --luck: d20 log --luck --recap")
        if post is not None and not recap:
            raise ParseError("--post goes with --luck --recap: d20 log --luck --recap --post URL")
        if post is not None:
            post = url_value("--post", post)
        if recap and command_options().json:
            raise ParseError(
                "--recap is text to paste; --json gives the report as JSON: use one of them"
            )
        for option, path in (("--svg", svg), ("--png", png)):
            if path is not None:
                file_value(option, path)
        if details and not stats:
            raise ParseError("--details goes with --stats: d20 log --stats --details")
        if export is not None and export.lower() not in EXPORT_FORMATS:
            raise ParseError(f"--export takes json or csv, not {export!r}")
        if limit is not None and (export is not None or stats or luck or clear or prune):
            what = "--export writes every roll" if export is not None else "it takes every roll"
            raise ParseError(
                f"-l/--limit is for the recent rolls, and {what}: narrow it with --since, "
                "--until, -c NAME or --session N (or d20 log -l N --json for the last N)"
            )
        now = datetime.now(UTC)
        only = LogFilter(
            character,
            None if since is None else when(since, now, "--since"),
            None if until is None else when(until, now, "--until", end=True),
            None if system is None else _system(system),
            None if outcome is None else outcome_ids(outcome),
            session,
        )
        if clear and (since, until, system, outcome, session) != (None,) * 5:
            raise ParseError("--clear deletes all rolls or one character's (-c NAME)")
        if clear and not yes and not interactive():
            raise ParseError("--clear asks before it deletes; not on a terminal, give --yes")
        _check_prune(prune, before, keep, (character, since, until, system, outcome))
        cut = None if before is None else when(before, now, "--before")
        if prune and not yes and not interactive():
            raise ParseError("--prune asks before it deletes; not on a terminal, give --yes")
        state = State.open(None, out.warn)
        try:
            if state.db.unusable is not None:  # not "no rolls logged yet": it is not known
                raise StateError(f"the roll log could not be read: {state.db.unusable}")
            store = state.rolls
            if session is not None:
                _known_session(store, session)
            if clear:
                _clear(store, character, yes, out)
            elif prune:
                _prune(store, cut, keep, yes, out)
            elif export is not None:
                _export(store, export.lower(), only, out)
            elif luck:
                charts = (svg, png)
                json_out = command_options().json
                _luck(store, only, out, json_out, no_color, since, session, charts, recap, post)
            elif stats:
                _stats(store, only, out, command_options().json, no_color, details, no_pager)
            else:
                json_out = command_options().json
                _recent(store, limit or 20, only, out, json_out, tsv, no_color, no_pager)
        finally:
            state.close()


def _luck(
    store: Rolls,
    only: LogFilter,
    out: Output,
    json: bool,
    no_color: bool,
    since: str | None,
    session: int | None,
    charts: tuple[str | None, str | None] = (None, None),
    recap: bool = False,
    post: str | None = None,
) -> None:
    """`--luck`: the logged rolls priced by their exact odds (d20cli.store.log_luck), as
    JSON, one screen or (`recap`) a few plain lines to paste (d20cli.present.luck_view);
    first, the chart of `charts` (--svg, --png FILE) when one is given."""
    from d20cli.present.luck_view import luck_lines, recap_text
    from d20cli.probability.pricing import tier_labels
    from d20cli.store.log_luck import ledger

    found = ledger(store, only)
    labels = tier_labels()
    if charts != (None, None):
        from d20cli.app.charts import write_charts
        from d20cli.present.charts import luck_chart

        write_charts(lambda: luck_chart(found, labels, _luck_span(only, session, since)), *charts)
    if json:
        out.json(found.to_json())
        return
    if recap:
        text = recap_text(found, labels, _luck_span(only, session, since))
        out.text(text)
        _post_recap(store, text, found, out, post)
        return
    shown = out.without_color() if no_color and out.color else out
    shown.lines(luck_lines(found, labels, visible(_luck_span(only, session, since))))


def _post_recap(store: Rolls, text: str, found: Ledger, out: Output, url: str | None) -> None:
    """Post the recap where the rolls are posted (`--post URL`, D20_POST, `post.url`;
    nowhere when none is named), after it is printed: queued, then sent within the wait
    of a run; one line on standard error says it was posted, or why it waits (`d20 post
    --retry` sends it). With `post.only = sealed`, only a recap of sealed rolls alone."""
    import time

    from d20cli.app.context import post_plan
    from d20cli.app.posting import POST_WAIT, deliver
    from d20cli.frozen import replace
    from d20cli.store.config import masked_url
    from d20cli.store.post_queue import Posts, recap_body
    from d20cli.store.rolllog import stamp

    opts = command_options()
    plan = post_plan(opts if url is None else replace(opts, post=url))
    if plan is None:
        return
    if plan.sealed_only and (not found.priced or found.sealed < len(found.priced)):
        out.warn("the recap is not posted: post.only = sealed, and not all its rolls are sealed")
        return
    full = found.to_json()
    luck = {k: full[k] for k in ("priced", "sealed", "simulated")}
    luck.update({k: full["all"][k] for k in ("successes", "damage")})
    Posts(store.db).add(plan, recap_body(text, stamp(time.time_ns() // 1_000_000), luck))
    done = deliver(store.db, POST_WAIT)
    if done.waiting and done.problems:
        out.warn(
            f"the recap could not be posted ({done.problems[0]}); it waits in the queue: "
            "d20 post --retry sends it"
        )
    else:
        out.flush()
        out.stderr.write(visible(f"d20: recap posted to {masked_url(plan.url)}") + "\n")


def _luck_span(only: LogFilter, session: int | None, since: str | None) -> str:
    """The rolls `--luck` reads, said in its head: as whom, which session, since when."""
    when = []
    if only.character:
        when.append(f"as {only.character}")
    if session is not None:
        when.append(f"sealed session {session}")
    if since is not None:
        when.append(f"since {since}")
    return ", ".join(when)


def _known_session(store: Rolls, session: int) -> None:
    """ParseError when the state database holds no sealed session `session`."""
    from d20cli.store.sealing import Sessions

    if session not in Sessions(store.db).commitments():
        raise ParseError(
            f"there is no sealed session {session} in this roll log (d20 log shows each "
            "sealed roll's session: `sealed N`)"
        )


def interactive() -> bool:
    """Whether a question can be asked (standard input and output are terminals)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _clear(store: Rolls, character: str | None, yes: bool, out: Output) -> None:
    """Delete the rows (`character`'s), but never those of the sealed session that is
    open (its rolls are still to be verified): the question and the answer say so."""
    from d20cli.store.rolllog import LogFilter
    from d20cli.store.sealing import Sessions

    session = Sessions(store.db).current()
    kept = 0 if session is None else store.count(character, LogFilter(session=session.id))
    note = f" (the open sealed session's {kept:,} are kept)" if kept else ""
    who = f"{character}'s" if character else "all"
    n = store.count(character) - kept
    question = visible(f"delete {who} {n:,} logged rolls{note}?")
    if not yes and not typer.confirm(question, default=False):
        out.text("nothing deleted")
        raise typer.Exit(int(ExitStatus.OK))
    gone = store.clear(character)
    kept_note = f"; the open sealed session's {kept:,} are kept" if kept else ""
    out.text(f"deleted {gone:,} roll{'s' if gone != 1 else ''}{kept_note}")
    _vacuum(store, out)


# --- filters ----------------------------------------------------------------------------

_AGO = re.compile(r"([0-9]{1,9})\s*(s|m|min|h|d|w)")
_UNITS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def when(text: str, now: datetime, option: str, end: bool = False) -> str:
    """The log's time text (UTC) for `--since`/`--until`: a time ago (`30m`, `2h`, `7d`,
    `1w`), `today`, `yesterday`, a date (`2026-05-01`: its start, or with `end` the start
    of the next day, so that `--until` takes the whole day) or a date and time. Days and
    times are local (`TZ`), as the log's table shows them, unless the time gives an offset
    (`2026-05-01 18:00`, `2026-05-01T18:00+02:00`, `2026-05-01T16:00Z`)."""
    from d20cli.store.rolllog import stamp

    try:
        at = _when(text.strip().lower(), now, end)
    except (ValueError, OverflowError, OSError):  # a date out of range
        at = None
    if at is None:
        raise ParseError(
            f"{option} takes a date (2026-05-01, '2026-05-01 18:00') or a time ago "
            f"(30m, 2h, 7d, 1w), not {visible(text)!r}"
        )
    ms = int(at.timestamp() * 1000)
    if not -(10**13) < ms < 10**14:  # before 1653 or after 5138: no roll was logged then
        raise ParseError(f"{option} {visible(text)!r} is not a time the log can hold")
    return stamp(ms)


def _when(word: str, now: datetime, end: bool) -> datetime | None:
    """`when`'s datetime, None when `word` is none of its forms."""
    at: datetime | None = None
    ago = _AGO.fullmatch(word)
    midnight = now.astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    if ago is not None:
        at = now - timedelta(seconds=int(ago.group(1)) * _UNITS[ago.group(2)])
    elif word in ("today", "yesterday"):
        at = midnight - timedelta(days=0 if word == "today" else 1)
        at += timedelta(days=1) if end else timedelta(0)
    elif word.isascii() and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", word):
        at = _local(datetime.fromisoformat(word))  # (ValueError: no such day)
        at += timedelta(days=1) if end else timedelta(0)
    elif word.isascii() and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[t ][0-9:.+\-z ]+", word):
        at = datetime.fromisoformat(word.upper().replace(" ", "T", 1).replace(" ", ""))
        at = at if at.tzinfo is not None else _local(at)
    return at


def _local(at: datetime) -> datetime:
    """A time without an offset, read as local; one with no local time (the year 1) as
    UTC, which `when` then finds out of the log's range."""
    try:
        return at.astimezone()
    except (OverflowError, OSError, ValueError):
        return at.replace(tzinfo=UTC)


def _system(name: str) -> str:
    from d20cli.rules import system_id

    return system_id(name)  # an unknown name: RulesError, listing the systems


def _norm(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip().lower())


#: Outcome names by (system id, verb, outcome id); verb "" holds the system's own tiers.
Labels = dict[tuple[str, str, str], str]


def outcome_labels() -> Labels:
    """Every system's outcome names, as its rolls give them, by (system id, verb, outcome
    id) (`System.outcome_names`), and each system's tiers under the verb ""."""
    from d20cli.rules import get_system

    labels: Labels = {}
    for sid in SYSTEM_IDS:
        system = get_system(sid)
        for verb in ("", *system.verbs):
            for oid, label in system.outcome_names(verb).items():
                labels[sid, verb, oid] = label
    return labels


def outcome_label(labels: Labels, system: str, verb: str, outcome: str) -> str:
    """The name a roll of `verb` gives `outcome` (its id, for one no system has)."""
    return labels.get((system, verb, outcome)) or labels.get((system, "", outcome), outcome)


def outcome_ids(text: str) -> tuple[str, ...]:
    """The outcome ids `--outcome` names (ids or labels, comma-separated, any case)."""
    labels = outcome_labels()
    found: list[str] = []
    for word in (w for w in text.split(",") if w.strip()):
        key = _norm(word)
        ids = {oid for (_, _, oid), label in labels.items() if key in (oid, _norm(label))}
        if not ids:
            known = sorted({oid for _, _, oid in labels})
            raise ParseError(
                f"no outcome is called {visible(word.strip())!r}; outcomes: {', '.join(known)}"
            )
        found += sorted(ids - set(found))
    if not found:
        raise ParseError("--outcome takes outcome names, e.g. --outcome hit,critical")
    return tuple(found)


# --- recent rolls -----------------------------------------------------------------------


def dice_words(dice: list[Any]) -> str:
    """A row's dice for people: each size with its faces, a die not kept in parentheses
    (`d20 12 (7)`, `d6 3 5 (1) 6, d8 4`); a summary says how many dice it counts."""
    groups: list[tuple[int | None, list[str]]] = []
    shown = 0
    for die in dice:
        if not isinstance(die, dict):
            continue
        summary = die.get("summary")
        if isinstance(summary, dict):
            groups.append((None, [f"{summary.get('count', '?')} dice, summarised"]))
            continue
        if shown == MAX_SHOWN_DICE:
            groups.append((None, [f"… {len(dice) - shown} more dice"]))
            break
        shown += 1
        sides = die.get("sides") if isinstance(die.get("sides"), int) else None
        face = str(die.get("face", "?"))
        face = face if die.get("kept", True) else f"({face})"
        if groups and groups[-1][0] == sides and sides is not None:
            groups[-1][1].append(face)
        else:
            groups.append((sides, [f"d{sides if sides is not None else '?'} {face}"]))
    return ", ".join(" ".join(faces) for _, faces in groups)


def local_time(at: str) -> str:
    """The log's time text (ISO 8601, UTC) as people read it: `2026-05-01 20:15:03` in
    the local time zone (`TZ`). A text that is no time (a hand-edited row) is shown as it
    is, cut to the length of a time."""
    try:
        parsed = datetime.fromisoformat(at)
        parsed = parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
        return parsed.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except (ValueError, OverflowError, OSError):  # (a year that has no local time)
        return at.replace("T", " ")[:19]


def row_fields(row: Row, labels: Labels, iso: bool) -> list[str]:
    """A row as the fields of a line: time (`iso`: the log's own, ISO 8601 in UTC; else
    local time, `local_time`), character, request, dice, total, outcome label, source
    (forced, seeded, `sealed N` for a roll of sealed session N, or empty); every field
    made visible, as each comes from a file that may be someone else's."""
    at = row.at if iso else local_time(row.at)
    label = "" if row.outcome is None else outcome_label(labels, row.system, row.verb, row.outcome)
    fields = [
        at,
        row.character or "",
        row.request,
        dice_words(row.dice),
        "" if row.total is None else str(row.total),
        label,
        MARKS.get(row.source, row.source) if row.session is None else f"sealed {row.session}",
    ]
    return [visible(f) for f in fields]


def _recent(
    store: Rolls,
    limit: int,
    only: LogFilter,
    out: Output,
    json: bool,
    tsv: bool,
    no_color: bool,
    no_pager: bool = False,
) -> None:
    found = store.recent(limit, only=only)
    if json:
        out.json([r.to_json() for r in found])
        return
    if not found:
        if not tsv:  # (a script reading tab-separated lines gets none)
            filtered = (only.since, only.until, only.system, only.outcomes, only.session) != (
                None,
            ) * 5
            said = "no logged rolls match" if filtered else "no rolls logged yet"
            out.text(said + (f" for {visible(only.character)}" if only.character else ""))
        return
    labels = outcome_labels()
    console = None if tsv or not out.stdout.isatty() else _console(out, no_color)
    if console is None or console.width < TABLE_LEAST:
        for r in found:  # user text is made visible: a tab in it is `\t`, not a tab
            fields = row_fields(r, labels, iso=tsv)  # (a line at a time: memory of one)
            if tsv:
                out.stdout.write("\t".join(fields) + "\n")
            else:
                fields[1] = fields[1] or "-"
                out.stdout.write("  ".join(f for f in fields if f) + "\n")
        out.stdout.flush()
        return
    from d20cli.app.pager import paged

    with paged(console, out, no_pager) as shown:
        _table(found, labels, shown)


#: Below these terminal widths the table leaves out the year, then the dice; below TINY it
#: folds the time onto two lines (date, then time), names the character column `char`
#: (left out when no row has a character) and shows the source after the outcome; below
#: TABLE_LEAST there is no room for a table: the plain lines are shown (they and --tsv
#: always hold every field).
WIDE, NARROW, TINY, TABLE_LEAST = 100, 80, 60, 40
#: The longest field the table shows whole; a longer one (a request with a long label, or
#: a row from someone else's state.db) is cut there, ending in `…`: rich lays out a table
#: in time and memory that grow with its cells (20 rows of 60,000 characters: 2.6 s).
MAX_CELL = 200


def _table(found: list[Row], labels: Labels, console: Any) -> None:
    """The rolls as a table that fits the terminal's width, times in local time."""
    from rich.table import Table

    width = int(console.width)
    tiny = width < TINY
    columns = ["time", "character", "request", "dice", "total", "outcome", "source"]
    keep = [True] * 7
    keep[1] = not tiny or any(r.character for r in found)
    keep[3] = width >= NARROW
    keep[6] = not tiny and any(r.session is not None or MARKS.get(r.source) for r in found)
    least = {"character": 5, "request": 8, "total": 5, "outcome": 9}
    if tiny:
        least = {"character": 4, "total": 5, "outcome": 8}
    table = Table(expand=False, padding=(0, 1) if width >= NARROW else (0, 0))
    for column, kept in zip(columns, keep, strict=True):
        if kept:
            table.add_column(
                "char" if tiny and column == "character" else column,
                justify="right" if column == "total" else "left",
                no_wrap=column == "time" and not tiny,
                overflow="fold",
                min_width=least.get(column),
                width=5 if tiny and column == "time" else None,  # MM-DD over HH:MM
                max_width=10 if tiny and column == "character" else None,
            )
    for r in found:
        fields = row_fields(r, labels, iso=False)
        if width < WIDE:
            fields[0] = fields[0][5:16]  # MM-DD HH:MM
        if tiny and fields[6]:  # the source after the outcome: `Success, seeded`
            fields[5] = ", ".join(f for f in fields[5:7] if f)
        fields = [f if len(f) <= MAX_CELL else f[: MAX_CELL - 1] + "…" for f in fields]
        table.add_row(*(_cell(f) for f, kept in zip(fields, keep, strict=True) if kept))
    console.print(table)


# --- export and stats -------------------------------------------------------------------


def _export(store: Rolls, kind: str, only: LogFilter, out: Output) -> None:
    import json as json_module

    from d20cli.store import rolllog

    stream = out.stdout
    if kind == "json":  # with each sealed roll's session, and the hash chain
        from d20cli.store.sealing import Sessions, chained, export_row, export_sealed

        sessions = Sessions(store.db).every()
        promises = {sid: s.commitment for sid, s in sessions.items()}

        def exported(r: rolllog.Row) -> dict[str, Any]:
            data = export_row(r, promises)
            if r.session is not None:
                export_sealed(data, sessions.get(r.session), r.secret)
            return data

        stream.write("[")
        rows = (exported(r) for r in store.rows(only=only))
        for i, row in enumerate(chained(rows)):  # (ASCII: every control as a \u escape)
            stream.write(("," if i else "") + "\n" + json_module.dumps(row))
        stream.write("\n]\n")
    else:
        import csv

        # The values as they are, for a file or a pipe; on a terminal, made visible: a
        # value from someone else's log never reaches a terminal raw.
        shown = stream.isatty()
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(rolllog.COLUMNS)
        for r in store.rows(only=only):
            cells = rolllog.csv_row(r)
            writer.writerow([visible(str(c)) for c in cells] if shown else cells)
    stream.flush()


def _stats(
    store: Rolls,
    only: LogFilter,
    out: Output,
    json: bool,
    no_color: bool,
    details: bool = False,
    no_pager: bool = False,
) -> None:
    """`--stats`: the log's size, then a summary line per character (rolls, successes and
    failures, natural 20s and 1s, the mean d20 and the fairness verdict); with `details`,
    each character's d20 faces (a histogram from MIN_ROLLS d20s on, the counts in one
    line before), its naturals of every die size, and the naturals of each session."""
    from d20cli.app.pager import paged
    from d20cli.store.log_stats import SIDES, Fairness, fairness, log_size, naturals, outcomes

    found = fairness(store, only=only)
    seen = naturals(store, only=only)
    tallied = outcomes(store, only=only)
    size = log_size(store)
    have = {f.character for f in found}
    for who in seen.characters:  # rolled other dice, but no d20
        if who not in have:
            found.append(Fairness(who, (0,) * SIDES))
    found.sort(key=lambda f: (f.character is not None, f.character or ""))
    if json:
        out.json([_stats_json(f, seen, tallied) for f in found])
        return
    rows = f"{size.rows:,} row{'s' if size.rows != 1 else ''}"
    with paged(_console(out, no_color), out, no_pager) as console:
        console.print(f"roll log: {rows}, {size.bytes:,} bytes on disk", markup=False)
        if not found:
            who = f" for {only.character}" if only.character else ""
            console.print(_cell(f"no d20s logged yet{who}"))
            return
        _summary(console, found, tallied)
        if not details:
            console.print(
                "more: d20 log --stats --details (each character's d20 faces, the "
                "naturals of every die and of each session)",
                markup=False,
            )
            return
        for f in found:
            _faces(console, f)
            _naturals_table(console, f.character, seen)
        _sessions_table(console, seen)


def _stats_json(f: Fairness, seen: Naturals, tallied: dict[str | None, Outcomes]) -> Any:
    """One character's object of `--stats --json`: its fairness test, naturals and
    sessions, and its `summary` (what the text's summary line says)."""
    from d20cli.store.log_stats import Outcomes

    told = tallied.get(f.character, Outcomes())
    mean = f.mean
    summary = {
        **told.to_json(),
        "natural_20s": f.counts[-1],
        "natural_1s": f.counts[0],
        "mean_d20": None if mean is None else round(mean, 6),
    }
    return {**f.to_json(), **seen.to_json(f.character), "summary": summary}


def _plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def summary_lines(f: Fairness, told: Outcomes) -> list[str]:
    """What `--stats` says of one character: its rolls, successes and failures; its d20s
    (natural 20s and 1s, the mean, each against what a fair die gives); the fairness."""
    from d20cli.store.log_stats import MIN_ROLLS

    who = f.character or "(no character)"
    lines = [
        f"{who}: {_plural(told.rolls, 'roll')}, {_plural(told.successes, 'success', 'successes')}"
        f", {_plural(told.failures, 'failure')}"
    ]
    p, mean = f.p_value, f.mean
    if p is None or mean is None:
        lines.append("  no d20s")
        return lines
    lines.append(
        f"  {_plural(f.rolls, 'd20')}: {_plural(f.counts[-1], 'natural 20')}, "
        f"{_plural(f.counts[0], 'natural 1')} ({f.expected:,.1f} expected each), "
        f"mean {mean:.2f} (10.5 expected)"
    )
    if f.rolls < MIN_ROLLS:
        verdict = f"too few d20s to judge yet ({f.rolls:,} of the {MIN_ROLLS} needed)"
    else:
        verdict = f"{f.verdict}, p = {p:.4f}"
    lines.append(f"  fairness: {verdict}")
    return lines


def _summary(console: Any, found: list[Fairness], tallied: dict[str | None, Outcomes]) -> None:
    """`summary_lines` for each character, its name in bold."""
    from rich.text import Text

    from d20cli.store.log_stats import Outcomes

    for f in found:
        first, *rest = summary_lines(f, tallied.get(f.character, Outcomes()))
        name = visible(f.character or "(no character)")
        console.print(Text.assemble((name, "bold"), visible(first[len(name) :])))
        for line in rest:
            console.print(Text(line))


def _faces(console: Any, f: Fairness) -> None:
    """A character's d20 faces: a histogram against the expected count from MIN_ROLLS
    d20s on; fewer cannot be judged yet, so they are one line of counts instead."""
    from rich.table import Table

    from d20cli.store.log_stats import MIN_ROLLS

    p = f.p_value
    who = f.character or "(no character)"
    if p is None:
        console.print(_cell(f"{who}: no d20s"))
        return
    if f.rolls < MIN_ROLLS:
        counts = " ".join(str(n) for n in f.counts)
        console.print(
            _cell(
                f"{who}: {f.rolls:,} d20s, too few to judge yet (a histogram from "
                f"{MIN_ROLLS}); faces 1 to 20: {counts}"
            )
        )
        return
    title = f"{who}: {f.rolls:,} d20s, chi-square {f.chi_square:.2f} (19 df), p = {p:.4f}"
    table = Table(
        title=_cell(title), title_justify="left", caption=f.verdict, caption_justify="left"
    )
    table.add_column("face", justify="right")
    table.add_column("count", justify="right")
    table.add_column("expected", justify="right")
    table.add_column("")
    top = max(f.counts) or 1
    for face, n in enumerate(f.counts, 1):
        bar = "█" * round(30 * n / top)
        table.add_row(str(face), f"{n:,}", f"{f.expected:,.1f}", bar)
    console.print(table)


def _naturals_table(console: Any, who: str | None, seen: Naturals) -> None:
    from rich.table import Table

    sizes = seen.characters.get(who)
    if not sizes:
        return
    table = Table(title=_cell(f"{who or '(no character)'}: naturals"), title_justify="left")
    for column in ("die", "rolled", "1s", "top", "expected each"):
        table.add_column(column, justify="left" if column == "die" else "right")
    for sides in sorted(sizes):
        t = sizes[sides]
        top = f"{t.tops:,}"
        table.add_row(f"d{sides}", f"{t.rolled:,}", f"{t.ones:,}", top, f"{t.rolled / sides:,.1f}")
    console.print(table)


def _sessions_table(console: Any, seen: Naturals) -> None:
    """Naturals per session and character: 1s and top faces of each die size, the
    session's times in local time."""
    from rich.table import Table

    if not seen.sessions:
        return
    table = Table(title="naturals per session (1s / top faces)", title_justify="left")
    for column in ("session", "character", "dice"):
        table.add_column(column, overflow="fold")
    for s in seen.sessions:
        start = local_time(s.start)[:16]
        end = local_time(s.end)[11:16]
        order = sorted(s.naturals, key=lambda c: (c is not None, c or ""))
        for who in order:
            sizes = s.naturals[who]
            text = ", ".join(
                f"d{n} {sizes[n].ones}/{sizes[n].tops} of {sizes[n].rolled}" for n in sorted(sizes)
            )
            table.add_row(_cell(f"{start}-{end}"), _cell(who or "(no character)"), text)
    console.print(table)


# --- `d20 log --prune --before DATE` and `--prune --keep N` ----------------------------

if TYPE_CHECKING:
    from d20cli.present.output import Output
    from d20cli.store.rolllog import Rolls


def _check_prune(
    prune: bool, before: str | None, keep: int | None, filters: tuple[Any, ...]
) -> None:
    """ParseError for --before or --keep without --prune, for --prune with neither or
    with a filter (a prune is of the whole log), and for a --keep out of range."""
    from d20cli.store.config import log_problem

    if not prune:
        if (before, keep) != (None, None):
            raise ParseError("--before and --keep go with --prune: d20 log --prune --keep 10000")
        return
    if (before, keep) == (None, None):
        raise ParseError(
            "--prune takes --before DATE, --keep N or both: d20 log --prune --keep 10000"
        )
    if filters != (None,) * len(filters):
        raise ParseError("--prune takes --before and --keep, no filters: it prunes the whole log")
    problem = None if keep is None else log_problem("keep", keep)
    if problem is not None:
        raise ParseError(f"--keep {problem}")


def _prune(store: Rolls, before: str | None, keep: int | None, yes: bool, out: Output) -> None:
    """Delete the rows before `before` (the log's time text) and past the newest `keep`,
    after a question unless `yes`; say how many went and how many are left, and vacuum."""
    from d20cli.store import log_retention
    from d20cli.store.sealing import Sessions

    what = [f"before {local_time(before)}"] if before is not None else []
    what += [f"older than the newest {keep:,}"] if keep is not None else []
    n = log_retention.prunable(store, before, keep)
    question = f"delete {n:,} logged rolls ({' or '.join(what)})?"
    if n and not yes and not typer.confirm(question, default=False):
        out.text("nothing deleted")
        raise typer.Exit(int(ExitStatus.OK))
    gone = log_retention.prune(store, before, keep)
    sealed = Sessions(store.db).current() is not None
    _vacuum(store, out)
    note = "; the open sealed session's rolls are kept" if sealed else ""
    left = store.count()
    out.text(
        f"deleted {gone:,} roll{'s' if gone != 1 else ''}; {left:,} left, "
        f"{store.db.disk_bytes():,} bytes on disk{note}"
    )


def _vacuum(store: Rolls, out: Output) -> None:
    """Shrink the file after rows were deleted; a warning when it cannot."""
    why = store.db.vacuum()
    if why is not None:
        out.warn(f"the state database could not shrink ({why}); later rolls use its free room")
