"""Built-in Le Quinze bots: ``random`` and ``greedy`` (both decide from the legal list alone).

- ``random``: uniform over the legal actions, with its own :class:`~quinze_protocol.rng.Rng` (seed).
- ``greedy``: the fifteen that sheds the most hand cards (ties: the most hand points, then the
  first listed); with no fifteen, the placement that lowers its hand score most (quinze_cli/rules/quinze.md
  "Scoring": J Q K jokers 10, aces 1, others face value); ``end`` when nothing better is left
  (a quick placement, option ``quick_place``, counts as better when it sheds points).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from quinze_protocol.game import Action, Bot, register_bot
from quinze_protocol.games.quinze_actions import Fifteen, Place
from quinze_protocol.games.quinze_legal import CARD_POINTS
from quinze_protocol.rng import DrawsAhead

__all__ = ["GreedyBot", "RandomBot"]




class RandomBot(DrawsAhead, Bot):
    """Uniform choice among the legal actions (its own seeded generator).

    ``rng.below(len(legal))`` with the same numbers, rejections included; the outputs are
    computed a batch at a time (:class:`~quinze_protocol.rng.DrawsAhead`) and taken one per
    draw. Reading :attr:`rng` gives the generator as after the draws made so far.
    """

    needs_view = False
    picks = True

    def __init__(self, seed: int = 0) -> None:
        self._draws_from(seed)

    def pick(self, n: int) -> int:
        """The index :meth:`choose` takes among ``n`` legal actions (``Rng.below(n)``'s number;
        no draw for a single action)."""
        return 0 if n == 1 else self.below(n)

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        """One of ``legal``, uniformly: ``legal[Rng.below(len(legal))]`` (:meth:`pick`: the same
        numbers, uniform without modulo bias)."""
        return legal[self.pick(len(legal))]


class GreedyBot(Bot):
    """Shed the most cards by fifteens; otherwise place the costliest card(s)."""

    needs_view = False

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        best = legal[0]
        best_key = None
        pts = CARD_POINTS
        for a in legal:
            if isinstance(a, Fifteen):
                h = a.hand
                key = (2, len(h), sum(pts[c] for c in h))
            elif isinstance(a, Place):
                key = (1, 0, sum(pts[c] for c in a.cards))
            else:
                key = (0, 0, 0)
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best


@register_bot("quinze", "random")
def _random(seed: int) -> Bot:
    return RandomBot(seed)


@register_bot("quinze", "greedy")
def _greedy(seed: int) -> Bot:
    return GreedyBot(seed)
