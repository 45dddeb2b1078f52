"""Statistics of bot games, one module for ``quinze match`` and ``quinze tournament``.

- Per-bot totals (:class:`BotTotals`). Points are the games' ``Result.points`` (a sole winner 1,
  ``k`` tied winners ``1/k`` each, a forfeiting seat 0 and the others sharing the point;
  PROTOCOL.md "Game flow"). A bot holding several seats of one game (``--seats`` larger than
  the number of bots) gets the sum of its seats' points in that game.
- Two bots: the Elo difference with a finite interval, over games or over duplicate deal groups
  (pentanomial variance for pairs): :mod:`quinze_cli.stats.elo`.
- The sequential test of ``--sprt``: :mod:`quinze_cli.stats.sprt`.
- More than two bots, or more than two seats: Plackett–Luce ratings from each game's ranking:
  :mod:`quinze_cli.stats.ratings`.
- The game's own score (``Result.scores``: chips, match totals, cards left) counts only the games
  that ended without a forfeit (``scored_games``): a forfeited game's scores are all 0
  (:meth:`quinze_protocol.game.Result.forfeit`), the best possible Le Quinze total or Le 14 count,
  so counting them would make forfeiting pay (docs/match.md "Results").

Every total is an exactly rounded sum (:func:`math.fsum`) and the ratings follow the games'
schedule order, so the figures do not depend on the order in which concurrent games finished
(a resumed match gives the same numbers as an uninterrupted one).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from quinze_protocol.game import FORFEIT
from quinze_cli.stats.elo import elo_estimate, pentanomial
from quinze_cli.stats.sprt import SprtSpec, SprtState

__all__ = ["BotTotals", "MatchStats", "elo_difference"]


@dataclass
class BotTotals:
    """One bot's totals: ``games`` played, ``wins`` (games where it took the whole point),
    ``points`` (sum), ``forfeits`` by kind (timeout, crash, garbage, illegal), and
    ``game_score``: the sum of the game's own scores (``Result.scores``) of its seats — chips won
    or lost in Le Quinze classique, match totals in Le Quinze, cards left in Le 14 — over the
    ``scored_games``: the games it played that ended without a forfeit (anyone's)."""

    name: str
    command: str
    games: int = 0
    wins: int = 0
    points: float = 0.0
    game_score: float = 0.0
    scored_games: int = 0
    forfeits: Counter[str] = field(default_factory=Counter)
    per_game: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    think: float = 0.0
    """Seconds its programs took over their answers (wall clock: the one figure that differs
    between two runs of the same match)."""
    moves: int = 0
    max_think: float = 0.0
    near_limit: int = 0
    """Answers that took more than 90% of their time (within 10% of the move time limit)."""

    def add(self, pts: float, scores: Sequence[float], *, scored: bool = True) -> None:
        """One game: ``pts`` its points, ``scores`` its seats' game scores; ``scored`` False (a
        forfeited game): the scores are not counted."""
        self.games += 1
        self.points += pts
        self.per_game.append(pts)
        if pts >= 1.0 - 1e-9:
            self.wins += 1
        if not scored:
            return
        self.scored_games += 1
        for s in scores:
            self.scores.append(s)
            self.game_score += s

    @property
    def win_rate(self) -> float | None:
        """Wins per game played (0..1; None before any game: no figure, not 0)."""
        return self.wins / self.games if self.games else None

    @property
    def score(self) -> float | None:
        """Points per game played (0..1; None before any game: no figure, not 0)."""
        return self.points / self.games if self.games else None

    @property
    def game_score_mean(self) -> float | None:
        """``game_score`` per scored game (a game ended without a forfeit; None before any: a
        mean of no game is no figure, and 0.0 would read as the best Le Quinze total)."""
        return self.game_score / self.scored_games if self.scored_games else None

    def to_data(self) -> dict[str, Any]:
        """The totals as JSON data, sums exactly rounded (independent of the games' order). A
        figure over no game is null: ``win_rate`` and ``score`` when ``games`` is 0,
        ``game_score`` and ``game_score_mean`` when ``scored_games`` is 0 (docs/match.md
        "Results"), as ``time.mean`` without a move."""
        points = math.fsum(self.per_game)
        game_score = math.fsum(self.scores)
        n = self.games
        return {
            "name": self.name,
            "command": self.command,
            "games": n,
            "wins": self.wins,
            "points": round(points, 6),
            "win_rate": round(self.wins / n, 6) if n else None,
            "score": round(points / n, 6) if n else None,
            "game_score": round(game_score, 6) if self.scored_games else None,
            "game_score_mean": round(game_score / self.scored_games, 6) if self.scored_games else None,
            "scored_games": self.scored_games,
            "forfeits": dict(sorted(self.forfeits.items())),
            "time": {"seconds": round(self.think, 3), "moves": self.moves,
                     "mean": round(self.think / self.moves, 6) if self.moves else None,
                     "max": round(self.max_think, 6), "near_limit": self.near_limit},
        }


def elo_difference(points: Sequence[float]) -> dict[str, Any]:
    """Elo difference of a bot over its opponent from its points in each game (0..1 each):
    :func:`quinze_cli.stats.elo.elo_estimate` over single games, plus ``games``."""
    return {"games": len(points), **elo_estimate(points)}


class MatchStats:
    """Running totals of a match between ``bots`` (``[(name, command)]``).

    ``group``: the games of one deal group in a duplicate match (the number of seat rotations;
    1 otherwise); with two bots the Elo estimate and the SPRT then count complete groups as their
    units. ``sprt``: run that sequential test (two bots only). ``lower_is_better``: the sense of
    the game's own score, used to break ties in the rankings of the multiplayer ratings.
    ``seats``: the table size (ratings are given for more than two bots or more than two seats).
    """

    def __init__(self, bots: Sequence[tuple[str, str]], *, group: int = 1, sprt: SprtSpec | None = None,
                 seats: int | None = None, lower_is_better: bool | None = None) -> None:
        self.bots = [BotTotals(name, command) for name, command in bots]
        self.games = 0
        self.group = max(1, group)
        self.seats = seats if seats is not None else len(self.bots)
        self.lower_is_better = lower_is_better
        self.sprt = SprtState(sprt, group=self.group) if sprt is not None and len(self.bots) == 2 else None
        self.records: list[tuple[int, tuple[int, ...], tuple[float, ...], tuple[float, ...]]] = []
        """``(index, seat_bots, points, scores)`` of every game, for the ratings."""
        self._open: dict[Any, list[float]] = {}
        self.units: list[float] = []
        """Two bots: the first bot's score in each complete unit (game or deal group)."""

    def add_game(self, seat_bots: Sequence[int], points: Sequence[float], forfeits: Sequence[tuple[int, str]],
                 scores: Sequence[float] = (), *, index: int | None = None, deal: Any = None, reason: str | None = None,
                 think: Sequence[tuple[float, int, float] | tuple[float, int, float, int]] = ()) -> None:
        """Count one game: ``seat_bots[s]`` is the bot index at seat ``s``, ``points[s]`` that
        seat's points, ``forfeits`` the ``(bot index, kind)`` of each bot failure in it,
        ``scores[s]`` the seat's game score (``Result.scores``; may be empty); ``index`` its
        place in the schedule (default: the order of arrival) and ``deal`` its deal group key
        (the seed; games of one group share it; default: the game alone); ``think[s]`` the
        seat's ``(seconds, answers, longest answer[, answers within 10% of the limit])``;
        ``reason`` the result's (``Result.reason``; None: ``"forfeit"`` when ``forfeits`` is not
        empty, as a journal written before the reason was kept says). A forfeited game's scores
        are not counted (the module docstring)."""
        if index is None:
            index = self.games
        self.games += 1
        got: dict[int, float] = {}
        got_scores: dict[int, list[float]] = {}
        for seat, bot in enumerate(seat_bots):
            got[bot] = got.get(bot, 0.0) + float(points[seat])
            if seat < len(scores):
                got_scores.setdefault(bot, []).append(float(scores[seat]))
        forfeited = reason == FORFEIT if reason is not None else bool(forfeits)
        for bot, pts in got.items():
            self.bots[bot].add(pts, got_scores.get(bot, ()), scored=not forfeited)
        for bot, kind in forfeits:
            self.bots[bot].forfeits[kind] += 1
        for seat, entry in enumerate(think):
            seconds, moves, longest = entry[:3]
            t = self.bots[seat_bots[seat]]
            t.think += seconds
            t.moves += moves
            t.max_think = max(t.max_think, longest)
            t.near_limit += int(entry[3]) if len(entry) > 3 else 0
        self.records.append((index, tuple(seat_bots), tuple(float(p) for p in points), tuple(float(s) for s in scores)))
        if len(self.bots) == 2:
            first = got.get(0, 0.0)
            if self.group == 1:
                self._unit(first)
            else:
                key = deal if deal is not None else ("game", index)
                group = self._open.setdefault(key, [])
                group.append(first)
                if len(group) == self.group:
                    del self._open[key]
                    self._unit(math.fsum(group) / self.group)

    def _unit(self, score: float) -> None:
        self.units.append(score)
        if self.sprt is not None:
            self.sprt.add(score)

    @property
    def unit_name(self) -> str:
        return "game" if self.group == 1 else "pair" if self.group == 2 else "deal group"

    def elo(self) -> dict[str, Any] | None:
        """The Elo difference of the first bot over the second (exactly two bots), else None:
        ``{"bot", "versus", "games", "unit", "units", "score", "difference", "low", "high",
        "stderr", "pentanomial"}`` (:func:`quinze_cli.stats.elo.elo_estimate` over the complete
        units; ``pentanomial`` the pair counts ``[LL, LD, DD+WL, WD, WW]`` for duplicate pairs)."""
        if len(self.bots) != 2:
            return None
        out = elo_estimate(self.units, unit=self.unit_name)
        penta = pentanomial(self.units) if self.group == 2 else None
        return {"bot": self.bots[0].name, "versus": self.bots[1].name, "games": self.games, **out, "pentanomial": penta}

    @property
    def wants_ratings(self) -> bool:
        """Multiplayer ratings are given for more than two bots or more than two seats."""
        return len(self.bots) > 2 or self.seats > 2

    def ratings(self) -> list[dict[str, Any]] | None:
        """The Plackett–Luce ratings (:mod:`quinze_cli.stats.ratings`) from every game in
        schedule order, or None when :attr:`wants_ratings` is false or no game was played."""
        if not self.wants_ratings or not self.records:
            return None
        from quinze_cli.stats.ratings import Ratings

        r = Ratings([b.name for b in self.bots])
        for _, seat_bots, points, scores in sorted(self.records, key=lambda rec: rec[0]):
            r.add(seat_bots, points, scores, self.lower_is_better)
        return r.to_data()

    def running_score(self) -> str:
        """``"random_bot 3.5 · greedy_bot 2.5"``: points so far, for the progress bar (with the
        LLR when a sequential test runs)."""
        text = " · ".join(f"{b.name} {b.points:g}" for b in self.bots)
        if self.sprt is not None:
            text += f" · LLR {self.sprt.llr:.2f} ({self.sprt.spec.lower:.2f}, {self.sprt.spec.upper:.2f})"
        return text

    def to_data(self) -> dict[str, Any]:
        return {"games": self.games, "bots": [b.to_data() for b in self.bots], "elo": self.elo(),
                "ratings": self.ratings(), "sprt": self.sprt.to_data() if self.sprt is not None else None}
