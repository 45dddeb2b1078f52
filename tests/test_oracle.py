"""The ladder's yardsticks (quinze_protocol.search.oracle) and the in-process duel runner
(quinze_cli.bench.duel): an oracle with nothing hidden plays the true deal; one that hides places
deals only those again (same cards, same sizes, the rest untouched, the seat's view unchanged);
duels are reproducible and count every seat rotation."""

from __future__ import annotations

from collections import Counter

import pytest

from quinze_cli.bench.duel import duel, play_game
from quinze_protocol.game import GameError, get_game
from quinze_protocol.rng import Rng
from quinze_protocol.search.oracle import Oracle, OracleBot, PimcBot
from tests.test_determinize import advance


def _le14(seed: int = 11, steps: int = 60, players: int = 3):
    g, _ = advance("quatorze", players, seed, steps)
    assert not g.is_over
    return g


def test_an_oracle_hiding_nothing_plays_the_true_deal() -> None:
    g = _le14()
    d = Oracle(g, g.to_act).sample(Rng(1))
    assert d is not g
    assert d.to_position() == g.to_position()


@pytest.mark.parametrize("hide", [("stock",), ("hands",), ("packets",), ("hands", "packets", "stock")])
def test_an_oracle_deals_again_only_the_places_it_hides(hide) -> None:
    g = _le14()
    seat = g.to_act
    others = [s for s in range(g.players) if s != seat]
    changed = False
    for k in range(5):
        d = Oracle(g, seat, hide).sample(Rng(k))
        assert d.view(seat) == g.view(seat)
        assert d.hands[seat] == g.hands[seat]
        if "hands" not in hide:
            assert [d.hands[s] for s in others] == [g.hands[s] for s in others]
        if "packets" not in hide:
            assert d.packets == g.packets
        if "stock" not in hide:
            assert d.stock == g.stock
        hidden = lambda x: Counter(  # noqa: E731
            [c for s in others for c in x.hands[s]] * ("hands" in hide)
            + [c for ps in x.packets for p in ps for c in p] * ("packets" in hide)
            + list(x.stock) * ("stock" in hide))
        assert hidden(d) == hidden(g)
        changed = changed or d.to_position() != g.to_position()
        get_game("quatorze").from_position(d.to_position())  # a legal position
    assert changed


def test_an_oracle_refuses_unknown_places_and_other_games() -> None:
    g = _le14()
    with pytest.raises(GameError, match="unknown hidden place"):
        Oracle(g, 0, ["deck"])
    with pytest.raises(GameError, match="Le 14 only"):
        Oracle(get_game("quinze").new({"players": 2}, 1), 0)


def test_an_oracle_bot_must_be_shown_the_game() -> None:
    g = _le14(players=2)
    bot = OracleBot("quatorze", 1, 20)
    legal = g.legal_actions()
    if len(legal) > 1:
        with pytest.raises(GameError, match="shown the game"):
            bot.choose(g.view(g.to_act), legal)
    bot.see(g)
    assert bot.choose(g.view(g.to_act), legal) in legal


def test_duels_are_reproducible_and_play_every_rotation() -> None:
    a = duel("quatorze", "pimc-2@5", "greedy", seed=3, deals=1)
    b = duel("quatorze", "pimc-2@5", "greedy", seed=3, deals=1)
    assert a["games"] == 2 and a["deals"] == 1
    assert (a["score"], a["low"], a["high"]) == (b["score"], b["low"], b["high"])
    assert 0.0 <= a["score"] <= 1.0
    points = play_game("quatorze", ["oracle@5", "greedy", "random"], 4, {})
    assert len(points) == 3 and sum(points) == pytest.approx(1.0)
    assert isinstance(PimcBot("quatorze", 0, 5, deals=2), PimcBot)


def test_a_duel_can_change_the_search_model_of_the_first_bot_only() -> None:
    from quinze_cli.bench.duel import make_bot
    from quinze_protocol.search.models import model_for

    bot = make_bot("quatorze", "mcts@5", 1, {"bias": 0.5, "rounds": 2})
    assert (bot.model.bias, bot.model.rounds) == (0.5, 2)
    assert model_for("quatorze").bias == 5.0  # the shared model is untouched
    with pytest.raises(ValueError, match="no 'nope'"):
        make_bot("quatorze", "mcts@5", 1, {"nope": 1})
    with pytest.raises(ValueError, match="has none"):
        make_bot("quatorze", "greedy", 1, {"bias": 1.0})
    out = duel("quatorze", "mcts@3", "greedy", seed=5, deals=1, model={"bias": 5.0})
    assert out["model"] == {"bias": 5.0} and out["games"] == 2
