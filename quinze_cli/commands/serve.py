"""``quinze serve``: run the Trio game server (PROTOCOL.md).

Listens on 127.0.0.1:15015 by default (this machine only); ``--host 0.0.0.0`` serves the local
network. Ctrl-C (SIGINT), SIGTERM or SIGHUP (its terminal closed; not under ``nohup``, which
ignores it) stops it cleanly: tables start no more games, every client is sent ``bye`` (bounded by
``ServerConfig.shutdown_grace``), finished games are already logged and the games it aborts are
logged (bounded by ``ServerConfig.shutdown_log_time``), the exit status is 0; 1 when an aborted
game's log could not be written (the tables are named). A second SIGINT/SIGTERM while stopping
exits at once with status 130 (once the logs of games already ended are written, at most
:data:`LOGS_AT_ONCE` seconds); a second SIGHUP does not (a closed terminal sends two).

The signals are received by :func:`trio.open_signal_receiver` for the whole run, never as a
``KeyboardInterrupt``: a KeyboardInterrupt raised in the middle of the server's own code (a table
task, or the shutdown itself) could skip the cleanup and leave a shielded server playing on,
deaf to further Ctrl-C.

The server announces itself on the local network by DNS-SD over multicast DNS
(:mod:`quinze_cli.lan.announce`; ``quinze servers`` and ``quinze play`` find it) unless
``--no-announce``: on loopback only for the default 127.0.0.1 (no other machine could connect),
on every interface for ``--host 0.0.0.0``, whose start-up lines then give the machine's LAN
addresses to connect to (``--server ADDRESS:PORT``, where multicast is blocked).

Before serving, the process's garbage collector is tuned for a long-running server
(:func:`quinze_server.collector.tune`: start-up objects frozen, a larger young generation), and
ready tasks run in the order they became ready (:func:`quinze_server.scheduling.first_come_first_served`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.console import Console

from quinze_cli.app import help_of
from quinze_cli.errors import EXIT_INTERRUPTED, EXIT_USAGE, fail
from quinze_cli.stdio import line_console, log_handler
from quinze_cli.options import check_at_least, check_log_dir, check_move_time, check_seconds
from quinze_server.config import DEFAULT_HOST, DEFAULT_PORT, TABLE_IDLE, THINKING_LONG, ServerConfig

if TYPE_CHECKING:
    import trio

# The server itself and trio are imported where the command runs (quinze_server.config, its
# defaults, is plain data): ``quinze serve --help`` and the usage errors Typer finds cost Typer's
# start, not trio's and the server's (tests/test_cli_imports.py).


def _find(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first ``kind`` exception in ``exc`` (exception groups are searched)."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _find(inner, kind)
            if found is not None:
                return found
    return None




async def _watch_signals(signals: AsyncIterator[int], stop: trio.CancelScope, console: Console) -> None:
    """First SIGINT/SIGTERM/SIGHUP: cancel ``stop`` (the server shuts down cleanly). A second
    SIGINT/SIGTERM: exit now. A SIGHUP while stopping changes nothing: a closed terminal sends two
    (the shell passes its own on to its jobs, the kernel signals the foreground group)."""
    from quinze_cli.interrupt import hung_up

    async for signum in signals:
        hangup = hung_up(signum)
        if not stop.cancel_called:
            stop.cancel()
            _say(console, ("hung up: " if hangup else "") + "stopping: telling clients bye (Ctrl-C again to quit at once)")
            continue
        if hangup:
            continue
        await _logs_written(LOGS_AT_ONCE)
        _say(console, "stopped at once (second signal)")
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)  # at once: no other cleanup may hold the process


LOGS_AT_ONCE = 2.0
"""Seconds a second signal waits, at most, for the replay logs being written (games that ended)."""


async def _logs_written(seconds: float) -> None:
    """Wait until no replay log is being written or waits to be (the log writers' limiter,
    :func:`quinze_server.logs.writers`), at most ``seconds``: a game whose ``game-over`` the
    players already have is on disk before a second Ctrl-C ends the process (its log is written
    in a thread, after the message; the process ending mid-write left the game out)."""
    import trio

    from quinze_server.logs import writers

    limiter = writers()
    with trio.move_on_after(seconds):
        while limiter.borrowed_tokens or limiter.statistics().tasks_waiting:
            await trio.sleep(0.005)


def _say(console: Console, line: str) -> None:
    """Print ``line``; a stream that cannot take it (a terminal gone since) must not stop the shutdown."""
    with contextlib.suppress(OSError):
        console.print(line)


async def _serve(config: ServerConfig, console: Console, announce: str | None) -> list[str]:
    """Serve ``config`` until a signal; ``announce``: the name announced on the LAN (None: not
    announced). Returns the tables whose aborted game could not be logged."""
    import trio

    from quinze_server.app import run_server
    from quinze_server.server import Server

    from quinze_cli.interrupt import stop_signals

    with trio.open_signal_receiver(*stop_signals()) as signals:
        async with trio.open_nursery() as outer:
            with trio.CancelScope() as stop:
                outer.start_soon(_watch_signals, signals, stop, console)
                async with trio.open_nursery() as nursery:
                    servers: list[Server] = []
                    unlogged: list[str] = []
                    port = await nursery.start(functools.partial(run_server, config, on_server=servers.append,
                                                                 on_stopped=unlogged.extend))
                    where = f"{config.host}:{port}"
                    console.print(f"[bold green]quinze server[/] listening on [bold]{where}[/] (Ctrl-C to stop)")
                    if config.host in ("0.0.0.0", "::"):
                        _say_lan_addresses(console, port)
                    if announce is not None:
                        from quinze_cli.lan.announce import announce_server

                        def said(instance: str, addresses: list[str]) -> None:
                            console.print(f"announced on the local network as {instance.split('._quinze.')[0]!r}: "
                                          "players find it with quinze servers, or quinze play", soft_wrap=True)

                        nursery.start_soon(announce_server, servers[0], config.host, port, announce, said)
                    else:
                        console.print("not announced on the local network (--no-announce)")
                    if config.log_dir is not None:
                        console.print(f"replay logs in {config.log_dir.resolve()}/<table>.jsonl "
                                      "(table ids start with this server run's id)", soft_wrap=True)
                    else:
                        console.print("no replay logs (--no-log)")
            outer.cancel_scope.cancel()  # the server is down: stop watching signals
    return unlogged


def _say_lan_addresses(console: Console, port: int) -> None:
    """``--host 0.0.0.0``: the machine's LAN addresses, as a person types them after ``--server``."""
    from quinze_cli.lan.addresses import lan_addresses

    found = lan_addresses()
    if not found:
        console.print("serving every network interface, but this machine has no address on a local network "
                      f"(only 127.0.0.1:{port})", soft_wrap=True)
        return
    console.print("serving every network interface: players on the local network connect to "
                  + " or ".join(f"{a}:{port}" for a in found)
                  + f" (quinze play --server {found[0]}:{port})", soft_wrap=True)


