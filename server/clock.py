"""Time on the server: table clocks, per-decision deadlines and the heartbeat (PROTOCOL.md "Flow",
"Clocks").

All times come from :func:`trio.current_time` (monotonic seconds), so tests with a mock clock
and real runs behave alike. Never wall-clock time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import trio

from quinze_protocol.fields import MAX_MOVE_TIME

MISSED_PONGS = 3
"""A client that answers no ping for this many heartbeats is dropped."""


THINKING_LONG = 30.0
"""Seconds a seat may decide before the others get ``notice{kind: "thinking"}`` (once per turn)."""


class Deadline:
    """The moment a decision is due: ``seconds`` from now (trio clock); ``math.inf``: never
    (a table without a clock). ``started`` is when the decision began."""

    __slots__ = ("at", "started")

    def __init__(self, seconds: float) -> None:
        self.started = trio.current_time()
        self.at = self.started + seconds

    def left(self) -> float:
        """Seconds left (0.0 once passed); what ``action-request.deadline`` carries."""
        return max(0.0, self.at - trio.current_time())

    @property
    def expired(self) -> bool:
        return trio.current_time() >= self.at

    def wire(self) -> float:
        """``action-request.deadline``: the seconds left, at most a day (never infinite)."""
        return min(self.left(), MAX_MOVE_TIME)


class TableClock:
    """The clock of one table, from its spec (:mod:`quinze_protocol.clocks`: ``move``, ``bank``, ``none``).

    :meth:`new_game` fills each seat's bank; :meth:`start` gives the :class:`Deadline` of a
    decision of ``seat``; :meth:`stop` charges the time it took (``bank``: taken from the bank,
    then the increment added). Seconds, trio clock.
    """

    def __init__(self, spec: dict[str, Any], seats: int, seat_move_times: tuple[float | None, ...] = ()) -> None:
        self.spec = dict(spec)
        self.kind = spec["kind"]
        self.seats = seats
        self.seat_move_times = tuple(seat_move_times)
        """With a per-move clock: a seat's own seconds per decision, where not None."""
        self.bank: list[float] = []
        self.new_game()

    def new_game(self) -> None:
        """Every bank back to ``base`` (the clock starts afresh with each game)."""
        self.bank = [float(self.spec.get("base", 0.0))] * self.seats

    def start(self, seat: int) -> Deadline:
        if self.kind == "move":
            own = self.seat_move_times[seat] if seat < len(self.seat_move_times) else None
            return Deadline(self.spec["move"] if own is None else own)
        if self.kind == "bank":
            return Deadline(self.bank[seat])
        return Deadline(math.inf)

    def stop(self, seat: int, deadline: Deadline) -> None:
        """The decision of ``seat`` (due at ``deadline``) was played now."""
        if self.kind == "bank":
            self.bank[seat] = deadline.left() + self.spec.get("increment", 0.0)

    def state(self, running: int | None = None, deadline: Deadline | None = None) -> dict[str, Any]:
        """The clock state sent to clients: ``{"kind", "left": [seconds | None per seat]}``; the
        seat ``running`` (to act, due at ``deadline``) with the time it has left now."""
        left: list[float | None]
        if self.kind == "bank":
            left = [round(b, 3) for b in self.bank]
        else:
            left = [None] * self.seats
        if running is not None and deadline is not None and self.kind != "none":
            left[running] = round(deadline.wire(), 3)
        out: dict[str, Any] = {"kind": self.kind, "left": left}
        if self.kind == "bank":
            out["increment"] = self.spec.get("increment", 0.0)
        elif self.kind == "move":
            out["move"] = self.spec["move"]
        return out


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
