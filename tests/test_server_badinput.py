"""Bad input never hurts the server: after each case a fresh table still plays to the end
(PROTOCOL.md "Framing", "Error codes"). The real server on in-memory streams, but for a client
that stops reading, which needs a real socket's buffers, and bursts of frames read by the
server's one reader of sockets (loopback TCP)."""

from __future__ import annotations

import socket
import struct

import msgpack
import trio
from netclient import NetClient
from serverkit import TOY, create, play_pair, second_table_plays, seated_pair, memory_serving, serving


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


async def test_partial_frames_then_the_client_vanishes() -> None:
    async with memory_serving() as port:
        for data in (b"\x00", b"\x00\x00\x00", b"\x00\x00\x00\x10\x81", frame(msgpack.packb({"type": "list-tables"}))[:-1]):
            c = await NetClient.connect(port, "gone")
            await c.send_raw(data)
            await c.aclose()
        # a seated player vanishing mid-frame during a game: its seat is kept, the clock runs
        a, b, table, _ = await seated_pair(port, move_time=0.3)
        await b.send_raw(b"\x00\x00\x01\x00partial")
        await b.aclose()
        over = await a.expect("game-over")
        assert over["forfeit"]["kind"] == "timeout"
        await second_table_plays(port)


async def test_oversized_length_prefix_is_fatal() -> None:
    async with memory_serving(max_frame=4096) as port:
        c = await NetClient.connect(port, "big")
        await c.send_raw(struct.pack(">I", 4097))  # refused on the prefix, before any body
        rest = await c.until_closed()
        assert [m["type"] for m in rest] == ["error", "bye"]
        assert rest[0]["code"] == "frame-too-large" and "4097" in rest[0]["reason"]
        assert rest[1] == {"type": "bye", "reason": "frame-too-large"}
        await c.aclose()
        c = await NetClient.connect(port, "huge")
        await c.send_raw(b"\xff\xff\xff\xff" + b"x" * 10_000)
        rest = await c.until_closed()
        assert rest[0]["code"] == "frame-too-large" and rest[-1]["type"] == "bye"
        await c.aclose()
        await second_table_plays(port)


async def test_not_msgpack_is_fatal_but_not_a_map_is_not() -> None:
    async with memory_serving() as port:
        c = await NetClient.connect(port, "junk")
        await c.send_raw(frame(msgpack.packb([1, 2, 3])))
        err = await c.recv()
        assert err["type"] == "error" and err["code"] == "not-a-map"
        await c.send_raw(frame(msgpack.packb({1: "int key"})))
        assert (await c.recv())["code"] == "not-a-map"
        await c.send_raw(frame(msgpack.packb({"no": "type"})))
        assert (await c.recv())["code"] == "missing-type"
        assert (await c.request({"type": "list-tables"}, "tables"))["tables"] == []  # still served
        await c.send_raw(frame(b"\xc1"))  # 0xc1 is never used in msgpack
        rest = await c.until_closed()
        assert [m["type"] for m in rest] == ["error", "bye"] and rest[0]["code"] == "not-msgpack"
        assert rest[1]["reason"] == "not-msgpack"
        await c.aclose()
        c = await NetClient.connect(port, "junk2")
        await c.send_raw(frame(msgpack.packb({"type": "ping", "nonce": 1}) + b"\x01"))  # trailing bytes
        rest = await c.until_closed()
        assert rest[0]["code"] == "not-msgpack"
        await c.aclose()
        await second_table_plays(port)


async def test_wrong_field_types_name_the_field() -> None:
    async with memory_serving() as port:
        c = await NetClient.connect(port, name=None)
        await c.send({"type": "hello", "version": "1", "name": "ana", "role": "player"})
        err = await c.recv()
        assert err["code"] == "bad-field" and "hello.version" in err["reason"] and err["ref"] == "hello"
        await c.send({"type": "hello", "version": 1, "name": "", "role": "player"})
        assert "hello.name" in (await c.recv())["reason"]
        await c.send({"type": "hello", "version": 1, "name": "ana", "role": "king"})
        assert "hello.role" in (await c.recv())["reason"]
        await c.send({"type": "hello", "version": 1, "name": "ana", "role": "player"})
        assert (await c.recv())["type"] == "welcome"
        table = await create(c)
        cases = [
            ({"type": "join", "table": table, "seat": "x"}, "join.seat"),
            ({"type": "join", "table": 5}, "join.table"),
            ({"type": "create-table", "game": TOY, "options": [1]}, "create-table.options"),
            ({"type": "create-table", "game": TOY, "options": {}, "games": 0}, "create-table.games"),
            ({"type": "action", "table": table, "request": "1", "action": {"type": "say"}}, "action.request"),
            ({"type": "action", "table": table, "request": 1, "action": {"n": 1}}, "action.action.type"),
            ({"type": "ping", "nonce": True}, "ping.nonce"),
        ]
        for msg, field in cases:
            await c.send(msg)
            err = await c.recv()
            assert err["type"] == "error" and err["code"] == "bad-field" and field in err["reason"], (msg, err)
        listed = (await c.request({"type": "list-tables"}, "tables"))["tables"]
        assert len(listed) == 1 and listed[0]["seats"][0]["name"] is None  # nothing changed
        await c.aclose()
        await second_table_plays(port)


