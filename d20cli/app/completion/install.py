"""`d20 completion SHELL [--install]`: the script for a shell, and installing it in the
user's own completion directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from d20cli.app.completion.engine import SHELLS, Command, Table, table
from d20cli.app.completion.fish import fish_script
from d20cli.app.completion.scripts import bash_script, zsh_script
from d20cli.errors import ParseError, StateError

_MAKERS: dict[str, Callable[[Table], str]] = {
    "bash": bash_script,
    "zsh": zsh_script,
    "fish": fish_script,
}


def _shell_name(shell: str) -> str:
    name = shell.strip().lower()
    if name not in SHELLS:
        raise ParseError(f"no completion for {shell!r}: the shells are {', '.join(SHELLS)}")
    return name


def script(shell: str, commands: tuple[Command, ...]) -> str:
    """The completion script for bash, zsh or fish."""
    return _MAKERS[_shell_name(shell)](table(commands))


# -- installing ----------------------------------------------------------------------------


def _home_dir(env: str, default: str) -> Path:
    """An XDG base directory (the one rule of d20cli.store.files: absolute, else the default),
    used only when it lies inside the home directory: an install writes nowhere else."""
    from d20cli.store.files import home_dir, xdg_dir

    home = Path(home_dir())
    path = Path(xdg_dir(env, default))
    return path if path.resolve().is_relative_to(home.resolve()) else home / default


def install_path(shell: str) -> Path:
    """Where `--install` puts the script: the user's standard completion directory."""
    name = _shell_name(shell)
    if name == "bash":
        data = _home_dir("XDG_DATA_HOME", ".local/share")
        return data / "bash-completion" / "completions" / "d20"
    if name == "zsh":
        return _home_dir("XDG_DATA_HOME", ".local/share") / "zsh" / "site-functions" / "_d20"
    return _home_dir("XDG_CONFIG_HOME", ".config") / "fish" / "completions" / "d20.fish"


def install_script(shell: str, commands: tuple[Command, ...]) -> str:
    """Write the script for `shell` into the user's completion directory (atomically);
    returns a message saying where, and what else to do."""

    name = _shell_name(shell)
    text = script(name, commands)
    path = install_path(name)
    from d20cli.store.files import atomic_write

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(str(path), text)
    except OSError as err:
        raise StateError(f"cannot write {path}: {err.strerror or err}") from err
    message = f"Installed d20 completion for {name} in {path}"
    if name == "bash":
        message += (
            "\nIt loads in new bash sessions when bash-completion is installed; otherwise add"
            f"\n  source {path}\nto ~/.bashrc."
        )
    elif name == "zsh":
        message += (
            "\nAdd these lines to ~/.zshrc (before any compinit), then start a new shell:"
            f"\n  fpath=({path.parent} $fpath)\n  autoload -Uz compinit && compinit"
        )
    else:
        message += "\nfish loads it in new sessions."
    return message
