"""quinze_server.pools: the pages of CPython's free pools go back to the system, and the allocator
goes on working afterwards (the same pools reused, the objects kept intact). Each check runs in a
process of its own: its resident set (/proc/self/statm), its allocator, one thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from quinze_server import pools

pytestmark = pytest.mark.skipif(not pools._supported(), reason="CPython 3.11 with pymalloc on 64-bit Linux only")

_SCRIPT = r"""
import gc, json, os
from quinze_server import pools
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
out = {"located": pools.locate()}
start = rss()
made = [(i, float(i), str(i), [i]) for i in range(300_000)]   # small blocks, in pools of many arenas
played = rss()
kept = made[::1000]  # a few live blocks everywhere: every arena stays, as after the tables closed
del made
gc.collect()
out["freed_rss"] = rss()
out["given"] = pools.release_free()
after = rss()
again = [(i, float(i), str(i), [i]) for i in range(300_000)]   # the free pools reused
out["intact"] = (all(t[2] == str(t[0]) and t[3] == [t[0]] and t[1] == t[0] for t in again)
                 and [t[0] for t in kept] == list(range(0, 300_000, 1000)))
out["reused_growth"] = rss() - after
del again
gc.collect()
out["given_again"] = pools.release_free()
out.update(start=start, played=played, after=after, released=pools.released_bytes())
print(json.dumps(out))
"""


_BOOKS = r"""
import ctypes, struct
from quinze_server import pools
def arenas():
    table = ctypes.c_void_p.from_address(pools._where[0]).value
    return [i for i in range(ctypes.c_uint.from_address(pools._where[1]).value)
            if ctypes.c_uint64.from_address(table + i * 48).value]
def books():
    # CPython's arena bookkeeping as its code relies on it: in each arena, the pools with a block in
    # use number ntotalpools - nfreepools; the usable list holds the arenas with a free pool, sorted
    # by nfreepools; nfp2lasta[n] is the last of them with n free pools. The faults found.
    table = ctypes.c_void_p.from_address(pools._where[0]).value
    faults, free = [], set()
    for i in arenas():
        address, pool_address, nfree, total = struct.unpack("<QQII", ctypes.string_at(table + i * 48, 24))
        first = (address + pools.POOL - 1) & ~(pools.POOL - 1)
        used = sum(1 for p in range(first, min(pool_address, address + pools.ARENA), pools.POOL)
                   if ctypes.c_uint.from_address(p).value)
        if used != total - nfree:
            faults.append(f"arena {i}: {used} pools used, {total} - {nfree}")
        if nfree:
            free.add(i)
    order, at = [], ctypes.c_void_p.from_address(pools._lists[1]).value or 0
    while at and len(order) <= len(free):
        order.append((at - table) // 48)
        at = ctypes.c_uint64.from_address(at + 32).value
    counts = [ctypes.c_uint.from_address(table + i * 48 + 16).value for i in order]
    if set(order) != free or counts != sorted(counts):
        faults.append(f"usable list {order} {counts}")
    last = struct.unpack("<65Q", ctypes.string_at(pools._lists[0], 65 * 8))
    for n in range(65):
        mine = [i for i, c in zip(order, counts) if c == n]
        if last[n] != (table + mine[-1] * 48 if mine else 0):
            faults.append(f"nfp2lasta[{n}]")
    return faults
"""

_DETACH = _BOOKS + r"""
import gc, json, os
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
out = {"located": pools.locate()}
start, arenas_start = rss(), len(arenas())
made = [(i, float(i), str(i), [i]) for i in range(300_000)]   # small blocks, in pools of many arenas
played, arenas_played = rss(), len(arenas())
kept = made[::1000]  # a few live blocks everywhere: every arena stays, as after the tables closed
del made
gc.collect()
out["detached"] = pools.detach_free()
out["released"] = pools.release_free()
after = rss()
out["faults"] = books()
out["arenas_kept"] = len(arenas())
again = [(i, float(i), str(i), [i]) for i in range(300_000)]   # the allocator goes on
out["intact"] = (all(t[2] == str(t[0]) and t[3] == [t[0]] and t[1] == t[0] for t in again)
                 and [t[0] for t in kept] == list(range(0, 300_000, 1000)))
del again
gc.collect()
out["faults"] += books()
del kept  # the last blocks of the shrunk arenas: CPython frees them whole
gc.collect()
out["faults"] += books()
out.update(start=start, played=played, after=after, arenas_start=arenas_start, arenas_played=arenas_played,
           arenas_end=len(arenas()), total=pools.detached_bytes())
print(json.dumps(out))
"""


def _run(script: str, *args: str, env: dict[str, str] | None = None) -> Any:
    done = subprocess.run([sys.executable, *args, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_free_pools_go_back_to_the_system_and_are_reused_intact() -> None:
    out = _run(_SCRIPT)
    assert out["located"] is True
    growth = out["played"] - out["start"]
    assert out["freed_rss"] - out["after"] >= growth / 2  # most of it back, though every arena stays
    assert out["given"] >= growth / 2
    assert out["intact"] is True
    assert out["reused_growth"] <= growth  # the same memory again, not more
    assert out["given_again"] > 0 and out["released"] == out["given"] + out["given_again"]


def test_nothing_is_done_while_another_thread_exists_or_under_another_allocator() -> None:
    threaded = _run("import threading, json; from quinze_server import pools; e = threading.Event();"
                    "t = threading.Thread(target=e.wait); t.start(); x = [str(i) for i in range(100000)]; del x;"
                    "r = pools.locate(), pools.release_free(); e.set(); t.join(); print(json.dumps(r))")
    assert threaded == [True, 0]
    env = dict(os.environ, PYTHONMALLOC="malloc")
    assert _run("import json; from quinze_server import pools; print(json.dumps([pools.locate(), pools.release_free()]))",
                env=env) == [False, 0]


def test_free_pools_are_taken_out_of_their_arenas_whole_and_the_arenas_still_freed() -> None:
    """detach_free: the free pools cut from each arena go back whole (the first page too), CPython's
    bookkeeping stays what its code relies on (counted in every arena), the objects stay intact, and
    an arena whose last blocks go is still freed whole (counted: the arenas left)."""
    out = _run(_DETACH)
    assert out["located"] is True
    growth = out["played"] - out["start"]
    assert out["detached"] >= growth * 0.6 and out["total"] == out["detached"]
    assert out["played"] - out["after"] >= growth * 0.6
    assert out["arenas_kept"] == out["arenas_played"]  # each still held by a kept block
    assert out["faults"] == []
    assert out["intact"] is True
    # the shrunk arenas were freed once empty (what is left: the second wave's and this script's own)
    assert out["arenas_end"] <= out["arenas_start"] + (out["arenas_played"] - out["arenas_start"]) // 8
