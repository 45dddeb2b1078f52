"""The ``quinze`` application: the Typer app and the list of command modules.

Each command lives in its own module exposing ``register(app)``; add its name to
``COMMANDS`` to make it part of the CLI. User errors exit with code 2 (usage) or 1
(invalid input) and a one-line message, never a traceback.
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="quinze",
    help="Le Quinze, Le Quinze classique and Le 14: server, bots, matches, replays.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

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
    "servers",
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


def main() -> None:
    """Console-script entry point."""
    app()
