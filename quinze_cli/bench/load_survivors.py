"""Diagnosis for the load bench's server: which objects allocated while the tables played are
still alive after they closed, and which of CPython's 1 MiB arenas they keep (docs/server-rounds-early.md,
"Memory returned").

Loaded by :mod:`quinze_cli.bench.load_server` by path (it imports only the standard library) when
``QUINZE_BENCH_TRACEMALLOC=PREFIX`` is in the environment: :func:`start` begins tracing (25
frames) once the idle connections are in the lobby, so that every block traced was allocated
while the tables were set up or played; :func:`report`, after the tables closed, collects, takes
a snapshot, groups the live blocks by traceback, and finds for each group the arenas its blocks sit
in. An arena is found exactly: a small block (512 bytes at most) lies in a 16 KiB pool whose header
(at the pool's aligned start) names its arena's index. The blocks are found by walking every object
reachable from the collector's objects and the modules (:func:`gc.get_referents`), with the
buffers of lists and dicts (their item arrays and key tables, blocks of their own); the share of
the traced bytes so found is reported. CPython 3.11 on 64 bits (pool of 16 KiB, arena of 1 MiB),
Linux (``/proc/self/maps`` tells which addresses are mapped before a pool header is read).
"""

from __future__ import annotations

import bisect
import collections
import ctypes
import gc
import os
import sys
import time
import tracemalloc
from typing import Any

FRAMES = 25
POOL = 1 << 14
_raw_traceback: Any = None


def start(frames: int = FRAMES) -> None:
    """Trace every block allocated from now on (with ``frames`` frames of traceback each)."""
    tracemalloc.start(frames)


def _mapped() -> tuple[list[int], list[int]]:
    starts, ends = [], []
    with open("/proc/self/maps") as f:
        for line in f:
            lo, hi = line.split(None, 1)[0].split("-")
            starts.append(int(lo, 16))
            ends.append(int(hi, 16))
    return starts, ends


def _arena(addr: int, maps: tuple[list[int], list[int]]) -> int | None:
    """The pymalloc arena index of the block at ``addr``, or None if it is not in a pool."""
    pool = addr & ~(POOL - 1)
    i = bisect.bisect_right(maps[0], pool) - 1
    if i < 0 or pool + 48 > maps[1][i]:
        return None
    arena = ctypes.c_uint.from_address(pool + 32).value
    szidx = ctypes.c_uint.from_address(pool + 36).value
    nextoffset = ctypes.c_uint.from_address(pool + 40).value
    maxnext = ctypes.c_uint.from_address(pool + 44).value
    if szidx >= 32 or arena >= 1 << 20 or nextoffset > POOL or maxnext > POOL:
        return None
    return arena


def _buffers(o: object) -> list[int]:
    """Addresses of the separate blocks a list or dict holds (item array; keys and values)."""
    out = []
    if type(o) is list:
        p = ctypes.c_void_p.from_address(id(o) + 24).value
        if p:
            out.append(p)
    elif isinstance(o, dict):
        for off in (32, 40):
            p = ctypes.c_void_p.from_address(id(o) + off).value
            if p:
                out.append(p)
    return out


def _block_traceback(addr: int) -> tracemalloc.Traceback | None:
    global _raw_traceback
    if _raw_traceback is None:
        _raw_traceback = ctypes.pythonapi._PyTraceMalloc_GetTraceback
        _raw_traceback.restype = ctypes.py_object
        _raw_traceback.argtypes = [ctypes.c_uint, ctypes.c_size_t]
    frames = _raw_traceback(0, addr)
    return tracemalloc.Traceback(frames) if frames else None


def mallocstats(also: tuple[str, ...] = (), classes: bool = False) -> list[str]:
    """CPython's small-object allocator summary (``sys._debugmallocstats``, written on C's
    stderr): its lines about arenas and bytes in use, and those holding any of ``also``; with
    ``classes``, the table of size classes too (class, size, pools, blocks in use, free)."""
    import tempfile

    with tempfile.TemporaryFile("w+") as f:
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            sys._debugmallocstats()
            ctypes.CDLL(None).fflush(None)  # C's stderr buffer, into the file
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        return [x for x in f.read().splitlines() if "arena" in x or "bytes in" in x or any(a in x for a in also)
                or (classes and x[:5].strip().isdigit())]


