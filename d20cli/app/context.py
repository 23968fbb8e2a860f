"""What lasts across the requests of one run (a batch on standard input, a shell session),
in two parts: what the run reads (`Lookups`: parsed requests, requests made ready, odds,
the systems, the house defaults and the settings read once, each memo bounded by
d20cli.bounded) and what it holds (`Context`, a Lookups: the open state database, the
roll logs, the generator the dice come from, the sealed session's stream)."""

from __future__ import annotations

import os
from collections.abc import Callable

from d20cli.app.options import Options
from d20cli.bounded import Bounded, declare
from d20cli.dice.roller import RandomRoller, Roller, generator, make_roller
from d20cli.errors import NotSaved, ParseError, StateError
from d20cli.frozen import replace
from d20cli.language.notes import may_hold, stray_labels, unvalued_words
from d20cli.present.output import Output
from d20cli.rolling.prepared import PreparedLine, PreparedLines
from d20cli.rules import DEFAULT_SYSTEM, get_system
from d20cli.rules.house import HouseDefaults, with_house
from d20cli.rules.offers import in_system_terms
from d20cli.store.seal_marker import CHANGES, marked

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random

    from d20cli.app.sealed import SealedStream
    from d20cli.language.requests import Request
    from d20cli.probability.model import Odds
    from d20cli.rules import System
    from d20cli.store.as_character import AsRead
    from d20cli.store.post_queue import PostPlan
    from d20cli.store.request_cache import ParseCache
    from d20cli.store.rolllog import RollLog, Rolls
    from d20cli.store.shape_cache import ShapeCache
    from d20cli.store.state import State

#: Texts of a run read from a shape (a template of the user's file, or one shipped with
#: d20) that are put in the parse cache too, the first KEPT of the run: a command typed
#: again is then read from there, without the shapes' modules (2 ms of its start); the
#: other lines of a batch are not, as most are never seen again (an entry is encoded).
KEPT = 32

# The memos of a run (`Lookups`, `Context`): made per run, declared here once.
PARSED = declare(
    "Lookups.parsed",
    holds="text → Request",
    buys="batch x1.75: the text is not read again (grammar, disk cache, shapes)",
)
REQUESTS_MADE = declare(
    "Lookups.requests_made",
    holds="(text, system) → Request with the house defaults",
    buys="batch x1.07 to x1.13: a repeated line is one request object, which the engine's "
    "memo, `_words` and the prepared lines then know by identity",
)
LINES = declare(
    "Lookups.lines",
    holds="a standard-input line → its words, options and text",
    buys="batch x1.10: the line is not split and its options are not read again",
)
ODDS_LINES = declare(
    "Lookups.odds_lines",
    most=8_000_000,
    holds="id(an odds line's reading, kept in `lines`) → the reading and the JSON line its "
    "odds printed (weighed by its characters)",
    buys="odds lines x1.27 to x1.31 (the table session's 10,000 as `odds` lines, --json, "
    "in-process: a line asked again prints its JSON at once, 0.005 ms instead of 0.035 ms)",
)
PREPARED = declare(
    "Lookups.prepared",
    holds="text, options → PreparedLine (`rolling/prepared.py`: `PreparedLines`, 4 a text)",
    buys="within noise in the CPU-time batch. Its results memo (`DiceMemo`) is what halves "
    "the 100,000-line batch (`bench_startup.py`)",
)
AS_PARSED = declare(
    "Lookups.as_parsed",
    holds="(character, text) → the request read through the character",
    buys="`--as` x4.02: the characters file and the macro are not read again",
)
HOUSE = declare(
    "Lookups._house",
    holds="(system, character) → house defaults",
    buys="batch x1.27: the config file is not checked again",
)
WARNED = declare(
    "Context.warned",
    holds="label word → True",
    buys="says each warning once. Once it is emptied, a warning may come again",
)
ROLLERS = declare(
    "Context._rollers",
    holds="budget → the run's roller",
    buys="one roller for each budget. All of them draw from the run's one generator",
)


