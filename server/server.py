"""The server: the state every connection shares, and what it does with each client message
(PROTOCOL.md "Messages", "Client → server").

:meth:`Server.handle` is called by a connection's reader with each received map. The
connection's :class:`quinze_protocol.session.ServerSession` reads it (``bad-field``,
``unknown-type``, ``missing-type`` errors keep the connection) and checks it against the
conversation's transition table (``not-hello`` before a ``hello``, ``hello`` twice; the session
answers the ``hello``: ``welcome``, or ``version-mismatch`` then ``bye``); the handler answers
``ping`` and passes lobby and table messages on. Every handler catches its own failures: one bad message, or one
bug, never ends another client's connection or the server.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from quinze_protocol import __version__
from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import INT_MAX, INT_MIN, REQUEST_MAX
from quinze_protocol.messages import (
    CLIENT_TYPES,
    ActionMessage,
    Bye,
    CreateTable,
    ForfeitMessage,
    Hello,
    Join,
    Leave,
    ListTables,
    Ping,
    Pong,
    Spectate,
    parse_message,
)
from quinze_server.admission import Admission
from quinze_server.clock import Heartbeats
from quinze_server.collector import Reclaimer, release, tuned, young_collections
from quinze_server.config import ServerConfig
from quinze_server.connlog import ConnectionLog
from quinze_server.lobby import Lobby
from quinze_server.reactor import AVAILABLE as REACTOR
from quinze_server.reactor import Reactor

if TYPE_CHECKING:
    import trio

    from quinze_server.connection import ClientConnection
    from quinze_server.table import Table

log = logging.getLogger("quinze.server")

SERVER_NAME = f"quinze {__version__}"


class Server:
    """The state shared by every connection: the configuration, the lobby and the live connections."""

    def __init__(self, config: ServerConfig, nursery: trio.Nursery) -> None:
        self.config = config
        self.reclaimer = Reclaimer(nursery, idle=lambda: self.lobby.open_tables == 0, release=self._release)
        """Gives memory back to the system after many tables or connections ended, or the last table closed."""
        self.lobby = Lobby(config, nursery, ended=lambda: self.reclaimer.ended(table=True))
        self.now: Callable[[], float] = self.lobby.now
        """The run's clock (:attr:`Lobby.now`): :func:`trio.current_time`, read in one call."""
        self.encode: Callable[[dict[str, Any]], bytes | None] = self.lobby.encode
        """``msg`` as one frame, or None (see :meth:`Lobby.encode`): the lobby's own method, one call less per message."""
        self.connections: set[ClientConnection] = set()
        self.admission = Admission(busy=lambda: self.lobby.open_tables > 0)
        """The newcomers' share of the server's time while tables are open (:mod:`quinze_server.admission`)."""
        self.batch: list[ClientConnection] | None = None
        """While a message is handled, or while the reactor serves a round (it sets it then):
        the connections with frames gathered, one write each at the end."""
        self.connlog = ConnectionLog(log, self.now)
        """The log's lines of clients connected and connections ended, bounded (:mod:`quinze_server.connlog`)."""
        nursery.start_soon(self.connlog.run)
        self.heartbeats = Heartbeats(config.heartbeat)
        """Every connection's heartbeat, kept by one task of the server's nursery."""
        nursery.start_soon(self.heartbeats.run)
        if tuned():  # quinze serve's process (server/collector.py): its collections walk a bounded set
            nursery.start_soon(young_collections)
        self.reactor = Reactor(replies=self) if REACTOR else None
        """Reads every socket's connection, in one task (Linux; None elsewhere: a task per connection reads)."""
        if self.reactor is not None:
            nursery.start_soon(self.reactor.run)

    @property
    def stopping(self) -> bool:
        """True once the server shuts down: tables start no more games, no new tables."""
        return self.lobby.stopping

    @stopping.setter
    def stopping(self, value: bool) -> None:
        self.lobby.stopping = value

    def _release(self) -> int:
        """No table is open any more: let go of what the tables left behind (the games' caches,
        trio's stale deadlines: :func:`quinze_server.collector.release`; the heartbeat entries of
        ended connections), before the trim. The entries dropped."""
        return release() + self.heartbeats.compact()

    def dropped(self, conn: ClientConnection) -> None:
        """``conn`` ended: it leaves the lobby's tables (seats kept for reconnecting during a game)."""
        self.lobby.dropped(conn)
        self.reclaimer.ended()

    def handle(self, conn: ClientConnection, data: Mapping[str, Any]) -> None:
        """Handle one received map. Never raises. The replies are written at the end, one write
        per client (see :meth:`ClientConnection.send`), or with the others of the reactor's round
        when it serves (``batch`` is its list then: :data:`quinze_server.reactor.FLUSH`)."""
        outer = self.batch
        batch: list[ClientConnection] = [] if outer is None else outer
        self.batch = batch
        try:
            if data.get("type") == "action" and conn.session.greeted:
                # The frequent message, checked by hand here (same rules, no copy); anything
                # unusual takes the full path (_handle) for its precise error. The engine checks
                # the action data itself.
                table, request, action = data.get("table"), data.get("request"), data.get("action")
                if type(table) is str and type(request) is int and 0 <= request <= REQUEST_MAX and type(action) is dict \
                        and type(action.get("type")) is str:
                    number = data.get("number")
                    if number is None or (type(number) is int and number >= 1):
                        # (Lobby.table_for, its usual case inline: an open table)
                        (self.lobby.tables.get(table) or self.lobby.table_for(conn, table, "action")).handle_action(
                            conn, request, action, number)
                        return
            self._handle(conn, data)
        except ProtocolError as e:
            conn.error(e.code, e.message_text(), e.ref, e.request if e.request is not None else _request(data))
        except Exception as e:
            log.exception("%r: handling %r failed", conn, data.get("type"))
            conn.error("server-error", f"the server failed on this message ({type(e).__name__})", _ref(data))
        finally:
            if outer is None:  # its own batch (no reactor round around it): written now
                self.batch = None
                for c in batch:
                    c.flush()

    def handle_listed(self, conn: ClientConnection, table: Table, request: int, index: int) -> None:
        """:meth:`handle` of the well-formed ``action`` answering ``request`` at ``table`` with the
        entry ``index`` of its ``legal`` array as it was encoded, read without decoding it
        (:meth:`ClientConnection._listed`). Never raises; the replies are written as by :meth:`handle`."""
        outer = self.batch
        batch: list[ClientConnection] = [] if outer is None else outer
        self.batch = batch
        try:
            table.handle_action(conn, request, None, None, index)
        except ProtocolError as e:
            conn.error(e.code, e.message_text(), e.ref, e.request if e.request is not None else request)
        except Exception as e:
            log.exception("%r: handling %r failed", conn, "action")
            conn.error("server-error", f"the server failed on this message ({type(e).__name__})", "action")
        finally:
            if outer is None:  # its own batch (no reactor round around it): written now
                self.batch = None
                for c in batch:
                    c.flush()

    def _handle(self, conn: ClientConnection, data: Mapping[str, Any]) -> None:
        """Every message but a well-formed ``action`` (:meth:`handle` plays those itself)."""
        session = conn.session
        ready = session.greeted
        if len(data) == 2 and data.get("type") == "pong" and ready:
            # The heartbeat's answer, every 10 s from every client: the same check by hand.
            nonce = data.get("nonce")
            if type(nonce) is int and INT_MIN <= nonce <= INT_MAX:
                conn.heartbeat.pong(nonce)
                return
        msg = parse_message(data, allowed=CLIENT_TYPES)
        t = msg.type
        refused = session.refusal(t)  # the conversation's table: not-hello, hello twice
        if refused is not None:
            conn.error(refused.code, refused.message_text(), refused.ref)
            return
        session.receive(msg)
        if isinstance(msg, Hello):
            self._hello(conn, msg)
        elif isinstance(msg, ActionMessage):
            self.lobby.table_for(conn, msg.table, t).handle_action(conn, msg.request, msg.action, msg.number)
        elif isinstance(msg, Pong):
            conn.heartbeat.pong(msg.nonce)
        elif isinstance(msg, Ping):
            conn.send({"type": "pong", "nonce": msg.nonce})
        elif isinstance(msg, ListTables):
            listing = self.lobby.listing(closed=msg.closed, table=msg.table, offset=msg.offset, limit=msg.limit)
            if listing is not None:  # the default listing is encoded once for every asker until a table changes
                conn.send_frame(listing)
            else:
                conn.error("server-error", "the server could not send the table list; the server log says why", t)
        elif isinstance(msg, CreateTable):
            move_time = self.config.move_time if msg.move_time is None else msg.move_time
            self.lobby.create(conn, msg.game, msg.options, seed=msg.seed, games=msg.games, move_time=move_time,
                              clock=msg.clock, seat_move_times=msg.seat_move_times, position=msg.position)
        elif isinstance(msg, Join):
            self.lobby.table_for(conn, msg.table, t).handle_join(conn, msg.seat, msg.token)
        elif isinstance(msg, Leave):
            self.lobby.table_for(conn, msg.table, t).handle_leave(conn)
        elif isinstance(msg, Spectate):
            self.lobby.table_for(conn, msg.table, t).handle_spectate(conn)
        elif isinstance(msg, ForfeitMessage):
            self.lobby.table_for(conn, msg.table, t).handle_forfeit(conn, msg.reason, msg.number)
        elif isinstance(msg, Bye):
            conn.abort(f"said bye ({msg.reason})" if msg.reason else "said bye")
        else:  # pragma: no cover - CLIENT_TYPES are all handled above
            conn.error("unknown-type", f"no handler for {t}", t)

    def _hello(self, conn: ClientConnection, msg: Hello) -> None:
        answer = conn.session.welcome(SERVER_NAME, self.config.heartbeat)
        conn.send(answer.to_data())
        if answer.type == "error":  # version-mismatch: then bye
            conn.close("version-mismatch")
            return
        conn.name = msg.name
        conn.role = msg.role
        conn.greet()
        self.connlog.connected(msg.name, conn.peer, msg.role)


def _request(data: Mapping[str, Any]) -> int | None:
    """The request id of an ``action`` at fault, when it is readable (for ``error.request``)."""
    r = data.get("request") if isinstance(data, Mapping) and data.get("type") == "action" else None
    return r if type(r) is int and 0 <= r <= REQUEST_MAX else None


def _ref(data: Mapping[str, Any]) -> str | None:
    t = data.get("type") if isinstance(data, Mapping) else None
    return t[:64] if isinstance(t, str) else None

