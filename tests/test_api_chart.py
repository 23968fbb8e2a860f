"""`d20cli.chart` (issue 46, charts through the API): the bytes of the chart of an odds
view, a sweep, a compare or a luck report parse, carry the data of the command's `--svg`
or `--png` file for the same request, and are its very bytes; matplotlib is imported at
the first chart only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import d20, log

import d20cli

DC = "{http://purl.org/dc/elements/1.1/}description"


def _data(svg: bytes) -> Any:
    """The chart's data, from the SVG's description (it parses as XML)."""
    description = ET.fromstring(svg).find(f".//{DC}")
    assert description is not None and description.text
    return json.loads(description.text)


def _cli_chart(
    args: list[str], fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> bytes:
    path = tmp_path / f"chart.{fmt}"
    status, _, err = d20([*args, f"--{fmt}", str(path)], capsys)
    assert status == 0, err
    return path.read_bytes()


@pytest.mark.parametrize(
    ("args", "view"),
    [
        (
            ["odds", "attack +7 vs AC 15 dmg 1d8+4"],
            lambda: d20cli.odds("attack +7 vs AC 15 dmg 1d8+4"),
        ),
        (["odds", "roll 3d6", "--totals"], None),
        (["odds", "check +5 vs 10..16"], lambda: d20cli.sweep("check +5 vs 10..16")),
        (
            ["odds", "compare", "roll 2d6", "roll 1d12"],
            lambda: [d20cli.odds("roll 2d6"), d20cli.odds("roll 1d12")],
        ),
        (
            [
                "odds",
                "compare",
                "attack +7 vs AC 13..18 dmg 1d8+4",
                "attack +4 vs AC 13..18 dmg 2d6+4",
            ],
            lambda: [
                d20cli.sweep("attack +7 vs AC 13..18 dmg 1d8+4"),
                d20cli.sweep("attack +4 vs AC 13..18 dmg 2d6+4"),
            ],
        ),
    ],
)
def test_the_chart_of_an_odds_view_is_the_commands_svg(
    args: list[str], view: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    totals = view is None
    made = d20cli.odds("roll 3d6") if totals else view()
    picture = d20cli.chart(made, "svg", totals=totals)
    cli = _cli_chart(args, "svg", tmp_path, capsys)
    assert _data(picture) == _data(cli)  # the same data, each value exact
    assert picture == cli  # and the very bytes


def test_the_chart_of_a_luck_report_is_the_commands_svg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("D20_NO_LOG", raising=False)
    status, _, err = d20(
        ["attack", "+7", "vs", "AC", "15", "dmg", "1d8+4", "--seed", "4", "-n", "8", "-q"], capsys
    )
    assert status == 0, err
    path = tmp_path / "luck.svg"
    result = log("--luck", "--svg", str(path))
    assert result.exit_code == 0, result.output
    export = tmp_path / "rolls.json"
    export.write_text(log("--export", "json").output, encoding="utf-8")
    picture = d20cli.chart(d20cli.luck(export))
    data = _data(picture)
    assert data == _data(path.read_bytes())
    assert data["panels"][0]["x_label"] == "outcome"
    assert picture == path.read_bytes()


def test_a_png_is_the_commands_png_with_its_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = d20cli.chart(d20cli.odds("check +5 vs 15 adv"), "png")
    assert picture.startswith(b"\x89PNG\r\n\x1a\n")
    assert picture == _cli_chart(["odds", "check +5 vs 15 adv"], "png", tmp_path, capsys)
    pil = pytest.importorskip("PIL.Image")
    import io

    with pil.open(io.BytesIO(picture)) as image:
        data = json.loads(image.info["Description"])
    assert data == _data(d20cli.chart(d20cli.odds("check +5 vs 15 adv")))


def test_wrong_views_and_formats() -> None:
    with pytest.raises(ValueError, match="'svg' or 'png'"):
        d20cli.chart(d20cli.odds("d20"), "gif")
    with pytest.raises(TypeError):
        d20cli.chart("check +5 vs 15")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        d20cli.chart([])
    with pytest.raises(ValueError, match="same points"):
        d20cli.chart([d20cli.sweep("check +5 vs 10..12"), d20cli.sweep("check +5 vs 10..13")])


def test_matplotlib_is_imported_at_the_first_chart_only(tmp_path: Path) -> None:
    code = (
        "import sys, d20cli\n"
        "d20cli.odds('check +5 vs 15'); d20cli.sweep('check +5 vs 10..12')\n"
        "d20cli.luck([d20cli.roll('check +5 vs 15', dice=[12])])\n"
        "heavy = ('matplotlib', 'numpy', 'd20cli.present.charts', 'sqlite3', 'rich', 'typer')\n"
        "print([m for m in heavy if m in sys.modules])\n"
        "d20cli.chart(d20cli.odds('check +5 vs 15'))\n"
        "print([m for m in ('matplotlib', 'd20cli.present.charts') if m in sys.modules])\n"
    )
    env = {**os.environ, "HOME": str(tmp_path), "MPLCONFIGDIR": str(tmp_path / "mpl")}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    before, after = proc.stdout.splitlines()
    assert before == "[]"
    assert after == "['matplotlib', 'd20cli.present.charts']"
