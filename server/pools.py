"""The memory of CPython's free pools, given back to the system once the tables closed
(CPython 3.11, 64-bit Linux; nothing is done elsewhere).

CPython keeps objects of 512 bytes or less in 16 KiB pools carved from 1 MiB arenas, and gives an
arena back only when every pool in it is free. After hundreds of tables closed, most of their
pools are free, yet every arena still holds a few live blocks allocated while the tables played
(the long-lived tasks' current objects, trio's own: docs/server.md, "Memory returned"), so no
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
holds no block); any mismatch turns the release off for good. It runs only while the process has
one thread (no other thread can then use the allocator while the pools are changed) and only in a
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

__all__ = ["locate", "release_free", "released_bytes"]

POOL = 1 << 14
"""CPython 3.11's pool size on 64 bits (``POOL_SIZE``, with ``USE_LARGE_POOLS``)."""
ARENA = 1 << 20
"""CPython 3.11's arena size on 64 bits (``ARENA_SIZE``, with ``USE_LARGE_ARENAS``)."""
_DUMMY = 0xFFFF  # DUMMY_SIZE_IDX: the szidx of a pool never used for a size class
_MADV_DONTNEED = 4
_ARENA_OBJECT = 48  # sizeof(struct arena_object): address, pool_address, nfreepools, ntotalpools, freepools, next, prev
_SZIDX = 36  # offsetof(struct pool_header, szidx); arenaindex at 32, nextpool at 16, ref.count at 0

_where: list[int] = []  # [address of `arenas`, address of `maxarenas`], once located
_state = {"off": False, "released": 0}
_madvise: list[Any] = []  # [libc's madvise through ctypes], made by locate


def released_bytes() -> int:
    """Bytes of free pools given back to the system so far (a pool counted each time)."""
    return _state["released"]


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
        symbols = _symbols(path, {"_PyRuntime", "arenas", "maxarenas"})
        base = runtime - symbols["_PyRuntime"]
        # Made once, here: a ctypes library and function are cyclic objects (their types), which
        # made at each release would be garbage for the collector, allocated after tables played.
        madvise = ctypes.PyDLL(None).madvise  # PyDLL: the call keeps the GIL (no other code runs meanwhile)
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        madvise.restype = ctypes.c_int
        _madvise[:] = [madvise]
        _where[:] = [base + symbols["arenas"], base + symbols["maxarenas"]]
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
