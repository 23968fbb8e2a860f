"""Charts to share (`--svg FILE`, `--png FILE`; d20cli.present.charts, d20cli.app.charts):
the file parses, the data drawn are the odds (read back from the picture's description
and measured from its bars), the same command draws the same bytes, a bad path is one line
and exit status 2, matplotlib is imported for these options alone, and one chart is looked
at in a headless browser (skipped without chromium, but not in CI: .ci/run installs it;
issue 46 item 4)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import d20, run_line

from d20cli.present.charts import Chart, Panel, Series, draw

NS = {
    "svg": "http://www.w3.org/2000/svg",
    "dc": "http://purl.org/dc/elements/1.1/",
}
ROOT = Path(__file__).resolve().parent.parent


def _svg(path: Path) -> tuple[ET.Element, dict[str, Any]]:
    """The SVG parsed, and the chart's data from its description."""
    root = ET.parse(path).getroot()
    description = root.find(".//dc:description", NS)
    assert description is not None and description.text
    return root, json.loads(description.text)


def _fractions(values: list[Any]) -> list[Fraction]:
    return [Fraction(v) for v in values]


def _odds(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, Any], ET.Element, dict[str, Any]]:
    """`d20 odds ARGS --json --svg FILE`: the JSON printed, the SVG and its data."""
    chart = tmp_path / "chart.svg"
    status, out, err = d20(["odds", *args, "--json", "--svg", str(chart)], capsys)
    assert status == 0, err
    root, data = _svg(chart)
    return json.loads(out), root, data


def _bar_heights(root: ET.Element, gid: str) -> list[float]:
    """The height of each bar drawn with the ids `gid-0`, `gid-1`, ... (its path's span
    in y)."""
    heights = []
    for j in range(1000):
        group = root.find(f".//svg:g[@id='{gid}-{j}']", NS)
        if group is None:
            break
        path = group.find("svg:path", NS)
        assert path is not None
        ys = [float(y) for y in re.findall(r"[ML] [-\d.]+ ([-\d.]+)", path.get("d", ""))]
        heights.append(max(ys) - min(ys))
    return heights


def test_an_odds_chart_holds_the_odds_of_each_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odds, root, data = _odds(["check", "+5", "vs", "15", "adv"], tmp_path, capsys)
    panel = data["panels"][0]
    assert (panel["x_label"], panel["y_label"], panel["percent"]) == ("outcome", "chance", True)
    tiers = ["Critical failure", "Failure", "Success", "Critical success"]
    assert panel["x"] == [*tiers, "Success or better"]
    chances = _fractions(panel["series"][0]["values"])
    assert chances[:4] == _fractions(list(odds["odds"].values()))
    assert chances[4] == Fraction(odds["success"])
    # the bars drawn: each as tall as its chance (against the tallest)
    heights = _bar_heights(root, panel["series"][0]["gid"])
    assert len(heights) == 5
    top = max(chances)
    for height, chance in zip(heights, chances, strict=True):
        assert height / max(heights) == pytest.approx(float(chance / top), abs=1e-4)
    # axes, labels and a legend, as text in the picture
    texts = {"".join(t.itertext()).strip() for t in root.iter(f"{{{NS['svg']}}}text")}
    assert {"outcome", "chance", "Success", "odds check +5 vs 15 adv  [levelup]"} <= texts
    assert root.find(".//svg:g[@id='legend_1']", NS) is not None


