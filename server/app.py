"""Running the server: listen, serve connections, stop cleanly (PROTOCOL.md; ``quinze serve``).

    async with trio.open_nursery() as nursery:
        port = await nursery.start(run_server, ServerConfig(port=0))
        ...
        nursery.cancel_scope.cancel()     # clean shutdown

On cancellation the tables stop starting games (``Server.stopping``); every game still running
ends with the aborted result (:meth:`quinze_server.table.Table.abort`: ``game-over`` with result reason
``"aborted"`` to every seat and spectator); every client is sent ``bye`` with reason
``"shutdown"`` (PROTOCOL.md "Flow"); the aborted games are logged; the clients are given what is
left of ``ServerConfig.shutdown_grace`` seconds (counted from the start of the shutdown, whatever
the number of tables) to receive it all, then the tables and connections are cancelled. That
cleanup is shielded but bounded: whatever happens in it (even an exception), the work is
cancelled at its end, so a stopping server never keeps playing. Logs of finished games are
already written and fsynced (each game's log is written when it ends).
"""

from __future__ import annotations

import functools
import itertools
import logging

import trio

from quinze_server.config import ServerConfig
from quinze_server.connection import ClientConnection
from quinze_server.server import Server
from quinze_server.logs import write_game

log = logging.getLogger("quinze.server")

SHUTDOWN_REASON = "shutdown"


async def run_server(config: ServerConfig, *, listeners: list[trio.abc.Listener] | None = None,
                     task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve ``config.host``:``config.port`` until cancelled.

    Calls ``task_status.started(port)`` with the port really bound (useful with ``port=0``).
    Raises ``OSError`` before ``started`` if the address cannot be bound (port in use, ...).
    ``listeners``: serve these instead (any ``trio.abc.Listener``, e.g. in-memory streams for
    tests); the port given to ``started`` is then 0.
    """
    if listeners is None:
        listeners = await trio.open_tcp_listeners(config.port, host=config.host)
        port = listeners[0].socket.getsockname()[1]
    else:
        port = 0
    ids = itertools.count(1)
    work = trio.CancelScope(shield=True)  # the outer cancellation reaches the work only after the byes
    done = trio.Event()

    async def serve(*, task_status: trio.TaskStatus[Server] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            with work:
                async with trio.open_nursery() as nursery:
                    server = Server(config, nursery)

                    async def on_stream(stream: trio.abc.Stream) -> None:
                        conn = ClientConnection(server, stream, next(ids))
                        server.connections.add(conn)
                        await conn.run()

                    await nursery.start(trio.serve_listeners, on_stream, listeners)
                    task_status.started(server)
        finally:
            done.set()

    async with trio.open_nursery() as outer:
        server = await outer.start(serve)
        log.info("listening on %s:%d (server run %s: table ids %s-t1, %s-t2, ...)", config.host, port,
                 server.lobby.run, server.lobby.run, server.lobby.run)
        task_status.started(port)
        try:
            await trio.sleep_forever()
        finally:
            try:
                with trio.CancelScope(shield=True):
                    await _shutdown(server, config, done)
            finally:
                work.cancel()  # even if the shutdown failed: nothing may go on playing


async def _shutdown(server: Server, config: ServerConfig, done: trio.Event) -> None:
    deadline = trio.current_time() + config.shutdown_grace
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
    written = 0
    with trio.move_on_at(deadline):
        async with trio.open_nursery() as nursery:
            for job in jobs:
                nursery.start_soon(functools.partial(write_game, **job))
        written = len(jobs)
    if written < len(jobs):
        log.error("shutdown time ran out: some of the %d aborted games may not be logged", len(jobs))
    with trio.move_on_at(deadline):
        while server.connections:
            await trio.sleep(0.01)
