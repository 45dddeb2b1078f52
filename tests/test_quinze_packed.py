"""Le Quinze's encoded view (``QuinzeGame.packed_view``, protocol/games/quinze_packed.py) is the
plain encoding of the view, byte for byte: at every decision of seeded random games of 2 to 8
seats, for every seat and a spectator, after copies, after loading positions, and after the
state was changed from outside in every way its kept encodings could miss (the table, the
discard pile, the totals, the options, a hand changed in place). Its encoded actions
(``QuinzeGame.packed_entry``) are the plain encoding of each action's data and decode as a
frame's map with a text ``type``; its draw and end-turn events (``QuinzeGame.packed_event``) are
each form's plain encoding."""

from __future__ import annotations

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quinze_protocol.framing import unpack_body
from quinze_protocol.game import Event, Result
from quinze_protocol.games.quinze_actions import END, Fifteen, Place
from quinze_protocol.rng import Rng
from quinze_helpers import Quinze


def _plain(g, seat):
    return msgpack.packb(g.view(seat), use_bin_type=True)


def _all_seats_alike(g) -> None:
    for seat in [None, *range(g.n)]:
        assert g.packed_view(seat) == _plain(g, seat), (seat, g.view(seat))


def _play(g, seed: int, each) -> None:
    rng = Rng(seed)
    while True:
        each(g)
        if g.is_over:
            return
        legal = g.legal_actions()
        g.apply(legal[rng.below(len(legal))])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 8), st.booleans(), st.integers(0, 2**32), st.integers(5, 120))
def test_the_packed_view_is_the_plain_encoding_at_every_decision(players: int, quick: bool, seed: int, target: int) -> None:
    g = Quinze.new({"players": players, "quick_place": quick, "target": target}, seed)
    _play(g, seed + 1, _all_seats_alike)


def test_copies_and_loaded_positions_pack_alike() -> None:
    for i in range(12):
        g = Quinze.new({"players": 2 + i % 4, "target": 60}, 400 + i)
        k = [0]

        def each(g):
            k[0] += 1
            _all_seats_alike(g)
            if k[0] % 5 == 0:
                _all_seats_alike(g.copy())
                _all_seats_alike(Quinze.from_position(g.to_position()))
        _play(g, i, each)


def test_changes_from_outside_are_seen() -> None:
    g = Quinze.new({"players": 3, "target": 200}, 7)
    rng = Rng(3)
    for _ in range(60):  # into the game: a table, a discard pile
        legal = g.legal_actions()
        g.apply(legal[rng.below(len(legal))])
    assert g.table and len(g.discard) > 2 and not g.is_over
    _all_seats_alike(g)
    g.table[0] = 53 if g.table[0] != 53 else 52  # the table changed in place, same length
    _all_seats_alike(g)
    g.discard[1:3] = g.discard[2:0:-1]  # the same cards, another order
    _all_seats_alike(g)
    g.discard.append(g.discard.pop(0))  # the pile "grew" from a different start
    _all_seats_alike(g)
    g.discard = []  # emptied
    _all_seats_alike(g)
    g.totals[1] += 300  # in place: beyond a fixint
    _all_seats_alike(g)
    g.totals[2] = -50
    _all_seats_alike(g)
    g.dealer = (g.dealer + 1) % g.n
    _all_seats_alike(g)
    g.options["target"] = 1000  # in place
    _all_seats_alike(g)
    g.hands[0].append(g.hands[0][0])  # a hand changed in place
    _all_seats_alike(g)
    g.turns = 5000  # past the kept entries
    g.deal_no = 2000
    _all_seats_alike(g)
    g._result = Result.from_winners([0], list(g.totals), "target")
    _all_seats_alike(g)
    g.to_act = None
    g.phase = "over"
    _all_seats_alike(g)


def _entry_alike(a) -> None:
    b = Quinze.packed_entry(a)
    assert b == msgpack.packb(a.to_data(), use_bin_type=True), a
    data = unpack_body(b)  # as a frame would be read: a map of text keys
    assert type(data.get("type")) is str and data == a.to_data()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 8), st.booleans(), st.integers(0, 2**32))
def test_the_packed_entries_are_the_plain_encoding(players: int, quick: bool, seed: int) -> None:
    g = Quinze.new({"players": players, "quick_place": quick, "target": 40}, seed)

    def each(g):
        for a in g.legal_actions():
            _entry_alike(a)
            _entry_alike(Quinze.parse_action(a.to_data()))
    _play(g, seed, each)


def test_every_shape_of_action_packs_alike() -> None:
    for c in range(54):
        _entry_alike(Place([c]))
        _entry_alike(Fifteen([c]))  # no fifteen, but an action all the same
        _entry_alike(Fifteen([], [c]))
    _entry_alike(Place([10, 23]))
    _entry_alike(Fifteen([0, 13, 26, 39, 52, 53, 1], [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19]))
    _entry_alike(END)
    assert Quinze.packed_entry(("fifteen", (), (), (), ())) is None  # not one of its actions


def test_the_packed_events_are_the_plain_encoding() -> None:
    """Every draw and end-turn event of random games comes encoded (``QuinzeGame.packed_event``),
    as each seat and a spectator see it, byte for byte; the other kinds are left to the server;
    an event like a draw but not made of the shared parts is not taken for one."""
    kinds: dict[str, int] = {}
    for i in range(16):
        g = Quinze.new({"players": 2 + i % 7, "quick_place": i % 2 == 0, "target": 60}, 700 + i)
        rng = Rng(i)
        events = list(g.opening_events)
        while True:
            for ev in events:
                for seat in [None, *range(g.n)]:
                    b = Quinze.packed_event(ev, seat)
                    if b is not None:
                        assert b == msgpack.packb(ev.for_seat(seat), use_bin_type=True), (ev, seat)
                        kinds[ev.kind] = kinds.get(ev.kind, 0) + 1
                    else:
                        assert ev.kind not in ("draw", "end-turn"), ev
            if g.is_over:
                break
            legal = g.legal_actions()
            events = g.apply(legal[rng.below(len(legal))])
    assert kinds.keys() == {"draw", "end-turn"}
    draw = Event("draw", {"seat": 0, "stock": 5}, {0: {"card": "7H"}})  # equal parts, not the shared ones
    assert Quinze.packed_event(draw, 0) is None and Quinze.packed_event(draw, None) is None
    assert Quinze.packed_event(Event("end-turn", {"seat": 1}), None) is None
