"""One client connection: one task that reads, a writer task only while frames wait to be sent,
and its entry in the server's heartbeat (:class:`quinze_server.clock.Heartbeats`; PROTOCOL.md
"Framing").

- On Linux the server's one reader (:class:`quinze_server.reactor.Reactor`) reads the socket
  when bytes arrive (:meth:`ClientConnection.serve`: one read, no stream wrappers, no task of
  its own waiting); elsewhere the connection's task waits for the socket to be readable and reads
  it itself (POSIX, as the direct writes below; another stream is read through its
  ``receive_some``). Either feeds the bytes to :class:`quinze_protocol.framing.FrameDecoder` and hands each map
  to the server's handler. A fatal framing error (``frame-too-large``, ``not-msgpack``) gets
  ``error`` then ``bye`` and the connection is closed; a well-framed bad message (``not-a-map``,
  ``bad-utf8``) gets ``error`` and the connection stays.
- Sending never blocks the sender: :meth:`ClientConnection.send` writes the encoded frame at once
  when nothing waits before it and the socket takes it, else puts it on a BOUNDED queue
  (``ServerConfig.send_queue`` frames) drained by a writer task started for it (it ends when the
  queue is empty: an idle connection has no writer task). A client whose queue is
  full, or whose one frame takes longer than ``send_timeout`` seconds to send, is not reading:
  it is dropped, and the tables it sits at go on without it.
- While the server handles one received message, the replies for a client whose writer is idle
  are gathered and written at the end with one non-blocking write (what does not fit goes to the
  queue): a move costs no task switch on the way out. A frame sent outside a handled message
  (pings, a table's own messages) to an idle writer is written at once the same way.
- Everything that goes wrong with one connection stays in it: the connection task never raises.
- One connection cannot take the server from the others: a frame holds at most
  ``ServerConfig.max_elements`` values (``too-many-elements``, read in well under a millisecond),
  the reader serves the next connection after :data:`SLICE` seconds of one's handling (and lets
  the other tasks run every :data:`quinze_server.reactor.ROUND` seconds), and a connection
  whose messages used more than its share of the time (``cpu_share``, ``cpu_burst``) is not
  read again until it is back within it (TCP holds its next bytes: nothing is lost). The moves
  it plays are not charged (a fast bot in a match is never slowed down): everything else is,
  reading and refusing bad frames, errors, refused actions, lobby messages.

A graceful close (:meth:`ClientConnection.close`) queues ``bye``, lets the writer send what is queued,
half-closes the socket and reads what the client still sends for a moment (so the kernel does not
reset the connection and lose the ``bye``). :meth:`ClientConnection.abort` drops the client: nothing
more is read or sent from then on, and its task, which does the cleanup (the tables told, the
socket closed, the log line), is cancelled at once, or, for a connection the reactor reads, in one
of the reactor's next rounds (:data:`quinze_server.reactor.CLOSES` per round): a thousand clients
closing together do not hold up the others' frames for their cleanups. The end of a graceful close
goes the same way.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from array import array
from typing import TYPE_CHECKING, Any

import trio

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import FrameDecoder
from quinze_protocol.session import ServerSession
from quinze_server.clock import Heartbeat
from quinze_server.reactor import MORE, SLICE, STOP
from quinze_server.wire import ANSWERABLE

if TYPE_CHECKING:
    from quinze_server.reactor import Reactor
    from quinze_server.server import Server
    from quinze_server.table import Table

log = logging.getLogger("quinze.server")

RECEIVE_SIZE = 65536
DIRECT_WRITES = sys.platform != "win32"
"""Write replies straight to the (non-blocking) socket when the writer task is idle (POSIX)."""
LINGER = 1.0
"""Seconds a closing connection waits for the client's end of stream after ``bye``."""


