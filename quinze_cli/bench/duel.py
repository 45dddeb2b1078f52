"""In-process duplicate duels for the strength ladder (docs/bots.md): one bot against copies of
another, each deal played once per seat of the first bot, no server, no subprocess.

    python -m quinze_cli.bench.duel --game quatorze --bot oracle@100 --against greedy \\
        --seed 1000 --deals 100 [--players 3] [--option KEY=VALUE ...] [--set KEY=VALUE ...]

``--bot`` and ``--against`` take built-in bot names (``greedy``, ``mcts@400``...) and, for Le 14,
the yardsticks of :mod:`quinze_protocol.search.oracle`, which ``quinze tournament`` cannot seat
(they are shown the real game): ``oracle@N`` (the search with perfect information, ``N``
iterations), ``oracle-PLACES@N`` (``PLACES``: ``+``-joined among ``hands``, ``packets``,
``stock``: those are dealt again at random, the rest is seen: ``oracle-packets+stock@100`` sees
the other hands) and the honest ``pimc-K@N`` (``K`` determinizations, ``N`` iterations each) and ``planner`` (the
turn planner of :mod:`quinze_protocol.search.plan_quatorze` alone, the first move of Le 14's
search). ``--set KEY=VALUE``
changes an attribute of the first bot's search model (a copy of the game's
:class:`~quinze_protocol.search.ismcts.GameModel`: ``bias``, ``c``, ``rounds``, ``max_steps``...),
to measure a variant before changing the bot.

The bots are fed what a seat is sent over the wire: its view at each decision and every event
as ``Event.for_seat`` gives it; each game makes new bots, seeded from the deal's seed, the seat
and the name. Prints one line per deal and, at the end, a JSON line: ``score`` (the first bot's
mean points per game), ``low``/``high`` (95% interval over deals: normal approximation of the
deals' means), ``deals``, ``games``, ``ms_per_decision`` (mean and max wall time of the first
bot's decisions), ``cpu_s``. Figures only; nothing asserts them.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from quinze_protocol.game import Bot, get_bot, get_game
from quinze_protocol.search.bots import MctsBot
from quinze_protocol.search.oracle import OracleBot, PimcBot
from quinze_protocol.search.plan_quatorze import PlannerBot

__all__ = ["duel", "make_bot", "play_game"]


def make_bot(game_id: str, name: str, seed: int, model: dict[str, Any] | None = None) -> Bot:
    """A bot by name (module docstring); raises the errors of ``get_bot`` for other names.
    ``model``: attributes set on a copy of a search bot's model (module docstring, ``--set``)."""
    bot = _make(game_id, name, seed)
    if model:
        if not isinstance(bot, MctsBot):
            raise ValueError(f"--set changes a search bot's model: {name} has none")
        bot.model = copy.copy(bot.model)
        for key, value in model.items():
            if not hasattr(bot.model, key):
                raise ValueError(f"--set: the search model has no {key!r}")
            setattr(bot.model, key, value)
    return bot


def _make(game_id: str, name: str, seed: int) -> Bot:
    base, at, arg = name.partition("@")
    if at and base == "oracle":
        return OracleBot(game_id, seed, int(arg))
    if at and base.startswith("oracle-"):
        return OracleBot(game_id, seed, int(arg), hide=base[len("oracle-"):].split("+"))
    if at and base.startswith("pimc-"):
        return PimcBot(game_id, seed, int(arg), deals=int(base[len("pimc-"):]))
    if name == "planner" and game_id == "quatorze":
        return PlannerBot(seed)
    return get_bot(game_id, name, seed)


def _seed(*parts: Any) -> int:
    return int(hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:16], 16)


def play_game(game_id: str, names: Sequence[str], seed: int, options: dict[str, Any],
              times: list[float] | None = None, timed_seat: int | None = None,
              model: dict[str, Any] | None = None) -> list[float]:
    """One game, ``names[s]`` at seat ``s``: the result's points per seat. ``times`` (optional)
    gets the wall time in seconds of each decision of ``timed_seat``; ``model`` (see
    :func:`make_bot`) goes to the bot of ``timed_seat``."""
    g = get_game(game_id).new(dict(options, players=len(names)), seed)
    bots = [make_bot(game_id, name, _seed(seed, s, name), model if s == timed_seat else None)
            for s, name in enumerate(names)]
    for e in g.opening_events:
        for s, b in enumerate(bots):
            b.observe(e.for_seat(s))
    while not g.is_over:
        seat = g.to_act
        assert seat is not None
        b = bots[seat]
        if isinstance(b, OracleBot):
            b.see(g)
        t0 = time.perf_counter()
        a = b.choose(g.view(seat) if b.needs_view else {}, g.legal_actions())
        if times is not None and seat == timed_seat:
            times.append(time.perf_counter() - t0)
        for e in g.apply(a, checked=False):
            for t, other in enumerate(bots):
                other.observe(e.for_seat(t))
    res = g.result()
    assert res is not None
    return list(res.points)


def duel(game_id: str, bot: str, against: str, seed: int, deals: int, players: int = 2,
         options: dict[str, Any] | None = None,
         report: Callable[[str], None] | None = None, model: dict[str, Any] | None = None) -> dict[str, Any]:
    """Deals ``seed .. seed+deals-1``, each played ``players`` times, ``bot`` at each seat in
    turn and ``against`` at the others. Returns the summary of the module docstring."""
    options = dict(options or {})
    means: list[float] = []
    times: list[float] = []
    c0 = time.process_time()
    for d in range(deals):
        points = []
        for seat in range(players):
            names = [against] * players
            names[seat] = bot
            points.append(play_game(game_id, names, seed + d, options, times, seat, model)[seat])
        means.append(sum(points) / players)
        if report is not None:
            m, lo, hi = _interval(means)
            report(f"deal {seed + d}: {points}; so far {m:.3f} ({lo:.3f} .. {hi:.3f}) over {len(means)} deals")
    m, lo, hi = _interval(means)
    return {"game": game_id, "bot": bot, "against": against, "seed": seed, "players": players,
            "options": options, "model": dict(model or {}), "deals": deals, "games": deals * players, "score": round(m, 4),
            "low": round(lo, 4), "high": round(hi, 4),
            "ms_per_decision": [round(1000 * sum(times) / len(times), 1) if times else None,
                                round(1000 * max(times), 1) if times else None],
            "cpu_s": round(time.process_time() - c0, 1)}


def _interval(values: list[float]) -> tuple[float, float, float]:
    m = sum(values) / len(values)
    if len(values) < 2:
        return m, m, m
    h = 1.96 * math.sqrt(sum((x - m) ** 2 for x in values) / (len(values) - 1) / len(values))
    return m, m - h, m + h


def _pairs(items: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in items:
        key, _, value = kv.partition("=")
        try:
            out[key] = int(value)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    return out


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m quinze_cli.bench.duel", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True)
    p.add_argument("--bot", required=True)
    p.add_argument("--against", required=True)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args(argv)
    out = duel(args.game, args.bot, args.against, args.seed, args.deals, args.players, _pairs(args.option),
               report=lambda line: print(line, flush=True), model=_pairs(args.set))
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
