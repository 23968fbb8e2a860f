"""`d20 gm`: the game master's screen, full-screen in the terminal (Textual).

    ┌ d20 gm · levelup · round 2 · goblin-2's turn ────────────────────────────────┐
    │ order: whose turn, initiative, an HP bar,  │ party: each character, its      │
    │ AC, state and conditions                    │ system, HP and conditions       │
    │                                             │ rolls: the tail of the roll log │
    │ what the last lines printed                                                  │
    │ d20 levelup> a request or an init command (TAB completes)                    │
    │ F5 next turn  F6 undo  F7 damage  F8 heal  ^C quit                           │

The command line runs every line through the shell's session (d20cli.app.shell.Session,
so d20cli.app.run.run): a request, `init ...`, `system ID`, `as NAME`, `help`, and the
commands the shell runs (`char`, `log`, ...), with the shell's TAB completion
(`session_completions`). The keys run the same lines: F5 (Ctrl-N) is `init next`, F6
(Ctrl-Z) `init undo`; F7 (Ctrl-T) and F8 (Ctrl-Y) put `init hurt NAME ` and `init heal
NAME ` on the line for the combatant selected with the arrow keys, to type the amount.

The screen reads the state the commands write: after each line it reads the encounter,
the party and the roll log again, and twice a second it asks the state database whether
another connection changed it (`PRAGMA data_version`, one query that reads no table) and
looks at the characters file's size and time, so a change made in another terminal
appears within half a second. Every text from a user or a file is shown through
`d20cli.visible` and as rich `Text`, never as markup.

Textual is imported only here, and this module only by `d20 gm` (d20cli.app.commands.gm).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, RichLog, Static

from d20cli.app.options import Options
from d20cli.app.shell import Commands, Session, session_completions, session_words
from d20cli.errors import D20Error
from d20cli.present.output import Output
from d20cli.rules.encounter import hp_text
from d20cli.visible import visible

if TYPE_CHECKING:
    from d20cli.app.completion.engine import Table as Words
    from d20cli.rules.initiative import Combatant
    from d20cli.store.initiative import Encounter

#: How often the screen asks whether another process changed the state (seconds).
POLL_SECONDS = 0.5
#: The width of an HP bar, in cells.
BAR = 10
#: Rolls of the roll log the screen reads (it shows as many as fit).
ROLLS = 30
#: Lines the output panel keeps (older ones scroll away).
KEPT_LINES = 500

CSS = """
Screen { layout: vertical; }
#title { height: 1; background: $primary; color: $text; text-style: bold; padding: 0 1; }
#top { height: 1fr; }
#order { width: 3fr; border: round $primary; padding: 0 1; }
#side { width: 2fr; }
#party { height: auto; max-height: 50%; border: round $secondary; padding: 0 1; }
#rolls { height: 1fr; border: round $secondary; padding: 0 1; }
#output { height: 7; border-top: solid $primary; scrollbar-size-vertical: 1; }
#line { height: 1; }
#prompt { width: auto; height: 1; color: $success; text-style: bold; }
#command { height: 1; border: none; padding: 0; width: 1fr; }
#command:focus { border: none; }
"""


def hp_bar(c: Combatant) -> Text:
    """`██████░░░░ 6/10 HP`: the bar (green above half, yellow above a quarter, else
    red) when the maximum is known; the HP text alone otherwise ("" when none)."""
    v = c.vitals
    shown = Text()
    if v.hp is not None and v.max_hp:
        filled = max(0, min(BAR, round(BAR * v.hp / v.max_hp)))
        if v.hp > 0 and filled == 0:
            filled = 1  # a combatant still up is never drawn empty
        part = v.hp / v.max_hp
        style = "green" if part > 0.5 else "yellow" if part > 0.25 else "red"
        shown.append("█" * filled, style=style)
        shown.append("░" * (BAR - filled), style="bright_black")
        shown.append(" ")
    shown.append(hp_text(v))
    return shown


def kept(c: Combatant) -> Text:
    """The state (bold red), death saves, conditions (yellow) and note of `c`."""
    v = c.vitals
    shown = Text()
    parts: list[tuple[str, str]] = []
    if v.state:
        parts.append((v.state, "bold red"))
    if v.saves != (0, 0) and v.state in ("dying", "stable"):
        parts.append((f"saves {v.saves[0]}/{v.saves[1]}", "red"))
    if v.toughness is not None:
        parts.append((f"toughness {v.toughness:+d}", ""))
    if v.bruises:
        parts.append((f"bruised ({v.bruises})", "yellow"))
    parts += [(k.describe(), "yellow") for k in c.conditions]
    if v.notes:
        parts.append((f"({v.notes})", "italic"))
    for i, (text, style) in enumerate(parts):
        if i:
            shown.append(", ")
        shown.append(visible(text), style=style)
    return shown


def order_text(found: Encounter, selected: str | None, width: int = 80) -> Text:
    """The order, a line a combatant: `>` and bold for whose turn it is, the selected one
    in reverse, its initiative, HP bar, AC, then its state and conditions on the same line
    when they fit in `width` cells, else on the next line, indented."""
    if not found.order:
        return Text(
            "no encounter yet: `init add goblin +2 x3 hp 7 ac 15` adds monsters, "
            "`init roll` rolls the party's initiative",
            style="italic",
        )
    names = min(max(len(visible(c.name)) for c in found.order), 24)
    digits = max(len(str(c.total)) for c in found.order)
    bars = [hp_bar(c) for c in found.order]
    hp_width = max(b.cell_len for b in bars)
    shown = Text()
    for i, (c, bar) in enumerate(zip(found.order, bars, strict=True)):
        now = c.name == found.turn
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("> " if now else "  ", style="bold")
        line.append(visible(c.name)[:24].ljust(names), style="bold" if now else "")
        how = "pinned" if c.pinned else "reported" if c.reported else ""
        line.append(f"  {c.total:>{digits}}", style="dim" if how else "")
        if hp_width or how:
            line.append("  ")
            if not bar.plain:  # (no HP: the place says pinned or reported)
                bar = Text(how, style="dim")
                how = ""
            line.append_text(bar)
            line.append(" " * max(hp_width - bar.cell_len, 0))
        if c.vitals.ac is not None:
            line.append(f"  AC {c.vitals.ac}")
        if c.name == selected:
            line.stylize("reverse")
        rest = kept(c)
        if how:
            rest = Text.assemble((how, "dim"), ", " if rest.plain else "", rest)
        if rest.plain:
            if line.cell_len + 2 + rest.cell_len <= width:
                line.append("  ")
                line.append_text(rest)
            else:
                line.append("\n    ")
                line.append_text(rest)
        if i:
            shown.append("\n")
        shown.append_text(line)
    return shown


def shared_start(words: list[str]) -> int:
    """How many characters all `words` start with (any case)."""
    low = [w.lower() for w in words]
    n = 0
    while all(len(w) > n and w[n] == low[0][n] for w in low):
        n += 1
    return n


def title_text(found: Encounter | None, system: str, character: str | None) -> Text:
    """`d20 gm · levelup · as aria · round 2 · goblin-2's turn`."""
    parts = ["d20 gm", system]
    if character:
        parts.append(f"as {character}")
    if found is not None and found.order:
        parts.append(f"round {found.round}")
        if found.turn:
            parts.append(f"{found.turn}'s turn")
        if found.dyn:
            parts.append("initiative each round")
    return Text(visible(" · ".join(parts)))


class CommandLine(Input):
    """The command line: TAB completes as the shell does (the app's `complete`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "wipe", "clear the line", show=False),
    ]

    async def _on_key(self, event: events.Key) -> None:
        """TAB completes here, in turn with the keys typed before it (a binding would
        run before the characters still queued for the line were put in)."""
        if event.key == "tab":
            event.stop()
            event.prevent_default()
            app = self.app
            if isinstance(app, GmApp):
                app.complete()
            return
        await super()._on_key(event)

    def action_wipe(self) -> None:
        self.value = ""


