"""Put Pyodide's files where `d20 verify --page` reads them: d20cli/page/pyodide (not in
git; a wheel built afterwards ships them). They come from the npm package pyodide, at
the version d20cli.app.commands.verify_page pins, through npm itself (`npm pack`), and
each is checked against the SHA-256 pinned there before it is kept.

    python scripts/get_pyodide.py                 # npm pack pyodide@VERSION
    python scripts/get_pyodide.py node_modules/pyodide   # an npm package already there

Exit status 0 when the files are in place, 1 when they cannot be had (no npm, no
registry, another version's files), with one line saying why."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from d20cli.app.commands.verify_page import (  # noqa: E402
    KIT_DIR,
    PYODIDE_FILES,
    PYODIDE_VERSION,
)


def _good(folder: Path) -> bool:
    return all(
        (folder / name).is_file() and hashlib.sha256((folder / name).read_bytes()).hexdigest() == h
        for name, h in PYODIDE_FILES.items()
    )


def _packed(work: Path) -> Path:
    """The npm package pyodide@PYODIDE_VERSION, fetched by npm and unpacked in `work`."""
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("get_pyodide: npm is not installed (apt-get install npm)")
    done = subprocess.run(
        [npm, "pack", f"pyodide@{PYODIDE_VERSION}", "--silent"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise SystemExit(f"get_pyodide: npm pack failed: {done.stderr.strip()[-300:]}")
    tarball = work / done.stdout.strip().splitlines()[-1]
    with tarfile.open(tarball) as tar:
        for name in PYODIDE_FILES:
            member = tar.getmember(f"package/{name}")
            source = tar.extractfile(member)
            assert source is not None
            (work / name).write_bytes(source.read())
    return work


def main(argv: list[str]) -> int:
    if _good(KIT_DIR):
        print(f"get_pyodide: Pyodide {PYODIDE_VERSION} is in {KIT_DIR}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(argv[0]) if argv else _packed(Path(tmp))
        if not _good(source):
            print(
                f"get_pyodide: {source} does not hold Pyodide {PYODIDE_VERSION}'s files "
                "(missing, or their SHA-256 differs from d20cli/app/commands/verify_page.py's)",
                file=sys.stderr,
            )
            return 1
        KIT_DIR.mkdir(parents=True, exist_ok=True)
        for name in PYODIDE_FILES:
            shutil.copyfile(source / name, KIT_DIR / name)
    print(f"get_pyodide: Pyodide {PYODIDE_VERSION} is in {KIT_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
