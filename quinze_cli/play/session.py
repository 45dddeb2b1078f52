"""The connection side of ``quinze play``: one inbox for server messages, typed lines and Ctrl-C,
reconnection with backoff, and a clean goodbye.

Everything the client reacts to arrives in one trio memory channel as ``(source, item)``:

* ``("server", map, generation, step, settled)``: a server message as data (``Message.to_data()``),
  with what it did in the connection's conversation (:class:`quinze_protocol.session.ClientSession`,
  which every message passes through as it is received): ``step``, what it did at its table
  (:class:`~quinze_protocol.session.Step`, or None), and ``settled``, the lobby question it
  answered (:class:`~quinze_protocol.session.Ask`, or None);
* ``("lost", text, generation, reason)``: the connection of that generation is over (``reason``:
  the server's ``bye`` reason, ``""`` when it said none);
* ``("input", line | None)``: a typed line (None: standard input closed);
* ``("signal", why)``: Ctrl-C or SIGTERM (``why`` ``"interrupt"``), SIGHUP (``"hangup"``: the
  terminal was closed; not under ``nohup``);
* ``("resize", None)``: the terminal was resized (``SIGWINCH``): the console takes the new size
  and :attr:`Session.on_resize` is called (the table screen is drawn again); :meth:`Session.next`
  never returns it.

A lost connection is retried with backoff (:data:`RETRY_DELAYS`, seconds); the table loop then
takes its seat back with the seat token (PROTOCOL.md ``join`` with ``token``). A server that
said ``bye`` with reason ``shutdown`` is not retried (its tables are gone when it comes back):
:class:`Stopped` is raised at once. Ctrl-C, ``quit``
and the end of standard input end the session with :class:`Quit`; the caller sends ``leave``
for a held seat and ``bye``.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import trio
from rich.console import Console

from quinze_protocol.clocks import DEFAULT_BANK
from quinze_protocol.session import Ask, LocalProtocolError, Step
from quinze_cli.client import ClientError, Connection, connect
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.i18n import Catalogue
from quinze_cli.play.terminal import LineReader
from quinze_cli.play.tokens import TokenStore

__all__ = ["Lost", "PlayOptions", "Quit", "RETRY_DELAYS", "Session", "Stopped"]

RETRY_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0)
"""Seconds to wait before each reconnection attempt (about 40 s in all, then give up)."""


@dataclass
class PlayOptions:
    """What ``quinze play`` was asked to do (see :mod:`quinze_cli.commands.play`)."""

    host: str
    port: int
    name: str
    table: str | None = None
    seat: int | None = None
    spectate: str | None = None
    token: str | None = None
    tokens: TokenStore = field(default_factory=TokenStore)
    clock: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_BANK))
    """The clock of the tables created from the lobby (``--clock``; PROTOCOL.md "Clocks")."""
    local: bool = False
    """``--local``: our own table on an embedded server (a deal's summary waits for Enter)."""
    logged: bool = True
    """Whether the games played are written to a replay log (False: ``--local --no-log``; a
    networked server's logging is not known here, and most keep one)."""


class Quit(Exception):
    """The person leaves: ``why`` is ``"quit"``, ``"eof"``, ``"interrupt"`` (Ctrl-C, SIGTERM) or
    ``"hangup"`` (the terminal was closed: SIGHUP, or the end of a terminal's input that hung up)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class Lost(Exception):
    """The connection could not be restored (``str()`` says why)."""


class Stopped(Exception):
    """The server said ``bye`` with reason ``shutdown`` (PROTOCOL.md "Flow"): it stopped, and its
    tables with it, so reconnecting is pointless."""


STOP_REASON = "shutdown"
"""The ``bye`` reason of a server that stops (``quinze_server.app.SHUTDOWN_REASON``)."""


class Session:
    """One person's connection to a server, with the inbox and the screen helpers."""

    def __init__(self, opts: PlayOptions, console: Console, cat: Catalogue, style: CardStyle, reader: LineReader) -> None:
        self.opts = opts
        self.console = console
        self.cat = cat
        self.style = style
        self.reader = reader
        self.send_ch, self.inbox = trio.open_memory_channel[tuple](512)
        self.conn: Connection | None = None
        self.generation = 0
        self.held: str | None = None
        self.failed: str | None = None
        """What the last lobby command ended with when it failed (a seat or table refused, a table
        not found: said already), until the next command; end of input right after it exits 1."""
        """The table where we hold a seat or watch (for the goodbye ``leave``)."""
        self.nursery: trio.Nursery | None = None
        self.on_resize: Callable[[], None] | None = None
        """Called (from :meth:`next`) after the terminal was resized and the console took its size."""
        self.backlog: deque[tuple] = deque()
        self.prompt_open = False
        """A prompt was shown and no line answered it yet (see :meth:`next`)."""
        self.item: tuple = ()
        """The inbox item :meth:`next` returned last, as it came (to keep it for later: :attr:`backlog`)."""
        self.step: Step | None = None
        """What the server message :meth:`next` returned last did at its table (None: nothing, or not a server message)."""
        self.settled: Ask | None = None
        """The lobby question the server message :meth:`next` returned last answered, or None."""

    # ---------------------------------------------------------------- output
    def say(self, text: str, style: str | None = None) -> None:
        """Print one line (no markup interpretation)."""
        self.console.print(text, style=style, markup=False, highlight=False)

    def prompt(self, text: str) -> None:
        """Show a prompt without a newline (the typed line follows it). When standard input is not
        a terminal nothing echoes the answer, so :meth:`next` ends the line once it comes."""
        self.console.print(text, end="", markup=False, highlight=False)
        self.prompt_open = True
        try:
            self.console.file.flush()
        except (OSError, ValueError):
            pass

    # ---------------------------------------------------------------- tasks
    async def start(self, nursery: trio.Nursery) -> None:
        """Start reading standard input and watching Ctrl-C."""
        self.nursery = nursery
        nursery.start_soon(self.reader.run, self.send_ch.send)
        nursery.start_soon(self._signals)
        if self.console.is_terminal and hasattr(signal, "SIGWINCH"):
            nursery.start_soon(self._resizes)

    async def _signals(self) -> None:
        from quinze_cli.interrupt import hung_up, stop_signals

        with trio.open_signal_receiver(*stop_signals()) as signals:
            async for signum in signals:
                await self.send_ch.send(("signal", "hangup" if hung_up(signum) else "interrupt"))

    async def _resizes(self) -> None:
        with trio.open_signal_receiver(signal.SIGWINCH) as signals:
            async for _ in signals:
                await self.send_ch.send(("resize", None))

    def _resized(self) -> None:
        """The console takes the terminal's new size (also over ``COLUMNS``/``LINES``, which
        describe the size at start), then :attr:`on_resize` runs."""
        for fd in (1, 0, 2):
            try:
                size = os.get_terminal_size(fd)
            except OSError:
                continue
            self.console.size = (size.columns, size.lines)
            break
        if self.on_resize is not None:
            self.on_resize()

    async def _pump(self, conn: Connection, generation: int) -> None:
        try:
            while True:
                msg = await conn.receive()
                session = conn.session
                await self.send_ch.send(("server", msg.to_data(), generation, session.step, session.settled))
        except ClientError as err:
            await self.send_ch.send(("lost", str(err), generation, getattr(err, "reason", "")))

    async def connect(self, role: str = "player") -> None:
        """Connect (hello/welcome) and start receiving. Raises ``ClientError`` if unreachable."""
        conn = await connect(self.opts.host, self.opts.port, self.opts.name, role)
        self.conn = conn
        self.generation += 1
        assert self.nursery is not None
        self.nursery.start_soon(self._pump, conn, self.generation)

    async def drop(self) -> None:
        """Forget the connection (the server stopped): no seat held, nothing more to say."""
        if self.conn is not None:
            await self.conn.aclose()
            self.conn = None
        self.held = None
        self.generation += 1  # whatever the old connection still sends is ignored

    async def reconnect(self, reason: str) -> None:
        """The connection is lost: retry with backoff until it is back. Raises :class:`Lost`
        after :data:`RETRY_DELAYS`, :class:`Quit` on Ctrl-C or end of input meanwhile."""
        self.say(self.cat("conn.lost", reason=reason), style="yellow")
        if self.conn is not None:
            await self.conn.aclose()
            self.conn = None
        last = reason
        for attempt, delay in enumerate(RETRY_DELAYS, 1):
            self.say(self.cat("conn.retry", seconds=f"{delay:g}", attempt=attempt, attempts=len(RETRY_DELAYS)))
            with trio.move_on_after(delay):
                while True:  # Ctrl-C and end of input still count while waiting
                    item = await self.inbox.receive()
                    self._check_quit(item)
                    if item[0] == "input":
                        self.say(self.cat("conn.wait"))
            try:
                await self.connect()
            except ClientError as err:
                last = str(err)
                continue
            self.say(self.cat("conn.back"), style="green")
            return
        raise Lost(self.cat("conn.gave-up", reason=last))

    def _check_quit(self, item: tuple) -> None:
        if item[0] == "signal":
            raise Quit(item[1] or "interrupt")
        if item[0] == "input" and item[1] is None:
            if self.reader.hung_up():  # the terminal closed: its SIGHUP may come after this end of input
                from quinze_cli.stdio import drop_lost_streams

                drop_lost_streams()
                raise Quit("hangup")
            raise Quit("eof")

    async def next_line(self) -> tuple[str, bool]:
        """Wait for the next typed line, keeping what the server sends meanwhile, in order, for
        after it (back in :attr:`backlog`, also when this raises). Returns ``(line, resumed)``:
        ``resumed`` when a lost connection was restored meanwhile (:meth:`next`). Raises
        :class:`Quit` for Ctrl-C and end of input, :class:`Stopped` when the server stopped."""
        kept: list[tuple] = []
        resumed = False
        try:
            while True:
                item = await self.next()
                if item is None:  # pragma: no cover - no deadline given
                    continue
                kind, data = item
                if kind == "input":
                    return data or "", resumed
                if kind == "resumed":
                    resumed = True
                else:
                    kept.append(self.item)
        finally:
            self.backlog.extend(kept)

    async def next(self, until: float | None = None) -> tuple[str, Any] | None:
        """The next ``("server", map)`` or ``("input", line)``; None at ``until`` (a
        ``time.monotonic()`` time) if nothing came. A lost connection is restored here (then
        ``("resumed", None)`` is returned so the caller can take its seat back). Raises
        :class:`Quit` for Ctrl-C and end of input, :class:`Stopped` when the server stopped."""
        while True:
            item: tuple | None = None
            if self.backlog:
                item = self.backlog.popleft()
            elif until is None:
                item = await self.inbox.receive()
            else:
                with trio.move_on_after(max(0.0, until - time.monotonic())):
                    item = await self.inbox.receive()
                if item is None:
                    return None
            self._check_quit(item)
            kind = item[0]
            if kind == "resize":
                self._resized()
                continue
            self.item, self.step, self.settled = item, None, None
            if kind == "input":
                if self.prompt_open and not self.reader.interactive:
                    # nothing echoes the line (a pipe, a file): end the prompt's line ourselves
                    self.console.print()
                self.prompt_open = False
                return ("input", item[1])
            if kind in ("server", "lost") and item[2] != self.generation:
                continue  # a message from a connection already given up
            if kind == "lost":
                if len(item) > 3 and item[3] == STOP_REASON:
                    raise Stopped(item[1])
                await self.reconnect(item[1])
                return ("resumed", None)
            if len(item) > 4:
                self.step, self.settled = item[3], item[4]
            return ("server", item[1])

    async def send(self, data: dict[str, Any]) -> Ask | None:
        """Send one message map; a failure is noticed by the receiving side (``lost``). A lobby
        question returns its :class:`~quinze_protocol.session.Ask` (None when it could not be sent)."""
        if self.conn is None:
            return None
        try:
            return await self.conn.send(data)
        except ClientError:
            return None

    async def answer(self, table: str, request: int | None, action: dict[str, Any]) -> bool:
        """Answer the request ``request`` at ``table`` (the one the person saw) with ``action``:
        the conversation builds the ``action`` message (quoting the request in its game's scope).
        False, nothing sent, when that request is no longer the open one (what closed it is on its
        way: a ``game-over``, a refusal)."""
        if self.conn is None:
            return False
        session = self.conn.session
        r = session.open_request(table)
        if r is None or r.request != request:
            return False
        try:
            await self.conn.send(session.answer_data(table, action))
        except (ClientError, LocalProtocolError):
            return False
        return True

    async def goodbye(self, reason: str) -> None:
        """Leave the held table (if any) and say ``bye``; never raises, at most ~2 s."""
        if self.conn is None:
            return
        with trio.move_on_after(2.0):
            if self.held is not None:
                ask = await self.send({"type": "leave", "table": self.held})
                with trio.move_on_after(1.0):
                    while True:
                        item = await self.inbox.receive()
                        if item[0] in ("server", "lost") and item[2] == self.generation:
                            if item[0] == "lost" or item[1].get("type") == "table-closed":
                                break
                            if len(item) > 4 and (item[4] is ask or item[1].get("type") == "error"):
                                break  # the answer to the leave (left, or its error), or another error
            await self.conn.aclose(reason)
        self.conn = None
