"""The edge: options, the request pipeline (parse -> resolve -> record -> show -> exit
status), standard input, the interactive shell, the typer commands and completion."""
