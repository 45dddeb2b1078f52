"""What a server lets go once its last open table closed (quinze_server.collector.release, run
by the Reclaimer before its trim): the games' caches (quinze_protocol.caches), the heartbeat
entries of ended connections, and trio's stale deadlines. Each was filled while tables played and
would keep a piece of their memory from going back to the system (docs/server-rounds-early.md, "Memory
returned"). Checked by the sizes of those structures themselves, on a real server."""

from __future__ import annotations

import functools
from typing import Any

import trio

from quinze_protocol import caches
from quinze_protocol.game import get_game
from quinze_protocol.rng import Rng
from quinze_server.app import run_server
from quinze_server.config import ServerConfig
from quinze_server.scheduling import prune_deadlines
from netclient import NetClient
from serverkit import play_pair, seated_pair


def test_clear_all_empties_every_cache_a_game_filled() -> None:
    caches.clear_all()
    for game_id in ("quinze", "quatorze"):
        game = get_game(game_id).new({}, seed=7)
        rng = Rng(7)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.below(len(legal))])
    filled = caches.sizes()
    assert filled["quinze_legal._FLEX_CACHE"] > 0 and filled["quatorze_legal._SHAPES"] > 0
    assert filled["quinze_partitions._TABLES"] > 0  # (registered: it was not when it came, and kept its entries after the close)
    assert caches.clear_all() == sum(filled.values())
    assert set(caches.sizes().values()) == {0}


async def test_prune_deadlines_drops_the_entries_of_scopes_that_ended_early() -> None:
    for _ in range(5):
        with trio.move_on_after(3600):  # ends at once: its deadline stays in trio's heap
            await trio.lowlevel.checkpoint()
    assert prune_deadlines() >= 5
    assert prune_deadlines() == 0


async def test_the_last_table_closing_empties_the_caches_and_the_heartbeats_of_ended_connections() -> None:
    caches.clear_all()
    servers: list[Any] = []
    async with trio.open_nursery() as nursery:
        serve = functools.partial(run_server, on_server=servers.append)
        port = await nursery.start(serve, ServerConfig(host="127.0.0.1", port=0, shutdown_grace=0.3))
        server = servers[0]
        for name in ("gone1", "gone2"):  # ended connections: their heartbeat entries stay until due
            client = await NetClient.connect(port, name)
            await client.aclose()
        a, b, first, _ = await seated_pair(port, game="quinze", games=1)
        c, d, second, _ = await seated_pair(port, game="quinze", games=1, names=("cy", "dee"))
        await play_pair(a, b, first)
        await a.expect("table-closed", table=first)
        assert sum(caches.sizes().values()) > 0  # a table is still open: nothing let go
        assert server.reclaimer.released == 0
        await play_pair(c, d, second)
        await c.expect("table-closed", table=second)
        with trio.fail_after(30):  # a guard, not a measure
            while server.reclaimer.released == 0:
                await trio.sleep(0.05)
        assert set(caches.sizes().values()) == {0}
        assert len(server.heartbeats) == len(server.connections) == 4  # one ping entry per live connection
        for client in (a, b, c, d):
            await client.aclose()
        nursery.cancel_scope.cancel()
