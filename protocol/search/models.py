"""What the search knows of each game: horizon, rewards, playout policy (docs/bots.md).

Rewards are per seat in 0..1. A finished game gives its result's points (the rules texts in quinze_cli/rules/: the share
of the win). Otherwise each game judges the state where the playout stopped:

- Le Quinze (``quinze``): the playout stops at the end of the deal; the reward grows with how
  much better the seat's deal score is than the others' mean (lower is better, quinze_cli/rules/quinze.md
  "Scoring"): ``0.5 + 0.5 * d / (|d| + 20)``.
- Le 14 (``quatorze``): the playout stops after ``max_steps`` decisions (the game can last
  hundreds); the reward compares the seat's cards left with the best other seat's (quinze_cli/rules/quatorze.md
  "Score"): ``0.5 + 0.5 * d / (|d| + 4)``.
- classique (``quinze-classique``): the playout stops at the end of the coup; the reward is the
  chips won or lost since the root, ``0.5 + 0.5 * d / (|d| + 5 * ante)``. A raise is searched
  with three amounts: the minimum, the middle and the maximum of its range.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol.game import Action
from protocol.rng import Rng
from protocol.search.ismcts import GameModel, _uniform

__all__ = ["MODELS", "model_for"]


def _squash(d: float, scale: float) -> float:
    return 0.5 + 0.5 * d / (abs(d) + scale)


class QuinzeModel(GameModel):
    """Le Quinze: one deal deep; greedy-ish playouts (see :meth:`rollout`)."""

    max_steps = 600

    def start(self, g: Any) -> Any:
        return g.deal_no

    def done(self, g: Any, start: Any, steps: int) -> bool:
        return g.phase == "over" or g.deal_no != start or steps >= self.max_steps

    def rewards(self, g: Any, start: Any) -> Sequence[float]:
        res = g.result()
        if res is not None:
            return res.points
        n = g.n
        if g.deal_no != start:
            scores = g.history[-1]["scores"]
        else:
            from protocol.games.quinze_legal import CARD_POINTS

            scores = [sum(CARD_POINTS[c] for c in h) for h in g.hands]
        total = sum(scores)
        return [_squash((total - scores[s]) / (n - 1) - scores[s], 20.0) for s in range(n)]

    def rollout(self, g: Any, rng: Rng) -> Action:
        """Half the time the fifteen that sheds the most cards (else uniform): a playout that
        plays like a person finishes deals as people do, which random play does not."""
        legal = g.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if rng.next64() & 1:
            best, key = None, -1
            for a in legal:
                if a[0] == "fifteen":
                    k = len(a[1]) + len(a[3])
                    if k > key:
                        best, key = a, k
            if best is not None:
                return best
        return _uniform(legal, rng)


class QuatorzeModel(GameModel):
    """Le 14: a bounded playout, judged by cards left."""

    max_steps = 60

    def rewards(self, g: Any, start: Any) -> Sequence[float]:
        res = g.result()
        if res is not None:
            return res.points
        left = g.cards_left()
        n = len(left)
        out = []
        for s in range(n):
            best_other = min(left[t] for t in range(n) if t != s)
            out.append(_squash(best_other - left[s], 4.0))
        return out


class ClassiqueModel(GameModel):
    """Le Quinze classique: one coup deep, chips won or lost."""

    def actions(self, g: Any) -> list[Action]:
        from protocol.games.classique_actions import Raise

        out: list[Action] = []
        for a in g.legal_actions():
            if isinstance(a, Raise) and a.amount is None:
                for amount in sorted({a.min, (a.min + a.max) // 2, a.max}):
                    out.append(Raise(amount=amount))
            else:
                out.append(a)
        return out

    def start(self, g: Any) -> Any:
        return (g.coup, list(g.chips), list(g.stakes))

    def done(self, g: Any, start: Any, steps: int) -> bool:
        return g.phase == "over" or g.coup != start[0] or steps >= self.max_steps

    def rewards(self, g: Any, start: Any) -> Sequence[float]:
        _, chips, stakes = start
        scale = 5.0 * g.options["ante"]
        # chips now (the next coup's ante given back) against chips at the root plus its stakes
        ante_now = g.stakes if g.phase != "over" else [0] * g.players
        return [_squash(g.chips[s] + ante_now[s] - chips[s] - stakes[s], scale) for s in range(g.players)]


MODELS: dict[str, GameModel] = {
    "quinze": QuinzeModel(),
    "quatorze": QuatorzeModel(),
    "quinze-classique": ClassiqueModel(),
}


def model_for(game_id: str) -> GameModel:
    """The :class:`GameModel` of ``game_id`` (KeyError when none)."""
    return MODELS[game_id]
