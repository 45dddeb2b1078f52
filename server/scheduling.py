"""The order in which the server's tasks run when many are ready at once (``quinze serve``).

Trio runs the tasks that became ready since its last look at the sockets as one batch, and on
purpose runs half of those batches in reverse order (a coin toss per batch), so that no program
comes to rely on one order (trio's ``_core/_run.py`` says as much, and that it keeps the question
of a fairer scheduler open). A server that is busy with many tables pays it in waiting times: the
connection whose move arrived first may be served last in this batch, first in the next, so its
round trip is anything from nothing to two batches. Served in the order they became ready, every
connection waits about one batch: at 500 tables and 2,000 connections the 99th percentile of the
round trip fell from 2.2-2.6 times its median to 1.2-1.5 times it, the median unchanged (measured
with ``quinze bench --only load``, docs/server.md).

:func:`first_come_first_served` changes that for the whole process, so it is called by the
program that owns the process (``quinze serve``, the load bench's server), never by
:func:`quinze_server.app.run_server`, which other programs and the tests embed.
"""

from __future__ import annotations

import random

import trio

__all__ = ["first_come_first_served", "prune_deadlines"]


class _InOrder(random.Random):
    """Trio reverses a batch (which it then runs from its end) when ``random() < 0.5``: always,
    so that it runs in the order the tasks became ready. Trio's other draw from it, the offset of
    its clock, gets its lowest value (the clock's readings are only ever compared)."""

    def random(self) -> float:
        return 0.0


def first_come_first_served() -> bool:
    """Make trio run each batch of ready tasks in the order they became ready (the whole process,
    every later ``trio.run``). True if done; False, and nothing changed, where this version of trio
    has no such coin (its scheduler then stays as it is)."""
    core = getattr(trio._core, "_run", None)
    coin = getattr(core, "_r", None)
    if core is None or type(coin) is not random.Random or not hasattr(core, "_ALLOW_DETERMINISTIC_SCHEDULING"):
        return isinstance(coin, _InOrder)
    core._r = _InOrder()
    return True


def prune_deadlines() -> int:
    """Drop the stale entries of trio's deadline heap now; how many were dropped (0 where this
    version of trio keeps its deadlines otherwise).

    Trio keeps each deadline set by a cancel scope (``move_on_at``, ``fail_after``...) in a heap,
    and leaves an entry there when its scope ends early, until the deadline passes or the stale
    entries outnumber the live ones by a thousand. A table's wait for the next move sets one per
    move: when the tables close, the entries of their last waits stay up to the move time (60 s),
    and with them each wait's scope, its task's state, and the memory those sit in (docs/server-rounds-early.md,
    "Memory returned"). Called when no table is open any more (``quinze_server.collector.release``);
    trio does the same itself (``Deadlines._prune``) when the heap grows."""
    runner = getattr(getattr(getattr(trio._core, "_run", None), "GLOBAL_RUN_CONTEXT", None), "runner", None)
    deadlines = getattr(runner, "deadlines", None)
    heap = getattr(deadlines, "_heap", None)
    prune = getattr(deadlines, "_prune", None)
    if type(heap) is not list or prune is None:
        return 0
    before = len(heap)
    try:
        prune()
    except AssertionError:  # trio checks its own count of live deadlines: leave it as it was
        return 0
    return before - len(deadlines._heap)  # type: ignore[union-attr]

