"""One task reads every client socket (Linux): an edge-triggered epoll of its own, and each
readable connection's messages handled in turn, without a task switch per message.

A connection's reader task used to wait for its socket with ``trio.lowlevel.wait_readable``:
each wait is a re-registration of the socket in trio's epoll (trio arms every descriptor for one
event only, ``EPOLLONESHOT``: an ``epoll_ctl`` call per move), and each wake-up resumes the
task's chain of coroutines. Under load, with hundreds of tables, that chain and the task are
cold in the processor's caches at every move. Here the sockets stay registered for as long as
they live, one task waits for this epoll's own descriptor in trio's, and :meth:`Reactor.run`
calls :meth:`quinze_server.connection.ClientConnection.serve` for each connection with bytes to
read, in the order they arrived. The events are edge-triggered (``EPOLLET``: one event when
new bytes arrive, none for bytes already reported), so every event is followed by a read:
``serve`` reads once and handles the frames read, and a connection with frames left for later
(or held, below) stays queued until a call of ``serve`` that reads the socket again. (Level-
triggered events, reported at every look while bytes wait, cost more than twice the kernel time
per move at 500 tables.) A closing connection is no longer watched.

What the reader did stays the same, in ``serve``: after :data:`SLICE` seconds of one
connection's handling the next connection is served, and a connection over its share of the
server's time (``cpu_share``, ``cpu_burst``) is held, not read, until it is back within it. After
:data:`ROUND` seconds of serving, the other tasks run (tables' timers, writers, the heartbeat, new
connections). Each round of trio's scheduler, with its own look at its epoll, costs about 8 µs;
at 0.5 ms a round there was a third of one per action at 500 tables (docs/server-rounds.md,
tenth round). While a backlog is queued, this epoll is looked at only once it is served: what
the backlog holds became readable before anything the epoll has now, so the order is the same.

A connection that ends (the client closed it or said ``bye``, a fatal frame, a failed write, no
pong) is not ended at once: :meth:`ClientConnection.abort` marks it closing (nothing more is read
or sent) and puts it on the reactor's queue of ends (:meth:`Reactor.close_soon`), and the reactor
cancels the tasks of at most :data:`CLOSES` of them per round, after serving the round's
connections. Each cancelled task then does its cleanup (its tables told, its socket closed, its
log line) in trio's next batch, so a batch holds at most that many of them. Before, a burst of
clients closing together (a bot ladder's thousand) had all their cleanups in the same few
batches, the other connections' frames waiting behind the lot (docs/server.md "Connections in
bulk").

The replies of a round are written together: while the reactor serves, the frames for each
client are gathered (``Server.batch``, :meth:`ClientConnection.send_frame`) and written, one
write per client, every :data:`FLUSH` seconds of serving and at the round's end, not at the end
of each handled message. A write on loopback does the receiver's part in the kernel at once and
wakes its reader if it sleeps; written one at a time, ~70 µs apart at 500 tables, nearly every
write woke the load generator afresh. Written back to back, the first wakes it and the others
find it awake: at 500 tables the server's kernel time per action fell from 23-27 to 15-19 µs
and its throughput rose by about a tenth from that alone, the same number of writes (docs/server-rounds.md,
thirteenth round). A reply waits about :data:`FLUSH` seconds more at most (the time is looked at
between two connections' turns). A connection that ends in the round (a ``bye``, the end of its
input, a failure) has its gathered replies written first (:meth:`ClientConnection.abort`).

Elsewhere than Linux (no epoll), and on streams that are not sockets, each connection keeps its
own reader task.
"""

from __future__ import annotations

import heapq
import logging
import math
import select
import time
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Protocol

import trio

if TYPE_CHECKING:
    from quinze_server.connection import ClientConnection

log = logging.getLogger("quinze.server")

