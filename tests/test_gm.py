"""`d20 gm`, the GM screen (d20cli.app.gm): driven by Textual's own test driver
(`App.run_test`: keys pressed, the screen read back as text) for its panels, keys,
command line, completion and a change made by another process; and once in a real
terminal (pexpect) that it starts and quits on Ctrl-C and on Ctrl-D.

Every wait is bounded and none is a time the screen must keep: a wait for a change from
another process polls the screen until it shows it (at most TIMEOUT seconds)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pexpect
import pytest

from d20cli.__main__ import main
from d20cli.app.cli import completion_commands, run_app
from d20cli.app.gm import GmApp
from d20cli.app.options import Options
from d20cli.app.shell import Commands
from d20cli.language.vocabulary import VERB_HELP

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60  # a wait for the screen, never a time it must keep


def d20(*words: str) -> None:
    """`d20 WORDS` in-process; it must succeed (its output is not read here)."""
    assert main(list(words)) == 0, words


def fight() -> None:
    """The fight of docs/encounter.md, in short: aria, two goblins, cleo and the lair."""
    d20("char", "add", "aria", "--system", "levelup")
    d20("char", "set", "aria", "init", "+3")
    d20("char", "set", "aria", "hp", "12")
    d20("char", "set", "aria", "armor", "15")
    d20("init", "add", "aria", "--dice", "14")
    d20("init", "add", "goblin", "+2", "x2", "hp", "7", "ac", "15", "--dice", "11,9")
    d20("init", "add", "cleo", "=17")
    d20("init", "pin", "lair", "20")
    d20("init", "cond", "goblin-2", "prone")
    d20("init", "hurt", "goblin-1", "4")


def screen(app: GmApp) -> str:
    """What the terminal shows now, as text (a line a row)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def drive(
    script: Callable[[GmApp, object], Awaitable[None]],
    size: tuple[int, int] = (80, 24),
    commands: bool = False,
) -> GmApp:
    """Run the GM screen headless at `size` with `script(app, pilot)`; the app, ended."""
    described = Commands(run_app, lambda: completion_commands(VERB_HELP)) if commands else None
    app = GmApp(Options(), described)

    async def go() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(app, pilot)
        app.session.context.close()

    asyncio.run(go())
    return app


async def typed(pilot: object, text: str) -> None:
    """Type `text` on the command line, key by key, and wait for the screen."""
    await pilot.press(*[{" ": "space"}.get(c, c) for c in text])  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]


async def until(app: GmApp, pilot: object, shown: str) -> str:
    """The screen once it shows `shown` (polled; at most TIMEOUT seconds)."""
    for _ in range(TIMEOUT * 10):
        text = screen(app)
        if shown in text:
            return text
        await pilot.pause(0.1)  # type: ignore[attr-defined]
    raise AssertionError(f"the screen never showed {shown!r}:\n{screen(app)}")


