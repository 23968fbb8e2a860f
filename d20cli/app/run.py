"""One request from words to output: parse, resolve, render. Errors become exit status 2.

The command line, each line of standard input and each line of the shell come through
`run_tokens`, so they accept the same words and options and fail the same way.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from d20cli.app import rolling
from d20cli.app.options import Options, split_options
from d20cli.app.rolling import check_text, in_text
from d20cli.app.stdin import stdin_lines
from d20cli.dice.roller import RandomRoller, Roller, make_roller
from d20cli.errors import D20Error, ExitStatus, ParseError
from d20cli.language.requests import CheckRequest
from d20cli.present.output import Output
from d20cli.present.render import Tally, quiet_text, render_result
from d20cli.results import Result

if TYPE_CHECKING:
    from d20cli.language.requests import Request
    from d20cli.rules import System
    from d20cli.store.request_cache import ParseCache
    from d20cli.store.rolllog import RollLog


@dataclass
class Outcome:
    """How one request went: its exit status and its last result (for `again`, the log).

    `results` holds only the last result: a long --repeat keeps no list of results."""

    status: ExitStatus
    results: list[Result]


def request_text(words: list[str], opts: Options) -> str:
    text = " ".join(w for w in words if w)
    if opts.players is not None and words and words[0].lower() == "scores":
        text += f" {opts.players}"
    return text


class Context:
    """What lasts across the requests of one run (a batch on standard input, a shell
    session): parsed requests by text, and one generator for the requests that give no
    --seed of their own: seeded from the OS, or from the run's --seed (`d20 --seed 7 <
    batch`), so the whole run is one reproducible stream of dice. It lives at the edge;
    the core holds no state."""

    CACHE_SIZE = 4096

    def __init__(self, disk: ParseCache | None = None, seed: int | None = None) -> None:
        """`disk`: a cache of parsed requests on disk (the command line and standard input
        use one, so a repeated request starts without pyparsing). `seed`: the run's
        --seed; the lines of the run then roll from one generator seeded with it (give
        them options without that seed: `line_options`), and a line's own --seed
        restarts the dice for that line alone."""
        self.disk = disk
        self.seed = seed
        self.parsed: dict[str, Request] = {}
        # a batch's lines, split and read: words, options, request text
        self.lines: dict[str, tuple[list[str], Options, str]] = {}
        self.logs: dict[tuple[str | None, bool, bool], RollLog | None] = {}
        self.systems: dict[str, System] = {}
        self._rng: random.Random | None = None if seed is None else random.Random(seed)
        self._rollers: dict[int, RandomRoller] = {}
        self._logging: bool | None = None
        self._default_system: str | None = None
        self._default_budget: int | None = None
        self.warned: set[str] = set()  # label words already warned about (warn_unvalued)

    def system(self, name: str) -> System:
        system = self.systems.get(name)
        if system is None:
            from d20cli.rules import get_system

            system = self.systems[name] = get_system(name)
        return system

    def parse(self, text: str) -> Request:
        request = self.parsed.get(text)
        if request is None:
            request = self.disk.get(text) if self.disk is not None else None
            if request is None:
                from d20cli.language.grammar import parse_request

                request = parse_request(text)
                if self.disk is not None:
                    self.disk.put(text, request)
            if len(self.parsed) >= self.CACHE_SIZE:
                self.parsed.clear()
            self.parsed[text] = request
        return request

    def log_for(self, opts: Options, out: Output) -> RollLog | None:
        """The roll log for requests with these options (None when logging is off). One
        log per character and dice source lasts the whole run, so a batch on standard
        input is written in a few transactions, not one per line."""
        if opts.no_log:
            return None
        if self._logging is None:
            self._logging = opts.logging()  # D20_NO_LOG, read once per run
        if not self._logging:
            return None
        if opts.seed is None and opts.dice is None and self.seed is not None:
            opts = replace(opts, seed=self.seed)  # the run's seeded stream
        key = (opts.as_, opts.dice is not None, opts.seed is not None)
        if key not in self.logs:
            self.logs[key] = open_log(opts, out)
        return self.logs[key]

    def warn_unvalued(self, request: Request, out: Output) -> None:
        """Say on stderr (once a run for each word) when a label word stands where a value
        belongs and nothing gives it one (`check stealth vs 15`): the roll is made at +0,
        which is allowed, but rarely what was meant."""
        for word in unvalued_words(request):
            if word in self.warned:
                continue
            self.warned.add(word)
            how = "type its modifier (+N)"
            from d20cli.store.characters import character_names

            if character_names():
                how += " or roll as a character that has it (--as NAME)"
            out.warn(f"{word!r} has no value here, so it adds nothing; {how}")

    def line_options(self, base: Options) -> Options:
        """The options a line of this run starts from: `base` without the run's --seed,
        which this context's generator already holds."""
        return base if self.seed is None or base.seed is None else replace(base, seed=None)

    def flush(self) -> None:
        """Write the roll log's buffered rows now (the shell does after every line)."""
        for log in self.logs.values():
            if log is not None:
                log.flush()

    def close(self) -> None:
        """Save what lasts beyond the run: the roll log's buffered rows, the parse cache."""
        for log in self.logs.values():
            if log is not None:
                log.close()
        self.logs.clear()
        if self.disk is not None:
            self.disk.save()

    @classmethod
    def for_command_line(cls, seed: int | None = None) -> Context:
        from d20cli.store.request_cache import ParseCache, cache_path

        return cls(ParseCache(cache_path()), seed)

    def system_for(self, opts: Options) -> System:
        if opts.system is None and self._default_system is None:
            self._default_system = opts.system_id()  # D20_SYSTEM, read once per run
        return self.system(opts.system or self._default_system or "levelup")

    def roller(self, opts: Options) -> Roller:
        if opts.budget is not None:
            budget = opts.budget
        else:
            if self._default_budget is None:
                self._default_budget = opts.dice_budget()  # D20_BUDGET, read once per run
            budget = self._default_budget
        if opts.seed is not None or opts.dice is not None:
            return make_roller(opts.seed, opts.dice, budget)
        roller = self._rollers.get(budget)
        if roller is None:  # one roller per budget serves every request without its own seed
            if self._rng is None:
                self._rng = random.Random(int.from_bytes(os.urandom(16), "big"))
            roller = self._rollers[budget] = RandomRoller(self._rng, budget)
        roller.count = 0
        return roller


def resolve(
    text: str, opts: Options, out: Output | None = None, context: Context | None = None
) -> Iterator[Result]:
    """Parse `text` (verb first) and yield each result of the request, repeats included.

    The dice budget covers one request: its dice, explosions, rerolls and `Nx` repeats.
    `--repeat N` runs the request N times, each with the whole budget.

    With `out` (the edge: command line, standard input, shell), pendagger's fortune dice
    are kept in the state database: an attempt or luck roll is remembered and may gain a
    die, and the `fortune` verb shows or spends them (d20cli.app.fortune). The rolling
    itself is the library's too (d20cli.app.rolling)."""
    check_text(text)
    context = context or Context()
    system = context.system_for(opts)
    request = context.parse(text)
    hooks = out is not None and system.fortune is not None
    if opts.dice is None:
        yield from _results(request, system, opts, out if hooks else None, context, write=True)
        return
    # --dice: every face is counted before anything is shown, logged or stored. A first
    # pass rolls the whole request writing nothing (too many or too few faces is an error
    # here); a request with no state to write yields that pass's results.
    checked = list(_results(request, system, opts, out if hooks else None, context, write=False))
    if not hooks:
        yield from checked
        return
    yield from _results(request, system, opts, out, context, write=True)


def _results(
    request: Request,
    system: System,
    opts: Options,
    out: Output | None,
    context: Context,
    write: bool,
) -> Iterator[Result]:
    """The results of one request (`resolve`); with `out`, pendagger's fortune dice are
    kept (`write`: False checks and rolls everything but stores nothing)."""
    roller = context.roller(opts)
    resolve_one = system.resolve
    if out is not None:
        from d20cli.app import fortune

        def resolve_one(request: Request, roller: Roller) -> Result:
            if request.verb == "fortune":
                return fortune.handle(request, roller, opts, out, write)
            return fortune.record(request, system.resolve(request, roller), opts, out, write)

    return rolling.results(request, resolve_one, roller, opts.repeat)


def open_log(opts: Options, out: Output) -> RollLog | None:
    """The log for one run's rolls, or None when logging is off (--no-log, D20_NO_LOG).
    The database is opened only when the first rows are written."""
    if not opts.logging():
        return None
    from d20cli.store.rolllog import RollLog

    source = "dice" if opts.dice is not None else "seed" if opts.seed is not None else "random"
    return RollLog(opts.as_, source, out)


def unvalued_words(request: Request) -> list[str]:
    """The label words of a request (or of its group members and contest sides) that stand
    alone, with no modifier, rank or score: `stealth` in `check stealth vs 15`."""
    parts = [request, *getattr(request, "members", ()), *getattr(request, "sides", ())]
    parts += [getattr(request, "first", None), getattr(request, "second", None)]
    return [
        part.name
        for part in parts
        if isinstance(part, CheckRequest)
        and part.name is not None
        and part.modifier is None
        and part.rank is None
        and part.score is None
    ]


def exit_for(result: Result, opts: Options) -> ExitStatus:
    if opts.exit_status and result.success is False:
        return ExitStatus.FAILED_OUTCOME
    return ExitStatus.OK


def run_request(text: str, opts: Options, out: Output, context: Context | None = None) -> Outcome:
    """Resolve and print one request. Errors are printed and give BAD_INPUT."""
    results: list[Result] = []
    status = ExitStatus.OK
    tally: Tally | None = None
    chances: Any = None
    own_context = context is None
    context = context or Context()
    log: RollLog | None = None
    try:
        if opts.as_:
            from d20cli.store.characters import expand

            text, char_system = expand(text, opts.as_)
            if opts.system is None and char_system is not None:
                opts = replace(opts, system=char_system)
        if opts.summary and opts.repeat > 1 and opts.dice is None:
            tally = sampled_tally(text, opts, context)
        else:
            log = context.log_for(opts, out)
        for result in () if tally is not None else resolve(text, opts, out, context):
            if log is not None:
                log.add(result)
            if opts.odds:
                if chances is None:
                    from d20cli.probability.engine import odds_of

                    chances = odds_of(text, opts.system_id(), parse=context.parse)
                result = with_chance(result, chances)
            if opts.summary and opts.repeat > 1:
                if tally is None:
                    tally = Tally(text, result.system, result.verb)
                    tally.labels.update(_outcome_labels(context, opts))
                tally.add(result)
                continue
            _emit(result, opts, out, header=not results)
            if opts.exit_status:
                status = max(status, exit_for(result, opts))
            results = [result]
        if opts.as_ is None:  # after the request went well: a bad one gets its error alone
            context.warn_unvalued(context.parse(text), out)
    except D20Error as err:
        out.error(in_text(err, text), opts.json)
        return Outcome(ExitStatus.BAD_INPUT, results)
    except RecursionError:
        out.error(ParseError("the request is nested too deeply", text, None), opts.json)
        return Outcome(ExitStatus.BAD_INPUT, results)
    finally:
        if own_context:
            context.close()
    if tally is not None:
        if opts.json:
            out.json(tally.to_json())
        elif opts.quiet:
            mean = tally.mean()
            out.text(f"{mean:.2f}" if mean is not None else "")
        else:
            out.lines(tally.lines())
    return Outcome(status, results)


def _outcome_labels(context: Context, opts: Options) -> dict[str | None, str | None]:
    return {oid: label for oid, label in context.system_for(opts).outcomes}


SAMPLE_CHUNK = 100_000
MAX_WEIGHT_BITS = 1000  # a common denominator beyond 2^1000: the results are rolled instead


def sampled_tally(text: str, opts: Options, context: Context) -> Tally | None:
    """`--repeat N --summary`: the N results drawn from the request's exact distribution of
    (outcome, total) pairs, which the odds engine computes by walking the same resolver.
    That is the same as rolling N times and counting, and fast for a million rolls. None
    when the distribution is too costly to compute (the caller then rolls each one)."""
    from d20cli.probability.engine import joint_outcomes

    request = context.parse(text)
    if request.verb in ("fortune", "scores"):
        return None
    system = context.system_for(opts)
    joint = joint_outcomes(request, system)
    if joint is None:
        return None
    keys = list(joint)
    den = 1
    for p in joint.values():
        den = den * p.denominator // math.gcd(den, p.denominator)
    if den.bit_length() > MAX_WEIGHT_BITS:
        return None  # random.choices weighs in floats: beyond 10^300 it overflows
    cumulative = list(itertools.accumulate(int(joint[k] * den) for k in keys))
    roller = context.roller(opts)
    rng = getattr(roller, "rng", None)
    if rng is None:
        return None
    tally = Tally(text, system.id, request.verb)
    tally.labels.update(_outcome_labels(context, opts))
    if any(winner is not None for _, _, winner in keys):  # a contest of 3+ sides
        tally.sides = len(getattr(request, "sides", ()))
    counts = [0] * len(keys)
    remaining = opts.repeat * request.repeat
    while remaining:
        n = min(remaining, SAMPLE_CHUNK)
        remaining -= n
        for i in rng.choices(range(len(keys)), cum_weights=cumulative, k=n):
            counts[i] += 1
    for (outcome, total, winner), n in zip(keys, counts, strict=True):
        tally.add_many(outcome, None, total, n, winner)
    return tally


def with_chance(result: Result, odds: Any) -> Result:
    """The result with the chance its outcome had (`--odds`), as a note and in JSON."""
    from d20cli.figures import exact_fraction, percent
    from d20cli.probability.engine import chance_of

    p = chance_of(result, odds)
    if p is None:
        return result
    what = result.label or result.outcome or "this outcome"
    note = f"{what} \u2014 you had {percent(p, 1)}"
    detail = {**result.detail, "chance": exact_fraction(p)}
    success = getattr(odds, "success", None)
    if success is not None:
        note += f" ({percent(success, 1)} to succeed)"
        detail["success_chance"] = exact_fraction(success)
    return replace(result, notes=(*result.notes, note), detail=detail)


def read_options(tokens: list[str], base: Options, out: Output) -> tuple[list[str], Options] | None:
    """The words of `tokens` and the options in force for them (`base` with what the
    tokens set); None, after printing the error, when an option is bad."""
    try:
        words, line_opts = split_options(tokens)
    except D20Error as err:
        out.error(err, base.json or "--json" in tokens)
        return None
    return words, base.merged(line_opts)


def output_for(opts: Options, out: Output) -> Output:
    return out.without_color() if opts.no_color and out.color else out


def run_words(
    words: list[str], opts: Options, out: Output, context: Context | None, text: str | None = None
) -> Outcome:
    """Words whose options are already read: `odds ...`, or one request (whose text, if
    given, is `request_text(words, opts)`)."""
    out = output_for(opts, out)
    if words and words[0] == "odds":
        return Outcome(odds_for_words(words[1:], opts, out), [])
    return run_request(request_text(words, opts) if text is None else text, opts, out, context)


def run_odds(tokens: list[str], base: Options, out: Output) -> ExitStatus:
    """`odds VERB WORDS...` and `odds compare "A" "B"`: exact odds (or --simulate N)."""
    read = read_options(tokens, base, out)
    if read is None:
        return ExitStatus.BAD_INPUT
    words, opts = read
    return odds_for_words(words, opts, output_for(opts, out))


def odds_for_words(words: list[str], opts: Options, out: Output) -> ExitStatus:
    """The odds of the request in `words` (options already read)."""
    from d20cli.present.odds_view import compare_lines, odds_lines
    from d20cli.probability.engine import odds_of, simulate

    def one(text: str) -> Any:
        if opts.simulate is not None:
            return simulate(text, opts.system_id(), opts.simulate, opts.seed)
        return odds_of(text, opts.system_id())

    texts: list[str]
    if words and words[0] == "compare":
        texts = [w for w in words[1:] if w]
        if len(texts) != 2:
            usage = ParseError('odds compare takes two quoted requests: "check +5 vs 15 adv" ...')
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
        if len(results) == 2:
            out.json({"compare": [r.to_json() for r in results]})
        else:
            out.json(results[0].to_json())
    elif len(results) == 2:
        out.lines(compare_lines(results[0], results[1]))
    else:
        out.lines(odds_lines(results[0]))
    return ExitStatus.OK


def _emit(result: Result, opts: Options, out: Output, header: bool = True) -> None:
    if opts.json:
        out.text(result.json_text())
    elif opts.quiet:
        out.text(quiet_text(result))
    else:
        out.lines(render_result(result, header))


def run_tokens(
    tokens: list[str], base: Options, out: Output, context: Context | None = None
) -> Outcome:
    """One request given as tokens (words and options mixed, as typed). `odds ...` works
    here too, so standard input and the shell take the same words as the command line."""
    read = read_options(tokens, base, out)
    if read is None:
        return Outcome(ExitStatus.BAD_INPUT, [])
    words, opts = read
    return run_words(words, opts, out, context)


def split_line(line: str) -> list[str]:
    """A line of input as tokens: split on white space; quotes group words (`odds compare
    "check +5 vs 15" "check +6 vs 15"`); a line whose quotes do not pair up (an apostrophe
    in a comment) is split on white space alone."""
    if '"' not in line and "'" not in line:
        return line.split()
    import shlex

    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def run_lines(
    lines: Iterable[str | D20Error], base: Options, out: Output, context: Context | None = None
) -> ExitStatus:
    """One request per line (standard input). Blank lines and `#` lines are skipped; a bad
    line is reported and the rest still run; the status is the worst one seen."""
    worst = ExitStatus.OK
    context = context or Context()
    for raw in lines:
        if isinstance(raw, D20Error):
            out.error(raw, base.json)
            worst = ExitStatus.BAD_INPUT
            continue
        line = raw.strip().lstrip("\ufeff")
        if not line or line.startswith("#"):
            continue
        prepared = context.lines.get(line)
        if prepared is None:  # a new line: split it and read its options once
            read = read_options(split_line(line), base, out)
            if read is None:
                worst = ExitStatus.BAD_INPUT
                continue
            words, opts = read
            prepared = (words, opts, request_text(words, opts))
            if len(context.lines) < Context.CACHE_SIZE:
                context.lines[line] = prepared
        words, opts, text = prepared
        outcome = run_words(words, opts, out, context, text)
        if outcome.status > worst:
            worst = outcome.status
    return worst


def run_stdin(base: Options) -> ExitStatus:
    """The requests on standard input, one per line, as the command line runs them."""
    out = Output(flush_lines=False)
    context = Context.for_command_line(base.seed)
    try:
        lines = stdin_lines(sys.stdin, out.flush)
        return run_lines(lines, context.line_options(base), out, context)
    finally:
        try:
            out.flush()  # the last lines, also when interrupted
        finally:
            context.close()
