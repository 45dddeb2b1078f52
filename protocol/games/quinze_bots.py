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
from quinze_protocol.rng import GAMMA, MASK64, MIX1, MIX2, Rng

__all__ = ["GreedyBot", "RandomBot"]


_LIMITS: dict[int, int] = {}
_M64 = MASK64


class RandomBot(Bot):
    """Uniform choice among the legal actions (its own seeded generator)."""

    needs_view = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = Rng(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        n = len(legal)
        if n == 1:
            return legal[0]
        # Rng.below(n) inlined (same numbers): uniform without modulo bias
        limit = _LIMITS.get(n)
        if limit is None:
            limit = _LIMITS[n] = (1 << 64) - ((1 << 64) % n)
        rng = self.rng
        # Rng.next64 inlined too (same SplitMix64 output and state)
        rng.state = z = (rng.state + GAMMA) & _M64
        z = ((z ^ (z >> 30)) * MIX1) & _M64
        z = ((z ^ (z >> 27)) * MIX2) & _M64
        x = z ^ (z >> 31)
        while x >= limit:
            x = rng.next64()
        return legal[x % n]


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
