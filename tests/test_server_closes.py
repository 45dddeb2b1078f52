"""Many connections ending at once (issue 16; docs/server.md "Connections in bulk"): the log's
connection lines are bounded (server/connlog.py) and the reactor ends at most
``quinze_server.reactor.CLOSES`` connections per round (server/reactor.py), on real loopback TCP
against a real server. Counts only, never a duration."""

from __future__ import annotations

import logging
import re
import socket
import struct
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from quinze_protocol.framing import encode_frame
from quinze_server.connlog import RATE, WINDOW
from quinze_server.reactor import AVAILABLE as REACTOR
from quinze_server.reactor import CLOSES
from quinze_server.server import Server
from netclient import NetClient
from serverkit import TOY, create, serving

HELLO = encode_frame({"type": "hello", "version": 1, "name": "churn", "role": "player"})
CLOSED = "the client closed the connection"
SUMMARY = re.compile(r"\.\.\. and (\d+) more connections closed in the last (?:second|[\d.]+ s) \((.*)\)$")
CONNECTED = re.compile(r"\.\.\. and (\d+) more clients connected in the last (?:second|[\d.]+ s) \((.*)\)$")


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "quinze.server"]


def _closes(lines: list[str]) -> tuple[Counter[str], Counter[str]]:
    """The connection ends the lines say: ``(written one by one, summed up)``, each by reason."""
    written: Counter[str] = Counter()
    summed: Counter[str] = Counter()
    for line in lines:
        m = re.match(r"\S+ \(\S+\) disconnected: (.*)$", line)
        if m:
            written[m[1]] += 1
        elif m := SUMMARY.match(line):
            for part in m[2].split("; "):
                n, why = part.split(": ", 1)
                summed[why] += int(n)
    return written, summed


def _connects(lines: list[str]) -> int:
    return sum(" connected as " in line for line in lines) + sum(int(m[1]) for line in lines if (m := CONNECTED.match(line)))


async def _until(done: Callable[[], bool], what: str, limit: float = 60.0) -> None:
    with trio.move_on_after(limit):  # a safety net: the counts, not the time, are the test
        while not done():
            await trio.sleep(0.01)
        return
    raise AssertionError(f"not reached: {what}")


async def _burst(port: int, n: int) -> list[trio.socket.SocketType]:
    """``n`` connections, each greeted (its ``welcome`` read)."""
    socks = []
    for _ in range(n):
        s = trio.socket.socket()
        await s.connect(("127.0.0.1", port))
        await s.send(HELLO)
        socks.append(s)
    for s in socks:
        got = b""
        while b"welcome" not in got:
            chunk = await s.recv(65536)
            assert chunk, "closed before its welcome"
            got += chunk
    return socks


async def _greeted(port: int, n: int, caplog: pytest.LogCaptureFixture) -> list[trio.socket.SocketType]:
    """:func:`_burst`, then the window of their connection lines is over: the next line starts one."""
    before = _connects(_lines(caplog))
    socks = await _burst(port, n)
    await _until(lambda: _connects(_lines(caplog)) - before == n, "every connection said or summed up")
    await trio.sleep(WINDOW)
    return socks


