"""Le 14 (``quatorze``): the legal actions of the ``combine`` and ``substitute`` phases counted,
and one of them built, without listing them (``Game.legal_count``, ``legal_action`` and
``legal_pick``: random self-play needs one uniform pick, not the list; issue 13 §4).
Source: quinze_cli/rules/quatorze.md phases 2–4.

The list they stand for is :func:`quinze_protocol.games.quatorze_index.listing`'s, in its order:

1. the combinations of the hand (``combine`` phase only:
   :func:`~quinze_protocol.games.quatorze_legal.canonical_combinations`);
2. hand-for-two: per combination (table order), per pair (pair order), each distinct hand card
   worth the pair's sum (canonical order);
3. two-for-one: per combination (table order), per distinct card (canonical order), each
   distinct pair of hand cards adding up to its value (in the order the hand's pairs are made:
   per distinct card, with itself when held twice, then with each later one);
4. between: per source combination (table order), per pair (pair order), each card of another
   combination worth the pair's sum (table order, then suit);
5. the discard of each distinct hand card (hand order).

**Counting.** Counts per value (0..13) are packed in one int, :data:`~quinze_protocol.games.
quatorze_index.X` bits a value, so that a sum over values of products of two counts is one
multiplication: with ``a`` holding ``a[v]`` at ``X * v`` and ``b`` holding ``b[v]`` at
``X * (13 - v)``, the product holds ``sum(a[v] * b[v])`` at ``X * 13`` (no count or sum of
products reaches ``2 ** X``, so nothing carries between values). A :data:`Tally` of the table
(kept by the engine, moved by each action that changes a combination) holds its pairs per sum
and its cards per value; a :data:`Hand` (made once per hand: the engine keeps it while the hand
is unchanged, as a substitution between combinations leaves it) holds the hand's cards per value
and its pairs per sum. Then hand-for-two = sum over values of (table pairs of that sum) x (hand
cards of that value), two-for-one = sum over values of (hand pairs of that sum) x (table cards
of that value), between = sum over values of (table pairs) x (table cards), less each
combination's own cards. :func:`nth` walks the segments by their counts to the one holding
action ``k`` and builds that action alone: the same value as the list's entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quinze_protocol import caches as _caches
from quinze_protocol.games.quatorze_actions import VALUES, Combine, Substitute
from quinze_protocol.games.quatorze_index import _CARD, _ONE, DISCARDS, X, Info, info
from quinze_protocol.games.quatorze_legal import canonical_combinations

__all__ = ["Hand", "Tally", "combinations_count", "counted", "hand", "moved", "nth", "tally"]

_tnew = tuple.__new__
_M = (1 << X) - 1
_AT13 = 13 * X
_REV = [1 << X * (13 - VALUES[c]) for c in range(54)]
"""``_REV[c]``: 1 at ``X * (13 - value)``: a card counted under its value, reversed (a list: its
``__getitem__`` is a faster call than a tuple's)."""
_REV2 = [1 << X * (26 - 2 * VALUES[c]) for c in range(54)]
"""``_REV2[c]``: 1 at ``X * (26 - 2 * value)``: the card with itself, under the pair's sum."""
_TWICE13 = [1 << X * (13 - 2 * VALUES[c]) if 2 * VALUES[c] <= 13 else 0 for c in range(54)]
"""``_TWICE13[c]``: a card held twice as a pair with itself, at ``X * (13 - sum)`` (none when the
sum is over 13: no table card is worth it)."""
_PAIRS: dict[int, int] = {}
"""The ``pairs`` of a :data:`Hand`'s distinct cards alone, by its ``values`` (which
decides it): the same value counts recur far more often than the same hands. Ints only."""
_PAIRS_MAX = 50_000
_C = 40
"""Bits per sum in :func:`combinations_count`'s polynomial (its counts stay under ``3 ** 25``)."""
_UNDER15 = (1 << _C * 15) - 1
_COUNTS: dict[int, int] = {}
""":func:`combinations_count` by the :data:`Hand`'s ``values`` plus, ``X * 14`` bits up, the same for the
cards held twice (together they decide the count; the same hand shapes recur in every game,
as they do for :data:`_PAIRS`). Ints only; cleared when large."""
_COUNTS_MAX = 50_000
_AT14 = 14 * X
_SHIFT = [_C * VALUES[c] for c in range(54)]
"""``_SHIFT[c]``: the bits of ``x ** value`` in :func:`combinations_count`'s polynomial: a product
by ``1 + x ** value`` is a shift and an add, where a general product of two such ints costs
several times as much."""


Hand = tuple[list[int], list[int], int, int]
"""What counting needs of a hand (canonical order, as a game keeps it), a plain tuple
``(cards, twice, values, pairs)``: its distinct cards (canonical order), those it holds twice,
per value ``v`` at ``X * (13 - v)`` its distinct cards of that value (``values``), and per sum
``s`` up to 13 at ``X * (13 - s)`` its distinct pairs adding up to ``s`` (``pairs``; a card held
twice makes a pair with itself; a larger sum is worth no table card). A plain tuple, read by
index or unpacking, as :data:`~quinze_protocol.games.quatorze_index.Info` is: a named tuple's
field read is a descriptor's call, about twice the cost of a plain tuple's item."""

Tally = tuple[int, int, int, int, int]
"""What counting needs of the table, a plain tuple ``(pairs, cards, cards_rev, own, between)``
(as :data:`Hand`): every combination's pairs per sum ``s`` at ``X * s``, its distinct cards per
value ``v`` at ``X * v`` and the same at ``X * (13 - v)``, the sum of the combinations' own
counts (:data:`~quinze_protocol.games.quatorze_index.Info`), and the number of substitutions
between combinations. Sums over the combinations, so an action moves it by the changed
combinations' counts alone (:func:`moved`). Immutable: copies of a game share it."""


def hand(cards: Sequence[int]) -> Hand:
    """The :data:`Hand` of ``cards`` (canonical order: identical cards side by side)."""
    twice: list[int] = []
    if len(set(cards)) == len(cards):
        distinct = list(cards)
    else:
        distinct = list(dict.fromkeys(cards))
        twice = [a for a, b in zip(cards, cards[1:]) if a == b]  # two decks: a card at most twice
    ones = sum(map(_REV.__getitem__, distinct))
    pairs = _PAIRS.get(ones)
    if pairs is None:
        # every ordered pair, less each card with itself, halved: each pair of distinct cards
        # once, at X * (26 - sum); then only the sums up to 13
        pairs = (ones * ones - sum(map(_REV2.__getitem__, distinct))) >> (X * 13 + 1)
        if len(_PAIRS) >= _PAIRS_MAX:
            _PAIRS.clear()
        _PAIRS[ones] = pairs
    if twice:
        pairs += sum(map(_TWICE13.__getitem__, twice))
    return (distinct, twice, ones, pairs)


def tally(infos: Sequence[Info]) -> Tally:
    """The :data:`Tally` of a table, from its combinations' infos (table order)."""
    pairs = cards = rev = own = 0
    for inf in infos:
        own += inf[5]
        pairs += inf[6]
        cards += inf[7]
        rev += inf[8]
    return (pairs, cards, rev, own, ((pairs * rev >> _AT13) & _M) - own)


def moved(t: Tally, old: Info | None, new: Info, old_j: Info | None = None, new_j: Info | None = None) -> Tally:
    """``t`` after one combination went from ``old`` (None: newly laid) to ``new`` and, with
    ``new_j``, another from ``old_j`` to ``new_j``: a new tally (each count is a sum over the
    combinations, exact in any order)."""
    pairs, cards, rev, own, _ = t
    pairs, cards, rev, own = pairs + new[6], cards + new[7], rev + new[8], own + new[5]
    if old is not None:
        pairs, cards, rev, own = pairs - old[6], cards - old[7], rev - old[8], own - old[5]
    if new_j is not None:
        assert old_j is not None
        pairs += new_j[6] - old_j[6]
        cards += new_j[7] - old_j[7]
        rev += new_j[8] - old_j[8]
        own += new_j[5] - old_j[5]
    return (pairs, cards, rev, own, ((pairs * rev >> _AT13) & _M) - own)


def combinations_count(h: Hand, cards: Sequence[int]) -> int:
    """How many combinations the hand ``cards`` (whose :data:`Hand` is ``h``) can lay,
    ``len(canonical_combinations(cards))``: the coefficient of ``x ** 14`` in the product over
    distinct cards of ``1 + x ** value`` (``+ x ** (2 * value)`` for a card held twice), each
    term a multiset of hand cards adding up to 14. Cached by what decides it, per value the
    distinct cards and those held twice (:data:`_COUNTS`)."""
    distinct, tw, values, _ = h
    if len(distinct) > 25:  # the coefficients could outgrow their bits: list them
        return len(canonical_combinations(cards))
    key = values + (sum(map(_REV.__getitem__, tw)) << _AT14) if tw else values
    n = _COUNTS.get(key)
    if n is None:
        p = 1
        for c in distinct:  # p * (1 + x ** v) (+ x ** (2 * v) for a card held twice), by shifts
            sh = _SHIFT[c]
            q = p << sh
            p = (p + q + (q << sh) if tw and c in tw else p + q) & _UNDER15
        n = p >> _C * 14
        if len(_COUNTS) >= _COUNTS_MAX:
            _COUNTS.clear()
        _COUNTS[key] = n
    return n


def nth(t: Tally, infos: Sequence[Info], h: Hand, cards: Sequence[int], combinations: int,
        counted: tuple[int, int, int, int], k: int) -> Any:
    """Action ``k`` of the list (module docstring), ``0 <= k <`` the total of ``counted``
    (:func:`counted`'s for ``t``, ``h`` and ``combinations``); ``infos``: the table's, in order;
    ``cards``: the hand itself (for the combinations, listed first)."""
    if k < combinations:
        combine: Combine = canonical_combinations(cards)[k]
        return combine
    k -= combinations
    h42, t41, between, _ = counted
    if k < h42:
        ones = h[2]
        for i, inf in enumerate(infos):
            if inf[0]:
                n = (ones * inf[6] >> _AT13) & _M  # its pairs x the hand's cards of their sums
                if k < n:
                    for p, s in inf[0]:
                        m = (ones >> X * (13 - s)) & _M
                        if k < m:
                            for c in h[0]:
                                if VALUES[c] == s:
                                    if not k:
                                        return _tnew(Substitute, ("hand-for-two", i, _ONE[c], p, -1, -1))
                                    k -= 1
                        k -= m
                    break  # counted but not found
                k -= n
        raise AssertionError("a hand-for-two counted but not found")
    k -= h42
    if k < t41:
        pairs = h[3]
        for i, inf in enumerate(infos):
            n = (pairs * inf[7] >> _AT13) & _M  # the hand's pairs x its cards of their sums
            if k < n:
                for c, v in inf[1]:
                    m = (pairs >> X * (13 - v)) & _M
                    if k < m:
                        return _tnew(Substitute, ("two-for-one", i, _hand_pair(h, v, k), (), -1, c))
                    k -= m
                break  # counted but not found
            k -= n
        raise AssertionError("a two-for-one counted but not found")
    k -= t41
    if k < between:
        return _between(t, infos, k)
    return DISCARDS[h[0][k - between]]


def _hand_pair(h: Hand, s: int, k: int) -> tuple[int, int]:
    """Pair ``k`` of the hand's distinct pairs adding up to ``s``, in the listing's order."""
    V = VALUES
    cards, twice, _, _ = h
    for j, a in enumerate(cards):
        va = V[a]
        if va + va == s and a in twice:
            if not k:
                return (a, a)
            k -= 1
        for b in cards[j + 1:]:
            if va + V[b] == s:
                if not k:
                    return (a, b)
                k -= 1
    raise AssertionError("a hand pair counted but not found")


def _between(t: Tally, infos: Sequence[Info], k: int) -> Any:
    """Substitution ``k`` between combinations, in the listing's order: per source (table order),
    per pair, the cards worth its sum in the other combinations (table order, then suit)."""
    _, cards, rev, _, _ = t
    for i, inf in enumerate(infos):
        if inf[0]:
            n = ((inf[6] * rev >> _AT13) & _M) - inf[5]  # its pairs x the table's cards, less its own
            if k < n:
                elsewhere = cards - inf[7]  # per value, the distinct cards of the other combinations
                for pair, s in inf[0]:
                    c = (elsewhere >> X * s) & _M
                    if k < c:
                        sh = 4 * s
                        for j, o in enumerate(infos):
                            if j != i:
                                suits = o[9] >> sh & 15
                                if suits:
                                    b = suits.bit_count()
                                    if k < b:
                                        for _ in range(k):
                                            suits &= suits - 1
                                        return _tnew(Substitute, ("between", i, (), pair, j,
                                                                  _CARD[s][(suits & -suits).bit_length() - 1]))
                                    k -= b
                        raise AssertionError("a card elsewhere counted but not found")
                    k -= c
            k -= n
    raise AssertionError("a substitution between combinations counted but not found")


_caches.register_dict("quatorze_pick._PAIRS", _PAIRS)
_caches.register_dict("quatorze_pick._COUNTS", _COUNTS)


def counted(g: Any) -> tuple[Tally, list[Info], Hand, list[int], int, tuple[int, int, int, int]] | None:
    """For a Le 14 game whose legal list this module counts (``combine`` or ``substitute``,
    substitutions left, no whole hand to lay): the table's tally and infos, the hand's summary
    (kept by the game while the hand is unchanged), the hand, the number of combinations listed
    first, and the counts ``(hand-for-two, two-for-one, between, total)``: how many of each the
    list holds, and the whole list's length with the combinations first and the discards last;
    the game keeps the tally and infos. None for any other position."""
    if g.phase == "draw" or g.phase == "over" or g.no_draw == "whole-hand" \
            or g.substitutions >= g.options["max_substitutions"]:
        return None
    cards = g.hands[g.seat]
    h = g._hand
    if h is None or h[0] is not cards:
        h = g._hand = (cards, hand(cards))
    infos = g._infos
    if infos is None:
        infos = g._infos = [info(tuple(c)) for c in g.table]
    t = g._tally
    if t is None:
        t = g._tally = tally(infos)
    hs = h[1]
    nc = combinations_count(hs, cards) if g.phase == "combine" else 0
    distinct, _, values, pairs = hs
    t_pairs, t_cards, _, _, between = t
    h42 = (values * t_pairs >> _AT13) & _M
    t41 = (pairs * t_cards >> _AT13) & _M
    return t, infos, hs, cards, nc, (h42, t41, between, nc + h42 + t41 + between + len(distinct))
