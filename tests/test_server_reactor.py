"""The server's one reader (server/reactor.py) and a connection's part in it
(``ClientConnection.serve``), on real loopback TCP: a connection is queued again only when it has
something left, so that the next bytes of a client whose last frame took the whole slice are read
when they arrive, not one pass of every other connection later (docs/server-rounds.md, tenth
round)."""

from __future__ import annotations

import os
import socket
from typing import Any

import pytest
import trio

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


def _record(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every call of ``serve`` and every write of gathered frames from now on, in order, as
    ``("serve", connection id)`` and ``("write", connection id)``."""
    seen: list[tuple[str, int]] = []
    serve, flush = ClientConnection.serve, ClientConnection.flush

    def served(self: ClientConnection) -> float:
        seen.append(("serve", self.id))
        return serve(self)

    def written(self: ClientConnection) -> None:
        if self._direct:
            seen.append(("write", self.id))
        flush(self)

    monkeypatch.setattr(ClientConnection, "serve", served)
    monkeypatch.setattr(ClientConnection, "flush", written)
    return seen


async def _pings_in_one_round(clients: list[NetClient]) -> None:
    """A ping from each client, written to their sockets without letting the server run in
    between (``os.write`` on the descriptors: no checkpoint), so that the reactor finds them all
    readable at its next look and serves them in one round."""
    for n, c in enumerate(clients):
        os.write(c.stream.socket.fileno(), encode_frame({"type": "ping", "nonce": n}))


@pytest.mark.parametrize("flush", [10.0, 0.0])
async def test_the_replies_of_a_round_are_written_together(monkeypatch: pytest.MonkeyPatch, flush: float) -> None:
    """Four pings read in one round: with the reactor's ``flush`` longer than the round, the four
    pongs are written after the four pings were handled, one write per client, in the order they
    were gathered; with ``flush`` 0 each is written as soon as its ping is handled (the longest a
    reply waits). Every pong arrives, and nothing stays gathered after the round."""
    servers: list[Any] = []
    async with serving(servers) as port:
        clients = [await NetClient.connect(port, name) for name in ("ana", "bob", "cleo", "dan")]
        reactor = servers[0].reactor
        monkeypatch.setattr(reactor, "round", 10.0)
        monkeypatch.setattr(reactor, "flush", flush)
        seen = _record(monkeypatch)
        await _pings_in_one_round(clients)
        for n, c in enumerate(clients):
            assert (await c.expect("pong"))["nonce"] == n
        round_ = seen[:8]
        served = [cid for what, cid in round_ if what == "serve"]
        assert len(served) == 4 and len(set(served)) == 4, seen
        if flush:
            assert round_ == [("serve", cid) for cid in served] + [("write", cid) for cid in served], seen
        else:
            assert round_ == [step for cid in served for step in (("serve", cid), ("write", cid))], seen
        assert servers[0].batch is None
        for c in clients:
            await c.aclose()


async def test_a_failing_connection_in_a_round_does_not_lose_the_others_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a round of three pings, the second connection's handling fails (a bug, simulated): that
    connection is dropped with a "server error while reading", the pongs gathered before and after
    it in the same round are written all the same, and the server serves on."""
    servers: list[Any] = []
    async with serving(servers) as port:
        names = ("ana", "bob", "cleo")
        clients = dict(zip(names, [await NetClient.connect(port, name) for name in names]))
        ids = {conn.id: conn.name for conn in servers[0].connections}
        reactor = servers[0].reactor
        monkeypatch.setattr(reactor, "round", 10.0)
        monkeypatch.setattr(reactor, "flush", 10.0)
        serve = ClientConnection.serve
        order: list[int] = []

        def failing(self: ClientConnection) -> float:
            order.append(self.id)
            if len(order) == 2:
                raise RuntimeError("simulated bug")
            return serve(self)

        monkeypatch.setattr(ClientConnection, "serve", failing)
        await _pings_in_one_round(list(clients.values()))
        with trio.fail_after(10):
            while len(order) < 3:
                await trio.sleep(0.01)
        assert len(set(order[:3])) == 3, order  # the three in one round
        failed = ids[order[1]]
        for name, c in clients.items():
            if name != failed:
                assert (await c.expect("pong"))["type"] == "pong"
        assert all(m["type"] != "pong" for m in await clients[failed].until_closed()), failed
        monkeypatch.setattr(ClientConnection, "serve", serve)
        survivor = next(c for name, c in clients.items() if name != failed)
        await survivor.send({"type": "ping", "nonce": 9})
        assert (await survivor.expect("pong"))["nonce"] == 9
        for c in clients.values():
            await c.aclose()


@pytest.mark.parametrize("first", [{"type": "ping", "nonce": 1}, {"type": "create-table", "game": "first-to-three", "options": {}}])
async def test_the_replies_before_a_bye_in_the_same_read_are_written(first: dict[str, Any]) -> None:
    """A message and a ``bye`` in one write: the reply to the message is gathered in the round,
    then the ``bye`` ends the connection in the same round; the reply still reaches the client
    before the connection closes (as when each message's replies were written at its end)."""
    async with serving() as port:
        client = await NetClient.connect(port, "ana")
        os.write(client.stream.socket.fileno(), encode_frame(first) + encode_frame({"type": "bye", "reason": "done"}))
        got = [m["type"] for m in await client.until_closed()]
        assert got[:1] == [{"ping": "pong", "create-table": "table-created"}[first["type"]]], got


async def test_every_reply_is_written_when_the_input_ends_in_the_same_round() -> None:
    """3,000 pings (more than one read's worth), then the client's half-close: the reads that
    handle the last pings also read the end of the input and end the connection; every pong,
    gathered in those rounds, still arrives, in order, before the server closes."""
    async with serving() as port:
        client = await NetClient.connect(port, "ana")
        await client.stream.send_all(b"".join(encode_frame({"type": "ping", "nonce": n}) for n in range(3000)))
        await client.stream.send_eof()
        pongs = [m["nonce"] for m in await client.until_closed() if m["type"] == "pong"]
        assert pongs == list(range(3000)), (len(pongs), pongs[-3:])


async def test_a_failing_write_in_a_round_drops_only_its_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in one connection's write of its gathered replies (simulated) drops that connection
    ("server error while writing"); the others' replies of the same round are written and the
    reactor serves on."""
    servers: list[Any] = []
    async with serving(servers) as port:
        names = ("ana", "bob", "cleo")
        clients = dict(zip(names, [await NetClient.connect(port, name) for name in names]))
        reactor = servers[0].reactor
        monkeypatch.setattr(reactor, "round", 10.0)
        monkeypatch.setattr(reactor, "flush", 10.0)
        flush = ClientConnection.flush

        def failing(self: ClientConnection) -> None:
            if self.name == "bob" and self._direct:
                raise RuntimeError("simulated bug")
            flush(self)

        monkeypatch.setattr(ClientConnection, "flush", failing)
        await _pings_in_one_round(list(clients.values()))
        for name in ("ana", "cleo"):
            assert (await clients[name].expect("pong"))["type"] == "pong"
        assert all(m["type"] != "pong" for m in await clients["bob"].until_closed())
        monkeypatch.setattr(ClientConnection, "flush", flush)
        await clients["ana"].send({"type": "ping", "nonce": 7})
        assert (await clients["ana"].expect("pong"))["nonce"] == 7
        for c in clients.values():
            await c.aclose()


@pytest.mark.parametrize("pings", [0, 1, 5, 10, 60])
async def test_a_half_close_after_the_last_messages_is_seen_at_once(pings: int) -> None:
    """Messages then a half-close, the FIN in the same event as the last bytes (edge-triggered:
    that event does not come again): every reply arrives and the server closes the connection at
    once, not after the heartbeat's 30 s without a pong (a tester's report: 8-10 runs in 10 held
    for 30 s with up to 10 pings, logged "no pong for 30.0 s")."""
    async with serving() as port:
        client = await NetClient.connect(port, "ana")
        data = b"".join(encode_frame({"type": "ping", "nonce": n}) for n in range(pings))
        # Written and half-closed without letting the server run in between (no checkpoint), as
        # a client in another process does: the reactor finds the bytes and the end together.
        os.write(client.stream.socket.fileno(), data + encode_frame({"type": "list-tables"}))
        client.stream.socket.shutdown(socket.SHUT_WR)
        got = await client.until_closed(timeout=5)  # the heartbeat would drop it after 30 s
        assert [m["nonce"] for m in got if m["type"] == "pong"] == list(range(pings))
        assert [m["type"] for m in got if m["type"] != "pong"] == ["tables"], got