async def test_invalid_utf8_is_an_error_not_a_disconnect() -> None:
    async with memory_serving() as port:
        c = await NetClient.connect(port, "utf")
        # {"type": "list-tables", "x": <str with bytes ff fe>}
        body = b"\x82" + msgpack.packb("type") + msgpack.packb("list-tables") + msgpack.packb("x") + b"\xa2\xff\xfe"
        await c.send_raw(frame(body))
        err = await c.recv()
        assert err["code"] == "bad-utf8"
        assert (await c.request({"type": "list-tables"}, "tables"))["type"] == "tables"
        await c.aclose()
        await second_table_plays(port)


async def test_unknown_message_types() -> None:
    async with memory_serving() as port:
        c = await NetClient.connect(port, "odd")
        for t in ("frobnicate", "welcome", "game-over", ""):
            await c.send({"type": t})
            err = await c.recv()
            assert err["code"] == "unknown-type", err
        await c.send({"type": 7})
        assert (await c.recv())["code"] == "missing-type"
        assert (await c.request({"type": "list-tables"}, "tables"))["type"] == "tables"
        await c.aclose()
        await second_table_plays(port)


async def test_a_client_that_stops_reading_is_dropped_others_play_on() -> None:
    async with serving(send_queue=16, send_timeout=0.5, max_tables_per_connection=50) as port:
        a, b, table, _ = await seated_pair(port)
        maker = await NetClient.connect(port, "maker")
        for _ in range(30):  # many tables make every "tables" answer big
            await create(maker)
        # a spectator with a tiny receive buffer that never reads
        sock = trio.socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        await sock.connect(("127.0.0.1", port))
        stuck = NetClient(trio.SocketStream(sock))
        await stuck.send({"type": "hello", "version": 1, "name": "stuck", "role": "spectator"})
        await stuck.send({"type": "spectate", "table": table})
        with trio.move_on_after(5):
            try:
                await stuck.send_raw(frame(msgpack.packb({"type": "list-tables"})) * 2000)
            except (trio.BrokenResourceError, OSError):
                pass  # already dropped
        # the other players finish their game and the spectator is gone
        over_a, over_b = await play_pair(a, b, table)
        assert over_a == over_b
        with trio.fail_after(5):
            while True:
                tables = (await maker.request({"type": "list-tables"}, "tables"))["tables"]
                if tables[0]["spectators"] == 0:
                    break
                await trio.sleep(0.05)
        await stuck.aclose()
        await maker.aclose()
        await second_table_plays(port)


async def test_bursts_of_frames_on_loopback_are_all_answered() -> None:
    """Loopback TCP (where the server's one reader serves every socket, quinze_server.reactor):
    thousands of frames in one write take longer than a reader's slice, and a client over its
    share of the server's time (costly refused frames) is held a while; what it sent meanwhile,
    and after, is still all read and answered, in order, and a table still plays (a small burst
    allowance: both bursts go over it)."""
    async with serving(cpu_burst=0.005) as port:
        c = await NetClient.connect(port, "burst")
        await c.send_raw(b"".join(frame(msgpack.packb({"type": "ping", "nonce": i})) for i in range(3000)))
        await c.send_raw(b"".join(frame(msgpack.packb({"type": "ping", "nonce": i})) for i in range(3000, 4000)))
        nonces = []
        while len(nonces) < 4000:
            msg = await c.recv(30.0)
            if msg["type"] == "pong":
                nonces.append(msg["nonce"])
        assert nonces == list(range(4000))
        costly = frame(msgpack.packb({"type": "ping", "nonce": 1, "x": [[]] * 20_000}))  # too-many-elements
        for _ in range(4):
            await c.send_raw(costly * 50)
        await c.send({"type": "ping", "nonce": 4000})
        codes = []
        while True:
            msg = await c.recv(30.0)
            if msg["type"] == "pong":
                break
            codes.append(msg.get("code"))
        assert codes == ["too-many-elements"] * 200 and msg["nonce"] == 4000
        await c.aclose()
        await second_table_plays(port)
