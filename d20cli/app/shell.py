"""The interactive shell: `d20 shell`, or bare `d20` on a terminal.

Each line takes the same words as the command line, options included, and goes through
`run.run` with the session's options, so the shell, the command line and standard
input accept the same requests and fail the same way. On top of requests the shell has a
few words of its own:

    system [ID]        show or switch the rule system (the prompt shows it)
    as [NAME | -]      show, pick or drop the active character: later lines roll as it
                       (`--as NAME`), label words and macros resolve through it
    help [VERB]        the verbs of the current system, or one verb's help and examples
    again, !!          repeat the last request exactly; words after it are added, and
                       kept for the next `again` (`again adv`)
    char, log, systems, completion (and any other command of `d20` but shell and odds)
                       run as on the command line (the caller hands in `Commands`)
    clear              clear the screen
    quit, exit         leave (so does Ctrl-D); Ctrl-C only clears the line

TAB completes what the command line's completion offers in the same place
(`d20cli.app.completion.engine`: the verbs and words of the session's system, or of the `-s` on
the line; values after `vs`, `--system`, `--as`, ...), plus the shell's own words and the
active character's entry and macro names (`d20cli.store.characters`); history persists
in the state directory (up arrow, Ctrl-R); a bottom toolbar shows the system, the
character, the fortune dice held (pendagger), whose initiative turn it is (`init ...`
lines work here too) and the last result.

prompt_toolkit is imported only inside `run_shell`, on a terminal. When standard input or
output is not a terminal the same session reads lines without prompts (for scripts and
tests) and the exit status is the worst one seen, as for `d20 < file`.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from d20cli.app.commands import COMMANDS
from d20cli.app.completion.engine import (
    LABEL_VERBS,
    Command,
    Names,
    Table,
    candidates,
    offerable,
    scan,
)
from d20cli.app.context import Context
from d20cli.app.options import Options, split_line, wants_help
from d20cli.app.run import SETTING_WORDS, playing, run, setting, shown_system, without_program
from d20cli.errors import D20Error, ExitStatus, NotSaved, ParseError, StateError
from d20cli.frozen import frozen
from d20cli.language.vocabulary import CHECK_VERBS, MAX_REQUEST, SYSTEM_IDS, TABLE
from d20cli.present.output import Output
from d20cli.visible import visible

if TYPE_CHECKING:
    from d20cli.results import Result

QUIT_WORDS = ("quit", "exit")
AGAIN_WORDS = ("again", "!!")
CLEAR = "clear"
#: The shell's own words, besides the request verbs.
SHELL_WORDS: tuple[str, ...] = ("help", "system", "as", "again", CLEAR, "quit", "exit")
#: The commands of `d20` that also run inside the shell as they do on the command line
#: (`odds` and `table` are requests, run with the session's dice; `shell` is where we are).
#: The commands of `d20` the shell runs through the typer app; `odds`, `table` and `init`
#: lines go through the request runner, with the session's dice and state.
SHELL_COMMANDS: tuple[str, ...] = tuple(
    c for c in COMMANDS if c not in ("shell", "gm", "odds", TABLE, "init")
)


@frozen
class Commands:
    """What the shell borrows from the typer app, handed in by the caller that starts the
    shell (d20cli.app.cli, d20cli.__main__), so the shell never imports it: run a command
    (`char list`) and give its exit status; describe the commands for completion."""

    run: Callable[[list[str]], int]
    describe: Callable[[], tuple[Command, ...]]


def completions(
    before: str,
    t: Table,
    names: Names,
    entries: Sequence[str] = (),
    macros: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """For the text before the cursor: the word being completed and what may replace it.

    The same places as the command line's completion (`completion.candidates`: the verbs
    and words of the system in force, option values, characters, tables), plus the shell's
    own words: `system ID`, `as NAME`, `help VERB`; entries, macros: the active character's
    names (offered after a check-like verb, and as verbs). A name that is not `offerable`
    (a control or bidi character in it) is never offered."""
    tokens = before.split()
    if before and not before[-1].isspace():
        cur, prior = tokens[-1], tokens[:-1]
    else:
        cur, prior = "", tokens
    head = prior[0].lower() if prior else ""
    system = t.system(names.default)
    found: Iterable[str]
    if not prior and not cur.startswith("-"):
        found = (*system.verbs, *_commands(t), *macros, *SHELL_WORDS)
    elif head == "as":
        found = (*names.characters, "-") if len(prior) == 1 else ()
    elif head == "system":
        found = SYSTEM_IDS if len(prior) == 1 else ()
    elif head == "help":
        found = (*system.verbs, *SHELL_WORDS) if len(prior) == 1 else ()
    else:
        found = candidates(prior, cur, t, names)
        place = scan(prior, t)
        verb = place.cmd.lower()
        target = place.prev.lower() == "vs" and verb in CHECK_VERBS  # a DC goes there
        value = t.value_option(place.prev) is not None  # `--seed N`, `--as NAME`
        if verb in LABEL_VERBS and not cur.startswith("-") and not (target or value):
            found = (*entries, *found)
    low = cur.lower()
    return cur, [c for c in dict.fromkeys(found) if c.lower().startswith(low) and offerable(c)]


def _commands(t: Table) -> tuple[str, ...]:
    """The commands a shell line may start with (`char`, `log`, `systems`, `odds`, ...)."""
    return tuple(c for c in t.command_names() if c in (*SHELL_COMMANDS, "odds", TABLE))


class Session:
    """One shell session: its options (the system), its last request and result."""

    def __init__(self, opts: Options, out: Output, commands: Commands | None = None) -> None:
        # parsed requests, the roll log and the session's stream of dice (one --seed
        # seeds the whole session)
        self.context = Context(seed=opts.seed)
        self.opts = self.context.line_options(opts)
        self.out = out
        self.commands = commands
        self.last_tokens: list[str] | None = None
        self.last_result: Result | None = None
        self.fortune_held: int | None = None
        self.fortune_unknown = False  # the saved count could not be read
        self.turn: str | None = None  # whose initiative turn it is (d20cli.app.commands.initiative)
        self.worst = ExitStatus.OK
        self.done = False
        default = self.context.with_character(self.opts).as_
        if self.opts.as_ is None and default:  # `d20 char use aria`, D20_CHARACTER
            with contextlib.suppress(D20Error):  # a bad name is said at the first roll
                self._set(playing(default, self.opts)[0])

    # -- what the prompt and toolbar show -----------------------------------------------

    @property
    def system(self) -> str:
        return shown_system(self.opts)

    @property
    def character(self) -> str | None:
        who = self.opts.as_
        return None if who is None or who.lower() == "none" else who

    def prompt(self) -> str:
        if self.character:
            return visible(f"d20 {self.system} {self.character}> ")
        return visible(f"d20 {self.system}> ")

    @property
    def has_fortune(self) -> bool:
        """Whether the session's system keeps fortune dice (the toolbar shows them)."""
        from d20cli.rules import get_system

        try:
            return get_system(self.system).fortune is not None
        except D20Error:
            return False

    def toolbar(self, width: int | None = None) -> str:
        """The bottom toolbar, fitted to `width` (default: the terminal's) so that the
        system and the hint are always on it (`fit_toolbar`)."""
        parts = {"system": f"system: {self.system}"}
        if self.character:
            parts["as"] = f"as: {self.character}"
        if self.has_fortune:
            held = "?" if self.fortune_unknown else self.fortune_held or 0
            parts["fortune"] = f"fortune dice: {held}"
        if self.turn:
            parts["turn"] = self.turn
        r = self.last_result
        if r is not None:
            last = [str(x) for x in (r.total, r.label or r.outcome) if x is not None]
            parts["last"] = "last: " + (" ".join(last) if last else r.verb)
        return fit_toolbar(parts, _columns() if width is None else width)

    def combatant_names(self) -> list[str]:
        """The names in the encounter's order (completion: `init hurt NAME`)."""
        from d20cli.store import initiative

        try:
            return [c.name for c in initiative.load(self.context.state(self.out)).order]
        except D20Error:
            return []

    def condition_names(self) -> list[str]:
        """The conditions the system in force names (completion: `init cond NAME WORD`)."""
        from d20cli.rules import get_system

        try:
            harm = get_system(self.system).harm
        except D20Error:
            return []
        return list(harm.conditions) if harm is not None else []

    def refresh(self) -> None:
        """Save what the last line deferred (its last roll, so another `d20` sees it) and
        re-read what the toolbar shows (fortune dice, whose turn it is)."""
        from d20cli.app.commands.initiative import turn_text

        self.turn = turn_text(self.out, self.context)
        if not self.has_fortune:
            return
        from d20cli.app.fortune import holder

        try:
            store = self.context.state(self.out)
            store.last_rolls.flush()
            self.fortune_unknown = store.db.unusable is not None
            self.fortune_held = store.fortune.held(holder(self.opts))
        except D20Error:
            self.fortune_held = None

    def warm(self) -> None:
        """Import the grammar and the system now, so the first roll answers as fast as the
        rest."""
        try:
            import d20cli.language.grammar
            import d20cli.present.render  # noqa: F401
            from d20cli.rules import get_system

            get_system(self.opts.system_id())
        except (D20Error, ImportError):
            pass  # the first request reports it
        self.refresh()

    # -- one line -----------------------------------------------------------------------

    def handle(self, line: str) -> ExitStatus:
        """Run one line; sets `done` on quit. Never raises for a bad line. A roll log that
        cannot be written is said, and the results it lacks are not shown (NotSaved); the
        session goes on, and the next line tries the log again."""
        try:
            return self._handle(line)
        except NotSaved as failed:
            self.out.error(StateError(str(failed)), self.opts.json)
            return self._status(ExitStatus.NOT_SAVED)

    def _handle(self, line: str) -> ExitStatus:
        text = line.strip().lstrip("\ufeff")
        if not text or text.startswith("#"):
            return ExitStatus.OK
        tokens = without_program(split_line(text))  # `d20 check +5`, as the help writes it
        head = tokens[0].lower()
        try:
            if head in QUIT_WORDS and len(tokens) == 1:
                self.done = True
                return ExitStatus.OK
            if head in SETTING_WORDS:  # `system mm`, `as aria`
                opts, said = setting(tokens, text, self.opts)
                self._set(opts)
                self.out.text(said)
                return ExitStatus.OK
            if head == "help":
                return self._help(tokens, text)
            if head == CLEAR and len(tokens) == 1:
                return self._clear()
            if head in SHELL_COMMANDS or (head in COMMANDS and wants_help(tokens)):
                return self._command(tokens, text)  # `init add --help`: typer's, its own
            if head in AGAIN_WORDS:
                if self.last_tokens is None:
                    raise ParseError("nothing to repeat yet: roll something first", text, 1)
                tokens = [*self.last_tokens, *tokens[1:]]  # `again adv` adds words
        except D20Error as err:
            self.out.error(err, self.opts.json)
            return self._status(ExitStatus.BAD_INPUT)
        outcome = run(tokens, self.opts, self.out, self.context)
        self.context.flush()  # the roll log is written line by line
        self.context.deliver_posts()  # after the line's output: a bounded wait
        self.context.recheck_seal()  # `d20 seal` or `unseal` in another terminal
        if outcome.status != ExitStatus.BAD_INPUT:
            self.last_tokens = tokens  # `again` repeats it, with what `again` added
        if outcome.results:
            self.last_result = outcome.results[-1]
        self.refresh()
        return self._status(outcome.status)

    def _command(self, tokens: list[str], text: str) -> ExitStatus:
        """A command of `d20` (`char list`, `log --stats`, `systems`) run as on the
        command line; the roll log already holds this session's rolls."""
        if self.commands is None:
            raise ParseError(f"{tokens[0]!r} works in `d20 shell` only", text, 1)
        self.context.flush()
        self.out.stdout.flush()
        try:
            code = self.commands.run([tokens[0].lower(), *tokens[1:]])
        except SystemExit as stop:  # pragma: no cover - the runner catches its own exits
            code = stop.code if isinstance(stop.code, int) else int(ExitStatus.BAD_INPUT)
        self.refresh()  # `char set`, `log --clear`: what the toolbar shows may change
        status = ExitStatus.BAD_INPUT if code == ExitStatus.BAD_INPUT else ExitStatus.OK
        return self._status(status)

    def _clear(self) -> ExitStatus:
        """Clear the screen (on a terminal; elsewhere there is nothing to clear)."""
        stream = self.out.stdout
        if stream.isatty():
            stream.write("\x1b[H\x1b[2J\x1b[3J")
            stream.flush()
        return ExitStatus.OK

    def _status(self, status: ExitStatus) -> ExitStatus:
        self.worst = max(self.worst, status)
        return status

    def _set(self, opts: Options) -> None:
        """The session's options from now on; a system switched to is made ready."""
        switched = opts.system != self.opts.system
        self.opts = opts
        if switched:
            self.warm()

    def _help(self, tokens: list[str], text: str) -> ExitStatus:
        """`help`: the shell's words and the verbs; `help VERB`: its words in every system,
        the session's first (d20cli.app.help, as `d20 help`)."""
        from d20cli.app.help import help_lines
        from d20cli.present.help_view import help_width, paragraph

        if wants_help(tokens):  # `help --help`: the help command's own
            from d20cli.app.help import help_usage_lines

            self.out.text("\n".join(help_usage_lines(help_width())))
            return ExitStatus.OK
        if len(tokens) > 2:
            raise ParseError("help takes one verb: help check", text, text.find(tokens[2]) + 1)
        try:
            lines = help_lines(tokens[1] if len(tokens) > 1 else None, self.system)
        except ParseError as err:
            raise ParseError(err.message, text, text.find(tokens[1]) + 1) from None
        if len(tokens) == 1:
            lines = [
                *paragraph(
                    "In the shell: system [ID] switches the system, as [NAME|-] the character; "
                    "help [VERB]; again (!!) repeats the last request; quit (Ctrl-D); "
                    "init [roll|add NAME +N|next|rm NAME|clear] keeps the initiative order. "
                    "Options work as on the command line (--json, --dice 17,4, -n 3, ...).",
                    help_width(),
                ),
                "",
                *lines,
            ]
        self.out.text("\n".join(lines))
        return ExitStatus.OK


