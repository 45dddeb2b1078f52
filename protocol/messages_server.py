"""The messages a server sends (PROTOCOL.md, "Server → client"). Import them from
:mod:`quinze_protocol.messages`."""

from __future__ import annotations

from typing import Any, ClassVar

from quinze_protocol.clocks import clock_state_field
from quinze_protocol.fields import (
    CODE,
    GAME_ID,
    NAME,
    REASON,
    REQUEST,
    SALT,
    SEAT,
    SEED,
    TABLE_ID,
    TOKEN,
    Check,
    bool_field,
    hex64_field,
    int_field,
    list_field,
    map_field,
    nullable,
    record_field,
    seconds_field,
    str_field,
    typed_map_field,
)
from quinze_protocol.message_base import Message, message
from quinze_protocol.records import Forfeit, SeatAction, TableInfo

__all__ = ["Accepted", "ActionRequest", "Error", "EventMessage", "GameOver", "GameStart", "Joined", "Left", "NOTICE_KINDS", "Notice", "Refused", "Spectating", "TableClosed", "TableCreated", "Tables", "View", "Welcome"]


@message
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


@message
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


@message
class TableCreated(Message):
    """A new table: ``table`` (TableInfo)."""

    type: ClassVar[str] = "table-created"
    direction: ClassVar[str] = "server"
    table: TableInfo
    _checks: ClassVar[dict[str, Check]] = {"table": record_field(TableInfo)}


@message
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


@message
class Left(Message):
    """No longer seated at (or watching) ``table`` (str)."""

    type: ClassVar[str] = "left"
    direction: ClassVar[str] = "server"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@message
class Spectating(Message):
    """Now watching ``table`` (str)."""

    type: ClassVar[str] = "spectating"
    direction: ClassVar[str] = "server"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@message
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


@message
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


@message
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


@message
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


NOTICE_KINDS = ("clock", "disconnected", "reconnected", "thinking", "log-failed")
"""What a ``notice`` tells (PROTOCOL.md, ``notice``)."""


@message
class Notice(Message):
    """News about the people at ``table`` (str), not part of the game (PROTOCOL.md, ``notice``).
    Sent to seats held by players and to spectators, never to bots.

    - ``kind``: ``"clock"`` (a turn begins: ``seat`` is to act, ``clock`` the clock state),
      ``"disconnected"`` / ``"reconnected"`` (the holder of ``seat`` lost its connection / took
      the seat back), ``"thinking"`` (``seat`` has been deciding for ``seconds``),
      ``"log-failed"`` (the server could not write the replay log of game ``number``: a full
      disk ...; ``reason``: why, in the system's few words, ``"No space left on device"``; the
      game's result stands, play goes on);
    - ``seat`` (int | None); ``clock`` (map | None); ``seconds`` (float | None); ``number``
      (int >= 1 | None) and ``reason`` (str | None), left out when None (only ``log-failed`` has them).
    """

    type: ClassVar[str] = "notice"
    direction: ClassVar[str] = "server"
    table: str
    kind: str
    seat: int | None = None
    clock: dict[str, Any] | None = None
    seconds: float | None = None
    number: int | None = None
    reason: str | None = None
    _checks: ClassVar[dict[str, Check]] = {
        "table": TABLE_ID,
        "kind": str_field(choices=NOTICE_KINDS),
        "seat": nullable(SEAT),
        "clock": nullable(clock_state_field),
        "seconds": nullable(seconds_field(0.0)),
        "number": nullable(int_field(1)),
        "reason": nullable(REASON),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"number", "reason"})


@message
class Accepted(Message):
    """The action answering ``request`` (int) at ``table`` (str) was played."""

    type: ClassVar[str] = "accepted"
    direction: ClassVar[str] = "server"
    table: str
    request: int
    number: int | None = None
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID, "request": REQUEST, "number": nullable(int_field(1))}
    _omit_none: ClassVar[frozenset[str]] = frozenset({"number"})


@message
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


@message
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


@message
class TableClosed(Message):
    """``table`` (str) is closed (its games are played, or the server is stopping)."""

    type: ClassVar[str] = "table-closed"
    direction: ClassVar[str] = "server"
    table: str
    _checks: ClassVar[dict[str, Check]] = {"table": TABLE_ID}


@message
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
