"""Bench figure of ``quinze tournament``'s own cost: scheduling and statistics per game, as a share
of one game of built-in bots (wired into ``quinze bench``'s match section).

- The game: ``builtin:greedy`` against ``builtin:random`` in Le Quinze with default options,
  through :class:`quinze_cli.matchrun.MatchRunner` (embedded server, log written): seconds per game.
- The overhead, for an event of 12 bots at 4-seat free-for-all tables (the costliest schedule) of
  ``games`` games: building the schedule, counting every game into :class:`TournamentStats`
  (totals, crosstable, live Plackett–Luce ratings), the final standings (ratings again in schedule
  order) and crosstable, divided by the games. The journal's fsynced line per game is shown apart
  (disk-bound: it is what makes resume exact).

Target: overhead <= 1% of a game. Measured on this machine, never asserted.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from quinze_cli.journal import Journal
from quinze_cli.matchrun import MatchConfig, MatchRunner, parse_bot_spec, validate_options
from quinze_cli.schedule import build_schedule
from quinze_cli.tournament import TournamentStats

__all__ = ["TARGET_SHARE", "tournament_overhead"]

TARGET_SHARE = 0.01


def _game_seconds(games: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        specs = [parse_bot_spec("builtin:greedy", "quinze"), parse_bot_spec("builtin:random", "quinze")]
        cfg = MatchConfig(game="quinze", bots=specs, games=games, seed=1, options=validate_options("quinze", {}, None, 2),
                          log_dir=Path(tmp))
        runner = MatchRunner(cfg)
        start = time.perf_counter()
        trio.run(runner.run)
        return (time.perf_counter() - start) / games


def tournament_overhead(*, games: int = 2000, sample_games: int = 10) -> dict[str, Any]:
    """``{"game_ms", "overhead_ms", "share", "journal_ms", "target_share", "met", ...}``: milliseconds
    of one game and of the event's own work per game (see the module docstring)."""
    game_s = _game_seconds(sample_games)
    bots = 12
    rng = random.Random(3)
    start = time.perf_counter()
    rounds = max(1, games // (4 * 3))
    schedule = build_schedule("free-for-all", bots, seats=4, seed=1, duplicate=True, rounds=rounds)
    plans = schedule.plans[:games]
    stats = TournamentStats([(f"bot{i}", "builtin:random") for i in range(bots)], seats=4, group=4,
                            lower_is_better=True)
    for p in plans:
        winner = rng.randrange(4)
        points = [1.0 if s == winner else 0.0 for s in range(4)]
        scores = [rng.randrange(0, 150) for _ in range(4)]
        stats.add_game(p.seat_bots, points, [], scores, index=p.index, deal=p.seed,
                       think=[(0.01, 20, 0.002)] * 4)
    stats.standings(final=True)
    stats.crosstable()
    overhead = (time.perf_counter() - start) / len(plans)
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal.create(Path(tmp) / "journal.jsonl", "tournament", {"bench": True})
        n = min(200, len(plans))
        start = time.perf_counter()
        for p in plans[:n]:
            journal.append({"index": p.index, "seed": p.seed, "seat_bots": list(p.seat_bots), "points": [1, 0, 0, 0],
                            "scores": [0, 50, 60, 70], "forfeits": [], "failures": [], "think": [[0.01, 20, 0.002]] * 4})
        journal_s = (time.perf_counter() - start) / n
        journal.close()
    share = overhead / game_s
    return {
        "games": len(plans), "bots": bots, "seats": 4, "sample_games": sample_games,
        "game_ms": round(game_s * 1000, 3), "overhead_ms": round(overhead * 1000, 4),
        "share": round(share, 5), "journal_ms": round(journal_s * 1000, 4),
        "journal_share": round(journal_s / game_s, 5), "target_share": TARGET_SHARE, "met": share <= TARGET_SHARE,
    }


if __name__ == "__main__":  # pragma: no cover - manual run
    import json

    print(json.dumps(tournament_overhead(), indent=2))