def run_lines_in_session(session: Session, stream: TextIO) -> int:
    """The shell without a terminal: one line at a time, no prompt."""
    for line in stream:
        try:
            session.handle(line)
        except KeyboardInterrupt:
            return int(ExitStatus.INTERRUPTED)
        if session.done:
            break
    return int(session.worst)


def run_shell(opts: Options, commands: Commands | None = None) -> int:
    """Run the interactive shell; returns the exit status (0 after quit, exit or Ctrl-D).
    commands: runs `char`, `log`, `systems`, ... lines (d20cli.app.cli.run_app)."""
    out = Output()
    session = Session(opts, out, commands)
    try:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            session.warm()
            return run_lines_in_session(session, sys.stdin)
        return _interactive(session)
    finally:
        session.context.close()


def session_words(session: Session) -> Table:
    """The words TAB offers in `session` (every system and the typer app's commands);
    costly to build: build it once, at the first TAB."""
    from d20cli.app.completion.engine import table

    return table(session.commands.describe() if session.commands else ())


def session_completions(session: Session, before: str, t: Table) -> tuple[str, list[str]]:
    """What TAB offers in `session` for the text `before` the cursor (`completions`, with
    the session's characters, tables, combatants, conditions, and the active character's
    entries and macros): the word being completed and what may replace it. The shell's
    prompt and the GM screen's command line (d20cli.app.gm) both ask it."""
    from d20cli.app.completion.engine import Lazy, file_names, table_names
    from d20cli.store import characters

    def system_of(name: str) -> str:
        try:
            return characters.load(name).system or ""
        except D20Error:
            return ""

    entries: list[str] = []
    macros: list[str] = []
    if session.character:
        verb = scan(before.split(), t).cmd.lower()  # (its label words')
        try:
            active = characters.load(session.character)
            entries = active.entry_names(LABEL_VERBS.get(verb, verb))
            macros = list(active.macros)
        except D20Error:
            pass
    names = Names(
        Lazy(characters.character_names),
        Lazy(table_names),
        session.system,
        system_of,
        combatants=Lazy(session.combatant_names),
        conditions=Lazy(session.condition_names),
        files=file_names,
    )
    return completions(before, t, names, entries, macros)


