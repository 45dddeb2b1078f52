"""Protocol errors: one exception with a stable code (PROTOCOL.md, "Error codes").

Codes raised by this package:

* framing (see :mod:`quinze_protocol.framing`): ``frame-too-large`` (fatal), ``not-msgpack`` (fatal),
  ``not-json`` (JSON-lines wire only; not fatal), ``not-a-map``, ``bad-utf8``;
* messages (see :mod:`quinze_protocol.messages`): ``missing-type``, ``unknown-type``, ``bad-field``.

The server adds its own codes (``version-mismatch``, ``not-hello``, ``unknown-table``, ...) by
building a :class:`ProtocolError` or an ``error`` message directly; the list is in PROTOCOL.md.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FATAL_CODES", "ProtocolError"]

FATAL_CODES = frozenset({"frame-too-large", "not-msgpack"})
"""Codes after which a byte stream cannot go on: the peer gets ``error`` then ``bye`` and the
connection is closed (PROTOCOL.md, "Errors")."""


class ProtocolError(Exception):
    """Bytes or data that do not make a valid message.

    - ``code``: stable kebab-case code (``bad-field``, ``not-msgpack``, ...).
    - ``reason``: for people, one line.
    - ``field``: the offending field as a dotted path (``"hello.name"``,
      ``"game-over.actions[2].seat"``), or None.
    - ``fatal``: True when the stream cannot continue (the decoder that raised it refuses
      further input). Defaults to ``code in FATAL_CODES``.
    - ``ref``: the ``type`` of the message at fault when known (goes to ``error.ref``).
    - ``request``: the ``request`` id of the message at fault (an ``action``) when it could be
      read (goes to ``error.request``).
    """

    def __init__(
        self,
        code: str,
        reason: str,
        field: str | None = None,
        *,
        fatal: bool | None = None,
        ref: str | None = None,
        request: int | None = None,
    ) -> None:
        self.code = code
        self.reason = reason
        self.field = field
        self.fatal = code in FATAL_CODES if fatal is None else fatal
        self.ref = ref
        self.request = request
        super().__init__(f"{code}: {field}: {reason}" if field else f"{code}: {reason}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProtocolError):
            return NotImplemented
        return (self.code, self.reason, self.field, self.fatal) == (other.code, other.reason, other.field, other.fatal)

    __hash__ = Exception.__hash__

    def message_text(self) -> str:
        """``"field: reason"`` (or just the reason when no field), as sent in ``error.reason``."""
        return f"{self.field}: {self.reason}" if self.field else self.reason

    def to_error(self) -> Any:
        """The ``error`` message telling the peer about this error (``quinze_protocol.messages.Error``)."""
        from quinze_protocol.messages import Error

        return Error(code=self.code, reason=self.message_text()[:Error.MAX_REASON], ref=self.ref, request=self.request)
