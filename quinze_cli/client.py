"""The client side of the wire: one :class:`Connection` to a Quinze server over TCP (PROTOCOL.md,
"Framing" and "Connection").

    conn = await connect("127.0.0.1", 15015, "ana", "player")
    await conn.send({"type": "list-tables"})       # a map or a quinze_protocol.messages.Message
    msg = await conn.receive()                     # a quinze_protocol.messages.Message
    await conn.aclose()

:meth:`Connection.receive` answers the server's ``ping`` with ``pong`` by itself, so whoever
reads the connection keeps it alive (the server drops a client silent for 3 heartbeats). It is
safe to cancel: bytes already read stay in the decoder. Sends are serialised by a lock, so
several tasks may send; each send runs shielded (a cancelled half-sent frame would break the
stream) and gives up after ``send_timeout`` seconds.

The conversation itself is :class:`quinze_protocol.session.ClientSession` (``conn.session``):
every message sent and received passes through it, so it knows each table's state, the running
game and its open request. The lobby questions wait for their answer through it:

    info = await conn.create_table("quinze", {"players": 2}, seed=7)   # TableInfo
    joined = await conn.join(info.table, seat=0)                       # Joined
    await conn.spectate(table); await conn.leave(table)

Errors: :class:`ConnectError` (cannot reach the server, or the handshake failed: wrong version,
name refused), :class:`ConnectionClosed` (the server closed the connection or said ``bye``),
:class:`ServerProtocolError` (the server sent bytes that are not a message),
:class:`RequestRefused` (the server answered a lobby question with ``error``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import trio

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import DEFAULT_MAX_FRAME, FrameDecoder, encode_frame
from quinze_protocol.messages import (
    PROTOCOL_VERSION,
    SERVER_TYPES,
    Bye,
    Error,
    Hello,
    Joined,
    Left,
    Message,
    Spectating,
    TableCreated,
    Tables,
    Welcome,
)
from quinze_protocol.records import TableInfo
from quinze_protocol.session import Ask, ClientSession
from quinze_protocol.transitions import CLOSED
from quinze_cli.locks import QuickLock
from quinze_cli.errors import plain_reason

__all__ = [
    "ClientError",
    "ConnectError",
    "Connection",
    "ConnectionClosed",
    "RequestRefused",
    "ServerProtocolError",
    "connect",
    "greet",
    "parse_address",
]

log = logging.getLogger("quinze.client")


class ClientError(Exception):
    """Base of the client's errors; ``str(err)`` is one line for people."""


class ConnectError(ClientError):
    """The server could not be reached, or refused the hello (``code``: the server's error code,
    e.g. ``version-mismatch``, or ``"unreachable"``)."""

    def __init__(self, message: str, code: str = "unreachable") -> None:
        super().__init__(message)
        self.code = code


