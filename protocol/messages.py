"""The wire messages of Quinze, one frozen dataclass per ``type`` (PROTOCOL.md, "Messages").

Every message is a map with string keys and a ``"type"``; the same maps travel in msgpack
frames (TCP, ``quinze bot --wire msgpack``), JSON lines (bots) and logs. A message object
validates itself when built (bad values raise :class:`~protocol.errors.ProtocolError` with
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
:class:`EventMessage` and :class:`Error` (so as not to clash with :class:`protocol.game.Action`
and :class:`protocol.game.Event`). ``ping``, ``pong`` and ``bye`` go both ways.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from protocol.errors import ProtocolError

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
    "Welcome",
    "check_data",
    "commitment",
    "parse_message",
]

PROTOCOL_VERSION = 1
"""The version a client states in ``hello`` and the server in ``welcome`` (PROTOCOL.md, "Versions")."""

INT_MIN = -(2**63)
INT_MAX = 2**64 - 1
MAX_DEPTH = 32
"""Deepest nesting accepted in game data (maps and lists)."""

ROLES = ("player", "bot", "spectator")
TABLE_STATES = ("waiting", "playing", "closed")
FORFEIT_REASONS = ("crash", "garbage", "illegal", "timeout")
"""Reasons a relay gives in ``forfeit`` (others are accepted: any short text)."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_HEX64 = re.compile(r"[0-9a-f]{64}")


def commitment(seed: int, salt: str) -> str:
    """The seed commitment sent in ``game-start``: hex SHA-256 (64 lower-case digits) of
    ``f"{seed}:{salt}"`` encoded as ASCII (PROTOCOL.md, "Game start").

    Raises ``ValueError`` if ``salt`` is not ASCII.
    """
    return hashlib.sha256(f"{seed}:{salt}".encode("ascii")).hexdigest()


# --------------------------------------------------------------------------- field checks
# Each check takes (value, path) and returns the value normalised, or raises bad-field.


def _bad(path: str, reason: str) -> ProtocolError:
    return ProtocolError("bad-field", reason, path, ref=path.split(".", 1)[0].split("[", 1)[0])


def _tname(value: Any) -> str:
    if value is None:
        return "nil"
    return {bool: "bool", int: "int", float: "float", str: "text", dict: "map", list: "list", tuple: "list", bytes: "binary"}.get(
        type(value), type(value).__name__
    )


Check = Callable[[Any, str], Any]


def _int(lo: int | None = None, hi: int | None = None) -> Check:
    lo_ = INT_MIN if lo is None else lo
    hi_ = INT_MAX if hi is None else hi

    def check(v: Any, path: str) -> int:
        if not isinstance(v, int) or isinstance(v, bool):
            raise _bad(path, f"must be an integer, got {_tname(v)}")
        if v < lo_:
            raise _bad(path, f"must be at least {lo_}, got {v}")
        if v > hi_:
            raise _bad(path, f"must be at most {hi_}, got {v}")
        return int(v)

    return check


def _float(lo: float | None = None) -> Check:
    def check(v: Any, path: str) -> float:
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise _bad(path, f"must be a number of seconds, got {_tname(v)}")
        f = float(v)
        if not math.isfinite(f):
            raise _bad(path, "must be a finite number")
        if lo is not None and f < lo:
            raise _bad(path, f"must be at least {lo}, got {f}")
        return f

    return check


MAX_MOVE_TIME = 86400.0
"""Longest ``move_time`` accepted, in seconds (a day)."""


def _move_time(v: Any, path: str) -> float:
    f = _float(0.0)(v, path)
    if not 0.0 < f <= MAX_MOVE_TIME:
        raise _bad(path, f"must be more than 0 and at most {MAX_MOVE_TIME:g} seconds, got {f:g}")
    return f


def _bool(v: Any, path: str) -> bool:
    if not isinstance(v, bool):
        raise _bad(path, f"must be true or false, got {_tname(v)}")
    return v


def _str(lo: int = 0, hi: int = 2000, *, choices: tuple[str, ...] | None = None, plain: bool = False, ascii_: bool = False) -> Check:
    def check(v: Any, path: str) -> str:
        if not isinstance(v, str):
            raise _bad(path, f"must be text, got {_tname(v)}")
        if choices is not None:
            if v not in choices:
                raise _bad(path, f"must be one of {', '.join(choices)}, got {v[:40]!r}")
            return v
        if not lo <= len(v) <= hi:
            raise _bad(path, f"must be {lo}..{hi} characters, got {len(v)}")
        if plain and _CONTROL.search(v):
            raise _bad(path, "must not contain control characters")
        if ascii_ and not v.isascii():
            raise _bad(path, "must be ASCII")
        return v

    return check


