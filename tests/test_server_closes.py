"""Many connections ending at once (issue 16; docs/server.md "Connections in bulk"): the log's
connection lines are bounded (server/connlog.py), on real loopback TCP against a real server.
Counts only, never a duration."""

from __future__ import annotations

import logging
import re
import socket
import struct
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
import trio

from quinze_protocol.framing import encode_frame
from quinze_server.connlog import RATE, WINDOW
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
