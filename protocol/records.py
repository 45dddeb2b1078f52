"""Values nested in messages: :class:`TableInfo` and its :class:`SeatInfo`, :class:`Forfeit`,
:class:`SeatAction` (PROTOCOL.md, "Messages"). Each has ``from_data(map, path)`` and ``to_data()``
and checks itself like a message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from quinze_protocol.clocks import clock_field
from quinze_protocol.fields import (
    CODE,
    GAME_ID,
    NAME,
    SEAT,
    TABLE_ID,
    TABLE_STATES,
    Check,
    Record,
    bool_field,
    int_field,
    list_field,
    map_field,
    move_time_field,
    nullable,
    record_field,
    seconds_field,
    str_field,
    typed_map_field,
)

__all__ = ["Forfeit", "SeatAction", "SeatInfo", "TableInfo"]


@dataclass(frozen=True, kw_only=True)
class SeatInfo(Record):
    """One seat of a table in :class:`TableInfo`.

    - ``seat`` (int, 0..n-1); ``name`` (str | None: the player's name, None when free);
    - ``connected`` (bool: a connection holds the seat now; False for a free seat or a
      dropped player who may still reconnect with the seat token).
    """

    seat: int
    name: str | None = None
    connected: bool = False
    _label: ClassVar[str] = "seat"
    _checks: ClassVar[dict[str, Check]] = {"seat": SEAT, "name": nullable(NAME), "connected": bool_field}


@dataclass(frozen=True, kw_only=True)
class TableInfo(Record):
    """A table as listed in ``tables`` and ``table-created`` (PROTOCOL.md, "TableInfo").

    - ``table`` (str: id such as ``"t1"``); ``game`` (str: game id); ``options`` (map: the
      validated table options, ``players`` included);
    - ``seats`` ([SeatInfo], one per seat, in seat order);
    - ``state`` (``"waiting"`` for players, ``"playing"``, ``"closed"``);
    - ``number`` (int >= 0: the current or last game number, 0 before the first game);
    - ``games`` (int >= 1: games played at this table before it closes);
    - ``move_time`` (float | None, seconds: time for each decision; None if not stated);
    - ``spectators`` (int >= 0: connections watching);
    - ``clock`` (map | None: the table's clock spec, :mod:`quinze_protocol.clocks`; None if not stated).
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
    clock: dict[str, Any] | None = None
    _label: ClassVar[str] = "table"
    _checks: ClassVar[dict[str, Check]] = {
        "table": TABLE_ID,
        "game": GAME_ID,
        "options": map_field,
        "seats": list_field(record_field(SeatInfo), 256),
        "state": str_field(choices=TABLE_STATES),
        "number": int_field(0),
        "games": int_field(1),
        "move_time": nullable(move_time_field),
        "spectators": int_field(0),
        "clock": nullable(clock_field),
    }
    _omit_none: ClassVar[frozenset[str]] = frozenset({"clock"})


@dataclass(frozen=True, kw_only=True)
class Forfeit(Record):
    """Who forfeited a game and how (``game-over.forfeit``, log ``result.forfeit``).

    - ``seat`` (int); ``kind`` (str: ``"timeout"`` when the seat's clock ran out, ``"leave"`` when
      it left the table during the game, or the ``reason`` of a ``forfeit`` message: a relay gives
      one of :data:`~quinze_protocol.fields.RELAY_FORFEIT_KINDS`; :data:`~quinze_protocol.fields.FORFEIT_KINDS`
      lists them all. A dropped seat keeps its clock, so it ends as ``"timeout"``).
    """

    seat: int
    kind: str
    _label: ClassVar[str] = "forfeit"
    _checks: ClassVar[dict[str, Check]] = {"seat": SEAT, "kind": CODE}


@dataclass(frozen=True, kw_only=True)
class SeatAction(Record):
    """One played action in ``game-over.actions``: ``seat`` (int), ``action`` (map: the game's
    action data, ``{"type": ..., ...}``) and ``time`` (float seconds | None: how long the seat
    took, from its ``action-request`` to this answer; None from a server that does not say)."""

    seat: int
    action: dict[str, Any]
    time: float | None = None
    _label: ClassVar[str] = "action"
    _checks: ClassVar[dict[str, Check]] = {"seat": SEAT, "action": typed_map_field("type"), "time": nullable(seconds_field(0.0))}
    _omit_none: ClassVar[frozenset[str]] = frozenset({"time"})
