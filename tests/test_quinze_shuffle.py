"""quinze_protocol.games.quinze_shuffle.shuffle is exactly Rng.shuffle (same order, same final state)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import quinze_protocol.games.quinze_shuffle as qs
from quinze_protocol.rng import Rng


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), n=st.sampled_from([0, 1, 2, 3, 9, 54, 108, 120]))
def test_same_as_rng_shuffle(seed: int, n: int) -> None:
    a, b = list(range(n)), list(range(n))
    r1, r2 = Rng(seed), Rng(seed)
    r1.shuffle(a)
    qs.shuffle(r2, b)
    assert a == b
    assert r1.state == r2.state


def test_rejected_draw_continues_draw_by_draw(monkeypatch) -> None:
    """With a limit that rejects about half the outputs (for n = 7 and 30), the bulk shuffle
    must give what a draw-by-draw shuffle with the same limits gives."""
    limits = tuple((1 << 63) if i in (7, 30) else v for i, v in enumerate(qs._LIMIT))
    monkeypatch.setattr(qs, "_LIMIT", limits)
    monkeypatch.setattr(qs, "_MIN_LIMIT", min(limits[2:]))
    fell_back = 0
    for seed in range(200):
        for n in (8, 54, 108):
            a, b = list(range(n)), list(range(n))
            r1, r2 = Rng(seed), Rng(seed)
            qs._shuffle_slow(r1, a, n - 1)
            qs.shuffle(r2, b)
            assert a == b and r1.state == r2.state
            fell_back += r1.state != (seed + (n - 1) * qs._GAMMA) & qs._M64
    assert fell_back > 100


def test_min_limit_is_below_every_limit() -> None:
    """The bulk path skips the per-draw check only below the smallest limit of any draw."""
    assert qs._MIN_LIMIT == min((1 << 64) - ((1 << 64) % n) for n in range(2, 109))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_an_output_at_the_min_limit_takes_the_checked_path(seed: int) -> None:
    """Outputs at or above the smallest limit go through the per-draw check (here made to
    reject nothing that Rng.below would accept): the result is still Rng.shuffle's."""
    import unittest.mock

    for n in (52, 54, 108):
        a, b = list(range(n)), list(range(n))
        r1, r2 = Rng(seed), Rng(seed)
        r1.shuffle(a)
        with unittest.mock.patch.object(qs, "_MIN_LIMIT", 0):
            qs.shuffle(r2, b)
        assert a == b and r1.state == r2.state
