"""Where an engine's random self-play time goes (issue 13 §4): diagnostics for ``quinze bench``'s
``decision_us``, never asserted (pure computation, no I/O but the command's output; CPU time of
this process, µs per decision).

* ``floor`` — the bench's own loop (``Game.new``, the random bot's choice, ``apply(checked=False)``
  with or without events, two bots a game) over the same seeded games, but with every legal list
  taken ready-made from a recording of those games: no way of listing the legal actions can make
  a decision cheaper than this. Next to it, the same games with the engine listing them (warm
  caches, since the recording filled them), so ``legal_share`` is the part of a decision that
  listing takes.
* ``cold_warm`` — ``decision_us`` with events three times in one process: the first run fills
  the engine's caches (the bench's own figure with events is such a first run), the next ones
  find them full; with the seconds the garbage collector took in each run (``gc.callbacks``).

Run: ``python -m quinze_cli.bench.engine_floor [GAME] [GAMES] [SECONDS]`` (defaults quatorze, 150
games, 1.5 s); one JSON object on standard output.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from typing import Any

from quinze_cli.bench.engine import _bots, decision_us, play
from quinze_protocol.game import Action, Game, get_game

__all__ = ["cold_warm", "floor"]


def floor(game_id: str = "quatorze", games: int = 150, seed: int = 1) -> dict[str, Any]:
    """µs of CPU per decision of ``games`` seeded 2-player random self-play games (seeds ``seed``..)
    with ready-made legal lists (with and without events) and with the engine's own (warm), and
    the share of the engine's decision that listing takes. ``replayed_decisions``: the decisions
    of the ready-made replay, which plays the very same games (equal to ``decisions``)."""
    cls = get_game(game_id)
    n = cls.min_players
    options = cls.validate_options({"players": n})
    recorded: list[list[list[Action]]] = []
    for i in range(games):
        lists: list[list[Action]] = []
        play(cls, options, seed + i, _bots(game_id, ["random"] * n, seed + i), lambda g, legal: lists.append(legal))
        recorded.append(lists)

    replayed = [0]

    def ready_made(record_events: bool) -> float:
        t0 = time.process_time()
        decisions = 0
        for i, lists in enumerate(recorded):
            bots = _bots(game_id, ["random"] * n, seed + i)
            g: Game = cls.new(options, seed + i)
            if not record_events:
                g.record_events = False
            given = iter(lists)
            while not g.is_over:
                seat = g.to_act
                g.apply(bots[seat].choose({}, next(given)), checked=False)  # type: ignore[index]  # not over
                decisions += 1
        replayed[0] = decisions  # the same games, so the same number of decisions
        return (time.process_time() - t0) / max(decisions, 1) * 1e6

    def engine(record_events: bool) -> float:
        t0 = time.process_time()
        decisions = 0
        for i in range(games):
            _, d = play(cls, options, seed + i, _bots(game_id, ["random"] * n, seed + i), record_events=record_events)
            decisions += d
        return (time.process_time() - t0) / max(decisions, 1) * 1e6

    decisions = sum(len(x) for x in recorded)
    floor_us, floor_quiet = ready_made(True), ready_made(False)
    warm, warm_quiet = engine(True), engine(False)
    return {"game": game_id, "games": games, "decisions": decisions, "replayed_decisions": replayed[0],
            "legal_per_decision": round(sum(len(a) for x in recorded for a in x) / max(decisions, 1), 2),
            "floor_us": round(floor_us, 2), "floor_quiet_us": round(floor_quiet, 2),
            "engine_warm_us": round(warm, 2), "engine_warm_quiet_us": round(warm_quiet, 2),
            "legal_share": round(1 - floor_us / warm, 3) if warm else None}


def cold_warm(game_id: str = "quatorze", seconds: float = 1.5, runs: int = 3) -> dict[str, Any]:
    """``decision_us`` with events ``runs`` times in this process (the first with the caches as this
    process found them), each with the CPU µs per decision and the garbage collector's seconds."""
    spent = [0.0]
    started: list[float] = []

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            spent[0] += time.perf_counter() - started.pop()

    gc.callbacks.append(watch)
    try:
        out = []
        for _ in range(runs):
            spent[0] = 0.0
            r = decision_us(game_id, seconds=seconds)
            out.append({"us_per_decision": r["us_per_decision"], "cpu_us_per_decision": r["cpu_us_per_decision"],
                        "decisions": r["decisions"], "gc_s": round(spent[0], 3),
                        "gc_us_per_decision": round(spent[0] / max(r["decisions"], 1) * 1e6, 2)})
    finally:
        gc.callbacks.remove(watch)
    return {"game": game_id, "runs": out}


def main(argv: list[str]) -> None:
    game_id = argv[0] if argv else "quatorze"
    games = int(argv[1]) if len(argv) > 1 else 150
    seconds = float(argv[2]) if len(argv) > 2 else 1.5
    cw = cold_warm(game_id, seconds)  # first: this process's caches are still empty
    print(json.dumps({"cold_warm": cw, "floor": floor(game_id, games)}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
