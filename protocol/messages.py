"""The wire messages of Quinze, one frozen dataclass per ``type`` (PROTOCOL.md, "Messages").

Every message is a map with string keys and a ``"type"``; the same maps travel in msgpack
frames (TCP, ``quinze bot --wire msgpack``), JSON lines (bots) and logs. A message object
validates itself when built (bad values raise :class:`~quinze_protocol.errors.ProtocolError` with
code ``bad-field`` and the field's dotted path), so a message that exists is a valid one.

    msg = parse_message({"type": "hello", "version": 1, "name": "ana", "role": "player"})
    msg.to_data()   # -> {"type": "hello", "version": 1, "name": "ana", "role": "player"}

Rules common to all messages:

* keys unknown to this version are ignored when parsing (forward compatibility); fields with a
  default may be left out on the wire;
* ints are never bools and fit in 64 bits (-2**63 .. 2**64-1); times are seconds (float; an int
  is accepted and made a float), finite;
* game data (``options``, ``action``, ``view``, ``legal``, ``event``, ``result``) stays plain
  JSON-compatible data (dicts with string keys, lists, str, int, float, bool, None), only
  checked for shape; the game validates its content;
* lists are stored as tuples (messages are immutable values); ``to_data()`` gives lists back.

Python names: the class of each type is its CamelCase name (``create-table`` ->
:class:`CreateTable`), except ``action``/``event``/``error`` which are :class:`ActionMessage`,
:class:`EventMessage` and :class:`Error` (so as not to clash with :class:`quinze_protocol.game.Action`
and :class:`quinze_protocol.game.Event`). ``ping``, ``pong`` and ``bye`` go both ways.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, dataclass_transform

from quinze_protocol.clocks import clock_field, clock_state_field
from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import (
    CODE,
    FORFEIT_REASONS,
    GAME_ID,
    INT_MAX,
    INT_MIN,
    MAX_DEPTH,
    MAX_MOVE_TIME,
    NAME,
    NONCE,
    REASON,
    REQUEST,
    ROLES,
    SALT,
    SEAT,
    SEED,
    TABLE_ID,
    TOKEN,
    Check,
    Value,
    bool_field,
    check_data,
    hex64_field,
    int_field,
    list_field,
    map_field,
    move_time_field,
    nullable,
    record_field,
    seconds_field,
    str_field,
    type_name,
    typed_map_field,
)
from quinze_protocol.records import Forfeit, SeatAction, SeatInfo, TableInfo

__all__ = [
    "CLIENT_TYPES",
    "MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "SERVER_TYPES",
    "ActionMessage",
    "ActionRequest",
    "Accepted",
    "Bye",
    "CreateTable",
    "Error",
    "EventMessage",
    "FORFEIT_REASONS",
    "INT_MAX",
    "INT_MIN",
    "MAX_DEPTH",
    "MAX_MOVE_TIME",
    "Forfeit",
    "ForfeitMessage",
    "GameOver",
    "GameStart",
    "Hello",
    "Join",
    "Joined",
    "Leave",
    "Left",
    "ListTables",
    "Message",
    "NOTICE_KINDS",
    "Notice",
    "Ping",
    "Pong",
    "ProtocolError",
    "Refused",
    "SeatAction",
    "SeatInfo",
    "Spectate",
    "Spectating",
    "TableClosed",
    "TableCreated",
    "TableInfo",
    "Tables",
    "View",
    "Welcome",
    "check_data",
    "commitment",
    "parse_message",
]

PROTOCOL_VERSION = 1
"""The version a client states in ``hello`` and the server in ``welcome`` (PROTOCOL.md, "Versions")."""

def commitment(seed: int, salt: str, position: Mapping[str, Any] | None = None) -> str:
    """The seed commitment sent in ``game-start``: hex SHA-256 (64 lower-case digits) of
    ``f"{seed}:{salt}"`` encoded as ASCII (PROTOCOL.md, "Game start"); for a game started from a
    ``position`` (``create-table.position``), of ``f"{seed}:{salt}:{canonical}"`` with
    ``canonical`` the position as compact JSON with sorted keys (:func:`canonical_position`,
    UTF-8), so the commitment covers the position and the seed of the rest of the game.

    Raises ``ValueError`` if ``salt`` is not ASCII.
    """
    text = f"{seed}:{salt}".encode("ascii")
    if position is not None:
        text += b":" + canonical_position(position).encode("utf-8")
    return hashlib.sha256(text).hexdigest()


def canonical_position(position: Mapping[str, Any]) -> str:
    """A position as the commitment hashes it: JSON, keys sorted, no spaces, non-ASCII kept."""
    return json.dumps(position, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Message(Value):
    """Base of every message. ``type`` (class attribute) is the wire ``"type"``;
    ``direction`` is ``"client"`` (client -> server), ``"server"`` or ``"both"``."""

    type: ClassVar[str]
    direction: ClassVar[str]

    def to_data(self) -> dict[str, Any]:
        """The message as a map: ``{"type": ..., **fields}`` (lists for tuples, nested maps for records)."""
        return {"type": self.type, **self._field_data()}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "Message":
        """The message from a map whose ``type`` is this class's. Raises ``bad-field``."""
        return cls._build(cls._kwargs(data, cls.type))


