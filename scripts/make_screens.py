"""Write the pictures of the documentation: docs/images/*.svg, each the program's own
terminal output (in colour) drawn by rich (`Console.export_svg`), or a chart the program
draws itself (`--svg FILE`: CHARTS). Run it after changing
what one of the commands below prints: `python scripts/make_screens.py`
(tests/test_screens.py fails while a picture is out of date; `--check` exits 1 then,
writing nothing).

Each picture is made the same way every time: its commands run in a home of their own
(an empty one for each picture, so no character or roll of yours is read), with forced
dice, an 80-column terminal (110 for the shell, whose toolbar is long), 256 colours, a
fixed title and no clock. A command's output is what `d20` writes on a terminal
(FORCE_COLOR), read back from its escape codes.

The GM screen's picture is Textual's own screenshot (`App.export_screenshot`) of the
screen run headless by Textual's test driver at 80x24, the lines typed on its command
line.

The shell's picture is not a capture of prompt_toolkit's screen (which cannot be taken the
same way twice without a terminal emulator): it is the shell's own session
(d20cli.app.shell.Session, as `d20 shell` runs it) given the lines, with its own prompt
before each line, and its own toolbar text drawn below as prompt_toolkit draws a bottom
toolbar (in reverse video, the terminal's width).

A chart is the same bytes every time with one matplotlib; one checked in by another
version of matplotlib is kept while its data (the description `--svg` writes) are the
same, so that a new matplotlib alone does not make the docs out of date.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

IMAGES = ROOT / "docs" / "images"
WIDTH = 80
SHELL_WIDTH = 110  # the whole toolbar, which prompt_toolkit cuts at the terminal's width


class Screen(NamedTuple):
    """One picture: its file, its title, the commands run first and not shown (a
    character made, an order rolled), and the commands shown with what they print."""

    name: str
    title: str
    setup: tuple[str, ...]
    shown: tuple[str, ...]


SCREENS = (
    Screen(
        "odds-chart.svg",
        "d20 odds",
        (),
        ("d20 odds roll 3d6 vs 12",),
    ),
    Screen(
        "initiative.svg",
        "d20 init",
        (
            "d20 char add aria --system levelup",
            "d20 char set aria init +3 adv",
            "d20 char add bruno --system mm",
            "d20 char set bruno agility +4",
        ),
        (
            "d20 init roll --dice 16,4,9",
            "d20 init add goblin +2 x2 --dice 11,17",
            "d20 init next",
        ),
    ),
)


class ChartShot(NamedTuple):
    """One chart of the documentation: what `--svg FILE` writes for a command (the
    commands of `setup` run first, in the same home: rolls for `log --luck`)."""

    name: str
    setup: tuple[str, ...]
    command: str


#: The charts the docs show (`--svg`, d20cli.present.charts), each drawn by the program.
CHARTS = (
    ChartShot("odds-check-chart.svg", (), "d20 odds check +5 vs 15 adv expertise=d6"),
    ChartShot("sweep-chart.svg", (), "d20 odds attack +7 vs AC 10..25 dmg 1d8+4"),
    ChartShot(
        "compare-chart.svg",
        (),
        'd20 odds compare "attack +7 vs AC 12..20 dmg 1d8+4" "attack +4 vs AC 12..20 dmg 2d6+4"',
    ),
    ChartShot(
        "luck-chart.svg",
        (
            "d20 attack +7 vs AC 15 dmg 1d8+4 --seed 4 -n 12 -q",
            "d20 check +3 vs 12 --seed 9 -n 12 -q",
        ),
        "d20 log --luck",
    ),
)

#: The shell's picture: the lines typed, in one session.
SHELL_TITLE = "d20 shell"
SHELL_LINES = (
    "check +5 vs 15 adv --dice 8,17",
    "attack +7 vs 15 dmg 1d8+4 --dice 20,5,6",
    "system pendagger",
    "attempt adept fortune --dice 20",
)
SHELL_NAME = "shell.svg"

#: The GM screen's picture: the fight set up, then the lines typed on its command line.
GM_TITLE = "d20 gm"
GM_NAME = "gm.svg"
GM_HEIGHT = 24
GM_SETUP = (
    "d20 char add aria --system levelup",
    "d20 char set aria init +3",
    "d20 char set aria hp 12",
    "d20 char set aria armor 15",
    "d20 init add aria --dice 14",
    "d20 init add goblin +2 x2 hp 2d6 ac 15 --dice 11,9,3,4,5,2",
    "d20 init add cleo =17",
    "d20 init pin lair 20",
    "d20 init cond aria blessed 10r",
    "d20 init next",
)
GM_LINES = (
    "init next",
    "init cond goblin-2 prone",
    "attack +5 vs AC goblin-1 dmg 1d8+3 --dice 16,1",
)


def isolated(home: Path) -> None:
    """This process's environment: a home of its own and a fixed terminal (colour, width)."""
    for name in list(os.environ):
        if name.startswith("D20_") or name in ("NO_COLOR", "COLORTERM", "MANPATH"):
            del os.environ[name]
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(home / name.lower())
    os.environ.update(
        HOME=str(home), FORCE_COLOR="1", TERM="xterm-256color", COLUMNS=str(WIDTH), LINES="50"
    )


