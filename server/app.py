"""Running the server: listen, serve connections, stop cleanly (PROTOCOL.md; ``quinze serve``).

    async with trio.open_nursery() as nursery:
        port = await nursery.start(run_server, ServerConfig(port=0))
        ...
        nursery.cancel_scope.cancel()     # clean shutdown

On cancellation the tables stop starting games (``Server.stopping``); every game still running
ends with the aborted result (:meth:`quinze_server.table.Table.abort`: ``game-over`` with result reason
``"aborted"`` to every seat and spectator); every client is sent ``bye`` with reason
``"shutdown"`` (PROTOCOL.md "Flow"); the clients are given what is left of
``ServerConfig.shutdown_grace`` seconds (counted from the start of the shutdown, whatever the
number of tables) to receive it all. Meanwhile the aborted games are logged (their writes begin
at once, :data:`quinze_server.logs.WRITERS` at a time), and the shutdown waits for every one of
them up to ``ServerConfig.shutdown_log_time`` seconds from its start (plus the writes already
begun then, which are finished): the byes are not held up by the logs, and the logs are not cut
off by the byes' deadline. Aborted games whose log could not be written (no time left, a full
disk) are named in an ERROR line and given to ``on_stopped`` (``quinze serve`` then exits 1). Then
the tables and connections are cancelled. That cleanup is shielded but bounded: whatever happens
in it (even an exception), the work is cancelled at its end, so a stopping server never keeps
playing. Logs of finished games are already written and fsynced (each game's log is written when
it ends).
"""

from __future__ import annotations

import errno
import itertools
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from quinze_server.config import ServerConfig
from quinze_server.connection import ClientConnection
from quinze_server.server import Server
from quinze_server.logs import write_game

log = logging.getLogger("quinze.server")

SHUTDOWN_REASON = "shutdown"


async def run_server(config: ServerConfig, *, listeners: list[trio.abc.Listener] | None = None,
                     task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
                     on_server: Callable[[Server], None] | None = None,
                     on_stopped: Callable[[list[str]], None] | None = None) -> None:
    """Serve ``config.host``:``config.port`` until cancelled.

    Calls ``task_status.started(port)`` with the port really bound (useful with ``port=0``).
    Raises ``OSError`` before ``started`` if the address cannot be bound (port in use, ...).
    ``listeners``: serve these instead (any ``trio.abc.Listener``, e.g. in-memory streams for
    tests); the port given to ``started`` is then 0.
    ``on_server``, when given, is called once with the running :class:`Server` just before
    ``started``, so a watcher of the lobby (``quinze serve``'s LAN announcer) can read its tables.
    ``on_stopped``, when given, is called once at the end of the shutdown with the ids of the
    tables whose aborted game could not be logged (empty: every one was).
    """
    if listeners is None:
        tcp = await trio.open_tcp_listeners(config.port, host=config.host)
        port = tcp[0].socket.getsockname()[1]
        listeners = list(tcp)
    else:
        port = 0
    ids = itertools.count(1)
    work = trio.CancelScope(shield=True)  # the outer cancellation reaches the work only after the byes
    done = trio.Event()

    async def serve(*, task_status: trio.TaskStatus[Server] = trio.TASK_STATUS_IGNORED) -> None:
        made: list[Server] = []
        try:
            with work:
                async with trio.open_nursery() as nursery:
                    server = Server(config, nursery)
                    made.append(server)

                    async def on_stream(stream: trio.abc.Stream) -> None:
                        start = time.perf_counter()
                        conn = ClientConnection(server, stream, next(ids))
                        server.connections.add(conn)
                        server.admission.charge(time.perf_counter() - start)
                        await conn.run()

                    for listener in listeners:
                        nursery.start_soon(_accept, server, listener, nursery, on_stream)
                    task_status.started(server)
        finally:
            for server in made:  # every task ended: the connection lines still counted are said
                server.connlog.flush()
            done.set()

    async with trio.open_nursery() as outer:
        server = await outer.start(serve)
        if on_server is not None:
            on_server(server)
        log.info("listening on %s:%d (server run %s: table ids %s-t1, %s-t2, ...)", config.host, port,
                 server.lobby.run, server.lobby.run, server.lobby.run)
        task_status.started(port)
        try:
            await trio.sleep_forever()
        finally:
            try:
                with trio.CancelScope(shield=True):
                    unlogged = await _shutdown(server, config, done)
                if on_stopped is not None:
                    on_stopped(unlogged)
            finally:
                work.cancel()  # even if the shutdown failed: nothing may go on playing


ACCEPT_CAPACITY_ERRNOS = {errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS}
"""What ``accept`` fails with when the process or the system is out of descriptors or memory: wait and retry."""


async def _accept(server: Server, listener: trio.abc.Listener, nursery: trio.Nursery,
                  handler: Callable[[trio.abc.Stream], Awaitable[None]]) -> None:
    """Accept connections from ``listener`` for ever, each served by ``handler`` in its own task
    (``trio.serve_listeners``, less its second close of every stream), within the newcomers'
    share of the server's time while tables are open (:mod:`quinze_server.admission`: the next
    connections wait in the listen backlog meanwhile)."""
    async with listener:
        while True:
            wait = server.admission.wait()
            if wait > 0:
                await trio.sleep(wait)
            try:
                stream = await listener.accept()
            except OSError as e:
                if e.errno not in ACCEPT_CAPACITY_ERRNOS:
                    raise
                log.error("accept failed: %s (%s); retrying in 0.1 s", errno.errorcode[e.errno], os.strerror(e.errno))
                await trio.sleep(0.1)
                continue
            nursery.start_soon(handler, stream)


async def _shutdown(server: Server, config: ServerConfig, done: trio.Event) -> list[str]:
    """Stop every table and connection (see the module's docstring); returns the ids of the
    tables whose aborted game could not be logged."""
    start = trio.current_time()
    deadline = start + config.shutdown_grace
    server.stopping = True  # no table starts another game from now on
    tables = list(server.lobby.tables.values())
    jobs = []
    for table in tables:
        try:
            job = table.abort(SHUTDOWN_REASON)
        except Exception:  # one table must not keep the others from their game-over
            log.exception("table %s: aborting its game failed", table.id)
            continue
        if job is not None:
            jobs.append(job)
    log.info("shutting down: %d connection(s), %d table(s), %d game(s) aborted",
             len(server.connections), len(tables), sum(1 for t in tables if t.aborted is not None))
    for conn in list(server.connections):
        try:
            conn.close(SHUTDOWN_REASON)
        except Exception:  # one connection must not keep the others from their bye
            log.exception("%r: sending bye failed", conn)
    written: set[str] = set()

    async def write(job: dict[str, Any]) -> None:
        if await write_game(**job):
            written.add(job["table"])

    with trio.move_on_at(start + max(config.shutdown_log_time, config.shutdown_grace)):
        async with trio.open_nursery() as nursery:
            for job in jobs:
                nursery.start_soon(write, job)
            with trio.move_on_at(deadline):
                while server.connections:
                    await trio.sleep(0.01)
    unlogged = [job["table"] for job in jobs if job["table"] not in written]
    if unlogged:
        log.error("%d of the %d aborted games could not be logged (no time left, or the disk: see above): "
                  "tables %s", len(unlogged), len(jobs), ", ".join(unlogged))
    return unlogged
