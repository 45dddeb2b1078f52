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
from bisect import bisect_right as _bisect_right
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


# --------------------------------------------------------------------------- lazy shuffles


def _unxorshift(y: int, a: int) -> int:
    """The ``v`` with ``v ^ (v >> a) == y`` (64-bit)."""
    v = y
    sh = a
    while sh < 64:
        v ^= y >> sh
        sh += a
    return v


def _risky_marks() -> tuple[int, ...]:
    """Sorted ``state * GAMMA**-1 mod 2**64`` of the 128 generator states whose SplitMix64
    output is at or above ``2**64 - 128`` (:data:`_RISKY` is the smallest such output that a
    ``Rng.below(n)`` with n <= 108 may reject: every limit is above it). The finalizer is a
    bijection, so these are its inverse images."""
    inv1, inv2, ginv = pow(_C1, -1, 1 << 64), pow(_C2, -1, 1 << 64), pow(_GAMMA, -1, 1 << 64)
    marks = []
    for x in range(_RISKY, 1 << 64):
        z = _unxorshift(x, 31) * inv2 & _M64
        z = _unxorshift(z, 27) * inv1 & _M64
        st = _unxorshift(z, 30)
        marks.append(st * ginv & _M64)
    return tuple(sorted(marks))


_RISKY = (1 << 64) - 128
"""Outputs from here up may be rejected by some ``Rng.below(n)``, 2 <= n <= 108 (every limit
``2**64 - 2**64 % n`` is at least this)."""
assert _RISKY <= _MIN_LIMIT
_MARKS = _risky_marks()
_GINV = pow(_GAMMA, -1, 1 << 64)


def _may_reject(s0: int, k: int) -> bool:
    """True if one of the ``k`` draws made from generator state ``s0`` (states ``s0 + i *
    GAMMA``, i = 1..k) gives an output at or above ``2**64 - 128``: only then may a draw be
    rejected. Draw i has such a state exactly when ``(mark - s0 * GAMMA**-1) mod 2**64 == i`` for
    one of :data:`_MARKS`, so the nearest mark above ``s0 * GAMMA**-1`` tells (one bisection
    instead of computing the k outputs)."""
    t = s0 * _GINV & _M64
    marks = _MARKS
    i = _bisect_right(marks, t)
    gap = marks[i] - t if i < len(marks) else marks[0] + (1 << 64) - t
    return gap <= k


Pending = tuple[int, int, int]
"""A shuffle not yet carried out to the end: (the generator state before it; the number of
draws k; the draws already applied)."""


def shuffle_lazy(rng: Rng, items: list) -> Pending | None:
    """Start ``shuffle(rng, items)``: ``rng`` is left exactly as the whole shuffle leaves it,
    but the swaps are made only when :func:`advance` asks for them. Returns what is still to
    do, or None when the shuffle was carried out at once (fewer than two items, or a draw that
    ``Rng.below`` might reject, :func:`_may_reject`: then the exact draw-by-draw path runs, see
    the module docstring).

    Fisher–Yates goes from the last position down, and a draw fixes the item at its position
    for good: after ``d`` draws the last ``d`` items are final, which is all a deal from the
    end of the list reads. Each draw's output is computed only when the draw is applied (the
    state of draw i is ``state + i * GAMMA``). Identical results, whatever is asked and when."""
    k = len(items) - 1
    s0 = rng.state
    if k < 1 or k >= 108 or _may_reject(s0, k):
        shuffle(rng, items)
        return None
    rng.state = (s0 + k * _GAMMA) & _M64
    return (s0, k, 0)


def advance(items: list, pending: Pending, last: int) -> Pending | None:
    """Apply the draws of a lazy shuffle (:func:`shuffle_lazy`) until position ``last`` of the
    original list is final (every position when ``last`` is 0); items may have been taken from
    the end meanwhile, only final ones. Returns what is still to do, or None once done."""
    s0, k, d = pending
    stop = k - last + 1  # draws needed: draw d + 1 fixes position k - d
    if stop > k:
        stop = k
    m = stop - d
    p = k - d
    if m > 12 and sys.byteorder == "little":  # many draws: their outputs mixed at once (see shuffle)
        ones, steps, lanes = _PACK.get(m) or _pack(m)
        z = (((s0 + d * _GAMMA) & _M64) * ones + steps) & lanes
        z = ((z ^ (z >> 30)) & lanes) * _C1 & lanes
        z = ((z ^ (z >> 27)) & lanes) * _C2 & lanes
        z = (z ^ (z >> 31)) & lanes
        outs = memoryview(z.to_bytes(16 * m, "little")).cast("Q")[::2].tolist()
        for i, j in zip(range(p, p - m, -1), map(_mod, outs, range(p + 1, p + 1 - m, -1))):
            items[i], items[j] = items[j], items[i]
    else:
        s = (s0 + d * _GAMMA) & _M64
        for i in range(p, p - m, -1):
            s = (s + _GAMMA) & _M64
            z = ((s ^ (s >> 30)) * _C1) & _M64
            z = ((z ^ (z >> 27)) * _C2) & _M64
            j = (z ^ (z >> 31)) % (i + 1)
            items[i], items[j] = items[j], items[i]
    return None if stop >= k else (s0, k, stop)
