"""Le Quinze's fast paths give what the plain computations give, at every decision of random
games (2 to 8 seats, one deck or two, with and without the quick placement):

- ``view(seat)``, whose table and discard texts are kept between views (``_table_memo``,
  ``_discard_memo``), equals the view computed from the cards by the plain formula, for every
  seat and a spectator, also after the lists it returned were changed by the caller and after
  the game's cards were changed behind its back (the memos compare the cards themselves);
- ``check`` (a fast return for a listed fifteen, a card held in the ``place`` phase, ``end``
  after a fifteen) accepts and refuses exactly as ``check_action``, with the same codes, for the
  listed actions and for actions that are not legal now;
- ``parse_action`` of an action's data (canonical texts read by a dict, in any order, or in
  another spelling) is the action built by the plain constructor, and its errors are the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quinze_protocol.cards import card_text
from quinze_protocol.game import ActionError, GameError, get_game
from quinze_protocol.games.quinze import VIEW_SORT, QuinzeGame
from quinze_protocol.games.quinze_actions import END, Fifteen, Place, parse_quinze_action
from quinze_protocol.games.quinze_check import check_action
from quinze_protocol.games.quinze_legal import CARD_RANK, ORDER_KEY
from quinze_protocol.rng import Rng


def _plain_view(g: Any, seat: int | None) -> dict[str, Any]:
    """The view by the formula it had before its memos (sorting and naming the cards each time)."""
    def shown(cards: list[int]) -> list[str]:
        return [card_text(c) for c in sorted(cards, key=VIEW_SORT.__getitem__)]

    v: dict[str, Any] = {
        "game": "quinze", "seat": seat, "table": shown(g.table), "discard": [card_text(c) for c in g.discard],
        "stock": len(g.stock), "hand_sizes": [len(h) for h in g.hands], "totals": list(g.totals),
        "dealer": g.dealer, "to_act": g.to_act, "phase": g.phase,
        "turn": {"fifteens": g.fifteens_made, "used_table": g.used_table,
                 "actions": [a.to_data() for a in g.turn_actions]},
        "deal": g.deal_no, "turns": g.turns, "options": dict(g.options),
        "result": g.result().to_data() if g.result() is not None else None,
    }
    if seat is not None:
        v["hand"] = shown(g.hands[seat])
    return v


def _plain_fifteen(hand: list[int], table: list[int]) -> Fifteen:
    """A fifteen built as the constructor built it before (sorted copies, split at the first ace or joker)."""
    h = sorted(hand, key=ORDER_KEY.__getitem__)
    t = sorted(table, key=ORDER_KEY.__getitem__)
    i = next((k for k, c in enumerate(h) if CARD_RANK[c] <= 1), len(h))
    j = next((k for k, c in enumerate(t) if CARD_RANK[c] <= 1), len(t))
    return tuple.__new__(Fifteen, ("fifteen", tuple(h[:i]), tuple(t[:j]), tuple(h[i:]), tuple(t[j:])))


def _verdict(f: Any, *args: Any) -> str | None:
    """None when ``f(*args)`` returns, else the error's type and code."""
    try:
        f(*args)
    except GameError as err:
        return f"{type(err).__name__}:{err.code}"
    return None


def _others(g: Any, rng: Rng) -> list[Any]:
    """Actions that are mostly not legal now: every single placement and face pair of the seat's
    cards and of cards not held, ``end``, and random pairs and triples as fifteens."""
    hand = g.hands[g.seat] if not g.is_over else []
    cards = sorted(set(hand) | {rng.below(54) for _ in range(3)})
    out: list[Any] = [END] + [Place([c]) for c in cards]
    faces = [c for c in cards if CARD_RANK[c] >= 11]
    out += [Place([a, b]) for a in faces for b in faces if a < b]
    pool = hand + g.table
    for _ in range(6):
        if len(pool) >= 2:
            picked = [pool[rng.below(len(pool))] for _ in range(2 + rng.below(2))]
            split = rng.below(len(picked) + 1)
            out.append(Fifteen(picked[:split], picked[split:]))
    return out


