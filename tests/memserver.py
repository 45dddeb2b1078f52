"""The real server over in-memory streams: the whole conversation (server connection, server,
lobby, tables, client :class:`quinze_cli.client.Connection` and its session) without sockets.

    async with memory_server() as server:
        ana = await server.connect("ana")
        info = await ana.create_table(TOY, games=1)

Only the bytes' path differs from TCP (``trio.testing.memory_stream_pair`` instead of loopback
sockets); the tests that must see TCP itself stay on :mod:`serverkit`.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
import trio.testing

from toygame import FirstToThree
from quinze_cli.client import Connection, greet
from quinze_protocol import registry as game_registry
from quinze_protocol.game import register_game
from quinze_protocol.messages import ActionRequest, GameOver
from quinze_server.app import run_server
from quinze_server.config import ServerConfig

TOY = "first-to-three"


class MemoryListener(trio.abc.Listener[trio.abc.Stream]):
    """A listener whose connections are in-memory stream pairs (:meth:`connect` makes one)."""

    def __init__(self) -> None:
        self._send, self._recv = trio.open_memory_channel[trio.abc.Stream](64)
        self.clients: list[Connection] = []

    async def accept(self) -> trio.abc.Stream:
        try:
            return await self._recv.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise trio.ClosedResourceError from None

    async def aclose(self) -> None:
        self._recv.close()

    async def stream(self) -> trio.abc.Stream:
        """A new client stream, its server end handed to the server."""
        client, server = trio.testing.memory_stream_pair()
        await self._send.send(server)
        return client

    async def connect(self, name: str = "ana", role: str = "player") -> Connection:
        """A client :class:`Connection` after the handshake."""
        conn = await greet(await self.stream(), name, role, where="the in-memory server")
        self.clients.append(conn)
        return conn


async def autoplay(conn: Connection, table: str) -> GameOver:
    """Answer every request at ``table`` with its first legal action (the answer built by the
    connection's session) until ``game-over``, returned."""
    while True:
        msg = await conn.receive()
        if isinstance(msg, ActionRequest) and msg.table == table:
            await conn.send(conn.session.answer(table, msg.legal[0]))
        elif isinstance(msg, GameOver) and msg.table == table:
            return msg


@asynccontextmanager
async def memory_server(**config: Any) -> AsyncIterator[MemoryListener]:
    """A real server on in-memory streams; the toy game ``first-to-three`` registered meanwhile.
    The clients made with :meth:`MemoryListener.connect` are closed before the server stops."""
    config.setdefault("shutdown_grace", 0.3)
    config.setdefault("log_dir", None)
    game_registry.get_game("quinze")
    register_game(FirstToThree)
    listener = MemoryListener()
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(functools.partial(run_server, ServerConfig(host="memory", port=0, **config),
                                                  listeners=[listener]))
            try:
                yield listener
            finally:
                with trio.CancelScope(shield=True):
                    for conn in listener.clients:
                        await trio.aclose_forcefully(conn.stream)
            nursery.cancel_scope.cancel()
    finally:
        game_registry._GAMES.pop(TOY, None)
