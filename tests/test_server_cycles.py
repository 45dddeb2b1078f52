"""What the collector sees of a served process (the load bench's server, tuned as ``quinze serve``
tunes it, driven over real TCP on loopback): tables and connections leave no cyclic garbage when
they end, so freezing the survivors of each collection (quinze_server.collector) keeps nothing
that a sweep would have to find; the objects a collection walks stay under the young threshold
(about the young threshold's worth) however many tables play, while the tables' objects are
tracked, frozen; the objects per table
and per idle connection stay bounded. Counts are asserted, never durations."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from quinze_cli.bench.load_client import Run, ServerProcess, Size, close_tables, connect, raise_fd_limit, seat

TREE = Path(__file__).resolve().parent.parent


async def _settled(server: ServerProcess, connections: int) -> dict[str, Any]:
    """The server's stats once it holds ``connections`` and no open table (within 30 s)."""
    for _ in range(300):
        stats = await server.ask("stats")
        if stats["connections"] == connections and stats["open_tables"] == 0:
            return stats
        await asyncio.sleep(0.1)
    raise AssertionError(f"the server still holds {stats['connections']} connections, {stats['open_tables']} tables")


def test_tables_and_connections_that_end_leave_no_cyclic_garbage() -> None:
    async def main() -> dict[str, Any]:
        tables, idle = 20, 10
        run = Run(Size(tables, 2 * tables + idle), seed=7)
        run.measuring = True  # the moves are counted
        async with ServerProcess(TREE, stock_gc=False) as server:
            lobby = await connect(server, run, [f"idle{i}" for i in range(idle)])
            assert await server.ask("cycles-start") == {}
            players = await connect(server, run, [f"p{i}" for i in range(2 * tables)])
            await asyncio.gather(*(seat(players[2 * i], players[2 * i + 1]) for i in range(tables)))
            while run.actions < 40 * tables:  # a few games' worth of moves at every table
                await asyncio.sleep(0.05)
            await close_tables(run, players)
            await _settled(server, idle)
            found = await server.ask("cycles")
            assert run.error_count == 0, run.errors
            del lobby
            return found

    found = asyncio.run(asyncio.wait_for(main(), 120))
    # 20 tables played and closed, 40 connections ended: not one object left in a cycle (before the
    # partitions' closure was let go, 729 objects for 100 tables).
    assert found["objects"] == 0, found


def test_a_collection_walks_what_is_young_and_the_tables_are_frozen() -> None:
    async def main() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], Run]:
        tables, idle = 100, 100
        raise_fd_limit(2 * (2 * tables + idle) + 64)
        run = Run(Size(tables, 2 * tables + idle), seed=8)
        run.measuring = True
        async with ServerProcess(TREE, stock_gc=False) as server:
            start = await server.ask("objects")
            lobby = await connect(server, run, [f"idle{i}" for i in range(idle)])
            await asyncio.sleep(0.3)
            idled = await server.ask("objects")
            players = await connect(server, run, [f"p{i}" for i in range(2 * tables)])
            await asyncio.gather(*(seat(players[2 * i], players[2 * i + 1]) for i in range(tables)))
            while run.actions < 10 * tables:
                await asyncio.sleep(0.05)
            await server.ask("objects")  # one collection: what it leaves alive is frozen
            # The tables play on for two moves each: a count of moves, not a time, so that a
            # quiet machine (more moves in a given time) walks no more than a loaded one.
            moved = run.actions + 2 * tables
            while run.actions < moved:
                await asyncio.sleep(0.01)
            playing = await server.ask("objects")
            del lobby
            return start, idled, playing, run

    start, idled, playing, run = asyncio.run(asyncio.wait_for(main(), 120))
    assert run.error_count == 0, run.errors
    # Walked: what was made since the last collection (two moves a table: the games' states renewed
    # by their moves, at most their live objects); the tables' and connections' objects are frozen.
    assert playing["tracked"] * 3 < playing["frozen"] - idled["frozen"], playing
    assert playing["frozen"] > idled["frozen"] > start["frozen"]  # tracked, and never walked again

    def every(o: dict[str, Any]) -> int:
        return int(o["tracked"] + o["frozen"])

    per_idle = (every(idled) - every(start)) / 100
    per_table = (every(playing) - every(idled)) / 100  # its two players' connections included
    assert per_idle <= 40, per_idle  # 34 at the start of the sixth round of issue 16
    assert per_table <= 200, per_table  # 168 then