class Lookups:
    """What one run reads and keeps for its next requests: parsed requests by text (from
    the disk caches when they have them), requests made ready, their plans and odds, the
    systems, the house defaults, and the settings read once per run (D20_SYSTEM,
    D20_BUDGET, D20_WORK, the default character, whether to log). Every memo is a
    d20cli.bounded.Bounded declared above (SIZE entries): a run of any length holds at
    most that many of each. Nothing here is saved but the two disk caches (`save_caches`)."""

    def __init__(
        self,
        disk: ParseCache | None = None,
        shapes: ShapeCache | None = None,
        shape_file: str | None = None,
    ) -> None:
        """`disk`: a cache of parsed requests on disk (the command line and standard input
        use one, so a repeated request starts without pyparsing), and `shapes` one of
        request shapes (so does a new request of a known shape); or `shape_file`, the
        file of one made at the first text the parsed requests do not hold (a repeated
        request does not import the shapes' modules)."""
        self.disk = disk
        self.shapes = shapes
        self._shape_file = shape_file
        self.parsed: Bounded[str, Request] = PARSED.new()
        # by (text, system): `request_for`'s
        self.requests_made: Bounded[tuple[str, str], Request] = REQUESTS_MADE.new()
        # requests through a character (--as): by character and text, with its system
        self.as_parsed: Bounded[tuple[str, str], AsRead] = AS_PARSED.new()
        # the lines of a batch or a session, split and read: words, options, request text,
        # and whether it is a plain request (d20cli.app.run)
        self.lines: Bounded[str, tuple[list[str], Options, str, bool]] = LINES.new()
        # odds lines printed as JSON (d20cli.app.run: `odds_for_words`), by their reading
        self.odds_lines: Bounded[int, tuple[object, str]] = ODDS_LINES.new(_printed_size)
        # plain requests made ready (`prepared_line`)
        self.prepared: PreparedLines[Options] = PreparedLines(PREPARED.size)
        # (character or None) -> its house defaults; a few characters a run
        self._house: Bounded[tuple[str, str | None], HouseDefaults] = HOUSE.new()
        self._logging: bool | None = None
        self._default_system: str | None = None
        self._default_budget: int | None = None
        self._default_work: int | None = None
        self._default_character: str | None = None  # "" once read and there is none
        self._kept = 0  # texts read from a shape and put in the parse cache this run

    def parse(self, text: str) -> Request:
        request = self.parsed.get(text)
        if request is None:
            request = self.disk.get(text) if self.disk is not None else None
            shapes = self.shape_cache() if request is None else None
            if shapes is not None:
                request = shapes.get(text)
                if request is not None and self.disk is not None and self._kept < KEPT:
                    self._kept += 1  # (typed again, it is read from the parse cache)
                    self.disk.put(text, request)
            if request is None:
                from d20cli.language.grammar import parse_request

                request = parse_request(text)
                if self.disk is not None:
                    self.disk.put(text, request)
                if shapes is not None:
                    shapes.put(text, request, parse_request)
            self.parsed[text] = request
        return request

    def shape_cache(self) -> ShapeCache | None:
        """The cache of request shapes: given, or made from `shape_file` now."""
        if self.shapes is None and self._shape_file is not None:
            from d20cli.store.shape_cache import ShapeCache

            self.shapes = ShapeCache(self._shape_file, common=True)  # (and d20's own shapes)
            self._shape_file = None
        return self.shapes

    def with_character(self, opts: Options) -> Options:
        """`opts` with the character a request is rolled as: its `--as` (`--as none`:
        none), else `D20_CHARACTER`, else the config file's `character` (read once per
        run; d20cli.store.config.default_character)."""
        if opts.as_ is not None:
            return replace(opts, as_=None) if opts.as_.strip().lower() == "none" else opts
        if self._default_character is None:
            from d20cli.store.config import default_character

            self._default_character = default_character() or ""
        return replace(opts, as_=self._default_character) if self._default_character else opts

    def parse_as(self, text: str, name: str) -> AsRead:
        """`text` parsed and resolved through `--as name`: one character (a macro in the
        verb's place, its entries merged into the parsed request) or a party, with the
        systems they play and who rolls (store.as_character.read_as)."""
        key = (name, text)
        found = self.as_parsed.get(key)
        if found is None:
            from d20cli.store.as_character import read_as

            found = read_as(text, name, self.parse)
            self.as_parsed[key] = found
        return found

    def as_options(self, text: str, opts: Options) -> Options:
        """`opts` with the system the character or party of `--as` plays, unless one is
        given (a party whose members play different systems needs one)."""
        if opts.as_ is None or opts.system is not None:
            return opts
        plays = self.parse_as(text, opts.as_).systems
        if len(plays) > 1:
            raise ParseError(f"the party plays {', '.join(plays)}: say which system with --system")
        return replace(opts, system=plays[0]) if plays else opts

    def macro_line(self, text: str, name: str) -> str:
        """`text` with a macro of the character `name` in the verb's place replaced by
        the macro's line (store.as_character.macro_line)."""
        from d20cli.store.as_character import macro_line
        from d20cli.store.characters import is_party

        return text if is_party(name) else macro_line(text, name)  # a party has no macros

    def character_names(self, text: str, spec: str) -> tuple[str, ...]:
        """Who rolls `text` through `--as spec`, as the file spells them (`--as BRUNO`:
        bruno; a party's members; `contest athletics vs bob --as aria`: aria, bob)."""
        return self.parse_as(text, spec).names

    def parser(self, opts: Options) -> Callable[[str], Request]:
        """How the request text of a line with these options is parsed: through its
        character with --as, as typed otherwise."""
        name = opts.as_
        if name is None:
            return self.parse
        return lambda text: self.parse_as(text, name).request

    def house_for(self, system: System, opts: Options) -> HouseDefaults:
        """The house defaults of a request in `system` with these options: the character's
        (`--as`) over the config file's table for the system (each read once per run).
        ParseError for a config file that is not right."""
        key = (system.id, opts.as_)
        found = self._house.get(key)
        if found is None:
            from d20cli.store.config import load_config

            found = HouseDefaults.from_keys(dict(load_config().house.get(system.id, {})), "config")
            if opts.as_:
                from d20cli.store.characters import is_party, load

                if not is_party(opts.as_):
                    found = load(opts.as_).house.over(found)
            self._house[key] = found
        return found

    def request_for(self, text: str, system: System, opts: Options) -> Request:
        """The request `text` parsed (through its character with --as), with the house
        defaults put in (d20cli.rules.house): a party's members each get their own. A
        request without --as is kept by text and system (the config file's defaults are
        read once per run): a batch's repeated lines are made ready once."""
        if opts.as_:
            return self._request_for(text, system, opts)
        key = (text, system.id)
        request = self.requests_made.get(key)
        if request is None:
            request = self._request_for(text, system, opts)
            self.requests_made[key] = request
        return request

    def odds(self, text: str, opts: Options) -> Odds:
        """The exact odds of `text` rolled with these options (`--odds`), sealed and
        shared (d20cli.probability.model.Odds.sealed). The engine remembers them by request
        (d20cli.probability.memo), and `request_for` gives a repeated line's request."""
        system = self.system_for(opts)
        from d20cli.probability.engine import odds_of

        return odds_of(text, system.id, parse=lambda t: self.request_for(t, system, opts))

    def _request_for(self, text: str, system: System, opts: Options) -> Request:
        try:
            request = self.parser(opts)(text)
        except ParseError as err:  # what the system takes, not what every system takes
            raise in_system_terms(err, system.id, system.offers) from None
        shared = self.house_for(system, opts)
        if opts.as_ and _names_a_party(opts.as_):
            from d20cli.rules.house import with_house_each
            from d20cli.store.characters import party_of

            each = [c.house.over(shared) for c in party_of(opts.as_)]
            request = with_house_each(request, system, each)
        return with_house(request, system, shared)

    def system_for(self, opts: Options) -> System:
        return get_system(self.system_name(opts))

    def system_name(self, opts: Options) -> str:
        """`opts.system_id()`, with D20_SYSTEM and the config file read once per run."""
        if opts.system is not None:
            return opts.system
        if self._default_system is None:
            self._default_system = opts.system_id()  # D20_SYSTEM, read once per run
        return self._default_system or DEFAULT_SYSTEM

    def work_for(self, opts: Options) -> int:
        """The work budget of a command with these options (D20_WORK read once per run)."""
        if opts.work is not None:
            return opts.work
        if self._default_work is None:
            self._default_work = opts.work_budget()
        return self._default_work

    def budget_for(self, opts: Options) -> int:
        """The dice budget of a request with these options (D20_BUDGET read once per run)."""
        if opts.budget is not None:
            return opts.budget
        if self._default_budget is None:
            self._default_budget = opts.dice_budget()
        return self._default_budget

    def logging(self, opts: Options) -> bool:
        """Whether rolls with these options are logged (D20_NO_LOG read once per run)."""
        if opts.no_log:
            return False
        if self._logging is None:
            self._logging = opts.logging()
        return self._logging

    def save_caches(self) -> None:
        """Write the disk caches (each its own bounded file)."""
        if self.disk is not None:
            self.disk.save()
        if self.shapes is not None:
            self.shapes.save()


