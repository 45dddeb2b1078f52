"""quinze_server.collector: tune (the collector stays on, start-up objects are frozen, thresholds
set; in a child process: the collector's settings belong to the whole process), and the
Reclaimer's trims after many tables or connections ended, or the last open table closed; tune
loads the games before it freezes."""

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
from serverkit import play_pair, seated_pair, serving


def test_tune_freezes_start_up_and_keeps_collecting() -> None:
    code = (
        "import gc, json; from quinze_server.collector import tune; import quinze_server.app; tune();"
        "a = []; a.append(a); del a;"  # a cycle made after start-up is still found
        "print(json.dumps([gc.isenabled(), gc.get_freeze_count(), gc.get_threshold(), gc.collect()]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    enabled, frozen, threshold, found = json.loads(out.stdout)
    assert enabled is True and frozen > 1000 and tuple(threshold) == THRESHOLDS and found >= 1


def test_tune_freezes_what_survives_a_collection_and_a_sweep_finds_its_cycles() -> None:
    """After tune, an object alive at a collection is frozen (no later collection walks it); a
    cycle among frozen objects is found by sweep, which freezes the rest again."""
    code = (
        "import gc, json; from quinze_server.collector import tune, sweep; import quinze_server.app; tune();"
        "a = []; a.append(a); gc.collect(); walked = any(o is a for o in gc.get_objects()); frozen = gc.get_freeze_count();"
        "del a; found = gc.collect(); swept = sweep();"
        "print(json.dumps([gc.isenabled(), walked, found, swept, gc.get_freeze_count() > frozen // 2, len(gc.get_objects()) < 100]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    enabled, walked, found, swept, refrozen, few = json.loads(out.stdout)
    assert enabled is True and walked is False
    assert found == 0 and swept >= 1  # the dropped cycle: not seen by a collection, found by the sweep
    assert refrozen and few  # what the sweep left alive is frozen again


_RENEWED = """
import gc, json, trio
from trio.testing import MockClock
from quinze_server.collector import tune, young_collections
import quinze_server.app
tune()
kept = [[i] for i in range(20_000)]  # a game state's objects, frozen at the next collection
gc.collect()
async def main(task):
    async with trio.open_nursery() as nursery:
        if task:
            nursery.start_soon(young_collections, 0.01)
        for start in range(0, 20_000, 1_000):  # each move renews some: a frozen one freed, a new one made
            for i in range(start, start + 1_000):
                kept[i] = [i]
            await trio.sleep(0.02)
        print(json.dumps([gc.get_count()[0], len(gc.get_objects())]))
        nursery.cancel_scope.cancel()
trio.run(main, TASK, clock=MockClock(autojump_threshold=0))
"""


@pytest.mark.parametrize("task", [False, True])
def test_collections_walk_a_bounded_set_while_frozen_objects_are_renewed(task: bool) -> None:
    """A frozen object's death lowers the count towards the next young collection, so renewing
    objects keeps the count low while what the next collection would walk grows: 20,000 renewed
    objects, the count near zero. With young_collections running (as in quinze serve's server), a
    collection comes anyway and what is left to walk stays small."""
    code = _RENEWED.replace("TASK", repr(task))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    count, unfrozen = json.loads(out.stdout)
    assert count < 2_000  # the count alone would not have started a collection
    if task:
        assert unfrozen < 3_000
    else:
        assert unfrozen >= 19_000


async def test_the_reclaimer_sweeps_after_many_ends_tables_open_or_not(autojump_clock: Any) -> None:
    async with trio.open_nursery() as nursery:
        reclaimer = Reclaimer(nursery, after=3, quiet=0.5, idle=lambda: False)
        reclaimer.sweep_after = 7
        for _ in range(6):
            reclaimer.ended()
        await trio.sleep(5)
        assert reclaimer.sweeps == 0  # a trim after 3 ends, no sweep yet
        for _ in range(3):  # the next trim comes after 9 ends: it sweeps first
            reclaimer.ended()
        await trio.sleep(5)
        assert reclaimer.sweeps == 1
        for _ in range(6):
            reclaimer.ended()
        await trio.sleep(5)
        assert reclaimer.sweeps == 1  # counted again from zero
        nursery.cancel_scope.cancel()


def test_tune_loads_the_games_before_freezing() -> None:
    """The games' modules are imported by tune, not by the first create-table: they live as long
    as the process, and are frozen with the rest of start-up."""
    code = (
        "import gc, json, sys; import quinze_server.app; before = 'quinze_protocol.games' in sys.modules;"
        "from quinze_server.collector import tune; tune(); import quinze_protocol.games.quinze as q;"
        "print(json.dumps([before, any(o is q.__dict__ for o in gc.get_objects())]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    before, walked = json.loads(out.stdout)
    assert before is False  # what the test is about: the server alone does not import them
    assert walked is False  # frozen: the collector no longer sees the game module's namespace


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


async def test_the_reclaimer_trims_when_the_last_table_closed(autojump_clock: Any) -> None:
    glibc = trim()
    open_tables = [2]
    async with trio.open_nursery() as nursery:
        reclaimer = Reclaimer(nursery, after=100, quiet=0.5, idle=lambda: open_tables[0] == 0)
        open_tables[0] = 1
        reclaimer.ended(table=True)
        reclaimer.ended()  # a connection: tables are still open
        await trio.sleep(5)
        assert reclaimer.trims == 0
        open_tables[0] = 0
        reclaimer.ended()  # a connection ends on a server without tables: not a reason to trim
        await trio.sleep(5)
        assert reclaimer.trims == 0
        reclaimer.ended(table=True)  # the last open table closed
        await trio.sleep(1)
        assert reclaimer.trims == (1 if glibc else 0)
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


async def test_a_server_trims_once_its_last_table_closed() -> None:
    """One table, far fewer ends than TRIM_AFTER: the trim comes when it closes (a real server)."""
    if not trim():
        pytest.skip("no malloc_trim in this C library")
    servers: list[Any] = []
    async with serving(servers) as port:
        a, b, table, _ = await seated_pair(port, games=1)
        await play_pair(a, b, table)
        await a.expect("table-closed", table=table)
        with trio.fail_after(30):  # a guard, not a measure
            while servers[0].reclaimer.trims == 0:
                await trio.sleep(0.05)
        await a.aclose()
        await b.aclose()


def test_tune_looks_up_malloc_trim_at_start_up() -> None:
    """Its ctypes objects belong to start-up (frozen), not to the first trim after tables played."""
    code = (
        "import json; import quinze_server.collector as c; before = c._malloc_trim; c.tune();"
        "print(json.dumps([before is None, c._malloc_trim is not None]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout) == [True, True]
