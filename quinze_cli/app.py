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
import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import typer

class Command(NamedTuple):
    """One ``quinze`` command: its module in :mod:`quinze_cli.commands` and its help (the first
    paragraph is its line in ``quinze --help``)."""

    module: str
    help: str


COMMANDS = {
    "rules": Command("rules", "Print the rules of GAME as played here (all games when omitted)."),
    "legal": Command("legal", "Print the legal actions of the seat to act in POSITION (- : standard input), one JSON "
                              "object per line."),
    "selfplay": Command("selfplay", "Play GAMES games between built-in bots and summarise the results (Ctrl-C: "
                                    "summary so far)."),
    "bench": Command("bench", "Measure the engines (µs per decision, legal generation), the server (action round "
                              "trip vs a msgpack echo) and matches (bot chain overhead, games per second)."),
    "serve": Command("serve", "Run the game server (default 127.0.0.1:15015) until Ctrl-C; games logged in ./logs."),
    "bot": Command("bot", "Seat a bot program at a table (join one, or create one) and relay its games until the "
                          "table closes."),
    "match": Command("match", "Play a match between bots and print the score (per bot: games, wins, points, "
                              "forfeits; Elo for two bots)."),
    "tournament": Command("tournament", "Play a tournament between bots: standings with ratings, a crosstable, "
                                        "forfeits and time per bot."),
    "play": Command("play", "Play Le Quinze (and the other games) at a table from the terminal."),
    "servers": Command("servers", "List the Quinze servers announced on the local network."),
    "replay": Command("replay", "Tell the games of a replay log turn by turn (whole table or one seat), verify "
                                "them, or print them as JSON."),
    "check-bot": Command("checkbot", "Run a bot program through scripted scenarios "
                         "(crafted messages and a real server) and print a checklist; exit 0 only when all pass."),
}
"""Each command's name, module and help, in help order: the one place a command's help is written
(its module registers it with ``help=help_of(NAME)``), so that ``quinze --help`` lists every
command without importing any (:func:`listing`)."""


def help_of(name: str) -> str:
    """The help of command ``name`` (a key of :data:`COMMANDS`); KeyError for another name."""
    return COMMANDS[name].help


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


def build(modules: Iterable[str] | None = None) -> typer.Typer:
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
    for module in modules if modules is not None else (c.module for c in COMMANDS.values()):
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


def listing() -> Any:
    """The click group of ``quinze --help`` (and of a bare ``quinze``, or a usage error before any
    command): the CLI's own options and each command of :data:`COMMANDS` by its name and help, with
    none of the command modules imported, so that the listing costs Typer's start and no more. Its
    help is the whole CLI's, byte for byte (``tests/test_cli_imports.py``). A listed command, were
    it ever run from here, runs the real one, built then."""
    import typer.main
    from typer.core import TyperCommand

    from quinze_cli.helptext import tidy

    class Listed(TyperCommand):
        def invoke(self, ctx: Any) -> Any:
            from quinze_cli.helptext import run

            name = str(self.name)
            run(command(build([COMMANDS[name].module])), [name, *ctx.args])

    group = typer.main.get_command(build([]))
    for name, entry in COMMANDS.items():
        group.add_command(Listed(name, help=entry.help, add_help_option=False,  # type: ignore[attr-defined]
                                 context_settings={"ignore_unknown_options": True, "allow_extra_args": True}))
    return tidy(group)


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

        entry = COMMANDS.get(sys.argv[1]) if len(sys.argv) > 1 else None
        if entry is not None:
            run(command(build([entry.module])))
        elif os.environ.get("_QUINZE_COMPLETE"):  # completing a command's options needs the commands
            run(command())
        else:
            run(listing())
