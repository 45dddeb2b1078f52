"""Built-in Le Quinze bots: ``random`` and ``greedy`` (both decide from the legal list alone).

- ``random``: uniform over the legal actions, with its own :class:`~quinze_protocol.rng.Rng` (seed).
- ``greedy``: the fifteen that sheds the most hand cards (ties: the most hand points, then the
  first listed); with no fifteen, the placement that lowers its hand score most (quinze_cli/rules/quinze.md
  "Scoring": J Q K jokers 10, aces 1, others face value); ``end`` when nothing better is left
  (a quick placement, option ``quick_place``, counts as better when it sheds points).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

from quinze_protocol.game import Action, Bot, register_bot
from quinze_protocol.games.quinze_actions import Fifteen, Place
from quinze_protocol.games.quinze_legal import CARD_POINTS
from quinze_protocol.rng import GAMMA, MASK64, MIX1, MIX2, Rng

__all__ = ["GreedyBot", "RandomBot"]


_LIMITS: dict[int, int] = {}
_M64 = MASK64
_BATCHES = (8, 16, 32, 64)
"""Outputs a random bot computes at once: 8 at its first draw, then twice as many each time, up
to 64 (a bot made for a few decisions does not compute many it will not use)."""
_LANES = {k: sum(_M64 << 128 * i for i in range(k)) for k in _BATCHES}
"""For ``k`` outputs: one 64-bit lane of ones every 128 bits (lane ``i``: bits 128i .. 128i+63)."""
_ONES = {k: sum(1 << 128 * i for i in range(k)) for k in _BATCHES}
_STEPS = {k: sum((i + 1) * GAMMA << 128 * i for i in range(k)) for k in _BATCHES}
_BIG_ENDIAN = sys.byteorder == "big"


def _outputs(state: int, k: int) -> list[int]:
    """The next ``k`` outputs of an :class:`Rng` at ``state`` (the same numbers as ``k`` calls of
    ``next64``), next one last: SplitMix64 on ``k`` lanes of one integer at once, lane ``i``
    holding the state after ``i + 1`` steps. Each lane is 64 bits below 64 spare ones, so a
    product of a lane and a 64-bit multiplier stays in its lane, and the bits a right shift brings
    in from the next lane are cleared by ``lanes`` before they are multiplied: each step is one
    operation on the whole integer, in C, instead of ``k`` in Python."""
    lanes = _LANES[k]
    z = (state * _ONES[k] + _STEPS[k]) & lanes
    z = ((z ^ (z >> 30)) & lanes) * MIX1 & lanes
    z = ((z ^ (z >> 27)) & lanes) * MIX2 & lanes
    z ^= (z >> 31) & lanes
    words = array("Q", z.to_bytes(16 * k, "little"))
    if _BIG_ENDIAN:
        words.byteswap()
    return words[-2::-2].tolist()  # lanes k-1 .. 0 (the even words: the odd ones, high halves, are zero)


class RandomBot(Bot):
    """Uniform choice among the legal actions (its own seeded generator).

    ``rng.below(len(legal))`` with the same numbers, rejections included; the outputs are
    computed a batch at a time (:func:`_outputs`) and taken one per draw. Reading :attr:`rng`
    gives the generator as after the draws made so far (the outputs computed ahead given back).
    """

    needs_view = False
    picks = True

    def __init__(self, seed: int = 0) -> None:
        self._rng = Rng(seed)
        self._ahead: list[int] = []  # outputs computed ahead, the next one last
        self._batch = 0  # index in _BATCHES of the next batch's size

    @property
    def rng(self) -> Rng:
        """The generator, in the state after the draws made so far."""
        if self._ahead:
            self._rng.state = (self._rng.state - len(self._ahead) * GAMMA) & _M64
            self._ahead = []
        return self._rng

    def _next(self) -> int:
        """The next output, computing a batch when none is left (the generator then stands after
        the batch; :attr:`rng` gives back what was not drawn)."""
        ahead = self._ahead
        if ahead:
            return ahead.pop()
        b = self._batch
        k = _BATCHES[b]
        if b < len(_BATCHES) - 1:
            self._batch = b + 1
        rng = self._rng
        ahead = self._ahead = _outputs(rng.state, k)
        rng.state = (rng.state + k * GAMMA) & _M64
        return ahead.pop()

    def pick(self, n: int) -> int:
        """The index :meth:`choose` takes among ``n`` legal actions (``Rng.below(n)``'s number)."""
        if n == 1:
            return 0
        limit = _LIMITS.get(n)
        if limit is None:
            limit = _LIMITS[n] = (1 << 64) - ((1 << 64) % n)
        ahead = self._ahead
        x = ahead.pop() if ahead else self._next()
        while x >= limit:
            x = self._next()
        return x % n

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
