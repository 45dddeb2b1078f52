"""Shared pieces of the server tests: a server on a free loopback port (:func:`serving`) or on
in-memory streams (:func:`memory_serving`: the conversation tests, no sockets), tables, autoplay.
Every helper takes either (``port``: what the server context yields)."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import trio

from toygame import FirstToThree
from quinze_protocol import registry as game_registry
from quinze_protocol.game import register_game
from quinze_server.app import run_server
from quinze_server.config import ServerConfig
import netclient
from memserver import MemoryListener, memory_server
from netclient import NetClient

TOY = "first-to-three"


@asynccontextmanager
async def serving(servers: list[Any] | None = None, **config: Any) -> AsyncIterator[int]:
    """A real server on 127.0.0.1, any free port; yields the port; stopped (cleanly) on exit.
    The toy game ``first-to-three`` is registered meanwhile, and only meanwhile. ``servers``, if
    given, receives the server object (``quinze_server.server.Server``) once it runs."""
    config.setdefault("shutdown_grace", 0.3)
    game_registry.get_game("quinze")  # the real games are loaded first
    register_game(FirstToThree)
    serve = run_server if servers is None else functools.partial(run_server, on_server=servers.append)
    try:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve, ServerConfig(host="127.0.0.1", port=0, **config))
            try:
                yield port
            finally:  # the clients a test left open are closed before the server stops
                while netclient.OPEN:
                    with trio.CancelScope(shield=True):
                        await trio.aclose_forcefully(netclient.OPEN.pop().stream)
            nursery.cancel_scope.cancel()
    finally:
        game_registry._GAMES.pop(TOY, None)


@asynccontextmanager
async def memory_serving(**config: Any) -> AsyncIterator[MemoryListener]:
    """Like :func:`serving`, the connections on in-memory stream pairs instead of loopback TCP:
    yields the in-memory listener, which :meth:`NetClient.connect` takes in place of a port."""
    async with memory_server(**config) as listener:
        try:
            yield listener
        finally:
            while netclient.OPEN:
                with trio.CancelScope(shield=True):
                    await trio.aclose_forcefully(netclient.OPEN.pop().stream)


async def create(client: NetClient, game: str = TOY, **fields: Any) -> str:
    """Create a table; its id."""
    msg = {"type": "create-table", "game": game, "options": fields.pop("options", {}), **fields}
    created = await client.request(msg, "table-created")
    return created["table"]["table"]


async def seated_pair(port: Any, game: str = TOY, names: tuple[str, str] = ("ana", "bob"), **fields: Any) -> tuple[NetClient, NetClient, str, list[str]]:
    """Two connected clients seated at seats 0 and 1 of a new table; also their tokens."""
    a = await NetClient.connect(port, names[0])
    b = await NetClient.connect(port, names[1])
    table = await create(a, game, **fields)
    ja = await a.request({"type": "join", "table": table, "seat": 0}, "joined")
    jb = await b.request({"type": "join", "table": table, "seat": 1}, "joined")
    return a, b, table, [ja["token"], jb["token"]]


def first_legal(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return legal[0]


async def autoplay(client: NetClient, table: str, pick: Callable[[list[dict[str, Any]]], dict[str, Any]] = first_legal) -> dict[str, Any]:
    """Answer every action-request at ``table`` with ``pick(legal)`` until game-over; returns it."""
    while True:
        msg = await client.recv(10.0)
        if msg.get("table") != table:
            continue
        if msg["type"] == "action-request":
            await client.send({"type": "action", "table": table, "request": msg["request"], "action": pick(msg["legal"])})
        elif msg["type"] == "game-over":
            return msg


async def play_pair(a: NetClient, b: NetClient, table: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both clients play the running game at ``table`` to its end; both game-over messages."""
    out: dict[str, Any] = {}

    async def run(key: str, c: NetClient) -> None:
        out[key] = await autoplay(c, table)

    async with trio.open_nursery() as n:
        n.start_soon(run, "a", a)
        n.start_soon(run, "b", b)
    return out["a"], out["b"]


async def second_table_plays(port: Any) -> None:
    """The server still serves: a fresh table plays a whole game to its end."""
    a, b, table, _ = await seated_pair(port, names=("cy", "di"))
    over_a, over_b = await play_pair(a, b, table)
    assert over_a == over_b and over_a["result"]["reason"] == "said-three"
    await a.expect("table-closed", table=table)
    await a.aclose()
    await b.aclose()
