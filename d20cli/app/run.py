"""One request from words to output: parse, resolve, render. Errors become exit status 2.

The command line, each line of standard input and each line of the shell come through
`run_tokens`, so they accept the same words and options and fail the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from d20cli.app import fortune, rolling
from d20cli.app.context import Context
from d20cli.app.emit import emit
from d20cli.app.extras import outcome_labels, print_tally, sampled_tally, with_chance
from d20cli.app.options import (
    MAX_ROLLED_RUNS,
    Options,
    check_rolled_runs,
    check_taken,
    request_text,
    split_line,
    split_options,
    wants_help,
)
from d20cli.app.rolling import Lane, check_text, in_text, lane
from d20cli.dice.roller import Roller
from d20cli.errors import BudgetError, D20Error, ExitStatus, ParseError
from d20cli.language.vocabulary import TABLE
from d20cli.present.output import Output
from d20cli.present.render import quiet_text, render_result
from d20cli.results import Result

if TYPE_CHECKING:
    from d20cli.language.requests import Request
    from d20cli.present.tally import Tally
    from d20cli.rules import System
    from d20cli.store.rolllog import RollLog


class Outcome(NamedTuple):
    """How one request went: its exit status and its last result (for `again`, the log).

    `results` holds only the last result: a long --repeat keeps no list of results."""

    status: ExitStatus
    results: list[Result]


def resolve(
    text: str, opts: Options, out: Output | None = None, context: Context | None = None
) -> Iterator[Result]:
    """Parse `text` (verb first): the results of the request, repeats included, as they
    are rolled (errors in the words are raised here, before any result).

    The dice budget covers one request: its dice, explosions, rerolls and `Nx` repeats.
    `--repeat N` runs the request N times, each with the whole budget.

    With `out` (the edge: command line, standard input, shell), pendagger's fortune dice
    are kept in the state database: an attempt or luck roll is remembered and may gain a
    die, and the `fortune` verb shows or spends them (d20cli.app.fortune). The rolling
    itself is the library's too (d20cli.app.rolling)."""
    check_text(text)
    context = context or Context()
    system = context.system_for(opts)
    request = context.ready(text, system, opts)
    hooks = out is not None and system.fortune is not None
    who = context.character_names(text, opts.as_) if opts.as_ else ()
    if opts.dice is None:
        return _results(request, system, opts, out if hooks else None, context, True, who)
    # --dice: every face is counted before anything is shown, logged or stored. A first
    # pass rolls the whole request writing nothing (too many or too few faces is an error
    # here); a request with no state to write yields that pass's results.
    checked = list(_results(request, system, opts, out if hooks else None, context, False, who))
    if not hooks:
        return iter(checked)
    return _results(request, system, opts, out, context, True, who)


def _results(
    request: Request,
    system: System,
    opts: Options,
    out: Output | None,
    context: Context,
    write: bool,
    who: tuple[str, ...] = (),
) -> Iterator[Result]:
    """The results of one request (`resolve`); with `out`, pendagger's fortune dice are
    kept (`write`: False checks and rolls everything but stores nothing)."""
    roller = context.roller(opts)
    resolve_one: Callable[[Request, Roller], Result] = system.resolve
    if who:  # rolled through characters: each result says whose it is
        resolve_one = rolling.through(resolve_one, who)
    if out is not None:
        resolve_through = resolve_one

        def resolve_kept(request: Request, roller: Roller) -> Result:
            if request.verb == "fortune":
                return fortune.handle(request, roller, opts, out, context, write)
            result = resolve_through(request, roller)
            return fortune.record(request, result, opts, out, context, write)

        resolve_one = resolve_kept
    if context.sealing is not None:  # each roll at its position of the stream
        resolve_one = context.sealing.wrap(resolve_one)

    work = context.work_for(opts)
    return rolling.results(request, resolve_one, roller, opts.repeat, work, context.plan(request))


def exit_for(result: Result, opts: Options) -> ExitStatus:
    if opts.exit_status and result.success is False:
        return ExitStatus.FAILED_OUTCOME
    return ExitStatus.OK


