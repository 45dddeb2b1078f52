"""``Game.copy()``: an independent copy, for search bots (protocol/game.py ``Game.copy``)."""

from __future__ import annotations

import pytest

from quinze_protocol.game import get_game
from quinze_protocol.rng import Rng

GAMES = ["quinze", "quatorze", "quinze-classique"]


def _random_play(g, rng: Rng, steps: int) -> list:
    events = []
    for _ in range(steps):
        if g.is_over:
            break
        legal = g.legal_actions()
        a = legal[rng.below(len(legal))]
        if a.to_data().get("type") == "raise" and getattr(a, "amount", 0) is None:
            a = a.with_amount(a.min)
        events.extend(e.full() for e in g.apply(a))
    return events


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_copy_is_independent_and_equal(game_id: str, seed: int) -> None:
    cls = get_game(game_id)
    g = cls.new({"players": 3}, seed)
    rng = Rng(seed)
    while not g.is_over:
        before = g.to_position()
        c = g.copy()
        assert c.to_position() == before
        assert c.legal_data() == g.legal_data()
        assert c.view(g.to_act) == g.view(g.to_act)
        # the copy goes its own way for a while: the source does not move
        _random_play(c, Rng(seed + 100), 25)
        assert g.to_position() == before
        # same actions on the source and a fresh copy give the same events and states
        c2 = g.copy()
        e1 = _random_play(g, Rng(seed + 7), 5)
        e2 = _random_play(c2, Rng(seed + 7), 5)
        assert e1 == e2
        assert c2.to_position() == g.to_position()
        _random_play(g, rng, 3)
