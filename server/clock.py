"""Time on the server: table clocks, per-decision deadlines and the heartbeat (PROTOCOL.md "Flow",
"Clocks").

All times come from :func:`trio.current_time` (monotonic seconds), so tests with a mock clock
and real runs behave alike. Never wall-clock time.
"""

from __future__ import annotations

import heapq
import itertools
import math
from array import array
from collections import deque
from typing import Any

import trio

from quinze_protocol.fields import MAX_MOVE_TIME
from quinze_server.config import THINKING_LONG  # noqa: F401 - kept here too: the default of ServerConfig.thinking_long
from quinze_server.wire import pack, rounded

MISSED_PONGS = 3
"""A client that sends nothing for this many heartbeats is dropped (PROTOCOL.md "Flow" 7): at that
moment, whether its last message came just after a ping or not."""


BEATS_PER_SLICE = 64
"""Connections the heartbeat handles before it lets other tasks run (pings come in bursts: every
connection greeted in the same second is due in the same second)."""


class DecisionTimer:
    """The time of one decision: ``started`` when it began, ``at`` the instant it is due,
    ``seconds`` after (trio clock; ``math.inf``: never, a table without a clock). On the wire a
    deadline is always a duration, the seconds left (:meth:`wire`); an instant is never sent."""

    __slots__ = ("at", "started", "seconds")

    def __init__(self, seconds: float, now: float | None = None) -> None:
        self.started = trio.current_time() if now is None else now
        self.at = self.started + seconds
        self.seconds = seconds

    def left(self, now: float | None = None) -> float:
        """Seconds left at ``now`` (trio clock; None: read it) (0.0 once passed, never more than
        it was given: read at its start, ``at - now`` may be a rounding above); what
        ``action-request.deadline`` carries."""
        return max(0.0, min(self.seconds, self.at - (trio.current_time() if now is None else now)))

    @property
    def expired(self) -> bool:
        return trio.current_time() >= self.at

    def wire(self, now: float | None = None) -> float:
        """``action-request.deadline``: the seconds left at ``now`` (None: read the clock), at
        most a day (never infinite)."""
        return min(self.left(now), MAX_MOVE_TIME)


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
        self._packed: dict[int, tuple[float, bytes, float]] = {}  # per-move clock: seat -> (wire_left, packed_state, its left)
        self.new_game()

    def new_game(self) -> None:
        """Every bank back to ``base`` (the clock starts afresh with each game)."""
        self.bank = [float(self.spec.get("base", 0.0))] * self.seats

    def start(self, seat: int, now: float | None = None) -> DecisionTimer:
        """The timer of a decision of ``seat`` starting at ``now`` (trio clock; None: read it)."""
        if self.kind == "move":
            own = self.seat_move_times[seat] if seat < len(self.seat_move_times) else None
            return DecisionTimer(self.spec["move"] if own is None else own, now)
        if self.kind == "bank":
            return DecisionTimer(self.bank[seat], now)
        return DecisionTimer(math.inf, now)

    def stop(self, seat: int, timer: DecisionTimer, now: float | None = None) -> None:
        """The decision of ``seat`` (``timer``) was played at ``now`` (trio clock; None: now)."""
        if self.kind == "bank":
            self.bank[seat] = timer.left(now) + self.spec.get("increment", 0.0)

    def state(self, running: int | None = None, timer: DecisionTimer | None = None, now: float | None = None) -> dict[str, Any]:
        """The clock state sent to clients: ``{"kind", "left": [seconds | None per seat]}``; the
        seat ``running`` (to act, ``timer``) with the time it has left at ``now`` (trio clock;
        None: read it)."""
        if running is not None and timer is not None:
            return self.state_left(running, timer.wire(now))
        return self.state_left(None, 0.0)

    def packed_state(self, running: int, wire_left: float) -> bytes:
        """:func:`quinze_server.wire.pack` of :meth:`state_left` (``wire_left``: the running
        seat's :meth:`DecisionTimer.wire` now, the ``deadline`` of its request). With a per-move
        clock the state of each seat's request is nearly always the same (its seconds in full):
        its encoding is kept per seat, with the value it was made for (the same value of the same
        type, as msgpack tells an int from a float)."""
        if self.kind != "move":
            return pack(self.state_left(running, wire_left))
        kept = self._packed
        got = kept.get(running)
        if got is not None and got[0] == wire_left and type(got[0]) is type(wire_left):
            return got[1]  # the same seconds left: the same state (not even rounded again)
        left = rounded(wire_left, 3)
        if got is not None and got[2] == left and type(got[2]) is type(left):
            body = got[1]
        else:
            body = pack(self.state_left(running, wire_left))
        kept[running] = (wire_left, body, left)
        return body

    def state_left(self, running: int | None, wire_left: float) -> dict[str, Any]:
        """:meth:`state` with the running seat's :meth:`DecisionTimer.wire` already read
        (``wire_left``, seconds; ignored when ``running`` is None)."""
        left: list[float | None]
        if self.kind == "move":  # the usual clock, the same map as below in fewer steps
            left = [None] * self.seats
            if running is not None:
                left[running] = rounded(wire_left, 3)
            return {"kind": "move", "left": left, "move": self.spec["move"]}
        if self.kind == "bank":
            left = [round(b, 3) for b in self.bank]
        else:
            left = [None] * self.seats
        if running is not None and self.kind != "none":
            left[running] = round(wire_left, 3)
        out: dict[str, Any] = {"kind": self.kind, "left": left}
        if self.kind == "bank":
            out["increment"] = self.spec.get("increment", 0.0)
        elif self.kind == "move":
            out["move"] = self.spec["move"]
        return out


