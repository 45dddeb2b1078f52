"""The ``quinze`` application: the Typer app and the list of command modules.

Each command lives in its own module exposing ``register(app)``; add its name to
``COMMANDS`` to make it part of the CLI. User errors exit with code 2 (usage) or 1
(invalid input) and a one-line ``error:`` message, never a traceback nor a box.
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
import typer.main

app = typer.Typer(
    name="quinze",
    help="Le Quinze, Le Quinze classique and Le 14: server, bots, matches, replays.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
"""Plain help (wrapped at the terminal's width, values named by :mod:`quinze_cli.helptext`) and
shell completion (``quinze --install-completion``, ``--show-completion``)."""

COMMANDS = [
    "rules",
    "legal",
    "selfplay",
    "bench",
    "serve",
    "bot",
    "match",
    "tournament",
    "play",
    "replay",
    "checkbot",
]

for _name in COMMANDS:
    importlib.import_module(f"quinze_cli.commands.{_name}").register(app)


def _version(value: bool) -> None:
    if value:
        from quinze_protocol import __version__
        from quinze_protocol.messages import PROTOCOL_VERSION

        typer.echo(f"quinze {__version__} (protocol {PROTOCOL_VERSION})")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", callback=_version, is_eager=True),
) -> None:
    """Le Quinze, Le Quinze classique and Le 14: server, bots, matches, replays."""


def command() -> Any:
    """The click command tree of :data:`app`, its values named for people (:func:`~quinze_cli.helptext.tidy`)."""
    from quinze_cli.helptext import tidy

    return tidy(typer.main.get_command(app))


def main() -> None:
    """Console-script entry point: usage errors are one ``error:`` line (:func:`~quinze_cli.helptext.run`)."""
    from quinze_cli.helptext import run

    run(command())