def _close_wait(port: int) -> int:
    """Sockets of the server at ``port`` in CLOSE_WAIT: the client closed, the server never did."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, _, state = row.split()[1:4]
            if int(local.rsplit(":", 1)[1], 16) == port and state == "08":
                count += 1
    return count


async def test_a_burst_of_closes_gives_its_first_lines_and_a_summary_that_counts_every_one(
        caplog: pytest.LogCaptureFixture) -> None:
    """120 connections end at once, for three reasons: the first ``RATE`` lines are written as
    they come, the others are summed up in one line per window, by reason, and every end is in
    the log either way (on main before bounding the lines: 120 lines, no summary)."""
    caplog.set_level(logging.INFO, logger="quinze.server")
    servers: list[Server] = []
    async with serving(servers) as port:
        socks = await _greeted(port, 120, caplog)
        mark = len(_lines(caplog))
        for i, s in enumerate(socks):
            if i % 4 == 1:  # says bye, then closes
                await s.send(encode_frame({"type": "bye"}))
            elif i % 4 == 3:  # resets (linger 0)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        for s in socks:
            s.close()
        want = {CLOSED: 60, "said bye": 30, "connection lost": 30}

        def told() -> int:
            written, summed = _closes(_lines(caplog)[mark:])
            return sum(written.values()) + sum(summed.values())

        await _until(lambda: told() == 120, "every end said or summed up")
        await trio.sleep(0.2)
        lines = _lines(caplog)[mark:]
    written, summed = _closes(lines)
    assert written + summed == Counter(want), (written, summed)
    assert lines[:RATE] == [line for line in lines[:RATE] if " disconnected: " in line], lines[:RATE]  # the first as they come
    summaries = sum(bool(SUMMARY.match(line)) for line in lines)
    assert 1 <= summaries and sum(written.values()) <= RATE * summaries, (summaries, written)
    assert not [line for line in lines if " disconnected: " in line and "more connections" in line]


async def test_what_is_counted_when_the_server_stops_is_said(caplog: pytest.LogCaptureFixture) -> None:
    """Ends counted in a window that has not ended when the server stops are summed up at the
    stop: the log loses none."""
    caplog.set_level(logging.INFO, logger="quinze.server")
    servers: list[Server] = []
    async with serving(servers) as port:
        socks = await _greeted(port, 50, caplog)
        servers[0].connlog.window = 3600.0  # this window ends long after the server
        mark = len(_lines(caplog))
        for s in socks:
            s.close()
        await _until(lambda: not servers[0].connections, "every connection ended")
        written, summed = _closes(_lines(caplog)[mark:])
        assert sum(written.values()) == RATE and not summed
    lines = _lines(caplog)[mark:]
    written, summed = _closes(lines)
    assert written + summed == Counter({CLOSED: 50}), lines
    assert any(line.startswith("... and 30 more connections closed in the last 3600 s") for line in lines), lines


@pytest.mark.skipif(not REACTOR, reason="no epoll here: each connection's task reads and ends by itself")
async def test_a_connection_is_answered_while_a_burst_of_closes_is_ended(caplog: pytest.LogCaptureFixture) -> None:
    """800 clients close at once; once the server has begun ending them, one that was there
    pings: its pong comes within a few rounds of the reactor's (``CLOSES`` ends per round, the
    frames of the others served between), not after the burst's cleanups, and then every one is
    ended, none left half-closed. Counted in connections ended while the ping waited: 28-48 in
    five runs; on main before the queue of ends, 425-617 (every closed connection was cancelled in
    the reactor's first rounds and their cleanups ran in the next batches, the ping read after
    them)."""
    caplog.set_level(logging.WARNING, logger="quinze.server")  # (the log's own cost aside)
    n = 800
    servers: list[Server] = []
    async with serving(servers) as port:
        watcher = await NetClient.connect(port, "watcher")
        socks = await _burst(port, n)
        server = servers[0]
        assert len(server.connections) == n + 1
        for s in socks:
            s.close()
        await _until(lambda: len(server.connections) <= n + 1 - CLOSES, "the first ends")
        before = len(server.connections)
        await watcher.send({"type": "ping", "nonce": 7})
        assert (await watcher.expect("pong"))["nonce"] == 7
        ended = before - len(server.connections)
        assert ended <= 6 * CLOSES, ended  # a few rounds' ends, not the burst's
        await _until(lambda: len(server.connections) == 1, "every closed connection ended")
        await trio.sleep(0.1)
        assert _close_wait(port) == 0  # every socket of the burst closed on the server's side too
        assert server.reactor is not None and server.reactor.ended >= n
        await watcher.send({"type": "ping", "nonce": 8})
        assert (await watcher.expect("pong"))["nonce"] == 8


async def test_a_seat_whose_player_dropped_in_a_burst_is_held_as_before() -> None:
    """A player whose connection ends among 200 others during a game: the other player is told
    (``notice`` ``disconnected``), the seat is held, and its token takes it back."""
    async with serving() as port:
        a = await NetClient.connect(port, "ana")
        b = await NetClient.connect(port, "bob")
        table = await create(a, TOY)
        await a.request({"type": "join", "table": table, "seat": 0}, "joined")
        jb = await b.request({"type": "join", "table": table, "seat": 1}, "joined")
        await a.expect("action-request")
        socks = await _burst(port, 200)
        for s in socks[:100]:
            s.close()
        b.stream.socket.close()  # (the stream is not used again)
        for s in socks[100:]:
            s.close()
        gone = await a.expect("notice", kind="disconnected", timeout=30)
        assert gone["seat"] == 1
        b2 = await NetClient.connect(port, "bob")
        back: dict[str, Any] = await b2.request({"type": "join", "table": table, "token": jb["token"]}, "joined")
        assert back["seat"] == 1 and back.get("resumed") is True
        assert (await a.expect("notice", kind="reconnected"))["seat"] == 1