class Context(Lookups):
    """What lasts across the requests of one run (a batch on standard input, a shell
    session): what it reads (`Lookups`), and what it holds: the state database, the roll
    logs, the sealed session's stream, and one generator for the requests that give no
    --seed of their own: seeded from the OS, or from the run's --seed (`d20 --seed 7 <
    batch`), so the whole run is one reproducible stream of dice. It lives at the edge;
    the core holds no state."""

    def __init__(
        self,
        disk: ParseCache | None = None,
        seed: int | None = None,
        shapes: ShapeCache | None = None,
        shape_file: str | None = None,
    ) -> None:
        """`disk`, `shapes`: the disk caches (`Lookups`). `seed`: the run's --seed; the
        lines of the run then roll from one generator seeded with it (give them options
        without that seed: `line_options`), and a line's own --seed restarts the dice for
        that line alone."""
        super().__init__(disk, shapes, shape_file)
        self.seed = seed
        # not a memo: one per character, dice source and webhook, each holding rows not
        # yet written
        self.logs: dict[tuple[str | None, bool, bool, str | None], RollLog | None] = {}
        self._rng: random.Random | None = None if seed is None else generator(seed)
        self._rollers: Bounded[int, RandomRoller] = ROLLERS.new()  # by budget: one or two a run
        self._last_log: tuple[Options, RollLog | None] | None = None  # log_for's last answer
        # label words and peer readings already said (say_notes): one said again
        # once the memo was emptied says its warning again
        self.warned: Bounded[str, bool] = WARNED.new()
        self._state: State | None = None  # opened by the first request that needs it
        # the open sealed session's stream (d20cli.app.sealed), read once per run (again
        # when `seal` or `unseal` ran since: -1 is never read)
        self.sealing: SealedStream | None = None
        self._seal_out: Output | None = None  # the output of the request that read it
        self._seal_read = -1
        self._look = False  # a group commit since the last request: `recheck_seal`
        self._posts_sent = 0  # of the posts the logs queued, those delivery was tried for

    def state(self, out: Output) -> State:
        """The state database of this run (d20cli.store.state), opened at the first call
        and closed by `close`; its warnings go to `out`."""
        state = self._state
        if state is None:
            from d20cli.store.state import State, db_path

            # Warnings wait until the state is kept: saying one writes the output, which
            # first saves what it shows, through this same state (one warning, not two).
            said: list[str] = []
            state = self._state = State.open(db_path(), said.append)
            state.db.warn = out.warn
            for message in said:
                out.warn(message)
        else:
            state.db.warn = out.warn
        return state

    def sealed_for(self, opts: Options, out: Output) -> SealedStream | None:
        """The sealed session this run's rolls come from (None: none is open), read once
        per run; ParseError for options that would make its rolls unverifiable."""
        sealing = self._read_seal(out)
        if sealing is not None:
            from d20cli.app.sealed import check_options

            check_options(opts, self.seed)
        return sealing

    def refuse_sealed(self, what: str, out: Output) -> None:
        """ParseError when a sealed session is open: `what` cannot be verified."""
        if self._read_seal(out) is not None:
            from d20cli.app.sealed import refused

            raise refused(what)

    def recheck_seal(self, opened_only: bool = False) -> None:
        """Read the sealed session again at the next request when the marker says one was
        opened or closed by another process, or this run's stream ended: the shell asks
        after each line, a batch at its first request after each group commit (`save`)
        about a session opened only (its next roll finds one closed: SealedStream)."""
        self._look, sealing = False, self.sealing
        look = self._seal_read != -1 and (sealing is None or not opened_only)
        if look and ((sealing is not None) != marked() or bool(sealing and sealing.ended)):
            self._seal_read = -1

    def _write_sealed_rows(self) -> None:
        """The log rows of a sealed run written before it takes another block of
        positions (d20cli.app.sealed), through the output of the request rolling: held
        lines wait for it as for a group commit."""
        if self._seal_out is None:
            self.write_rows()
        else:
            self._seal_out.save(self.write_rows)

    def _read_seal(self, out: Output) -> SealedStream | None:
        self._seal_out = out
        if self._look:
            self.recheck_seal(opened_only=True)
        if self._seal_read != CHANGES[0]:
            self._seal_read = CHANGES[0]
            sealing = None
            if self.sealing is not None:  # a stream that ended lets the session go
                self.sealing.lease.release()
            if marked():  # one look at the disk; the database only when it is there
                from d20cli.app.sealed import open_stream

                sealing = open_stream(lambda: self.state(out))
            self.sealing = sealing
            if sealing is not None:
                sealing.write_rows = self._write_sealed_rows
            for log in self.logs.values():  # a shell's logs, from before `seal`
                if log is not None:
                    log.seal = None if sealing is None else sealing.take
        return self.sealing

    def rolls(self, out: Output) -> Rolls:
        """The roll log's table in this run's state database."""
        return self.state(out).rolls

    def prepared_line(self, text: str, opts: Options) -> PreparedLine[Options] | None:
        """The line prepared for `text` with these very options (d20cli.rolling.prepared);
        None when there is none, or a sealed session may have been opened or closed since."""
        if self._look:
            self.recheck_seal(opened_only=True)
        line = self.prepared.get(text, opts)
        if line is None or self._seal_read != CHANGES[0] or self.sealing is not None:
            return None
        return line

    def log_for(self, opts: Options, out: Output) -> RollLog | None:
        """The roll log for requests with these options (None when logging is off). One
        log per character and dice source lasts the whole run, so a batch on standard
        input is written in a few transactions, not one per line."""
        last = self._last_log  # (a batch's lines ask again and again with one Options)
        if last is None or last[0] is not opts:
            last = self._last_log = (opts, self._log_for(opts, out))
        return last[1]

    def _log_for(self, opts: Options, out: Output) -> RollLog | None:
        if not self.logging(opts):
            if opts.post is not None:
                raise ParseError(
                    "--post needs the roll log (a post waits in it until the receiver takes "
                    "it): drop --no-log (or D20_NO_LOG)"
                )
            return None
        run_seeded = opts.seed is None and opts.dice is None and self.seed is not None
        key = (opts.as_, opts.dice is not None, opts.seed is not None or run_seeded, opts.post)
        if key not in self.logs:
            if run_seeded:
                opts = replace(opts, seed=self.seed)  # the run's seeded stream
            log = self.logs[key] = open_log(opts, out, self)
            if log is not None and self.sealing is not None:
                log.seal = self.sealing.take
        return self.logs[key]

    def check_strict(self, text: str, opts: Options) -> None:
        """With --strict, a ParseError for what a roll otherwise says in a note
        (`say_notes`): a label word that stands where a value belongs and that nothing
        gives one (`check stealth vs 15` without --as), placed under the word; a form a
        major peer reads otherwise (`5d10>7`). Checked before anything is rolled."""
        if not opts.strict:
            return
        from d20cli.language.grammar_checks import check_valued
        from d20cli.language.peer_readings import readings

        request = self.parse(text)
        for reading in readings(request, text):
            raise ParseError(f"{reading.note} (--strict)", text, reading.column(text))
        for word, column in stray_labels(request, text) if opts.as_ is None else ():
            raise ParseError(f"{_stray(word)} (--strict)", text, column)
        if opts.as_ is None:
            check_valued(request, text, "--strict", _how())

    def say_notes(self, text: str, opts: Options, out: Output) -> None:
        """Say on stderr, once a run for each, what the request means that it may not seem
        to: a label word where a value belongs that nothing gives one (`check stealth vs
        15` without --as: the roll is made at +0, which is allowed, but rarely what was
        meant); a form a major peer reads as another number (`5d10>7`: Roll20 counts 7 or
        more; d20cli.language.peer_readings). Said before the result is shown."""
        held = may_hold(text)
        if opts.as_ is not None and not held:
            return  # (most requests: nothing to look at, and no parse)
        request = self.parse(text)
        if held:
            from d20cli.language.peer_readings import readings

            for reading in readings(request, text):
                if reading.note not in self.warned:
                    self.warned[reading.note] = True
                    out.warn(reading.note)
        if opts.as_ is not None:
            return
        for word, _ in stray_labels(request, text):
            if word not in self.warned:
                self.warned[word] = True
                out.warn(_stray(word))
        for word, _ in unvalued_words(request):
            if word in self.warned:
                continue
            self.warned[word] = True
            out.warn(f"{word!r} has no value here, so it adds nothing; {_how()}")

    def line_options(self, base: Options) -> Options:
        """The options a line of this run starts from: `base` without the run's --seed,
        which this context's generator already holds."""
        return base if self.seed is None or base.seed is None else replace(base, seed=None)

    def flush(self) -> None:
        """Write the roll log's buffered rows now (the shell does after every line), and
        let the sealed session go (d20cli.app.sealed.SealedStream.save)."""
        self.write_rows()
        if self.sealing is not None and self._state is not None:
            self.sealing.save(self._state.db.warn)

    def write_rows(self) -> None:
        """Write the roll log's buffered rows. NotSaved when they cannot be written: it
        counts the rows of every log, and no log waits for the database again when the
        run closes."""
        logs = [log for log in self.logs.values() if log is not None]
        try:
            for log in logs:
                log.flush()
        except NotSaved as failed:
            failed.count = sum(log.pending for log in logs)
            for log in logs:
                log.troubled = True
            raise

    def save(self) -> None:
        """Save what the output about to be written shows (group commit, registered with
        `Output.before_write`): the roll log's buffered rows, then the deferred last rolls
        (fortune dice gained are written at once). The state database is not opened for
        this: a run that has not opened it has nothing to save."""
        self.flush()
        if self._state is not None:
            self._flush_last_rolls(self._state)
        self._look = True  # the next request looks at the marker again (recheck_seal)

    @staticmethod
    def _flush_last_rolls(state: State) -> None:
        try:
            state.last_rolls.flush()
        except StateError as err:
            state.db.warn(f"cannot save the last roll: {err.message}")

    def _queued_posts(self) -> int:
        return sum(log.posted for log in self.logs.values() if log is not None)

    def deliver_posts(self) -> None:
        """Send the posts this run queued since the last call (d20cli.app.posting: after
        the output that shows their rolls, waiting a bounded time; what is not sent stays
        queued for the next run or `d20 post --retry`). Nothing when none were queued."""
        queued = self._queued_posts()
        if queued <= self._posts_sent or self._state is None:
            return
        self._posts_sent = queued
        from d20cli.app.posting import deliver_after_run

        deliver_after_run(self._state.db, self._state.db.warn)

    def close(self) -> None:
        """Save what lasts beyond the run: the roll log's buffered rows, the last rolls,
        the parse cache; and close the state database. A run that logged rolls then
        prunes the log to the config file's `log.keep` (d20cli.store.log_retention), and
        a run that queued posts sends them (`deliver_posts`)."""
        try:
            logged = any(log is not None for log in self.logs.values())
            for log in self.logs.values():
                if log is not None:
                    log.close()
            self.deliver_posts()
            self.logs.clear()
            self._last_log = None
            if self.sealing is not None and self._state is not None:
                self.sealing.save(self._state.db.warn)
            if self._state is not None:
                state, self._state = self._state, None
                self._flush_last_rolls(state)
                if logged:
                    from d20cli.store.log_retention import keep_configured

                    keep_configured(state.rolls, state.db.warn)
                state.close()
        finally:
            if self.sealing is not None:  # (saved above, unless that raised)
                self.sealing.lease.release()
            self.save_caches()

    @classmethod
    def for_command_line(cls, seed: int | None = None) -> Context:
        from d20cli.store.request_cache import ParseCache, cache_path, shape_path

        return cls(ParseCache(cache_path()), seed, shape_file=shape_path())

    def roller(self, opts: Options) -> Roller:
        budget = opts.budget if opts.budget is not None else self._default_budget
        if budget is None:  # (the call only once a run: this is asked on every line)
            budget = self.budget_for(opts)
        if self.sealing is not None:  # a sealed session's stream (d20cli.app.sealed)
            return self.sealing.roller(budget)
        if opts.seed is not None or opts.dice is not None:
            return make_roller(opts.seed, opts.dice, budget)
        roller = self._rollers.get(budget)
        if roller is None:  # one roller per budget serves every request without its own seed
            if self._rng is None:
                self._rng = generator()
            roller = self._rollers[budget] = RandomRoller(self._rng, budget)
        roller.count = 0
        return roller


