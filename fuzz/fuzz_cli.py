#!/usr/bin/env python3
"""Coverage-guided fuzzing (atheris) of the whole program, in-process through
`d20cli.__main__.main`: the command line with its options and commands, standard input
with any bytes, and the files d20 reads (the characters file, the parse cache, the config
file, a roll table).

The first byte of an input picks what the rest is:

- 0: the command line, arguments separated by NUL bytes (decoded as Python decodes
  argv: UTF-8 with surrogateescape);
- 1: standard input (any bytes) to `d20` with the options on its first line;
- 2: the characters file (`characters.toml`), then rolls `--as` a character in it,
  `char list` and `char show`;
- 3: the parse cache (`requests.cache`), then requests that look it up;
- 4: the config file (`config.toml`), then requests, `config show` and `config set`;
- 5: a roll table (`tables/loot.toml`), then `table loot`, `table check`, `table show`
  and `odds table loot`.

A finding is an exception escaping `main` (a traceback), an exit status other than 0, 1,
2 or 130, or a status 2 with no `d20: error` line. Slow inputs are caught by libFuzzer's
-timeout; `--repeat`, `--simulate` and their short forms are dropped (they may run long
by design), as are --install and `log --clear`.

    pip install atheris
    mkdir -p /tmp/d20-cli-corpus
    python fuzz/fuzz_cli.py /tmp/d20-cli-corpus tests/fuzz_cli_corpus -timeout=20 -max_len=2000

Keep the inputs worth replaying in tests/fuzz_cli_corpus/ (tests/test_fuzz.py runs every
file there through `check`).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tempfile
from typing import Any

#: Inputs holding any of these are skipped: --repeat (-n) and --simulate, also abbreviated,
#: may run long by design; --install writes outside d20's directories; `log --clear` and
#: the shell wait for a person.
LONG = (b"-n", b"--r", b"--si", b"--in", b"--cl", b"shell")
#: What the first byte of an input picks.
MODES = ("argv", "stdin", "characters", "cache", "config", "table")


def isolate() -> str:
    """Point HOME and the XDG directories at a fresh temporary directory."""
    home = tempfile.mkdtemp(prefix="d20-fuzz-cli-")
    os.environ["HOME"] = home
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = os.path.join(home, name.lower())
    for name in ("D20_SYSTEM", "D20_BUDGET", "FORCE_COLOR", "NO_COLOR", "D20_NO_LOG"):
        os.environ.pop(name, None)
    return home


def _args(raw: bytes) -> list[str]:
    return [os.fsdecode(a) for a in raw.split(b"\0") if a != b""]


def _too_long(data: bytes) -> bool:
    return any(word in data for word in LONG)


def run(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """(status, stdout, stderr) of `d20 ARGS < stdin`, in-process."""
    from d20cli.__main__ import main

    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    streams = (
        io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="surrogateescape"),
        io.TextIOWrapper(out, encoding="utf-8", errors="backslashreplace"),
        io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace"),
    )
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        status = main(args)
    except SystemExit as stop:  # typer's own exits
        status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
    finally:
        for stream in streams[1:]:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = saved
    return status, _text(out), _text(err)


def _text(stream: io.BytesIO) -> str:
    return stream.getvalue().decode("utf-8", "replace") if not stream.closed else ""


def _check_run(args: list[str], stdin: bytes = b"") -> None:
    status, _, err = run(args, stdin)
    if status not in (0, 1, 2, 130):
        raise AssertionError(f"status {status} for {args!r} < {stdin[:200]!r}: {err}")
    if "Traceback" in err:
        raise AssertionError(f"traceback for {args!r} < {stdin[:200]!r}: {err}")
    if status == 2 and "d20: error" not in err and "Error:" not in err:
        raise AssertionError(f"status 2 without a message for {args!r}: {err!r}")


def _write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def check(data: bytes) -> None:
    """One input (see the module's text). Raises AssertionError for a finding."""
    if not data:
        return
    mode, rest = MODES[data[0] % len(MODES)], data[1:]
    if _too_long(rest):
        return
    from d20cli.store.characters import characters_path
    from d20cli.store.request_cache import cache_path

    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        shutil.rmtree(os.environ[name], ignore_errors=True)  # each input starts afresh
    if mode == "argv":
        _check_run(_args(rest))
    elif mode == "stdin":
        first, _, body = rest.partition(b"\n")
        args = _args(first.replace(b" ", b"\0"))
        if all(a.startswith("-") for a in args):  # options, else it is a request
            _check_run(args, body)
    elif mode == "characters":
        _write(str(characters_path()), rest)
        for args in (
            ["char", "list"],
            ["char", "show", "aria"],
            ["check", "stealth", "vs", "15", "--as", "aria"],
            ["sneak", "--as", "aria"],
            ["char", "set", "aria", "perception", "+3"],
        ):
            _check_run(args)
    elif mode == "cache":
        _write(str(cache_path()), rest)
        for args in (["roll", "1d20"], ["check", "+5", "vs", "15"], ["-q"]):
            _check_run(args, b"roll 1d20\ncheck +5 vs 15 adv\n" if args == ["-q"] else b"")
    elif mode == "config":
        from d20cli.store.config import config_path

        _write(config_path(), rest)
        for args in (
            ["check", "+5", "vs", "15"],
            ["attack", "+5", "vs", "15", "dmg", "1d8"],
            ["config", "show"],
            ["config", "set", "levelup.crit", "19"],
            ["systems"],
        ):
            _check_run(args)
    elif mode == "table":
        from d20cli.store.tables import tables_dir

        path = os.path.join(tables_dir(), "loot.toml")
        _write(path, rest)
        for args in (
            ["table", "loot"],
            ["table", "check", path],
            ["table", "show", "loot"],
            ["table", "list"],
            ["odds", "table", "loot"],
        ):
            _check_run(args)


def main() -> None:
    isolate()
    import atheris

    with atheris.instrument_imports(include=["d20cli"]):
        import d20cli.__main__
        import d20cli.app.cli
        import d20cli.app.commands.char
        import d20cli.app.stdin
        import d20cli.language.grammar
        import d20cli.store.characters
        import d20cli.store.config
        import d20cli.store.request_cache
        import d20cli.store.state
        import d20cli.store.tables  # noqa: F401

    def one(data: bytes) -> None:
        check(data)

    atheris.Setup(sys.argv, one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()


__all__: list[Any] = ["check", "isolate", "run"]