class GmApp(App[int]):
    """The GM screen over one shell session (d20cli.app.shell.Session)."""

    CSS = CSS
    TITLE = "d20 gm"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", "quit", priority=True),
        Binding("ctrl+d", "quit", "quit", show=False, priority=True),
        Binding("f5,ctrl+n", "next_turn", "next turn", priority=True),
        Binding("f6,ctrl+z", "undo", "undo", priority=True),
        Binding("f7,ctrl+t", "hurt", "damage", priority=True),
        Binding("f8,ctrl+y", "heal", "heal", priority=True),
        Binding("up", "select(-1)", "select", show=False, priority=True),
        Binding("down", "select(1)", "select", show=False, priority=True),
        Binding("pageup", "scroll_output(-1)", "scroll", show=False, priority=True),
        Binding("pagedown", "scroll_output(1)", "scroll", show=False, priority=True),
    ]

    def __init__(self, opts: Options, commands: Commands | None = None) -> None:
        super().__init__()
        self.buffer = io.StringIO()
        self.session = Session(opts, self._output(80), commands)
        self.encounter: Encounter | None = None
        self.selected: str | None = None
        self.seen: tuple[int, tuple[int, int] | None] | None = None  # (data_version, file)
        self._words: Words | None = None

    # -- the layout ---------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with Horizontal(id="top"):
            yield Static(id="order")
            with Vertical(id="side"):
                yield Static(id="party")
                yield Static(id="rolls")
        yield RichLog(id="output", max_lines=KEPT_LINES, wrap=True, markup=False)
        with Horizontal(id="line"):
            yield Static(id="prompt")
            yield CommandLine(id="command", placeholder="a request or init ... (TAB completes)")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#order").border_title = "order"
        self.query_one("#party").border_title = "party"
        self.query_one("#rolls").border_title = "rolls"
        self.session.warm()
        self.refresh_panels()
        self.query_one("#command", Input).focus()
        self.say(
            Text(
                "One request or init command a line, as in d20 shell (help; TAB completes). "
                "F5 next turn, F6 undo, F7 damage, F8 heal (the combatant selected with the "
                "arrow keys), Ctrl-C or Ctrl-D quits.",
                style="dim",
            )
        )
        self.call_after_refresh(self._redraw_order)
        self.set_interval(POLL_SECONDS, self.poll)

    def on_resize(self) -> None:
        """A new size: the order laid out again (after the layout)."""
        self.call_after_refresh(self._redraw_order)

    def _redraw_order(self) -> None:
        if self.encounter is not None:
            self.query_one("#order", Static).update(self._order())

    def _output_width(self) -> int:
        """The output panel's width (less its scroll bar)."""
        width = self.query_one("#output", RichLog).scrollable_content_region.width
        return max(20, width - 1 if width > 0 else self.size.width - 2)

    def _output(self, width: int) -> Output:
        """Where a line's output goes: the buffer, in colour unless NO_COLOR (read back
        from its escape codes into the output panel)."""
        color = not os.environ.get("NO_COLOR", "")
        return Output(self.buffer, self.buffer, color=color, width=width)

    # -- reading the state --------------------------------------------------------------

    def _state(self) -> Any:
        return self.session.context.state(self.session.out)

    def _version(self) -> tuple[int, tuple[int, int] | None]:
        """What says the state changed: the state database's data_version (changed by
        any other connection's commit) and the characters file's size and time."""
        from d20cli.store.characters import characters_path

        try:
            version = int(self._state().db.conn.execute("PRAGMA data_version").fetchone()[0])
        except Exception:  # (a state that cannot be read: the panels say so)
            version = -1
        try:
            st = characters_path().stat()
            file: tuple[int, int] | None = (st.st_size, st.st_mtime_ns)
        except OSError:
            file = None
        return version, file

    def poll(self) -> None:
        """Read the panels again when another process changed the state."""
        if self._version() != self.seen:
            self.refresh_panels()

    def refresh_panels(self) -> None:
        """Read the encounter, the party and the roll log, and draw them."""
        from d20cli.store import initiative

        self.seen = self._version()
        with self._quiet():
            try:
                self.encounter = initiative.load(self._state())
                order = self._order()
            except D20Error as err:
                self.encounter = None
                order = Text(f"the encounter cannot be read: {visible(err.message)}")
            self.query_one("#order", Static).update(order)
            self.query_one("#party", Static).update(self._party())
            self.query_one("#rolls", Static).update(self._rolls())
        session = self.session
        self.query_one("#title", Static).update(
            title_text(self.encounter, session.system, session.character)
        )
        self.query_one("#prompt", Static).update(Text(session.prompt()))

    def _order(self) -> Text:
        found = self.encounter
        assert found is not None
        names = [c.name for c in found.order]
        if self.selected not in names:
            self.selected = found.turn if found.turn in names else (names[0] if names else None)
        return order_text(found, self.selected, self._order_width())

    def _order_width(self) -> int:
        width = self.query_one("#order", Static).content_region.width
        return width if width > 0 else max(self.size.width * 3 // 5 - 4, 20)

    def _party(self) -> Text:
        from d20cli.app.commands.initiative import party

        try:
            members = party(None)
        except D20Error as err:
            return Text(f"the characters cannot be read: {visible(err.message)}")
        if not members:
            return Text("no characters (char add aria --system levelup)", style="italic")
        fighting = {c.name.lower(): c for c in (self.encounter.order if self.encounter else ())}
        shown = Text()
        for i, member in enumerate(members):
            if i:
                shown.append("\n")
            shown.append(visible(member.name), style="bold")
            shown.append(f"  {member.system or self.session.system}", style="dim")
            c = fighting.get(member.name.lower())
            if c is None:
                shown.append("  not in the order", style="dim")
                continue
            if c.vitals.hp is not None:
                shown.append("  ")
                shown.append_text(hp_bar(c))
            if c.vitals.ac is not None:
                shown.append(f"  AC {c.vitals.ac}")
            rest = kept(c)
            if rest.plain:
                shown.append("  ")
                shown.append_text(rest)
        return shown

    def _rolls(self) -> Text:
        try:
            rows = self._state().rolls.recent(ROLLS)
        except D20Error as err:
            return Text(f"the roll log cannot be read: {visible(err.message)}")
        if not rows:
            return Text("no rolls yet", style="italic")
        shown = Text()
        for i, row in enumerate(reversed(rows)):  # the newest first
            if i:
                shown.append("\n")
            if row.character:
                shown.append(visible(row.character) + " ", style="bold")
            shown.append(visible(row.request))
            if row.total is not None:
                shown.append(f" = {row.total}", style="bold")
            if row.outcome:
                shown.append(" " + visible(row.outcome.replace("_", " ")), style="cyan")
        return shown

    @contextlib.contextmanager
    def _quiet(self) -> Iterator[None]:
        """A warning the state gives while it is read goes to the output panel."""
        try:
            yield
        finally:
            self._flush_output()

    # -- the command line ---------------------------------------------------------------

    def say(self, text: Text) -> None:
        self.query_one("#output", RichLog).write(text)

    def _flush_output(self) -> None:
        """What the session printed, into the output panel (escape codes read as styles;
        every control character was made visible by the Output)."""
        printed = self.buffer.getvalue()
        if not printed:
            return
        self.buffer.seek(0)
        self.buffer.truncate()
        log = self.query_one("#output", RichLog)
        for line in printed.rstrip("\n").split("\n"):
            log.write(Text.from_ansi(line))

    def run_line(self, line: str) -> None:
        """Run one line as the shell does, its output into the output panel."""
        session = self.session
        self.say(Text.assemble((session.prompt(), "bold green"), (visible(line), "bold")))
        if line.strip().lower() == "clear":
            self.query_one("#output", RichLog).clear()
            return
        width = self._output_width()
        if session.out.width != width:  # (the terminal's width changed)
            session.out = self._output(width)
        kept_stdin = sys.stdin
        try:  # a command run as on the command line writes to sys.stdout; it reads nothing
            sys.stdin = io.StringIO()
            with (
                contextlib.redirect_stdout(self.buffer),
                contextlib.redirect_stderr(self.buffer),
            ):
                session.handle(line)
        finally:
            sys.stdin = kept_stdin
        self._flush_output()
        if session.done:
            self.exit(int(session.worst))
            return
        self.refresh_panels()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        line = event.value
        event.input.value = ""
        if line.strip():
            self.run_line(line)

    def complete(self) -> None:
        """TAB: the one word that fits put in, or the longest start they share and the
        words listed in the output panel (the shell's completion)."""
        line = self.query_one("#command", Input)
        before = line.value[: line.cursor_position]
        if self._words is None:
            self._words = session_words(self.session)
        with self._quiet():
            cur, found = session_completions(self.session, before, self._words)
        if not found:
            return
        if len(found) == 1:
            word = found[0] + " "
        else:
            word = found[0][: max(shared_start(found), len(cur))]
            self.say(Text(visible("  ".join(found[:60])), style="dim"))
        start = len(before) - len(cur)
        line.value = line.value[:start] + word + line.value[len(before) :]
        line.cursor_position = start + len(word)

    # -- the keys -----------------------------------------------------------------------

    def action_next_turn(self) -> None:
        self.run_line("init next")

    def action_undo(self) -> None:
        self.run_line("init undo")

    def _prefill(self, sub: str) -> None:
        if self.selected is None:
            self.say(Text("no combatant to select: add one with init add NAME", style="dim"))
            return
        line = self.query_one("#command", Input)
        line.value = f"init {sub} {self.selected} "
        line.cursor_position = len(line.value)
        line.focus()

    def action_hurt(self) -> None:
        self._prefill("hurt")

    def action_heal(self) -> None:
        self._prefill("heal")

    def action_select(self, step: int) -> None:
        found = self.encounter
        if found is None or not found.order:
            return
        names = [c.name for c in found.order]
        at = names.index(self.selected) if self.selected in names else 0
        self.selected = names[(at + step) % len(names)]
        self.query_one("#order", Static).update(self._order())

    def action_scroll_output(self, step: int) -> None:
        log = self.query_one("#output", RichLog)
        if step < 0:
            log.scroll_page_up()
        else:
            log.scroll_page_down()


def run_gm(opts: Options, commands: Commands | None = None) -> int:
    """Run the GM screen until Ctrl-C, Ctrl-D or `quit`; the exit status (0)."""
    app = GmApp(opts, commands)
    try:
        app.run()
    finally:
        app.session.context.close()
    return 0


__all__ = ["GmApp", "hp_bar", "order_text", "run_gm", "title_text"]
