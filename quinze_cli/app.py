"""The ``quinze`` application: the Typer app and the list of command modules.

Each command lives in its own module exposing ``register(app)``; add it to ``COMMANDS`` (command
name -> module) to make it part of the CLI. User errors exit with code 2 (usage) or 1 (invalid
input) and a one-line ``error:`` message, never a traceback nor a box.

``quinze NAME ...`` imports only the module of command ``NAME`` (:func:`main`): a command's start
costs its own imports, not every command's (the whole CLI takes about four times as long to
import as ``quinze legal`` needs), and a command module imports its heavy parts (trio, the match
runner, Dask, rich's Markdown) where it runs, not where it is listed; ``quinze --version`` alone
is answered before Typer is imported. ``tests/test_cli_imports.py`` checks which modules each
start loads. ``app`` (imported by tests and tools) is the whole CLI, built on first use.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

COMMANDS = {
    "rules": "rules",
    "legal": "legal",
    "selfplay": "selfplay",
    "bench": "bench",
    "serve": "serve",
    "bot": "bot",
    "match": "match",
    "tournament": "tournament",
    "play": "play",
    "servers": "servers",
    "replay": "replay",
    "check-bot": "checkbot",
}
"""Each command's name and its module in :mod:`quinze_cli.commands`, in help order."""


def version_line() -> str:
    """What ``quinze --version`` prints: the program's and the protocol's versions."""
    from quinze_protocol import __version__
    from quinze_protocol.message_base import PROTOCOL_VERSION

    return f"quinze {__version__} (protocol {PROTOCOL_VERSION})"


def _version(value: bool) -> None:
    if value:
        import typer

        typer.echo(version_line())
        raise typer.Exit()


def build(modules: Iterable[str] = COMMANDS.values()) -> typer.Typer:
    """A Typer app with the commands of ``modules`` (default: every command). Plain help (wrapped
    at the terminal's width, values named by :mod:`quinze_cli.helptext`) and shell completion
    (``quinze --install-completion``, ``--show-completion``)."""
    import typer

    def _main(
        version: bool = typer.Option(False, "--version", help="Print the version and exit.", callback=_version, is_eager=True),
    ) -> None:
        """Le Quinze, Le Quinze classique and Le 14: server, bots, matches, replays."""

    cli = typer.Typer(
        name="quinze",
        help="Le Quinze, Le Quinze classique and Le 14: server, bots, matches, replays.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    cli.callback()(_main)
    for module in modules:
        importlib.import_module(f"quinze_cli.commands.{module}").register(cli)
    return cli


def __getattr__(name: str) -> Any:
    """``app``: the whole CLI, built once on first use."""
    if name == "app":
        whole = globals()["app"] = build()
        return whole
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def command(cli: typer.Typer | None = None) -> Any:
    """The click command tree of ``cli`` (default: the whole CLI), its values named for people
    (:func:`~quinze_cli.helptext.tidy`)."""
    import typer.main

    from quinze_cli.helptext import tidy

    return tidy(typer.main.get_command(cli if cli is not None else __getattr__("app")))


SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
"""The shells whose completion script Typer has."""


def _completion(option: str, shell: str) -> None:
    """``quinze --show-completion SHELL`` (print the script) or ``--install-completion SHELL``
    (add it to the shell's start-up file), for the shell named; exits 0. Typer's own two options
    (with shellingham installed, as Typer installs it) take no value and find the shell among the
    process's parents: a shell named was ignored, and where no parent is a shell (a command run by
    a program rather than typed, a test suite started that way) they failed, exit 1 with
    ``Shell  not supported.`` Named, the shell is used; alone, the options detect it as before."""
    import typer
    from typer._completion_shared import get_completion_script, install

    from quinze_cli.stdio import no_color

    if option == "--show-completion":
        typer.echo(get_completion_script(prog_name="quinze", complete_var="_QUINZE_COMPLETE", shell=shell))
    else:
        shell, path = install(shell=shell, prog_name="quinze", complete_var="_QUINZE_COMPLETE")
        typer.secho(f"{shell} completion installed in {path}", fg=None if no_color() else "green")
        typer.echo("Completion will take effect once you restart the terminal")
    sys.exit(0)


def main() -> None:
    """Console-script entry point: only the named command's module is imported (see above); usage
    errors are one ``error:`` line (:func:`~quinze_cli.helptext.run`). ``quinze --version`` alone
    is printed here, without Typer (what the eager option of :func:`build` prints too). Every
    command runs under :func:`quinze_cli.stdio.guarded`: a closed stdout ends it quietly with
    exit 141, and a stream that is not UTF-8 gets French text without accents, not a traceback."""
    from quinze_cli.stdio import guarded

    if sys.argv[1:] == ["--version"]:
        with guarded(rich=False):
            print(version_line())
            sys.exit(0)
    with guarded():
        if len(sys.argv) == 3 and sys.argv[1] in ("--show-completion", "--install-completion") and sys.argv[2] in SHELLS:
            _completion(sys.argv[1], sys.argv[2])
        from quinze_cli.helptext import run

        module = COMMANDS.get(sys.argv[1]) if len(sys.argv) > 1 else None
        run(command(build([module]) if module is not None else None))