class Heartbeat:
    """One connection's heartbeat state, kept by the server's :class:`Heartbeats`: when it last
    heard from the client and the last ping's nonce. Anything received counts (:meth:`pong`), a
    ``pong`` of any nonce too (a slow client may answer an older ping).

    Its times and nonce are kept in one array made with it, written in place: a connection that
    stays (an idle one in the lobby) renews no object while tables play, so none of its state
    lands among the tables' objects, where it would keep their memory (an allocator arena) from
    going back to the system once they close (docs/server-rounds-early.md, "Memory returned")."""

    __slots__ = ("_t", "generation", "conn")

    def __init__(self) -> None:
        self._t = array("d", (trio.current_time(), 0.0, 0.0, 0.0))  # last pong, hello due, ping due, nonce
        self.generation = 0
        """Bumped when the connection is greeted or removed: older entries of the schedule are void."""
        self.conn: Any = None
        """The connection, while :class:`Heartbeats` keeps it (the schedule holds this object, not the connection)."""

    @property
    def last_pong(self) -> float:
        """When the client was last heard from (trio clock)."""
        return self._t[0]

    @last_pong.setter
    def last_pong(self, when: float) -> None:
        self._t[0] = when

    @property
    def nonce(self) -> int:
        """The last ping's nonce (0 before the first)."""
        return int(self._t[3])

    def pong(self, nonce: int = 0) -> None:
        """Record a ``pong`` (or any message) from the client."""
        self._t[0] = trio.current_time()

    def pong_at(self, now: float) -> None:
        """Record that the client was heard from at ``now`` (trio clock)."""
        self._t[0] = now


