"""The memory of CPython's free pools, given back to the system once the tables closed
(CPython 3.11, 64-bit Linux; nothing is done elsewhere).

CPython keeps objects of 512 bytes or less in 16 KiB pools carved from 1 MiB arenas, and gives an
arena back only when every pool in it is free. After hundreds of tables closed, most of their
pools are free, yet every arena still holds a few live blocks allocated while the tables played
(the long-lived tasks' current objects, trio's own: docs/server-rounds-early.md, "Memory returned"), so no
arena goes back and the resident set stays where it was. A free pool's memory is only needed
again when the pool is reused, and then CPython writes it afresh, provided the pool's header says
it was never used for a size class (``szidx`` set to its "dummy" value, as a freshly carved pool
has it): the pool's own free list, kept in its blocks, is then not read.

:func:`release_free` walks CPython's table of arenas and, for each free pool (no block in use),
marks its header so and tells the kernel that the pool's pages after the first (where the header
is) may be dropped (``madvise(MADV_DONTNEED)``: 12 of every 16 KiB; they read as zeros if touched
again). The arena table is a static variable of libpython (``arenas``, ``maxarenas``): its address
is read from libpython's symbol table once, at start-up (:func:`locate`, called by
:func:`quinze_server.collector.tune`). Everything is checked before it is written (the layout of
CPython 3.11's ``arena_object`` and ``pool_header``, that each pool lies in its arena, names it and
holds no block); any mismatch turns the release off for good.

:func:`detach_free` goes further, for the first pages too: it cuts each arena's list of free pools
to one pool and takes the others out of the arena's counts (``nfreepools`` and ``ntotalpools``),
so that CPython never reaches them again and still frees the arena whole once its remaining pools
are free; all 16 KiB of each go back. That rewrites CPython's list of usable arenas (sorted by
free pools) and its ``nfp2lasta`` index (``usable_arenas``, ``nfp2lasta``, also located at
start-up), in one write checked against what was read (:func:`_commit`); the bookkeeping after it
is checked by tests/test_server_pools.py. Both run only while the process has one thread (no other thread can then use the allocator while the pools are changed) and only in a
process whose allocator is pymalloc (not under ``PYTHONMALLOC``, ``-X dev`` or a debug build).
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
import sysconfig
import threading
from typing import Any

__all__ = ["detach_free", "detached_bytes", "locate", "release_free", "released_bytes"]

POOL = 1 << 14
"""CPython 3.11's pool size on 64 bits (``POOL_SIZE``, with ``USE_LARGE_POOLS``)."""
ARENA = 1 << 20
"""CPython 3.11's arena size on 64 bits (``ARENA_SIZE``, with ``USE_LARGE_ARENAS``)."""
_DUMMY = 0xFFFF  # DUMMY_SIZE_IDX: the szidx of a pool never used for a size class
_MADV_DONTNEED = 4
_ARENA_OBJECT = 48  # sizeof(struct arena_object): address, pool_address, nfreepools, ntotalpools, freepools, next, prev
_SZIDX = 36  # offsetof(struct pool_header, szidx); arenaindex at 32, nextpool at 16, ref.count at 0

_where: list[int] = []  # [address of `arenas`, address of `maxarenas`], once located
_lists: list[int] = []  # [address of `nfp2lasta`, address of `usable_arenas`], once located (detach_free)
_state = {"off": False, "released": 0, "detached": 0, "detach_off": False}
_madvise: list[Any] = []  # [libc's madvise through ctypes], made by locate
_vm: list[Any] = []  # [process_vm_readv, process_vm_writev, memcmp] through ctypes, made by locate
_MAX_POOLS = ARENA // POOL  # MAX_POOLS_IN_ARENA: nfp2lasta has one more entry


def released_bytes() -> int:
    """Bytes of free pools given back to the system so far (a pool counted each time)."""
    return _state["released"]


def detached_bytes() -> int:
    """Bytes of free pools taken out of their arenas and given back whole so far
    (:func:`detach_free`)."""
    return _state["detached"]


def _supported() -> bool:
    return (sys.platform.startswith("linux") and sys.implementation.name == "cpython"
            and sys.version_info[:2] == (3, 11) and sys.maxsize > 2**32
            and bool(sysconfig.get_config_var("WITH_PYMALLOC")) and not sysconfig.get_config_var("Py_DEBUG")
            and not os.environ.get("PYTHONMALLOC") and not sys.flags.dev_mode and os.sysconf("SC_PAGE_SIZE") < POOL)