def run_d20(command: str) -> str:
    """What `d20 ...` writes on a terminal: standard output and error, escape codes kept."""
    from d20cli.__main__ import main

    words = shlex.split(command)
    if words[0] != "d20":
        raise ValueError(f"a screen runs d20 commands only: {command!r}")
    written = io.StringIO()
    with contextlib.redirect_stdout(written), contextlib.redirect_stderr(written):
        status = main(words[1:])
    if status != 0:
        raise RuntimeError(f"{command!r} exited {status}:\n{written.getvalue()}")
    return written.getvalue()


def recorder(width: int = WIDTH) -> Any:
    from rich.console import Console

    return Console(
        record=True,
        width=width,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        highlight=False,
        soft_wrap=False,
        legacy_windows=False,
    )


def svg(console: Any, title: str, name: str) -> str:
    """The recorded console as an SVG; its ids are named after the file, not the content."""
    from rich.terminal_theme import MONOKAI

    stem = name.removesuffix(".svg")
    return str(console.export_svg(title=title, theme=MONOKAI, unique_id=f"d20-{stem}"))


def typed(console: Any, prompt: str, line: str, style: str = "bold green") -> None:
    from rich.text import Text

    console.print(Text.assemble((prompt, style), (line, "bold")))


def printed(console: Any, ansi: str) -> None:
    from rich.text import Text

    for line in ansi.rstrip("\n").split("\n"):
        console.print(Text.from_ansi(line))


def command_screen(screen: Screen) -> str:
    for command in screen.setup:
        run_d20(command)
    console = recorder()
    for command in screen.shown:
        typed(console, "$ ", command)
        printed(console, run_d20(command))
    return svg(console, screen.title, screen.name)


def shell_screen() -> str:
    from rich.text import Text

    from d20cli.app.options import Options
    from d20cli.app.shell import Session
    from d20cli.present.output import Output

    os.environ["COLUMNS"] = str(SHELL_WIDTH)
    written = io.StringIO()
    session = Session(Options(), Output(written, written, color=True, width=SHELL_WIDTH))
    session.warm()
    console = recorder(SHELL_WIDTH)
    for line in SHELL_LINES:
        typed(console, session.prompt(), line, style="")  # prompt_toolkit's: no style
        session.handle(line)
        printed(console, written.getvalue())
        written.seek(0)
        written.truncate()
    typed(console, session.prompt(), "", style="")
    toolbar = session.toolbar()[:SHELL_WIDTH].ljust(SHELL_WIDTH)
    console.print(Text(toolbar, style="reverse"))  # prompt_toolkit's bottom-toolbar style
    session.context.close()
    return svg(console, SHELL_TITLE, SHELL_NAME)


def gm_screen() -> str:
    """The GM screen (d20cli.app.gm) at 80x24, run headless by Textual's own driver with
    the lines typed on its command line, saved by Textual as an SVG."""
    import asyncio

    from d20cli.app.gm import GmApp
    from d20cli.app.options import Options

    for command in GM_SETUP:
        run_d20(command)
    app = GmApp(Options())
    shot: list[str] = []

    async def go() -> None:
        async with app.run_test(size=(WIDTH, GM_HEIGHT)) as pilot:
            await pilot.pause()
            app.query_one("#output").clear()  # (its first lines say the keys: the footer does)
            for line in GM_LINES:
                app.run_line(line)
            await pilot.pause()
            shot.append(app.export_screenshot(title=GM_TITLE))

    try:
        asyncio.run(go())
    finally:
        app.session.context.close()
    return shot[0]


def chart_shot(shot: ChartShot, home: Path) -> str:
    """The SVG that `--svg` writes for the chart's command, run after its setup."""
    for command in shot.setup:
        run_d20(command)
    path = home / shot.name
    run_d20(f"{shot.command} --svg {shlex.quote(str(path))}")
    return path.read_text(encoding="utf-8")


def chart_data(svg: str) -> tuple[str, str]:
    """A chart's matplotlib version and its data (the description `--svg` writes)."""
    import re

    version = re.search(r"Matplotlib v([^,<]+)", svg)
    data = re.search(r"<dc:description>(.*?)</dc:description>", svg, re.S)
    return (version.group(1) if version else "", data.group(1) if data else "")


def same_chart(old: str, new: str) -> bool:
    """Whether a chart checked in is the one drawn now: the same bytes, or (drawn by
    another version of matplotlib, which may place a glyph elsewhere) the same data."""
    if old == new:
        return True
    (old_version, old_data), (new_version, new_data) = chart_data(old), chart_data(new)
    return old_version != new_version and old_data == new_data != ""


def screens() -> dict[Path, str]:
    """Every picture, made now, each in an empty home of its own."""
    made: dict[Path, str] = {}
    for screen in (*SCREENS, None, GM_NAME):
        with tempfile.TemporaryDirectory(prefix="d20-screen-") as home:
            isolated(Path(home))
            if screen == GM_NAME:
                made[IMAGES / GM_NAME] = gm_screen()
            elif screen is None:
                made[IMAGES / SHELL_NAME] = shell_screen()
            else:
                made[IMAGES / screen.name] = command_screen(screen)
    for shot in CHARTS:
        with tempfile.TemporaryDirectory(prefix="d20-chart-") as home:
            isolated(Path(home))
            drawn = chart_shot(shot, Path(home))
        path = IMAGES / shot.name
        kept = path.read_text("utf-8") if path.exists() else ""
        made[path] = kept if kept and same_chart(kept, drawn) else drawn
    return made


def main(argv: list[str]) -> int:
    from make_docs import write_stale  # (this folder, beside this script)

    return write_stale(screens(), argv, "make_screens.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
