"""The edge: options, the request pipeline (parse -> resolve -> record -> show -> exit
status), standard input, the interactive shell, the typer commands and completion.

Importing it registers the config file's colour choice with the output
(d20cli.store.config.color_choice), so every Output of the command line follows it."""

from d20cli.present.output import use_color_choice
from d20cli.store.config import color_choice

use_color_choice(color_choice)