def _history(out: Output) -> Any:
    from prompt_toolkit.history import InMemoryHistory

    from d20cli.store.database import history_path
    from d20cli.store.files import private_file
    from d20cli.store.history import file_history

    path = history_path()
    try:  # created 0600, and a symbolic link planted there is not followed
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        private_file(str(path))
    except OSError as err:
        out.warn(f"cannot keep the shell history in {path} ({err.strerror or err})")
        return InMemoryHistory()
    return file_history(str(path))


def _interactive(session: Session) -> int:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document

    built: list[Table] = []

    def words() -> Table:
        """The words, built at the first TAB (every system and the typer app's commands)."""
        if not built:
            built.append(session_words(session))
        return built[0]

    class ShellCompleter(Completer):
        def get_completions(
            self, document: Document, complete_event: CompleteEvent
        ) -> Iterable[Completion]:
            cur, found = session_completions(session, document.text_before_cursor, words())
            for word in found:
                yield Completion(word, start_position=-len(cur))

    out = session.out
    typed = line_limit(lambda: MAX_REQUEST - len(prompt.default_buffer.text))
    prompt: Any = PromptSession(
        input=typed,
        history=_history(out),
        completer=ShellCompleter(),
        complete_while_typing=False,
        enable_history_search=False,
        bottom_toolbar=session.toolbar,
    )
    session.warm()
    out.text("d20 shell: one request per line (`help`, TAB completes, Ctrl-D quits)")

    def message() -> str:
        if typed.skipping:
            return f"(the rest of a line longer than {MAX_REQUEST:,} characters: Enter) "
        return session.prompt()

    while not session.done:
        try:
            line = prompt.prompt(message)
            session.handle(line)
        except KeyboardInterrupt:
            if typed.refused:  # (the prompt was cancelled for it)
                typed.refused = False
                out.error(ParseError(TOO_LONG), session.opts.json)
                session._status(ExitStatus.BAD_INPUT)
            continue  # Ctrl-C clears the line or stops a long roll; the session goes on
        except EOFError:
            break
    return int(ExitStatus.OK)


