"""The pictures of the documentation (docs/images/*.svg) are what the program prints now:
scripts/make_screens.py makes each again (the program's own colour output, forced dice,
a fixed width and title; a chart, what `--svg FILE` writes) and they must equal the files
checked in (a chart drawn by another matplotlib: its data); every page that should
show one does, with alt text."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.docs_pages import DOCS, ROOT, env


def test_every_picture_is_what_the_program_prints_now(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_screens.py"), "--check"],
        capture_output=True,
        text=True,
        env=env(tmp_path),
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_pages_show_the_pictures_with_alt_text() -> None:
    shown = {
        page.relative_to(DOCS).as_posix(): re.findall(
            r"!\[([^\]]+)\]\(images/([\w-]+\.svg)\)", page.read_text(encoding="utf-8")
        )
        for page in DOCS.glob("*.md")
    }
    pictures = {p.name for p in (DOCS / "images").glob("*.svg")}
    charts = {"odds-check-chart.svg", "sweep-chart.svg", "compare-chart.svg", "luck-chart.svg"}
    assert pictures == {"odds-chart.svg", "initiative.svg", "shell.svg", "gm.svg", *charts}
    where = {name: page for page, found in shown.items() for _, name in found}
    assert where == {
        "odds-chart.svg": "odds.md",
        "odds-check-chart.svg": "odds.md",
        "sweep-chart.svg": "luck.md",
        "compare-chart.svg": "luck.md",
        "luck-chart.svg": "luck.md",
        "initiative.svg": "characters.md",
        "shell.svg": "index.md",
        "gm.svg": "encounter.md",
    }
    assert all(len(alt.split()) >= 4 for found in shown.values() for alt, _ in found)
