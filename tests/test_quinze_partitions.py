"""Le Quinze lists the fifteens of a normal place from the partitions of each sum needed
(quinze_protocol.games.quinze_partitions) and those of a large place by the depth-first search of
quinze_legal: both give the same list, in the same order, as actions and as card pairs, on one
deck and on two, with and without aces and jokers, up to the largest place the partitions take."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quinze_protocol.games import quinze_partitions
from quinze_protocol.games.quinze_actions import Fifteen
from quinze_protocol.games.quinze_legal import CARD_RANK, fifteens
from quinze_protocol.rng import Rng


def _both(hand: list[int], table: list[int], make: type | None) -> tuple[list, list]:
    got = fifteens(hand, table, make)
    small = quinze_partitions.SMALL
    quinze_partitions.SMALL = -1  # every place to the depth-first search
    try:
        want = fifteens(hand, table, make)
    finally:
        quinze_partitions.SMALL = small
    return got, want


@st.composite
def places(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    decks = draw(st.sampled_from([1, 2]))
    low = draw(st.booleans())  # mostly aces, jokers and low cards: many fifteens, many splits
    cards = [c for c in range(54) for _ in range(decks) if not low or CARD_RANK[c] <= 6]
    picked = draw(st.permutations(cards))
    size = draw(st.integers(1, quinze_partitions.SMALL))
    nh = draw(st.integers(1, size))
    return sorted(picked[:nh]), sorted(picked[nh:size])


@settings(max_examples=400, deadline=None)
@given(places(), st.sampled_from([Fifteen, None]))
def test_the_partitions_list_what_the_search_lists(place: tuple[list[int], list[int]], make: type | None) -> None:
    hand, table = place
    got, want = _both(hand, table, make)
    assert got == want
    if make is not None:
        assert all(type(a) is Fifteen for a in got)


@pytest.mark.parametrize("decks", [1, 2])
def test_the_same_on_many_dealt_places(decks: int) -> None:
    rng = Rng(decks)
    found = 0
    for _ in range(3000):
        cards = list(range(54)) * decks
        rng.shuffle(cards)
        nh = 1 + rng.below(10)
        nt = rng.below(quinze_partitions.SMALL + 1 - nh)
        hand, table = sorted(cards[:nh]), sorted(cards[nh:nh + nt])
        got, want = _both(hand, table, Fifteen)
        assert got == want
        found += len(got)
    assert found > 3000  # places with fifteens, not only empty lists
