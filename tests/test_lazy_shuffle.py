"""The lazy shuffle of a classique talon (quinze_protocol.games.quinze_shuffle.shuffle_lazy and
advance) is exactly Rng.shuffle: the generator is left as after the whole shuffle at once, and
every card dealt from the end, and the whole order whenever it is read, are Rng.shuffle's."""

from __future__ import annotations

import unittest.mock

from hypothesis import given, settings
from hypothesis import strategies as st

import quinze_protocol.games.quinze_shuffle as qs
from quinze_protocol.game import get_bot, get_game
from quinze_protocol.games import classique_coup
from quinze_protocol.rng import GAMMA, MIX1, MIX2, Rng


def _lazy_pops(seed: int, n: int, pops: int, batch: int) -> tuple[list[int], list[int], int]:
    """Shuffle ``n`` items lazily, deal ``pops`` from the end (settling ``batch`` at a time like
    ClassiqueState.pop_card), then settle the rest: (dealt, what is left, state after the shuffle)."""
    items = list(range(n))
    r = Rng(seed)
    pending = qs.shuffle_lazy(r, items)
    state = r.state
    k = n - 1
    dealt = []
    for _ in range(pops):
        if pending is not None and pending[2] <= k + 1 - len(items):
            pending = qs.advance(items, pending, max(1, len(items) - batch))
        dealt.append(items.pop())
    if pending is not None:
        qs.advance(items, pending, 0)
    return dealt, items, state


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), n=st.sampled_from([0, 1, 2, 3, 9, 52, 54]),
       pops=st.integers(min_value=0, max_value=54), batch=st.integers(min_value=1, max_value=60))
def test_lazy_shuffle_deals_what_rng_shuffle_deals(seed: int, n: int, pops: int, batch: int) -> None:
    pops = min(pops, n)
    eager = list(range(n))
    r = Rng(seed)
    r.shuffle(eager)
    dealt, left, state = _lazy_pops(seed, n, pops, batch)
    assert state == r.state
    assert dealt == eager[::-1][:pops]
    assert left == eager[: n - pops]


def test_a_possible_rejection_takes_the_exact_path() -> None:
    """When some output might be rejected by Rng.below, the shuffle is carried out at once by
    the exact path (here forced for every shuffle): the same results."""
    with unittest.mock.patch.object(qs, "_may_reject", lambda s0, k: True):
        for seed in range(20):
            a, b = list(range(52)), list(range(52))
            r1, r2 = Rng(seed), Rng(seed)
            r1.shuffle(a)
            assert qs.shuffle_lazy(r2, b) is None
            assert a == b and r1.state == r2.state


def _state_before(output: int, draw: int) -> int:
    """The generator state from which the ``draw``-th output (1-based) is ``output``."""
    z = output
    for a, mul in ((31, None), (27, MIX2), (30, MIX1)):
        if mul is not None:
            z = z * pow(mul, -1, 2**64) % 2**64
        v, sh = z, a
        while sh < 64:
            v ^= z >> sh
            sh += a
        z = v
    return (z - draw * GAMMA) % 2**64


def test_the_rejection_check_sees_every_draw() -> None:
    """_may_reject flags exactly the shuffles of k draws one of which has an output at or above
    2**64 - 128, whichever draw it is."""
    k = 51
    for draw in (1, 2, 26, 51, 52):
        for value, risky in ((2**64 - 128, True), (2**64 - 1, True), (2**64 - 129, False), (0, False)):
            s0 = _state_before(value, draw)
            r = Rng.from_state(s0)
            outs = [r.next64() for _ in range(draw)]
            assert outs[-1] == value
            assert qs._may_reject(s0, k) is (risky and draw <= k or max(outs[:k]) >= 2**64 - 128)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), k=st.integers(min_value=1, max_value=107))
def test_the_rejection_check_agrees_with_the_outputs(seed: int, k: int) -> None:
    r = Rng.from_state(seed)
    assert qs._may_reject(seed, k) is (max(r.next64() for _ in range(k)) >= 2**64 - 128)


def _play(seed: int, players: int, eager: bool) -> list:
    """Events and every 5th position of a random classique match, with lazy or eager talons."""
    def run() -> list:
        cls = get_game("quinze-classique")
        g = cls.new({"players": players}, seed)
        bots = [get_bot("quinze-classique", "random", seed * 7 + s) for s in range(players)]
        out: list = [(e.kind, e.public, e.private) for e in g.opening_events]
        k = 0
        while not g.is_over:
            a = bots[g.to_act].choose({}, g.legal_actions())
            out.extend((e.kind, e.public, e.private) for e in g.apply(a))
            k += 1
            if k % 5 == 0:
                out.append(g.copy().to_position())
        return out

    if not eager:
        return run()
    with unittest.mock.patch.object(classique_coup, "shuffle_lazy", lambda rng, items: qs.shuffle(rng, items)):
        return run()


def test_classique_matches_are_the_same_with_lazy_talons() -> None:
    for seed in range(12):
        for players in (2, 3, 6):
            assert _play(seed, players, eager=False) == _play(seed, players, eager=True)
