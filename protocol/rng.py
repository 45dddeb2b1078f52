"""The seeded generator owned by every game state (the rules texts in quinze_cli/rules/, "Common to the three games").

A small, fully specified generator (SplitMix64) so that the same seed gives the same
shuffles byte for byte on any machine and any Python version — ``random.Random`` makes
no such promise across versions. Its whole state is one 64-bit integer, so it is saved
in positions and logs as a plain number.
"""

from __future__ import annotations

import sys
from array import array
from typing import MutableSequence, TypeVar

__all__ = ["BATCHES", "GAMMA", "MASK64", "MIX1", "MIX2", "SEED_BITS", "SEED_MAX", "DrawsAhead", "Rng", "outputs"]

MASK64 = (1 << 64) - 1
"""The generator works modulo 2**64: its state and outputs are in 0 .. MASK64."""
GAMMA = 0x9E3779B97F4A7C15
"""SplitMix64's step, added to the state before each output."""
MIX1 = 0xBF58476D1CE4E5B9
"""SplitMix64's first multiplier (after ``z ^= z >> 30``)."""
MIX2 = 0x94D049BB133111EB
"""SplitMix64's second multiplier (after ``z ^= z >> 27``; the output is ``z ^ (z >> 31)``)."""
SEED_BITS = 63
SEED_MAX = (1 << SEED_BITS) - 1
"""The largest game seed: game seeds are 0 .. 2**63-1 (``create-table.seed``, ``--seed``, and the
seeds a server draws for a table given none). Any integer seeds an :class:`Rng`; this is the
range the protocol carries."""
_MASK = MASK64
_LIMITS: dict[int, int] = {}
"""``below``'s rejection limit by ``n`` (small ``n`` only)."""
_T = TypeVar("_T")


def _limit(n: int) -> int:
    """``below(n)``'s rejection limit: the largest multiple of ``n`` up to 2**64 (kept in
    :data:`_LIMITS` for ``n <= 4096``). Raises ValueError if ``n < 1``."""
    if n <= 0:
        raise ValueError("below(n) needs n >= 1")
    limit = (1 << 64) - ((1 << 64) % n)
    if n <= 4096:
        _LIMITS[n] = limit
    return limit


class Rng:
    """SplitMix64. ``Rng(seed)`` for any integer seed (reduced modulo 2**64).

    ``state`` is the whole state (an int in 0 .. 2**64-1): ``Rng.from_state(r.state)``
    continues exactly where ``r`` is.
    """

    __slots__ = ("state",)

    def __init__(self, seed: int = 0) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"a seed is an integer, not {type(seed).__name__}")
        self.state = seed & _MASK

    @classmethod
    def from_state(cls, state: int) -> "Rng":
        """A generator continuing from a saved ``state``."""
        r = cls.__new__(cls)
        r.state = state & _MASK
        return r

    def next64(self) -> int:
        """The next 64-bit output."""
        self.state = s = (self.state + GAMMA) & _MASK
        z = ((s ^ (s >> 30)) * MIX1) & _MASK
        z = ((z ^ (z >> 27)) * MIX2) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1`` (``n >= 1``), without modulo bias."""
        limit = _LIMITS.get(n)
        if limit is None:
            limit = _limit(n)
        while True:
            # next64, inlined (the same output and state)
            self.state = s = (self.state + GAMMA) & _MASK
            z = ((s ^ (s >> 30)) * MIX1) & _MASK
            z = ((z ^ (z >> 27)) * MIX2) & _MASK
            x = z ^ (z >> 31)
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[_T]) -> None:
        """Shuffle ``items`` in place (Fisher–Yates, from the last position down)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: "list[_T] | tuple[_T, ...]") -> _T:
        """One element of a non-empty sequence, uniformly."""
        return items[self.below(len(items))]


