"""A game with ``record_events = False`` (quinze_protocol.game.Game.record_events) plays exactly
as one that records: the same legal lists and positions after every action, in every game,
and its copies keep the setting; only the events are left out."""

from __future__ import annotations

import pytest

from quinze_protocol.game import game_ids, get_bot, get_game


def _concrete(a):
    if getattr(a, "amount", 0) is None:  # classique lists a raise as its range
        return type(a)(amount=a.min)
    return a


@pytest.mark.parametrize("game_id", game_ids())
def test_a_quiet_game_plays_exactly_as_one_that_records(game_id: str) -> None:
    cls = get_game(game_id)
    for seed in range(6):
        players = cls.min_players + seed % (cls.max_players - cls.min_players + 1)
        loud = cls.new({"players": players}, seed)
        quiet = cls.new({"players": players}, seed)
        quiet.record_events = False
        bots = [get_bot(game_id, "random", seed * 31 + s) for s in range(players)]
        steps = 0
        while not loud.is_over and steps < 3000:
            legal = loud.legal_actions()
            assert quiet.legal_actions() == legal
            a = _concrete(bots[loud.to_act].choose(loud.view(loud.to_act), legal))
            assert loud.apply(a)  # every action records something
            assert quiet.apply(a) == []
            assert quiet.to_position() == loud.to_position()
            if steps % 7 == 0:
                quiet = quiet.copy()
                assert quiet.record_events is False
            steps += 1
        assert quiet.is_over == loud.is_over and quiet.result() == loud.result()
