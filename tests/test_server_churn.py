"""Connections opened and closed in bulk, and clients that trickle bytes (issue 16; breaker
report of 2026-12-03, findings 1 and 4): real TCP on loopback, the churning client a real
subprocess. Nothing here asserts a duration: events and counts only, with bounds far from what
a loaded machine gives."""

from __future__ import annotations

import struct
import subprocess
import sys
from typing import Any

import msgpack
import trio

from quinze_server.server import Server
from serverkit import TOY, create, serving
from netclient import NetClient

CHURN = """
import socket, struct, sys
import msgpack
port, rounds = int(sys.argv[1]), int(sys.argv[2])
body = msgpack.packb({"type": "hello", "version": 1, "name": "churn"})
hello = struct.pack(">I", len(body)) + body
for _ in range(rounds):
    socks = []
    for _ in range(50):
        s = socket.create_connection(("127.0.0.1", port)); s.sendall(hello); socks.append(s)
    for s in socks:  # its welcome (or more): the server accepted and greeted it
        assert s.recv(65536)
    for s in socks:
        s.close()
print("done", flush=True)
"""
ROUNDS = 4
"""Rounds of 50 connections the churning client opens, has greeted and closes."""


def _frame(msg: dict[str, Any]) -> bytes:
    body = msgpack.packb(msg)
    return struct.pack(">I", len(body)) + body


async def test_a_client_trickling_an_unfinished_frame_is_dropped_for_its_silence() -> None:
    """Bytes of a frame never finished are no pong and no message: after 3 heartbeats without
    either the client gets bye (no pong) and is dropped, however often its bytes come."""
    async with serving(heartbeat=0.3) as port:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(_frame({"type": "hello", "version": 1, "name": "slow"}))
        await stream.send_all(struct.pack(">I", 1000))  # a frame of 1000 bytes announced, never finished
        received = bytearray()
        closed = False
        with trio.move_on_after(60):  # a safety net: it is dropped after about 1 s
            while not closed:
                try:
                    await stream.send_all(b"\xa1")  # one byte of it every 0.1 s, no pong ever
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    break
                with trio.move_on_after(0.1):
                    while True:
                        data = await stream.receive_some(65536)
                        if not data:
                            closed = True
                            break
                        received += data
        await stream.aclose()
        assert b"no pong for" in received, bytes(received[-200:])
        assert b"bye" in received


async def test_a_playing_table_keeps_playing_while_another_client_churns_connections() -> None:
    """One client opening 50 connections at a time, waiting for each one's ``welcome`` and
    closing them (200 in all) takes no more than the newcomers' share of the server while a
    table is open: the accepting waited for it, and the table played on meanwhile.

    The figure is a count against a count: actions the table played per connection the server
    accepted, greeted and closed meanwhile, whatever the machine's speed (both costs scale with
    the CPU the process gets). With the newcomers' share at 0.1 it was 3.6-3.9 (load 7 on the
    project's 2-core machine); with every connection accepted at once (main before this change,
    the same test) 0.63, the table's rate halved by the churn. The bound, 1.5, is between."""
    servers: list[Server] = []
    async with serving(servers) as port:
        a = await NetClient.connect(port, "ana")
        b = await NetClient.connect(port, "bob")
        table = await create(a, TOY, games=1_000_000)
        await a.request({"type": "join", "table": table, "seat": 0}, "joined")
        await b.request({"type": "join", "table": table, "seat": 1}, "joined")
        servers[0].admission.share = 0.1  # a small share: the newcomers certainly exceed it
        played = {"during": 0}
        churning = {"on": False}

        async def play(c: NetClient) -> None:
            while True:
                msg = await c.recv(60.0)
                if msg.get("type") == "action-request":
                    await c.send({"type": "action", "table": table, "request": msg["request"],
                                  "action": msg["legal"][0]})
                    if churning["on"]:
                        played["during"] += 1

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, a)
            nursery.start_soon(play, b)
            await trio.sleep(0.2)
            churning["on"] = True
            done = await trio.run_process([sys.executable, "-c", CHURN, str(port), str(ROUNDS)], capture_stdout=True,
                                          stderr=subprocess.STDOUT)
            churning["on"] = False
            nursery.cancel_scope.cancel()
        assert done.stdout.strip() == b"done", done.stdout[-500:]
        admission = servers[0].admission
        assert admission.waits > 0  # the newcomers were held to their share
        churned = 50 * ROUNDS
        assert played["during"] >= 1.5 * churned, (played, churned)  # and the table played on meanwhile
        # The server accepts the next newcomer as ever.
        admission.share = 1.0
        c = await NetClient.connect(port, "cy")
        await c.aclose()
