"""quinze_server.collector: tune (the collector stays on, start-up objects are frozen, thresholds
set; in a child process: the collector's settings belong to the whole process), and the
Reclaimer's trims after many tables or connections ended."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from typing import Any

import pytest
import trio

from quinze_server.app import run_server
from quinze_server.collector import THRESHOLDS, TRIM_AFTER, Reclaimer, trim
from quinze_server.config import ServerConfig


def test_tune_freezes_start_up_and_keeps_collecting() -> None:
    code = (
        "import gc, json; from quinze_server.collector import tune; import quinze_server.app; tune();"
        "a = []; a.append(a); del a;"  # a cycle made after start-up is still found
        "print(json.dumps([gc.isenabled(), gc.get_freeze_count(), gc.get_threshold(), gc.collect()]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    enabled, frozen, threshold, found = json.loads(out.stdout)
    assert enabled is True and frozen > 1000 and tuple(threshold) == THRESHOLDS and found >= 1


async def test_the_reclaimer_trims_once_after_a_burst_of_ends(autojump_clock: Any) -> None:
    glibc = trim()  # False where the C library has no malloc_trim: the reclaimer counts no trims
    async with trio.open_nursery() as nursery:
        reclaimer = Reclaimer(nursery, after=3, quiet=0.5)
        reclaimer.ended()
        reclaimer.ended()
        await trio.sleep(5)
        assert reclaimer.trims == 0  # fewer ends than `after`
        for _ in range(10):  # a burst: each end puts the trim off
            reclaimer.ended()
            await trio.sleep(0.1)
        assert reclaimer.trims == 0
        await trio.sleep(1)
        assert reclaimer.trims == (1 if glibc else 0)
        reclaimer.ended()
        await trio.sleep(5)
        assert reclaimer.trims == (1 if glibc else 0)  # counted again from zero
        nursery.cancel_scope.cancel()


async def test_a_server_trims_after_many_connections_ended() -> None:
    if not trim():
        pytest.skip("no malloc_trim in this C library")
    servers: list[Any] = []
    async with trio.open_nursery() as nursery:
        serve = functools.partial(run_server, on_server=servers.append)
        port = await nursery.start(serve, ServerConfig(host="127.0.0.1", port=0, shutdown_grace=0.3))
        streams = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(TRIM_AFTER)]
        for stream in streams:
            await stream.aclose()
        with trio.fail_after(30):  # a guard, not a measure
            while servers[0].reclaimer.trims == 0:
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
