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

The classes live in :mod:`quinze_protocol.messages_client` (client -> server, and both ways) and
:mod:`quinze_protocol.messages_server` (server -> client), on the base of
:mod:`quinze_protocol.message_base`; this module gathers them, with :func:`parse_message`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from quinze_protocol.errors import ProtocolError
from quinze_protocol.fields import FORFEIT_REASONS, INT_MAX, INT_MIN, MAX_DEPTH, MAX_MOVE_TIME, check_data, type_name
from quinze_protocol.message_base import MESSAGE_TYPES, PROTOCOL_VERSION, Message, canonical_position, commitment
from quinze_protocol.messages_client import (
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
)
from quinze_protocol.messages_server import (
    Accepted,
    ActionRequest,
    Error,
    EventMessage,
    GameOver,
    GameStart,
    Joined,
    Left,
    NOTICE_KINDS,
    Notice,
    Refused,
    Spectating,
    TableClosed,
    TableCreated,
    Tables,
    View,
    Welcome,
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
    "canonical_position",
    "check_data",
    "commitment",
    "parse_message",
]

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
