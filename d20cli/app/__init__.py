"""The edge: options, the request pipeline (parse -> resolve -> record -> show -> exit
status), standard input, the interactive shell, the typer commands and completion.

Importing it registers the config file's colour choice with the output
(d20cli.store.config.color_choice), so every Output of the command line follows it.

It also makes the interpreter's cycle collector run every 50,000 new objects instead of
every 700: a plain request's start made 26 collections, 5 to 7 ms of its 70 (a tenth),
to free the few reference cycles a run makes; now it makes one or two. A cycle left
waiting is freed at the next collection, so memory stays bounded by that count
(docs/performance.md, "Start-up"). The Python API does not import this package."""

import gc

gc.set_threshold(50_000)

from d20cli.present.output import use_color_choice  # noqa: E402 (after the collector's setting)
from d20cli.store.config import color_choice  # noqa: E402

use_color_choice(color_choice)
