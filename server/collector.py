"""The cyclic garbage collector in a long-running server process (``quinze serve``).

CPython frees most objects as soon as their last reference goes; the cyclic collector is for the
rest, and it walks every tracked container of a generation to do it. A server holding hundreds of
games and thousands of connections has hundreds of thousands of them, so a full collection is a
pause every client feels. What keeps it short and rare (measured with ``quinze bench --only load``,
see docs/server.md):

- little to walk: a game's actions are kept encoded (``quinze_server.wire.Records``), not as dicts;
- few objects promoted for nothing: with the stock first threshold (700 allocations), the
  objects of a message in flight, or a coroutine waiting for the next frame, are often alive at
  a young collection and climb to the old generation, where they count towards the next full
  collection although they die moments later. A larger first threshold lets them die young;
- nothing old walked again and again: :func:`tune` loads the games (their modules would
  otherwise be imported by the first ``create-table``) and freezes what exists after start-up
  (modules, classes, functions: tens of thousands of objects that live as long as the process)
  with :func:`gc.freeze`, so that no collection walks them any more;
- nothing walked twice: after every collection, what survived it is frozen too
  (:func:`_freeze_survivors`, a ``gc.callbacks`` hook set by :func:`tune`), so a collection, full
  or young, walks only the objects made since the last one, whatever the number of tables and
  connections; and a collection comes at least once a second (:func:`young_collections`), since
  the count towards the next one can stay low while those objects grow. A frozen object is still
  freed as soon as its last reference goes; only a cycle among frozen objects waits: for
  :func:`sweep`, which collects everything after :data:`SWEEP_AFTER` tables closed or
  connections ended (:class:`Reclaimer`). The server's
  tables and connections leave no such cycles (measured: ``cycles`` in the load bench's server,
  tests/test_server_cycles.py), so nothing waits for it in practice.

The collector stays on: cycles made and dropped between two collections are found by the next,
the others by :func:`sweep`.

Memory given back: what the objects of closed tables and ended connections used is free inside
the process at once (nothing keeps them), but CPython's small-object allocator returns a 1 MiB
arena to the system only once every object in it is gone, and the C allocator keeps its free pages
unless asked. :class:`Reclaimer` (every server) asks it after many tables or connections ended,
or once the last open table closed (:func:`trim`, glibc); the arenas still held by a few live
objects are reused by the next tables. What holds an arena is any object that lives on and was
allocated while tables played: the games' modules (about 1 MiB, else imported by the first
``create-table``) and the ctypes lookup of ``malloc_trim`` are therefore made at start-up, by
:func:`tune`; what the tables leave behind (the games' caches, trio's stale deadlines, the
heartbeat entries of ended connections, cycles and free lists) is let go of once the last table
closed (:func:`release`); the state the connections that stay renew each time they wake, the
closed tables kept for the listing, and the long-lived tasks' current objects still hold some
(docs/server-rounds-early.md, "Memory returned").
:func:`tune` changes the whole process, so it is called by the program that owns the process
(``quinze serve``, the load bench's server), never by :func:`quinze_server.app.run_server`, which other
programs and the tests embed.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable
from typing import Any

import trio

from quinze_protocol import caches
from quinze_protocol.game import game_ids
from quinze_server import pools
from quinze_server.scheduling import prune_deadlines

THRESHOLDS = (10_000, 20, 10)
"""Allocations (net) before a young collection; young collections before a middle one; middle
ones before a full one is considered (CPython's stock values are 700, 10, 10). Since the
survivors of every collection are frozen, a young collection walks about the first threshold's
objects whatever the load: its pause is in proportion to it (at 500 tables on the 2-core
machine, 20,000 gave a young pause of 13-23 ms, over the 20 ms of issue 16; 10,000 about half,
for twice as many collections of half the size: the same collector time in all,
docs/server-rounds-mid.md, eighth round)."""


def tune(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """Load every registered game (:func:`quinze_protocol.game.game_ids`), collect once, freeze
    every object alive now (they are never walked again), and set the collector's
    ``thresholds``. Call it once, after start-up, before serving."""
    game_ids()  # the games' modules: alive as long as the process, out of the tables' arenas
    _trim_function()  # its ctypes objects too (else made at the first trim, after tables played)
    pools.locate()  # CPython's arena table, for release (read from libpython's symbols once)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
    if _freeze_survivors not in gc.callbacks:
        gc.callbacks.insert(0, _freeze_survivors)


_collections = 0  # collections ended since start-up, counted by _freeze_survivors


def _freeze_survivors(phase: str, info: dict[str, int]) -> None:
    """``gc.callbacks`` hook (:func:`tune`): at the end of every collection, freeze what it left
    alive (:func:`gc.freeze` only links the generations' lists onto the permanent one: no walk)."""
    global _collections
    if phase == "stop":
        gc.freeze()
        _collections += 1


def tuned() -> bool:
    """True once :func:`tune` set its hook in this process (survivors are frozen)."""
    return _freeze_survivors in gc.callbacks


YOUNG_EVERY = 1.0
"""Seconds at most between two collections in a tuned process (:func:`young_collections`)."""


async def young_collections(every: float = YOUNG_EVERY) -> None:
    """Run forever (a task of the server's nursery, in a :func:`tuned` process): a young
    collection whenever ``every`` seconds passed without any collection.

    Why: CPython's count towards the next young collection is allocations of tracked objects
    minus deallocations, and a frozen object's deallocation counts too. Under steady play each
    action renews a game's state: new objects made, frozen ones freed, so the count stays far
    below the threshold while the objects made since the last collection, which the next one
    walks, keep growing (measured: 11,000 of them for a count of 4,500 after 60,000 actions over
    500 live games; 37,927 walked by a collection at 500 tables and 2,000 connections, 31 ms of
    CPU, over issue 16's 20 ms). With a collection at least every ``every`` seconds, what one
    walks is bounded by what a second of play leaves alive (docs/server-rounds.md, tenth round).
    Cancelled with the nursery; never raises otherwise."""
    seen = _collections
    while True:
        await trio.sleep(every)
        if _collections == seen:
            gc.collect(0)  # the hook freezes its survivors and counts it
        seen = _collections


def sweep() -> int:
    """Collect every object, the frozen ones too (where :func:`tune` froze the survivors of each
    collection, a cycle among them is found only here), then freeze again what is left: a full
    walk of the process (about 60 ms of CPU at 500 tables and 2,000 connections on a loaded
    2-core machine). Without frozen objects (an untuned process), a plain ``gc.collect()``.
    The objects found unreachable."""
    frozen = gc.get_freeze_count() > 0
    gc.unfreeze()
    try:
        return gc.collect()
    finally:
        if frozen:
            gc.freeze()


def release() -> int:
    """What a server lets go once no table is open (:class:`Reclaimer`'s ``release``): the games'
    caches (:func:`quinze_protocol.caches.clear_all`) and the stale entries of trio's deadline heap
    (:func:`quinze_server.scheduling.prune_deadlines`). Both were filled while the tables played,
    small objects spread over the memory the tables used: each would keep a 1 MiB arena of
    CPython's allocator from going back to the system. Then one collection (the objects not frozen;
    it empties the free lists too), and CPython's free pools go back to the system, where
    :func:`tune` located its arenas: all but one of each arena's taken out of it whole
    (:func:`quinze_server.pools.detach_free`), then the pages of the one left but its first
    (:func:`quinze_server.pools.release_free`); the arenas themselves stay, each held by a few
    live blocks, and CPython frees each once they are gone. The entries dropped."""
    dropped = caches.clear_all() + prune_deadlines()
    gc.collect()  # the closed tables' last cycles, and the free lists of tuples, floats... (only a full collection empties those)
    pools.detach_free()  # each arena's free pools but one, out of it and back to the system whole
    pools.release_free()  # and the pages of the one left (its first page kept)
    return dropped


TRIM_AFTER = 64
"""Tables closed and connections ended since the last trim before :class:`Reclaimer` trims again."""
TRIM_QUIET = 0.5
"""Seconds without another table closing or connection ending before the trim (after a burst)."""
SWEEP_AFTER = 10_000
"""Tables closed and connections ended since the last :func:`sweep` before :class:`Reclaimer`
sweeps at its next trim, tables open or not: what a cycle among frozen objects could keep is
bounded by that many ends' worth (none measured per end)."""

_malloc_trim: Any = None


def trim() -> bool:
    """Give the free memory of the C allocator back to the system now (glibc's ``malloc_trim``:
    whole free pages anywhere in its heap, not only at its end); False where there is no glibc.
    CPython's own allocator keeps small objects in 1 MiB arenas that it returns by itself once
    empty; this is for the rest (dict and list tables, buffers, bytes over 512 bytes). About a
    millisecond at 50 MiB."""
    function = _trim_function()
    if function is False:
        return False
    function(0)
    return True


def _trim_function() -> Any:
    """glibc's ``malloc_trim`` through ctypes (looked up once), or False."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            _malloc_trim = ctypes.CDLL(None).malloc_trim
            _malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _malloc_trim = False
    return _malloc_trim


class Reclaimer:
    """Trims the process's memory (:func:`trim`) once :data:`TRIM_AFTER` tables or connections
    ended, or a table closed and ``idle()`` says no table is open any more, :data:`TRIM_QUIET`
    seconds after the last of them: one trim after a burst of closes (the end of a tournament
    round, a LAN party going home), never one per close. Call :meth:`ended` for each; the trim
    runs in a task of ``nursery``. When no table is open at the trim, ``release()`` runs first
    (the server empties the games' caches there: their entries, made while tables played, would
    each keep a piece of the tables' memory). Once :data:`SWEEP_AFTER` ended since the last
    sweep, :func:`sweep` runs before the trim."""

    def __init__(self, nursery: trio.Nursery, after: int = TRIM_AFTER, quiet: float = TRIM_QUIET,
                 idle: Callable[[], bool] | None = None, release: Callable[[], int] | None = None) -> None:
        self.nursery = nursery
        self.release = release
        """Called before a trim when ``idle()`` says no table is open (the games' caches:
        :func:`quinze_protocol.caches.clear_all`); returns the entries it dropped."""
        self.released = 0
        """Entries dropped by ``release`` so far."""
        self.after = after
        self.quiet = quiet
        self.idle = idle
        self.trims = 0
        """Trims done so far."""
        self.sweeps = 0
        """Sweeps done after :data:`SWEEP_AFTER` ends so far (not counting those of ``release``)."""
        self.sweep_after = SWEEP_AFTER
        self._unswept = 0  # ends since the last sweep
        self._ended = 0
        self._due = 0.0
        self._pending = False

    def ended(self, table: bool = False) -> None:
        """A table closed (``table``) or a connection ended."""
        self._ended += 1
        self._unswept += 1
        self._due = trio.current_time() + self.quiet
        last = table and self.idle is not None and self.idle()  # the last open table closed
        if (self._ended >= self.after or last) and not self._pending:
            self._pending = True
            self.nursery.start_soon(self._trim_when_quiet)

    async def _trim_when_quiet(self) -> None:
        try:
            while trio.current_time() < self._due:
                await trio.sleep_until(self._due)
            self._ended = 0
            if self.release is not None and self.idle is not None and self.idle():
                self.released += self.release()
            if self._unswept >= self.sweep_after:
                sweep()
                self.sweeps += 1
                self._unswept = 0
            if trim():
                self.trims += 1
        finally:
            self._pending = False
