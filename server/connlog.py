"""The server log's lines about connections, bounded (issue 16; docs/server.md "Connections in bulk").

Each client greeted gets an INFO line ``ana (127.0.0.1:50312) connected as player`` and each
connection that ends one ``ana (127.0.0.1:50312) disconnected: the client closed the connection``,
so that the host of a LAN party sees people arrive and leave. Written through ``quinze serve``'s
handler (rich's ``RichHandler``) a line costs about half a millisecond of the server's one thread:
more than nine tenths of what a connection costs to close. A bot ladder whose clients connect
and leave by the thousand would spend the server on its log, and fill it.

:class:`ConnectionLog` writes the first :data:`RATE` of these lines of each :data:`WINDOW`
seconds as they come and counts the others; when the window ends, one line per kind says how
many were not written one by one, and why the connections closed (the most frequent reasons):

    ... and 480 more connections closed in the last second (470: the client closed the connection; 10: connection lost)
    ... and 300 more clients connected in the last second (300 as player)

Nothing counted is lost: the summary is written when its window ends (:meth:`ConnectionLog.run`,
a task of the server's nursery), and whatever is still counted when the server stops
(:meth:`ConnectionLog.flush`, called by that task's end and by ``run_server`` after every task
ended). A logger not enabled for INFO costs one check per line, and counts nothing.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import trio

__all__ = ["RATE", "REASONS", "WINDOW", "ConnectionLog"]

RATE = 20
"""Connection lines written as they come in one window (connected and disconnected together)."""
WINDOW = 1.0
"""Seconds of a window: a window starts with its first line, and its summary is written at its end."""
REASONS = 3
"""Reasons a summary names with their counts (the most frequent; the others are counted together)."""
_KINDS = 16
"""Different reasons or roles counted separately in one window (more are counted as other)."""


class ConnectionLog:
    """The connection lines of one server run, written to ``logger`` at INFO level: at most
    ``rate`` of them per ``window`` seconds of ``now`` (trio's clock, seconds), the others counted
    and summed up at the window's end (:meth:`run` must run, in a task, for the summaries to come
    on time)."""

    def __init__(self, logger: logging.Logger, now: Callable[[], float] = trio.current_time,
                 rate: int = RATE, window: float = WINDOW) -> None:
        self.log = logger
        self.now = now
        self.rate = rate
        self.window = window
        self.written = 0
        """Connection lines written one by one so far in this run."""
        self.counted = 0
        """Connection lines counted into a summary instead (written or to be written) so far."""
        self._end = -math.inf  # the end of the current window
        self._in_window = 0  # lines written one by one in the current window
        self._closed: dict[str, int] = {}  # reason -> connections closed and not written, this window
        self._connected: dict[str, int] = {}  # role -> clients connected and not written, this window
        self._due = trio.Event()  # set when a summary is due at the window's end

    def connected(self, name: str, peer: str, role: str | None) -> None:
        """A client said ``hello`` and was welcomed: ``name``, its address ``peer`` (``host:port``)
        and its ``role`` (PROTOCOL.md "hello")."""
        if not self.log.isEnabledFor(logging.INFO):
            return
        if self._room():
            self.log.info("%s (%s) connected as %s", name, peer, role)
        else:
            _count(self._connected, str(role))

    def disconnected(self, name: str | None, peer: str, why: str) -> None:
        """A connection ended: the client's ``name`` (None before its ``hello``), ``peer``, and
        ``why`` in a few words (``"the client closed the connection"``, ``"no pong for 30.0 s"``)."""
        if not self.log.isEnabledFor(logging.INFO):
            return
        if self._room():
            self.log.info("%s (%s) disconnected: %s", name or "?", peer, why)
        else:
            _count(self._closed, why)

    def _room(self) -> bool:
        """True if one more line may be written now (and it is counted as written), else False
        (the caller counts it, and the window's summary is due)."""
        now = self.now()
        if now >= self._end:  # a new window starts with this line
            self.flush()  # (the summary task may not have run yet)
            self._end = now + self.window
            self._in_window = 0
        if self._in_window < self.rate:
            self._in_window += 1
            self.written += 1
            return True
        self.counted += 1
        self._due.set()
        return False

    def flush(self) -> None:
        """Write the summaries of what was counted and not yet said (nothing if none)."""
        span = "in the last second" if self.window == 1 else f"in the last {self.window:g} s"
        closed, self._closed = self._closed, {}
        connected, self._connected = self._connected, {}
        if closed:
            self.log.info("... and %d more connections closed %s (%s)", sum(closed.values()), span,
                          _reasons(closed, "{n}: {key}"))
        if connected:
            self.log.info("... and %d more clients connected %s (%s)", sum(connected.values()), span,
                          _reasons(connected, "{n} as {key}"))

    async def run(self) -> None:
        """Write each window's summary at its end, until cancelled; what is still counted then is
        written too."""
        try:
            while True:
                await self._due.wait()
                self._due = trio.Event()  # (set again by what the next window counts)
                await trio.sleep_until(self._end)
                if self.now() >= self._end:  # else a later line began the next window and said this one's summary
                    self.flush()
        finally:
            self.flush()


def _count(counts: dict[str, int], key: str) -> None:
    if key not in counts and len(counts) >= _KINDS:
        key = "other"
    counts[key] = counts.get(key, 0) + 1


def _reasons(counts: dict[str, int], form: str) -> str:
    """The :data:`REASONS` most frequent keys with their counts, the others summed up."""
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    parts = [form.format(n=n, key=key) for key, n in ranked[:REASONS]]
    rest = sum(n for _, n in ranked[REASONS:])
    if rest:
        parts.append(f"{rest}: other reasons" if "{n}:" in form else f"{rest} otherwise")
    return "; ".join(parts)