def _symbols(path: str, names: set[str]) -> dict[str, int]:
    """The values of the symbols ``names`` in the ELF file ``path``'s symbol table (``.symtab``),
    those found. Raises OSError or struct.error on a file that is not a 64-bit ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:5] != b"\x7fELF\x02":
        raise OSError(f"{path}: not a 64-bit ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    found: dict[str, int] = {}
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 2 or entsize != 24:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for name_at, _i, _o, _shndx, value, _size in struct.iter_unpack("<IBBHQQ", data[offset:offset + size]):
            if value == 0:
                continue
            end = data.index(b"\0", strings + name_at)
            name = data[strings + name_at:end].decode("ascii", "replace")
            if name in names:
                found[name] = value
    return found


def locate() -> bool:
    """Find CPython's arena table (once; call it at start-up): True if :func:`release_free` can
    run in this process. Reads libpython's (or the interpreter's) symbol table; never raises."""
    if _where:
        return True
    if _state["off"] or not _supported():
        _state["off"] = True
        return False
    try:
        runtime = ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi, "_PyRuntime"))
        path = ""
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split()
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                if lo <= runtime < hi and len(parts) >= 6:
                    path = parts[5]
                    break
        symbols = _symbols(path, {"_PyRuntime", "arenas", "maxarenas", "nfp2lasta", "usable_arenas"})
        base = runtime - symbols["_PyRuntime"]
        # Made once, here: a ctypes library and function are cyclic objects (their types), which
        # made at each release would be garbage for the collector, allocated after tables played.
        madvise = ctypes.PyDLL(None).madvise  # PyDLL: the call keeps the GIL (no other code runs meanwhile)
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        madvise.restype = ctypes.c_int
        _madvise[:] = [madvise]
        _where[:] = [base + symbols["arenas"], base + symbols["maxarenas"]]
        if "nfp2lasta" in symbols and "usable_arenas" in symbols:
            libc = ctypes.PyDLL(None)  # the calls keep the GIL: nothing else runs during a commit
            vm = [libc.process_vm_readv, libc.process_vm_writev, libc.memcmp]
            for function in vm[:2]:
                function.restype = None  # no result object: nothing allocated by the call (see _commit)
            vm[2].restype = ctypes.c_int
            _vm[:] = vm
            _lists[:] = [base + symbols["nfp2lasta"], base + symbols["usable_arenas"]]
    except (OSError, KeyError, ValueError, struct.error, AttributeError):
        _state["off"] = True
        return False
    return True


def release_free() -> int:
    """Give back the pages of every free pool of CPython's allocator but the first page of each
    (its header); the bytes given back (0 where this cannot run: see the module's notes, or while
    another thread exists). Call it when much was freed (the last table closed:
    :func:`quinze_server.collector.release`), after a full collection. Never raises; about a
    millisecond per thousand free pools.

    In two steps, because this code allocates too (its numbers, its ctypes objects), and an
    allocation may take a free pool: first the free pools are listed (each checked to be a pool
    of its arena, carved already), with everything the second step needs made in advance; then,
    for each, its arena still allocated and no block in use is checked, its header marked, and
    its pages after the first dropped, with nothing allocated between the check and the mark. An
    allocation after the mark that takes the pool writes only in its first page (a pool marked
    so is set up afresh: its header and first two blocks, 1,072 bytes at most), which is kept."""
    if not _where or _state["off"] or threading.active_count() != 1:
        return 0
    page = os.sysconf("SC_PAGE_SIZE")
    madvise = _madvise[0]
    table = ctypes.c_void_p.from_address(_where[0]).value
    count = ctypes.c_uint.from_address(_where[1]).value
    if not table or count > 1 << 20:
        return 0
    plan: list[tuple[ctypes.c_uint64, int, ctypes.c_uint, ctypes.c_uint, int]] = []
    for i in range(count):
        entry = table + i * _ARENA_OBJECT
        address, pool_address = struct.unpack("<QQ", ctypes.string_at(entry, 16))
        nfree, total, pool = struct.unpack("<IIQ", ctypes.string_at(entry + 16, 16))
        if not address:  # not allocated
            continue
        first = (address + POOL - 1) & ~(POOL - 1)
        if total > ARENA // POOL or nfree > total or not first <= pool_address <= address + ARENA:
            _state["off"] = True  # not the layout this module knows: never again
            return 0
        seen = 0
        while pool and seen < total:
            seen += 1
            if not (first <= pool < pool_address and (pool - first) % POOL == 0):
                break  # the list changed under this walk (this code's own allocations): the rest next time
            index, szidx = struct.unpack("<II", ctypes.string_at(pool + 32, 8))
            if index != i:
                _state["off"] = True
                return 0
            if szidx != _DUMMY:
                plan.append((ctypes.c_uint64.from_address(entry), address, ctypes.c_uint.from_address(pool),
                             ctypes.c_uint.from_address(pool + _SZIDX), pool + page))
            pool = ctypes.c_void_p.from_address(pool + 16).value or 0
    size, dummy, advice, given = POOL - page, _DUMMY, _MADV_DONTNEED, 0
    for arena, address, used, szidx, rest in plan:
        if arena.value == address and used.value == 0:  # still allocated, still free
            szidx.value = dummy
            if madvise(rest, size, advice) == 0:
                given += size
    _state["released"] += given
    return given


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


_REGIONS = 3  # the arena table, nfp2lasta, usable_arenas
# Made once, here: ctypes keeps its array types only while something refers to them, and a type
# is a cyclic object (made at each release, it would be garbage for the collector).
_REMOTE = _Iovec * _REGIONS
_LOCAL = _Iovec * 1


def _address(buffer: bytearray) -> int:
    return ctypes.addressof(ctypes.c_char.from_buffer(buffer))


def _commit(regions: list[tuple[int, bytes, bytes]]) -> bool:
    """Write the ``(address, expected, new)`` regions of this process's memory at once if every
    region still holds ``expected``: True if written. One ``process_vm_readv`` reads them all, one
    ``memcmp`` compares, one ``process_vm_writev`` writes them all; between the read and the write
    nothing is allocated (every argument is made in advance, pointers passed as ``byref``
    objects, small ints as themselves, no result object but memcmp's 0), so CPython's allocator
    cannot change these regions meanwhile; signals are blocked during the three calls, so no
    Python handler runs between them either."""
    import signal

    readv, writev, memcmp = _vm
    expected = b"".join(e for _a, e, _n in regions)
    new = bytearray(b"".join(x for _a, _e, x in regions))
    size = len(expected)
    if len(new) != size or len(regions) != _REGIONS:
        return False
    seen = bytearray(size)
    remote = _REMOTE(*[_Iovec(a, len(e)) for a, e, _n in regions])
    local_seen = _LOCAL(_Iovec(_address(seen), size))
    local_data = _LOCAL(_Iovec(_address(new), size))
    pid = os.getpid()
    read_args = (pid, ctypes.byref(local_seen), 1, ctypes.byref(remote), _REGIONS, 0)
    compare_args = (ctypes.byref(ctypes.c_char.from_buffer(seen)), expected, size)
    write_args = (pid, ctypes.byref(local_data), 1, ctypes.byref(remote), _REGIONS, 0)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        readv(*read_args)
        same = memcmp(*compare_args) == 0
        if same:
            writev(*write_args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    if not same:
        return False
    readv(*read_args)
    if seen != new:  # written only in part: never again (the allocator's state is unknown)
        _state["off"] = _state["detach_off"] = True
    return True


def detach_free(attempts: int = 3) -> int:
    """Take the free pools of each arena out of it but one, and give their memory back whole
    (:func:`release_free` keeps each free pool's first page, where its header links it to the
    others): the bytes given back (0 where this cannot run, as for :func:`release_free`).

    An arena's free pools are a list through their headers (``freepools``, the arena's
    ``nfreepools`` counting them and its pools never carved yet). Here the list is cut to its last
    pool (whose ``nextpool`` is already NULL), and the pools cut off are no longer the arena's: its
    ``nfreepools`` and ``ntotalpools`` both lose them, so that CPython still frees the arena whole
    when its remaining pools are all free again (``nfreepools == ntotalpools``), and no code of
    CPython's reaches their headers any more: all 16 KiB of each go back to the system. Every
    arena keeps at least one free pool, so it stays on CPython's list of usable arenas (``usable_arenas``,
    sorted by ``nfreepools``; ``nfp2lasta``: the last of each count), which is rebuilt in the new
    order. The arenas that are wholly free are left as they are. The new arena table, list and
    ``nfp2lasta`` are written at once, only if nothing changed since they were read
    (:func:`_commit`); then the pools cut off are dropped (``madvise(MADV_DONTNEED)``).
    Call it when much was freed (the last table closed), after a full collection. Where an
    allocation changed the arenas between the reading and the writing (this code allocates while
    it plans), it reads and plans again, ``attempts`` times at most."""
    for _ in range(attempts):
        given = _detach_once()
        if given >= 0:
            return given
    return 0


def _detach_once() -> int:
    """One attempt of :func:`detach_free`: the bytes given back, or -1 if the arenas changed
    before the writing (nothing written)."""
    if not _where or not _lists or not _vm or _state["off"] or _state["detach_off"] or threading.active_count() != 1:
        return 0
    table = ctypes.c_void_p.from_address(_where[0]).value
    count = ctypes.c_uint.from_address(_where[1]).value
    if not table or count > 1 << 20:
        return 0
    image = ctypes.string_at(table, count * _ARENA_OBJECT)
    lasta = ctypes.string_at(_lists[0], (_MAX_POOLS + 1) * 8)
    usable = ctypes.string_at(_lists[1], 8)
    entries = [list(struct.unpack_from("<QQIIQQQ", image, i * _ARENA_OBJECT)) for i in range(count)]
    head, = struct.unpack("<Q", usable)
    order: list[int] = []  # the usable arenas, by index, in their list's order
    at, prev = head, 0
    while at:
        i, rest = divmod(at - table, _ARENA_OBJECT)
        if rest or not 0 <= i < count or entries[i][0] == 0 or entries[i][6] != prev or len(order) > count:
            _state["detach_off"] = True  # not the list this module knows
            return 0
        order.append(i)
        prev, at = at, entries[i][5]
    if sorted(order) != [i for i, e in enumerate(entries) if e[0] and e[2] > 0]:
        _state["detach_off"] = True
        return 0
    cut: list[int] = []  # the pools taken out
    for i in order:
        address, pool_address, nfree, total, pool = entries[i][:5]
        if nfree >= total:  # wholly free: left to CPython
            continue
        first = (address + POOL - 1) & ~(POOL - 1)
        listed: list[int] = []
        while pool and len(listed) < total:
            if not (first <= pool < pool_address and (pool - first) % POOL == 0):
                _state["detach_off"] = True
                return 0
            used, = struct.unpack("<I", ctypes.string_at(pool, 4))
            index, = struct.unpack("<I", ctypes.string_at(pool + 32, 4))
            if used or index != i:
                _state["detach_off"] = True
                return 0
            listed.append(pool)
            pool = ctypes.c_void_p.from_address(pool + 16).value or 0
        if pool or len(listed) > nfree:  # the list did not end, or counts more than the arena says
            _state["detach_off"] = True
            return 0
        if len(listed) < 2:
            continue
        cut.extend(listed[:-1])
        entries[i][2] -= len(listed) - 1
        entries[i][3] -= len(listed) - 1
        entries[i][4] = listed[-1]
    if not cut:
        return 0
    order.sort(key=lambda i: entries[i][2])  # stable: equal counts keep their order
    new_lasta = [0] * (_MAX_POOLS + 1)
    for k, i in enumerate(order):
        entries[i][5] = table + order[k + 1] * _ARENA_OBJECT if k + 1 < len(order) else 0
        entries[i][6] = table + order[k - 1] * _ARENA_OBJECT if k else 0
        new_lasta[entries[i][2]] = table + i * _ARENA_OBJECT
    new_image = b"".join(struct.pack("<QQIIQQQ", *e) for e in entries)
    new_head = struct.pack("<Q", table + order[0] * _ARENA_OBJECT)
    regions = [(table, image, new_image), (_lists[0], lasta, struct.pack(f"<{_MAX_POOLS + 1}Q", *new_lasta)),
               (_lists[1], usable, new_head)]
    if not _commit(regions):
        return -1
    madvise, advice, given = _madvise[0], _MADV_DONTNEED, 0
    for pool in cut:
        if madvise(pool, POOL, advice) == 0:
            given += POOL
    _state["detached"] += given
    return given