BATCHES = (8, 16, 32, 64)
"""Outputs :class:`DrawsAhead` computes at once: 8 at its first draw, then twice as many each time,
up to 64 (a bot made for a few decisions does not compute many it will not use)."""
_LANES = {k: sum(_MASK << 128 * i for i in range(k)) for k in BATCHES}
"""For ``k`` outputs: one 64-bit lane of ones every 128 bits (lane ``i``: bits 128i .. 128i+63)."""
_ONES = {k: sum(1 << 128 * i for i in range(k)) for k in BATCHES}
_STEPS = {k: sum((i + 1) * GAMMA << 128 * i for i in range(k)) for k in BATCHES}
_BIG_ENDIAN = sys.byteorder == "big"


def outputs(state: int, k: int) -> list[int]:
    """The next ``k`` outputs (``k`` in :data:`BATCHES`) of an :class:`Rng` at ``state`` (the
    same numbers as ``k`` calls of ``next64``), next one last: SplitMix64 on ``k`` lanes of one
    integer at once, lane ``i`` holding the state after ``i + 1`` steps. Each lane is 64 bits
    below 64 spare ones, so a product of a lane and a 64-bit multiplier stays in its lane, and the
    bits a right shift brings in from the next lane are cleared by ``lanes`` before they are
    multiplied: each step is one operation on the whole integer, in C, instead of ``k`` in Python."""
    lanes = _LANES[k]
    z = (state * _ONES[k] + _STEPS[k]) & lanes
    z = ((z ^ (z >> 30)) & lanes) * MIX1 & lanes
    z = ((z ^ (z >> 27)) & lanes) * MIX2 & lanes
    z ^= (z >> 31) & lanes
    words = array("Q", z.to_bytes(16 * k, "little"))
    if _BIG_ENDIAN:
        words.byteswap()
    return words[-2::-2].tolist()  # lanes k-1 .. 0 (the even words: the odd ones, high halves, are zero)


class DrawsAhead:
    """An :class:`Rng` whose outputs are computed a batch at a time (:func:`outputs`) and taken one
    per draw, for a random bot (mixed into its class, which calls :meth:`_draws_from` once): the
    same numbers as the plain generator. Reading :attr:`rng` gives the generator as after the
    draws made so far (the outputs computed ahead given back). A bot's ``pick(n)`` takes the next
    output as ``ahead.pop() if ahead else self._next()`` (``ahead``: ``self._ahead``)."""

    _rng: Rng
    _ahead: list[int]
    _batch: int

    def _draws_from(self, seed: int) -> None:
        self._rng = Rng(seed)
        self._ahead = []  # outputs computed ahead, the next one last
        self._batch = 0  # index in BATCHES of the next batch's size

    @property
    def rng(self) -> Rng:
        """The generator, in the state after the draws made so far."""
        if self._ahead:
            self._rng.state = (self._rng.state - len(self._ahead) * GAMMA) & _MASK
            self._ahead = []
        return self._rng

    def below(self, n: int) -> int:
        """:meth:`Rng.below`'s number for ``n`` (``n >= 1``), from the outputs drawn ahead: the same
        numbers as the plain generator's, rejections included (a draw for ``n == 1`` too).
        Raises ValueError if ``n < 1``."""
        limit = _LIMITS.get(n)
        if limit is None:
            limit = _limit(n)
        ahead = self._ahead
        x = ahead.pop() if ahead else self._next()
        while x >= limit:
            x = self._next()
        return x % n

    def _next(self) -> int:
        """The next output, computing a batch when none is left (the generator then stands after
        the batch; :attr:`rng` gives back what was not drawn)."""
        ahead = self._ahead
        if ahead:
            return ahead.pop()
        b = self._batch
        k = BATCHES[b]
        if b < len(BATCHES) - 1:
            self._batch = b + 1
        rng = self._rng
        ahead = self._ahead = outputs(rng.state, k)
        rng.state = (rng.state + k * GAMMA) & _MASK
        return ahead.pop()