MESSAGE_TYPES: dict[str, type[Message]] = {}
"""Every message class by its wire type."""


_M = TypeVar("_M", bound=Message)


@dataclass_transform(frozen_default=True, kw_only_default=True)
def _message(cls: type[_M]) -> type[_M]:
    """Make ``cls`` a frozen keyword-only dataclass and register it in :data:`MESSAGE_TYPES`."""
    cls = dataclass(frozen=True, kw_only=True)(cls)
    cls._label = cls.type
    MESSAGE_TYPES[cls.type] = cls
    return cls


# --------------------------------------------------------------------------- client -> server


@_message
class Hello(Message):
    """First message of a client (PROTOCOL.md, "Handshake").

    - ``version`` (int, any 64-bit integer): the protocol version the client speaks
      (:data:`PROTOCOL_VERSION`); one the server does not speak is ``version-mismatch``;
    - ``name`` (str, 1..32 characters, no control characters): the player's name;
    - ``role`` (``"player"`` | ``"bot"`` | ``"spectator"``).
    """

    type: ClassVar[str] = "hello"
    direction: ClassVar[str] = "client"
    version: int
    name: str
    role: str = "player"
    _checks: ClassVar[dict[str, Check]] = {"version": int_field(), "name": NAME, "role": str_field(choices=ROLES)}


@_message
class ListTables(Message):
    """Ask for the table list; the server answers ``tables`` (PROTOCOL.md, `list-tables`).
    Every field is optional:

    - ``closed`` (bool, default False): list closed tables too (left out by default);
    - ``table`` (str | None): only that table;
    - ``offset`` (int >= 0, default 0): skip that many tables (pages, in order of creation);
    - ``limit`` (int 1..1000 | None): at most that many (None: the server's page size; the
      server may send fewer so that the answer fits in a frame; ``tables.total`` counts all).
    """

    type: ClassVar[str] = "list-tables"
    direction: ClassVar[str] = "client"
    closed: bool = False
    table: str | None = None
    offset: int = 0
    limit: int | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "closed": bool_field,
        "table": nullable(TABLE_ID),
        "offset": int_field(0, 2**31),
        "limit": nullable(int_field(1, 1000)),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"table", "limit"})

    def to_data(self) -> dict[str, Any]:
        data = super().to_data()  # the defaults left out: the message as version 1 first had it
        if not self.closed:
            del data["closed"]
        if not self.offset:
            del data["offset"]
        return data


