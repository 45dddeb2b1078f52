"""The engine's share of the load bench: the same work per action without a server.

:func:`round_robin` plays ``tables`` games of 2-player Le Quinze one action each in turn, as the
server plays its tables under load (one action of each table, then the next round), and does for
each action what the server does with the game: read the action data, check and play it, encode
the events as a seat and as the public see them (or take the game's own encoding,
``Game.packed_event``), and build and encode the next action request (view and legal actions;
the view as ``Game.packed_view`` gives it where the game encodes it, as the server sends it). No sockets, no tasks, no server: what it measures is the CPU time of the
game work alone, per action, for that many live games.

Its growth from a few tables to hundreds tells how much of the server's growth of CPU per action
(:mod:`quinze_cli.bench.load`) the game states alone already show: the same computation costs
more when each action touches the state of another game, one that the processor's caches no
longer hold (the machine's second-level cache is a few MiB, 500 live games and 2,000 connections
are tens of MiB). The server cannot make that part flat; its own part is the rest.
"""

from __future__ import annotations

import time
from statistics import median
from typing import Any

import msgpack

from quinze_protocol.game import Game, get_game
from quinze_protocol.rng import Rng

__all__ = ["RoundRobin", "interleaved", "round_robin"]


def _new(seed: int) -> Game:
    return get_game("quinze").new({"players": 2}, seed=seed)


class RoundRobin:
    """``tables`` live games of 2-player Le Quinze played one action of each in turn (a game that
    ends is replaced by a new one); :meth:`play` plays whole rounds. Deterministic for a ``seed``."""

    def __init__(self, tables: int, seed: int = 1) -> None:
        if tables < 1:
            raise ValueError("round_robin needs at least one table")
        self.tables = tables
        self.seed = seed
        self.rng = Rng(seed)
        self.games = [_new(seed * 100_003 + i) for i in range(tables)]
        self.made = tables
        self.actions = 0

    def play(self, actions: int) -> float:
        """Play at least ``actions`` actions, in whole rounds (every table acts as often); the
        CPU seconds they took (``time.process_time``)."""
        games, tables, rng, seed = self.games, self.tables, self.rng, self.seed
        pack = msgpack.Packer(use_bin_type=True).pack
        parse = type(games[0]).parse_action
        packed = type(games[0]).packed_event
        done = 0
        start = time.process_time()
        while done < actions:
            for i in range(tables):
                game = games[i]
                if game.is_over:
                    self.made += 1
                    games[i] = game = _new(seed * 100_003 + self.made)
                seat = game.to_act
                legal = game.legal_data()
                view = game.packed_view(seat)  # the action request: the view as the server has it
                if view is None:
                    pack({"view": game.view(seat), "legal": legal})
                else:
                    view + pack({"legal": legal})
                for ev in game.apply(parse(legal[rng.below(len(legal))])):
                    if packed(ev, None) is None:  # an event the game keeps encoded costs a look-up
                        pack(ev.for_seat(None))
                    if ev.private and packed(ev, seat) is None:
                        pack(ev.for_seat(seat))
                done += 1
        self.actions += done
        return time.process_time() - start


def round_robin(tables: int, actions: int, *, seed: int = 1) -> dict[str, Any]:
    """Play ``actions`` actions (at least one round) over ``tables`` live games, one action of each in
    turn; a game that ends is replaced by a new one. Returns ``{"tables", "actions",
    "cpu_us_per_action"}`` (the process's CPU time, µs, set-up excluded). Deterministic for a
    ``seed``."""
    games = RoundRobin(tables, seed)
    cpu = games.play(actions)
    return {"tables": tables, "actions": games.actions, "cpu_us_per_action": round(cpu / games.actions * 1e6, 1)}


def interleaved(tables: list[int], actions: int, *, chunk: int = 2_000, seeds: list[int] | None = None) -> list[dict[str, Any]]:
    """The game work alone for each count of ``tables`` at once, measured *interleaved*, as the
    engine bench measures its self-play (:func:`quinze_cli.bench.engine.self_play_us`): every
    count's games are made first, each plays one untimed chunk (the warm-up: the code and the
    games' first deals), then chunks of about ``chunk`` actions (whole rounds) take turns, the
    order reversed every round, until each count has played ``actions``: a drift of the machine
    falls on every count alike. ``seeds``: one per count (default 1, 2, ...).

    Returns one ``{"tables", "actions", "cpu_us_per_action": the median chunk's µs,
    "chunks_us": [µs of each timed chunk, in round order]}`` per count, in the order given."""
    seeds = seeds or list(range(1, len(tables) + 1))
    sets = [RoundRobin(t, s) for t, s in zip(tables, seeds)]
    per = [max(1, chunk // r.tables) * r.tables for r in sets]  # whole rounds, about a chunk
    for r, n in zip(sets, per):
        r.play(n)  # untimed
    timed = [0] * len(sets)
    chunks: list[list[float]] = [[] for _ in sets]
    rnd = 0
    while rnd == 0 or min(timed) < actions:
        order = range(len(sets)) if rnd % 2 == 0 else reversed(range(len(sets)))
        for k in order:
            cpu = sets[k].play(per[k])
            timed[k] += per[k]
            chunks[k].append(round(cpu / per[k] * 1e6, 1))
        rnd += 1
    return [{"tables": r.tables, "actions": n, "cpu_us_per_action": median(c), "chunks_us": c}
            for r, n, c in zip(sets, timed, chunks)]
