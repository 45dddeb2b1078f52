"""Match statistics: per-bot totals and the Elo difference of two bots (``quinze match``).

Points are the games' ``Result.points`` (a sole winner 1, ``k`` tied winners ``1/k`` each, a
forfeiting seat 0 and the others sharing the point; PROTOCOL.md "Game flow"). A bot holding
several seats of one game (``--seats`` larger than the number of bots) gets the sum of its
seats' points in that game, so with two bots each game's point is split between them.

Elo (two bots only): with ``p`` the mean points per game of the first bot, the difference is
``-400 log10(1/p - 1)``; the 95% interval maps ``p ± 1.96 s`` (``s`` the standard error of the
per-game points, ``stdev / sqrt(n)``) through the same formula. A score of 0 or 1 has no finite
difference: the value (or bound) is None.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BotTotals", "MatchStats", "elo_difference"]


@dataclass
class BotTotals:
    """One bot's totals: ``games`` played, ``wins`` (games where it took the whole point),
    ``points`` (sum), ``forfeits`` by kind (timeout, crash, garbage, illegal), and
    ``game_score``: the sum of the game's own scores (``Result.scores``) of its seats — chips won
    or lost in Le Quinze classique, match totals in Le Quinze, cards left in Le 14."""

    name: str
    command: str
    games: int = 0
    wins: int = 0
    points: float = 0.0
    game_score: float = 0.0
    forfeits: Counter[str] = field(default_factory=Counter)
    per_game: list[float] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        """Wins per game played (0..1; 0 before any game)."""
        return self.wins / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        """Points per game played (0..1; 0 before any game)."""
        return self.points / self.games if self.games else 0.0

    @property
    def game_score_mean(self) -> float:
        """``game_score`` per game played (0 before any game)."""
        return self.game_score / self.games if self.games else 0.0

    def to_data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "command": self.command,
            "games": self.games,
            "wins": self.wins,
            "points": round(self.points, 6),
            "win_rate": round(self.win_rate, 6),
            "score": round(self.score, 6),
            "game_score": round(self.game_score, 6),
            "game_score_mean": round(self.game_score_mean, 6),
            "forfeits": dict(sorted(self.forfeits.items())),
        }


def _elo(p: float) -> float | None:
    if p <= 0.0 or p >= 1.0:
        return None
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_difference(points: Sequence[float]) -> dict[str, Any]:
    """Elo difference of a bot over its opponent from its points in each game (0..1 each).

    Returns ``{"games", "score", "score_low", "score_high", "difference", "low", "high"}``:
    ``score`` the mean points and its 95% interval (clamped to 0..1); the others in Elo points,
    None where infinite (a score bound of 0 or 1: the sign is that of ``score - 0.5``'s bound)
    or with no game.
    """
    n = len(points)
    if n == 0:
        return {"games": 0, "score": None, "score_low": None, "score_high": None,
                "difference": None, "low": None, "high": None}
    p = sum(points) / n
    var = sum((x - p) ** 2 for x in points) / (n - 1) if n > 1 else 0.0
    se = math.sqrt(var / n)
    low, high = max(0.0, p - 1.96 * se), min(1.0, p + 1.96 * se)
    return {
        "games": n,
        "score": round(p, 6),
        "score_low": round(low, 6),
        "score_high": round(high, 6),
        "difference": _round(_elo(p)),
        "low": _round(_elo(low)),
        "high": _round(_elo(high)),
    }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 1) + 0.0  # + 0.0: no "-0.0"


class MatchStats:
    """Running totals of a match between ``bots`` (``[(name, command)]``)."""

    def __init__(self, bots: Sequence[tuple[str, str]]) -> None:
        self.bots = [BotTotals(name, command) for name, command in bots]
        self.games = 0

    def add_game(self, seat_bots: Sequence[int], points: Sequence[float], forfeits: Sequence[tuple[int, str]],
                 scores: Sequence[float] = ()) -> None:
        """Count one game: ``seat_bots[s]`` is the bot index at seat ``s``, ``points[s]`` that
        seat's points, ``forfeits`` the ``(bot index, kind)`` of each bot failure in it,
        ``scores[s]`` the seat's game score (``Result.scores``; may be empty)."""
        self.games += 1
        got: dict[int, float] = {}
        for seat, bot in enumerate(seat_bots):
            got[bot] = got.get(bot, 0.0) + float(points[seat])
            if seat < len(scores):
                self.bots[bot].game_score += float(scores[seat])
        for bot, pts in got.items():
            t = self.bots[bot]
            t.games += 1
            t.points += pts
            t.per_game.append(pts)
            if pts >= 1.0 - 1e-9:
                t.wins += 1
        for bot, kind in forfeits:
            self.bots[bot].forfeits[kind] += 1

    def elo(self) -> dict[str, Any] | None:
        """The Elo difference of the first bot over the second (exactly two bots), else None."""
        if len(self.bots) != 2:
            return None
        out = elo_difference(self.bots[0].per_game)
        return {"bot": self.bots[0].name, "versus": self.bots[1].name, **out}

    def running_score(self) -> str:
        """``"random_bot 3.5 · greedy_bot 2.5"``: points so far, for the progress bar."""
        return " · ".join(f"{b.name} {b.points:g}" for b in self.bots)

    @property
    def game_score_mean(self) -> float:
        """``game_score`` per game played (0 before any game)."""
        return self.game_score / self.games if self.games else 0.0

    def to_data(self) -> dict[str, Any]:
        return {"games": self.games, "bots": [b.to_data() for b in self.bots], "elo": self.elo()}