@_message
class CreateTable(Message):
    """Create a table (PROTOCOL.md, "Lobby"); the server answers ``table-created``.

    - ``game`` (str): game id (``"quinze"``, ``"quatorze"``, ``"quinze-classique"``);
    - ``options`` (map): table options, ``players`` included (the game validates them:
      ``bad-option`` / ``unknown-game`` errors);
    - ``seed`` (int | None): seed of the first game; None lets the server draw one;
    - ``games`` (int >= 1, default 1): games played at this table before it closes;
    - ``move_time`` (float | None, seconds, 0 < t <= 86400): time for each decision (the
      ``deadline`` of each ``action-request``); None: the server's default. (Added to the spec.)
    - ``clock`` (map | None): the table's clock (:mod:`quinze_protocol.clocks`: ``move``, ``bank`` or
      ``none``); None: per move, ``move_time`` seconds. Given with ``move_time``, ``clock`` wins.
    - ``seat_move_times`` (list of float | None, one per seat, or None): a seat's own time for
      each decision, where not None (a tournament's per-bot move times); ``bad-option`` when it
      does not have one entry per seat.
    - ``position`` (map | None): every game of the table starts from this position (the
      ``quinze legal`` format, docs/positions.md) instead of a new deal; its ``rng`` is replaced
      by the game's seed (what is random from there on); ``options`` must be empty or the
      position's. ``bad-option`` naming the field when it cannot be loaded.
    """

    type: ClassVar[str] = "create-table"
    direction: ClassVar[str] = "client"
    game: str
    options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    games: int = 1
    move_time: float | None = None
    clock: dict[str, Any] | None = None
    seat_move_times: tuple[float | None, ...] | None = None
    position: dict[str, Any] | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "game": GAME_ID,
        "options": map_field,
        "seed": nullable(int_field(0, 2**63 - 1)),
        "games": int_field(1, 1_000_000),
        "move_time": nullable(move_time_field),
        "clock": nullable(clock_field),
        "seat_move_times": nullable(list_field(nullable(move_time_field), 64)),
        "position": nullable(map_field),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"clock"})


@_message
class Join(Message):
    """Take a seat at a table; answered by ``joined``.

    - ``table`` (str): table id;
    - ``seat`` (int | None): the seat wanted; None = the first free seat;
    - ``token`` (str | None): the seat token of an earlier ``joined``, to reconnect to that seat.
    """

    type: ClassVar[str] = "join"
    direction: ClassVar[str] = "client"
    table: str
    seat: int | None = None
    token: str | None = None
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID, "seat": nullable(SEAT), "token": nullable(TOKEN)}


@_message
class Leave(Message):
    """Give up a seat (or stop watching) at ``table`` (str); answered by ``left``. Leaving a seat
    while a game runs forfeits it."""

    type: ClassVar[str] = "leave"
    direction: ClassVar[str] = "client"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@_message
class Spectate(Message):
    """Watch ``table`` (str) with public information only; answered by ``spectating``."""

    type: ClassVar[str] = "spectate"
    direction: ClassVar[str] = "client"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@_message
class ActionMessage(Message):
    """Answer to an ``action-request`` (wire type ``action``).

    - ``table`` (str); ``request`` (int): the id of the request answered;
    - ``action`` (map): the game's action data, ``{"type": str, ...}``, e.g.
      ``{"type": "fifteen", "hand": ["7H"], "table": ["8C"]}`` (PROTOCOL.md, "Game actions");
    - ``number`` (int >= 1 | None): the game the request belongs to (copied from the request);
      an answer naming a game that is over is refused ``stale-request``.
    """

    type: ClassVar[str] = "action"
    direction: ClassVar[str] = "client"
    table: str
    request: int
    action: dict[str, Any]
    number: int | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "table": TABLE_ID, "request": REQUEST, "action": typed_map_field("type"), "number": nullable(int_field(1)),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"number"})


@_message
class ForfeitMessage(Message):
    """Concede the current game at ``table`` (str) for the sender's seat (wire type ``forfeit``).

    ``reason`` (str, 1..64): why; a bot relay uses ``"crash"``, ``"garbage"``, ``"illegal"``,
    ``"timeout"`` (:data:`FORFEIT_REASONS`). Becomes ``game-over.forfeit.kind``.
    ``number`` (int >= 1 | None): the game conceded; the server refuses a forfeit of a game that
    is over (``stale-game``), so a late forfeit never ends a later game. None: the running game.
    """

    type: ClassVar[str] = "forfeit"
    direction: ClassVar[str] = "client"
    table: str
    reason: str
    number: int | None = None
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID, "reason": CODE, "number": nullable(int_field(1))}
    _omit_none: ClassVar[frozenset[str]] = frozenset({"number"})


@_message
class Ping(Message):
    """Heartbeat, either way: the receiver answers ``pong`` with the same ``nonce`` (int, 64-bit)."""

    type: ClassVar[str] = "ping"
    direction: ClassVar[str] = "both"
    nonce: int
    _checks: ClassVar[dict[str, Check]] = {"nonce": NONCE}


