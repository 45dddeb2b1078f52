"""``create-table.seat_move_times`` (PROTOCOL.md): a seat's own time per decision (the real server on in-memory streams)."""

from __future__ import annotations

import trio
from netclient import NetClient
from serverkit import create, seated_pair, memory_serving


async def _deadlines(a: NetClient, b: NetClient, table: str) -> dict[int, set[float]]:
    """The deadline of each action-request by seat over one game, each seat answering its first
    legal action."""
    seen: dict[int, set[float]] = {0: set(), 1: set()}

    async def seat(client: NetClient) -> None:
        while True:
            msg = await client.recv(10.0)
            if msg.get("table") != table:
                continue
            if msg["type"] == "action-request":
                seen[msg["seat"]].add(float(msg["deadline"]))
                await client.send({"type": "action", "table": table, "request": msg["request"],
                                   "action": msg["legal"][0]})
            elif msg["type"] == "game-over":
                return

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat, a)
            nursery.start_soon(seat, b)
    return seen


async def test_each_seat_gets_its_own_move_time() -> None:
    async with memory_serving(move_time=9.0) as port:
        a, b, table, _ = await seated_pair(port, seat_move_times=[2.5, None])
        seen = await _deadlines(a, b, table)
        assert seen[0] and all(1.5 < d <= 2.5 for d in seen[0]), seen
        assert seen[1] and all(8.0 < d <= 9.0 for d in seen[1]), seen
        c = await NetClient.connect(port, "cy")
        await c.send({"type": "create-table", "game": "first-to-three", "options": {}, "seat_move_times": [1.0]})
        err = await c.recv()
        assert err["code"] == "bad-option" and "seat_move_times: 1 entries for 2 seats" in err["reason"]
        assert await create(c)  # the server goes on
        for x in (a, b, c):
            await x.aclose()
