"""The errors a game raises (the game interface, :mod:`quinze_protocol.game`): one base,
:class:`GameError`, with a stable kebab-case ``code``, a ``reason`` for people and the offending
``field``; the server sends them as ``error`` messages (PROTOCOL.md, "Error codes"). Imported from
:mod:`quinze_protocol.game` as before; kept here as a concern of their own.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ActionError", "GameError", "IllegalAction", "OptionError", "PositionError", "UnknownGame"]


class GameError(Exception):
    """Base of every error a game raises. ``code`` is stable (kebab-case), ``reason`` is for people.

    ``field`` names the offending field (dotted path such as ``"hands.2[3]"``) when the error is
    about data; None otherwise.
    """

    code = "game-error"

    def __init__(self, reason: str, *, code: str | None = None, field: str | None = None) -> None:
        if code is not None:
            self.code = code
        self.reason = reason
        self.field = field
        super().__init__(f"{field}: {reason}" if field else reason)

    def to_data(self) -> dict[str, Any]:
        """``{"code": str, "reason": str, "field": str | None}``."""
        return {"code": self.code, "reason": self.reason, "field": self.field}


class IllegalAction(GameError):
    """A well-formed action that the rules refuse now. The state is unchanged.

    Codes are game-specific and stable, e.g. ``not-your-turn``, ``game-over``, ``must-make-fifteen``,
    ``not-fifteen``, ``card-not-held``; the reason says why in words.
    """

    code = "illegal-action"


class ActionError(GameError):
    """Action data that cannot be read at all (missing or mistyped field, unknown card or type)."""

    code = "bad-action"


class PositionError(GameError):
    """A position (see each game's ``to_position``) that cannot be loaded; ``field`` names the culprit."""

    code = "bad-position"


class OptionError(GameError):
    """A table option that is unknown or out of range; ``field`` is the option's name."""

    code = "bad-option"


class UnknownGame(GameError):
    """No game is registered under this id."""

    code = "unknown-game"