@_message
class Pong(Message):
    """Answer to ``ping``: the same ``nonce`` (int)."""

    type: ClassVar[str] = "pong"
    direction: ClassVar[str] = "both"
    nonce: int
    _checks: ClassVar[dict[str, Check]] = {"nonce": NONCE}


@_message
class Bye(Message):
    """Closing the connection, either way. ``reason`` (str, may be empty): e.g. ``"shutdown"``
    (server stopping), ``"fatal-error"`` (after an ``error`` with a fatal code), ``"done"``."""

    type: ClassVar[str] = "bye"
    direction: ClassVar[str] = "both"
    reason: str = ""
    _checks: ClassVar[dict[str, Check]] = {"reason": REASON}


# --------------------------------------------------------------------------- server -> client


@_message
class Welcome(Message):
    """The server's answer to a good ``hello``.

    - ``version`` (int): the server's protocol version;
    - ``server`` (str): software name and version, e.g. ``"quinze 0.1.0"``;
    - ``heartbeat`` (float, seconds > 0): interval between the server's pings.
    """

    type: ClassVar[str] = "welcome"
    direction: ClassVar[str] = "server"
    version: int
    server: str
    heartbeat: float
    _checks: ClassVar[dict[str, Check]] = {"version": int_field(0, 2**31), "server": str_field(1, 128), "heartbeat": seconds_field(0.0)}


@_message
class Tables(Message):
    """The table list: ``tables`` ([TableInfo], one page, in order of creation); ``total``
    (int | None): how many tables the listing asked for has in all (more than ``tables`` holds
    when the page is cut); ``offset`` (int | None): where the page starts."""

    type: ClassVar[str] = "tables"
    direction: ClassVar[str] = "server"
    tables: tuple[TableInfo, ...] = ()
    total: int | None = None
    offset: int | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "tables": list_field(record_field(TableInfo)),
        "total": nullable(int_field(0)),
        "offset": nullable(int_field(0)),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"total", "offset"})


@_message
class TableCreated(Message):
    """A new table: ``table`` (TableInfo)."""

    type: ClassVar[str] = "table-created"
    direction: ClassVar[str] = "server"
    table: TableInfo
    _checks: ClassVar[dict[str, Check]] = {"table": record_field(TableInfo)}


@_message
class Joined(Message):
    """Seated at ``table`` (str) in ``seat`` (int).

    - ``token`` (str, secret): give it in ``join`` to reconnect to this seat;
    - ``resumed`` (bool): True when this join reconnected to a held seat.
    """

    type: ClassVar[str] = "joined"
    direction: ClassVar[str] = "server"
    table: str
    seat: int
    token: str
    resumed: bool = False
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID, "seat": SEAT, "token": TOKEN, "resumed": bool_field}


@_message
class Left(Message):
    """No longer seated at (or watching) ``table`` (str)."""

    type: ClassVar[str] = "left"
    direction: ClassVar[str] = "server"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@_message
class Spectating(Message):
    """Now watching ``table`` (str)."""

    type: ClassVar[str] = "spectating"
    direction: ClassVar[str] = "server"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@_message
class GameStart(Message):
    """A game starts (or is re-sent on reconnect) (PROTOCOL.md, "Game start").

    - ``table`` (str); ``game`` (str: game id); ``number`` (int >= 1: the game's number at this table);
    - ``seat`` (int | None): the receiver's seat, None for spectators;
    - ``players`` ([str]): names by seat; ``options`` (map): the validated options;
    - ``commitment`` (str): hex SHA-256 of ``f"{seed}:{salt}"`` (see :func:`commitment`); the
      seed and salt are revealed in ``game-over``.
    """

    type: ClassVar[str] = "game-start"
    direction: ClassVar[str] = "server"
    table: str
    game: str
    number: int
    players: tuple[str, ...]
    options: dict[str, Any]
    commitment: str
    seat: int | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "table": TABLE_ID,
        "game": GAME_ID,
        "number": int_field(1),
        "players": list_field(NAME, 256),
        "options": map_field,
        "commitment": hex64_field,
        "seat": nullable(SEAT),
    }


@_message
class EventMessage(Message):
    """Something happened at ``table`` (str) (wire type ``event``). ``event`` (map): the game's
    event as the receiver may see it, ``{"kind": str, ...}`` (``quinze_protocol.game.Event.for_seat``)."""

    type: ClassVar[str] = "event"
    direction: ClassVar[str] = "server"
    table: str
    event: dict[str, Any]
    number: int | None = None
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID, "event": typed_map_field("kind"), "number": nullable(int_field(1))}
    _omit_none: ClassVar[frozenset[str]] = frozenset({"number"})


