"""Running ``quinze play``: the console, the language, the session, and the exit code.

The server is reached (or ``--local`` started) before the name is asked (``Your name [DEFAULT]:``,
the login name by default), so an unreachable server is said at once.

Without ``--server`` (``opts.host`` empty) the servers announced on the local network are listed
first and one is picked by number, or ``l`` for the local game ``fallback`` (:mod:`quinze_cli.play.pick`).
A server that stops (``bye`` ``shutdown``) is not reconnected to: the person is told, and may pick
another server found on the local network, or quit.

Exit codes: 0 when the person quits (``quit``, end of input) or the table closes; 1 also when the
input ended right after a lobby command that failed (a seat or table refused, a table not found:
said first), as a shell's status is its last command's; 130 after
Ctrl-C (or SIGTERM, or SIGHUP: the terminal was closed), once the table was left and ``bye`` said (as ``quinze match`` and ``quinze
bot``); 1 when the server cannot be reached, refuses the seat or the connection cannot be restored.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from typing import Any

import trio
from rich.console import Console

from quinze_protocol.fields import name_problem

from quinze_cli.client import ClientError, ConnectError
from quinze_cli.errors import EXIT_INTERRUPTED
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.i18n import Catalogue
from quinze_cli.play.lobby import ask, lobby
from quinze_cli.play.session import Lost, PlayOptions, Quit, Session, Stopped
from quinze_cli.play.asking import TableGone
from quinze_cli.play.table import join_table, spectate_table
from quinze_cli.play.terminal import LineReader
from quinze_cli.stdio import colour_wanted, fit_dumb_terminal, line_console

__all__ = ["LocalSpec", "make_console", "quit_key", "run_play"]


@dataclass
class LocalSpec:
    """``--local``: the game, its options, the bot opponents (names), the seed and move time."""

    game: str
    options: dict[str, Any]
    opponents: list[str]
    seed: int | None = None
    move_time: float | None = None
    clock: dict[str, Any] | None = None
    """The table's clock (PROTOCOL.md "Clocks"); None: per move, ``move_time``."""
    log_dir: str | None = None
    """Replay log directory (``--log-dir``, ``./logs`` by default); None with ``--no-log``."""
    extra: dict[str, Any] = field(default_factory=dict)


def quit_key(why: str, at_table: bool) -> str:
    """The catalogue key of the goodbye line for :class:`Quit` ``why``: ``quit.eof`` "Input closed:
    leaving the table. Bye." at a table (seated or watching), ``quit.eof-no-table`` "Input
    closed. Bye." elsewhere (the lobby, picking a server, the name prompt); ``quit.interrupt``,
    ``quit.hangup`` the same; ``quit.quit`` "Bye." either way."""
    if why == "quit" or at_table:
        return f"quit.{why}"
    return f"quit.{why}-no-table"


def make_console() -> tuple[Console, bool]:
    """The console and whether cards get symbols and colours (a terminal and ``NO_COLOR`` unset).
    In a file or a pipe a line is never wrapped at a width (:func:`quinze_cli.stdio.line_console`:
    a server's refusal is one line to read or grep)."""
    console = fit_dumb_terminal(line_console())
    color = colour_wanted(console)
    return console, color


def run_play(opts: PlayOptions, lang: str, local: LocalSpec | None = None, fallback: LocalSpec | None = None) -> int:
    """Play (see the module docstring); returns the exit code. ``opts.host`` empty: pick a server
    found on the LAN, or ``fallback`` (offered when given) for a local game."""
    console, color = make_console()
    cat = Catalogue(lang)
    style = CardStyle(lang, color)
    reader = LineReader()
    try:
        return trio.run(_main, opts, console, cat, style, reader, local, fallback)
    except KeyboardInterrupt:  # Ctrl-C before the signal watcher started: at no table yet
        console.print(cat(quit_key("interrupt", False)), markup=False, highlight=False)
        return EXIT_INTERRUPTED
    finally:
        reader.restore()


