"""The engine's share of the load bench: the same work per action without a server.

:func:`round_robin` plays ``tables`` games of 2-player Le Quinze one action each in turn, as the
server plays its tables under load (one action of each table, then the next round), and does for
each action what the server does with the game: read the action data, check and play it, encode
the events as a seat and as the public see them, and build and encode the next action request
(view and legal actions). No sockets, no tasks, no server: what it measures is the CPU time of the
game work alone, per action, for that many live games.

Its growth from a few tables to hundreds tells how much of the server's growth of CPU per action
(:mod:`quinze_cli.bench.load`) the game states alone already show: the same computation costs
more when each action touches the state of another game, one that the processor's caches no
longer hold (the machine's second-level cache is a few MiB, 500 live games and 2,000 connections
are tens of MiB). The server cannot make that part flat; its own part is the rest.
"""

from __future__ import annotations

import time
from typing import Any

import msgpack

from quinze_protocol.game import Game, get_game
from quinze_protocol.rng import Rng

__all__ = ["round_robin"]


def _new(seed: int) -> Game:
    return get_game("quinze").new({"players": 2}, seed=seed)


def round_robin(tables: int, actions: int, *, seed: int = 1) -> dict[str, Any]:
    """Play ``actions`` actions (at least one round) over ``tables`` live games, one action of each in
    turn; a game that ends is replaced by a new one. Returns ``{"tables", "actions",
    "cpu_us_per_action"}`` (the process's CPU time, µs, set-up excluded). Deterministic for a
    ``seed``."""
    if tables < 1:
        raise ValueError("round_robin needs at least one table")
    rng = Rng(seed)
    pack = msgpack.Packer(use_bin_type=True).pack
    games = [_new(seed * 100_003 + i) for i in range(tables)]
    parse = type(games[0]).parse_action
    made = tables
    done = 0
    start = time.process_time()
    while done < actions:
        for i in range(tables):
            game = games[i]
            if game.is_over:
                made += 1
                games[i] = game = _new(seed * 100_003 + made)
            seat = game.to_act
            legal = game.legal_data()
            pack({"view": game.view(seat), "legal": legal})  # the action request
            for ev in game.apply(parse(legal[rng.below(len(legal))])):
                pack(ev.for_seat(None))
                if ev.private:
                    pack(ev.for_seat(seat))
            done += 1
    cpu = time.process_time() - start
    return {"tables": tables, "actions": done, "cpu_us_per_action": round(cpu / done * 1e6, 1)}