@_message
class ActionRequest(Message):
    """Your turn (PROTOCOL.md, "Action requests").

    - ``table`` (str); ``request`` (int >= 0, increasing, never reused by a server run):
      quote it in ``action``; ``number`` (int >= 1 | None): the game's number at the table;
    - ``seat`` (int): the seat to act; ``view`` (map): what that seat sees (``Game.view``);
    - ``legal`` ([map]): every legal action as data (``Game.legal_data``);
    - ``deadline`` (float, seconds >= 0): time left to answer; then the seat forfeits (at a
      table without a clock, 86400 and no forfeit on time);
    - ``clock`` (map | None): the clock state (:mod:`quinze_protocol.clocks`): its kind and every
      seat's time left.
    """

    type: ClassVar[str] = "action-request"
    direction: ClassVar[str] = "server"
    table: str
    request: int
    seat: int
    view: dict[str, Any]
    legal: tuple[dict[str, Any], ...]
    deadline: float
    clock: dict[str, Any] | None = None
    number: int | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "table": TABLE_ID,
        "request": REQUEST,
        "seat": SEAT,
        "view": map_field,
        "legal": list_field(typed_map_field("type")),
        "deadline": seconds_field(0.0),
        "clock": nullable(clock_state_field),
        "number": nullable(int_field(1)),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"clock", "number"})


@_message
class View(Message):
    """What the receiver sees at ``table`` (str) now (PROTOCOL.md, "Flow" 6, `view`).

    Sent right after ``game-start`` to a client that arrives while a game is running: a
    spectator (``view`` is ``Game.view(None)``, no hand) and a seat that resumes with its token
    (``view`` is ``Game.view(seat)``, its own hand), before any pending ``action-request``. The
    client rebuilds its picture of the game from it, as from an ``action-request``'s view.

    - ``view`` (map): the game's view (``Game.view``); the game defines its content;
    - ``clock`` (map | None): the clock state (:mod:`quinze_protocol.clocks`), as in ``action-request``.
    """

    type: ClassVar[str] = "view"
    direction: ClassVar[str] = "server"
    table: str
    view: dict[str, Any]
    number: int | None = None
    clock: dict[str, Any] | None = None
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID, "view": map_field, "number": nullable(int_field(1)),
                                           "clock": nullable(clock_state_field)}
    _omit_none: ClassVar[frozenset[str]] = frozenset({"number", "clock"})


NOTICE_KINDS = ("clock", "disconnected", "reconnected", "thinking")
"""What a ``notice`` tells (PROTOCOL.md, ``notice``)."""


@_message
class Notice(Message):
    """News about the people at ``table`` (str), not part of the game (PROTOCOL.md, ``notice``).
    Sent to seats held by players and to spectators, never to bots.

    - ``kind``: ``"clock"`` (a turn begins: ``seat`` is to act, ``clock`` the clock state),
      ``"disconnected"`` / ``"reconnected"`` (the holder of ``seat`` lost its connection / took
      the seat back), ``"thinking"`` (``seat`` has been deciding for ``seconds``);
    - ``seat`` (int | None); ``clock`` (map | None); ``seconds`` (float | None).
    """

    type: ClassVar[str] = "notice"
    direction: ClassVar[str] = "server"
    table: str
    kind: str
    seat: int | None = None
    clock: dict[str, Any] | None = None
    seconds: float | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "table": TABLE_ID,
        "kind": str_field(choices=NOTICE_KINDS),
        "seat": nullable(SEAT),
        "clock": nullable(clock_state_field),
        "seconds": nullable(seconds_field(0.0)),
    }


@_message
class Accepted(Message):
    """The action answering ``request`` (int) at ``table`` (str) was played."""

    type: ClassVar[str] = "accepted"
    direction: ClassVar[str] = "server"
    table: str
    request: int
    number: int | None = None
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID, "request": REQUEST, "number": nullable(int_field(1))}
    _omit_none: ClassVar[frozenset[str]] = frozenset({"number"})