def _lane(text: str, given: Options, opts: Options, context: Context) -> Lane | None:
    """The Lane of a request with these options in force, if it is plain (see Lane)."""
    if (
        opts.as_
        or opts.dice is not None
        or opts.summary
        or opts.repeat != 1
        or context.sealing is not None
    ):
        return None
    system = context.system_for(opts)
    if system.fortune is not None:
        return None
    check_text(text)
    request = context.ready(text, system, opts)
    plan, work = context.plan(request), context.work_for(opts)
    roller = context.roller(opts) if opts.seed is None else None
    return lane(given, opts, request, system.resolve, plan, work, roller, context.lanes.room)


def run_request(text: str, opts: Options, out: Output, context: Context | None = None) -> Outcome:
    """Resolve and print one request. Errors are printed and give BAD_INPUT."""
    if context is not None:
        kept = context.lane(text, opts)
        if kept is not None:  # made ready before: straight to the dice
            out.before_write(context.save)
            roller = kept.roller if kept.roller is not None else context.roller(kept.opts)
            log = context.log_for(kept.opts, out)
            if not kept.single:
                rolled: Iterable[Result] = kept.results(roller)
            else:  # one result (most requests): rolled here, not by a generator
                try:
                    rolled = (kept.one(roller),)
                except (D20Error, RecursionError) as err:
                    return _failed(err, text, kept.opts, out, [])
            return _rolled(text, kept.opts, out, context, rolled, log, kept.work)
    own_context = context is None
    context = context or Context()
    given = opts
    opts = context.with_character(opts)
    if opts.as_:
        try:
            text, opts = _macro(text, opts, context)
        except D20Error as err:
            out.error(in_text(err, text), opts.json)
            return Outcome(ExitStatus.BAD_INPUT, [])
    out.before_write(context.save)  # what is shown is saved first (group commit)
    # a long --repeat is written (and saved) in pieces of held lines, not line by line
    holding = opts.repeat > 1 and out.flush_lines
    if holding:
        out.flush_lines = False
    try:
        try:
            if opts.summary and opts.repeat == 1:
                raise ParseError("--summary tallies the runs of --repeat N: add one, e.g. -n 1000")
            opts = context.as_options(text, opts)
            sealed = context.sealed_for(opts, out)  # each sealed roll is rolled and logged
            tally = None
            if opts.summary and opts.repeat > 1 and opts.dice is None and sealed is None:
                tally = sampled_tally(text, opts, context)
            if tally is not None:
                print_tally(tally, opts, out)
                return Outcome(ExitStatus.OK, [])
            if opts.repeat > MAX_ROLLED_RUNS:
                check_rolled_runs(opts.repeat, "--repeat", _fewer_runs(opts))
            lane = None if own_context else _lane(text, given, opts, context)
            if lane is not None:
                context.lanes.keep(text, lane)
                results = lane.results(context.roller(opts))
            else:
                results = resolve(text, opts, out, context)
        except (D20Error, RecursionError) as err:
            return _failed(err, text, opts, out, [])
        log = context.log_for(opts, out)
        return _rolled(text, opts, out, context, results, log, context.work_for(opts))
    finally:
        try:
            if holding:
                out.flush_lines = True
                out.flush()
            if own_context:
                out.save()
        finally:
            if own_context:  # closed whatever the saving raised (NotSaved, an interrupt)
                out.forget(context.save)
                context.close()


