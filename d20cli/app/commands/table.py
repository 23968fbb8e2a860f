"""`table ...` as a request (the command line, standard input and the shell all come here
through d20cli.app.run): roll a table, list the tables, show one, check files; and
`odds table NAME`.

    table NAME|FILE      one roll of the table (--repeat, --json, --seed, --dice, -q, ...)
    table list           the tables in the tables directory
    table show NAME      a table's entries as written
    table check FILE...  every problem, each with its file and line (exit status 2)

A roll goes the way of any request: its dice come from the run's roller (one stream for
a whole batch or session, `--seed`, `--dice`), it is written to the roll log, and it is
shown as text, `-q` (the entry's text alone) or one JSON object per roll. With `--dice`
every face is used up before anything is shown: too few or too many is an error alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from d20cli.app.context import Context
from d20cli.app.options import Options, check_rolled_runs
from d20cli.app.result_output import emit
from d20cli.errors import BudgetError, D20Error, ExitStatus, ParseError
from d20cli.language.vocabulary import TABLE, TABLE_ACTIONS
from d20cli.present.output import Output
from d20cli.results import Result
from d20cli.rules import get_system

if TYPE_CHECKING:
    from d20cli.language.tables import Table
    from d20cli.rules import System

USAGE = (
    "table NAME rolls a table (NAME.toml in the tables directory, or a file's path); "
    "also table list, table show NAME, table check FILE"
)
#: Characters one command may print per die of its work budget (as d20cli.app.run, which
#: this module may not import: run sends `table` lines here).
OUTPUT_PER_WORK = 100
#: Options a table does not take (the option's field, as typed).
_NOT_FOR_TABLES = (
    ("summary", "--summary"),
    ("odds", "--odds"),
    ("as_", "--as"),
    ("players", "--players"),
    ("boon", "--boon"),
    ("simulate", "--simulate"),
    ("csv", "--csv"),
    ("totals", "--totals"),
    ("exit_status", "--exit-status"),
)


def run_table(
    words: list[str], opts: Options, out: Output, context: Context | None = None
) -> tuple[ExitStatus, list[Result]]:
    """`table ...` with its options read: the exit status and the last result."""
    results: list[Result] = []
    own = context is None
    context = context or Context()
    out.before_write(context.save)
    try:
        for field_name, option in _NOT_FOR_TABLES:
            if getattr(opts, field_name) not in (None, False):
                raise ParseError(f"{TABLE} does not take {option}")
        action = words[0].lower() if words else ""
        if action == "list" and len(words) == 1:
            _list(opts, out)
        elif action == "show" and len(words) == 2:
            _show(words[1], opts, out)
        elif action == "check" and len(words) >= 2:
            return _check(words[1:], opts, out), results
        elif len(words) == 1 and action not in TABLE_ACTIONS:
            limit = context.work_for(opts) * OUTPUT_PER_WORK
            printed = 0
            for result in _rolls(words[0], opts, out, context):
                printed += _emit(result, opts, out, header=not results)
                results = [result]
                if printed > limit:
                    raise BudgetError(
                        f"this command printed more than {limit:,} characters "
                        f"({OUTPUT_PER_WORK} for each die of the work budget); "
                        "raise it with --work N or D20_WORK"
                    )
        else:
            raise ParseError(USAGE)
    except D20Error as err:
        out.error(err, opts.json)
        return ExitStatus.BAD_INPUT, results
    except RecursionError:
        out.error(ParseError("the table is nested too deeply"), opts.json)
        return ExitStatus.BAD_INPUT, results
    finally:
        if own:
            out.save()
            out.forget(context.save)
            context.close()
    return ExitStatus.OK, results


def _rolls(word: str, opts: Options, out: Output, context: Context) -> Iterator[Result]:
    """The rolls of `table WORD` (all of them at once with --dice, so the faces are
    counted before any is shown), each added to the roll log."""
    from d20cli.rules.tables import roll_table
    from d20cli.store.tables import load

    text = f"{TABLE} {word}"
    sealing = context.sealed_for(opts, out)  # refuses --seed, --dice, --no-log
    replay = ""
    if sealing is None:
        root, tables = load(word)
    else:  # each roll at its position, keeping the tables' text for verify
        from d20cli.app.sealed import sealed_tables

        root, tables, replay = sealed_tables(word, text, context.system_for(opts).id)

    def system_for(key: str | None) -> System:
        return get_system(key) if key is not None else context.system_for(opts)

    check_rolled_runs(opts.repeat, "--repeat", "run it in parts")
    roller = context.roller(opts)
    log = context.log_for(opts, out)

    def one() -> Result:
        return roll_table(root, tables, roller, system_for, text)

    def each() -> Iterator[Result]:
        what = f"'{text}'" + (f" --repeat {opts.repeat:,}" if opts.repeat > 1 else "")
        roller.start_command(context.work_for(opts), 1, opts.repeat, what)
        for run in range(opts.repeat):
            if run:
                roller.next_run()
            if sealing is None:
                yield one()
            else:
                yield sealing.roll(one, roller, lambda: replay, len(replay))
        roller.finish()

    rolled = each() if opts.dice is None else iter(list(each()))
    for result in rolled:
        if log is not None:
            log.add(result)
            if sealing is not None:  # its receipt, once logged
                result = sealing.with_receipt(result)
        yield result


def _emit(result: Result, opts: Options, out: Output, header: bool) -> int:
    """Print one roll; the characters printed."""
    from d20cli.present.table_view import quiet_table, table_lines

    return emit(result, opts, out, table_lines, quiet_table, header)


def _list(opts: Options, out: Output) -> None:
    from d20cli.present.table_view import list_lines
    from d20cli.store.tables import names, read_file, table_path, tables_dir

    rows: list[tuple[str, str, str]] = []
    for name in names():
        path = table_path(name)
        if path is None:
            continue
        try:
            read = read_file(path)
        except D20Error as err:
            rows.append((name, "", f"({err.message})"))
            continue
        if read.table is None or read.problems:
            problem = read.problems[0] if read.problems else None
            rows.append((name, "", f"(broken: {problem.message if problem else '?'})"))
        else:
            rows.append((name, read.table.die, read.table.title or ""))
    if opts.json:
        out.json(
            {
                "directory": tables_dir(),
                "tables": [{"table": n, "die": d or None, "title": t} for n, d, t in rows],
            }
        )
    elif not rows:
        out.text(f"no tables yet: put NAME.toml files in {tables_dir()}")
    else:
        out.lines(list_lines(rows))


def _show(word: str, opts: Options, out: Output) -> None:
    from d20cli.present.table_view import show_lines
    from d20cli.store.tables import find, read_file

    read = read_file(find(word))
    if read.table is None:
        raise read.problems[0].error()
    table: Table = read.table
    if opts.json:
        out.json(
            {
                "table": table.name,
                "file": table.source,
                "die": table.die,
                "weighted": table.weighted,
                "system": table.system,
                "title": table.title,
                "entries": [
                    {"entry": e.key, "weight": e.weight, "text": e.text} for e in table.entries
                ],
                "problems": [str(p) for p in read.problems],
            }
        )
    else:
        out.lines(show_lines(table))
        for problem in read.problems:
            out.warn(str(problem))


def _check(words: list[str], opts: Options, out: Output) -> ExitStatus:
    from d20cli.store.tables import check, find

    status = ExitStatus.OK
    for word in words:
        try:
            path = find(word)
            table, problems = check(path)
        except D20Error as err:
            path, table, problems = word, None, []
            out.error(err, opts.json)
            status = ExitStatus.BAD_INPUT
            continue
        for problem in problems:
            out.error(problem.error())
        if problems:
            status = ExitStatus.BAD_INPUT
        if opts.json:
            out.json(
                {
                    "file": path,
                    "ok": not problems,
                    "problems": [
                        {"file": p.source, "line": p.line, "message": p.message} for p in problems
                    ],
                }
            )
        elif not problems and table is not None:
            entries = f"{len(table.entries)} entr{'y' if len(table.entries) == 1 else 'ies'}"
            out.text(f"{path}: ok ({entries}, {table.die})")
    return status


def odds_table(words: list[str], opts: Options, out: Output) -> ExitStatus:
    """`odds table NAME`: the exact chance of each entry, and of what each roll gives."""
    from d20cli.present.table_view import odds_lines
    from d20cli.probability.tables import table_odds
    from d20cli.store.tables import load

    try:
        if len(words) != 1:
            raise ParseError("odds of which table? e.g. `d20 odds table loot`")
        root, tables = load(words[0])

        def system_for(key: str | None) -> str:
            return get_system(key if key is not None else opts.system_id()).id

        odds = table_odds(root, tables, system_for)
    except D20Error as err:
        out.error(err, opts.json)
        return ExitStatus.BAD_INPUT
    if opts.svg is not None or opts.png is not None:
        from d20cli.app.charts import charts_written
        from d20cli.present.charts import table_chart

        if not charts_written(lambda: table_chart(odds), opts, out):
            return ExitStatus.BAD_INPUT
    if opts.json:
        out.json(odds.to_json())
    else:
        out.lines(odds_lines(odds))
    return ExitStatus.OK
