"""One request from what was typed to its output: the one path of every request.

The command line, each line of standard input and of the shell, `table ...` and `init
...` lines all come through `run`, so they accept the same words and options and fail the
same way; the Python API (d20cli.api) rolls through the same layer (d20cli.rolling). Read
top to bottom, a request goes:

1. `run`: what was typed -> its words and options (`read_options`; a line read before
   is taken as read then); a bare expression is a roll (`2d6+3` is `roll 2d6+3`); then
   what the words ask: `init ...`, a verb's `--help`, `odds ...`, `table ...` or a
   request. A request prepared before with these options (d20cli.rolling.prepared) goes
   straight to its dice;
2. `request`: any other request, worked out: its text -> the request -> its results: a
   character's macro, the options a character or a sealed session brings, a --summary
   tally, and its results (`results_of`), through a line prepared now when it is plain, so
   that the next time it goes straight to its dice;
3. `_rolled`: each result logged, noted (--odds) and printed, or tallied (--summary);
   errors become exit status 2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from d20cli.app import fortune
from d20cli.app.context import Context
from d20cli.app.options import (
    Options,
    check_rolled_runs,
    check_taken,
    request_text,
    split_line,
    split_options,
    wants_help,
)
from d20cli.app.result_output import emit
from d20cli.app.tallies import (
    damage_expected,
    outcome_labels,
    print_tally,
    sampled_tally,
    with_chance,
)
from d20cli.dice.roller import Roller
from d20cli.errors import BudgetError, D20Error, ExitStatus, ParseError
from d20cli.frozen import replace
from d20cli.language.vocabulary import COMPLETION_LOWER, SYSTEM_IDS, TABLE, VERBS
from d20cli.present.output import Output, color_wanted
from d20cli.present.render import quiet_text, render_result
from d20cli.records import NamedTuple
from d20cli.results import Result
from d20cli.rolling import rolls
from d20cli.rolling.limits import MAX_ROLLED_RUNS
from d20cli.rolling.prepared import PreparedLine, prepare
from d20cli.rolling.rolls import check_text, first_word, in_text, is_bare

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from d20cli.language.requests import Request
    from d20cli.present.progress import Meter
    from d20cli.rules import System
    from d20cli.store.rolllog import RollLog


class Outcome(NamedTuple):
    """How one request went: its exit status and its last result (for `again`, the log).

    `results` holds only the last result: a long --repeat keeps no list of results."""

    status: ExitStatus
    results: list[Result]


def run(
    typed: str | Sequence[str] | ReadLine,
    base: Options,
    out: Output,
    context: Context | None = None,
    settings: Callable[[list[str], str], ExitStatus] | None = None,
) -> Outcome:
    """One request as typed, with `base` the options in force: the command line's
    arguments, or a line of standard input or of the shell (`d20` in front of it is the
    program's name, as the help writes every example: `without_program`). Words and
    options mix; `init ...`, a verb's `--help` (or `-h`), `odds ...` and `table ...` work
    here too; a `ReadLine` (the command line) comes with its options read. A line read
    before in this `context` is taken as it was read then: a batch's repeated line is
    split and its options read once, and a request prepared before with these options
    goes straight to its dice. `settings`: what a line
    of `system ID` or `as NAME` (`setting`) does to the caller's options, given its
    tokens and text (None: they are no commands here)."""
    reading = None
    if isinstance(typed, ReadLine):  # the command line, read once by its reader
        words = list(typed.words)
        if words and is_bare(words[0]):
            words = ["roll", *words]
        reading = _reading(words, typed.opts, out)
    elif context is not None and isinstance(typed, str):
        reading = context.lines.get(typed)  # a line read before: taken as read then
    if reading is None:
        line = typed if isinstance(typed, str) else None  # (ReadLine is handled above)
        tokens = [str(t) for t in typed] if line is None else without_program(split_line(line))
        head = tokens[0].lower() if tokens else ""
        if head in SETTING_WORDS and settings is not None and line is not None:
            return Outcome(settings(tokens, line), [])  # (never kept: it is not a request)
        if head == "init" and not wants_help(tokens):  # (never kept: the order changes)
            from d20cli.app.commands.initiative import run_init

            return Outcome(run_init(tokens[1:], base, out, context), [])
        if wants_help(tokens):
            from d20cli.app.help import show_verb_help

            return Outcome(show_verb_help(tokens, out), [])
        read = read_options(tokens, base, out)
        if read is None:
            return Outcome(ExitStatus.BAD_INPUT, [])
        reading = _reading(*read, out)
        if line is not None and context is not None and len(context.lines) < context.lines.size:
            context.lines[line] = reading
    words, opts, text, plain = reading
    if opts.secret and words and not _secret_taken(words):
        out.error(
            ParseError(
                "--secret takes a roll of a verb (check, attack, roll, ...); a table roll and "
                "an attack on a combatant of the encounter are shown"
            ),
            opts.json,
        )
        return Outcome(ExitStatus.BAD_INPUT, [])
    if words and words[0].lower() == "attack" and _target_word(words) is not None:
        from d20cli.app.commands.attack_target import attack_on

        attacked = attack_on(words, opts, out, context, request)
        if attacked is not None:
            return Outcome(*attacked)
    if not plain:
        out = output_for(opts, out)
        if words and words[0] == "odds":
            kept_as = None  # the line as the run keeps it read (a line of a batch)
            if context is not None and isinstance(typed, str):
                kept = context.odds_lines.get(id(reading))
                if kept is not None and kept[0] is reading:  # asked before, with --json
                    out.json_line(kept[1])
                    return Outcome(ExitStatus.OK, [])
                kept_as = reading if context.lines.get(typed) is reading else None
            return Outcome(odds_for_words(words[1:], opts, out, context, kept_as), [])
        if words and words[0].lower() == TABLE:
            from d20cli.app.commands.table import run_table

            return Outcome(*run_table(words[1:], opts, out, context))
    if context is not None:
        prepared = context.prepared_line(text, opts)
        if prepared is not None:  # made ready before (d20cli.rolling.prepared): to the dice
            out.before_write(context.save)
            opts = prepared.opts
            roller = prepared.roller if prepared.roller is not None else context.roller(opts)
            log = context.log_for(opts, out)
            try:  # (one result, most requests, is rolled now: not by a generator)
                rolled = prepared.rolled(roller)
            except (D20Error, RecursionError) as err:
                return _failed(err, text, opts, out, [])
            # its notes were said when it was prepared (once a run: Context.say_notes)
            return _rolled(text, opts, out, context, rolled, log, prepared.work, said=True)
    return request(text, opts, out, context)


def _secret_taken(words: Sequence[str]) -> bool:
    """Whether the request in `words` may be a secret roll (`--secret`)."""
    head = words[0].lower()
    return head != TABLE and not (head == "attack" and _target_word(words) is not None)


class ReadLine(NamedTuple):
    """A line whose words and options are already read: the command line's
    (d20cli.app.options.read_command_line reads it once)."""

    words: Sequence[str]
    opts: Options


def _target_word(words: Sequence[str]) -> int | None:
    """Where an attack names a combatant as its target (`vs AC goblin-2`, `vs goblin-2`):
    the word's index, else None (a number, or a word of the language)."""
    for i, w in enumerate(words[:-1]):
        if w.lower() != "vs":
            continue
        j = i + 2 if words[i + 1].lower() == "ac" and i + 2 < len(words) else i + 1
        name = words[j]
        if name[:1].isalpha() and name.lower() not in COMPLETION_LOWER:
            return j
    return None


def _reading(words: list[str], opts: Options, out: Output) -> tuple[list[str], Options, str, bool]:
    """A line as read: its words, its options, its request text, and whether it is plain:
    a request, printed with the output as it is (no `odds` or `table` word, no --color to
    change it)."""
    word = words[0].lower() if words else ""
    plain = word not in ("odds", TABLE) and output_for(opts, out) is out
    return words, opts, request_text(words, opts), plain


def read_options(
    tokens: list[str], base: Options, out: Output, verb: str | None = None
) -> tuple[list[str], Options] | None:
    """The words of `tokens` and the options in force for them (`base` with what the
    tokens set); a bare expression is a roll (`2d6+3`: `roll 2d6+3`). None, after
    printing the error, when an option is bad or one the verb (`verb`, else the first
    word) does not take."""
    try:
        words, line_opts = split_options(tokens)
        if verb is None and words and is_bare(words[0]):
            words = ["roll", *words]
        check_taken(verb or (words[0].lower() if words else ""), line_opts, tokens)
    except D20Error as err:
        out.error(err, base.json or "--json" in tokens)
        return None
    return words, base.merged(line_opts)


def without_program(tokens: list[str]) -> list[str]:
    """A line's tokens without the program's name in front: `d20 check +5 vs 15` as the
    help writes it (so a line copied from there works), `d20 -s mm check +8`. `d20` with
    no words after it (alone, or `d20 --seed 2`) is a roll of a d20."""
    if len(tokens) < 2 or tokens[0].lower() != "d20":
        return tokens
    try:
        words, _ = split_options(tokens[1:])
    except D20Error:  # (the rest's error, said when it is read)
        return tokens[1:]
    return tokens[1:] if words else tokens


#: The words of a request's place that are neither a verb nor a bare expression.
HEADS: tuple[str, ...] = ("odds", TABLE, "init", "system", "as")


def unknown_command(word: str, known: Sequence[str] | None = None) -> ParseError:
    """The error for a first word that is no command: the close ones, or all. `known`: the
    words of the line's place (standard input and the shell); None: the command line's
    commands, where `version` is told `--version` (d20cli.app.help.command_hint)."""
    if known is None:
        from d20cli.app.help import command_hint

        return ParseError(f"unknown command {word[:40]!r}{command_hint(word)}")
    import difflib

    close = difflib.get_close_matches(word.lower(), known, n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else f" (commands: {', '.join(known)})"
    return ParseError(f"unknown command {word[:40]!r}{hint}")


def setting(tokens: list[str], text: str, opts: Options) -> tuple[Options, str]:
    """A line that changes the options of the lines after it, in the shell and on standard
    input alike: `system [ID]` (show or switch the rule system), `as [NAME | -]` (show,
    pick or drop the character: `party` and `aria,bob` too). The options from then on,
    and what to say of it. ParseError (placed in the line's `text`) for a bad one."""
    head = tokens[0].lower()
    if len(tokens) > 2:
        column = len(tokens[0]) + len(tokens[1]) + 3
        if head == "system":
            raise ParseError("`system` takes one system id, e.g. `system mm`", text, column)
        raise ParseError(
            "`as` takes one character name, `party` or names with commas: `as aria,bob`",
            text,
            column,
        )
    if head == "system":
        if len(tokens) == 1:
            others = ", ".join(SYSTEM_IDS)
            return (
                opts,
                f"system: {shown_system(opts)} (the systems are {others}; `system ID` switches)",
            )
        from d20cli.rules import system_id

        try:
            sid = system_id(tokens[1])
        except D20Error as err:
            raise err.located(text, text.find(tokens[1]) + 1) from None
        return replace(opts, system=sid), f"system: {sid}"
    who = opts.as_
    if len(tokens) == 1:
        if who is None or who.lower() == "none":
            return opts, "no character (`as NAME` picks one; `d20 char list` lists them)"
        return opts, f"as: {who} (`as -` drops it)"
    if tokens[1] in ("-", "none"):
        return replace(opts, as_="none"), "no character"  # not even the one in use by default
    try:
        return playing(tokens[1], opts)
    except D20Error as err:
        raise err.located(text, text.find(tokens[1]) + 1) from None


#: The words of `setting`.
SETTING_WORDS = ("system", "as")


def playing(spec: str, opts: Options) -> tuple[Options, str]:
    """`opts` rolling as `spec` (one character, `party` or `aria,bob`) and playing its
    system, if they name one; what to say of it."""
    from d20cli.store import characters

    found = characters.party_of(spec)
    names = ",".join(c.name for c in found)
    opts = replace(opts, as_=spec if characters.is_party(spec) else names)
    said = f"as: {names}"
    plays = {c.system for c in found if c.system is not None}
    if len(plays) == 1 and (system := plays.pop()) != shown_system(opts):
        opts = replace(opts, system=system)
        said += f" (system: {shown_system(opts)})"
    return opts, said


def shown_system(opts: Options) -> str:
    """The id of the system `opts` roll in (as given, when it is no system's)."""
    from d20cli.rules import system_id

    try:
        return system_id(opts.system_id())
    except D20Error:
        return opts.system_id()


def request(text: str, opts: Options, out: Output, context: Context | None = None) -> Outcome:
    """Roll and print one request worked out: its text (verb first) with its options
    read. Errors are printed and give BAD_INPUT.

    A character's macro, the system a character or party plays, a sealed session, a
    --summary tally drawn from the odds; then its results, rolled through a line prepared
    now when it is plain (so that the next time `run` sends it straight to its dice),
    else worked out by `results_of`."""
    own_context = context is None
    context = context or Context()
    given = opts
    opts = context.with_character(opts)
    try:
        if opts.as_:
            text, opts = _macro(text, opts, context)
        elif text.strip() and (word := first_word(text)).lower() not in VERBS:
            raise unknown_command(word, (*VERBS, *HEADS))
    except D20Error as err:
        out.error(in_text(err, text), opts.json)
        return Outcome(ExitStatus.BAD_INPUT, [])
    out.before_write(context.save)  # what is shown is saved first (group commit)
    # a long --repeat is written (and saved) in pieces of held lines, not line by line
    holding = opts.repeat > 1 and out.flush_lines
    if holding:
        out.flush_lines = False
    meter: Meter | None = None
    try:
        try:
            if opts.summary and opts.repeat == 1:
                raise ParseError("--summary tallies the runs of --repeat N: add one, e.g. -n 1000")
            opts = context.as_options(text, opts)
            sealed = context.sealed_for(opts, out)  # each sealed roll is rolled and logged
            fails = ""  # why the roll fails whatever its dice (a combatant's condition)
            if opts.as_:
                from d20cli.app.commands.combatant_checks import as_combatant

                text, fails = as_combatant(text, opts, out, context)
                if fails and (opts.summary or opts.odds):
                    option = "--summary tallies" if opts.summary else "--odds prices"
                    raise ParseError(f"{option} the dice, but {fails}")
                if fails and sealed is not None and not (opts.json or opts.quiet):
                    out.text("(a sealed session shows the roll as rolled: its receipt proves it)")
            if opts.secret:
                _check_secret(opts, sealed is not None)
            if sealed is not None:
                sealed.secret = opts.secret
            meter = _repeat_meter(opts, out)
            tally = None
            if opts.summary and opts.repeat > 1 and opts.dice is None and sealed is None:
                tally = sampled_tally(text, opts, context, meter)
            if tally is not None:
                _close(meter)
                print_tally(tally, opts, out)
                return Outcome(ExitStatus.OK, [])
            if meter is not None:
                meter.total = opts.repeat  # (the runs, counted as each ends)
            if opts.repeat > MAX_ROLLED_RUNS:
                check_rolled_runs(opts.repeat, "--repeat", _fewer_runs(opts))
            context.check_strict(text, opts)  # --strict: before anything is rolled
            log = context.log_for(opts, out)  # (a bad D20_POST: before anything is rolled)
            prepared = None if own_context else _prepare(text, given, opts, context)
            if prepared is not None:
                context.say_notes(text, opts, out)  # now: the prepared line will not
                context.prepared.keep(text, prepared)
                roller = prepared.roller if prepared.roller is not None else context.roller(opts)
                # (its first roll, as `run` rolls it again, but not through its memo)
                results: Iterable[Result] = prepared.rolled(roller, remember=False)
            else:
                step = None if meter is None else meter.step
                results = results_of(text, opts, out, context, step)
            if fails and sealed is None:
                from d20cli.rules.encounter import auto_failed

                results = (auto_failed(result, fails) for result in results)
        except (D20Error, RecursionError) as err:
            _close(meter)
            return _failed(err, text, opts, out, [])
        work = context.work_for(opts) if prepared is None else prepared.work
        said = prepared is not None  # (its notes were said above)
        return _rolled(text, opts, out, context, results, log, work, said, meter)
    finally:
        _close(meter)
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


def _check_secret(opts: Options, sealed: bool) -> None:
    """ParseError for a secret roll (`--secret`) that could not be kept secret and proved."""
    if not sealed:
        raise ParseError(
            "--secret rolls in a sealed session only (d20 seal first): its receipt is what "
            "proves, when it is revealed, that it was made then"
        )
    if opts.odds or opts.summary:
        raise ParseError(
            f"{'--odds' if opts.odds else '--summary'} would show what a secret roll hides"
        )


def _prepare(
    text: str, given: Options, opts: Options, context: Context
) -> PreparedLine[Options] | None:
    """The request prepared with these options in force, if it is plain (see
    PreparedLine): `given`, the options it came with, find it again."""
    if (
        opts.as_
        or opts.dice is not None
        or opts.summary
        or opts.repeat != 1
        or context.sealing is not None
    ):
        return None
    system = context.system_for(opts)
    if system.fortune is not None or opts.boon:  # (--boon: results_of refuses it here)
        return None
    check_text(text)
    request = context.request_for(text, system, opts)
    plan, work = rolls.plan(request), context.work_for(opts)
    roller = context.roller(opts) if opts.seed is None else None
    return prepare(given, opts, request, system.resolve, plan, work, roller, context.prepared.space)


def _repeat_meter(opts: Options, out: Output) -> Meter | None:
    """The progress of `--repeat N` (N > 1) on standard error (d20cli.present.progress):
    with `--summary`, or when the results go to a pipe or a file (on a terminal, the
    lines of the results show how far it has gone); never with -q or --json."""
    if opts.repeat <= 1:
        return None
    from d20cli.present.progress import Meter, wanted

    if not wanted(out.stderr, opts.quiet, opts.json):
        return None
    if not opts.summary and _is_terminal(out.stdout):
        return None
    color = color_wanted(out.stderr, opts.color_choice() == "never")
    return Meter(out.stderr, "tallying" if opts.summary else "rolling", None, color).start()


def _odds_meter(opts: Options, out: Output) -> Meter | None:
    """The progress of `odds` on standard error: `--simulate N` counts its rolls; exact
    odds have no steps to count (the walk does not know how long it is), so a spinner
    with the time taken; never with -q or --json."""
    from d20cli.present.progress import Meter, wanted

    if not wanted(out.stderr, opts.quiet, opts.json):
        return None
    color = color_wanted(out.stderr, opts.color_choice() == "never")
    if opts.simulate is not None:
        return Meter(out.stderr, "simulating", opts.simulate, color).start()
    return Meter(out.stderr, "working out the odds", None, color, counted=False).start()


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _close(meter: Meter | None) -> None:
    """Wipe a progress bar (before the output it would be drawn over)."""
    if meter is not None:
        meter.close()


def results_of(
    text: str,
    opts: Options,
    out: Output | None = None,
    context: Context | None = None,
    step: Callable[[], None] | None = None,
) -> Iterator[Result]:
    """Parse `text` (verb first): the results of the request, repeats included, as they
    are rolled (errors in the words are raised here, before any result).

    The dice budget covers one request: its dice, explosions, rerolls and `Nx` repeats.
    `--repeat N` runs the request N times, each with the whole budget.

    With `out` (the edge: command line, standard input, shell), pendagger's fortune dice
    are kept in the state database: an attempt or luck roll is remembered and may gain a
    die, and the `fortune` verb shows or spends them (d20cli.app.fortune). The rolling
    itself is the library's too (d20cli.rolling). `step`: called as each run of the
    request ends (a progress bar)."""
    check_text(text)
    context = context or Context()
    system = context.system_for(opts)
    fortune.check_boon(opts, system.id)
    request = context.request_for(text, system, opts)
    hooks = out is not None and system.fortune is not None
    who = context.character_names(text, opts.as_) if opts.as_ else ()
    if opts.dice is None:
        return _results(request, system, opts, out if hooks else None, context, True, who, step)
    # --dice: every face is counted before anything is shown, logged or stored. A first
    # pass rolls the whole request writing nothing (too many or too few faces is an error
    # here); a request with no state to write yields that pass's results.
    first = None if hooks else step  # (the pass that is the work)
    checked = list(
        _results(request, system, opts, out if hooks else None, context, False, who, first)
    )
    if not hooks:
        return iter(checked)
    return _results(request, system, opts, out, context, True, who, step)


def _results(
    request: Request,
    system: System,
    opts: Options,
    out: Output | None,
    context: Context,
    write: bool,
    who: tuple[str, ...] = (),
    step: Callable[[], None] | None = None,
) -> Iterator[Result]:
    """The results of one request (`results_of`); with `out`, pendagger's fortune dice are
    kept (`write`: False checks and rolls everything but stores nothing)."""
    roller = context.roller(opts)
    resolve_one: Callable[[Request, Roller], Result] = system.resolve
    if who:  # rolled through characters: each result says whose it is
        resolve_one = rolls.through(resolve_one, who)
    kept = system.fortune
    if out is not None and kept is not None:
        resolve_through = resolve_one

        def resolve_kept(request: Request, roller: Roller) -> Result:
            if request.verb == kept.verb:
                return fortune.handle(request, roller, opts, out, context, write)
            result = resolve_through(request, roller)
            return fortune.record(request, result, opts, out, context, write)

        resolve_one = resolve_kept
    if context.sealing is not None:  # each roll at its position of the stream
        resolve_one = context.sealing.wrap(resolve_one, system.fortune)

    work = context.work_for(opts)
    plan = rolls.plan(request)
    return rolls.results(request, resolve_one, roller, opts.repeat, work, plan, step)


def exit_for(result: Result, opts: Options) -> ExitStatus:
    if opts.exit_status and result.success is False:
        return ExitStatus.FAILED_OUTCOME
    return ExitStatus.OK


def _rolled(
    text: str,
    opts: Options,
    out: Output,
    context: Context,
    rolled: Iterable[Result],
    log: RollLog | None,
    work: int,
    said: bool = False,
    meter: Meter | None = None,
) -> Outcome:
    """Log, print (or tally, with --summary) the results of a request as they are rolled;
    an error on the way is printed and gives BAD_INPUT. `work`: the command's work
    budget, which bounds what it may print. `said`: the request's notes were said when
    it was first run in this context (a prepared line), so they are not looked for.
    `meter`: the progress bar of the rolling, wiped before a tally is printed."""
    results: list[Result] = []
    status = ExitStatus.OK
    tally = None
    chances: Any = None
    printed = 0
    try:
        output_limit = work * OUTPUT_PER_WORK
        for result in rolled:
            if not results and not said and not opts.secret:
                context.say_notes(text, opts, out)  # before the first result (a bad one: alone)
            if log is not None:
                log.add(result)
                if context.sealing is not None:  # its receipt, once logged
                    result = context.sealing.with_receipt(result)
            if opts.secret:  # its position and receipt only; never its request or result
                printed += _show_secret(result, opts, out)
                continue
            if opts.odds:
                if chances is None:
                    chances = context.odds(text, opts)
                result = with_chance(result, chances)
            if opts.summary and opts.repeat > 1:
                if tally is None:
                    from d20cli.present import tally as tallies  # only for --summary

                    tally = tallies.Tally(result.request, result.system, result.verb)
                    tally.labels.update(outcome_labels(context, opts, result.verb))
                    tally.with_damage = damage_expected(text, opts, context)
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
    except (D20Error, RecursionError) as err:
        _close(meter)
        return _failed(err, text, opts, out, results)
    _close(meter)
    if tally is not None:
        print_tally(tally, opts, out)
    return Outcome(status, results)


def _show_secret(result: Result, opts: Options, out: Output) -> int:
    """Write what a secret roll shows (d20cli.app.sealed.secret_shown): one line, or its
    JSON; the characters written."""
    import json

    from d20cli.app.sealed import secret_shown
    from d20cli.present.render import secret_line

    shown = secret_shown(result)
    if opts.json:
        text = json.dumps(shown)
        out.json_line(text)
    else:
        text = secret_line(shown)
        out.text(text)
    return len(text) + 1


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


def _request_reader(context: Context, opts: Options) -> Callable[[str], Request]:
    """How the odds engine reads a request: parsed, with the house defaults a roll with
    these options gets (d20cli.rules.house)."""
    system = context.system_for(opts)
    return lambda text: context.request_for(text, system, opts)


def _macro(text: str, opts: Options, context: Context) -> tuple[str, Options]:
    """A macro of the character in the verb's place: its request words, and the options
    saved in it (`-n 2`, `-s mm`) under the options given with it (those win)."""
    line = context.macro_line(text, opts.as_ or "")
    if line == text:
        return text, opts
    words, saved = split_options(split_line(line))
    return " ".join(words), saved.merged(opts)


def output_for(opts: Options, out: Output) -> Output:
    """`out`, in colour or not as --color / --no-color say."""
    choice = opts.color_choice()
    if choice == "never" and out.color:
        return out.without_color()
    if choice == "always" and not out.color:
        return out.with_color()
    return out


def odds_for_words(
    words: list[str],
    opts: Options,
    out: Output,
    context: Context | None = None,
    reading: object | None = None,
) -> ExitStatus:
    """The odds of the request in `words` (options already read), read through the run's
    `context` as a roll is (its parsed requests, its disk caches, the house defaults read
    once, its notes said once a run): an odds line of a batch parses its request once,
    and `d20 odds` of a request in the parse cache starts without the grammar.

    `reading`: the line as the run's context read it (`run`), if it did: the JSON line of
    its odds (one request, exact, no chart) is kept with it (`Lookups.odds_lines`), so
    the line asked again prints it again at once. The odds, the request read, the notes
    said once a run and the checks of --strict are the same each time the line comes."""
    if words and words[0].lower() == TABLE:
        from d20cli.app.commands.table import odds_table

        return odds_table(words[1:], opts, out)
    from d20cli.present.odds_view import compare_lines, csv_text, odds_lines, quiet_odds_text
    from d20cli.probability import walk
    from d20cli.probability.engine import odds_of, simulate

    kept_in = context  # (the run's context: a line's odds are kept there)
    context = context if context is not None else Context()
    command = walk.command_budget(" ".join(words))  # all the odds of `odds compare`

    def one(text: str) -> Any:
        nonlocal opts
        opts = context.as_options(text, context.with_character(opts))  # its system too
        parse = _request_reader(context, opts)  # with the house defaults, as a roll would be
        context.check_strict(text, opts)  # --strict: an error; else a note before the odds
        meter = _odds_meter(opts, out)
        try:
            if opts.simulate is not None:
                check_rolled_runs(opts.simulate, "--simulate", "estimate from fewer runs")
                found = simulate(
                    text,
                    context.system_name(opts),
                    opts.simulate,
                    opts.seed,
                    opts.dice_budget(),
                    opts.work_budget(),
                    parse=parse,
                    step=None if meter is None else meter.step,
                )
            else:
                found = odds_of(text, context.system_name(opts), parse=parse, within=command)
        finally:
            _close(meter)
        context.say_notes(text, opts, out)  # after any error (a bad request: its error alone)
        return found

    texts: list[str]
    # `odds compare "A" "B" ...` compares quoted requests; `odds compare 8 vs 6` (no word
    # with a space in it) is the odds of mm's own `compare` verb.
    comparing = words[:1] == ["compare"] and any(" " in w.strip() for w in words[1:])
    if comparing:
        texts = [rolls.request_line(w) for w in words[1:] if w]
        if len(texts) < 2:
            usage = ParseError(
                'odds compare takes two or more quoted requests: "check +5 vs 15 adv" ...'
            )
            out.error(usage, opts.json)
            return ExitStatus.BAD_INPUT
    else:
        texts = [rolls.request_line(request_text(words, opts))]
    if any(".." in text for text in texts):  # a sweep: `odds check +5 vs 5..30`
        from d20cli.app.odds_what_if import sweep_output

        swept = sweep_output(texts, comparing, one, command, opts, out)
        if swept is not None:
            return swept
    results = []
    for text in texts:
        try:
            if not text.strip():
                raise ParseError("odds of what? e.g. `d20 odds check +5 vs 15`")
            results.append(one(text))
        except D20Error as err:
            out.error(in_text(err, text), opts.json)
            return ExitStatus.BAD_INPUT
    if not comparing and opts.simulate is None and results[0].outcomes.keys() == {"none"}:
        from d20cli.app.odds_what_if import no_target_output  # `odds check +5`: every DC

        done = no_target_output(texts[0], results[0], one, command, opts, out)
        if done is not None:
            return done
    if opts.svg is not None or opts.png is not None:
        from d20cli.app.charts import charts_written
        from d20cli.present.charts import compare_chart, odds_chart

        def chart() -> Any:
            if comparing:
                return compare_chart(results, totals=opts.totals)
            return odds_chart(results[0], totals=opts.totals)

        if not charts_written(chart, opts, out):
            return ExitStatus.BAD_INPUT
    if opts.json:
        if comparing:
            out.json({"compare": [r.to_json() for r in results]})
        else:
            printed = results[0].json_text()
            out.json_line(printed)
            exact = opts.simulate is None and opts.svg is None and opts.png is None
            if exact and kept_in is not None and reading is not None:
                kept_in.odds_lines[id(reading)] = (reading, printed)
    elif opts.csv:
        for r in results:
            out.text(csv_text(r))
    elif opts.quiet:
        out.text("\n\n".join(quiet_odds_text(r) for r in results))
    elif comparing:
        out.lines(compare_lines(results, width=out.columns(), totals=opts.totals))
    else:
        out.lines(odds_lines(results[0], totals=opts.totals, width=out.columns()))
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
