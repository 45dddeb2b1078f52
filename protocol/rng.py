"""The seeded generator owned by every game state (the rules texts in quinze_cli/rules/, "Common to the three games").

A small, fully specified generator (SplitMix64) so that the same seed gives the same
shuffles byte for byte on any machine and any Python version — ``random.Random`` makes
no such promise across versions. Its whole state is one 64-bit integer, so it is saved
in positions and logs as a plain number.
"""

from __future__ import annotations

from typing import MutableSequence, TypeVar

__all__ = ["GAMMA", "MASK64", "MIX1", "MIX2", "SEED_BITS", "SEED_MAX", "Rng"]

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
            if n <= 0:
                raise ValueError("below(n) needs n >= 1")
            limit = (1 << 64) - ((1 << 64) % n)
            if n <= 4096:
                _LIMITS[n] = limit
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
