"""The bare reference server of the load bench (:mod:`quinze_cli.bench.load`): no game, no lobby.

It answers the load generator's messages with frames of the same number and size as the real
server sent for them in the same run (the generator counts what the real server sent its
players per action, :meth:`quinze_cli.bench.load_client.Run.profile`), so that the generator, the
connections, the loopback and the kernel do the same work as against the real server, and the
server's own part is as small as a Python server can make it: plain asyncio protocols (the event
loop's level-triggered epoll, one ``recv`` per readable socket, one ``send`` per connection per
message answered), every frame decoded with msgpack and every answer encoded with msgpack. Its
CPU per action and its throughput, and how they grow from 10 to 500 tables, are what this
machine gives any Python server under that load; the real server's growth is judged against it.

What it does, per message (PROTOCOL.md's message names; fields beyond those the generator reads
are a ``pad`` of bytes to the measured size):

- ``hello`` → ``welcome``; ``create-table`` → ``table-created`` (a new table of two seats);
  ``join`` → ``joined``, and once both seats are taken an ``action-request`` to seat 0;
- ``action`` from the seat asked, quoting the request: ``accepted`` to it, the real server's
  number of other frames per action (its events, and the game boundaries) shared between the two
  seats, each of the real mean size, and an ``action-request`` to the other seat (its ``legal``
  list as long as the real mean, each item a byte string such that the generator's ``action``
  frame has the real mean size); the frames of one seat go in one write;
- ``list-tables`` → one frame of the real listing's mean size; ``pong``: nothing;
  ``leave`` → ``left``, and ``table-closed`` to the other seat;
- every connection gets a ``ping`` every 10 s (the real heartbeat's period).

Run as ``python THIS_FILE PROFILE_JSON`` (only the standard library and msgpack: it is loaded by
path like :mod:`quinze_cli.bench.load_server`); it prints its port on one line of stdout, then
answers the control lines ``stats`` (``{"cpu_s", "user_s", "sys_s", "rss_bytes"}``) and ``quit``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import sys
import time
from typing import Any

import msgpack

PING_EVERY = 10.0
"""Seconds between two pings of one connection (the real server's heartbeat)."""

_pack = msgpack.Packer(use_bin_type=True).pack


def _frame(msg: dict[str, Any]) -> bytes:
    body = _pack(msg)
    return len(body).to_bytes(4, "big") + body


def _pad_to(msg: dict[str, Any], target: float) -> int:
    """The length of the ``pad`` bytes that makes ``msg``'s frame ``target`` bytes long (0 if
    it is already as long)."""
    msg = {**msg, "pad": b""}
    short = int(round(target)) - len(_frame(msg))
    if short <= 0:
        return 0
    return short - (1 if short >= 256 else 0) - (2 if short >= 65_536 else 0)


class Profile:
    """The sizes to answer with, from the real server's figures (:meth:`load_client.Run.profile`)."""

    def __init__(self, p: dict[str, float]) -> None:
        self.other_per_action = p["other_frames_per_action"]
        table, request = "ref-t100", 10_000  # the sizes of this server's ids
        # The generator's action frame: {"type", "table", "request", "action": ITEM}.
        bare = len(_frame({"type": "action", "table": table, "request": request, "action": b""}))
        short = int(round(p["action_bytes"])) - bare
        self.item = b"x" * max(0, short - (1 if short >= 256 else 0))
        self.legal = [self.item] * max(1, int(round(p["legal_items"])))
        self.accepted_pad = b"p" * _pad_to({"type": "accepted", "table": table, "request": request, "number": 1}, p["accepted_bytes"])
        self.request_pad = b"p" * _pad_to({"type": "action-request", "table": table, "request": request, "legal": self.legal},
                                          p["request_bytes"])
        self.other_pad = b"p" * _pad_to({"type": "event", "table": table, "number": 1}, p["other_bytes"])
        self.listing = _frame({"type": "tables", "pad": b"p" * _pad_to({"type": "tables"}, p["listing_bytes"])})


class Table:
    __slots__ = ("id", "seats", "turn", "request", "carry")

    def __init__(self, table_id: str) -> None:
        self.id = table_id
        self.seats: list[Conn | None] = [None, None]
        self.turn = 0
        self.request = 0
        self.carry = 0.0  # the fraction of an "other" frame owed (their number per action is a mean)


class Server:
    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.tables = 0
        self.requests = 0
        self.conns: set[Conn] = set()
        self.by_id: dict[str, Table] = {}

    def ask(self, table: Table) -> bytes:
        self.requests += 1
        table.request = self.requests
        p = self.profile
        return _frame({"type": "action-request", "table": table.id, "request": table.request, "legal": p.legal,
                       "pad": p.request_pad})


class Conn(asyncio.Protocol):
    def __init__(self, server: Server) -> None:
        self.server = server
        self.buf = bytearray()
        self.transport: asyncio.Transport | None = None
        self.table: Table | None = None
        self.seat = -1
        self.ping: asyncio.TimerHandle | None = None
        self.nonce = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a TCP connection's transport
        self.server.conns.add(self)
        self.ping = asyncio.get_running_loop().call_later(random.uniform(0, PING_EVERY), self._ping)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.conns.discard(self)
        if self.ping is not None:
            self.ping.cancel()

    def _ping(self) -> None:
        self.nonce += 1
        self.write(_frame({"type": "ping", "nonce": self.nonce}))
        self.ping = asyncio.get_running_loop().call_later(PING_EVERY, self._ping)

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        pos, end = 0, len(buf)
        while end - pos >= 4:
            n = int.from_bytes(buf[pos : pos + 4], "big")
            if end - pos - 4 < n:
                break
            m = msgpack.unpackb(buf[pos + 4 : pos + 4 + n], raw=False)
            pos += 4 + n
            self.handle(m)
        if pos:
            del buf[:pos]

    def handle(self, m: dict[str, Any]) -> None:
        t = m.get("type")
        server, p = self.server, self.server.profile
        if t == "action":
            table = self.table
            if table is None or table.seats[table.turn] is not self or m.get("request") != table.request:
                self.write(_frame({"type": "refused", "code": "stale-request", "reason": "not asked"}))
                return
            mine = [_frame({"type": "accepted", "table": table.id, "request": table.request, "number": 1, "pad": p.accepted_pad})]
            theirs: list[bytes] = []
            table.carry += p.other_per_action
            for i in range(int(table.carry)):
                (mine if i % 2 == 0 else theirs).append(_frame({"type": "event", "table": table.id, "number": 1,
                                                                "pad": p.other_pad}))
            table.carry -= int(table.carry)
            table.turn = 1 - table.turn
            theirs.append(server.ask(table))
            other = table.seats[table.turn]
            self.write(b"".join(mine))
            if other is not None:
                other.write(b"".join(theirs))
        elif t == "pong":
            return
        elif t == "list-tables":
            self.write(p.listing)
        elif t == "hello":
            self.write(_frame({"type": "welcome", "version": 1, "server": "reference"}))
        elif t == "create-table":
            server.tables += 1
            self.table = Table(f"ref-t{server.tables}")
            server.by_id[self.table.id] = self.table
            self.write(_frame({"type": "table-created", "table": {"table": self.table.id}}))
        elif t == "join":
            table = server.by_id.get(str(m.get("table")))
            if table is None:
                self.write(_frame({"type": "error", "code": "no-such-table", "reason": str(m.get("table"))}))
                return
            self.table, self.seat = table, int(m.get("seat", 0))
            table.seats[self.seat] = self
            self.write(_frame({"type": "joined", "table": table.id, "seat": self.seat}))
            if all(table.seats):
                first = table.seats[0]
                assert first is not None
                first.write(server.ask(table))
        elif t == "leave":
            table = self.table
            self.write(_frame({"type": "left", "table": m.get("table")}))
            if table is not None:
                server.by_id.pop(table.id, None)
                for conn in table.seats:
                    if conn is not None and conn is not self:
                        conn.write(_frame({"type": "table-closed", "table": table.id}))
                        conn.table = None
                self.table = None


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def main(profile: Profile) -> None:
    loop = asyncio.get_running_loop()
    server = Server(profile)
    listener = await loop.create_server(lambda: Conn(server), "127.0.0.1", 0, backlog=1024, family=socket.AF_INET)
    print(listener.sockets[0].getsockname()[1], flush=True)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = (await reader.readline()).decode().strip()
        if line in ("", "quit"):
            os._exit(0)
        if line == "stats":
            times = os.times()
            reply: dict[str, Any] = {"cpu_s": time.process_time(), "user_s": times.user, "sys_s": times.system,
                                     "rss_bytes": _rss(), "connections": len(server.conns)}
        else:
            reply = {"error": f"unknown command {line!r}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main(Profile(json.loads(sys.argv[1]))))