def _rolled(
    text: str,
    opts: Options,
    out: Output,
    context: Context,
    rolled: Iterable[Result],
    log: RollLog | None,
    work: int,
) -> Outcome:
    """Log, print (or tally, with --summary) the results of a request as they are rolled;
    an error on the way is printed and gives BAD_INPUT. `work`: the command's work
    budget, which bounds what it may print."""
    results: list[Result] = []
    status = ExitStatus.OK
    tally: Tally | None = None
    chances: Any = None
    printed = 0
    try:
        output_limit = work * OUTPUT_PER_WORK
        for result in rolled:
            if log is not None:
                log.add(result)
                if context.sealing is not None:  # its receipt, once logged
                    result = context.sealing.with_receipt(result)
            if opts.odds:
                if chances is None:
                    chances = context.odds(text, opts)
                result = with_chance(result, chances)
            if opts.summary and opts.repeat > 1:
                if tally is None:
                    from d20cli.present.tally import Tally  # only for --summary

                    tally = Tally(result.request, result.system, result.verb)
                    tally.labels.update(outcome_labels(context, opts, result.verb))
                tally.add(result)
                continue
            printed += emit(
                result,
                opts,
                out,
                render_result,
                quiet_text,
                not results or results[0].request != result.request,
            )
            if printed > output_limit:
                _check_output(printed, opts)
            if opts.exit_status:
                status = max(status, exit_for(result, opts))
            results = [result]
        if opts.as_ is None and text not in context.valued:  # after the request went well:
            context.warn_unvalued(text, out)  # a bad one gets its error alone
    except (D20Error, RecursionError) as err:
        return _failed(err, text, opts, out, results)
    if tally is not None:
        print_tally(tally, opts, out)
    return Outcome(status, results)


def _failed(
    err: D20Error | RecursionError, text: str, opts: Options, out: Output, results: list[Result]
) -> Outcome:
    """A request that failed on the way: its error printed (placed in its text), BAD_INPUT
    (`results`: the last result printed before it)."""
    if isinstance(err, RecursionError):
        err = ParseError("the request is nested too deeply", text, None)
    out.error(in_text(err, text), opts.json)
    return Outcome(ExitStatus.BAD_INPUT, results)


def _fewer_runs(opts: Options) -> str:
    """What to do instead of rolling more than MAX_ROLLED_RUNS runs one by one."""
    if not opts.summary:
        return "add --summary for a tally drawn from the exact odds, or run it in parts"
    if opts.dice is not None:
        return "a --summary with --dice rolls each run; use fewer runs"
    return "its exact odds are too costly to draw a --summary from; use fewer runs"


def _ready(context: Context, opts: Options) -> Callable[[str], Request]:
    """How the odds engine reads a request: parsed, with the house defaults a roll with
    these options gets (d20cli.rules.house)."""
    system = context.system_for(opts)
    return lambda text: context.ready(text, system, opts)


def _macro(text: str, opts: Options, context: Context) -> tuple[str, Options]:
    """A macro of the character in the verb's place: its request words, and the options
    saved in it (`-n 2`, `-s mm`) under the options given with it (those win)."""
    line = context.macro_line(text, opts.as_ or "")
    if line == text:
        return text, opts
    words, saved = split_options(split_line(line))
    return " ".join(words), saved.merged(opts)


def read_options(
    tokens: list[str], base: Options, out: Output, verb: str | None = None
) -> tuple[list[str], Options] | None:
    """The words of `tokens` and the options in force for them (`base` with what the
    tokens set); None, after printing the error, when an option is bad or one the verb
    (`verb`, else the first word) does not take."""
    try:
        words, line_opts = split_options(tokens)
        check_taken(verb or (words[0].lower() if words else ""), line_opts, tokens)
    except D20Error as err:
        out.error(err, base.json or "--json" in tokens)
        return None
    return words, base.merged(line_opts)


def output_for(opts: Options, out: Output) -> Output:
    """`out`, in colour or not as --color / --no-color say."""
    choice = opts.color_choice()
    if choice == "never" and out.color:
        return out.without_color()
    if choice == "always" and not out.color:
        return out.with_color()
    return out


def run_words(
    words: list[str], opts: Options, out: Output, context: Context | None, text: str | None = None
) -> Outcome:
    """Words whose options are already read: `odds ...`, or one request (whose text, if
    given, is `request_text(words, opts)`)."""
    out = output_for(opts, out)
    if words and words[0] == "odds":
        return Outcome(odds_for_words(words[1:], opts, out), [])
    if words and words[0].lower() == TABLE:
        from d20cli.app.table_cli import run_table

        return Outcome(*run_table(words[1:], opts, out, context))
    return run_request(request_text(words, opts) if text is None else text, opts, out, context)


