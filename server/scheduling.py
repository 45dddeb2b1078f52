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

__all__ = ["first_come_first_served"]


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
