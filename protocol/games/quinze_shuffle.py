"""Deal shuffles of the three games: exactly :meth:`quinze_protocol.rng.Rng.shuffle`, computed faster.

``shuffle(rng, items)`` gives the same permutation and leaves ``rng`` in the same state as
``rng.shuffle(items)`` (Fisher–Yates from the last position down, each index drawn with
``Rng.below``, SplitMix64). The states of consecutive draws form an arithmetic sequence
(``state + k * GAMMA`` mod 2**64), so the 64-bit outputs of all draws are mixed at once in
one large int with a 128-bit lane per draw (each product of two 64-bit numbers fits in its
lane), then unpacked with ``memoryview.cast``. ``Rng.below`` rejects an output at or above
``2**64 - 2**64 % n`` (probability below ``n / 2**64``): when no output reaches the smallest
such limit (:data:`_MIN_LIMIT`), which is nearly always, no draw is rejected and every index
``j = output % n`` is computed at once; else the outputs are checked one by one, and from the
first rejected one the shuffle goes on draw by draw, exactly as ``Rng.below`` would.

The rules texts in quinze_cli/rules/, "Common to the three games": every shuffle comes from the game's seeded generator.
"""

from __future__ import annotations

import sys
from operator import mod as _mod

from quinze_protocol.rng import GAMMA as _GAMMA
from quinze_protocol.rng import MASK64 as _M64
from quinze_protocol.rng import MIX1 as _C1
from quinze_protocol.rng import MIX2 as _C2
from quinze_protocol.rng import Rng

__all__ = ["shuffle"]

_LIMIT = tuple((1 << 64) - ((1 << 64) % n) if n else 0 for n in range(109))
"""``Rng.below(n)`` accepts outputs below ``_LIMIT[n]`` (n <= 108: two decks)."""
_MIN_LIMIT = min(_LIMIT[2:])
"""No ``Rng.below(n)`` with 2 <= n <= 108 rejects an output below this."""
_PACK: dict[int, tuple[int, int, int]] = {}
"""By number of draws k: (1 in every lane, (i + 1) * GAMMA in lane i, 2**64 - 1 in every lane)."""


def _limit(n: int) -> int:
    return _LIMIT[n] if n < 109 else (1 << 64) - ((1 << 64) % n)


def _pack(k: int) -> tuple[int, int, int]:
    ones = sum(1 << (128 * i) for i in range(k))
    steps = sum((i + 1) << (128 * i) for i in range(k))
    got = _PACK[k] = (ones, steps * _GAMMA, ones * _M64)
    return got


def _shuffle_slow(rng: Rng, items: list, top: int) -> None:
    """Fisher–Yates positions ``top`` .. 1, one draw at a time (``Rng.below`` inlined)."""
    s = rng.state
    for i in range(top, 0, -1):
        n = i + 1
        limit = _limit(n)
        while True:
            s = (s + _GAMMA) & _M64
            z = ((s ^ (s >> 30)) * _C1) & _M64
            z = ((z ^ (z >> 27)) * _C2) & _M64
            z ^= z >> 31
            if z < limit:
                break
        j = z % n
        items[i], items[j] = items[j], items[i]
    rng.state = s


def shuffle(rng: Rng, items: list) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` (same order, same final
    ``rng.state``); see the module docstring."""
    k = len(items) - 1  # draws
    if k < 1:
        return
    if sys.byteorder != "little":  # memoryview.cast("Q") reads native words: keep results identical
        _shuffle_slow(rng, items, k)
        return
    ones, steps, lanes = _PACK.get(k) or _pack(k)
    s0 = rng.state
    z = (s0 * ones + steps) & lanes  # lane i: the state of draw i
    z = ((z ^ (z >> 30)) & lanes) * _C1 & lanes
    z = ((z ^ (z >> 27)) & lanes) * _C2 & lanes
    z = (z ^ (z >> 31)) & lanes
    outs = memoryview(z.to_bytes(16 * k, "little")).cast("Q")[::2].tolist()
    if k < 108 and max(outs) < _MIN_LIMIT:  # no draw rejected: all indices at once
        for i, j in zip(range(k, 0, -1), map(_mod, outs, range(k + 1, 1, -1))):
            items[i], items[j] = items[j], items[i]
        rng.state = (s0 + k * _GAMMA) & _M64
        return
    limits = _LIMIT
    for d, x in enumerate(outs):
        i = k - d
        n = i + 1
        if x >= (limits[n] if n < 109 else _limit(n)):  # Rng.below would draw again
            rng.state = (s0 + d * _GAMMA) & _M64
            _shuffle_slow(rng, items, i)
            return
        j = x % n
        items[i], items[j] = items[j], items[i]
    rng.state = (s0 + k * _GAMMA) & _M64
