"""The messages a client sends, and those that go both ways (``ping``, ``pong``, ``bye``)
(PROTOCOL.md, "Client → server", "Both ways"). Import them from :mod:`quinze_protocol.messages`."""

from __future__ import annotations

from dataclasses import field
from typing import Any, ClassVar

from quinze_protocol.clocks import clock_field
from quinze_protocol.fields import (
    CODE,
    GAME_ID,
    HELLO_NAME,
    NONCE,
    REASON,
    REQUEST,
    ROLES,
    SEAT,
    TABLE_ID,
    TOKEN,
    Check,
    bool_field,
    int_field,
    list_field,
    map_field,
    move_time_field,
    nullable,
    str_field,
    typed_map_field,
)
from quinze_protocol.message_base import Message, message
from quinze_protocol.rng import SEED_MAX

__all__ = ["ActionMessage", "Bye", "CreateTable", "ForfeitMessage", "Hello", "Join", "Leave", "ListTables", "Ping", "Pong", "Spectate"]


@message
class Hello(Message):
    """First message of a client (PROTOCOL.md, "Handshake").

    - ``version`` (int, any 64-bit integer): the protocol version the client speaks
      (:data:`PROTOCOL_VERSION`); one the server does not speak is ``version-mismatch``;
    - ``name`` (str, 1..32 characters, no control or format characters, at least one of them
      shown: not only spaces or invisible ones, :data:`~quinze_protocol.fields.HELLO_NAME`):
      the player's name, kept as sent;
    - ``role`` (``"player"`` | ``"bot"`` | ``"spectator"``).
    """

    type: ClassVar[str] = "hello"
    direction: ClassVar[str] = "client"
    version: int
    name: str
    role: str = "player"
    _checks: ClassVar[dict[str, Check]] = {"version": int_field(), "name": HELLO_NAME, "role": str_field(choices=ROLES)}


@message
class ListTables(Message):
    """Ask for the table list; the server answers ``tables`` (PROTOCOL.md, `list-tables`).
    Every field is optional:

    - ``closed`` (bool, default False): list closed tables too (left out by default);
    - ``table`` (str | None): only that table;
    - ``offset`` (int 0 .. 2**31, default 0): skip that many tables (pages, in order of creation);
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


@message
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
        "seed": nullable(int_field(0, SEED_MAX)),
        "games": int_field(1, 1_000_000),
        "move_time": nullable(move_time_field),
        "clock": nullable(clock_field),
        "seat_move_times": nullable(list_field(nullable(move_time_field), 64)),
        "position": nullable(map_field),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"clock"})


@message
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


@message
class Leave(Message):
    """Give up a seat (or stop watching) at ``table`` (str); answered by ``left``. Leaving a seat
    while a game runs forfeits it."""

    type: ClassVar[str] = "leave"
    direction: ClassVar[str] = "client"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@message
class Spectate(Message):
    """Watch ``table`` (str) with public information only; answered by ``spectating``."""

    type: ClassVar[str] = "spectate"
    direction: ClassVar[str] = "client"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@message
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


@message
class ForfeitMessage(Message):
    """Concede the current game at ``table`` (str) for the sender's seat (wire type ``forfeit``).

    ``reason`` (str, 1..64): the forfeit kind (the wire field keeps its first name); a bot relay
    uses ``"timeout"``, ``"crash"``, ``"garbage"``, ``"illegal"``
    (:data:`~quinze_protocol.fields.RELAY_FORFEIT_KINDS`). Becomes ``game-over.forfeit.kind``.
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


@message
class Ping(Message):
    """Heartbeat, either way: the receiver answers ``pong`` with the same ``nonce`` (int, 64-bit)."""

    type: ClassVar[str] = "ping"
    direction: ClassVar[str] = "both"
    nonce: int
    _checks: ClassVar[dict[str, Check]] = {"nonce": NONCE}


@message
class Pong(Message):
    """Answer to ``ping``: the same ``nonce`` (int)."""

    type: ClassVar[str] = "pong"
    direction: ClassVar[str] = "both"
    nonce: int
    _checks: ClassVar[dict[str, Check]] = {"nonce": NONCE}


@message
class Bye(Message):
    """Closing the connection, either way. ``reason`` (str, may be empty): e.g. ``"shutdown"``
    (server stopping), ``"fatal-error"`` (after an ``error`` with a fatal code), ``"done"``."""

    type: ClassVar[str] = "bye"
    direction: ClassVar[str] = "both"
    reason: str = ""
    _checks: ClassVar[dict[str, Check]] = {"reason": REASON}