def _nullable(inner: Check) -> Check:
    def check(v: Any, path: str) -> Any:
        return None if v is None else inner(v, path)

    return check


def check_data(value: Any, path: str, depth: int = 0) -> Any:
    """``value`` checked to be JSON-compatible data (the same through msgpack and JSON): dicts
    with text keys, lists (tuples are made lists), text, 64-bit ints, finite floats, bools, nil;
    at most :data:`MAX_DEPTH` levels. Returns a copy. Raises ``bad-field`` naming the path."""
    if depth > MAX_DEPTH:
        raise _bad(path, f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise _bad(path, "integer out of the 64-bit range")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _bad(path, "must be a finite number")
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise _bad(path, f"map keys must be text, got {_tname(k)}")
            out[k] = check_data(v, f"{path}.{k}", depth + 1)
        return out
    if isinstance(value, list) or type(value) is tuple:  # not namedtuples (msgpack ExtType)
        return [check_data(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    raise _bad(path, f"must be plain data, got {_tname(value)}")


def _map(v: Any, path: str) -> dict[str, Any]:
    if not isinstance(v, Mapping):
        raise _bad(path, f"must be a map, got {_tname(v)}")
    return check_data(v, path)


def _typed_map(key: str) -> Check:
    """A map that must hold text under ``key`` (``event.kind``, an action's ``type``)."""

    def check(v: Any, path: str) -> dict[str, Any]:
        m = _map(v, path)
        if key not in m:
            raise _bad(f"{path}.{key}", "missing")
        _str(1, 64)(m[key], f"{path}.{key}")
        return m

    return check


def _list(item: Check, hi: int | None = None) -> Check:
    def check(v: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(v, (list, tuple)):
            raise _bad(path, f"must be a list, got {_tname(v)}")
        if hi is not None and len(v) > hi:
            raise _bad(path, f"must have at most {hi} items, got {len(v)}")
        return tuple(item(x, f"{path}[{i}]") for i, x in enumerate(v))

    return check


def _record(cls: type) -> Check:
    """A nested value class (``TableInfo``, ``SeatInfo``, ``Forfeit``, ``SeatAction``)."""

    def check(v: Any, path: str) -> Any:
        if isinstance(v, cls):
            return v
        if not isinstance(v, Mapping):
            raise _bad(path, f"must be a map, got {_tname(v)}")
        return cls.from_data(v, path)

    return check


_SEAT = _int(0, 255)
_TABLE = _str(1, 32, plain=True)
_GAME = _str(1, 64, plain=True)
_NAME = _str(1, 32, plain=True)
_REASON = _str(0, 2000)
_CODE = _str(1, 64, plain=True)
_REQUEST = _int(0)
_NONCE = _int()
_SEED = _int()
_SALT = _str(1, 128, plain=True, ascii_=True)
_TOKEN = _str(1, 128, plain=True)


def _hex64(v: Any, path: str) -> str:
    _str(0, 64)(v, path)
    if not _HEX64.fullmatch(v):
        raise _bad(path, "must be 64 lower-case hex digits (SHA-256)")
    return v


# --------------------------------------------------------------------------- base


class _Value:
    """Shared machinery: ``_checks`` maps each field to its check; ``__post_init__`` runs them."""

    _checks: ClassVar[dict[str, Check]] = {}
    _label: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for name, check in self._checks.items():
            object.__setattr__(self, name, check(getattr(self, name), f"{self._label}.{name}"))

    @classmethod
    def _kwargs(cls, data: Mapping[str, Any], label: str) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name in data:
                kwargs[f.name] = cls._checks[f.name](data[f.name], f"{label}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise _bad(f"{label}.{f.name}", "missing")
        return kwargs

    @classmethod
    def _build(cls, kwargs: dict[str, Any]) -> Any:
        """An instance from already checked values (defaults filled in), without re-checking."""
        obj = cls.__new__(cls)
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name in kwargs:
                v = kwargs[f.name]
            elif f.default is not dataclasses.MISSING:
                v = f.default
            else:
                v = f.default_factory()  # type: ignore[misc]
            object.__setattr__(obj, f.name, v)
        return obj

    def _field_data(self) -> dict[str, Any]:
        return {f.name: _out(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]


def _out(v: Any) -> Any:
    if isinstance(v, _Value):
        return v.to_data()
    if isinstance(v, tuple):
        return [_out(x) for x in v]
    return v


class _Record(_Value):
    """A nested value (not a message): ``from_data(data, path)`` / ``to_data()``."""

    @classmethod
    def from_data(cls, data: Mapping[str, Any], path: str | None = None) -> Any:
        return cls._build(cls._kwargs(data, path or cls._label))

    def to_data(self) -> dict[str, Any]:
        return self._field_data()


@dataclass(frozen=True, kw_only=True)
class SeatInfo(_Record):
    """One seat of a table in :class:`TableInfo`.

    - ``seat`` (int, 0..n-1); ``name`` (str | None: the player's name, None when free);
    - ``connected`` (bool: a connection holds the seat now; False for a free seat or a
      dropped player who may still reconnect with the seat token).
    """

    seat: int
    name: str | None = None
    connected: bool = False
    _label: ClassVar[str] = "seat"
    _checks: ClassVar[dict[str, Check]] = {"seat": _SEAT, "name": _nullable(_NAME), "connected": _bool}


@dataclass(frozen=True, kw_only=True)
class TableInfo(_Record):
    """A table as listed in ``tables`` and ``table-created`` (PROTOCOL.md, "TableInfo").

    - ``table`` (str: id such as ``"t1"``); ``game`` (str: game id); ``options`` (map: the
      validated table options, ``players`` included);
    - ``seats`` ([SeatInfo], one per seat, in seat order);
    - ``state`` (``"waiting"`` for players, ``"playing"``, ``"closed"``);
    - ``number`` (int >= 0: the current or last game number, 0 before the first game);
    - ``games`` (int >= 1: games played at this table before it closes);
    - ``move_time`` (float | None, seconds: time for each decision; None if not stated);
    - ``spectators`` (int >= 0: connections watching).
    """

    table: str
    game: str
    options: dict[str, Any]
    seats: tuple[SeatInfo, ...]
    state: str
    number: int = 0
    games: int = 1
    move_time: float | None = None
    spectators: int = 0
    _label: ClassVar[str] = "table"
    _checks: ClassVar[dict[str, Check]] = {
        "table": _TABLE,
        "game": _GAME,
        "options": _map,
        "seats": _list(_record(SeatInfo), 256),
        "state": _str(choices=TABLE_STATES),
        "number": _int(0),
        "games": _int(1),
        "move_time": _nullable(_move_time),
        "spectators": _int(0),
    }


@dataclass(frozen=True, kw_only=True)
class Forfeit(_Record):
    """Who forfeited a game and how (``game-over.forfeit``, log ``result.forfeit``).

    - ``seat`` (int); ``kind`` (str: ``"timeout"`` when the deadline passed, or the reason of a
      ``forfeit`` message: ``"crash"``, ``"garbage"``, ``"illegal"``, ``"timeout"``, ...;
      ``"disconnect"`` when the server gave up on a dropped seat).
    """

    seat: int
    kind: str
    _label: ClassVar[str] = "forfeit"
    _checks: ClassVar[dict[str, Check]] = {"seat": _SEAT, "kind": _CODE}


@dataclass(frozen=True, kw_only=True)
class SeatAction(_Record):
    """One played action in ``game-over.actions``: ``seat`` (int) and ``action`` (map: the game's
    action data, ``{"type": ..., ...}``)."""

    seat: int
    action: dict[str, Any]
    _label: ClassVar[str] = "action"
    _checks: ClassVar[dict[str, Check]] = {"seat": _SEAT, "action": _typed_map("type")}


class Message(_Value):
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


def _message(cls: type) -> type:
    cls = dataclass(frozen=True, kw_only=True)(cls)
    cls._label = cls.type
    MESSAGE_TYPES[cls.type] = cls
    return cls


# --------------------------------------------------------------------------- client -> server


@_message
class Hello(Message):
    """First message of a client (PROTOCOL.md, "Handshake").

    - ``version`` (int): the protocol version the client speaks (:data:`PROTOCOL_VERSION`);
    - ``name`` (str, 1..32 characters, no control characters): the player's name;
    - ``role`` (``"player"`` | ``"bot"`` | ``"spectator"``).
    """

    type: ClassVar[str] = "hello"
    direction: ClassVar[str] = "client"
    version: int
    name: str
    role: str = "player"
    _checks: ClassVar[dict[str, Check]] = {"version": _int(0, 2**31), "name": _NAME, "role": _str(choices=ROLES)}


@_message
class ListTables(Message):
    """Ask for the table list; the server answers ``tables``. No fields."""

    type: ClassVar[str] = "list-tables"
    direction: ClassVar[str] = "client"
    _checks: ClassVar[dict[str, Check]] = {}


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
    """

    type: ClassVar[str] = "create-table"
    direction: ClassVar[str] = "client"
    game: str
    options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    games: int = 1
    move_time: float | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "game": _GAME,
        "options": _map,
        "seed": _nullable(_SEED),
        "games": _int(1, 1_000_000),
        "move_time": _nullable(_move_time),
    }


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
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE, "seat": _nullable(_SEAT), "token": _nullable(_TOKEN)}


@_message
class Leave(Message):
    """Give up a seat (or stop watching) at ``table`` (str); answered by ``left``. Leaving a seat
    while a game runs forfeits it."""

    type: ClassVar[str] = "leave"
    direction: ClassVar[str] = "client"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE}


@_message
class Spectate(Message):
    """Watch ``table`` (str) with public information only; answered by ``spectating``."""

    type: ClassVar[str] = "spectate"
    direction: ClassVar[str] = "client"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE}


@_message
class ActionMessage(Message):
    """Answer to an ``action-request`` (wire type ``action``).

    - ``table`` (str); ``request`` (int): the id of the request answered;
    - ``action`` (map): the game's action data, ``{"type": str, ...}``, e.g.
      ``{"type": "fifteen", "hand": ["7H"], "table": ["8C"]}`` (PROTOCOL.md, "Game actions").
    """

    type: ClassVar[str] = "action"
    direction: ClassVar[str] = "client"
    table: str
    request: int
    action: dict[str, Any]
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE, "request": _REQUEST, "action": _typed_map("type")}


@_message
class ForfeitMessage(Message):
    """Concede the current game at ``table`` (str) for the sender's seat (wire type ``forfeit``).

    ``reason`` (str, 1..64): why; a bot relay uses ``"crash"``, ``"garbage"``, ``"illegal"``,
    ``"timeout"`` (:data:`FORFEIT_REASONS`). Becomes ``game-over.forfeit.kind``.
    """

    type: ClassVar[str] = "forfeit"
    direction: ClassVar[str] = "client"
    table: str
    reason: str
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE, "reason": _CODE}


@_message
class Ping(Message):
    """Heartbeat, either way: the receiver answers ``pong`` with the same ``nonce`` (int, 64-bit)."""

    type: ClassVar[str] = "ping"
    direction: ClassVar[str] = "both"
    nonce: int
    _checks: ClassVar[dict[str, Check]] = {"nonce": _NONCE}


@_message
class Pong(Message):
    """Answer to ``ping``: the same ``nonce`` (int)."""

    type: ClassVar[str] = "pong"
    direction: ClassVar[str] = "both"
    nonce: int
    _checks: ClassVar[dict[str, Check]] = {"nonce": _NONCE}


@_message
class Bye(Message):
    """Closing the connection, either way. ``reason`` (str, may be empty): e.g. ``"shutdown"``
    (server stopping), ``"fatal-error"`` (after an ``error`` with a fatal code), ``"done"``."""

    type: ClassVar[str] = "bye"
    direction: ClassVar[str] = "both"
    reason: str = ""
    _checks: ClassVar[dict[str, Check]] = {"reason": _REASON}


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
    _checks: ClassVar[dict[str, Check]] = {"version": _int(0, 2**31), "server": _str(1, 128), "heartbeat": _float(0.0)}


@_message
class Tables(Message):
    """The table list: ``tables`` ([TableInfo])."""

    type: ClassVar[str] = "tables"
    direction: ClassVar[str] = "server"
    tables: tuple[TableInfo, ...] = ()
    _checks: ClassVar[dict[str, Check]] = {"tables": _list(_record(TableInfo))}


@_message
class TableCreated(Message):
    """A new table: ``table`` (TableInfo)."""

    type: ClassVar[str] = "table-created"
    direction: ClassVar[str] = "server"
    table: TableInfo
    _checks: ClassVar[dict[str, Check]] = {"table": _record(TableInfo)}


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
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE, "seat": _SEAT, "token": _TOKEN, "resumed": _bool}


@_message
class Left(Message):
    """No longer seated at (or watching) ``table`` (str)."""

    type: ClassVar[str] = "left"
    direction: ClassVar[str] = "server"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE}


@_message
class Spectating(Message):
    """Now watching ``table`` (str)."""

    type: ClassVar[str] = "spectating"
    direction: ClassVar[str] = "server"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE}


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
        "table": _TABLE,
        "game": _GAME,
        "number": _int(1),
        "players": _list(_NAME, 256),
        "options": _map,
        "commitment": _hex64,
        "seat": _nullable(_SEAT),
    }


@_message
class EventMessage(Message):
    """Something happened at ``table`` (str) (wire type ``event``). ``event`` (map): the game's
    event as the receiver may see it, ``{"kind": str, ...}`` (``protocol.game.Event.for_seat``)."""

    type: ClassVar[str] = "event"
    direction: ClassVar[str] = "server"
    table: str
    event: dict[str, Any]
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE, "event": _typed_map("kind")}


@_message
class ActionRequest(Message):
    """Your turn (PROTOCOL.md, "Action requests").

    - ``table`` (str); ``request`` (int >= 0, increasing per table): quote it in ``action``;
    - ``seat`` (int): the seat to act; ``view`` (map): what that seat sees (``Game.view``);
    - ``legal`` ([map]): every legal action as data (``Game.legal_data``);
    - ``deadline`` (float, seconds >= 0): time left to answer; then the seat forfeits.
    """

    type: ClassVar[str] = "action-request"
    direction: ClassVar[str] = "server"
    table: str
    request: int
    seat: int
    view: dict[str, Any]
    legal: tuple[dict[str, Any], ...]
    deadline: float
    _checks: ClassVar[dict[str, Check]] = {
        "table": _TABLE,
        "request": _REQUEST,
        "seat": _SEAT,
        "view": _map,
        "legal": _list(_typed_map("type")),
        "deadline": _float(0.0),
    }


@_message
class Accepted(Message):
    """The action answering ``request`` (int) at ``table`` (str) was played."""

    type: ClassVar[str] = "accepted"
    direction: ClassVar[str] = "server"
    table: str
    request: int
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE, "request": _REQUEST}


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
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE, "request": _REQUEST, "code": _CODE, "reason": _REASON}


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
        "table": _TABLE,
        "number": _int(1),
        "result": _map,
        "seed": _SEED,
        "salt": _SALT,
        "actions": _list(_record(SeatAction)),
        "forfeit": _nullable(_record(Forfeit)),
    }


@_message
class TableClosed(Message):
    """``table`` (str) is closed (its games are played, or the server is stopping)."""

    type: ClassVar[str] = "table-closed"
    direction: ClassVar[str] = "server"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": _TABLE}


@_message
class Error(Message):
    """Something the peer sent was wrong (PROTOCOL.md, "Errors").

    - ``code`` (str): stable code (``bad-field``, ``not-hello``, ``unknown-table``, ...);
    - ``reason`` (str): in words (``"hello.name: must be 1..32 characters, got 0"``);
    - ``ref`` (str | None): the ``type`` of the message at fault, when known.
    """

    MAX_REASON: ClassVar[int] = 2000
    type: ClassVar[str] = "error"
    direction: ClassVar[str] = "server"
    code: str
    reason: str = ""
    ref: str | None = None
    _checks: ClassVar[dict[str, Check]] = {"code": _CODE, "reason": _REASON, "ref": _nullable(_str(0, 64))}


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
        raise ProtocolError("not-a-map", f"a message is a map, got {_tname(data)}")
    if "type" not in data:
        raise ProtocolError("missing-type", 'a message needs a "type"', "type")
    t = data["type"]
    if not isinstance(t, str):
        raise ProtocolError("missing-type", f'"type" must be text, got {_tname(t)}', "type")
    cls = MESSAGE_TYPES.get(t)
    if cls is None or (allowed is not None and t not in allowed):
        shown = t if len(t) <= 40 else t[:40] + "..."
        raise ProtocolError("unknown-type", f"no message type {shown!r} here", "type", ref=t[:64])
    return cls.from_data(data)
