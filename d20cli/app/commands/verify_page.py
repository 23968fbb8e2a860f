"""`d20 verify --page FILE.html`: one self-contained HTML page that checks a sealed
session's export in a browser with d20cli's own verification
(d20cli.app.commands.verify.verdict_json), run by Pyodide: no second implementation.

The page holds everything it runs, gzip then base64 inside it (about 8 MB): Pyodide's
files (PYODIDE_FILES, from Pyodide's npm package, each checked against its SHA-256 here)
and two pure-Python wheels made here from what is installed, d20cli's own (this very
version, every module: the page rolls with the code that rolled the session) and
pyparsing's. It fetches nothing and its Content-Security-Policy forbids any connection,
so it works from a file, offline, once saved. Writing it fetches nothing either:
Pyodide's files are read from the folder `D20_PYODIDE` names (the npm package's, e.g.
node_modules/pyodide), else from the package's own `d20cli/page/pyodide`, which
`scripts/get_pyodide.py` fills (`npm pack pyodide@PYODIDE_VERSION`; not in git)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.metadata
import io
import json
import os
import zipfile
from pathlib import Path

from d20cli.errors import ParseError
from d20cli.store.files import read_bytes
from d20cli.visible import visible

PYODIDE_VERSION = "0.28.3"
#: The files of Pyodide's npm package the page holds, and their SHA-256.
PYODIDE_FILES = {
    "pyodide.js": "24a458425dcb4ea9836eb5ce26701d18cb769374e2b79247602ba605bf093278",
    "pyodide.asm.js": "b22e5831eade9ff10e6fe2c811c68688cd91f10154377b4f80debcf5bafa1e56",
    "pyodide.asm.wasm": "5effb6a1a6cc4a1a85bec4622701aa797c031e1de923cbbaf2ad47abdc4ab325",
    "python_stdlib.zip": "71fee17f88a6260ec8c9c7c063533ee59c021fdc88a1ce76247378d3c4a35f4c",
    "pyodide-lock.json": "f6e6f42f451f42affbbcddb00e8c9a3278dcbf399f57aab9f3f568839a7ff4a6",
}
PAGE_DIR = Path(__file__).resolve().parent.parent.parent / "page"  # d20cli/page
TEMPLATE = PAGE_DIR / "verify.html"
KIT_DIR = PAGE_DIR / "pyodide"  # where scripts/get_pyodide.py puts Pyodide's files
#: A wheel's entries all carry this time, so that one install writes one page, byte for byte.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
MAX_PART_BYTES = 64 * 1024 * 1024  # one file the page holds (Pyodide's largest: 9 MB)
LEFT_OUT = ("page",)  # folders of d20cli the page does not need (the page itself)


def pyodide_dir() -> Path:
    """The folder Pyodide's files are read from (module doc); ParseError when there is
    none, saying how to get one."""
    named = os.environ.get("D20_PYODIDE")
    if named:
        found = Path(named)
        if not found.is_dir():
            raise ParseError(f"D20_PYODIDE names {visible(named)}, which is not a folder")
        return found
    if KIT_DIR.is_dir():
        return KIT_DIR
    raise ParseError(
        f"--page needs Pyodide {PYODIDE_VERSION}'s files, which this install of d20 does not "
        "have: run scripts/get_pyodide.py from d20cli's source (it runs npm pack pyodide), "
        "or set D20_PYODIDE to the folder of the npm package pyodide "
        f"{PYODIDE_VERSION} (node_modules/pyodide)"
    )


def pyodide_files(folder: Path) -> dict[str, bytes]:
    """Pyodide's files in `folder`, each checked against its SHA-256 (ParseError: missing
    or another version's)."""
    found: dict[str, bytes] = {}
    for name, digest in PYODIDE_FILES.items():
        path = folder / name
        try:
            data = read_bytes(str(path), MAX_PART_BYTES, "a file of Pyodide")
        except OSError as err:
            raise ParseError(
                f"cannot read {visible(str(path))}: {err.strerror or err} (--page needs "
                f"Pyodide {PYODIDE_VERSION}'s files)"
            ) from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise ParseError(
                f"{visible(str(path))} is not Pyodide {PYODIDE_VERSION}'s {name} (its SHA-256 "
                "differs): the page holds only the files it was checked with"
            )
        found[name] = data
    return found


def _wheel(name: str, version: str, package: Path, skip: tuple[str, ...] = ()) -> bytes:
    """A pure-Python wheel of the installed package at `package` (its .py files and
    py.typed), made in memory: what the page unpacks into Pyodide's site-packages."""
    out = io.BytesIO()
    info = f"{name}-{version}.dist-info"
    record: list[str] = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as whl:

        def put(arcname: str, data: bytes) -> None:
            entry = zipfile.ZipInfo(arcname, ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            whl.writestr(entry, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{arcname},sha256={digest.decode()},{len(data)}")

        for path in sorted(package.rglob("*")):
            relative = path.relative_to(package)
            if relative.parts[0] in skip or "__pycache__" in relative.parts:
                continue
            if path.is_file() and (path.suffix == ".py" or path.name == "py.typed"):
                put(f"{package.name}/{relative.as_posix()}", read_bytes(str(path), MAX_PART_BYTES))
        metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        put(f"{info}/METADATA", metadata.encode())
        put(
            f"{info}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: d20 verify --page\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n",
        )
        record.append(f"{info}/RECORD,,")
        entry = zipfile.ZipInfo(f"{info}/RECORD", ZIP_TIME)
        entry.external_attr = 0o644 << 16
        whl.writestr(entry, "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    return out.getvalue()


def wheels() -> dict[str, bytes]:
    """The wheels the page installs, by file name: pyparsing's and d20cli's, as installed."""
    import pyparsing

    import d20cli

    made: dict[str, bytes] = {}
    for module, skip in ((pyparsing, ()), (d20cli, LEFT_OUT)):
        name = module.__name__
        version = importlib.metadata.version(name)
        folder = Path(module.__file__ or "").resolve().parent
        made[f"{name}-{version}-py3-none-any.whl"] = _wheel(name, version, folder, skip)
    return made


def _packed(data: bytes) -> str:
    return base64.b64encode(gzip.compress(data, 9, mtime=0)).decode("ascii")


def page_text() -> str:
    """The page's HTML (module doc); ParseError when Pyodide's files cannot be had."""
    files = pyodide_files(pyodide_dir())
    made = {name: base64.b64encode(data).decode("ascii") for name, data in wheels().items()}
    parts = {name: _packed(data) for name, data in files.items()}
    parts["wheels"] = _packed(json.dumps(made).encode())
    text = read_bytes(str(TEMPLATE), MAX_PART_BYTES, "the page's template").decode("utf-8")
    text = text.replace("@PYODIDE_VERSION@", PYODIDE_VERSION)
    text = text.replace("@D20_VERSION@", importlib.metadata.version("d20cli"))
    for name, packed in parts.items():
        text = text.replace(f"@{name}@", packed)  # (base64: no markup in it)
    return text


def write_page(path: str) -> int:
    """Write the page to `path` (atomically: a page half written is never left there); the
    bytes written. ParseError when it cannot be made or written."""
    from d20cli.store.files import atomic_write

    text = page_text()
    try:
        atomic_write(path, text)
    except OSError as err:
        raise ParseError(f"cannot write {visible(path)}: {err.strerror or err}") from None
    return len(text.encode("utf-8"))
