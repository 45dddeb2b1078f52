"""Rollout improvement with common random numbers: the search of the Le 14 bot (docs/bots.md,
"Le 14: the search").

For one decision: deal a determinization of the seat's view
(:mod:`quinze_protocol.search.determinize`); on that one deal, play every searched action
(:meth:`GameModel.actions`) and then the playout policy (:meth:`GameModel.rollout`) to the
horizon, each action's playout drawing the *same* random numbers; add each action's reward.
Repeat on new deals until the budget is spent (``iterations`` counts playouts). The action with
the highest total wins; on a tie the first, the rule of thumb's move.

Why not the tree (:mod:`quinze_protocol.search.ismcts`) here: in Le 14 the moves of a turn differ
by little against the spread of a deal's outcome, so a tree that samples each action on other
deals chooses by noise; compared on the same deals and the same draws, the differences show.
And a policy that picks, at each decision, the best move when the playout policy plays the rest
is at least as good as that policy when the model is right (the rollout algorithm of Tesauro &
Galperin 1996; Bertsekas, Tsitsiklis & Wu 1997): the playout policy is the built-in ``greedy``.

Deterministic for an iteration budget: every random number comes from the generator given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quinze_protocol.game import Action
from quinze_protocol.rng import Rng
from quinze_protocol.search.determinize import Determinizer
from quinze_protocol.search.ismcts import GameModel

__all__ = ["flat_search"]


def flat_search(det: Determinizer, model: GameModel, rng: Rng, *, iterations: int,
                deadline: Callable[[], bool] | None = None,
                stats: dict[str, Any] | None = None) -> Action:
    """The action with the best total reward over common-random-number playouts (module
    docstring). ``iterations`` (>= 1): playouts, at least one deal is always played;
    ``deadline``: called between deals, True stops. ``stats`` gets ``iterations`` (playouts),
    ``deals`` and the root's ``{action data text: [deals, mean]}`` (``root``)."""
    roots: list[Action] | None = None
    totals: list[float] = []
    playouts = deals = 0
    done, roll, rewards = model.done, model.rollout, model.rewards
    while roots is None or playouts < iterations:
        if deals and deadline is not None and deadline():
            break
        g0 = det.sample(rng)
        g0.record_events = False
        if roots is None:
            roots = model.actions(g0)
            totals = [0.0] * len(roots)
            if len(roots) == 1:
                break
        start = model.start(g0)
        me = g0.to_act
        assert me is not None
        seed = rng.next64()
        for j, a in enumerate(roots):
            g = g0.copy()
            r = Rng(seed)  # the same draws for every action: the comparison is paired
            g.apply(a, checked=False)
            steps = 1
            while not done(g, start, steps):
                g.apply(roll(g, r), checked=False)
                steps += 1
            totals[j] += rewards(g, start)[me]
        playouts += len(roots)
        deals += 1
    assert roots is not None
    best = max(range(len(roots)), key=lambda j: (totals[j], -j))
    if stats is not None:
        stats["iterations"] = playouts
        stats["deals"] = deals
        stats["root"] = {str(a.to_data()): [deals, totals[j] / deals if deals else 0.0]
                         for j, a in enumerate(roots)}
    return roots[best]