def open_log(opts: Options, out: Output, context: Context | None = None) -> RollLog | None:
    """The log for one run's rolls, or None when logging is off (--no-log, D20_NO_LOG).
    The database is opened only when the first rows are written: the context's, or (no
    context) one the log opens and closes itself."""
    if not opts.logging():
        return None
    from d20cli.store.rolllog import RollLog

    source = "dice" if opts.dice is not None else "seed" if opts.seed is not None else "random"
    store = None if context is None else (lambda: context.rolls(out))
    log = RollLog(opts.as_, source, out, store)
    log.post = post_plan(opts)
    return log


#: What D20_POST says to turn posting off (the config file's `post.url` too).
POST_OFF = frozenset({"off", "none", "no", "false", "0"})


def post_plan(opts: Options) -> PostPlan | None:
    """Where this run's rolls are posted: `--post URL`, else D20_POST (`off`: nowhere),
    else the config file's `post.url` (None: nowhere, the default). ParseError for a
    D20_POST that is not a webhook's URL (the message never repeats the URL)."""
    from d20cli.store.config import load_config, url_problem

    url = opts.post
    if url is None:
        env = os.environ.get("D20_POST", "").strip()
        if env.lower() in POST_OFF and env:
            return None
        if env:
            problem = url_problem(env)
            if problem is not None:
                raise ParseError(f"D20_POST must be a webhook's URL: {problem}")
            url = env
    config = load_config()
    url = url or config.post_url
    if url is None:
        return None
    from d20cli.store.post_queue import PostPlan, form_for

    return PostPlan(url, form_for(url, config.post_format), config.post_only == "sealed")


def _stray(word: str) -> str:
    """What a label word typed after the target is (`check +5 vs 15 stelth`)."""
    return (
        f"{word[:30]!r} after the target is the roll's label: it names the roll and adds "
        f"nothing (a label goes before the modifier, or in brackets: [{word[:30]}])"
    )


def _how() -> str:
    """How a label word gets a value."""
    from d20cli.store.characters import character_names

    how = "type its modifier (+N)"
    if character_names():
        how += " or roll as a character that has it (--as NAME)"
    return how


def _names_a_party(spec: str) -> bool:
    from d20cli.store.characters import is_party

    return is_party(spec)


def _printed_size(kept: tuple[object, str]) -> int:
    """The weight of an odds line kept in `Lookups.odds_lines`: its JSON's characters."""
    return len(kept[1])