@_message
class Refused(Message):
    """The action answering ``request`` (int) at ``table`` (str) was refused; the state is
    unchanged and the seat may retry with the same request id until the deadline.

    ``code`` (str): the game's ``IllegalAction``/``ActionError`` code or a server code
    (``stale-request``, ``not-your-turn``, ...); ``reason`` (str): in words.
    """

    type: ClassVar[str] = "refused"
    direction: ClassVar[str] = "server"
    table: str
    request: int
    code: str
    reason: str = ""
    number: int | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "table": TABLE_ID, "request": REQUEST, "code": CODE, "reason": REASON, "number": nullable(int_field(1)),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"number"})


@_message
class GameOver(Message):
    """A game ended (PROTOCOL.md, "Game over").

    - ``table`` (str); ``number`` (int >= 1);
    - ``result`` (map): ``Result.to_data()``: ``points`` [float], ``scores`` [number],
      ``winners`` [int], ``reason`` (str);
    - ``forfeit`` (Forfeit | None): the seat that forfeited and how;
    - ``seed`` (int), ``salt`` (str, ASCII): reveal the commitment of ``game-start``;
    - ``actions`` ([SeatAction]): every action in order, so anyone can re-simulate the game.
    """

    type: ClassVar[str] = "game-over"
    direction: ClassVar[str] = "server"
    table: str
    number: int
    result: dict[str, Any]
    seed: int
    salt: str
    actions: tuple[SeatAction, ...] = ()
    forfeit: Forfeit | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "table": TABLE_ID,
        "number": int_field(1),
        "result": map_field,
        "seed": SEED,
        "salt": SALT,
        "actions": list_field(record_field(SeatAction)),
        "forfeit": nullable(record_field(Forfeit)),
    }


@_message
class TableClosed(Message):
    """``table`` (str) is closed (its games are played, or the server is stopping)."""

    type: ClassVar[str] = "table-closed"
    direction: ClassVar[str] = "server"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@_message
class Error(Message):
    """Something the peer sent was wrong (PROTOCOL.md, "Errors").

    - ``code`` (str): stable code (``bad-field``, ``not-hello``, ``unknown-table``, ...);
    - ``reason`` (str): in words (``"hello.name: must be 1..32 characters, got 0"``);
    - ``ref`` (str | None): the ``type`` of the message at fault, when known;
    - ``request`` (int | None): the ``request`` id of the message at fault (an ``action``), when
      it could be read (left out otherwise).
    """

    MAX_REASON: ClassVar[int] = 2000
    type: ClassVar[str] = "error"
    direction: ClassVar[str] = "server"
    code: str
    reason: str = ""
    ref: str | None = None
    request: int | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "code": CODE, "reason": REASON, "ref": nullable(str_field(0, 64)), "request": nullable(REQUEST),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"request"})


CLIENT_TYPES = frozenset(t for t, c in MESSAGE_TYPES.items() if c.direction in ("client", "both"))
"""Types a client may send (what a server accepts)."""
SERVER_TYPES = frozenset(t for t, c in MESSAGE_TYPES.items() if c.direction in ("server", "both"))
"""Types a server may send (what a client accepts)."""


def parse_message(data: Any, *, allowed: Iterable[str] | None = None) -> Message:
    """The message in ``data`` (a map with a ``"type"``).

    ``allowed``: the types accepted (e.g. :data:`CLIENT_TYPES` in a server); others are
    ``unknown-type``. Raises :class:`ProtocolError` (never fatal): ``not-a-map``,
    ``missing-type``, ``unknown-type``, ``bad-field`` (with ``field``, e.g. ``"hello.name"``,
    and ``ref`` the message type).
    """
    if not isinstance(data, Mapping):
        raise ProtocolError("not-a-map", f"a message is a map, got {type_name(data)}")
    if "type" not in data:
        raise ProtocolError("missing-type", 'a message needs a "type"', "type")
    t = data["type"]
    if not isinstance(t, str):
        raise ProtocolError("missing-type", f'"type" must be text, got {type_name(t)}', "type")
    cls = MESSAGE_TYPES.get(t)
    if cls is None or (allowed is not None and t not in allowed):
        shown = t if len(t) <= 40 else t[:40] + "..."
        raise ProtocolError("unknown-type", f"no message type {shown!r} here", "type", ref=t[:64])
    return cls.from_data(data)
