"""Schedules: the games of one match (``quinze match``: :func:`iter_schedule`, one :class:`GamePlan`
per game, seat rotations by :func:`rotations`) and of a tournament (``quinze tournament``): which
bots play which game, at which seats, with which seed.

Every schedule is a list of *tables*, each a group of bots played over ``R`` games, one per
distinct seat rotation (:func:`rotations`: two for two bots, ``K`` for ``K``
bots at ``K`` seats), so within a table every bot holds every seat equally often. With
``duplicate`` the ``R`` games of a table replay one deal (the same seed); without, each game has
its own seed.

- ``round-robin``: every pair of bots meets, ``per_pairing`` games each (two bots at ``seats``
  seats, dealt in rotation as in ``quinze match``);
- ``gauntlet``: the first bot against each of the others, ``per_pairing`` games each;
- ``free-for-all``: tables of ``K = seats`` bots drawn from the ``N``. A *round* is the smallest
  number of tables in which every bot plays equally often (``lcm(N, K) / K`` tables); the tables
  are chosen greedily, each time the ``K`` bots that played least, then met least (the best of
  24 seeded random greedy draws), so meetings stay as even as the numbers allow (:func:`evenness` says how
  even).

Seeds: in the pairings formats deal ``k`` of every pairing has seed ``seed + k``: all pairings
play the same deals (with ``duplicate``; deal ``k`` is then the ``k``-th table of a pairing).
In free-for-all, table ``t`` plays deal ``seed + t`` (duplicate) or ``seed + t·R + r``. With
``positions`` (their number) deal ``k`` (table ``t``) starts from position ``k mod positions``. The games
are interleaved (deal 0 of every pairing, then deal 1...) so that standings grow evenly.

An event's schedule is made whole before its first game (free-for-all tables depend on the tables
before them; the summary's evenness reads every game): :func:`build_schedule` refuses more than
:data:`MAX_EVENT_GAMES` games, counted first by :func:`event_size` (a ``--games-per-pairing``
of 10**12 was minutes of building before the first game). A match's games (:func:`iter_schedule`)
are made as they are played, any number of them.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any


__all__ = ["FORMATS", "MAX_EVENT_GAMES", "GamePlan", "Schedule", "build_schedule", "evenness", "event_size", "iter_schedule",
           "last_seed", "rotations", "schedule"]

FORMATS = ("round-robin", "gauntlet", "free-for-all")
MAX_EVENT_GAMES = 100_000
"""The most games of one tournament: its schedule, made before the first game, takes about a
second per 100000 games (more in free-for-all) and their plans stay in memory. Longer runs are
matches (``quinze match``), whose games are scheduled as they are played."""


# --------------------------------------------------------------------------- a match's games


@dataclass(frozen=True)
class GamePlan:
    """Game ``index`` (0-based) of the match: its ``seed`` and the bot index at each seat."""

    index: int
    seed: int
    seat_bots: tuple[int, ...]
    position: int | None = None
    """The game starts from ``MatchConfig.positions[position]`` (None: a new deal)."""


def rotations(bots: int, seats: int) -> list[tuple[int, ...]]:
    """The distinct seat assignments of the rotations, in order: rotation ``r`` gives seat ``s``
    to bot ``((s + r) mod seats) mod bots``. Two bots at four seats have two (``0101``, ``1010``),
    three bots at three seats three."""
    out: list[tuple[int, ...]] = []
    for r in range(seats):
        deal = tuple(((s + r) % seats) % bots for s in range(seats))
        if deal not in out:
            out.append(deal)
    return out


def last_seed(seed: int, games: int, rotations_: int, *, duplicate: bool = False) -> int:
    """The seed of the last game of a match (game ``i`` has seed ``seed + i``; with ``duplicate``, ``seed + i // rotations_``)."""
    return seed + (games // rotations_ - 1 if duplicate else games - 1)


def iter_schedule(bots: int, seats: int, games: int, seed: int, *, duplicate: bool = False,
                  positions: int = 0) -> Iterator[GamePlan]:
    """The games of a match, one at a time (a generator: ``--games 100000000`` starts at once and
    holds one plan in memory). With ``positions`` (their number; ``duplicate`` required) deal group
    ``g`` starts from position ``g mod positions``. Raises ``ValueError`` (when called, not lazily)
    for a duplicate match whose number of games is not a multiple of the number of distinct
    rotations."""
    deals = rotations(bots, seats)
    if positions and not duplicate:
        raise ValueError("positions are played once per seat rotation: duplicate is required")
    if duplicate and games % len(deals):
        raise ValueError(f"--duplicate plays each deal once per seat rotation: --games must be a multiple of {len(deals)}")

    def plans() -> Iterator[GamePlan]:
        for i in range(games):
            rotation, shuffle = (i % len(deals), i // len(deals)) if duplicate else (i % len(deals), i)
            yield GamePlan(i, seed + shuffle, deals[rotation], shuffle % positions if positions else None)

    return plans()


def schedule(bots: int, seats: int, games: int, seed: int, *, duplicate: bool = False) -> list[GamePlan]:
    """The games of a match as a list (:func:`iter_schedule`; for small matches and tests)."""
    return list(iter_schedule(bots, seats, games, seed, duplicate=duplicate))



@dataclass(frozen=True)
class Schedule:
    """The games of an event in order (``plans[i].index == i``), and the tables they form."""

    plans: list[GamePlan]
    tables: int
    per_table: int
    """Games per table (the seat rotations)."""

    @property
    def games(self) -> int:
        return len(self.plans)

    @property
    def last_seed(self) -> int:
        return max((p.seed for p in self.plans), default=0)


def _table_games(group: Sequence[int], seats: int, seed_of: Any, plans: list[GamePlan], position: int | None = None) -> None:
    deals = rotations(len(group), seats)
    for r, deal in enumerate(deals):
        plans.append(GamePlan(len(plans), seed_of(r), tuple(group[b] for b in deal), position))


def build_schedule(fmt: str, bots: int, *, seats: int, seed: int, duplicate: bool, per_pairing: int | None = None,
                   rounds: int | None = None, positions: int = 0) -> Schedule:
    """The schedule of an event (see the module docstring). ``per_pairing`` (games per pairing,
    pairings formats) or ``rounds`` (every format: a pairing's round is one table) says how long;
    ``per_pairing`` is rounded up to whole tables. Raises ``ValueError`` (unknown format, fewer
    than two bots, free-for-all tables bigger than the number of bots or smaller than 2, more than
    :data:`MAX_EVENT_GAMES` games: said before any is made)."""
    tables, per_table = event_size(fmt, bots, seats=seats, per_pairing=per_pairing, rounds=rounds)
    if tables * per_table > MAX_EVENT_GAMES:
        raise ValueError(f"{tables * per_table} games, more than the {MAX_EVENT_GAMES} of the longest tournament")
    if positions and not duplicate:
        raise ValueError("positions are played once per seat rotation: --no-duplicate does not go with them")
    plans: list[GamePlan] = []
    if fmt in ("round-robin", "gauntlet"):
        pairs = list(combinations(range(bots), 2)) if fmt == "round-robin" else [(0, j) for j in range(1, bots)]
        rounds = tables // len(pairs)
        for k in range(rounds):
            for pair in pairs:
                if duplicate:
                    _table_games(pair, seats, lambda r, k=k: seed + k, plans, k % positions if positions else None)
                else:
                    _table_games(pair, seats, lambda r, k=k: seed + k * per_table + r, plans)
        return Schedule(plans, rounds * len(pairs), per_table)
    k_seats = seats
    rng = random.Random(seed)
    played = [0] * bots
    met = [[0] * bots for _ in range(bots)]
    for t in range(tables):
        group = _pick(bots, k_seats, played, met, rng)
        for b in group:
            played[b] += 1
        for a, b in combinations(group, 2):
            met[a][b] += 1
            met[b][a] += 1
        if duplicate:
            _table_games(group, k_seats, lambda r, t=t: seed + t, plans, t % positions if positions else None)
        else:
            _table_games(group, k_seats, lambda r, t=t: seed + t * per_table + r, plans)
    return Schedule(plans, tables, per_table)


def event_size(fmt: str, bots: int, *, seats: int, per_pairing: int | None = None,
               rounds: int | None = None) -> tuple[int, int]:
    """(tables, games per table) of the event :func:`build_schedule` would make, counted without
    making it: its games are the product. Raises ``ValueError`` as :func:`build_schedule` does
    (unknown format, fewer than two bots, free-for-all tables of a wrong size)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
    if bots < 2:
        raise ValueError(f"a tournament needs at least two bots, got {bots}")
    if fmt in ("round-robin", "gauntlet"):
        pairs = bots * (bots - 1) // 2 if fmt == "round-robin" else bots - 1
        per_table = len(rotations(2, seats))
        if rounds is None:
            rounds = -(-(per_pairing or per_table) // per_table)
        return rounds * pairs, per_table
    if not 2 <= seats <= bots:
        raise ValueError(f"free-for-all tables of {seats} seats need between 2 and {bots} seats (the bots)")
    return math.lcm(bots, seats) // seats * (rounds or 1), len(rotations(seats, seats))


def _meet_cost(group: Sequence[int], met: list[list[int]]) -> int:
    return sum((met[a][b] + 1) ** 2 for a, b in combinations(group, 2))


def _pick(bots: int, k: int, played: Sequence[int], met: list[list[int]], rng: random.Random,
          tries: int = 6) -> list[int]:
    """``k`` bots for the next table, among those that played least: of ``tries`` seeded random
    greedy draws (each adding the bot with the fewest games, then the fewest meetings with those
    already chosen), each improved by swapping in a bot outside with as many games while that
    lowers the sum of (meetings + 1)², the cheapest. The group is in the order picked (its seat
    deal)."""
    best: tuple[tuple[int, int], list[int]] | None = None
    for _ in range(tries):
        order = list(range(bots))
        rng.shuffle(order)
        group: list[int] = []
        total = [0] * bots
        while len(group) < k:
            pick = min((b for b in order if b not in group), key=lambda b: (played[b], total[b]))
            group.append(pick)
            row = met[pick]
            for b in range(bots):
                total[b] += row[b]
        _improve(group, bots, played, met)
        cost = (sum(played[b] for b in group), _meet_cost(group, met))
        if best is None or cost < best[0]:
            best = (cost, group)
    assert best is not None
    return best[1]


def _improve(group: list[int], bots: int, played: Sequence[int], met: list[list[int]]) -> None:
    """Swap a bot of the group for one outside that played as often, while that lowers the
    meeting cost (pairs not met yet are taken first)."""
    for _ in range(2 * len(group)):
        best: tuple[int, int, int] | None = None
        for i, a in enumerate(group):
            others = [g for g in group if g != a]
            now = sum(met[a][g] for g in others)
            for b in range(bots):
                if b in group or played[b] != played[a]:
                    continue
                gain = sum(met[b][g] for g in others) - now
                if gain < 0 and (best is None or gain < best[0]):
                    best = (gain, i, b)
        if best is None:
            return
        group[best[1]] = best[2]


def evenness(schedule: Schedule, bots: int) -> dict[str, Any]:
    """How even a schedule is: games per bot (min, max), games per bot and seat (min, max), and
    the number of games each pair of bots shares a table (min, max over all pairs)."""
    games: Counter[int] = Counter()
    seat: Counter[tuple[int, int]] = Counter()
    pairs: Counter[tuple[int, int]] = Counter()
    for p in schedule.plans:
        present = sorted(set(p.seat_bots))
        for b in present:
            games[b] += 1
        for s, b in enumerate(p.seat_bots):
            seat[(b, s)] += 1
        for a, b in combinations(present, 2):
            pairs[(a, b)] += 1
    seats = len(schedule.plans[0].seat_bots) if schedule.plans else 0
    all_pairs = [pairs[(a, b)] for a, b in combinations(range(bots), 2)]
    seat_counts = [seat[(b, s)] for b in range(bots) for s in range(seats) if games[b]]
    per_bot = [games[b] for b in range(bots)]
    return {
        "games_per_bot": [min(per_bot), max(per_bot)],
        "games_per_seat": [min(seat_counts, default=0), max(seat_counts, default=0)],
        "meetings_per_pair": [min(all_pairs, default=0), max(all_pairs, default=0)],
    }
