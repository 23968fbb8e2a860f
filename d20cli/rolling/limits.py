"""The limits of one request and of one command, stated once: the command line's options
(d20cli.app.options), standard input, the shell and the Python API (d20cli.api) all read
them from here."""

from __future__ import annotations

MAX_REPEAT = 10_000_000  # --repeat and --simulate: runs of one request
#: Runs rolled one by one (each printed, or tallied by rolling it) in one command: about
#: 20 s of work at most. `--repeat N --summary` drawn from the exact odds goes to MAX_REPEAT.
MAX_ROLLED_RUNS = 1_000_000
MAX_BUDGET = 10_000_000  # dice in one request at most: ten million faces take about 100 MB
MAX_WORK = 1_000_000_000  # dice in one command at most, over its --repeat/--simulate runs