TOO_LONG = f"the line is longer than {MAX_REQUEST:,} characters; it was skipped"

#: The toolbar's hint, shorter on a narrow terminal; the parts it lets go when the line
#: is too long, first to last (the last result is on the screen above it already).
HINTS: tuple[str, ...] = ("help · TAB · Ctrl-D quits", "help · TAB", "help")
LET_GO: tuple[str, ...] = ("last", "turn", "fortune", "as")
#: How the toolbar narrows, step by step: (separator, parts of LET_GO let go, hint).
_NARROWING: tuple[tuple[str, int, int], ...] = (
    ("  │  ", 0, 0),
    (" │ ", 0, 0),
    (" │ ", 1, 0),
    (" │ ", 2, 0),
    (" │ ", 2, 1),
    (" │ ", 3, 1),
    (" │ ", 4, 1),
    (" │ ", 4, 2),
)


def _columns() -> int:
    """The terminal's width as prompt_toolkit draws it (80 outside a prompt)."""
    from prompt_toolkit.application.current import get_app_or_none

    app = get_app_or_none()
    return app.output.get_size().columns if app is not None else 80


def fit_toolbar(parts: dict[str, str], width: int) -> str:
    """The toolbar's line from `parts` (system, as, fortune, turn, last: their texts, in
    that order), at most `width` columns (_NARROWING): the separators narrowed, the last
    result and the turn let go, the hint shortened, the fortune dice and the character
    let go; past that the end is cut with "…". So the system and a hint stay: at 40
    columns, `system: pendagger │ help · TAB`. Every part is made visible (names and
    labels come from files and users)."""
    from prompt_toolkit.utils import get_cwidth

    shown = {key: visible(text) for key, text in parts.items()}
    line = ""
    for sep, let_go, hint in _NARROWING:
        kept = [text for key, text in shown.items() if key not in LET_GO[:let_go]]
        line = " " + sep.join([*kept, HINTS[hint]])
        if get_cwidth(line) <= width:
            return line
    while line and get_cwidth(line + "…") > width:
        line = line[:-1]
    return line + "…"