class ClientConnection:
    """The server's end of one client's connection (the client's end is
    :class:`quinze_cli.client.Connection`). ``name``/``role`` come from ``hello``; ``tables`` are those it sits at or watches."""

    def __init__(self, server: Server, stream: trio.abc.Stream, cid: int) -> None:
        self.server = server
        self.config = server.config
        self.stream = stream
        self.id = cid
        sock = getattr(stream, "socket", None)  # None: an in-memory stream (tests)
        try:
            host, port = sock.getpeername()[:2] if sock is not None else ("memory", 0)
            self.peer = f"{host}:{port}"
        except OSError:
            self.peer = "?"
        self._direct_ok = DIRECT_WRITES and sock is not None
        self.fd = sock.fileno() if sock is not None and self._direct_ok else -1
        """The socket's descriptor, read and written directly (-1: through the stream's methods)."""
        config = self.config
        self._dec = FrameDecoder(config.max_frame, max_elements=config.max_elements)
        # Seconds of handling this connection may still use now, and when that was reckoned
        # (trio clock): written in place, so that a connection that stays renews no object
        # (see quinze_server.clock.Heartbeat).
        self._share = array("d", (config.cpu_burst, trio.current_time()))
        self._buffered = False  # frames read and not yet handled (serve stopped after SLICE)
        self.peer_closed = False
        """The reactor saw the client close its side (its epoll's ``EPOLLRDHUP``/``EPOLLHUP``): the
        socket is read again after each read until its end of input (that event comes once)."""
        self.name: str | None = None
        self.role: str | None = None
        self.session = ServerSession()
        """The conversation's state (handshake, ready, closed): :mod:`quinze_protocol.session`."""
        self.tables: set[Table] = set()
        self.heartbeat = Heartbeat()
        self.closing = False
        self._graceful = False
        self._eof = False  # close(): the writer half-closes the socket once the queue is sent
        self._queue: list[bytes] = []  # frames waiting for the writer (a list: 56 bytes, a deque 760)
        self._writing = False  # a writer task runs (sending, or about to)
        self._nursery: trio.Nursery | None = None
        self._scope: trio.CancelScope | None = None
        self._reactor: Reactor | None = None  # the reactor reading this socket (set by run)
        self._ending = False  # the task's end was asked (the reactor's queue of ends holds it)
        self._why = ""  # why the connection ended, for the log
        self._direct: list[bytes] = []  # frames gathered during one handled message
        self.moves = 0
        """Actions of this client that were played (their handling is not charged to its share)."""
        self.asked: tuple[bytes, list[bytes], str, int] | None = None
        """The last ``action-request`` sent to this client whose answer may be a listed entry as
        it is (set by the table): the answer's body up to its entry (``TableWire.answer_head``),
        the entries offered, the table and the request; an answer that is such a body is read
        without decoding it (:meth:`_listed`)."""
        self._limit = config.max_frame if config.max_elements is None else config.max_elements

    def __repr__(self) -> str:
        return f"<connection {self.id} {self.name or '?'} {self.peer}>"

    # ------------------------------------------------------------------ sending (never blocks)

    def send(self, msg: dict[str, Any]) -> None:
        """Queue ``msg`` for the client; drops the client if its queue is full. Ignored once closing.

        While the server handles one message or the reactor serves a round (``server.batch`` is a
        list), frames for a client whose writer is idle are gathered and written at the end in one
        non-blocking write (:meth:`flush`; the reactor's: :data:`quinze_server.reactor.FLUSH`),
        sparing a task switch per reply; anything not written goes to the queue.
        """
        if self.closing:
            return
        frame = self.server.encode(msg)
        if frame is not None:
            self.send_frame(frame)
        elif msg.get("type") != "error":  # never silently: the client is told (the log says why)
            self.error("server-error", f"the server could not send you a {msg.get('type')} message (too large for a "
                                       "frame, or not encodable); the server log says more")

    def send_frame(self, frame: bytes) -> None:
        """Like :meth:`send` with a message already encoded (one encoding for many clients)."""
        if self.closing:
            return
        direct = self._direct
        if direct:  # frames gathered already in this handled message (flush empties it at its end)
            direct.append(frame)
            return
        if self._direct_ok and not self._writing and not self._queue:  # (nothing gathered yet: direct is empty)
            direct.append(frame)
            batch = self.server.batch
            if batch is not None:
                batch.append(self)  # flushed at the end of the handled message or of the reactor's turn
            else:
                # Outside a handled message (a table's own messages, pings): written at once too
                # when nothing waits before it, sparing the writer task a wake-up per frame.
                self.flush()
            return
        self._enqueue(frame)

    def flush(self) -> None:
        """Write the frames gathered by :meth:`send` now, without blocking; the rest is queued."""
        frames = self._direct
        if not frames:
            return
        if self.closing:
            frames.clear()
            return
        data = frames[0] if len(frames) == 1 else b"".join(frames)
        frames.clear()  # (the same list is gathered into again: one list per connection)
        try:
            n = os.write(self.fd, data)
        except BlockingIOError:
            n = 0
        except OSError as e:
            self._lost(e)
            return
        if n < len(data):
            self._enqueue(data[n:])

    def _enqueue(self, frame: bytes) -> None:
        if self._eof or self._ending or (self._scope is not None and self._scope.cancel_called):
            return
        if len(self._queue) >= self.config.send_queue:
            self.abort(f"send queue full ({self.config.send_queue} frames): the client is not reading")
            return
        self._queue.append(frame)
        self._start_writer()

    def _start_writer(self) -> None:
        if not self._writing and self._nursery is not None:
            self._writing = True
            self._nursery.start_soon(self._writer)

    @property
    def greeted(self) -> bool:
        """True once the client is welcomed (its session is ``ready``)."""
        return self.session.greeted

    def greet(self) -> None:
        """The client said ``hello``: its heartbeat starts (pings every ``heartbeat`` seconds)."""
        self.server.heartbeats.greeted(self)

    def _lost(self, e: BaseException) -> None:
        """The socket failed: drop the client; the log says "connection lost" (the error at debug level)."""
        log.debug("%r: %s: %s", self, type(e).__name__, e)
        self.abort("connection lost")

    def error(self, code: str, reason: str, ref: str | None = None, request: int | None = None) -> None:
        """Send ``error`` (PROTOCOL.md "Errors"); ``request``: the id of the action at fault, if known."""
        msg: dict[str, Any] = {"type": "error", "code": code, "reason": reason[:2000], "ref": ref}
        if request is not None:
            msg["request"] = request
        self.send(msg)

    def awaiting_move(self) -> bool:
        """True while this client holds a seat with an open action request whose deadline has
        not passed: it may be thinking without reading, and is not dropped for missing pongs."""
        for table in self.tables:
            p = table.pending
            if p is not None and table.seats[p.seat].conn is self and not p.timer.expired:
                return True
        return False

    def close(self, reason: str) -> None:
        """Send ``bye`` with ``reason`` after what is queued, then close."""
        if self.closing:
            return
        self.send({"type": "bye", "reason": reason})
        if self.closing:  # the bye did not fit: aborted
            return
        frames, self._direct = self._direct, []
        for frame in frames:  # gathered for a direct write: the writer sends them before closing
            self._enqueue(frame)
        if self.closing:
            return
        self._why = self._why or reason
        self.closing = True
        self._eof = True
        self._start_writer()  # sends what is queued, then half-closes

    def abort(self, reason: str, write_gathered: bool = True) -> None:
        """Drop the client now, without waiting for its queue: nothing more is read or sent, and
        the task ends (:meth:`_end`). ``reason``: why, for the log (the first reason given stays).
        The frames gathered for one write in the reactor's round are written first (one
        non-blocking write), unless ``write_gathered`` is False (that write is what failed)."""
        if self._ending or (self._scope is not None and self._scope.cancel_called):
            return
        if write_gathered and self._direct and not self.closing:
            # Replies gathered in the reactor's round (a ``bye`` or the end of input after a
            # message, in the same read): written now, as they were when each message's replies
            # were written at its end; a failed write aborts the connection itself.
            self.flush()
            if self._ending:
                return
        self._why = self._why or reason
        self.closing = True
        self._queue.clear()
        self._end()

    def _end(self) -> None:
        """End the connection's task (its ``finally`` does the cleanup): for a connection the
        reactor reads, in one of its next rounds (:meth:`quinze_server.reactor.Reactor.close_soon`),
        else now. Nothing before the task started."""
        if self._scope is None:
            return
        self._ending = True
        if self._reactor is not None:
            self._reactor.close_soon(self)
        else:
            self._scope.cancel()

    def end_task(self) -> bool:
        """Cancel the connection's task now (the reactor's queue of ends: :meth:`_end`). False if
        it was cancelled already (or never started): nothing done."""
        scope = self._scope
        if scope is None or scope.cancel_called:
            return False
        scope.cancel()
        return True

    # ------------------------------------------------------------------ tasks

    async def run(self) -> None:
        """Serve the connection until it ends. Never raises (but Cancelled)."""
        log.debug("%r connected", self)
        admission = self.server.admission  # opening and closing are charged to the newcomers' share
        clock = time.perf_counter
        start = clock()
        try:
            async with trio.open_nursery() as nursery:
                self._scope = nursery.cancel_scope
                self._nursery = nursery
                if self._queue or self._eof:
                    self._start_writer()
                self.server.heartbeats.add(self)
                reactor = self.server.reactor if self.fd >= 0 else None
                if reactor is not None:
                    try:
                        reactor.add(self)
                    except (OSError, ValueError) as e:  # a closed socket; the reactor's epoll closed (stopping)
                        self._lost(e)
                    else:
                        self._reactor = reactor
                        admission.charge(clock() - start)
                        await trio.sleep_forever()  # the reactor reads; abort() or close() end this
                else:
                    admission.charge(clock() - start)
                    await self._reader()
        except Exception:
            log.exception("%r failed", self)
        finally:
            start = clock()
            self.closing = True
            if self.server.reactor is not None:
                self.server.reactor.remove(self)
            self.server.heartbeats.remove(self)
            try:
                self.server.dropped(self)
            except Exception:
                log.exception("%r: cleanup failed", self)
            admission.charge(clock() - start)
            try:
                if self._graceful:
                    with trio.move_on_after(min(LINGER, self.config.shutdown_grace)):
                        await self._linger()
            finally:
                start = clock()
                sock = getattr(self.stream, "socket", None)
                if isinstance(self.stream, trio.SocketStream) and sock is not None:
                    # What SocketStream.aclose does, less its checkpoint (and aclose_forcefully's
                    # two cancel scopes): a closing connection costs no more trio rounds than this.
                    sock.close()
                else:
                    with trio.CancelScope(shield=True):
                        await trio.aclose_forcefully(self.stream)
                self.server.connections.discard(self)
                self.server.connlog.disconnected(self.name, self.peer, self._why or "connection ended")
                admission.charge(clock() - start)

    async def _writer(self) -> None:
        """Send the queue until it is empty, then end (or half-close the socket after
        :meth:`close`); a send that takes over ``send_timeout`` seconds drops the client."""
        timeout = self.config.send_timeout
        queue = self._queue
        try:
            while queue:
                if len(queue) == 1:
                    data = queue.pop()
                else:  # send what else is queued in one go
                    data = b"".join(queue)
                    queue.clear()
                with trio.move_on_after(timeout) as cs:
                    await self.stream.send_all(data)
                if cs.cancelled_caught:
                    self.abort(f"sending took over {timeout:g} s: the client is not reading")
                    return
            if not self._eof:
                return
            if isinstance(self.stream, trio.abc.HalfCloseableStream):  # TCP is; some test streams are not
                await self.stream.send_eof()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
            self._lost(e)
            return
        finally:
            self._writing = False
        if self._ending:  # dropped meanwhile (abort): no linger
            return
        self._graceful = True
        self._end()

    def serve(self) -> float:
        """For the reactor, when the socket has bytes (or frames are left from the last call):
        handle the frames left, if any, then, if that took less than :data:`SLICE` seconds and
        none is left, read once and handle the frames read, for at most about :data:`SLICE`
        seconds in all. Returns :data:`quinze_server.reactor.MORE` if there is more to read or
        handle (bytes left in the decoder, or a full read), the seconds to wait before reading
        again if the connection used more than its share, else 0 (wait for the next bytes);
        :data:`quinze_server.reactor.STOP` once it is closing (the socket is read no more; what a
        closing connection still reads is its own task's).

        A call that handled frames left from the last one reads the socket in the same call when
        time is left: the bytes that arrived meanwhile had their one event (edge-triggered) while
        the connection was queued, so a call that did not read would send them to the end of the
        queue, a whole pass of the other connections later (docs/server-rounds.md, tenth round)."""
        if self.closing:
            return STOP
        clock = time.perf_counter
        start = clock()
        dec = self._dec
        spent = 0.0
        if self._buffered:  # frames left from the last call: they come before the socket's bytes
            spent, left = self._handle_frames(start)
            if self.closing:
                return STOP
            self._buffered = left
            if left or clock() - start > SLICE:  # the socket is read at the next call
                return self._charge(spent, self.server.now(), MORE)
        try:
            data = os.read(self.fd, RECEIVE_SIZE)
        except BlockingIOError:
            return self._charge(spent, self.server.now(), 0.0) if spent else 0.0
        except OSError as e:
            self._lost(e)
            return STOP
        if not data:
            why = f" mid-frame ({dec.buffered} bytes pending)" if dec.buffered else ""
            self.abort(f"the client closed the connection{why}")
            return STOP
        now = self.server.now()
        try:
            dec.feed(data)
        except ProtocolError as e:
            self._fatal(e)
            return STOP
        newcomer = self.name is None  # not greeted yet: its hello is the newcomers' time too
        used, left = self._handle_frames(start, now)
        if newcomer:
            self.server.admission.charge(spent + used)
        self._buffered = left
        if self.closing:
            return STOP
        # Frames left, a full read (more may wait, with no event to come for it), or the client's
        # side closed (its end is read at the next call: the event that said so will not come
        # again): the socket is read at the next call.
        return self._charge(spent + used, now, MORE if left or len(data) == RECEIVE_SIZE or self.peer_closed else 0.0)

    def _charge(self, spent: float, now: float, after: float) -> float:
        """Charge ``spent`` seconds of handling to this connection's share (``cpu_share``,
        ``cpu_burst``), refilled up to ``now`` (the trio clock at the call's read: one clock
        reading per call; the refill of the time spent comes with the next call's). Returns
        ``after`` (what :meth:`serve` returns), or the seconds to wait before reading again if
        the connection is now over its share."""
        share = self.config.cpu_share
        acct = self._share
        burst, refilled = self.config.cpu_burst, acct[0] + (now - acct[1]) * share
        budget = acct[0] = (refilled if refilled < burst else burst) - spent  # (min, inline)
        acct[1] = now
        if budget < 0:  # over its share: read on once back within it
            return -budget / share
        return after

    async def _reader(self) -> None:
        config = self.config
        dec = self._dec
        share, burst = config.cpu_share, config.cpu_burst
        budget, refilled = burst, trio.current_time()
        clock = time.perf_counter
        fd, wait_readable, read = self.fd, trio.lowlevel.wait_readable, os.read
        try:
            while not self.closing:
                if fd >= 0:
                    # Straight from the socket: wait until it is readable (the task sleeps in the
                    # server's epoll), then one read. Through the stream it would be a read that
                    # fails first (a move's answer is never there yet), and its wrappers.
                    await wait_readable(fd)
                    try:
                        data = read(fd, RECEIVE_SIZE)
                    except BlockingIOError:
                        continue
                else:
                    data = bytes(await self.stream.receive_some(RECEIVE_SIZE))
                if not data:
                    why = f" mid-frame ({dec.buffered} bytes pending)" if dec.buffered else ""
                    self.abort(f"the client closed the connection{why}")
                    return
                start = clock()
                spent = 0.0  # time charged to this connection: everything but the moves it played
                try:
                    dec.feed(data)
                except ProtocolError as e:
                    self._fatal(e)
                    return
                while True:
                    used, left = self._handle_frames(start)
                    spent += used
                    if self.closing:
                        return
                    if not left:
                        break
                    await trio.lowlevel.checkpoint()  # let the other connections and tables run
                    start = clock()
                now = trio.current_time()
                budget = min(burst, budget + (now - refilled) * share) - spent
                refilled = now
                if budget < 0:  # over its share: read on once back within it
                    await trio.sleep(-budget / share)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
            self._lost(e)

    def _handle_frames(self, start: float, now: float | None = None) -> tuple[float, bool]:
        """Handle the frames decoded so far, until none is left or :data:`SLICE` seconds have
        passed since ``start`` (a ``time.perf_counter`` reading), for the reactor's ``serve``
        and the connection's own reader alike. The first whole frame (a message, a pong or a
        refused frame) counts as the client heard from at ``now`` (the trio clock, read here when
        None); the bytes of an unfinished frame do not. Returns ``(seconds, left)``: the seconds charged
        to this connection (all its handling but the moves it played, counted against
        ``ServerConfig.cpu_share``) and whether bytes are left for later (a whole frame or a
        part of one: never true when the decoder is empty, even if the slice is used up). A fatal frame closes the connection
        (``closing`` is then true); a refused one is answered with its ``error`` and skipped."""
        clock, dec = time.perf_counter, self._dec
        spent = 0.0
        t0 = clock()  # then each frame's end is the next one's start: one reading per frame
        heard = False  # a whole frame came: the client is heard from (bytes of an unfinished one are not)
        while not self.closing:
            moves = self.moves
            try:
                body = dec.next_body()
                if body is None:
                    break
                asked = self.asked
                listed = self._listed(body, asked) if asked is not None and body.startswith(asked[0]) else None
                item = None if listed is not None else dec.decode(body)
            except ProtocolError as e:
                if e.fatal:
                    self._fatal(e)
                    break
                self.error(e.code, e.message_text(), e.ref, e.request)
                item = listed = None  # nothing to handle: the frame was refused
            if not heard:
                heard = True
                self.heartbeat.pong_at(self.server.now() if now is None else now)
            if listed is not None:
                self.server.handle_listed(self, *listed)
            elif item:
                self.server.handle(self, item)
            t1 = clock()
            if self.moves == moves:
                spent += t1 - t0
            if t1 - start > SLICE:  # let the other connections and tables run
                return spent, dec.buffered > 0 and not self.closing  # (a part of a frame counts as left)
            t0 = t1
        return spent, False

    def _listed(self, body: bytes, asked: tuple[bytes, list[bytes], str, int]) -> tuple[Table, int, int] | None:
        """Whether ``body`` is the answer to the request ``asked`` (:attr:`asked`) naming one of its
        listed entries as it was sent: ``{"type": "action", "table", "request", "action": entry}``,
        those four keys in that order and those very bytes, what the plain path would decode and
        hand to ``Server.handle`` as a well-formed ``action`` (the entry is
        :data:`quinze_server.wire.ANSWERABLE`, the frame within ``max_elements``, the client
        greeted, the table open). Then ``(table, request, index)`` for ``Server.handle_listed``,
        which plays it as that entry without decoding or encoding it again; else None (the body
        is decoded and handled as usual)."""
        head, offered, table_id, request = asked
        entry = body[len(head):]
        if entry not in offered:
            return None
        index = offered.index(entry)
        if offered[index] not in ANSWERABLE or len(body) > self._limit or not self.session.greeted:
            return None
        table = self.server.lobby.tables.get(table_id)
        return None if table is None else (table, request, index)

    def _fatal(self, e: ProtocolError) -> None:
        self.error(e.code, e.message_text(), e.ref)
        self.close(e.code)  # PROTOCOL.md: the bye reason after a fatal error is its code

    async def _linger(self) -> None:
        """Read and discard until the client closes (bounded by the caller's timeout)."""
        try:
            while await self.stream.receive_some(RECEIVE_SIZE):
                pass
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
