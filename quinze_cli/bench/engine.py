"""Engine measurements for ``quinze bench`` (pure computation, no I/O; times in microseconds).

Figures (measured, never asserted; the only targets are ratios to a reference engine timed in
the same run, see ``anchor`` below):

* ``decision_us`` — per game id: µs per decision in 2-player (minimum players) random
  self-play: a uniformly random legal action + ``apply(checked=False)``, game creation and every
  event included; the mean over the run and the best chunk of 5 games. Where the game's random
  bot picks by index (``by_index``: all three games), the action is ``game.legal_pick(bot.pick)``
  (completed by ``bot.complete``: classique's raise amount), which
  counts the legal actions and builds only the one picked (:meth:`Game.legal_pick`: the same
  action from the same draw, so the same games). The bench's figures come from
  :func:`self_play_us`: after a second of untimed play, three variants take turns chunk by chunk,
  each on seeds of its own: with events (the headline), ``quiet_us_per_decision`` (and its CPU
  time) with ``record_events = False`` (:attr:`quinze_protocol.game.Game.record_events`, as a
  search playout or in-process self-play plays: the same actions, no events built) and
  ``listing_us_per_decision`` with the whole list made at each decision (``legal_actions()`` +
  ``bot.choose``); ``warmup_us_per_decision`` is the untimed second's own mean (a fresh
  process's first games, Le 14's caches still filling).
* ``copy_us`` — per game id: µs per ``Game.copy()`` over positions of 2-player random self-play
  (best of 3 per position, mean over positions), and the same as a fraction of one decision
  (``copy_per_decision``, both timed in the same run).
* ``legal_p99_us`` — Le Quinze: p50/p99/max µs of generating the legal list from scratch
  over positions sampled from 2-, 4- and 8-player random self-play, each the best of 3 timings.
* ``adversarial`` — Le Quinze: two decks, 12 cards in hand and 30 on the table, mostly low
  cards and jokers: number of legal actions and µs to generate them.
* ``largest_legal`` — Le Quinze: the largest legal list seen in N random self-play games
  (10,000 by default; the player count cycles 2..8).
* ``playouts``, ``mcts`` — per game id: copy() plus a random playout to the end of the deal
  (playouts per second) and the search bot's iterations per second
  (:mod:`quinze_cli.bench.search`).
* ``anchor`` — when reference figures are given (``quinze bench --anchor CMD``: the output of
  an engine-anchor program, µs per decision of RLCard's UNO and OpenSpiel's crazy_eights timed on
  this machine in the same run), each game's µs per decision as a ratio to them, with the
  target ``<= 1.0 x RLCard UNO`` and whether it is met. Without them: no target at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from quinze_protocol.game import Action, Bot, Game, GameError, get_bot, get_game

__all__ = [
    "adversarial",
    "copy_us",
    "adversarial_position",
    "decision_us",
    "largest_legal",
    "legal_p99",
    "mark_ratios",
    "play",
    "run_engine_bench",
    "self_play_us",
]


def _bots(game_id: str, names: Sequence[str], seed: int) -> list[Bot]:
    return [get_bot(game_id, name, seed * 1009 + i) for i, name in enumerate(names)]


def play(game_cls: type[Game], options: dict[str, Any], seed: int, bots: Sequence[Bot],
         on_decision: Callable[[Game, list[Action]], None] | None = None,
         record_events: bool = True, pick: bool = False) -> tuple[Game, int]:
    """Play one game in process with built-in bots (trusted fast path); returns (game, decisions).
    ``record_events=False``: the game builds no events after its opening ones (nobody reads them).
    ``pick``: when every bot picks by index (:attr:`Bot.picks`) and no ``on_decision`` wants the
    lists, each action is ``bot.complete(g.legal_pick(bot.pick))`` (:meth:`Game.legal_pick`,
    :meth:`Bot.complete`: the same actions and draws, so the same game, without the list where
    the game can count)."""
    g = game_cls.new(options, seed)
    if not record_events:
        g.record_events = False
    decisions = 0
    if pick and on_decision is None and all(b.picks for b in bots):
        picks = [b.pick for b in bots]
        if all(type(b).complete is Bot.complete for b in bots):  # the entry picked is the action
            while not g.is_over:
                g.apply(g.legal_pick(picks[g.to_act]), checked=False)  # type: ignore[index]  # not over: somebody acts
                decisions += 1
            return g, decisions
        completes = [b.complete for b in bots]
        while not g.is_over:
            seat = g.to_act
            g.apply(completes[seat](g.legal_pick(picks[seat])), checked=False)  # type: ignore[index]  # the same
            decisions += 1
        return g, decisions
    views = [b.needs_view for b in bots]
    empty: dict[str, Any] = {}
    while not g.is_over:
        seat = g.to_act
        legal = g.legal_actions()
        if on_decision is not None:
            on_decision(g, legal)
        bot = bots[seat]  # type: ignore[index]  # not over: somebody acts (no assert in the timed loop)
        action = bot.choose(g.view(seat) if views[seat] else empty, legal)  # type: ignore[index]  # the same
        g.apply(action, checked=False)
        decisions += 1
    return g, decisions


def decision_us(game_id: str, seconds: float = 2.0, players: int | None = None, seed: int = 1,
                chunk: int = 5, record_events: bool = True, pick: bool = False) -> dict[str, Any]:
    """µs per decision of random self-play for about ``seconds`` (at least one game).

    ``us_per_decision``: the mean wall-clock time over the whole run; ``cpu_us_per_decision``:
    the same in CPU time of this process (less sensitive to other processes on the machine);
    ``best_chunk_us``: the best wall-clock mean over chunks of ``chunk`` games. ``pick``: the
    random bots pick by index where they can (:func:`play`); ``by_index`` says whether they did.
    """
    cls = get_game(game_id)
    n = players or cls.min_players
    options = cls.validate_options({"players": n})
    decisions = games = 0
    elapsed = 0.0
    best = float("inf")
    cpu0 = time.process_time()
    while games == 0 or elapsed < seconds:
        d_chunk = 0
        t0 = time.perf_counter()
        for _ in range(chunk):
            bots = _bots(game_id, ["random"] * n, seed + games)
            _, d = play(cls, options, seed + games, bots, record_events=record_events, pick=pick)
            d_chunk += d
            games += 1
        dt = time.perf_counter() - t0
        elapsed += dt
        decisions += d_chunk
        if d_chunk:
            best = min(best, dt / d_chunk)
    cpu = time.process_time() - cpu0
    by_index = pick and get_bot(game_id, "random", 0).picks
    return {"game": game_id, "players": n, "games": games, "decisions": decisions, "by_index": by_index,
            "us_per_decision": round(elapsed / max(decisions, 1) * 1e6, 2),
            "cpu_us_per_decision": round(cpu / max(decisions, 1) * 1e6, 2),
            "best_chunk_us": round(best * 1e6, 2) if decisions else None}


_VARIANTS = (("events", True, True), ("quiet", False, True), ("listing", True, False))
"""The interleaved figures of :func:`self_play_us`: (name, record_events, pick)."""


def self_play_us(game_id: str, seconds: float = 2.0, warmup: float = 1.0, seed: int = 1,
                 chunk: int = 5) -> dict[str, Any]:
    """µs per decision of random self-play with events, without events and with the whole list,
    measured *interleaved*: after ``warmup`` seconds of untimed play (with events), chunks of
    ``chunk`` games of each variant take turns (the order rotating every round) until each has
    had about ``seconds``. Every chunk plays its own seeds, never played before in the process,
    so no variant replays games whose cached facts (Le 14's combinations and hand counts) another
    filled, and a drift of the machine falls on all of them alike.

    Returns :func:`decision_us`'s fields for the variant with events, the others as
    ``quiet_us_per_decision``/``quiet_cpu_us_per_decision`` and
    ``listing_us_per_decision``/``listing_cpu_us_per_decision`` (listing only where the random
    bot picks by index: otherwise it is the same figure), and the warm-up's own mean as
    ``warmup_us_per_decision`` with ``warmup_games`` (the cost of a process's first games)."""
    cls = get_game(game_id)
    n = cls.min_players
    options = cls.validate_options({"players": n})
    by_index = bool(get_bot(game_id, "random", 0).picks)
    variants = [v for v in _VARIANTS if by_index or v[2]]
    next_seed = seed + 1_000_000  # the warm-up's seeds, apart from the timed ones
    warm_games = warm_decisions = 0
    t0 = time.perf_counter()
    while warm_games == 0 or time.perf_counter() - t0 < warmup:
        _, d = play(cls, options, next_seed, _bots(game_id, ["random"] * n, next_seed), pick=True)
        next_seed += 1
        warm_games += 1
        warm_decisions += d
    warm_s = time.perf_counter() - t0
    acc = {name: [0, 0, 0.0, 0.0, float("inf")] for name, _, _ in variants}  # games, decisions, wall, cpu, best
    next_seed = seed
    rnd = 0
    while rnd == 0 or min(a[2] for a in acc.values()) < seconds:
        for k in range(len(variants)):
            name, events, pick = variants[(rnd + k) % len(variants)]
            a = acc[name]
            d_chunk = 0
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(chunk):
                _, d = play(cls, options, next_seed, _bots(game_id, ["random"] * n, next_seed),
                            record_events=events, pick=pick)
                next_seed += 1
                d_chunk += d
            dt = time.perf_counter() - w0
            a[0] += chunk
            a[1] += d_chunk
            a[2] += dt
            a[3] += time.process_time() - c0
            if d_chunk:
                a[4] = min(a[4], dt / d_chunk)
        rnd += 1

    def us(x: float, dec: float) -> float:
        return round(x / max(dec, 1) * 1e6, 2)

    ev = acc["events"]
    out: dict[str, Any] = {"game": game_id, "players": n, "games": ev[0], "decisions": ev[1],
                           "by_index": by_index, "interleaved": True,
                           "us_per_decision": us(ev[2], ev[1]), "cpu_us_per_decision": us(ev[3], ev[1]),
                           "best_chunk_us": round(ev[4] * 1e6, 2) if ev[1] else None,
                           "warmup_games": warm_games, "warmup_us_per_decision": us(warm_s, warm_decisions)}
    for name in ("quiet", "listing"):
        if name in acc:
            out[f"{name}_us_per_decision"] = us(acc[name][2], acc[name][1])
            out[f"{name}_cpu_us_per_decision"] = us(acc[name][3], acc[name][1])
    return out


def copy_us(game_id: str, games: int = 10, every: int = 5, seed: int = 3, repeat: int = 3) -> dict[str, Any]:
    """Mean µs of ``Game.copy()`` over the positions at every ``every``-th decision of ``games``
    random self-play games (minimum players), each position timed as the best of ``repeat``."""
    cls = get_game(game_id)
    n = cls.min_players
    options = cls.validate_options({"players": n})
    samples: list[float] = []
    clock = time.perf_counter
    k = 0

    def sample(g: Game, legal: list[Action]) -> None:
        nonlocal k
        k += 1
        if k % every:
            return
        best = float("inf")
        for _ in range(repeat):
            t0 = clock()
            g.copy()
            best = min(best, clock() - t0)
        samples.append(best)

    for i in range(games):
        play(cls, options, seed + i, _bots(game_id, ["random"] * n, seed + i), sample)
    mean = sum(samples) / max(len(samples), 1)
    return {"game": game_id, "positions": len(samples), "us_per_copy": round(mean * 1e6, 2)}


def _fresh_legal(g: Any) -> Callable[[], Any]:
    return getattr(g, "generate_legal", g.legal_actions)


def legal_p99(game_id: str = "quinze", games_per_count: int = 30, counts: Sequence[int] = (2, 4, 8),
              every: int = 3, seed: int = 7, repeat: int = 3) -> dict[str, Any]:
    """Percentiles of µs to generate the legal list from scratch, over the positions at every
    ``every``-th decision of random self-play; each position timed as the best of ``repeat``."""
    cls = get_game(game_id)
    samples: list[float] = []
    clock = time.perf_counter
    k = 0  # decisions seen

    def sample(g: Game, legal: list[Action]) -> None:
        nonlocal k
        k += 1
        if k % every:
            return
        gen = _fresh_legal(g)
        best = float("inf")
        for _ in range(repeat):  # best of a few: the generation, not the scheduler of a busy machine
            t0 = clock()
            legal = gen()
            best = min(best, clock() - t0)
            del legal
        samples.append(best)

    for n in counts:
        options = cls.validate_options({"players": n})
        for i in range(games_per_count):
            play(cls, options, seed + 100 * n + i, _bots(game_id, ["random"] * n, seed + i), sample)
    samples.sort()

    def pct(p: float) -> float:
        return round(samples[min(len(samples) - 1, int(p * len(samples)))] * 1e6, 2)

    return {"game": game_id, "positions": len(samples), "players": list(counts),
            "p50_us": pct(0.50), "p99_us": pct(0.99), "max_us": round(samples[-1] * 1e6, 2)}


def adversarial_position() -> dict[str, Any]:
    """Le Quinze, 5 players (two decks): 12 low cards and jokers in hand, 30 on the table."""
    from quinze_protocol.cards import card_text

    hand = ["BJ", "RJ", "AS", "AH", "2S", "2H", "2D", "3S", "3H", "3D", "4S", "4H"]
    table = ["BJ", "RJ", "AD", "AC", "AS", "AH", "AD", "AC", "2C", "2S", "2H", "2D", "2C",
             "3C", "3S", "3H", "3D", "3C", "4D", "4C", "4S", "4H", "5S", "5H", "5D", "5C", "6S", "6H", "7S", "KS"]
    used = hand + table
    rest = [card_text(c) for c in range(54) for _ in range(2)]
    for t in used:
        rest.remove(t)
    others = [rest[i * 8:(i + 1) * 8] for i in range(4)]
    stock = rest[32:]
    return {
        "game": "quinze", "options": {"players": 5}, "rng": 1, "deal": 1, "dealer": 4, "to_act": 0,
        "turn": {"fifteens": 0, "used_table": False}, "turns": 1, "seat_turns": [1, 0, 0, 0, 0],
        "hands": [hand] + others, "table": table, "discard": [], "stock": stock, "totals": [0] * 5,
    }


def adversarial(repeat: int = 5) -> dict[str, Any]:
    """Legal actions and best-of-``repeat`` µs to generate them in :func:`adversarial_position`."""
    g = get_game("quinze").from_position(adversarial_position())
    gen = _fresh_legal(g)
    best = float("inf")
    count = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        legal = gen()
        best = min(best, time.perf_counter() - t0)
        count = len(legal)
        del legal
    return {"game": "quinze", "hand": 12, "table": 30, "legal": count, "us": round(best * 1e6, 1)}


def largest_legal(games: int = 10_000, seed: int = 11, game_id: str = "quinze") -> dict[str, Any]:
    """The largest legal list seen in ``games`` random self-play games (players cycle min..max)."""
    cls = get_game(game_id)
    biggest = 0
    where: dict[str, Any] = {}
    counts = list(range(cls.min_players, cls.max_players + 1))

    def watch(g: Game, legal: list[Action]) -> None:
        nonlocal biggest, where
        if len(legal) > biggest:
            biggest = len(legal)
            where = {"players": g.players, "game": i}

    t0 = time.perf_counter()
    for i in range(games):
        n = counts[i % len(counts)]
        play(cls, cls.validate_options({"players": n}), seed + i, _bots(game_id, ["random"] * n, seed + i), watch)
    return {"game": game_id, "games": games, "largest": biggest, "seen_in": where,
            "seconds": round(time.perf_counter() - t0, 1)}


def run_engine_bench(quick: bool = False, anchor: dict[str, Any] | None = None) -> dict[str, Any]:
    """All engine figures; ``quick`` shrinks every budget (for tests and smoke runs); ``anchor``:
    reference figures timed in the same run (see :func:`mark_ratios`)."""
    from quinze_protocol.game import game_ids

    per_game = []
    for gid in game_ids():
        try:
            d = self_play_us(gid, seconds=0.2 if quick else 2.0, warmup=0.05 if quick else 1.0)
            c = copy_us(gid, games=2 if quick else 20)
            d["copy_us"] = c["us_per_copy"]
            d["copy_per_decision"] = round(c["us_per_copy"] / d["us_per_decision"], 3) if d["us_per_decision"] else None
            per_game.append(d)
        except GameError as err:  # a game without a random bot
            per_game.append({"game": gid, "error": err.reason})
    out: dict[str, Any] = {"decision": per_game}
    if "quinze" in game_ids():
        out["legal_p99"] = legal_p99(games_per_count=2 if quick else 30)
        out["adversarial"] = adversarial(1 if quick else 5)
        out["largest_legal"] = largest_legal(20 if quick else 10_000)
    from quinze_cli.bench.search import mcts_rate, playout_rate

    out["playouts"] = [playout_rate(gid, seconds=0.2 if quick else 1.5) for gid in game_ids()]
    for p in out["playouts"]:
        q = playout_rate(p["game"], seconds=0.2 if quick else 1.5, record_events=False)
        p["quiet_playouts_per_s"] = q["playouts_per_s"]
        p["quiet_cpu_playouts_per_s"] = q["cpu_playouts_per_s"]
    out["mcts"] = [mcts_rate(gid, seconds=0.3 if quick else 2.0, iterations=20 if quick else 100) for gid in game_ids()]
    if anchor is not None:
        mark_ratios(out, anchor)
    return out


UNO_TARGET = 1.0
"""µs per decision of every game at most this many times RLCard UNO's (issue 13 §4)."""


def mark_ratios(out: dict[str, Any], anchor: dict[str, Any]) -> None:
    """Put the ``anchor`` figures (``rlcard_uno_us_per_decision``,
    ``openspiel_crazy_eights_us_per_decision``, either may be None) in ``out["anchor"]`` and, next
    to each game's µs per decision, ``uno_ratio``, ``openspiel_ratio``, ``target_uno_ratio`` and
    ``met`` (``uno_ratio <= target``), and the same for the figure without events
    (``quiet_uno_ratio``, ``quiet_met``) and for the whole-list figure (``listing_uno_ratio``). In place."""
    uno = anchor.get("rlcard_uno_us_per_decision")
    osp = anchor.get("openspiel_crazy_eights_us_per_decision")
    out["anchor"] = {"rlcard_uno_us_per_decision": uno, "openspiel_crazy_eights_us_per_decision": osp}
    for d in out.get("decision", []):
        if "us_per_decision" not in d:
            continue
        if uno:
            d["uno_ratio"] = round(d["us_per_decision"] / uno, 3)
            d["target_uno_ratio"] = UNO_TARGET
            d["met"] = d["uno_ratio"] <= UNO_TARGET
            if d.get("quiet_us_per_decision"):
                d["quiet_uno_ratio"] = round(d["quiet_us_per_decision"] / uno, 3)
                d["quiet_met"] = d["quiet_uno_ratio"] <= UNO_TARGET
            if d.get("listing_us_per_decision"):
                d["listing_uno_ratio"] = round(d["listing_us_per_decision"] / uno, 3)
        if osp:
            d["openspiel_ratio"] = round(d["us_per_decision"] / osp, 3)
