"""What a relay reports about one seat (:mod:`quinze_cli.relay`): the bot's :class:`Failure`, if
any, and each game's :class:`GameOutcome` (PROTOCOL.md, "Bots")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from quinze_protocol.messages import GameOver, GameStart

__all__ = ["Failure", "GameOutcome", "failure_verb"]


@dataclass
class Failure:
    """A bot failure: ``kind`` (one of :data:`quinze_protocol.fields.RELAY_FORFEIT_KINDS`, sent as the forfeit's ``reason``), ``reason`` (for people),
    ``table``, ``seat``, ``started`` (False: before the game started), ``restart`` (the bot
    program is no longer usable and must be restarted before another game), ``startup`` (a
    crash before the program answered anything since it was started: it crashes at start),
    ``quiet`` (a match's per-game line leaves it out: a start-up crash like the one before it, in
    a row; not in :meth:`to_data`), ``forfeit`` (set at ``game-over``: True when the game's result
    names this seat as the forfeiter, so this failure ended the game; False when the game was
    decided before it, by another seat's forfeit or by its own end: a game has at most one forfeit,
    the one its result and its log say, docs/match.md "When a bot fails")."""

    kind: str
    reason: str
    table: str | None = None
    seat: int | None = None
    started: bool = True
    restart: bool = False
    startup: bool = False
    quiet: bool = False
    forfeit: bool = True

    def describe(self) -> str:
        when = ("at start-up, before its first answer" if self.startup else
                "mid-game" if self.started else "before the start")
        return f"{self.kind} ({when}): {self.reason}"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "table": self.table, "seat": self.seat, "started": self.started,
                "startup": self.startup, "forfeit": self.forfeit}


def failure_verb(failure: Failure) -> str:
    """What a match's or a tournament's per-game line says the bot did: ``forfeits``, or, for a
    failure after its game was decided (``failure.forfeit`` False), that it failed with no forfeit
    (docs/match.md "When a bot fails")."""
    return "forfeits" if failure.forfeit else "failed after the game was decided (no forfeit)"


@dataclass
class GameOutcome:
    """One game seen from one seat: the ``game_over`` message (None if the table closed before
    the end), the seat's ``failure`` if its bot failed, and the ``game_start`` message."""

    table: str
    seat: int
    game_start: GameStart | None
    game_over: GameOver | None
    failure: Failure | None
    started: datetime | None = None
    ended: datetime | None = None
    think: float = 0.0
    """Seconds the bot took over its answers (request forwarded to answer read), summed."""
    moves: int = 0
    """Answers the bot gave."""
    max_think: float = 0.0
    """The longest of those answers, seconds."""
    near_limit: int = 0
    """Answers that took more than 90% of their request's time (within 10% of the limit)."""
