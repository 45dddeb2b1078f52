"""The server's console log is for people: no raw dicts, no float noise, no exception class names."""

from __future__ import annotations

import logging

import pytest
import trio
from serverkit import play_pair, seated_pair, memory_serving, serving


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "quinze.server"]


async def test_game_over_lines_say_who_forfeits_and_why(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="quinze.server")
    async with memory_serving() as port:
        a, b, table, _ = await seated_pair(port, move_time=0.2, games=2)
        await play_pair(a, b, table)  # game 1 is played to its end
        await a.expect("game-over", timeout=10)  # game 2: nobody answers, seat 0 times out
        await a.aclose()
        await b.aclose()
        await trio.sleep(0.05)
    lines = _lines(caplog)
    assert f"table {table}: game 1 over: said-three" in lines, lines
    assert f"table {table}: game 2 over: seat 0 (ana) forfeits (timeout)" in lines, lines
    assert not [line for line in lines if "{" in line or "Error)" in line], lines


async def test_a_reset_connection_is_logged_as_connection_lost(caplog: pytest.LogCaptureFixture) -> None:
    import socket
    import struct

    from netclient import NetClient

    caplog.set_level(logging.INFO, logger="quinze.server")
    async with serving() as port:
        c = await NetClient.connect(port, "rst")
        c.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        await c.send({"type": "ping", "nonce": 1})
        await c.aclose()  # linger 0: a reset, not an end of stream
        with trio.fail_after(10):
            while not any(line.startswith("rst (") and "disconnected" in line for line in _lines(caplog)):
                await trio.sleep(0.01)
        shutting = sum("shutting down" in line for line in _lines(caplog))
    assert shutting == 0  # it was dropped while the server ran, not at its end
    gone = [line for line in _lines(caplog) if line.startswith("rst (") and "disconnected" in line]
    assert gone and gone[0].endswith("disconnected: connection lost"), gone
