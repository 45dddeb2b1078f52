"""The built-in random bots draw exactly ``Rng.below(len(legal))`` from their seed
(protocol/games/*_bots.py): Le Quinze's and Le 14's compute their generator's outputs a batch at
a time (quinze_protocol.rng.DrawsAhead, rng.outputs), and a game played by one must stay the game
the plain generator gives (tests/test_engine_digests.py holds those games); its ``rng`` reads as
after the draws made. Le 14's draws for a single legal action too (Le Quinze's does not)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quinze_protocol.game import get_bot
from quinze_protocol.games import quinze_bots
from quinze_protocol.games.classique_actions import Fold, Raise
from quinze_protocol import rng as rng_module
from quinze_protocol.rng import MASK64, Rng


@settings(max_examples=200, deadline=None)
@given(st.integers(0, MASK64), st.lists(st.integers(1, 1 << 64), min_size=1, max_size=300))
def test_le_quinze_random_bot_draws_what_below_draws(seed: int, sizes: list[int]) -> None:
    bot = get_bot("quinze", "random", seed)
    rng = Rng(seed)
    legal_lists = {n: list(range(n)) for n in set(sizes) if n <= 64}
    for i, n in enumerate(sizes):
        want = rng.below(n) if n > 1 else 0  # a single legal action is taken without a draw
        if n in legal_lists and i % 2:
            assert bot.choose({}, legal_lists[n]) == want
        else:
            assert bot.pick(n) == want
    assert bot.rng.state == rng.state
    # after reading rng, the bot goes on from that state
    assert [bot.pick(1000) for _ in range(70)] == [rng.below(1000) for _ in range(70)]
    assert bot.rng.state == rng.state


@settings(max_examples=100, deadline=None)
@given(st.integers(0, MASK64), st.sampled_from(rng_module.BATCHES))
def test_a_batch_is_the_next_outputs(state: int, k: int) -> None:
    rng = Rng.from_state(state)
    assert rng_module.outputs(state, k) == [rng.next64() for _ in range(k)][::-1]


def test_rejected_draws_are_skipped_as_below_skips_them() -> None:
    # n just over 2**63: about half the outputs are rejected
    n = (1 << 63) + 12345
    bot = quinze_bots.RandomBot(7)
    rng = Rng(7)
    assert [bot.pick(n) for _ in range(200)] == [rng.below(n) for _ in range(200)]
    assert bot.rng.state == rng.state


@settings(max_examples=200, deadline=None)
@given(st.integers(0, MASK64), st.lists(st.integers(1, 1 << 64), min_size=1, max_size=300))
def test_le_14_random_bot_draws_what_below_draws(seed: int, sizes: list[int]) -> None:
    bot = get_bot("quatorze", "random", seed)
    rng = Rng(seed)
    legal_lists = {n: list(range(n)) for n in set(sizes) if n <= 64}
    for i, n in enumerate(sizes):
        want = rng.below(n)  # a draw even for a single legal action
        if n in legal_lists and i % 2:
            assert bot.choose({}, legal_lists[n]) == want
        else:
            assert bot.pick(n) == want
    assert bot.rng.state == rng.state
    assert [bot.pick(1) for _ in range(3)] == [0, 0, 0]
    assert [rng.below(1) for _ in range(3)] == [0, 0, 0]
    assert [bot.pick(1000) for _ in range(70)] == [rng.below(1000) for _ in range(70)]
    assert bot.rng.state == rng.state
    n = (1 << 63) + 12345  # about half the outputs rejected
    assert [bot.pick(n) for _ in range(100)] == [rng.below(n) for _ in range(100)]
    assert bot.rng.state == rng.state


@settings(max_examples=100, deadline=None)
@given(st.integers(0, MASK64), st.lists(st.integers(1, 40), min_size=1, max_size=100))
def test_classique_random_bot_draws_what_below_draws(seed: int, sizes: list[int]) -> None:
    bot = get_bot("quinze-classique", "random", seed)
    rng = Rng(seed)
    for n in sizes:
        assert bot.pick(n) == rng.below(n)  # one legal action is drawn for too, as below(1) does
    # a raise listed with its range: the index, then the amount in the range (Bot.complete)
    legal = [Fold(), Raise(min=3, max=20)]
    for _ in range(20):
        want = legal[rng.below(2)]
        if isinstance(want, Raise):
            want = Raise(amount=3 + rng.below(18))
        assert bot.choose({}, legal) == want
    assert bot.rng.state == rng.state


def test_a_bot_asked_for_fewer_than_one_choice_is_refused_and_draws_nothing() -> None:
    """``below(0)`` and ``below(-3)`` of the shared draw (``DrawsAhead.below``, every random bot's
    pick but Le Quinze's single action) raise ValueError as ``Rng.below`` does, the generator
    unmoved: the next draws are still the plain generator's."""
    for name in ("quatorze", "quinze-classique"):
        bot = get_bot(name, "random", 5)
        rng = Rng(5)
        for n in (0, -3):
            with pytest.raises(ValueError, match="n >= 1"):
                bot.pick(n)
        assert [bot.pick(9) for _ in range(20)] == [rng.below(9) for _ in range(20)], name