class ConnectionClosed(ClientError):
    """The connection is over: the server closed it (``reason`` from its ``bye`` if any)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason


class ServerProtocolError(ClientError):
    """The server sent something that is not a valid message (``error``: the ProtocolError)."""

    def __init__(self, error: ProtocolError) -> None:
        super().__init__(f"the server sent a bad message: {error}")
        self.error = error


class RequestRefused(ClientError):
    """The server answered a lobby question (``create-table``, ``join``, ...) with ``error``
    (``error``: that message; ``code``, ``reason``: its fields)."""

    def __init__(self, error: Error) -> None:
        super().__init__(f"{error.reason} [{error.code}]")
        self.error = error
        self.code = error.code
        self.reason = error.reason


def parse_address(text: str, default_port: int = 15015) -> tuple[str, int]:
    """``"HOST:PORT"`` (or ``"HOST"``, or ``":PORT"``, or ``"[::1]:PORT"``) as ``(host, port)``.
    Raises ``ValueError`` with a clear reason."""
    text = text.strip()
    if not text:
        raise ValueError("an empty server address (expected HOST:PORT)")
    host, port_text = text, ""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ValueError(f"bad server address {text!r}: missing ']'")
        host, rest = text[1:end], text[end + 1 :]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"bad server address {text!r} (expected [HOST]:PORT)")
            port_text = rest[1:]
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    host = host or "127.0.0.1"
    if not port_text:
        return host, default_port
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"bad port {port_text!r} in {text!r} (expected a number 1..65535)") from None
    if not 1 <= port <= 65535:
        raise ValueError(f"bad port {port} in {text!r} (expected 1..65535)")
    return host, port


class Connection:
    """One open connection, after the hello/welcome handshake (use :func:`connect`).

    - ``name``, ``role``: as said in ``hello``;
    - ``welcome``: the server's :class:`~quinze_protocol.messages.Welcome` (``server``, ``heartbeat``).
    """

    def __init__(
        self,
        stream: trio.abc.Stream,
        *,
        name: str,
        role: str,
        max_frame: int = DEFAULT_MAX_FRAME,
        send_timeout: float = 10.0,
    ) -> None:
        self.stream = stream
        self.name = name
        self.role = role
        self.welcome: Welcome | None = None
        self.max_frame = max_frame
        self.send_timeout = send_timeout
        self._decoder = FrameDecoder(max_frame)
        self._send_lock = QuickLock()
        self._closed: ConnectionClosed | None = None
        self._recv_lock = QuickLock()
        self.session = ClientSession(clock=trio.current_time)
        """The conversation (:class:`quinze_protocol.session.ClientSession`): tables, games, requests
        (dated on trio's clock: :attr:`~quinze_protocol.session.Asked.deadline_at`)."""
        self._progress = trio.Event()  # set (and replaced) each time a received message was taken in

    # ------------------------------------------------------------------ sending

    async def send(self, msg: Message | Mapping[str, Any]) -> Ask | None:
        """Send one message (a Message, or a map with a ``"type"``, sent as is). A lobby question
        (``create-table``, ``list-tables``, ``join``, ``spectate``, ``leave``) returns its
        :class:`~quinze_protocol.session.Ask`, settled by the answer once it is received
        (whoever reads the connection); other messages return None.

        Raises :class:`ConnectionClosed` if the connection is gone or the server stopped
        reading for ``send_timeout`` seconds.
        """
        if self._closed is not None:
            raise self._closed
        frame = encode_frame(msg, max_frame=self.max_frame)
        ask = self.session.sent(msg)  # after the encoding: a message that cannot go out changes nothing
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s -> %s", self.name, msg.to_data() if isinstance(msg, Message) else dict(msg))
        await self._send_frame(frame)
        return ask

    async def send_encoded(self, msg: Message | Mapping[str, Any], frame: bytes) -> Ask | None:
        """Send ``msg`` already encoded as ``frame`` (``encode_frame(msg)``: a relay that had to
        know it can be sent encodes it once). Same answer and errors as :meth:`send`."""
        if self._closed is not None:
            raise self._closed
        ask = self.session.sent(msg)
        await self._send_frame(frame)
        return ask

    async def _send_frame(self, frame: bytes) -> None:
        async with self._send_lock:
            # Shielded (a half-sent frame would break the stream), bounded by its own deadline.
            with trio.CancelScope(shield=True, deadline=trio.current_time() + self.send_timeout) as scope:
                try:
                    await self.stream.send_all(frame)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as err:
                    raise self._close_with(f"connection lost while sending ({err.__class__.__name__})") from None
            if scope.cancelled_caught:
                raise self._close_with(f"the server did not read for {self.send_timeout:g} s")

    # ------------------------------------------------------------------ receiving

    async def receive(self) -> Message:
        """The next message from the server, ``ping`` excepted (answered with ``pong`` here).

        A ``bye`` ends the connection: :class:`ConnectionClosed` with its reason. Raises
        :class:`ServerProtocolError` for bytes that are not a message (fatal ones close the
        connection), :class:`ConnectionClosed` at end of stream.
        """
        async with self._recv_lock:
            try:
                data = await self._ended_read()
                return self._parse(data)
            finally:
                self._took_in()  # a question waiting on this read looks again (answered, or the read failed)

    async def receive_maps(self) -> list[dict[str, Any]]:
        """One or more messages as plain maps, NOT validated beyond a known ``"type"``: the next
        one (waiting for it) and every other already received, so a burst is handled at once.

        For relays, which pass maps on: the caller gives each map, in order, to
        ``conn.session.receive_data`` as it handles it (so the session's state is that of the
        message at hand, and says what it did: :class:`~quinze_protocol.session.Step`). Same
        errors as :meth:`receive` (a ``bye`` after some messages is raised at the next call).
        """
        async with self._recv_lock:
            try:
                out = [await self._ended_read()]
                while True:
                    try:
                        more = await self._next_map(block=False)
                    except ClientError:
                        break  # raised again at the next call
                    if more is None:
                        break
                    out.append(more)
                return out
            finally:
                self._took_in()

    async def _ended_read(self) -> dict[str, Any]:
        """The next map, waiting for it. The session is closed only when the connection's end
        (a ``bye``, the stream's end) reaches the caller: the messages that came before a ``bye``
        in the same read (:meth:`receive_maps`) are still handed to the session in the state
        they were sent in (the last ``game-over`` of a shutdown, PROTOCOL.md "Flow" 8)."""
        try:
            data = await self._next_map(block=True)
        except ConnectionClosed:
            self.session.state = CLOSED
            raise
        assert data is not None
        return data

    def _parse(self, data: dict[str, Any]) -> Message:
        try:
            return self.session.receive(data)
        except ProtocolError as err:
            raise ServerProtocolError(err) from None

    def _took_in(self) -> None:
        progress, self._progress = self._progress, trio.Event()
        progress.set()

    async def _next_map(self, *, block: bool) -> dict[str, Any] | None:
        """The next map that is not a ping (pings answered); None when ``block`` is False and no
        complete frame is buffered. ``bye`` closes the connection."""
        while True:
            data = await self._next_data(block)
            if data is None:
                return None
            kind = data.get("type")
            if kind == "ping":
                self._parse(data)  # the session says pong
                for reply in self.session.take_outbox():
                    try:
                        await self.send(reply)
                    except ConnectionClosed:
                        pass
                continue
            if kind == "bye":
                said = data.get("reason")
                reason = said if isinstance(said, str) else ""
                self._decoder = FrameDecoder(self.max_frame)  # nothing after bye counts (PROTOCOL.md "Flow" 8)
                raise self._close_with(f"the server said goodbye: {reason or 'no reason given'}", reason)
            if not isinstance(kind, str) or kind not in SERVER_TYPES:
                raise ServerProtocolError(ProtocolError("unknown-type", f"no server message type {kind!r}", "type"))
            return data

    async def _next_data(self, block: bool) -> dict[str, Any] | None:
        while True:
            if self._closed is not None and self._decoder.buffered == 0:
                raise self._closed
            try:
                data = self._decoder.next_data()
            except ProtocolError as err:
                if err.fatal:
                    self._close_with(f"the server sent a bad frame: {err}")
                raise ServerProtocolError(err) from None
            if data is not None:
                if log.isEnabledFor(logging.DEBUG):
                    log.debug("%s <- %s", self.name, data)
                return data
            if not block:
                return None
            if self._closed is not None:
                raise self._closed
            try:
                chunk = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as err:
                raise self._close_with(f"connection lost ({err.__class__.__name__})") from None
            if not chunk:
                raise self._close_with("the server closed the connection")
            try:
                self._decoder.feed(chunk)
            except ProtocolError as err:
                self._close_with(f"the server sent a bad frame: {err}")
                raise ServerProtocolError(err) from None

    # ------------------------------------------------------------------ lobby questions

    async def create_table(self, game: str, options: Mapping[str, Any] | None = None, **fields: Any) -> TableInfo:
        """``create-table`` (``fields``: those of :class:`~quinze_protocol.messages.CreateTable`:
        ``seed``, ``games``, ``move_time``, ``clock``, ``seat_move_times``, ``position``) and
        wait for ``table-created``: the new table's TableInfo. Raises :class:`RequestRefused`
        (``unknown-game``, ``bad-option``, ``too-many-tables``), ``ProtocolError`` ``bad-field``
        for a field out of range (nothing sent), and the errors of :meth:`send` and :meth:`receive`."""
        self._check_open()
        msg, ask = self.session.create_table(game, options, **{k: v for k, v in fields.items() if v is not None})
        reply = await self._ask(msg, ask)
        assert isinstance(reply, TableCreated)
        return reply.table

    async def list_tables(self, **fields: Any) -> Tables:
        """``list-tables`` (``closed``, ``table``, ``offset``, ``limit``) and its ``tables`` answer."""
        self._check_open()
        msg, ask = self.session.list_tables(**fields)
        reply = await self._ask(msg, ask)
        assert isinstance(reply, Tables)
        return reply

    async def join(self, table: str, seat: int | None = None, token: str | None = None) -> Joined:
        """``join`` (``seat`` None: the first free one; ``token``: take a held seat back) and wait
        for ``joined``. Raises :class:`RequestRefused` (``seat-taken``, ``table-full``,
        ``unknown-table``, ``bad-token``, ``no-clock``, ...)."""
        self._check_open()
        msg, ask = self.session.join(table, seat, token)
        reply = await self._ask(msg, ask)
        assert isinstance(reply, Joined)
        return reply

    async def spectate(self, table: str) -> Spectating:
        """``spectate`` and wait for ``spectating``. Raises :class:`RequestRefused`."""
        self._check_open()
        msg, ask = self.session.spectate(table)
        reply = await self._ask(msg, ask)
        assert isinstance(reply, Spectating)
        return reply

    async def leave(self, table: str) -> Left:
        """``leave`` and wait for ``left`` (leaving a seat while a game runs forfeits it).
        Raises :class:`RequestRefused` (``not-seated``)."""
        self._check_open()
        msg, ask = self.session.leave(table)
        reply = await self._ask(msg, ask)
        assert isinstance(reply, Left)
        return reply

    async def _ask(self, msg: Message, ask: Ask) -> Message:
        """Send a lobby question (already recorded by the session) and wait for its answer. When
        another task reads the connection (a keep-alive reader), its reads settle the question;
        otherwise this reads, and the other messages read meanwhile are not kept."""
        if self._closed is not None:
            raise self._closed
        frame = encode_frame(msg, max_frame=self.max_frame)
        await self._send_frame(frame)
        while not ask.done:
            if self._recv_lock.locked():
                await self._progress.wait()
            else:
                other = await self.receive()
                if not ask.done:
                    log.debug("%s: not the answer to %s: %s", self.name, ask.type, other.type)
        if ask.error is not None:
            raise RequestRefused(ask.error)
        assert ask.reply is not None
        return ask.reply

    def _check_open(self) -> None:
        """Raise :class:`ConnectionClosed` once the connection is over (a question is never put to
        a closed session, whose refusal would be a :class:`~quinze_protocol.session.LocalProtocolError`)."""
        if self._closed is not None:
            raise self._closed

    def _close_with(self, message: str, reason: str = "") -> ConnectionClosed:
        if self._closed is None:
            self._closed = ConnectionClosed(message, reason)
        return self._closed

    @property
    def closed(self) -> bool:
        """True once the connection is known to be over."""
        return self._closed is not None

    @property
    def ended(self) -> ConnectionClosed | None:
        """How the connection ended (its error, the ``bye`` reason in ``reason``), or None while open."""
        return self._closed

    async def aclose(self, reason: str = "") -> None:
        """Say ``bye`` (best effort, 1 s at most) and close the stream. Never raises."""
        if self._closed is None and not self.session.closed:
            with trio.move_on_after(1.0):
                try:
                    await self.send(Bye(reason=reason))
                except ClientError:
                    pass
            self._close_with("the connection was closed by this client")
        with trio.CancelScope(shield=True):
            try:
                await self.stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass

    async def __aenter__(self) -> "Connection":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


async def connect(
    host: str,
    port: int,
    name: str,
    role: str = "player",
    *,
    timeout: float = 10.0,
    max_frame: int = DEFAULT_MAX_FRAME,
) -> Connection:
    """Open a TCP connection, send ``hello`` and wait for ``welcome`` (at most ``timeout`` s).

    ``role`` is ``"player"``, ``"bot"`` or ``"spectator"``; ``name`` 1..32 characters.
    Raises :class:`ConnectError`: unreachable server (``code="unreachable"``), a refused hello
    (the server's ``error`` code, e.g. ``version-mismatch``, ``bad-field``), a server speaking
    another protocol version (``version-mismatch``), or no welcome in time (``"timeout"``).
    """
    try:
        hello = Hello(version=PROTOCOL_VERSION, name=name, role=role)
    except ProtocolError as err:
        raise ConnectError(f"cannot say hello: {err.message_text()}", err.code) from None
    try:
        with trio.fail_after(timeout):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise ConnectError(f"cannot reach {host}:{port}: no answer in {timeout:g} s") from None
    except OSError as err:
        raise ConnectError(f"cannot reach {host}:{port}: {err.strerror or err}") from None
    return await greet(stream, name, role, timeout=timeout, max_frame=max_frame, where=f"{host}:{port}", hello=hello)


async def greet(
    stream: trio.abc.Stream,
    name: str,
    role: str = "player",
    *,
    timeout: float = 10.0,
    max_frame: int = DEFAULT_MAX_FRAME,
    where: str = "the server",
    hello: Hello | None = None,
) -> Connection:
    """The hello/welcome handshake on an open ``stream`` (TCP from :func:`connect`, or any trio
    stream: in-memory ones in tests); the :class:`Connection`. Raises :class:`ConnectError` as
    :func:`connect` does; the stream is closed then."""
    conn = Connection(stream, name=name, role=role, max_frame=max_frame)
    ok = False
    try:
        if hello is None:
            try:
                hello = Hello(version=PROTOCOL_VERSION, name=name, role=role)
            except ProtocolError as err:
                raise ConnectError(f"cannot say hello: {err.message_text()}", err.code) from None
        with trio.fail_after(timeout):
            await conn.send(hello)
            msg = await conn.receive()
        if isinstance(msg, Error):
            raise ConnectError(f"the server refused the hello: {plain_reason(msg.reason)} [{msg.code}]", msg.code)
        if not isinstance(msg, Welcome):
            raise ConnectError(f"the server answered hello with {msg.type!r}, not welcome", "not-welcome")
        if msg.version != PROTOCOL_VERSION:
            raise ConnectError(
                f"the server speaks protocol version {msg.version}, this client {PROTOCOL_VERSION}", "version-mismatch"
            )
        conn.welcome = msg
        ok = True
        log.debug("%s connected to %s (%s)", name, where, msg.server)
        return conn
    except trio.TooSlowError:
        raise ConnectError(f"{where} did not answer hello in {timeout:g} s", "timeout") from None
    except ConnectionClosed as err:
        raise ConnectError(f"{where} closed the connection during hello: {err}", "closed") from None
    except ServerProtocolError as err:
        raise ConnectError(f"{where} does not speak the Quinze protocol ({err.error.code})", "not-quinze") from None
    finally:
        if not ok:
            await conn.aclose()
