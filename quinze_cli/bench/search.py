"""Search measurements for ``quinze bench`` (the engine section): what a search bot can do per
second on this machine. Figures only, never asserted.

* ``playouts`` — per game id: ``Game.copy()`` of a position of 2-player random self-play plus a
  uniformly random playout to the end of the deal (Le Quinze: the deal; Le 14: the game, which is
  one deal; classique: the coup), repeated for about ``seconds``: playouts per second (wall
  clock, and in CPU time of this process: less sensitive to a busy machine) and decisions per
  playout; ``quiet_playouts_per_s``: the same with ``record_events = False`` on the copies
  (no events built: all a playout needs).
* ``mcts`` — per game id: the search bot (``mcts@N``, quinze_protocol.search) deciding at positions of
  2-player random self-play where it has a choice, a new bot per position (a search bot's
  knowledge belongs to one seat of one game): iterations per second, wall clock and CPU time
  (its whole cost: determinization, tree, playouts).
"""

from __future__ import annotations

import time
from typing import Any

from quinze_protocol.game import Game, get_bot, get_game
from quinze_protocol.rng import Rng

__all__ = ["mcts_rate", "playout_rate", "positions"]


def _deal_mark(g: Any) -> Any:
    if g.id == "quinze":
        return g.deal_no
    if g.id == "quinze-classique":
        return g.coup
    return 0


def _concrete(a: Any) -> Any:
    if getattr(a, "amount", 0) is None:  # classique lists a raise as its range
        return type(a)(amount=a.min)
    return a


def positions(game_id: str, count: int, seed: int = 5) -> list[Game]:
    """``count`` positions of 2-player (minimum players) random self-play, spread over games."""
    cls = get_game(game_id)
    out: list[Game] = []
    rng = Rng(seed)
    k = 0
    while len(out) < count:
        g = cls.new({"players": cls.min_players}, seed + k)
        k += 1
        while not g.is_over and len(out) < count:
            legal = g.legal_actions()
            if len(legal) > 1 and rng.below(8) == 0:
                out.append(g.copy())
            g.apply(_concrete(legal[rng.below(len(legal))]), checked=False)
    return out


def playout_rate(game_id: str, seconds: float = 1.0, seed: int = 9, record_events: bool = True) -> dict[str, Any]:
    """Playouts per second: ``copy()`` then random moves to the end of the deal (module docstring);
    ``record_events=False``: the copies build no events, as a search playout needs none."""
    starts = positions(game_id, 20, seed)
    for g0 in starts:
        g0.record_events = record_events
    rng = Rng(seed)
    n = decisions = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    while n == 0 or time.perf_counter() - t0 < seconds:
        g = starts[n % len(starts)].copy()
        mark = _deal_mark(g)
        while not g.is_over and _deal_mark(g) == mark:
            legal = g.legal_actions()
            g.apply(_concrete(legal[rng.below(len(legal))]), checked=False)
            decisions += 1
        n += 1
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {"game": game_id, "playouts": n, "playouts_per_s": round(n / dt, 1),
            "cpu_playouts_per_s": round(n / cpu, 1) if cpu else None,
            "decisions_per_playout": round(decisions / n, 1)}


def mcts_rate(game_id: str, seconds: float = 1.0, iterations: int = 100, seed: int = 13) -> dict[str, Any]:
    """Iterations per second of ``mcts@iterations`` over self-play positions (module docstring)."""
    starts = positions(game_id, 12, seed)
    total = decisions = 0
    cpu = 0.0
    t0 = time.perf_counter()
    while decisions == 0 or time.perf_counter() - t0 < seconds:
        g = starts[decisions % len(starts)]
        # a new bot per position: a search bot's knowledge belongs to one seat of one game
        bot = get_bot(game_id, f"mcts@{iterations}", seed + decisions)
        c0 = time.process_time()
        bot.choose(g.view(g.to_act), g.legal_actions())
        cpu += time.process_time() - c0
        total += bot.last_stats.get("iterations", 0)  # type: ignore[attr-defined]  # the search bot's own counters
        decisions += 1
    dt = time.perf_counter() - t0
    return {"game": game_id, "decisions": decisions, "iterations": total,
            "iterations_per_s": round(total / dt, 1),
            "cpu_iterations_per_s": round(total / cpu, 1) if cpu else None}