def register(app: typer.Typer) -> None:
    @app.command("serve", help=help_of("serve"))
    def serve(
        host: Annotated[str, typer.Option(help="Address to listen on; 0.0.0.0 for the local network.")] = DEFAULT_HOST,
        port: Annotated[int, typer.Option(help="TCP port (0: any free port).")] = DEFAULT_PORT,
        log_dir: Annotated[Path, typer.Option("--log-dir", help="Append each finished game to DIR/<table>.jsonl (table ids start with the server run id).")] = Path("logs"),
        no_log: Annotated[bool, typer.Option("--no-log", help="Record no replay logs.")] = False,
        move_time: Annotated[float, typer.Option("--move-time", help="Default seconds per decision.")] = 60.0,
        thinking_long: Annotated[float, typer.Option("--thinking-long", metavar="SECONDS",
                                                     help="Seconds a player may think before the others are told.")] = THINKING_LONG,
        max_tables: Annotated[int, typer.Option("--max-tables", help="Tables open at once on this server.")] = 1000,
        max_tables_per_connection: Annotated[
            int, typer.Option("--max-tables-per-connection", help="Open tables one connection may create.")
        ] = 20,
        table_idle: Annotated[float, typer.Option("--table-idle", metavar="SECONDS",
                                                  help="Seconds a table waiting for players stays open while nobody takes a seat.")] = TABLE_IDLE,
        no_announce: Annotated[bool, typer.Option("--no-announce", help="Do not announce this server on the local network (multicast DNS).")] = False,
        name: Annotated[Optional[str], typer.Option("--name", metavar="NAME", help="The name announced on the local network (default: this machine's host name).")] = None,
    ) -> None:
        import trio

        import quinze_server.app  # noqa: F401 - the server's modules, imported before the collector freezes the start (below)
        import quinze_server.server  # noqa: F401
        from quinze_server.collector import tune as tune_collector
        from quinze_server.scheduling import first_come_first_served

        logs = None if no_log else log_dir
        check_move_time(move_time)  # each by its flag: ServerConfig's own checks name its fields (move_time)
        check_seconds(thinking_long, "--thinking-long")
        check_seconds(table_idle, "--table-idle")
        check_at_least(max_tables, "--max-tables", 1)
        check_at_least(max_tables_per_connection, "--max-tables-per-connection", 1)
        if name is not None:
            from quinze_protocol.fields import plain_text_problem

            why = plain_text_problem(name) if 1 <= len(name) <= 40 else f"must be 1..40 characters, got {len(name)}"
            if why is not None:
                fail(f"--name {name!r}: {why}", EXIT_USAGE)
        if no_announce and name is not None:
            fail("--name is the name announced on the local network: not with --no-announce", EXIT_USAGE)
        if not no_announce:
            from quinze_cli.lan.addresses import env_interfaces

            try:
                env_interfaces()
            except ValueError as e:
                fail(str(e), EXIT_USAGE)
        try:
            config = ServerConfig(host=host, port=port, log_dir=logs, move_time=move_time, max_tables=max_tables,
                                  max_tables_per_connection=max_tables_per_connection, thinking_long=thinking_long,
                                  table_idle=table_idle)
        except ValueError as e:
            fail(str(e), EXIT_USAGE)
        if logs is not None:
            check_log_dir(logs)  # a file, or a folder that cannot be written: a usage error naming why, as in match
            try:
                logs.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                fail(f"--log-dir {logs}: {e.strerror or e}")
        console = line_console()
        handler = log_handler(show_path=False, markup=False)
        logger = logging.getLogger("quinze.server")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        tune_collector()  # this process is the server's: start-up is over, freeze it (server/collector.py)
        first_come_first_served()  # and its ready tasks run in the order they became ready (server/scheduling.py)
        try:
            if no_announce:
                announce = None
            else:
                from quinze_cli.lan.announce import default_name

                announce = name or default_name()
            unlogged = trio.run(_serve, config, console, announce)
        except BaseException as e:  # noqa: BLE001 - an address that cannot be bound is a user error
            if _find(e, KeyboardInterrupt) is not None:  # a second Ctrl-C while stopping
                console.print("server stopped (interrupted)")
                raise typer.Exit(EXIT_INTERRUPTED) from None
            err = _find(e, OSError)
            if err is None:
                raise
            fail(f"cannot listen on {host}:{port}: {getattr(err, 'strerror', None) or err}")
        finally:
            logger.removeHandler(handler)
        if unlogged:
            fail(f"server stopped, but the aborted games of {len(unlogged)} table(s) are not in the logs of "
                 f"{config.log_dir}: {', '.join(unlogged)} (see the errors above)")
        console.print("server stopped")
