"""Time on the server: table clocks, per-decision deadlines and the heartbeat (PROTOCOL.md "Flow",
"Clocks").

All times come from :func:`trio.current_time` (monotonic seconds), so tests with a mock clock
and real runs behave alike. Never wall-clock time.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import trio

from quinze_protocol.fields import MAX_MOVE_TIME
from quinze_server.config import THINKING_LONG  # noqa: F401 - kept here too: the default of ServerConfig.thinking_long

MISSED_PONGS = 3
"""A client that answers no ping for this many heartbeats is dropped."""


BEATS_PER_SLICE = 64
"""Connections the heartbeat handles before it lets other tasks run (pings come in bursts: every
connection greeted in the same second is due in the same second)."""


class DecisionTimer:
    """The time of one decision: ``started`` when it began, ``at`` the instant it is due,
    ``seconds`` after (trio clock; ``math.inf``: never, a table without a clock). On the wire a
    deadline is always a duration, the seconds left (:meth:`wire`); an instant is never sent."""

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

    :meth:`new_game` fills each seat's bank; :meth:`start` gives the :class:`DecisionTimer` of a
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

    def start(self, seat: int) -> DecisionTimer:
        if self.kind == "move":
            own = self.seat_move_times[seat] if seat < len(self.seat_move_times) else None
            return DecisionTimer(self.spec["move"] if own is None else own)
        if self.kind == "bank":
            return DecisionTimer(self.bank[seat])
        return DecisionTimer(math.inf)

    def stop(self, seat: int, timer: DecisionTimer) -> None:
        """The decision of ``seat`` (``timer``) was played now."""
        if self.kind == "bank":
            self.bank[seat] = timer.left() + self.spec.get("increment", 0.0)

    def state(self, running: int | None = None, timer: DecisionTimer | None = None) -> dict[str, Any]:
        """The clock state sent to clients: ``{"kind", "left": [seconds | None per seat]}``; the
        seat ``running`` (to act, ``timer``) with the time it has left now."""
        left: list[float | None]
        if self.kind == "bank":
            left = [round(b, 3) for b in self.bank]
        else:
            left = [None] * self.seats
        if running is not None and timer is not None and self.kind != "none":
            left[running] = round(timer.wire(), 3)
        out: dict[str, Any] = {"kind": self.kind, "left": left}
        if self.kind == "bank":
            out["increment"] = self.spec.get("increment", 0.0)
        elif self.kind == "move":
            out["move"] = self.spec["move"]
        return out


class Heartbeat:
    """One connection's heartbeat state, kept by the server's :class:`Heartbeats`: when it last
    heard from the client and the last ping's nonce. Anything received counts (:meth:`pong`), a
    ``pong`` of any nonce too (a slow client may answer an older ping)."""

    __slots__ = ("last_pong", "nonce", "generation", "conn")

    def __init__(self) -> None:
        self.last_pong = trio.current_time()
        self.nonce = 0
        self.generation = 0
        """Bumped when the connection is scheduled anew or removed: older entries of the schedule are void."""
        self.conn: Any = None
        """The connection, while :class:`Heartbeats` keeps it (the schedule holds this object, not the connection)."""

    def pong(self, nonce: int = 0) -> None:
        """Record a ``pong`` (or any message) from the client."""
        self.last_pong = trio.current_time()


class Heartbeats:
    """The heartbeat of every connection, kept by one task of the server (:meth:`run`) instead of
    a task per connection (fewer tasks: less memory per idle connection, less for the collector
    to walk).

    A connection is added when it opens (:meth:`add`) and must say ``hello`` within
    :data:`MISSED_PONGS` intervals, or it is closed with ``no hello within N s``. Once greeted
    (:meth:`greeted`), it gets a ``ping`` every ``interval`` seconds from its hello on, and is
    dropped when it sent nothing for :data:`MISSED_PONGS` intervals, unless it is thinking on an
    action request whose deadline has not passed (the move clock decides then: many bots think,
    then read). A connection that ends is removed (:meth:`remove`): the schedule keeps no reference
    to it, so its memory is freed at once (its entry, a small :class:`Heartbeat`, is dropped at its
    due time, or at once when many connections ended together); one that is closing and not
    removed is forgotten at its next due time.

    The connections only need ``heartbeat`` (a :class:`Heartbeat`), ``closing``, ``send(msg)``,
    ``close(reason)`` and ``awaiting_move()``.
    """

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._due: list[tuple[float, int, int, Heartbeat]] = []  # heap of (due, order, generation, heartbeat)
        self._order = 0
        self._void = 0  # connections removed since the schedule was last compacted
        self._live = 0  # connections added and not removed
        self._wake = trio.Event()

    def __len__(self) -> int:
        return len(self._due)

    def _schedule(self, beat: Heartbeat, due: float) -> None:
        self._order += 1
        heapq.heappush(self._due, (due, self._order, beat.generation, beat))
        self._wake.set()

    def add(self, conn: Any) -> None:
        """A new connection: it has :data:`MISSED_PONGS` intervals to say hello."""
        beat = conn.heartbeat
        if beat.conn is None:
            self._live += 1
        beat.conn = conn
        beat.last_pong = trio.current_time()
        self._schedule(beat, trio.current_time() + MISSED_PONGS * self.interval)

    def remove(self, conn: Any) -> None:
        """``conn`` ended: no more pings, and no reference to it is kept."""
        beat = conn.heartbeat
        if beat.conn is None:  # never added, or removed already
            return
        beat.conn = None
        beat.generation += 1
        self._live -= 1
        self._void += 1
        # Many ended at once (a quarter as many as are left): drop their entries now, each
        # connection having one or two (its hello deadline, its next ping).
        if self._void > 64 and 4 * self._void > self._live:
            self.compact()

    def compact(self) -> int:
        """Drop the entries of ended connections now (instead of at their due time); how many."""
        before = len(self._due)
        self._due = [e for e in self._due if e[3].conn is not None and e[2] == e[3].generation]
        heapq.heapify(self._due)
        self._void = 0
        return before - len(self._due)

    def greeted(self, conn: Any) -> None:
        """``conn`` said hello: its pings start, the first one an interval from now."""
        beat = conn.heartbeat
        if beat.conn is not conn:  # removed already (or never added)
            return
        beat.generation += 1
        beat.last_pong = trio.current_time()
        self._schedule(beat, beat.last_pong + self.interval)

    async def run(self) -> None:
        """Ping and drop, until cancelled."""
        while True:
            self._wake = trio.Event()  # set by every new entry: it may be due before the first one
            if self._due:
                with trio.move_on_at(self._due[0][0]):
                    await self._wake.wait()
            else:
                await self._wake.wait()
            now = trio.current_time()
            beats = 0
            while self._due and self._due[0][0] <= now:
                beats += 1
                if beats % BEATS_PER_SLICE == 0:  # thousands due at once: let the tables run between
                    await trio.lowlevel.checkpoint()
                _, _, generation, beat = heapq.heappop(self._due)
                conn = beat.conn
                if conn is None or conn.closing or generation != beat.generation:
                    continue
                if generation == 0:  # not greeted in time
                    conn.close(f"no hello within {MISSED_PONGS * self.interval:g} s")
                    continue
                silent = now - beat.last_pong
                if silent >= MISSED_PONGS * self.interval and not conn.awaiting_move():
                    conn.close(f"no pong for {silent:.1f} s")
                    continue
                beat.nonce += 1
                conn.send({"type": "ping", "nonce": beat.nonce})
                self._schedule(beat, now + self.interval)