def row(text: str, name: str) -> str:
    """The order's row of combatant `name` (the left panel's part of the line)."""
    for line in text.splitlines():
        cells = line.split("│")
        if len(cells) > 1 and name in cells[1].split():
            return cells[1]
    raise AssertionError(f"no row of {name} in:\n{text}")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_panels_show_the_order_party_and_rolls(
    size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("D20_NO_LOG")
    fight()
    d20("check", "+5", "vs", "15", "--as", "aria", "--dice", "12")
    seen: list[str] = []

    async def look(app: GmApp, pilot: object) -> None:
        seen.append(await until(app, pilot, "goblin-2"))

    drive(look, size)
    text = seen[0]
    assert "d20 gm · levelup · round 1 · aria's turn" in text
    assert "order" in text and "party" in text and "rolls" in text
    assert row(text, "aria").lstrip().startswith(">")  # whose turn it is
    assert "██████████ 12/12 HP" in row(text, "aria")
    assert "████░░░░░░ 3/7 HP" in row(text, "goblin-1")  # 3 of 7: 4 of 10 cells
    assert "AC 15" in row(text, "goblin-2")
    assert "pinned" in row(text, "lair") and "reported" in row(text, "cleo")
    assert "prone" in text  # on goblin-2's line, or the line under it at 80 columns
    assert "aria  levelup" in text  # the party panel
    assert "aria check +5 vs 15 = 17" in text  # the roll log's tail (its outcome may wrap)
    assert "F5 next turn" in text.replace("f5", "F5") or "f5 next turn" in text
    lines = text.splitlines()
    assert len(lines) == size[1] and all(len(line) <= size[0] for line in lines)


def test_keys_next_turn_undo_damage_and_heal() -> None:
    fight()
    seen: dict[str, str] = {}

    async def keys(app: GmApp, pilot: object) -> None:
        press = pilot.press  # type: ignore[attr-defined]
        await press("f5")
        seen["next"] = await until(app, pilot, "cleo's turn")
        await press("f6")
        seen["undo"] = await until(app, pilot, "aria's turn")
        await press("down", "down", "f7")  # aria is selected first; then cleo, goblin-1
        seen["line"] = app.query_one("#command").value  # type: ignore[attr-defined]
        await typed(pilot, "2")
        await press("enter")
        seen["hurt"] = await until(app, pilot, "1/7 HP")
        await press("f8")
        await typed(pilot, "5")
        await press("enter")
        seen["heal"] = await until(app, pilot, "6/7 HP")
        await press("ctrl+n")
        seen["ctrl"] = await until(app, pilot, "cleo's turn")

    drive(keys)
    assert "undid: init next" in seen["undo"]
    assert seen["line"] == "init hurt goblin-1 "
    assert "goblin-1 takes 2 damage" in seen["hurt"]
    assert "d20 levelup> init heal goblin-1 5" in seen["heal"]
    assert "goblin-1 heals 5" in seen["heal"]
    assert main(["init", "--json"]) == 0  # the state the commands read was written


def test_a_typed_request_and_init_command_run_as_in_the_shell() -> None:
    fight()
    seen: dict[str, str] = {}

    async def lines(app: GmApp, pilot: object) -> None:
        await typed(pilot, "check +5 vs 15 --dice 12")
        await pilot.press("enter")  # type: ignore[attr-defined]
        seen["check"] = await until(app, pilot, "Success")
        await typed(pilot, "init add orc +1 hp 9 ac 13 --dice 5")
        await pilot.press("enter")  # type: ignore[attr-defined]
        seen["orc"] = await until(app, pilot, "9/9 HP")
        await typed(pilot, "init hurt nobody 3")
        await pilot.press("enter")  # type: ignore[attr-defined]
        seen["bad"] = await until(app, pilot, "d20: error")
        await typed(pilot, "char list")
        await pilot.press("enter")  # type: ignore[attr-defined]
        seen["char"] = await until(app, pilot, "3 entries, 0 macros")

    drive(lines, commands=True)
    assert "d20 levelup> check +5 vs 15 --dice 12" in seen["check"]
    assert "= 17 vs 15" in seen["check"]
    assert "AC 13" in row(seen["orc"], "orc")
    assert "no 'nobody' in the initiative order" in seen["bad"]


def test_tab_completes_commands_combatants_and_conditions() -> None:
    fight()
    seen: list[str] = []

    async def tab(app: GmApp, pilot: object) -> None:
        line = app.query_one("#command")
        for text in ("init hu", "init hurt gob", "init cond goblin-1 pro"):
            line.value = ""  # type: ignore[attr-defined]
            await typed(pilot, text)
            await pilot.press("tab")  # type: ignore[attr-defined]
            seen.append(line.value)  # type: ignore[attr-defined]
        seen.append(screen(app))

    drive(tab, commands=True)
    assert seen[:3] == ["init hurt ", "init hurt goblin-", "init cond goblin-1 prone "]
    assert "goblin-1  goblin-2" in seen[3]  # the names it could be, listed


def test_a_change_from_another_process_appears() -> None:
    fight()
    seen: list[str] = []

    async def other(app: GmApp, pilot: object) -> None:
        await until(app, pilot, "goblin-2")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for line in (["init", "hurt", "goblin-2", "5"], ["init", "cond", "aria", "poisoned"]):
            subprocess.run(
                [sys.executable, "-m", "d20cli", *line],
                env=env,
                cwd=str(ROOT),
                check=True,
                capture_output=True,
                timeout=TIMEOUT,
            )
        seen.append(await until(app, pilot, "2/7 HP"))
        seen.append(await until(app, pilot, "poisoned"))

    drive(other)
    assert "2/7 HP" in row(seen[0], "goblin-2")


def test_user_text_is_shown_as_typed_never_as_markup_or_controls() -> None:
    fight()
    d20("init", "note", "goblin-1", "[bold red]boss[/bold red]", "\x1b[2J")
    seen: list[str] = []

    async def look(app: GmApp, pilot: object) -> None:
        await typed(pilot, "init note goblin-2 [link=x]y[/link]")
        await pilot.press("enter")  # type: ignore[attr-defined]
        seen.append(await until(app, pilot, "goblin-2: [link=x]y[/link]"))

    drive(look, (140, 30))
    assert "[bold red]boss[/bold red] \\x1b[2J" in seen[0]


def test_no_color_draws_the_same_screen_in_one_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    fight()
    monkeypatch.setenv("NO_COLOR", "1")
    seen: list[str] = []

    async def look(app: GmApp, pilot: object) -> None:
        seen.append(await until(app, pilot, "goblin-2"))
        assert app.no_color
        assert not app.session.out.color  # what a line prints is plain too

    drive(look)
    assert "████░░░░░░ 3/7 HP" in seen[0]  # the bar's cells, not its colours, say it


@pytest.mark.parametrize("key", ["ctrl+c", "ctrl+d"])
def test_ctrl_c_and_ctrl_d_quit(key: str) -> None:
    async def quit_(app: GmApp, pilot: object) -> None:
        await pilot.press(key)  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]

    app = drive(quit_)
    assert app.return_code == 0
    assert not app.is_running


def test_quit_on_the_command_line_quits() -> None:
    async def quit_(app: GmApp, pilot: object) -> None:
        await typed(pilot, "quit")
        await pilot.press("enter")  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]

    assert drive(quit_).return_code == 0


def test_gm_off_a_terminal_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gm"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("d20: error: d20 gm is a full-screen program")
    assert main(["gm", "goblin"]) == 2
    assert "gm takes options only" in capsys.readouterr().err


@pytest.mark.parametrize("key", ["c", "d"])
def test_in_a_terminal_it_starts_and_quits_on_ctrl_c_and_ctrl_d(key: str, tmp_path: Path) -> None:
    fight()
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "d20cli", "gm"],
        env=env,
        cwd=str(ROOT),
        dimensions=(24, 80),
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    child.expect("goblin-2")
    child.expect("quit")  # the footer: the keys are read now
    child.sendcontrol(key)
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus is None
    assert child.exitstatus == 0
    assert "Traceback" not in (child.before or "")