def _walk(seed: int, players: int, quick: bool) -> int:
    g = get_game("quinze").new({"players": players, "quick_place": quick, "target": 60}, seed)
    rng = Rng(seed * 7 + players)
    seen = 0
    while not g.is_over:
        seats: list[int | None] = [*range(players), None]
        for s in seats:
            v = g.view(s)
            assert v == _plain_view(g, s)
            if rng.below(4) == 0:  # the caller changes the lists it was given: the game's memos are not those lists
                v["table"].append("XX")
                v["discard"].clear()
        legal = g.legal_actions()
        for a in legal + _others(g, rng):
            assert _verdict(g.check, a) == _verdict(check_action, g, a), a
            data = a.to_data()
            assert parse_quinze_action(data) == a
            if a[0] == "fifteen":
                assert a == _plain_fifteen(list(a.hand), list(a.table))
                shuffled = {"type": "fifteen", "hand": data["hand"][::-1], "table": [t.lower() for t in data["table"]]}
                assert parse_quinze_action(shuffled) == a
        seen += 1
        g.apply(legal[rng.below(len(legal))])
    assert g.view(0) == _plain_view(g, 0)
    return seen


def test_fast_paths_match_the_plain_ones_in_many_games() -> None:
    seen = sum(_walk(seed, players, seed % 2 == 1) for seed in range(12) for players in (2, 3, 5))
    assert seen > 3000


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), players=st.sampled_from([2, 3, 4, 6, 8]), quick=st.booleans())
def test_fast_paths_match_the_plain_ones(seed: int, players: int, quick: bool) -> None:
    _walk(seed, players, quick)


def test_the_view_sees_cards_changed_behind_its_back() -> None:
    g = QuinzeGame.new({"players": 2}, seed=3)
    for _ in range(12):
        legal = g.legal_actions()
        g.apply(legal[0])
    g.view(g.seat)  # the memos are filled
    g.table.append(g.stock.pop())  # the same table list, one more card
    g.discard[:] = list(reversed(g.discard))  # the same length, another order
    g.discard.append(g.stock.pop())
    assert g.view(g.seat) == _plain_view(g, g.seat)
    del g.discard[:]
    g.table[:] = []
    assert g.view(None) == _plain_view(g, None)


_PARSED = [  # what the parser gave before its fast paths (d5ec666): fields, reasons, other spellings
    ({"type": "fifteen", "hand": ["7H", 8]}, ("hand[1]", "a card is written as text such as '7H', not int")),
    ({"type": "fifteen", "hand": ["7H", ["8C"]]}, ("hand[1]", "a card is written as text such as '7H', not list")),
    ({"type": "fifteen", "hand": ["7x"]}, ("hand[0]", "'7x' is not a card (write rank then suit: 7H, 10S, QD, AC, BJ, RJ)")),
    ({"type": "fifteen", "hand": "7H 8C"}, ("hand", "expects a list of cards, got str")),
    ({"type": "fifteen"}, ("hand", 'missing field \'hand\' (a list of cards such as ["7H", "8C"])')),
    ({"type": "fifteen", "hand": ["7H"], "table": 5}, ("table", "expects a list of cards, got int")),
    ({"type": "fifteen", "hand": [None]}, ("hand[0]", "a card is written as text such as '7H', not NoneType")),
    ({"type": "fifteen", "hand": [True, "2H"]}, ("hand[0]", "a card is written as text such as '7H', not bool")),
    ({"type": "place", "cards": []}, ("cards", "place one card or a pair of face cards, got 0 cards")),
    ({"type": "place", "cards": ["KH", "KS", "KD"]}, ("cards", "place one card or a pair of face cards, got 3 cards")),
    ({"type": "bad"}, ("type", "unknown action type 'bad' (fifteen, place or end)")),
    ({"type": 5}, ("type", "unknown action type 5 (fifteen, place or end)")),
    ({"hand": []}, ("type", "missing field 'type' (fifteen, place or end)")),
    ([1], ("type", "an action is a map with a 'type', not list")),
    (None, ("type", "an action is a map with a 'type', not NoneType")),
    ({"type": "place", "cards": [" kh "]}, "Place(['KH'])"),
    ({"type": "end", "hand": 3}, "End()"),
    ({"type": "fifteen", "hand": ("7H", "8h"), "table": ["ah", "BJ", "5S"]}, "Fifteen(hand=['8H', '7H'], table=['5S', 'AH', 'BJ'])"),
]


@pytest.mark.parametrize(("data", "expected"), _PARSED)
def test_parse_errors_and_other_spellings(data: Any, expected: Any) -> None:
    try:
        got: Any = repr(parse_quinze_action(data))
    except ActionError as err:
        got = (err.field, err.reason)
    assert got == expected


def test_an_unhashable_type_is_a_type_error_as_before() -> None:
    with pytest.raises(TypeError):
        parse_quinze_action({"type": ["fifteen"]})
