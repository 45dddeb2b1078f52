"""The engines play exactly as they did before the speed work of issue 13 §4: a SHA-256 of every
legal list (in its order), every event (public and private), a position every few decisions and
the result of seeded random self-play games, per game id, equals the digest committed here, which
was computed from the tree before that work. Any change of a legal list's order, an event's
fields or a shuffle changes it. The same games without events (``record_events = False``) give
the same legal lists and positions.

Run as a script for more games (the digests of larger runs, to compare two trees by hand)::

    .venv/bin/python tests/test_engine_digests.py 300
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import pytest

from quinze_protocol.game import get_bot, get_game

SEATS = {"quinze": (2, 5), "quatorze": (2, 3), "quinze-classique": (2, 4)}
"""Per game id, the seat counts played (cycled over the games)."""
GAMES = {"quinze": 60, "quatorze": 12, "quinze-classique": 150}
"""Per game id, the number of games the test plays (a fraction of a second each)."""
EVERY = 7
"""A position is hashed every this many decisions."""

DIGESTS = {
    "quinze": "a2643f67e03880169de9494793482ddca5f5d8ab624a983e2089cc0c3fa87142",
    "quatorze": "2630343a6c029973ac6dcca4b964254843289cee9d9b1678282c3ccec55ac76c",
    "quinze-classique": "020b8520afa334f9a80f2ef4d80a6e0635a939350970ba2376a1bd6c135f3283",
}
"""Computed from the tree before the engine speed work (main at 82be037)."""

DIGESTS_600 = {
    "quinze": "f5e6f655ab85d81a209309fb560cb1aa72a4948b979bbbeef69a577b0bb6d1c3",
    "quatorze": "2ebd0da6b5654852ff876f9b6b959dd8cc5425d4127d90a17566760889e430c1",
    "quinze-classique": "bee44a3c13b71c5cd82e5dad24b7955894f99079d5a2e1ac02916765341664f4",
}
"""The same over 600 games per game id (too long for the suite: ``python tests/test_engine_digests.py
600`` compares with these), from the same tree."""


def _dump(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def digest(game_id: str, games: int, record_events: bool = True, hash_events: bool = True) -> str:
    """SHA-256 over ``games`` seeded random self-play games of ``game_id`` (seeds 0..games-1, seat
    counts cycled over :data:`SEATS`): legal lists, events (unless ``record_events`` is False or
    ``hash_events`` is: then the events are not hashed), sampled positions, results."""
    hash_events = hash_events and record_events
    cls = get_game(game_id)
    h = hashlib.sha256()
    seats = SEATS[game_id]
    for i in range(games):
        n = seats[i % len(seats)]
        g = cls.new(cls.validate_options({"players": n}), 1000 + i)
        if not record_events:
            g.record_events = False
        elif hash_events:
            for e in g.opening_events:
                h.update(_dump(e.full()))
        bots = [get_bot(game_id, "random", 7 * i + s) for s in range(n)]
        k = 0
        while not g.is_over:
            seat = g.to_act
            assert seat is not None
            legal = g.legal_actions()
            h.update(_dump([a.to_data() for a in legal]))
            action = bots[seat].choose({}, legal)
            events = g.apply(action, checked=False)
            if hash_events:
                for e in events:
                    h.update(_dump(e.full()))
            k += 1
            if k % EVERY == 0:
                h.update(_dump(g.to_position()))
        result = g.result()
        assert result is not None
        h.update(_dump(result.to_data()))
    return h.hexdigest()


@pytest.mark.parametrize("game_id", sorted(DIGESTS))
def test_seeded_random_games_hash_as_before_the_speed_work(game_id: str) -> None:
    assert digest(game_id, GAMES[game_id]) == DIGESTS[game_id]


@pytest.mark.parametrize("game_id", sorted(DIGESTS))
def test_the_same_games_without_events_list_and_play_the_same(game_id: str) -> None:
    games = max(1, GAMES[game_id] // 3)
    a = digest(game_id, games, record_events=False)
    # the same walk with events recorded but not hashed must give the same digest
    assert digest(game_id, games, hash_events=False) == a


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    for gid in sorted(DIGESTS):
        got = digest(gid, count or GAMES[gid])
        want = DIGESTS_600[gid] if count == 600 else DIGESTS[gid] if not count else None
        print(gid, got, "" if want is None else "same" if got == want else "DIFFERENT")
