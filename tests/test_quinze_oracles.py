"""Le Quinze, its own properties (hypothesis): the fifteen generator against brute force, the cached
legal list exact, illegal fifteens and placements refused. The properties every game shares (same
seed same game, views, positions, copies, results) are in tests/test_game_contract.py."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from quinze_protocol.cards import card_text
from quinze_protocol.game import ActionError, IllegalAction
from quinze_protocol.games.quinze_actions import END, Fifteen, Place
from quinze_protocol.games.quinze_legal import fifteens
from quinze_protocol.rng import Rng
from quinze_helpers import Quinze, brute_fifteens, signature

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
games = st.tuples(st.integers(2, 8), st.booleans(), st.integers(0, 2**32), st.integers(5, 60))


def new(players, quick, seed, target):
    return Quinze.new({"players": players, "quick_place": quick, "target": target}, seed)


def all_cards(g):
    c = Counter(x for h in g.hands for x in h)
    c.update(g.table)
    c.update(g.discard)
    c.update(g.stock)
    return c


def play(g, seed, steps=10_000, each=None):
    rng = Rng(seed)
    actions = []
    for _ in range(steps):
        if g.is_over:
            break
        legal = g.legal_actions()
        assert legal
        if each is not None:
            each(g, legal)
        a = legal[rng.below(len(legal))]
        actions.append(a)
        g.apply(a)
    return actions


@SETTINGS
@given(games)
def test_cards_are_conserved_and_every_game_ends(params):
    players, quick, seed, target = params
    g = new(players, quick, seed, target)
    deck = Counter({c: g.decks for c in range(54)})

    def check(g, legal):
        assert all_cards(g) == deck
        assert all(g.hands)
        assert g.generate_legal() == legal  # the cached list (filtered after a fifteen) is exact

    play(g, seed, each=check)
    assert g.is_over and g.result() is not None
    assert max(g.totals) >= target
    res = g.result()
    assert abs(sum(res.points) - 1) < 1e-9 and list(res.scores) == g.totals


@SETTINGS
@given(games)
def test_views_never_show_another_hand_or_the_stock_order(params):
    players, quick, seed, target = params
    g = new(players, quick, seed, target)
    events = list(g.opening_events)
    rng = Rng(seed)
    for _ in range(120):
        if g.is_over:
            break
        for seat in [None, *range(players)]:
            v = g.view(seat)
            text = json.dumps(v)
            assert isinstance(v["stock"], int)
            if seat is None:
                assert "hand" not in v
            else:
                assert Counter(v["hand"]) == Counter(card_text(c) for c in g.hands[seat])
            assert "hands" not in v
        legal = g.legal_actions()
        events += g.apply(legal[rng.below(len(legal))])
        del text
    for e in events:
        json.dumps(e.full())
        for seat in [None, *range(players)]:
            seen = e.for_seat(seat)
            if e.kind in ("deal", "draw") and seat is not None:
                owner = seat in e.private
                assert ("hand" in seen or "card" in seen) == owner
            if seat is None and e.kind in ("deal", "draw"):
                assert "hand" not in seen and "card" not in seen
            if e.kind == "deal" and seat is not None:
                assert len(seen["hand"]) == e.public["hand_sizes"][seat]


@SETTINGS
@given(games)
def test_every_legal_action_applies_and_illegal_ones_leave_the_state_unchanged(params):
    players, quick, seed, target = params
    g = new(players, quick, seed, target)
    rng = Rng(seed ^ 0x5A5A)
    for _ in range(40):
        if g.is_over:
            break
        legal = g.legal_actions()
        before = g.to_position()
        for a in legal:  # every legal action applies (checked) from this state
            h = Quinze.from_position(before)
            h.apply(a)
        # illegal candidates: random card sets not in the legal list
        hand = g.hands[g.seat]
        for _ in range(5):
            k = 1 + rng.below(3)
            cards = [rng.choice(hand + g.table) for _ in range(k)]
            hc = [c for c in cards if c in hand]
            tc = [c for c in cards if c not in hand]
            for cand in (Fifteen(hc, tc), Place(cards[:1]), Place(cards[:2]), END):
                same = any(cand[0] == a[0] and _equiv(cand, a) for a in legal)
                if same:
                    continue
                try:
                    g.apply(cand)
                except (IllegalAction, ActionError) as err:
                    assert err.code and err.reason
                    assert g.to_position() == before
                else:
                    raise AssertionError(f"{cand!r} applied but is not in {legal!r}")
        g.apply(legal[rng.below(len(legal))])


def _equiv(a, b):
    if a[0] == "fifteen":
        return signature(a.hand, a.table) == signature(b.hand, b.table)
    if a[0] == "place":
        return sorted(c % 13 if c < 52 else 99 for c in a[1]) == sorted(c % 13 if c < 52 else 99 for c in b[1])
    return True


small = st.lists(st.integers(0, 53), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(small, st.lists(st.integers(0, 53), max_size=7))
def test_generator_matches_brute_force(hand, table):
    # Two decks at most (5 to 8 players): no card, joker included, more than twice in play.
    assume(max(Counter(hand + table).values()) <= 2)
    hand, table = sorted(hand), sorted(table)
    got = fifteens(hand, table)
    sigs = [signature(h, t) for h, t in got]
    assert len(sigs) == len(set(sigs))
    assert set(sigs) == brute_fifteens(hand, table)
    for h, t in got:
        assert Counter(h) <= Counter(hand) and Counter(t) <= Counter(table)
