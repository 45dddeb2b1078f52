"""How much of the server's time opening and closing connections may take while tables play
(issue 16; docs/server.md "Under load").

A connection's own messages are held to its share of the server's time (``cpu_share``), but a
client that keeps opening connections gets a fresh share with each: one client churning 50
connections at a time (open, ``hello``, close) took the whole server, and a playing table went
from hundreds of actions a second to one. The newcomers together are held to a share of their
own here: the time spent setting a connection up, handling its messages before it is greeted,
and cleaning up after it ends (``time.perf_counter`` seconds, measured where it is spent:
:class:`quinze_server.connection.ClientConnection`, plus :data:`TASK_COST` for what trio spends) is charged to one bucket, refilled at
:data:`NEW_SHARE` of the time up to :data:`NEW_BURST` seconds. While a table is open and the
bucket is empty, the server accepts no new connection until it is refilled: the connections
wait in the kernel's listen backlog (a client only sees its ``welcome`` later; nothing is
refused), and the tables keep the rest of the server. With no table open, connections are
accepted as fast as they come (the load bench opens 2,000 from one address).
"""

from __future__ import annotations

import time

NEW_SHARE = 0.25
"""The share of the server's time that opening, greeting and closing connections may take while tables are open."""
TASK_COST = 0.0003
"""Seconds charged for each accepted connection on top of what is measured: trio's part (the
accept, the connection's task and nursery started and ended, its cancellation), spent where it
cannot be timed. The measured parts came to about 50 µs per connection, the whole to about
400 µs (cProfile and /proc CPU of a server opening and closing 3,750 connections: the
tenth round of docs/server-rounds.md)."""
NEW_BURST = 0.02
"""Seconds of that work taken at once before the share applies (some tens of connections)."""


class Admission:
    """The newcomers' bucket: :meth:`charge` what connections cost to open and close, ask
    :meth:`wait` before accepting the next. ``busy()``: True while the share applies (tables open)."""

    def __init__(self, busy: object = None, share: float = NEW_SHARE, burst: float = NEW_BURST) -> None:
        self.share = share
        self.burst = burst
        self._busy = busy
        self._budget = burst
        self._at = time.perf_counter()
        self.charged = 0.0
        """Seconds charged so far (every connection, busy or not)."""
        self.waits = 0
        """Times the accepting waited for the bucket to refill."""

    def charge(self, seconds: float) -> None:
        """Seconds just spent opening, greeting or closing a connection."""
        self._budget -= seconds
        self.charged += seconds

    def wait(self) -> float:
        """Seconds to wait before accepting another connection (0: accept now); the connection
        accepted next is charged :data:`TASK_COST` now."""
        self.charge(TASK_COST)
        now = time.perf_counter()
        self._budget = min(self.burst, self._budget + (now - self._at) * self.share)
        self._at = now
        if self._budget >= 0 or not (self._busy is not None and self._busy()):  # type: ignore[operator]
            return 0.0
        self.waits += 1
        return -self._budget / self.share