AVAILABLE = hasattr(select, "epoll")
"""True where the reactor can run (Linux's epoll)."""
SLICE = 0.0005
"""Seconds of one connection's handling after which the next connection is served (its frames
left wait for its next turn, at the end of the queue)."""
ROUND = 0.002
"""Seconds of serving connections after which the reactor lets the other tasks run (tables'
timers, the heartbeat, writer tasks, new connections): under a backlog they wait up to this."""
CLOSES = 16
"""Ended connections whose tasks the reactor cancels per round at most (their cleanups run in
trio's next batch); the others wait for the next rounds, the connections' frames served between."""
FLUSH = 0.0005
"""Seconds of serving after which the replies gathered so far in the round are written (and at the
round's end in any case): the longest a reply waits for the others of its round."""
MORE = -1.0
"""What :meth:`ClientConnection.serve` returns when the connection has more to read or handle now."""
STOP = -2.0
"""What :meth:`ClientConnection.serve` returns when the connection is closing: its socket is read no more."""
_EVENTS = (select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLET) if AVAILABLE else 0
_HUP = (select.EPOLLRDHUP | select.EPOLLHUP) if AVAILABLE else 0
"""The events that say the peer will send nothing more (a half-close, a close): edge-triggered,
they come once, often in the same event as the last bytes, so the connection must be read
until its end of input (:attr:`ClientConnection.peer_closed`), not only once."""


class Replies(Protocol):
    """Where the frames for clients are gathered while the reactor serves (the server):
    ``batch`` is the list of connections with frames gathered, None outside a round."""

    batch: list[ClientConnection] | None


