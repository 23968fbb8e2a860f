#!/usr/bin/env python3
"""Coverage-guided fuzzing (atheris) of the request path: grammar, resolvers, odds.

Each input is one line, run in-process exactly as a line of standard input is run
(`split_line` then `run`, `odds ...` too). A finding is anything
but exit status 0 or 2, a status 2 without a one-line `d20: error` message, or an
exception escaping. Slow inputs are caught by libFuzzer's -timeout.

    pip install atheris
    mkdir -p /tmp/d20-corpus
    python fuzz/fuzz_requests.py /tmp/d20-corpus tests/fuzz_corpus -timeout=10 -max_len=400

New interesting inputs land in the first directory; keep the ones worth replaying as a
regression corpus in tests/fuzz_corpus/ (tests/test_fuzz.py runs every file there).
"""

from __future__ import annotations

import io
import os
import sys
import tempfile

import atheris

# Isolate state, config and the roll log from the user's own files before d20cli loads.
_HOME = tempfile.mkdtemp(prefix="d20-fuzz-")
for _name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
    os.environ[_name] = os.path.join(_HOME, _name.lower())
os.environ.setdefault("D20_NO_LOG", "1")  # D20_NO_LOG= (empty) fuzzes the roll log too
for _name in ("D20_SYSTEM", "D20_BUDGET", "FORCE_COLOR", "NO_COLOR"):
    os.environ.pop(_name, None)

with atheris.instrument_imports(include=["d20cli", "pyparsing"]):
    # d20cli imports most modules lazily: load them here so that they are instrumented.
    import d20cli.app.fortune
    import d20cli.dice.distribution
    import d20cli.language.dice_grammar
    import d20cli.language.grammar
    import d20cli.present.render
    import d20cli.probability.engine
    import d20cli.rules.levelup
    import d20cli.rules.mm
    import d20cli.rules.pendagger
    import d20cli.rules.reglamento
    import d20cli.store.state  # noqa: F401
    from d20cli.app.options import Options, split_line
    from d20cli.app.run import run
    from d20cli.present.output import Output


def run_line(line: str) -> tuple[int, str, str]:
    """(status, stdout, stderr) of one line through the real request path."""
    out, err = io.StringIO(), io.StringIO()
    output = Output(out, err, color=False)
    tokens = split_line(line)
    status = int(run(tokens, Options(), output).status)  # (`odds ...` too)
    return status, out.getvalue(), err.getvalue()


def check_line(line: str) -> None:
    status, _, err = run_line(line)
    if status not in (0, 2):
        raise AssertionError(f"status {status} for {line!r}: {err}")
    if "Traceback" in err:
        raise AssertionError(f"traceback for {line!r}: {err}")
    if status == 2 and not err.startswith("d20: error"):
        raise AssertionError(f"status 2 without a message for {line!r}: {err!r}")


def test_one_input(data: bytes) -> None:
    # Plain UTF-8, so that the corpus files are readable requests (the seeds in
    # tests/fuzz_corpus/ are text); one line, as standard input would give it.
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    line = lines[0] if lines else text
    # --repeat and --simulate may legitimately run long (Ctrl-C stops them).
    if any(w in line for w in ("-n", "--r", "--si")):
        return
    check_line(line)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
