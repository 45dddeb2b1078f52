"""Multiplayer ratings from each game's ranking: openskill's Plackett–Luce model.

Elo compares two bots; a table of three to eight seats, or a tournament of many bots, needs a
rating that learns from a whole ranking at once. Each game ranks the bots at its table by the
points they took (a bot holding several seats adds them up), ties broken by the game's own score
in its better direction (lower match total in Le Quinze, more chips in Le Quinze classique, fewer
cards left in Le 14); bots equal on both share a rank. Those rankings update openskill's
Plackett–Luce model (Weng and Lin's Bayesian approximation), where each bot has a skill ``mu``
and an uncertainty ``sigma`` (start 25 and 25/3). The skill of a bot does not drift (``tau`` 0),
so the order of the games matters little; it is always the games' own order (their index in the
schedule), whatever order they finished in, so a resumed event rates exactly as an
uninterrupted one.

Shown per bot: ``mu ± sigma``, the *ordinal* ``mu - 3 sigma`` (a conservative estimate: the
standings sort by it), and the Elo-scaled difference to a reference bot (the first one):
Plackett–Luce gives a bot ``i`` the probability ``1 / (1 + exp(-(mu_i - mu_j) / c))`` of ranking
before ``j`` with ``c = beta·sqrt(2)`` for known skills, which is Elo's logistic curve with
``(mu_i - mu_j)·400 / (ln 10 · c)`` Elo points; its 95% interval uses ``sqrt(sigma_i² + sigma_j²)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from quinze_cli.stats.elo import Z95

__all__ = ["Ratings", "rank_bots"]


def rank_bots(seat_bots: Sequence[int], points: Sequence[float], scores: Sequence[float],
              lower_is_better: bool | None) -> tuple[list[int], list[int]]:
    """The bots of one game and their ranks (1 best; equal bots share a rank): by points summed
    over each bot's seats, then by the mean game score (``scores``; ignored when empty or when
    ``lower_is_better`` is None). Returns ``(bots in order of first seat, ranks)``."""
    pts: dict[int, float] = {}
    sc: dict[int, list[float]] = {}
    for seat, bot in enumerate(seat_bots):
        pts[bot] = pts.get(bot, 0.0) + float(points[seat]) if seat < len(points) else pts.get(bot, 0.0)
        if seat < len(scores):
            sc.setdefault(bot, []).append(float(scores[seat]))
    bots = list(pts)

    def key(bot: int) -> tuple[float, float]:
        s = sc.get(bot)
        tie = 0.0 if lower_is_better is None or not s else (sum(s) / len(s)) * (1 if lower_is_better else -1)
        return (-round(pts[bot], 9), round(tie, 9))

    order = sorted(set(key(b) for b in bots))
    return bots, [order.index(key(b)) + 1 for b in bots]


@dataclass
class _Entry:
    mu: float
    sigma: float


class Ratings:
    """Plackett–Luce ratings of ``names`` (openskill, imported when first made)."""

    def __init__(self, names: Sequence[str]) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce(tau=0.0)
        self.names = list(names)
        self._ratings = [self.model.rating(name=n) for n in self.names]
        self.games = 0

    def add(self, seat_bots: Sequence[int], points: Sequence[float], scores: Sequence[float] = (),
            lower_is_better: bool | None = None) -> None:
        """Rate one game (see :func:`rank_bots`); a game with a single bot at its table (all
        seats one bot) teaches nothing and is skipped."""
        bots, ranks = rank_bots(seat_bots, points, scores, lower_is_better)
        if len(bots) < 2:
            return
        float_ranks: list[float] = list(ranks)
        new = self.model.rate([[self._ratings[b]] for b in bots], ranks=float_ranks)
        for b, team in zip(bots, new):
            self._ratings[b] = team[0]
        self.games += 1

    def add_all(self, games: Iterable[tuple[Sequence[int], Sequence[float], Sequence[float]]],
                lower_is_better: bool | None = None) -> "Ratings":
        for seat_bots, points, scores in games:
            self.add(seat_bots, points, scores, lower_is_better)
        return self

    def entry(self, bot: int) -> _Entry:
        r = self._ratings[bot]
        return _Entry(float(r.mu), float(r.sigma))

    @property
    def elo_per_mu(self) -> float:
        """Elo points per unit of ``mu``: ``400 / (ln 10 · beta·sqrt(2))``."""
        return 400.0 / (math.log(10.0) * float(self.model.beta) * math.sqrt(2.0))

    def to_data(self, reference: int = 0) -> list[dict[str, Any]]:
        """Per bot, in the given order: ``name``, ``mu``, ``sigma``, ``ordinal`` (mu - 3 sigma),
        ``elo`` (difference to ``reference``, Elo points) and ``elo_low``/``elo_high`` (95%)."""
        ref = self.entry(reference)
        out = []
        for i, name in enumerate(self.names):
            e = self.entry(i)
            d = (e.mu - ref.mu) * self.elo_per_mu
            half = 0.0 if i == reference else Z95 * math.sqrt(e.sigma ** 2 + ref.sigma ** 2) * self.elo_per_mu
            out.append({"name": name, "mu": round(e.mu, 3), "sigma": round(e.sigma, 3),
                        "ordinal": round(e.mu - 3.0 * e.sigma, 3), "elo": round(d, 1) + 0.0,
                        "elo_low": round(d - half, 1) + 0.0, "elo_high": round(d + half, 1) + 0.0,
                        "reference": self.names[reference]})
        return out
