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
- nothing old walked again and again: :func:`tune` freezes what exists after start-up (modules,
  classes, functions: tens of thousands of objects that live as long as the process) with
  :func:`gc.freeze`, so that no collection walks them any more.

The collector stays on: cycles (a dropped connection's tasks, a closed table) are still found.
:func:`tune` changes the whole process, so it is called by the program that owns the process
(``quinze serve``, the load bench's server), never by :func:`quinze_server.app.run_server`, which other
programs and the tests embed.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 10)
"""Allocations (net) before a young collection; young collections before a middle one; middle
ones before a full one is considered (CPython's stock values are 700, 10, 10)."""


def tune(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """Collect once, freeze every object alive now (they are never walked again), and set the
    collector's ``thresholds``. Call it once, after start-up, before serving."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