async def _main(opts: PlayOptions, console: Console, cat: Catalogue, style: CardStyle, reader: LineReader,
                local: LocalSpec | None, fallback: LocalSpec | None) -> int:
    code = 0
    log_file: str | None = None
    logged_before = 0
    async with trio.open_nursery() as nursery:
        s = Session(opts, console, cat, style, reader)
        await s.start(nursery)
        why = "quit"
        try:
            if local is None and not opts.host:
                from quinze_cli.play.pick import pick_server

                picked = await pick_server(s, offer_local=fallback is not None)
                if picked == "local":
                    local = fallback
                else:
                    opts.host, opts.port = picked.host, picked.port
            if local is not None:
                from quinze_cli.play.local import start_local

                s.say(cat("local.starting", opponents=", ".join(local.opponents)))
                opts.local = True
                opts.logged = local.log_dir is not None
                opts.port, opts.table = await start_local(
                    nursery, game=local.game, options=local.options, opponents=local.opponents,
                    seed=local.seed, move_time=local.move_time, log_dir=local.log_dir, clock=local.clock,
                )
                if local.log_dir is not None:
                    from quinze_cli.play.local import count_logged

                    log_file = os.path.join(local.log_dir, f"{opts.table}.jsonl")
                    logged_before = count_logged(log_file)
                opts.host = "127.0.0.1"
            else:
                await _reach(opts.host, opts.port)
            if not opts.name:
                default = _default_name()
                while not opts.name:
                    name = await ask(s, cat("ask.name", default=default), default)
                    if "\ufffd" in name:  # what the input's decoding made of bytes that are not UTF-8
                        s.say(cat("ask.bad-bytes"), style="red")
                    elif name_problem(name) is None:
                        opts.name = name
                    else:
                        s.say(cat("ask.bad-name"), style="red")
            while True:
                try:
                    await _play_on(s)
                    break
                except Stopped:  # not retried: offer the lobby of another server, or quit
                    await s.drop()
                    s.say(cat("lan.stopped", host=opts.host, port=opts.port), style="yellow")
                    from quinze_cli.play.pick import pick_server

                    other = await pick_server(s, offer_local=False, exclude=(opts.host, opts.port))
                    assert other != "local"
                    opts.host, opts.port = other.host, other.port
                    opts.table = opts.spectate = opts.token = None
        except Quit as q:
            why = q.why
            s.say(cat(quit_key(why, s.held is not None)))
            if why in ("interrupt", "hangup"):
                code = EXIT_INTERRUPTED
            elif why == "eof" and s.failed is not None:
                code = 1  # the input ended right after a command that failed: its status, as a shell's
        except TableGone as err:
            s.say(str(err), style="red")
            code = 1
        except Lost as err:
            s.say(str(err), style="red")
            code = 1
        except ClientError as err:
            s.say(cat("conn.cannot", reason=str(err)), style="red")
            code = 1
        except Exception as err:  # noqa: BLE001 - local setup errors (LocalError) in one line
            from quinze_cli.play.local import LocalError

            if not isinstance(err, LocalError):
                raise
            s.say(str(err), style="red")
            code = 1
        finally:
            with trio.CancelScope(shield=True):
                await s.goodbye(why)
                if log_file is not None:
                    await _say_log(s, log_file, logged_before)
            nursery.cancel_scope.cancel()
    return code


async def _play_on(s: Session) -> None:
    """Connect to ``s.opts``'s server and watch, sit or open the lobby as asked. Raises
    :class:`Stopped` when that server stops."""
    opts = s.opts
    await s.connect("spectator" if opts.spectate else "player")
    if opts.spectate:
        await spectate_table(s, opts.spectate)
    elif opts.table:
        await join_table(s, opts.table, opts.seat, opts.token)
    else:
        await lobby(s)


async def _say_log(s: Session, log_file: str, before: int) -> None:
    """``--local``: say where this run's games were logged and how to check them with a replay
    (``local.log``), or that no game finished (``local.no-log``)."""
    from quinze_cli.play.local import logged_games

    n = await logged_games(log_file, before)
    if n > before:
        for key in ("local.log", "local.log-check"):  # never wrapped: the command stays copyable
            s.console.print(s.cat(key, path=log_file, game=n), markup=False, highlight=False, soft_wrap=True)
    else:
        s.say(s.cat("local.no-log"), style="dim")


async def _reach(host: str, port: int, timeout: float = 10.0) -> None:
    """Check that the server takes TCP connections before the name is asked, so a person learns
    at once that it cannot be reached (then the real connection says ``hello`` with the name).
    Raises :class:`~quinze_cli.client.ConnectError` worded as :func:`quinze_cli.client.connect`."""
    try:
        with trio.fail_after(timeout):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise ConnectError(f"cannot reach {host}:{port}: no answer in {timeout:g} s") from None
    except OSError as err:
        raise ConnectError(f"cannot reach {host}:{port}: {err.strerror or err}") from None
    await stream.aclose()


def _default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name available
        name = ""
    return (name or "player")[:32]
