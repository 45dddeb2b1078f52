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
