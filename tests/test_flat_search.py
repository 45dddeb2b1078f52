"""Rollout improvement with common random numbers (quinze_protocol.search.flat): a legal, searched
move, the same for the same seed and budget, the budget counted in playouts; a model with
``flat`` makes the search bot use it."""

from __future__ import annotations

import copy

from quinze_protocol.rng import Rng
from quinze_protocol.search.bots import MctsBot
from quinze_protocol.search.determinize import determinizer
from quinze_protocol.search.flat import flat_search
from quinze_protocol.search.models import model_for
from tests.test_determinize import advance


def _decisions(players: int = 3, seeds=range(4)):
    """Positions with a choice, with the knowledge of the seat to act."""
    for seed in seeds:
        for steps in (5, 40, 90):
            g, know = advance("quatorze", players, seed, steps)
            if not g.is_over and len(g.legal_actions()) > 1:
                yield g, know[g.to_act]


def test_flat_search_picks_a_searched_legal_move_reproducibly() -> None:
    model = model_for("quatorze")
    seen = 0
    for g, know in _decisions():
        det = determinizer(g.view(g.to_act), know)
        stats: dict = {}
        a = flat_search(det, model, Rng(7), iterations=60, stats=stats)
        assert a in g.legal_actions()
        assert a in model.actions(g)
        assert flat_search(det, model, Rng(7), iterations=60) == a
        roots = len(stats["root"])
        if roots > 1:  # one searched move is played unsearched
            assert stats["deals"] >= 1 and stats["iterations"] == stats["deals"] * roots >= 60
        seen += 1
    assert seen >= 6


def test_a_flat_model_makes_the_bot_use_the_flat_search() -> None:
    for g, know in _decisions(players=2, seeds=range(2)):
        view = g.view(g.to_act)
        bot = MctsBot("quatorze", 3, 40)
        bot.model = copy.copy(bot.model)
        bot.model.flat = True
        bot.know = know
        a = bot.choose(view, g.legal_actions())
        assert a in g.legal_actions()
        if len(model_for("quatorze").actions(g)) > 1:
            assert "deals" in bot.last_stats