class Reactor:
    """The sockets of every connection that :meth:`add` gave it, read by :meth:`run` (one task of
    the server's nursery). ``round_``: seconds of serving connections before the other tasks run
    (:data:`ROUND`); ``flush``: seconds of serving between the writes of the gathered replies
    (:data:`FLUSH`); ``replies``: where they are gathered (None: each handled message writes its
    own)."""

    def __init__(self, round_: float = ROUND, *, flush: float = FLUSH, replies: Replies | None = None) -> None:
        self.round = round_
        self.flush = flush
        self.replies = replies
        self._ep = select.epoll()
        self._conns: dict[int, ClientConnection] = {}
        # Descriptors to serve, in the order they became ready. An OrderedDict: taking the first of a
        # dict (next(iter(...)), then del) walks past every entry deleted since its last resize, a
        # cost that grew with the backlog (1,500 instructions per action at 500 tables under
        # callgrind, docs/server-rounds.md, thirteenth round); popitem(last=False) takes it at once.
        self._ready: OrderedDict[int, None] = OrderedDict()
        self._held: list[tuple[float, int]] = []  # heap of (due, fd): connections over their share
        self._holding: dict[int, float] = {}  # fd -> when it is read again
        self._closes: deque[ClientConnection] = deque()  # ended connections whose task is still to cancel
        self._nap: trio.CancelScope | None = None  # while run() sleeps: cancelled to wake it
        self.ended = 0
        """Tasks of ended connections cancelled so far (:meth:`close_soon`)."""

    def __len__(self) -> int:
        return len(self._conns)

    def add(self, conn: ClientConnection) -> None:
        """Read ``conn``'s socket from now on (bytes already there are reported at once).
        Raises OSError if the descriptor cannot be registered (a closed socket)."""
        fd = conn.fd
        self._ep.register(fd, _EVENTS)
        self._conns[fd] = conn

    def remove(self, conn: ClientConnection) -> None:
        """Stop reading ``conn``'s socket (before it is closed). Never raises."""
        fd = conn.fd
        if self._conns.get(fd) is not conn:
            return
        del self._conns[fd]
        self._ready.pop(fd, None)
        self._holding.pop(fd, None)
        try:
            self._ep.unregister(fd)
        except (OSError, ValueError):
            pass

    def close_soon(self, conn: ClientConnection) -> None:
        """End ``conn``'s task in one of the next rounds (:data:`CLOSES` per round, in the order
        asked): its socket is read no more from now on. ``conn`` is closing already (nothing
        more is read or sent); the cancellation is :meth:`ClientConnection.end_task`. Never raises."""
        self.remove(conn)
        self._closes.append(conn)
        nap = self._nap
        if nap is not None:  # asked from another task while the reactor sleeps: wake it
            nap.cancel()

    def _end_some(self) -> int:
        """Cancel the tasks of the next :data:`CLOSES` connections of the queue; how many."""
        closes = self._closes
        ended = 0
        while closes and ended < CLOSES:
            if closes.popleft().end_task():
                ended += 1
        self.ended += ended
        return ended

    async def run(self) -> None:
        """Serve the readable connections until cancelled. One connection's failure is its own
        (logged, the connection dropped): the others are served on."""
        ep, conns, ready, held, holding, closes = self._ep, self._conns, self._ready, self._held, self._holding, self._closes
        clock = time.perf_counter
        replies = self.replies
        batch: list[ClientConnection] = []  # the connections with replies gathered in this round
        try:
            busy = False  # the last round served more than one connection
            again = False  # the last round queued a connection again (MORE): look at the epoll now
            while True:
                if ready and not again:
                    # A backlog: what it holds became readable before anything the epoll has now,
                    # so the epoll is looked at once it is served (one system call less per round;
                    # the order is the same). Meanwhile the other tasks run.
                    events: list[tuple[int, int]] = []
                    await trio.lowlevel.checkpoint()
                else:
                    # Under load the next events are usually there already: look first (no sleep,
                    # no re-registration in trio's epoll). After a round of one connection, the
                    # machine is quiet: sleeping at once spares the look (a system call per move).
                    events = ep.poll(0, len(conns) + 1) if busy or ready or closes else []
                    if not events and not ready and not closes and not (held and held[0][0] <= trio.current_time()):
                        # Nothing to do: sleep in trio's epoll until this one has events (or
                        # the next held connection is due, or an ended one is queued).
                        with trio.CancelScope(deadline=held[0][0] if held else math.inf) as nap:
                            self._nap = nap
                            await trio.lowlevel.wait_readable(ep.fileno())
                        self._nap = None
                        events = ep.poll(0, len(conns) + 1)
                    else:
                        await trio.lowlevel.checkpoint()  # the other tasks run (tables, writers, heartbeat)
                for fd, ev in events:
                    if ev & _HUP:  # the peer closed its side: its last bytes and its end in one event
                        conn = conns.get(fd)
                        if conn is not None:
                            conn.peer_closed = True
                    if fd in conns and fd not in holding:
                        ready[fd] = None
                if held:
                    now = trio.current_time()
                    while held and held[0][0] <= now:
                        due, fd = heapq.heappop(held)
                        if holding.get(fd) == due:
                            del holding[fd]
                            ready[fd] = None
                start = clock()
                served = 0
                again = False
                flush = self.flush
                if replies is not None:
                    replies.batch = batch
                try:
                    written = start
                    while ready:
                        fd = ready.popitem(last=False)[0]
                        conn = conns.get(fd)
                        if conn is None:
                            continue
                        served += 1
                        try:
                            after = conn.serve()
                        except Exception:  # a bug must not stop every other connection's reading
                            log.exception("%r: reading failed", conn)
                            conn.abort("server error while reading")
                            self.remove(conn)
                            continue
                        if after == MORE:  # at the end of the queue, after what became readable before
                            ready[fd] = None
                            again = True
                        elif after == STOP:
                            self.remove(conn)
                        elif after > 0:  # its events are let pass meanwhile: it is read when released
                            due = trio.current_time() + after
                            holding[fd] = due
                            heapq.heappush(held, (due, fd))
                        t = clock()
                        if batch and t - written > flush:
                            _write(batch)
                            written = t
                        if t - start > self.round:
                            break
                finally:  # whatever happened, nothing gathered is left unwritten
                    if replies is not None:
                        replies.batch = None
                    _write(batch)
                busy = served > 1
                if closes:  # after the round's connections: their cleanups run in trio's next batch
                    self._end_some()
        finally:
            while closes:  # the server stops: no ended connection is left without its cleanup
                closes.popleft().end_task()
            ep.close()


def _write(batch: list[ClientConnection]) -> None:
    """Write what each connection of ``batch`` has gathered (one write each, in the order they
    were gathered), and empty it. Never raises: a failed write drops its connection, and a bug
    in one connection's write is its own (logged, the connection dropped), as in its ``serve``."""
    for conn in batch:
        try:
            conn.flush()
        except Exception:
            log.exception("%r: writing failed", conn)
            conn.abort("server error while writing", write_gathered=False)
    batch.clear()
