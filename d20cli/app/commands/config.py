"""`d20 config show|set|unset|path`: a thin typer sub-app over d20cli.store.config (which
reads and writes the file). Errors are one line on standard error and exit status 2,
never a traceback."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from d20cli.app.commands.shared import command_errors as _errors
from d20cli.app.commands.shared import command_options, command_output
from d20cli.language.vocabulary import DEFAULT_SYSTEM
from d20cli.present.output import Output

app = typer.Typer(
    name="config",
    help=(
        "The config file: the default system, colour, and house-rule defaults per system "
        "(config.toml in the config directory; comments kept when d20 writes it). "
        "`d20 config set levelup.crit-dmg max`, `d20 config set system mm`."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["--help", "-h"]},
)

#: The keys `d20 config set` takes, for help and completion.
KEYS_HELP = (
    "system (a system id), color (auto, always, never), SYSTEM.crit (2-20), SYSTEM.lucky "
    "(true, false), SYSTEM.min (2-20), SYSTEM.crit-dmg (dice, double, max), SYSTEM.group "
    "(more-than-half, at-least-half), log.keep (the newest rows the roll log keeps), "
    "post.url (a webhook rolls are posted to; shown as its host only), post.only (all, "
    "sealed), post.format (auto, discord, json)"
)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def show_lines(config: Any) -> list[str]:
    """The settings in force, as TOML lines, with what is a default said in a comment."""
    from d20cli.store.config import config_path

    if not config.exists:
        return [
            f"# no config file yet: {config_path()}",
            "# (d20 config set KEY VALUE makes one; e.g. d20 config set levelup.crit-dmg max)",
            f'system = "{DEFAULT_SYSTEM}"  # the default',
            'color = "auto"  # the default',
        ]
    lines = [f"# {config.path}"]
    lines.append(
        f"system = {_toml(config.system or DEFAULT_SYSTEM)}"
        + ("" if config.system else "  # the default")
    )
    lines.append(
        f"color = {_toml(config.color or 'auto')}" + ("" if config.color else "  # the default")
    )
    if config.character is not None:  # `d20 char use aria`
        lines.append(f"character = {_toml(config.character)}")
    for sid, keys in config.house.items():
        lines += ["", f"[{sid}]"]
        lines += [f"{key} = {_toml(value)}" for key, value in keys.items()]
    if config.log_keep is not None:
        lines += ["", "[log]", f"keep = {config.log_keep}"]
    post = [
        (key, value)
        for key, value in (
            ("url", config.post_url),
            ("only", config.post_only),
            ("format", config.post_format),
        )
        if value is not None
    ]
    if post:
        from d20cli.store.config import masked_url

        lines += ["", "[post]"]
        for key, value in post:
            if key == "url":  # a secret: its host only
                lines.append(f"url = {_toml(masked_url(value))}  # the rest is not shown")
            else:
                lines.append(f"{key} = {_toml(value)}")
    return lines


def _still(out: Output, problem: str | None) -> None:
    """Warn about what is still wrong with the file after a change that did not fix it."""
    if problem is not None:
        out.warn(f"the config file still has a problem: {problem}")


@app.command("show")
def config_show(
    json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """Show the settings of the config file (and the defaults where it says nothing)."""
    from d20cli.store.config import load_config

    out = command_output()
    with _errors(out):
        config = load_config()
    if command_options().json:
        out.json(config.to_json())
        return
    out.text("\n".join(show_lines(config)))


@app.command("set")
def config_set(
    key: Annotated[str, typer.Argument(help=f"The key: {KEYS_HELP}.")],
    value: Annotated[list[str], typer.Argument(help="The value, e.g. max, 19, true, mm.")],
) -> None:
    """Set a key: `d20 config set levelup.crit-dmg max`, `d20 config set system mm`,
    `d20 config set color never`, `d20 config set levelup.lucky true`."""
    from d20cli.store import characters, config

    out = command_output()
    with _errors(out):
        written, shown, left = config.set_key(key, " ".join(value), characters.config_value)
    if written == "post.url":  # a secret: never printed in full
        out.text(f"{written} = {_toml(config.masked_url(shown))}  (the file is private: 0600)")
    else:
        out.text(f"{written} = {_toml(shown)}")
    _still(out, left)


@app.command("unset")
def config_unset(
    key: Annotated[str, typer.Argument(help="The key (or a system, for its whole table).")],
) -> None:
    """Remove a key (`d20 config unset levelup.crit-dmg`) or a system's table
    (`d20 config unset levelup`)."""
    from d20cli.store import config

    out = command_output()
    with _errors(out):
        removed, left = config.unset_key(key)
    out.text(f"removed {removed}")
    _still(out, left)


@app.command("path")
def config_path_command() -> None:
    """Print where the config file is (edit it by hand if you like)."""
    from d20cli.store.config import config_path

    command_output().text(config_path())