def line_limit(room: Callable[[], int], inner: Any = None) -> Any:
    """The terminal's input for the shell's prompt (`inner`: prompt_toolkit's own), with
    a line bounded as standard input bounds it, in time linear in what is typed.

    prompt_toolkit handles a key at a time, and each costs the same walk of its layout:
    a line pasted without bracketed paste (a terminal that has none) took 3 s for 20,000
    characters and minutes for 100,000. Here each piece of characters read together goes
    to the prompt as one insert (as a bracketed paste does); a character after Escape
    stays a key of its own (Meta-b). `room()` is how many characters the line being
    typed may still take: a piece that does not fit cancels the prompt (a Ctrl-C, with
    `refused` set, and the shell says the line is too long), and the rest of the line,
    up to its Enter, is dropped as it comes (`skipping`, which the prompt says)."""
    from prompt_toolkit.application import get_app
    from prompt_toolkit.input import Input, create_input
    from prompt_toolkit.key_binding import KeyPress
    from prompt_toolkit.keys import Keys

    enter = (Keys.ControlM, Keys.ControlJ)

    class LineLimit(Input):
        def __init__(self, inner: Input) -> None:
            self.inner = inner
            self.refused = False  # the prompt was cancelled: its line is too long
            self.skipping = False  # the rest of that line is dropped, up to its Enter

        def read_keys(self) -> list[KeyPress]:
            return self.bounded(self.inner.read_keys())

        def flush_keys(self) -> list[KeyPress]:
            return self.bounded(self.inner.flush_keys())

        def bounded(self, keys: list[KeyPress]) -> list[KeyPress]:
            out: list[KeyPress] = []
            piece: list[str] = []  # characters read together, inserted as one
            left = room()
            skipping = self.skipping

            def insert() -> None:
                if piece:
                    text = "".join(piece)
                    one = len(text) == 1
                    out.append(KeyPress(text if one else Keys.BracketedPaste, text))
                    piece.clear()

            for key in keys:
                if self.skipping:
                    if key.key in enter or key.key == Keys.ControlC:
                        self.skipping = False
                    continue
                pasted = key.key == Keys.BracketedPaste
                if pasted or not isinstance(key.key, Keys):  # characters
                    left -= len(key.data)
                    if left < 0:
                        piece.clear()
                        out.append(KeyPress(Keys.ControlC, "\x03"))
                        self.refused = True
                        self.skipping = not pasted  # (a paste is all there)
                        left = MAX_REQUEST  # (the next prompt's line)
                        continue
                    if not pasted and not (out and out[-1].key == Keys.Escape and not piece):
                        piece.append(key.data)
                        continue
                insert()
                out.append(key)
                if key.key in enter:
                    left = MAX_REQUEST  # (the next prompt's line)
            insert()
            if skipping != self.skipping:
                get_app().invalidate()  # the prompt says whether a line is skipped
            return out

        # the rest is the terminal's input's own
        def fileno(self) -> int:
            return self.inner.fileno()

        def typeahead_hash(self) -> str:
            return self.inner.typeahead_hash()

        @property
        def closed(self) -> bool:
            return self.inner.closed

        @property
        def responds_to_cpr(self) -> bool:
            return bool(getattr(self.inner, "responds_to_cpr", False))

        def flush(self) -> None:
            self.inner.flush()

        def raw_mode(self) -> Any:
            return self.inner.raw_mode()

        def cooked_mode(self) -> Any:
            return self.inner.cooked_mode()

        def attach(self, input_ready_callback: Callable[[], None]) -> Any:
            return self.inner.attach(input_ready_callback)

        def detach(self) -> Any:
            return self.inner.detach()

        def close(self) -> None:
            self.inner.close()

    return LineLimit(inner if inner is not None else create_input())