def test_a_roll_charts_its_totals_exactly_and_at_least(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odds, root, data = _odds(["roll", "3d6"], tmp_path, capsys)
    (panel,) = data["panels"]
    assert panel["kind"] == "histogram" and panel["x"] == [str(t) for t in range(3, 19)]
    exactly, at_least = panel["series"]
    assert _fractions(exactly["values"]) == _fractions(list(odds["distribution"].values()))
    assert _fractions(at_least["values"]) == _fractions(list(odds["at_least"].values()))
    heights = _bar_heights(root, exactly["gid"])
    p = _fractions(exactly["values"])
    assert heights[0] / heights[7] == pytest.approx(float(p[0] / p[7]), abs=1e-4)
    assert root.find(f".//svg:g[@id='{at_least['gid']}']", NS) is not None  # the line


def test_a_sweep_charts_every_point_as_its_odds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odds, _, data = _odds(["attack", "+7", "vs", "AC", "14..18", "dmg", "1d8+4"], tmp_path, capsys)
    chances, damage = data["panels"]
    assert chances["x"] == ["14", "15", "16", "17", "18"] and chances["x_label"] == "AC"
    names = [s["name"] for s in chances["series"]]
    assert names == ["Fumble", "Miss", "Hit", "Critical hit", "Hit or better"]
    for s, key in zip(chances["series"], ["critical_failure", "failure", "success"], strict=False):
        assert _fractions(s["values"]) == [Fraction(p["odds"][key]) for p in odds["points"]]
    assert _fractions(chances["series"][-1]["values"]) == [
        Fraction(p["success"]) for p in odds["points"]
    ]
    assert damage["percent"] is False
    assert _fractions(damage["series"][0]["values"]) == [
        Fraction(p["damage_mean"]) for p in odds["points"]
    ]


def test_a_compare_of_sweeps_marks_where_one_overtakes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = "attack +7 vs AC 13..18 dmg 1d8+4"
    b = "attack +4 vs AC 13..18 dmg 2d6+4"
    odds, _, data = _odds(["compare", a, b], tmp_path, capsys)
    (panel,) = data["panels"]
    assert [s["name"] for s in panel["series"]] == [f"A {a}", f"B {b}"]
    for s, swept in zip(panel["series"], odds["compare"], strict=True):
        assert _fractions(s["values"]) == [Fraction(p["damage_mean"]) for p in swept["points"]]
    assert [(m["x"], m["label"]) for m in panel["marks"]] == [
        (str(c["from"]), "A overtakes") for c in odds["break_even"][1:]
    ]
    assert panel["marks"][0]["x"] == "16"


def test_a_compare_charts_the_totals_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odds, _, data = _odds(["compare", "roll 2d6", "roll 1d12"], tmp_path, capsys)
    (panel,) = data["panels"]
    assert panel["x"] == [str(t) for t in range(1, 13)]
    for s, one in zip(panel["series"], odds["compare"], strict=True):
        dist = {int(t): Fraction(p) for t, p in one["distribution"].items()}
        assert _fractions(s["values"]) == [dist.get(t, Fraction(0)) for t in range(1, 13)]


def test_a_roll_table_charts_the_chance_of_each_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "loot.toml"
    table.write_text('die = "1d6"\n[entries]\n"1-3" = "copper"\n"4-5" = "silver"\n"6" = "gold"\n')
    odds, _, data = _odds(["table", str(table)], tmp_path, capsys)
    (panel,) = data["panels"]
    assert panel["x"] == ["1-3 copper", "4-5 silver", "6 gold"]
    assert _fractions(panel["series"][0]["values"]) == [
        Fraction(e["chance"]) for e in odds["entries"]
    ]


def test_a_line_of_standard_input_takes_a_chart(tmp_path: Path) -> None:
    chart = tmp_path / "line.svg"
    status, out, err, _ = run_line(f"odds check +5 vs 15 --svg {chart} -q")
    assert status == 0, err
    assert out.splitlines()[0] == "critical_failure 0.05"
    _, data = _svg(chart)
    assert _fractions(data["panels"][0]["series"][0]["values"])[:4] == [
        Fraction(1, 20),
        Fraction(2, 5),
        Fraction(1, 2),
        Fraction(1, 20),
    ]


def test_the_luck_report_charts_what_was_seen_against_expected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("D20_NO_LOG", "0")
    for args in (["check", "+3", "vs", "12", "--seed", "9", "-n", "12", "-q"],):
        assert d20(args, capsys)[0] == 0
    chart = tmp_path / "luck.svg"
    status, out, err = d20(["log", "--luck", "--json", "--svg", str(chart)], capsys)
    assert status == 0, err
    report = json.loads(out)
    _, data = _svg(chart)
    outcomes, successes = data["panels"]
    seen, expected = outcomes["series"]
    tiers = report["all"]["tiers"]
    assert seen["values"] == [float(t["seen"]) for t in tiers.values()]
    assert expected["values"] == pytest.approx([t["expected"] for t in tiers.values()])
    assert successes["x"][0] == "all rolls"
    assert successes["series"][0]["values"][0] == report["all"]["successes"]["observed"]
    assert data["title"] == "luck of 12 logged rolls"


def test_the_same_chart_is_the_same_bytes_with_no_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = []
    for name in ("one", "two"):
        for fmt in ("svg", "png"):
            path = tmp_path / f"{name}.{fmt}"
            status, _, err = d20(
                ["odds", "check", "+5", "vs", "10..14", f"--{fmt}", str(path)], capsys
            )
            assert status == 0, err
            made.append(path.read_bytes())
    assert made[0] == made[2] and made[1] == made[3]
    assert b"<dc:date>" not in made[0]
    assert made[1].startswith(b"\x89PNG\r\n\x1a\n")
    assert b"Description" in made[1] and b'"chart":1' in made[1]  # its data, in a text chunk


def test_text_from_outside_is_drawn_as_text_never_as_markup() -> None:
    chart = Chart(
        "odds roll 1d6 $x^2$",
        (Panel("p", "bars", "x", "y", ("a\x1b[31m", "<b>"), (Series("$s$", (0.5, 0.5)),)),),
    )
    svg = draw(chart, "svg").decode("utf-8")
    root = ET.fromstring(svg)  # no control character: it parses
    assert "\x1b" not in svg and "$x^2$" in svg and "&lt;b&gt;" in svg
    texts = {"".join(t.itertext()) for t in root.iter(f"{{{NS['svg']}}}text")}
    assert {"odds roll 1d6 $x^2$", "<b>", "$s$"} <= texts  # as typed, no mathtext


@pytest.mark.parametrize(
    ("option", "path", "said"),
    [
        ("--svg", "{tmp}/nowhere/odds.svg", "the folder {tmp}/nowhere does not exist"),
        ("--png", "{tmp}", "is a folder, not a file"),
        ("--svg", "", "--svg needs a file name"),
    ],
)
def test_a_bad_path_is_one_line_and_exit_status_2(
    option: str, path: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, said = path.format(tmp=tmp_path), said.format(tmp=tmp_path)
    for command in (["odds", "check", "+5", "vs", "15"], ["odds", "check", "+5", "vs", "5..9"]):
        status, out, err = d20([*command, option, path], capsys)
        assert status == 2 and out == ""
        assert err.startswith("d20: error") and said in err.splitlines()[0]
        assert "Traceback" not in err
    status, out, err = d20(["log", "--luck", option, path], capsys)
    assert (status, out) == (2, "") and said in err and "Traceback" not in err


def test_only_odds_and_luck_take_a_chart(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = d20(["check", "+5", "vs", "15", "--svg", "a.svg"], capsys)
    assert status == 2 and "--svg is not an option of `d20 check`" in err
    status, _, err = d20(["log", "--png", "a.png"], capsys)
    assert status == 2 and "--png goes with --luck" in err
    assert not Path("a.svg").exists() and not Path("a.png").exists()


def test_matplotlib_is_imported_for_a_chart_alone(tmp_path: Path) -> None:
    """Start-up: a roll and the odds without --svg never import matplotlib (nor numpy)."""
    code = (
        "import sys\n"
        "from d20cli.__main__ import main\n"
        "main(sys.argv[1:])\n"
        "print('LOADED', [m for m in ('matplotlib', 'numpy', 'd20cli.present.charts') "
        "if m in sys.modules])\n"
    )
    env = {**os.environ, "D20_NO_LOG": "1"}
    for words in (["check", "+5", "vs", "15"], ["odds", "check", "+5", "vs", "10..12"]):
        out = subprocess.run(
            [sys.executable, "-c", code, *words],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
        assert "LOADED []" in out, out
    chart = tmp_path / "c.svg"
    out = subprocess.run(
        [sys.executable, "-c", code, "odds", "check", "+5", "vs", "15", "--svg", str(chart)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert "LOADED ['matplotlib', 'numpy', 'd20cli.present.charts']" in out


def _chromium() -> str | None:
    return next((p for n in ("chromium", "chromium-browser") if (p := shutil.which(n))), None)


def test_a_chart_looks_right_in_a_headless_browser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The SVG as a browser draws it (`chromium --headless --screenshot`): the picture
    is there, with its blue bars (matplotlib's first colour, #1f77b4) and dark text."""
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):  # .ci/run installs it: there it is never skipped
            pytest.fail("no chromium to look at the chart: .ci/run installs it (apt-get)")
        pytest.skip("no chromium to look at the chart (.ci/run installs it)")
    from PIL import Image

    chart = tmp_path / "chart.svg"
    assert d20(["odds", "check", "+5", "vs", "15", "--svg", str(chart)], capsys)[0] == 0
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=800,400",
            f"--screenshot={shot}",
            chart.as_uri(),
        ],
        capture_output=True,
        env={**os.environ, "HOME": str(tmp_path)},
        timeout=120,
        check=True,
    )
    image = Image.open(shot).convert("RGB")
    assert image.size == (800, 400)
    raw = image.tobytes()
    pixels = list(zip(raw[0::3], raw[1::3], raw[2::3], strict=True))
    blue = sum(1 for r, g, b in pixels if abs(r - 0x1F) < 24 and abs(g - 0x77) < 24 and b > 0x90)
    dark = sum(1 for r, g, b in pixels if r + g + b < 150)
    assert blue > 800 * 400 // 20  # the bars: a good part of the picture
    assert dark > 500  # the axes, ticks and labels