def run_odds(tokens: list[str], base: Options, out: Output) -> ExitStatus:
    """`odds VERB WORDS...` and `odds compare "A" "B"`: exact odds (or --simulate N)."""
    read = read_options(tokens, base, out, "odds")
    if read is None:
        return ExitStatus.BAD_INPUT
    words, opts = read
    return odds_for_words(words, opts, output_for(opts, out))


def odds_for_words(words: list[str], opts: Options, out: Output) -> ExitStatus:
    """The odds of the request in `words` (options already read)."""
    if words and words[0].lower() == TABLE:
        from d20cli.app.table_cli import odds_table

        return odds_table(words[1:], opts, out)
    from d20cli.present.odds_view import compare_lines, csv_text, odds_lines, quiet_odds_text
    from d20cli.probability import walk
    from d20cli.probability.engine import odds_of, simulate

    context = Context()
    deadline = time.monotonic() + walk.ODDS_DEADLINE  # one for all of `odds compare`

    def one(text: str) -> Any:
        nonlocal opts
        opts = context.as_options(text, context.with_character(opts))  # its system too
        parse = _ready(context, opts)  # with the house defaults, as a roll would be
        if opts.simulate is not None:
            check_rolled_runs(opts.simulate, "--simulate", "estimate from fewer runs")
            return simulate(
                text,
                opts.system_id(),
                opts.simulate,
                opts.seed,
                opts.dice_budget(),
                opts.work_budget(),
                parse=parse,
            )
        return odds_of(text, opts.system_id(), parse=parse, deadline=deadline)

    texts: list[str]
    # `odds compare "A" "B" ...` compares quoted requests; `odds compare 8 vs 6` (no word
    # with a space in it) is the odds of mm's own `compare` verb.
    comparing = words[:1] == ["compare"] and any(" " in w.strip() for w in words[1:])
    if comparing:
        texts = [w for w in words[1:] if w]
        if len(texts) < 2:
            usage = ParseError(
                'odds compare takes two or more quoted requests: "check +5 vs 15 adv" ...'
            )
            out.error(usage, opts.json)
            return ExitStatus.BAD_INPUT
    else:
        texts = [request_text(words, opts)]
    results = []
    for text in texts:
        try:
            if not text.strip():
                raise ParseError("odds of what? e.g. `d20 odds check +5 vs 15`")
            results.append(one(text))
        except D20Error as err:
            out.error(in_text(err, text), opts.json)
            return ExitStatus.BAD_INPUT
    if opts.json:
        if comparing:
            out.json({"compare": [r.to_json() for r in results]})
        else:
            out.json(results[0].to_json())
    elif opts.csv:
        for r in results:
            out.text(csv_text(r))
    elif opts.quiet:
        out.text("\n\n".join(quiet_odds_text(r) for r in results))
    elif comparing:
        out.lines(compare_lines(results))
    else:
        out.lines(odds_lines(results[0], totals=opts.totals))
    return ExitStatus.OK


OUTPUT_PER_WORK = 100  # characters one command may print per die of its work budget


def _check_output(printed: int, opts: Options) -> None:
    """BudgetError once a command has printed more than its work budget allows."""
    work = opts.work_budget()
    if printed > work * OUTPUT_PER_WORK:
        raise BudgetError(
            f"this command printed more than {work * OUTPUT_PER_WORK:,} characters "
            f"({OUTPUT_PER_WORK} for each die of the work budget, {work:,}); "
            "raise it with --work N or D20_WORK"
        )


def run_tokens(
    tokens: list[str], base: Options, out: Output, context: Context | None = None
) -> Outcome:
    """One request given as tokens (words and options mixed, as typed). `odds ...` works
    here too, so standard input and the shell take the same words as the command line,
    and so does `init ...` (d20cli.app.initiative). `--help` (or `-h`) among the options
    shows the verb's help instead."""
    if tokens and tokens[0].lower() == "init":
        from d20cli.app.initiative import run_init

        return Outcome(run_init(tokens[1:], base, out, context), [])
    if wants_help(tokens):
        from d20cli.app.help import show_verb_help

        return Outcome(show_verb_help(tokens, out), [])
    read = read_options(tokens, base, out)
    if read is None:
        return Outcome(ExitStatus.BAD_INPUT, [])
    words, opts = read
    return run_words(words, opts, out, context)