def _site(tb: tracemalloc.Traceback) -> str:
    """The innermost frame of ``tb`` in the project's server or protocol (else the innermost)."""
    for f in reversed(tb):
        if "/server/" in f.filename or "/protocol/" in f.filename:
            return f"{f.filename.rsplit('/', 2)[-2]}/{f.filename.rsplit('/', 1)[-1]}:{f.lineno}"
    return str(tb[-1])


def report(path: str, top: int = 40) -> dict[str, Any]:
    """Collect, then write to ``path`` the groups of live traced blocks (by traceback), the most
    spread over arenas first; returns a summary (``groups``, ``blocks``, ``bytes``, ``arenas``,
    ``found_share``, ``top``: the first groups as ``{"arenas", "count", "kib", "where"}``)."""
    if not tracemalloc.is_tracing():
        return {"error": "not tracing"}
    t0 = time.perf_counter()
    gc.collect()
    snapshot = tracemalloc.take_snapshot()
    here = __file__
    snapshot = snapshot.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, here)])
    stats = {s.traceback: s for s in snapshot.statistics("traceback")}
    phases = [("snapshot", time.perf_counter() - t0)]
    maps = _mapped()
    arenas: dict[tracemalloc.Traceback, set[int]] = collections.defaultdict(set)
    pools: dict[tracemalloc.Traceback, set[int]] = collections.defaultdict(set)  # the pools its blocks keep in use
    found: collections.Counter[tracemalloc.Traceback] = collections.Counter()
    by_arena: dict[int, collections.Counter[tracemalloc.Traceback]] = collections.defaultdict(collections.Counter)
    seen: set[int] = set()  # the traced untracked objects already counted
    blocks: list[tuple[int, tracemalloc.Traceback | None]] = []
    kinds: dict[tracemalloc.Traceback, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    gc.unfreeze()  # the objects frozen at start-up are walked too (what they refer to may be newer)
    gc.disable()
    # Every tracked object is in gc.get_objects(); the untracked ones (strings, numbers, tuples
    # and dicts of those) are found among the referents of tracked ones, then of untracked
    # containers. Few allocations per object: the walk's own blocks are traced too (slowly).
    for o in gc.get_objects() + [sys.modules]:
        tb = tracemalloc.get_object_traceback(o)
        if tb is not None:
            blocks.append((id(o), tb))
            kinds[tb][type(o).__name__] += 1
        if type(o) is list or isinstance(o, dict):
            for p in _buffers(o):
                blocks.append((p, _block_traceback(p)))
        todo = gc.get_referents(o)
        while todo:
            r = todo.pop()
            if gc.is_tracked(r):
                continue
            tb = tracemalloc.get_object_traceback(r)
            if tb is not None and id(r) not in seen:
                seen.add(id(r))
                blocks.append((id(r), tb))
                kinds[tb][type(r).__name__] += 1
                if isinstance(r, dict):
                    for p in _buffers(r):
                        blocks.append((p, _block_traceback(p)))
            if type(r) is tuple or isinstance(r, dict):
                todo.extend(gc.get_referents(r))
    gc.enable()
    phases.append(("walk", time.perf_counter() - t0))
    for addr, tb in blocks:
        if tb is None or tb not in stats:
            continue
        a = _arena(addr, maps)
        found[tb] += 1
        if a is not None:
            arenas[tb].add(a)
            pools[tb].add(addr & ~(POOL - 1))
            by_arena[a][tb] += 1
    total = sum(s.size for s in stats.values())
    found_bytes = sum(stats[tb].size / stats[tb].count * n for tb, n in found.items())
    order = sorted(stats, key=lambda tb: (-len(arenas.get(tb, ())), -stats[tb].size))
    lines = [f"live traced blocks allocated since tracing started: {sum(s.count for s in stats.values())} "
             f"in {len(stats)} tracebacks, {total / 1024:.0f} KiB; found by the walk: "
             f"{sum(found.values())} blocks, {found_bytes / max(total, 1):.0%} of the bytes; "
             f"arenas holding them: {len(by_arena)}"]
    lines.append("seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in phases))
    lines += mallocstats()
    lines.append("")
    lines.append("per arena: blocks found, the three groups with most blocks in it (innermost frame)")
    for a, c in sorted(by_arena.items(), key=lambda kv: -sum(kv[1].values())):
        lines.append(f"arena {a}: {sum(c.values())} blocks; " + "; ".join(f"{n} {tb[-1]}" for tb, n in c.most_common(3)))
    lines.append("")
    every_pool = set().union(*pools.values()) if pools else set()
    lines.append(f"pools holding the blocks found: {len(every_pool)}")
    lines.append("by the innermost frame of the project (server/, protocol/): arenas, pools, blocks live, KiB")
    sites: dict[str, list[Any]] = collections.defaultdict(lambda: [set(), 0, 0, set()])
    for tb, st in stats.items():
        site = _site(tb)
        sites[site][0] |= arenas.get(tb, set())
        sites[site][1] += st.count
        sites[site][2] += st.size
        sites[site][3] |= pools.get(tb, set())
    for site, (ar, n, size, po) in sorted(sites.items(), key=lambda kv: (-len(kv[1][3]), -kv[1][2])):
        lines.append(f"{len(ar):3d} arenas {len(po):4d} pools {n:6d} blocks {size / 1024:8.1f} KiB  {site}")
    lines.append("")
    lines.append("by the innermost frame: pools, blocks live, KiB")
    inner: dict[str, list[Any]] = collections.defaultdict(lambda: [set(), 0, 0])
    for tb, st in stats.items():
        inner[str(tb[-1])][0] |= pools.get(tb, set())
        inner[str(tb[-1])][1] += st.count
        inner[str(tb[-1])][2] += st.size
    for where, (po, n, size) in sorted(inner.items(), key=lambda kv: (-len(kv[1][0]), -kv[1][2]))[:60]:
        lines.append(f"{len(po):4d} pools {n:6d} blocks {size / 1024:8.1f} KiB  {where}")
    lines.append("")
    summary = []
    for tb in order[:top]:
        s = stats[tb]
        what = ", ".join(f"{n} {k}" for k, n in kinds[tb].most_common(4)) if tb in kinds else "buffers"
        lines.append(f"== {len(arenas.get(tb, ()))} arenas, {s.count} blocks live ({found[tb]} found: {what}), {s.size / 1024:.1f} KiB")
        lines.extend("   " + x for x in tb.format(most_recent_first=True))
        where = _site(tb)
        summary.append({"arenas": len(arenas.get(tb, ())), "count": s.count, "kib": round(s.size / 1024, 1), "where": where,
                        "innermost": str(tb[-1])})
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return {"seconds": round(time.perf_counter() - t0, 1), "groups": len(stats), "blocks": sum(s.count for s in stats.values()), "bytes": total,
            "arenas": len(by_arena), "found_share": round(found_bytes / max(total, 1), 2), "top": summary[:10]}


def residency(where: list[int] | None) -> dict[str, Any]:
    """Where the resident set is, counted (no timing): for CPython's allocated arenas (``where``:
    the addresses of its ``arenas`` and ``maxarenas`` variables, as ``quinze_server.pools``
    located them; None: not counted), how many there are, their pools in use and free (of their
    total) and their resident KiB (``mincore``: the pages the kernel holds for them); glibc's own
    heap (``mallinfo2``: KiB in use, free, and in chunks mapped on their own); the process's
    resident KiB. ``{"rss_kib", "arenas": {"n", "pools_used", "pools_free", "resident_kib",
    "resident_free_kib", "empty_of_used"}, "glibc": {"used_kib", "free_kib", "mapped_kib"}}``;
    ``resident_free_kib``: the part of ``resident_kib`` in free pools; ``empty_of_used``: arenas
    whose used pools number 4 or fewer (kept by a few blocks)."""
    out: dict[str, Any] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/statm") as f:
        out["rss_kib"] = int(f.read().split()[1]) * page // 1024
    libc = ctypes.CDLL(None)
    if where:
        libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        vec = (ctypes.c_ubyte * ((1 << 20) // page))()
        table = ctypes.c_void_p.from_address(where[0]).value or 0
        count = ctypes.c_uint.from_address(where[1]).value
        n = used = free = resident = resident_free = few = free_tail = 0
        for i in range(count):
            entry = table + i * 48
            address = ctypes.c_uint64.from_address(entry).value
            if not address:
                continue
            nfree = ctypes.c_uint.from_address(entry + 16).value
            total = ctypes.c_uint.from_address(entry + 20).value
            pool_address = ctypes.c_uint64.from_address(entry + 8).value
            n += 1
            used += total - nfree
            free += nfree
            few += total - nfree <= 4
            if libc.mincore(ctypes.c_void_p(address), 1 << 20, vec) != 0:
                continue
            resident += sum(1 for b in vec if b & 1) * page // 1024
            first = (address + POOL - 1) & ~(POOL - 1)
            tail = 0  # free pools after the last one in use
            for p in range(first, min(pool_address, address + (1 << 20)), POOL):
                if ctypes.c_uint.from_address(p).value == 0:  # ref.count: no block in use
                    lo = (p - address) // page
                    resident_free += sum(1 for b in vec[lo:lo + POOL // page] if b & 1) * page // 1024
                    tail += 1
                else:
                    tail = 0
            free_tail += tail
            untouched = pool_address - address if pool_address < address + (1 << 20) else 1 << 20
            lo = untouched // page
            resident_free += sum(1 for b in vec[lo:] if b & 1) * page // 1024
        out["arenas"] = {"n": n, "pools_used": used, "pools_free": free, "resident_kib": resident,
                         "resident_free_kib": resident_free, "empty_of_used": few,
                         "free_tail": free_tail}

    class _Mallinfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in
                    ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

    try:
        libc.mallinfo2.restype = _Mallinfo2
        m = libc.mallinfo2()
        out["glibc"] = {"used_kib": m.uordblks // 1024, "free_kib": m.fordblks // 1024, "mapped_kib": m.hblkhd // 1024}
    except AttributeError:
        pass
    return out


def used_pools(where: list[int]) -> set[int]:
    """The addresses of the pools of CPython's arenas with a block in use now (``where``: as for
    :func:`residency`)."""
    table = ctypes.c_void_p.from_address(where[0]).value or 0
    out = set()
    for i in range(ctypes.c_uint.from_address(where[1]).value):
        address = ctypes.c_uint64.from_address(table + i * 48).value
        if not address:
            continue
        pool_address = ctypes.c_uint64.from_address(table + i * 48 + 8).value
        first = (address + POOL - 1) & ~(POOL - 1)
        for p in range(first, min(pool_address, address + (1 << 20)), POOL):
            if ctypes.c_uint.from_address(p).value:
                out.add(p)
    return out


def pinning(where: list[int], before: set[int], top: int = 40) -> dict[str, Any]:
    """Which objects keep in use the pools that were not in use at ``before`` (:func:`used_pools`
    then, e.g. in the lobby): every object reachable from the collector's objects and the modules
    (as :func:`report` walks them, without tracing), by type (an untracked one as ``type in
    holder's type``), with the new pools each group sits in. ``{"new_pools", "found_pools",
    "by_type": [[name, objects, pools], ...]}``; ``found_pools``: the new pools with an object
    found (the others hold free-list blocks or objects no walk reaches)."""
    gc.collect()
    new = used_pools(where) - before
    groups: dict[str, list[Any]] = collections.defaultdict(lambda: [0, set()])
    seen: set[int] = set()

    def note(o: object, name: str) -> None:
        for addr in [id(o)] + _buffers(o):
            p = addr & ~(POOL - 1)
            if p in new:
                g = groups[name if addr == id(o) else name + " (buffer)"]
                g[0] += 1
                g[1].add(p)

    frozen = gc.get_freeze_count()
    gc.unfreeze()  # the frozen objects are walked too (a tuned server freezes what survives a collection)
    gc.disable()
    try:
        for o in gc.get_objects() + [sys.modules]:
            note(o, type(o).__name__)
            holder = type(o).__name__
            todo = gc.get_referents(o)
            while todo:
                r = todo.pop()
                if gc.is_tracked(r) or id(r) in seen:
                    continue
                seen.add(id(r))
                note(r, f"{type(r).__name__} in {holder}")
                if type(r) is tuple or isinstance(r, dict):
                    todo.extend(gc.get_referents(r))
        # Who holds the objects of the three groups on most new pools (tracked ones): their referrers' types.
        wanted = {name for name, _g in sorted(groups.items(), key=lambda kv: -len(kv[1][1]))[:3]}
        targets = {id(o): type(o).__name__ for o in gc.get_objects() if type(o).__name__ in wanted
                   and (id(o) & ~(POOL - 1)) in new}
        holders: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for o in gc.get_objects():
            for r in gc.get_referents(o):
                if id(r) in targets:
                    holders[targets[id(r)]][type(o).__name__] += 1
    finally:
        if frozen:
            gc.freeze()
        gc.enable()
    found = set().union(*(g[1] for g in groups.values())) if groups else set()
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1][1]))[:top]
    return {"new_pools": len(new), "found_pools": len(found),
            "by_type": [[name, n, len(pools)] for name, (n, pools) in ranked],
            "holders": {k: dict(v.most_common(5)) for k, v in holders.items()}}
