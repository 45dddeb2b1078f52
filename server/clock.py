"""Time on the server: per-move deadlines and the heartbeat (PROTOCOL.md "Flow").

All times come from :func:`trio.current_time` (monotonic seconds), so tests with a mock clock
and real runs behave alike. Never wall-clock time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

MISSED_PONGS = 3
"""A client that answers no ping for this many heartbeats is dropped."""


class Deadline:
    """The moment a decision is due: ``seconds`` from now (trio clock)."""

    __slots__ = ("at",)

    def __init__(self, seconds: float) -> None:
        self.at = trio.current_time() + seconds

    def left(self) -> float:
        """Seconds left (0.0 once passed); what ``action-request.deadline`` carries."""
        return max(0.0, self.at - trio.current_time())

    @property
    def expired(self) -> bool:
        return trio.current_time() >= self.at


class Heartbeat:
    """One connection's heartbeat: a ``ping`` every ``interval`` seconds; the client is dropped
    when it sent nothing for :data:`MISSED_PONGS` intervals, unless ``busy()`` says it is
    thinking on an action request whose deadline has not passed (the move clock decides then:
    many bots think, then read).

    ``send(message)`` queues a message to the client; ``drop(reason)`` ends the connection.
    Anything received counts (:meth:`pong`), a ``pong`` of any nonce too (a slow client may
    answer an older ping).
    """

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.last_pong = trio.current_time()
        self.nonce = 0

    def pong(self, nonce: int = 0) -> None:
        """Record a ``pong`` (or any message) from the client."""
        self.last_pong = trio.current_time()

    async def run(
        self,
        send: Callable[[dict[str, Any]], None],
        drop: Callable[[str], None],
        busy: Callable[[], bool] = lambda: False,
    ) -> None:
        """Ping until cancelled or until the client stops answering (then ``drop`` is called)."""
        self.last_pong = trio.current_time()
        while True:
            await trio.sleep(self.interval)
            silent = trio.current_time() - self.last_pong
            if silent >= MISSED_PONGS * self.interval and not busy():
                drop(f"no pong for {silent:.1f} s")
                return
            self.nonce += 1
            send({"type": "ping", "nonce": self.nonce})
