"""The pong limit over real TCP (PROTOCOL.md "Flow" 7, "Limits"): a client that answered its pings
and then stopped answering is dropped 3 heartbeats after its last message, with ``bye`` saying
so (``no pong for N s``), not at the fourth ping after it: at the default 10 s heartbeat that was
40 s instead of the 30 s written. A client that keeps answering stays.

A real server on loopback with a 1 s heartbeat (its config, as ``ServerConfig.heartbeat``), real
clients. The silence is the server's own figure, in its ``bye``; a loaded machine may make it a
little later than 3.0 s, never the 3.5 s of a check made only at pings (the last pong came half
a heartbeat after its ping)."""

from __future__ import annotations

import math
import re

import trio
from netclient import NetClient
from serverkit import serving

HEARTBEAT = 1.0


async def test_a_client_that_stops_answering_pings_is_dropped_three_heartbeats_after_its_last_pong() -> None:
    async with serving(heartbeat=HEARTBEAT) as port:
        quiet = await NetClient.connect(port, "quiet")
        steady = await NetClient.connect(port, "steady")
        quiet.auto_pong = False
        for _ in range(2):  # answer two pings half a heartbeat late, as a busy client may, then nothing more
            ping = await quiet.recv()
            assert ping["type"] == "ping"
            await trio.sleep(HEARTBEAT / 2)
            await quiet.send({"type": "pong", "nonce": ping["nonce"]})
        got: list[dict] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(steady.recv, math.inf)  # steady answers every ping meanwhile (NetClient's pongs)
            with trio.fail_after(30):
                while True:
                    try:
                        got.append(await quiet.recv())  # the unanswered pings, then bye
                    except EOFError:
                        break
            nursery.cancel_scope.cancel()
        assert [m["type"] for m in got[:-1]] in (["ping"] * 2, ["ping"] * 3) and got[-1]["type"] == "bye", got
        m = re.fullmatch(r"no pong for (\d+\.\d) s", got[-1]["reason"])
        assert m is not None, got[-1]
        # the limit, not the next ping's 3.5 heartbeats (a loaded machine may add a little, not that)
        assert 3 * HEARTBEAT <= float(m.group(1)) < 3.4 * HEARTBEAT, got[-1]
        # steady answered every ping meanwhile: still served
        assert (await steady.request({"type": "list-tables"}, "tables"))["type"] == "tables"
        await quiet.aclose()
        await steady.aclose()