class Heartbeats:
    """The heartbeat of every connection, kept by one task of the server (:meth:`run`) instead of
    a task per connection (fewer tasks: less memory per idle connection, less for the collector
    to walk).

    A connection is added when it opens (:meth:`add`) and must say ``hello`` within
    :data:`MISSED_PONGS` intervals, or it is closed with ``no hello within N s``. Once greeted
    (:meth:`greeted`), it gets a ``ping`` every ``interval`` seconds from its hello on, and is
    dropped once it sent nothing for :data:`MISSED_PONGS` intervals (``no pong for N s``), at
    that moment: a client that answered a ping and then went silent is dropped ``MISSED_PONGS``
    intervals after that answer, not at the first ping after them (up to one interval later:
    40 s instead of 30 at the default 10 s, before). It is not dropped while it thinks on an
    action request whose deadline has not passed (the move clock decides then: many bots think,
    then read); its silence is looked at again at its next ping. A connection that ends is removed (:meth:`remove`): the schedule keeps no reference
    to it, so its memory is freed at once (its entry, a small :class:`Heartbeat`, is dropped at its
    due time, or at once when many connections ended together); one that is closing and not
    removed is forgotten at its next due time.

    The schedule is two queues of :class:`Heartbeat` objects, the hello deadlines and the pings:
    every entry of a queue is due a fixed time after it was queued (``MISSED_PONGS`` intervals, one
    interval), so each queue is in the order of its due times, and an entry's due time is kept in
    its heartbeat's own array. Scheduling a ping makes no new object (no heap entry, no time):
    nothing of an idle connection's heartbeat is allocated while the tables play. The one
    exception is a connection found at a ping to reach its silence limit before its next ping
    (silent for more than ``MISSED_PONGS - 1`` intervals, off the ping's beat): its drop time goes
    on a heap (``_silent``), looked at then; a client that answers its pings never gets there.

    The connections only need ``heartbeat`` (a :class:`Heartbeat`), ``closing``, ``send(msg)``,
    ``close(reason)`` and ``awaiting_move()``.
    """

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._hello: deque[Heartbeat] = deque()  # added, due to have said hello by their _t[1]
        self._pings: deque[Heartbeat] = deque()  # greeted, due to be pinged at their _t[2]
        self._silent: list[tuple[float, int, Heartbeat]] = []  # heap: (drop time, tie, heartbeat) of the nearly silent
        self._ties = itertools.count()
        self._void = 0  # connections removed since the schedule was last compacted
        self._live = 0  # connections added and not removed
        self._wake = trio.Event()

    def __len__(self) -> int:
        return len(self._hello) + len(self._pings) + len(self._silent)

    def add(self, conn: Any) -> None:
        """A new connection: it has :data:`MISSED_PONGS` intervals to say hello."""
        beat = conn.heartbeat
        if beat.conn is None:
            self._live += 1
        beat.conn = conn
        t = beat._t
        t[0] = trio.current_time()
        t[1] = t[0] + MISSED_PONGS * self.interval
        self._hello.append(beat)
        if len(self._hello) == 1:  # due after every entry queued before it: only a first one changes the wait
            self._wake.set()

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
        before = len(self)
        self._hello = deque(b for b in self._hello if b.conn is not None and b.generation == 0)
        self._pings = deque(b for b in self._pings if b.conn is not None)
        self._silent = [e for e in self._silent if e[2].conn is not None]
        heapq.heapify(self._silent)
        self._void = 0
        return before - len(self)

    def greeted(self, conn: Any) -> None:
        """``conn`` said hello: its pings start, the first one an interval from now."""
        beat = conn.heartbeat
        if beat.conn is not conn or beat.generation:  # removed already (or never added), or greeted
            return
        beat.generation = 1
        t = beat._t
        t[0] = trio.current_time()
        t[2] = t[0] + self.interval
        self._pings.append(beat)
        if len(self._pings) == 1:
            self._wake.set()

    def _next_due(self) -> float:
        hello, pings, silent = self._hello, self._pings, self._silent
        first = hello[0]._t[1] if hello else math.inf
        if silent:
            first = min(first, silent[0][0])
        return min(first, pings[0]._t[2]) if pings else first

    async def run(self) -> None:
        """Ping and drop, until cancelled."""
        while True:
            self._wake = trio.Event()  # set by a first entry of a queue: it may be due before the other queue's first
            due = self._next_due()
            if due < math.inf:
                with trio.move_on_at(due):
                    await self._wake.wait()
            else:
                await self._wake.wait()
            await self._due(trio.current_time())

    async def _due(self, now: float) -> None:
        """Close those that did not say hello and ping the greeted, as due by ``now``. A method of
        its own, so that what it looked at is let go when it returns: kept in the sleeping task's
        locals until its next due time (up to an interval), a queue replaced by :meth:`compact`
        kept every ended connection's :class:`Heartbeat` alive (500 of them, with their arrays, on
        50 pools of CPython's allocator after 250 tables closed: docs/server-rounds-mid.md, seventh round), and
        the last connection pinged stayed alive after it ended."""
        hello_wait = MISSED_PONGS * self.interval
        beats = 0
        hello = self._hello
        while hello and hello[0]._t[1] <= now:
            beats += 1
            if beats % BEATS_PER_SLICE == 0:  # thousands due at once: let the tables run between
                await trio.lowlevel.checkpoint()
                hello = self._hello  # (compacted meanwhile)
                if not hello or hello[0]._t[1] > now:
                    break
            beat = hello.popleft()
            conn = beat.conn
            if conn is None or conn.closing or beat.generation:  # gone, or greeted in time
                continue
            conn.close(f"no hello within {hello_wait:g} s")
        pings = self._pings
        while pings and pings[0]._t[2] <= now:
            beats += 1
            if beats % BEATS_PER_SLICE == 0:
                await trio.lowlevel.checkpoint()
                pings = self._pings
                if not pings or pings[0]._t[2] > now:
                    break
            beat = pings.popleft()
            conn = beat.conn
            if conn is None or conn.closing:
                continue
            t = beat._t
            silent = now - t[0]
            if silent >= hello_wait and not conn.awaiting_move():
                conn.close(f"no pong for {silent:.1f} s")
                continue
            t[3] += 1.0
            conn.send({"type": "ping", "nonce": int(t[3])})
            t[2] = trio.current_time() + self.interval  # (not `now`: the queue stays in order across the slices)
            pings.append(beat)
            drop = t[0] + hello_wait
            if now < drop < t[2]:  # silent up to its limit before the next ping: looked at then
                heapq.heappush(self._silent, (drop, next(self._ties), beat))
        silent_heap = self._silent
        while silent_heap and silent_heap[0][0] <= now:
            beat = heapq.heappop(silent_heap)[2]
            conn = beat.conn
            if conn is None or conn.closing:
                continue
            if beat._t[0] + hello_wait <= now and not conn.awaiting_move():  # heard nothing since: its limit
                conn.close(f"no pong for {now - beat._t[0]:.1f} s")
