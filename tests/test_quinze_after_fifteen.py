"""Le Quinze keeps its list of fifteens after one is made by filtering the old list when that is
exact, else by searching again (quinze_legal.after_fifteen): the list it keeps is, at every
decision, exactly (same fifteens, same order) the list a fresh search gives
(QuinzeGame.generate_legal), whatever the seat count (one deck or two), with or without the
quick placement, and also when the fifteen made names other cards of the same ranks than the
listed one (an equivalent action, accepted by the checked apply)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quinze_protocol.game import get_game
from quinze_protocol.games.quinze_actions import Fifteen
from quinze_protocol.games.quinze_legal import CARD_RANK
from quinze_protocol.rng import Rng


def _equivalent(f: Fifteen, hand: list[int], table: list[int], rng: Rng) -> Fifteen:
    """The same fifteen naming, per rank and place, a random choice of cards of that rank."""
    def pick(names: tuple[int, ...], pool: list[int]) -> tuple[int, ...]:
        out: list[int] = []
        for r in dict.fromkeys(CARD_RANK[c] for c in names):
            k = sum(1 for c in names if CARD_RANK[c] == r)
            same = [c for c in pool if CARD_RANK[c] == r]
            for _ in range(k):
                out.append(same.pop(rng.below(len(same))))
        return tuple(out)

    return tuple.__new__(Fifteen, ("fifteen", pick(f[1], hand), pick(f[2], table), pick(f[3], hand), pick(f[4], table)))


def _walk(seed: int, players: int, quick: bool, equivalents: bool) -> int:
    g = get_game("quinze").new({"players": players, "quick_place": quick, "target": 60}, seed)
    rng = Rng(seed * 31 + players)
    checked = 0
    while not g.is_over:
        legal = g.legal_actions()
        assert legal == g.generate_legal()
        if g.phase == "more":
            checked += 1
        a = legal[rng.below(len(legal))]
        if equivalents and a[0] == "fifteen":
            a = _equivalent(a, g.hands[g.seat], g.table, rng)
            g.apply(a)
        else:
            g.apply(a, checked=False)
    return checked


def test_the_list_kept_after_a_fifteen_is_a_fresh_search() -> None:
    seen = 0
    for seed in range(40):
        for players in (2, 3, 4, 5):
            seen += _walk(seed, players, quick=seed % 2 == 1, equivalents=False)
    assert seen > 1000  # many positions after a fifteen were compared


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), players=st.sampled_from([2, 3, 4, 6]), quick=st.booleans())
def test_the_same_after_equivalent_fifteens(seed: int, players: int, quick: bool) -> None:
    _walk(seed, players, quick, equivalents=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 53), max_size=20), st.integers(0, 53))
def test_a_rank_left_in_a_place_is_found_by_its_cards(place: list[int], c: int) -> None:
    """after_fifteen's test "a card of c's rank is left there" (one frozenset per rank, walked in
    C) says what the ranks of the place's cards say, on one deck or two (a card number twice)."""
    from quinze_protocol.games.quinze_legal import _SAME_RANK

    assert (not _SAME_RANK[c].isdisjoint(place)) == (CARD_RANK[c] in [CARD_RANK[d] for d in place])
