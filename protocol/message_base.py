"""The base of every wire message: :class:`Message`, the registry of message classes by wire
type (:data:`MESSAGE_TYPES`), the protocol version and the seed commitment (PROTOCOL.md,
"Messages", "Game start"). The message classes themselves are in
:mod:`quinze_protocol.messages_client` and :mod:`quinze_protocol.messages_server`; import them
all from :mod:`quinze_protocol.messages`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from quinze_protocol.fields import Value

__all__ = ["MESSAGE_TYPES", "PROTOCOL_VERSION", "Message", "canonical_position", "commitment", "message"]

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


def message(cls: type) -> type:
    """Class decorator: a frozen keyword-only dataclass registered in :data:`MESSAGE_TYPES`."""
    cls = dataclass(frozen=True, kw_only=True)(cls)
    cls._label = cls.type
    MESSAGE_TYPES[cls.type] = cls
    return cls
