"""The conversation of one connection, without I/O (PROTOCOL.md, "Flow" and "Conversation states").

In the manner of h11's connection state machine: a session object is told every message its side
sends (:meth:`Session.sent`) and every message the peer sent (:meth:`ClientSession.receive`,
:meth:`ServerSession.receive`); it checks each against one transition table,
:data:`quinze_protocol.transitions.TRANSITIONS` (sender role x state x message type -> next
state, for the connection and for each table), keeps the state, and says what to send in
answer where the protocol decides it (a ``pong`` for a ``ping``). The caller reads and writes
the bytes (``quinze_cli.client``, ``quinze_server.connection``); a session never does.

The server refuses what the table does not allow with the documented error; a client session
refuses to send it (:class:`LocalProtocolError`). A server message the table does not expect at
a table leaves the state as it is and is noted in :attr:`ClientSession.unexpected` (a client
never breaks on a server's oddity).

Request ids are scoped to their game: a client session knows, for each table, the game that runs
(``number``) and its open request (:class:`RequestId`: table, number, request); the ``action`` it
builds (:meth:`ClientSession.answer`) quotes all three, and :meth:`ClientSession.is_current`
says whether a message is about the running game, so a late answer or refusal of an earlier
game is never taken for one of the running game (PROTOCOL.md, "Game boundaries").

Lobby questions (``create-table``, ``list-tables``, ``join``, ``spectate``, ``leave``) are
:class:`Ask` objects: the server answers each client message in order, so a reply (or an
``error`` whose ``ref`` is the question's type) settles the oldest open question of its kind.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import REQUEST, SEAT, int_field, nullable, seconds_field
from quinze_protocol.messages import (
    CLIENT_TYPES,
    PROTOCOL_VERSION,
    SERVER_TYPES,
    ActionMessage,
    Bye,
    CreateTable,
    Error,
    ForfeitMessage,
    GameStart,
    Hello,
    Join,
    Leave,
    ListTables,
    Message,
    Pong,
    Spectate,
    Welcome,
    parse_message,
)
from quinze_protocol.transitions import (
    ANSWERED,
    ASKS,
    AWAY,
    CLIENT,
    CLOSED,
    GREETING,
    IN_GAME,
    READY,
    REFUSALS,
    SERVER,
    STALE_CODES,
    TABLE_CLIENT,
    TO_ACT,
    TRANSITIONS,
    WELCOMING,
)

__all__ = [
    "Ask", "Asked", "ClientSession", "LocalProtocolError", "RequestId", "ServerSession", "Session", "Step",
    "TableTrack",
]

_LIGHT = frozenset({"event", "notice", "view", "action-request", "accepted"})
_NUMBER = nullable(int_field(1))
_DEADLINE = seconds_field(0.0)


class LocalProtocolError(Exception):
    """This side was about to break the conversation (a message the state does not allow, an
    answer with no open request): a bug of the caller, nothing was sent."""


class RequestId(NamedTuple):
    """An action request, scoped to its game: ``table`` (str), ``number`` (int | None: the game's
    number at the table; None from a server that does not send it), ``request`` (int)."""

    table: str
    number: int | None
    request: int


class Asked(NamedTuple):
    """One ``action-request`` as this side received it: its ``id`` (:class:`RequestId`), the
    ``seat`` asked, ``deadline`` (seconds to answer, the wire's ``action-request.deadline``: a
    duration, PROTOCOL.md "Flow") and ``at`` (when it came, on the clock the session was given;
    None without one). It is kept after the request closes, until the next game starts (to say
    how late a late answer was)."""

    id: RequestId
    seat: int
    deadline: float
    at: float | None = None

    @property
    def deadline_at(self) -> float | None:
        """The instant the request expires (``at + deadline``, the session's clock), or None
        without a clock (PROTOCOL.md "Words": a deadline is a duration, its instant
        ``deadline_at``)."""
        return None if self.at is None else self.at + self.deadline

    def waited(self, now: float) -> float:
        """Seconds from its coming to ``now`` (the session's clock; 0.0 without one)."""
        return 0.0 if self.at is None else now - self.at

    def late(self, now: float) -> float:
        """Seconds ``now`` is past the request's expiry (negative: the time left; without a
        clock, minus the deadline)."""
        return self.waited(now) - self.deadline


class Step(NamedTuple):
    """What one server message did at its table: the table key applied (its type, or a
    refinement such as ``refused:other``), the state ``before`` and ``after``; ``expected`` is
    False when the table had no entry for it (the state did not move)."""

    table: str
    key: str
    before: str
    after: str
    expected: bool = True


@dataclass(eq=False)
class Ask:
    """One lobby question (``message``) waiting for its answer: ``reply`` is the good answer
    (``table-created``, ``tables``, ``joined``, ``spectating``, ``left``) or ``error`` the
    server's refusal once it came; ``done`` is True then."""

    message: Message | Mapping[str, Any]
    reply: Message | None = None
    error: Error | None = None

    @property
    def done(self) -> bool:
        return self.reply is not None or self.error is not None

    @property
    def type(self) -> str:
        return _get(self.message, "type")

    @property
    def table(self) -> str | None:
        return _get(self.message, "table")


@dataclass
class TableTrack:
    """One table as the client sees it: ``state`` (one of :data:`TABLE_STATES`), the ``seat`` held
    and its ``token``, the running (or last) game's ``number`` and ``start``, and the open
    ``request`` (its :class:`ActionRequest` message, or a map of the fields read) while ``to-act``."""

    table: str
    state: str = AWAY
    seat: int | None = None
    token: str | None = None
    number: int | None = None
    start: GameStart | None = None
    request: RequestId | None = None
    asked: Asked | None = None
    """The last ``action-request`` of the running game (open or not): what it is and when it expires."""

    @property
    def in_game(self) -> bool:
        return self.state in IN_GAME

    @property
    def deadline(self) -> float | None:
        """Seconds the last request gave to answer (``action-request.deadline``), or None."""
        return self.asked.deadline if self.asked is not None else None


class Session:
    """The state of one connection's conversation, for ``role`` (:data:`CLIENT` or :data:`SERVER`)."""

    def __init__(self, role: str) -> None:
        if role not in (CLIENT, SERVER):
            raise ValueError(f"role must be {CLIENT!r} or {SERVER!r}, got {role!r}")
        self.role = role
        self.peer = SERVER if role == CLIENT else CLIENT
        self.state = GREETING

    def _move(self, sender: str, type_: str) -> str | None:
        """The connection state after ``sender`` sent a ``type_``; None when not allowed."""
        return TRANSITIONS[(sender, self.state)].get(type_)

    def sent(self, msg: Message) -> None:
        """This side sends ``msg``. Raises :class:`LocalProtocolError` when the state forbids it."""
        new = self._move(self.role, msg.type)
        if new is None:
            raise LocalProtocolError(f"cannot send {msg.type} in state {self.state} ({self.role})")
        self.state = new

    @property
    def closed(self) -> bool:
        return self.state == CLOSED


class ServerSession(Session):
    """A server's side of one connection: the handshake and the connection states.

    :meth:`receive` reads a client map into its message and checks the state (the documented
    errors as :class:`ProtocolError`); ``name`` and ``client_role`` come from the ``hello``.
    The table messages are the server's tables' business (``quinze_server.table``): they are
    encoded once for many connections and do not pass through here.
    """

    def __init__(self) -> None:
        super().__init__(SERVER)
        self.name: str | None = None
        self.client_role: str | None = None
        self.version: int | None = None

    def refusal(self, type_: str) -> ProtocolError | None:
        """The error a client message of ``type_`` gets in this state (``not-hello`` before
        ``hello``, ``bad-field`` for ``hello`` twice), or None when the table allows it."""
        if self._move(CLIENT, type_) is not None:
            return None
        code, reason = REFUSALS[(CLIENT, self.state)]
        return ProtocolError(code, reason.format(type=type_), ref=type_)

    def receive(self, data: Mapping[str, Any] | Message) -> Message:
        """The client message in ``data``, after the state's check. Raises :class:`ProtocolError`:
        the parse errors of :func:`~quinze_protocol.messages.parse_message`, ``not-hello`` (a first
        message that is not ``hello``), ``bad-field`` (``hello`` twice)."""
        msg = data if isinstance(data, Message) else parse_message(data, allowed=CLIENT_TYPES)
        t = msg.type
        refused = self.refusal(t)
        if refused is not None:
            raise refused
        self.state = TRANSITIONS[(CLIENT, self.state)][t]
        if isinstance(msg, Hello):
            self.version, self.name, self.client_role = msg.version, msg.name, msg.role
        return msg

    @property
    def greeted(self) -> bool:
        """True once the client is welcomed (the connection is ``ready``)."""
        return self.state == READY

    def welcome(self, server: str, heartbeat: float) -> Welcome | Error:
        """The answer to the ``hello`` just received: ``welcome``, or ``error`` ``version-mismatch``
        (then send ``bye`` with :meth:`bye`)."""
        if self.state != WELCOMING:
            raise LocalProtocolError(f"no hello to answer (state {self.state})")
        if self.version != PROTOCOL_VERSION:
            err = Error(code="version-mismatch", reason=f"this server speaks protocol version {PROTOCOL_VERSION}, "
                                                        f"the client {self.version}", ref="hello")
            self.sent(err)
            return err
        msg = Welcome(version=PROTOCOL_VERSION, server=server, heartbeat=heartbeat)
        self.sent(msg)
        return msg

    def bye(self, reason: str = "") -> Bye:
        """``bye`` (the connection is closed after it)."""
        msg = Bye(reason=reason)
        self.state = CLOSED
        return msg


class ClientSession(Session):
    """A client's side of one connection: the handshake, the lobby questions and every table.

    Build what to send with :meth:`hello`, :meth:`create_table`, :meth:`list_tables`,
    :meth:`join`, :meth:`spectate`, :meth:`leave`, :meth:`answer`, :meth:`forfeit`,
    :meth:`bye` (each checked and recorded as sent), or record a message built elsewhere with
    :meth:`sent`. Give every message received to :meth:`receive`; what it says to send back
    (``pong``) waits in :attr:`outbox`.

    ``clock`` (seconds, any origin: the caller's event loop's) dates each ``action-request`` as it
    comes, so that :attr:`Asked.deadline_at` says when it expires; without one, requests carry no
    instant (the session itself never reads a clock).
    """

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        super().__init__(CLIENT)
        self.clock = clock
        self.tables: dict[str, TableTrack] = {}
        self.asks: deque[Ask] = deque()
        self.outbox: list[Message] = []
        self.welcomed: Welcome | None = None
        self.unexpected: deque[tuple[str, str, str]] = deque(maxlen=32)
        """The last server messages no table state expected: ``(table, state, type)``."""
        self.step: Step | None = None
        """What the last message received did at its table (None: a connection message)."""
        self.message: Message | None = None
        """The last message received, read whole (None after one :meth:`receive_data` passed light)."""
        self.settled: Ask | None = None
        """The question the last message received answered (its good answer or its ``error``), or None."""

    # ------------------------------------------------------------------ what to send

    def track(self, table: str) -> TableTrack:
        """The client's picture of ``table`` (``away`` when never seen)."""
        t = self.tables.get(table)
        if t is None:
            t = self.tables[table] = TableTrack(table)
        return t

    def hello(self, name: str, role: str = "player") -> Hello:
        """The first message. Raises ``ProtocolError`` ``bad-field`` for a bad name or role."""
        msg = Hello(version=PROTOCOL_VERSION, name=name, role=role)
        self.sent(msg)
        return msg

    def sent(self, msg: Message | Mapping[str, Any]) -> Ask | None:  # type: ignore[override]
        """This side sends ``msg`` (a message, or a map with a ``type`` sent as is): the states
        move; a lobby question becomes an :class:`Ask` (returned). Raises
        :class:`LocalProtocolError` when the connection state forbids it."""
        t = _get(msg, "type")
        new = self._move(CLIENT, t)
        if new is None:
            raise LocalProtocolError(f"cannot send {t} in state {self.state} (client)")
        self.state = new
        if t in TABLE_CLIENT:
            table = _get(msg, "table")
            if type(table) is str:
                track = self.track(table)
                track.state = TRANSITIONS[(CLIENT, track.state)][t]
                if track.state == AWAY:
                    del self.tables[table]
        if t in ASKS:
            ask = Ask(msg)
            self.asks.append(ask)
            return ask
        return None

    def create_table(self, game: str, options: Mapping[str, Any] | None = None, **fields: Any) -> tuple[CreateTable, Ask]:
        """``create-table`` (fields as in :class:`CreateTable`) and its question."""
        msg = CreateTable(game=game, options=dict(options or {}), **fields)
        return msg, self._ask(msg)

    def list_tables(self, **fields: Any) -> tuple[ListTables, Ask]:
        msg = ListTables(**fields)
        return msg, self._ask(msg)

    def join(self, table: str, seat: int | None = None, token: str | None = None) -> tuple[Join, Ask]:
        msg = Join(table=table, seat=seat, token=token)
        return msg, self._ask(msg)

    def spectate(self, table: str) -> tuple[Spectate, Ask]:
        msg = Spectate(table=table)
        return msg, self._ask(msg)

    def leave(self, table: str) -> tuple[Leave, Ask]:
        msg = Leave(table=table)
        return msg, self._ask(msg)

    def _ask(self, msg: Message) -> Ask:
        ask = self.sent(msg)
        assert ask is not None
        return ask

    def answer(self, table: str, action: Mapping[str, Any]) -> ActionMessage:
        """The ``action`` answering the open request at ``table``, quoting its table, request id
        and game number (recorded as sent). Raises :class:`LocalProtocolError` when no request
        is open there, ``ProtocolError`` ``bad-field`` for an action that is not a map with a
        text ``type``."""
        r = self._open(table)
        msg = ActionMessage(table=table, request=r.request, action=dict(action), number=r.number)
        self.sent(msg)
        return msg

    def answer_data(self, table: str, action: Mapping[str, Any]) -> dict[str, Any]:
        """Like :meth:`answer`, as a map, NOT recorded: the caller sends it through
        ``quinze_cli.client.Connection.send`` (or ``send_encoded``), which records it. The action
        is not checked (the server checks it): the cheap form for relays. Raises
        :class:`LocalProtocolError` when no request is open at ``table``."""
        r = self._open(table)
        data: dict[str, Any] = {"type": "action", "table": table, "request": r.request, "action": action}
        if r.number is not None:
            data["number"] = r.number
        return data

    def _open(self, table: str) -> RequestId:
        """The request at ``table`` that an answer may answer now (the state ``to-act``)."""
        track = self.tables.get(table)
        if track is None or track.state != TO_ACT or track.request is None:
            raise LocalProtocolError(f"no open request at {table} to answer "
                                     f"(state {track.state if track is not None else AWAY})")
        return track.request

    def forget(self, ask: Ask) -> None:
        """Stop waiting for ``ask``'s answer (its caller took another message as its end); an
        answer that still comes settles nothing. Nothing happens when it is not open."""
        try:
            self.asks.remove(ask)
        except ValueError:
            pass

    def forfeit(self, table: str, kind: str) -> ForfeitMessage:
        """``forfeit`` of the game that runs (or ran last) at ``table``, naming it by number; the
        forfeit ``kind`` goes in the wire's ``reason`` field (PROTOCOL.md "Words")."""
        track = self.track(table)
        msg = ForfeitMessage(table=table, reason=kind, number=track.number)
        self.sent(msg)
        return msg

    def bye(self, reason: str = "") -> Bye:
        msg = Bye(reason=reason)
        self.sent(msg)
        return msg

    # ------------------------------------------------------------------ what comes in

    def receive(self, data: Mapping[str, Any] | Message) -> Message:
        """The server message in ``data`` (a map is read with
        :func:`~quinze_protocol.messages.parse_message`), after the states moved. Raises
        :class:`ProtocolError` for a map that is no server message, and ``unexpected-message``
        for one the connection state does not allow (a ``welcome`` twice, anything after ``bye``)."""
        msg = data if isinstance(data, Message) else parse_message(data, allowed=SERVER_TYPES)
        self.settled = None
        self.step = self._incoming(msg.type, msg)
        self.message = msg
        return msg

    def receive_data(self, data: Mapping[str, Any]) -> Step | None:
        """Like :meth:`receive` for a map the caller passes on as it came (a relay): the frequent
        game messages (``event``, ``notice``, ``view``, ``action-request``, ``accepted``) are
        checked only for the fields the session and a relay read (``table``, ``request``,
        ``number``; for ``action-request`` also ``seat``, ``deadline`` and that ``legal`` is a
        list), the others are read whole. Returns what the message did at its table
        (:class:`Step`; None for a connection message). Raises :class:`ProtocolError` as
        :meth:`receive` does (the state unchanged)."""
        t = data.get("type")
        if t in _LIGHT and type(data.get("table")) is str:
            if t in ("action-request", "accepted"):
                REQUEST(data.get("request"), f"{t}.request")
                _NUMBER(data.get("number"), f"{t}.number")
                if t == "action-request":
                    SEAT(data.get("seat"), "action-request.seat")
                    _DEADLINE(data.get("deadline"), "action-request.deadline")
                    if not isinstance(data.get("legal"), list):
                        raise ProtocolError("bad-field", "must be a list", "action-request.legal", ref=t)
            self.settled = None
            self.step = self._incoming(t, data)
            self.message = None
        else:
            self.receive(data)
        return self.step

    def _incoming(self, t: str, msg: Message | Mapping[str, Any]) -> Step | None:
        new = self._move(SERVER, t)
        if new is None:
            raise ProtocolError("unexpected-message", f"the server sent {t} in state {self.state}", ref=t)
        self.state = new
        if t == "welcome":
            self.welcomed = msg  # type: ignore[assignment]
        elif t == "ping":
            self.outbox.append(Pong(nonce=_get(msg, "nonce")))
        elif t == "error":
            self._error(msg)  # type: ignore[arg-type]
        else:
            table = _get(msg, "table")
            if type(table) is str:
                return self._at_table(table, t, msg)
            if t in ("table-created", "tables"):
                self._settle(t, None, msg)  # type: ignore[arg-type]
        return None

    def take_outbox(self) -> list[Message]:
        """What the session says to send now (and forgets)."""
        out, self.outbox = self.outbox, []
        return out

    def _settle(self, reply_type: str, table: str | None, msg: Message) -> Ask | None:
        """The oldest open question this reply answers (settled), or None."""
        for ask in self.asks:
            if ASKS[ask.type] == reply_type and (table is None or ask.table == table):
                ask.reply = msg
                self.asks.remove(ask)
                self.settled = ask
                return ask
        return None

    def _error(self, err: Error) -> None:
        ref = err.ref
        if ref in ASKS:
            for ask in self.asks:
                if ask.type == ref:
                    ask.error = err
                    self.asks.remove(ask)
                    self.settled = ask
                    if ask.table is not None:
                        self.step = self._table_move(self.track(ask.table), f"error:{ref}")
                    return
        if ref in ("action", "forfeit"):
            # an error has no table: the table where an answer (or a forfeit) may be at fault
            if ref == "forfeit" and err.code in STALE_CODES:
                return
            key = "refused:stale" if err.code in STALE_CODES else f"error:{ref}"
            cands = [t for t in self.tables.values() if t.state in IN_GAME]
            if err.request is not None:
                cands = [t for t in cands if t.request is not None and t.request.request == err.request] or cands
            if len(cands) == 1:
                self.step = self._table_move(cands[0], key)

    def _table_move(self, track: TableTrack, key: str) -> Step:
        before = track.state
        new = TRANSITIONS[(SERVER, before)].get(key)
        expected = new is not None
        if new is None:
            self.unexpected.append((track.table, before, key))
            new = before
        track.state = new
        if new == AWAY:
            self.tables.pop(track.table, None)  # not at the table: nothing to keep (a match uses thousands)
        return Step(track.table, key, before, new, expected)

    def _at_table(self, table: str, t: str, msg: Message | Mapping[str, Any]) -> Step:
        track = self.track(table)
        key = t
        if t == "refused":
            if not self.is_current(msg):
                key = "refused:other"  # about another request or game: news, not ours to retry
            elif _get(msg, "code") in STALE_CODES:
                key = "refused:stale"
        if t in ("joined", "spectating", "left"):
            self._settle(t, table, msg)  # type: ignore[arg-type]
        step = self._table_move(track, key)
        if t == "joined":
            track.seat, track.token = _get(msg, "seat"), _get(msg, "token")
        elif t == "game-start":
            track.start = msg if isinstance(msg, GameStart) else None
            track.number = _get(msg, "number")
            track.request = track.asked = None
        elif t == "action-request" and track.state == TO_ACT:
            track.request = rid = RequestId(table, _get(msg, "number"), _get(msg, "request"))
            track.asked = Asked(rid, _get(msg, "seat"), float(_get(msg, "deadline")),
                                self.clock() if self.clock is not None else None)
        elif t == "game-over" or key == "refused:stale" or (t == "accepted" and self.is_current(msg)):
            track.request = None
        elif t in ("left", "table-closed"):
            track.seat = track.token = None
            track.request = None
        return step

    def is_current(self, msg: Message | Mapping[str, Any]) -> bool:
        """True when ``msg`` (a message or a map with ``table``, ``number``, ``request``) is about the
        game that runs at its table and, when it names a request, the open one: the request id
        is read in its game's scope. A message naming no game is taken as the running one's."""
        table, number, request = _get(msg, "table"), _get(msg, "number"), _get(msg, "request")
        track = self.tables.get(table) if isinstance(table, str) else None
        if track is None:
            return False
        if number is not None and track.number is not None and number != track.number:
            return False
        if request is not None:
            return track.request is not None and track.request.request == request
        return True

    def open_request(self, table: str) -> RequestId | None:
        """The open request at ``table`` (the seat is to act), or None."""
        track = self.tables.get(table)
        return track.request if track is not None and track.state in (TO_ACT, ANSWERED) else None

    def to_answer(self, table: str) -> Asked | None:
        """The request at ``table`` that waits for this side's answer (the state ``to-act``: asked,
        or refused and open again), with its deadline; None once answered or closed."""
        track = self.tables.get(table)
        return track.asked if track is not None and track.state == TO_ACT and track.request is not None else None

    def last_asked(self, table: str) -> Asked | None:
        """The last request of the running (or last) game at ``table``, open or not, or None."""
        track = self.tables.get(table)
        return track.asked if track is not None else None


def _get(msg: Message | Mapping[str, Any], name: str) -> Any:
    """A field of a message or of a map (None when absent)."""
    if type(msg) is dict or isinstance(msg, Mapping):  # a dict first: the frequent case, no ABC check
        return msg.get(name)
    return getattr(msg, name, None)
