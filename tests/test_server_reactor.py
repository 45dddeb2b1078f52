"""The server's one reader (server/reactor.py) and a connection's part in it
(``ClientConnection.serve``), on real loopback TCP: a connection is queued again only when it has
something left, so that the next bytes of a client whose last frame took the whole slice are read
when they arrive, not one pass of every other connection later (docs/server-rounds.md, tenth
round)."""

from __future__ import annotations

from typing import Any

import pytest

import quinze_server.connection as connection
from quinze_protocol.framing import encode_frame
from quinze_server.connection import ClientConnection
from quinze_server.reactor import AVAILABLE as REACTOR
from quinze_server.reactor import MORE
from netclient import NetClient
from serverkit import serving

pytestmark = pytest.mark.skipif(not REACTOR, reason="no epoll here: each connection reads its own socket")


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, float]]:
    """Every call of ``serve`` from now on, as ``(connection id, what it returned)``; the slice
    set to 0, so that every frame handled uses up the slice."""
    calls: list[tuple[int, float]] = []
    serve = ClientConnection.serve

    def recorded(self: ClientConnection) -> float:
        after = serve(self)
        calls.append((self.id, after))
        return after

    monkeypatch.setattr(ClientConnection, "serve", recorded)
    monkeypatch.setattr(connection, "SLICE", 0.0)
    return calls


async def test_a_frame_that_used_the_slice_leaves_nothing_queued(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each ping sent alone is answered by one call of ``serve``, which then waits for the next
    bytes (returns 0): before, a frame that used up the slice queued its connection at the end,
    for a call that did not read, so bytes arriving meanwhile waited a whole pass more."""
    servers: list[Any] = []
    async with serving(servers) as port:
        client = await NetClient.connect(port, "ana")
        calls = _spy(monkeypatch)
        for nonce in range(1, 6):
            await client.send({"type": "ping", "nonce": nonce})
            assert (await client.expect("pong"))["nonce"] == nonce
        mine = [after for _, after in calls]
        assert mine.count(0.0) >= 5 and MORE not in mine, calls
        await client.aclose()


async def test_frames_read_together_are_answered_in_order_across_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three pings in one write, the slice used up by each: ``serve`` handles one per call (the
    connection queued again while frames are left), every one answered, in order, and the
    connection then waits for its next bytes; a ping sent afterwards is answered too."""
    servers: list[Any] = []
    async with serving(servers) as port:
        client = await NetClient.connect(port, "ana")
        calls = _spy(monkeypatch)
        await client.send_raw(b"".join(encode_frame({"type": "ping", "nonce": n}) for n in (1, 2, 3)))
        assert [(await client.expect("pong"))["nonce"] for _ in range(3)] == [1, 2, 3]
        await client.send({"type": "ping", "nonce": 4})
        assert (await client.expect("pong"))["nonce"] == 4
        mine = [after for _, after in calls]
        assert mine.count(MORE) >= 2 and mine[-1] == 0.0, calls
        await client.aclose()


async def test_a_flood_queued_again_lets_the_others_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client whose one write holds thousands of frames is queued again after each turn
    (``MORE``); the epoll is then looked at before its next turn, so another client's ping sent
    after the flood is served while the flood is still being read, not after it (the reactor
    looks at its epoll only once a backlog is served, unless a connection was queued again)."""
    servers: list[Any] = []
    async with serving(servers, cpu_share=1.0, cpu_burst=100.0) as port:  # no connection held: only the turns
        flood, other = await NetClient.connect(port, "ana"), await NetClient.connect(port, "bob")
        calls = _spy(monkeypatch)
        await flood.send_raw(b"".join(encode_frame({"type": "ping", "nonce": n}) for n in range(5000)))
        await other.send({"type": "ping", "nonce": 1})
        assert (await other.expect("pong"))["nonce"] == 1
        for n in range(5000):
            assert (await flood.expect("pong"))["nonce"] == n
        ids = [cid for cid, _ in calls]
        flood_id = next(cid for cid, after in calls if after == MORE)
        other_id = next(cid for cid in ids if cid != flood_id)
        last_flood_turn = max(i for i, (cid, after) in enumerate(calls) if cid == flood_id and after == MORE)
        assert ids.index(other_id) < last_flood_turn, calls[:20]
        await flood.aclose()
        await other.aclose()
