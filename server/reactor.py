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

What the reader did stays the same, in ``serve``: every :data:`SLICE`
seconds of handling the other tasks run (tables, writers, the heartbeat), and a connection over
its share of the server's time (``cpu_share``, ``cpu_burst``) is held, not read, until it is
back within it. Elsewhere than Linux (no epoll), and on streams that are not sockets, each
connection keeps its own reader task.
"""

from __future__ import annotations

import heapq
import logging
import select
import time
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from quinze_server.connection import ClientConnection

log = logging.getLogger("quinze.server")

AVAILABLE = hasattr(select, "epoll")
"""True where the reactor can run (Linux's epoll)."""
SLICE = 0.0005
"""Seconds of handling after which a reader lets the other tasks run before its next message."""
MORE = -1.0
"""What :meth:`ClientConnection.serve` returns when the connection has more to read or handle now."""
STOP = -2.0
"""What :meth:`ClientConnection.serve` returns when the connection is closing: its socket is read no more."""
_EVENTS = (select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLET) if AVAILABLE else 0


class Reactor:
    """The sockets of every connection that :meth:`add` gave it, read by :meth:`run` (one task of
    the server's nursery). ``slice_``: seconds of handling before the other tasks run."""

    def __init__(self, slice_: float) -> None:
        self.slice = slice_
        self._ep = select.epoll()
        self._conns: dict[int, ClientConnection] = {}
        self._ready: dict[int, None] = {}  # descriptors to serve, in the order they became ready
        self._held: list[tuple[float, int]] = []  # heap of (due, fd): connections over their share
        self._holding: dict[int, float] = {}  # fd -> when it is read again

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

    async def run(self) -> None:
        """Serve the readable connections until cancelled. One connection's failure is its own
        (logged, the connection dropped): the others are served on."""
        ep, conns, ready, held, holding = self._ep, self._conns, self._ready, self._held, self._holding
        clock = time.perf_counter
        try:
            busy = False  # the last round served more than one connection
            while True:
                # Under load the next events are usually there already: look first (no sleep, no
                # re-registration in trio's epoll). After a round of one connection, the machine
                # is quiet: sleeping at once spares the look (a system call per move).
                events = ep.poll(0, len(conns) + 1) if busy or ready else []
                if not events and not ready and not (held and held[0][0] <= trio.current_time()):
                    # Nothing to do: sleep in trio's epoll until this one has events.
                    if held:
                        with trio.move_on_at(held[0][0]):
                            await trio.lowlevel.wait_readable(ep.fileno())
                    else:
                        await trio.lowlevel.wait_readable(ep.fileno())
                    events = ep.poll(0, len(conns) + 1)
                else:
                    await trio.lowlevel.checkpoint()  # the other tasks run (tables, writers, heartbeat)
                for fd, _ in events:
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
                while ready:
                    fd = next(iter(ready))
                    del ready[fd]
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
                    if after == MORE:
                        ready[fd] = None  # at the end of the queue
                    elif after == STOP:
                        self.remove(conn)
                    elif after > 0:  # its events are let pass meanwhile: it is read when released
                        due = trio.current_time() + after
                        holding[fd] = due
                        heapq.heappush(held, (due, fd))
                    if clock() - start > self.slice:
                        break
                busy = served > 1
        finally:
            ep.close()
