"""Shared steps of the search bots' tests."""

from __future__ import annotations

from collections.abc import Sequence

from quinze_protocol.game import Bot, Game
from quinze_protocol.search.models import _value_key


def assert_plays_as(game: Game, searches: Sequence[Bot], other: Bot) -> None:
    """Play ``game`` to its end, each seat by its bot in ``searches`` (told every event its seat
    sees), asserting at every decision that the move equals ``other``'s on the same view and
    legal list, up to suits (Le 14's moves compare by values: suits never matter there)."""
    seats = range(len(searches))
    for e in game.opening_events:
        for s in seats:
            searches[s].observe(e.for_seat(s))
    while not game.is_over:
        s = game.to_act
        view, legal = game.view(s), game.legal_actions()
        a = searches[s].choose(view, legal)
        assert _value_key(a) == _value_key(other.choose(view, legal))
        for e in game.apply(a):
            for t in seats:
                searches[t].observe(e.for_seat(t))
