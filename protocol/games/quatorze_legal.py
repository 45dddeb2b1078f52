"""Le 14 (``quatorze``): which combinations and substitutions exist, and why one is refused.

Pure functions over a hand (a sequence of card numbers) and the table (a list of combinations,
each a sequence of card numbers). Source: quinze_cli/rules/quatorze.md "Your turn".

Generation works on distinct cards with their counts (two decks: identical cards are the same
number and interchangeable), so identical actions are produced once and no subset of the hand is
ever enumerated twice.

Caches: combinations are cached by the hand's shape (the value and count of each distinct
card), which repeats far more often than the hand itself, as tuples of ints (which the garbage
collector stops walking); the actions are built once and reused. A cache of tens of thousands
of action objects by hand or table kept that many objects alive for the garbage collector to
walk again and again, which cost Le 14 more than it saved (``quinze bench``, issue 13 §4).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from quinze_protocol import caches as _caches
from quinze_protocol.cards import card_text
from quinze_protocol.game import IllegalAction
from quinze_protocol.games.quatorze_actions import (
    ORDER,
    ORDER_KEY,
    VALUE_OF,
    VALUES,
    Combine,
    Discard,
    Draw,
    Substitute,
    make_combine,
    value,
)
from quinze_protocol.games.quatorze_index import TableIndex
from quinze_protocol.games.quatorze_index import substitutions as _substitutions

__all__ = [
    "FOURTEEN",
    "can_lay_whole_hand",
    "check_action",
    "check_combine",
    "check_substitute",
    "canonical_combinations",
    "combinations",
    "substitute",
    "substitutions",
    "whole_hand_combinations",
]

FOURTEEN = 14
_order = ORDER_KEY


def _plus(cs: Sequence[int]) -> str:
    return "+".join(card_text(c) for c in cs)


def _distinct(cs: Sequence[int]) -> list[tuple[int, int]]:
    """(card, count) for each distinct card, in canonical order."""
    cnt: dict[int, int] = {}
    for c in cs:
        cnt[c] = cnt.get(c, 0) + 1
    order = ORDER
    return sorted(cnt.items(), key=lambda kv: order[kv[0]])


def _runs(cs: Sequence[int]) -> list[tuple[int, int]]:
    """:func:`_distinct` for cards already in canonical order (hands and combinations of a game)."""
    out: list[tuple[int, int]] = []
    last, n = -1, 0
    for c in cs:
        if c == last:
            n += 1
        else:
            if n:
                out.append((last, n))
            last, n = c, 1
    if n:
        out.append((last, n))
    return out


def _pairs(cs: Sequence[int]) -> list[tuple[int, int]]:
    """Every distinct pair (as a multiset) of two of ``cs`` (in canonical order), each sorted canonically."""
    d = _runs(cs)
    out = []
    for i, (a, na) in enumerate(d):
        if na >= 2:
            out.append((a, a))
        for b, _ in d[i + 1 :]:
            out.append((a, b))
    return out


def combinations(hand: Sequence[int]) -> list[Combine]:
    """Every distinct combination that can be laid from ``hand``: a multiset of at least two hand
    cards adding up to exactly 14 (quinze_cli/rules/quatorze.md phase 2). Canonical order. A new
    list each call (actions are immutable values, built once)."""
    return _combinations(_distinct(hand))


def canonical_combinations(hand: Sequence[int]) -> list[Combine]:
    """:func:`combinations` of a hand already in canonical order (:func:`sort_cards`), as a game keeps it."""
    return _combinations(_runs(hand))


_SHAPES: dict[tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...]] = {}
"""The combinations of a hand depend only on its shape, the (value, count) of each distinct card
in canonical order: by shape, each combination as the places of its cards among the distinct
cards (repeated for a card taken twice). Tuples of ints only, which the garbage collector stops
walking. Cleared when large."""
_COMBINES: dict[tuple[int, ...], Combine] = {}
"""Combinations already built, by their cards. Cleared when large."""
_CACHE_MAX = 50_000


def _combinations(d: list[tuple[int, int]]) -> list[Combine]:
    V = VALUES
    shape = tuple([(V[c], n) for c, n in d])
    places = _SHAPES.get(shape)
    if places is None:
        if len(_SHAPES) > _CACHE_MAX:
            _SHAPES.clear()
        places = _SHAPES[shape] = shape_combinations(shape)
    if not places:
        return []
    cards = [c for c, _ in d]
    at = cards.__getitem__
    made = _COMBINES
    if len(made) > _CACHE_MAX:
        made.clear()
    out = []
    for p in places:
        cs = tuple(map(at, p))
        a = made.get(cs)
        if a is None:
            a = made[cs] = make_combine(cs)
        out.append(a)
    return out


def shape_combinations(shape: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
    """Depth-first over the distinct cards in canonical order, each taken 0..count times, the
    combinations in the order they are completed (the order of :func:`combinations`)."""
    out: list[tuple[int, ...]] = []
    chosen: list[int] = []

    def walk(i: int, rest: int) -> None:
        if rest == 0:
            out.append(tuple(chosen))
            return
        for j in range(i, len(shape)):
            v, n = shape[j]
            if v > rest:
                break  # sorted by value: nothing further fits
            k = 0
            while k < n and (k + 1) * v <= rest:
                k += 1
                chosen.append(j)
                walk(j + 1, rest - k * v)
            del chosen[len(chosen) - k :]

    walk(0, FOURTEEN)
    return tuple(out)


@lru_cache(maxsize=65536)
def _partitions(counts: tuple[int, ...]) -> bool:
    """True if the multiset of values (``counts[v]`` cards of value ``v``, v = 1..13) splits into
    groups each adding up to 14."""
    total = sum(v * n for v, n in enumerate(counts))
    if total == 0:
        return True
    if total % FOURTEEN:
        return False
    top = max(v for v, n in enumerate(counts) if n)
    work = list(counts)
    work[top] -= 1
    # choose the rest of top's group among values <= top (any group containing top can be written so)
    found = False

    def walk(v: int, rest: int) -> None:
        nonlocal found
        if found:
            return
        if rest == 0:
            found = _partitions(tuple(work))
            return
        for u in range(min(v, rest), 0, -1):
            if work[u]:
                work[u] -= 1
                walk(u, rest - u)
                work[u] += 1
                if found:
                    return

    walk(top, FOURTEEN - top)
    return found


def can_lay_whole_hand(hand: Sequence[int]) -> bool:
    """True if every card of ``hand`` can be laid as combinations (possibly several), which forbids
    drawing (quinze_cli/rules/quatorze.md phase 1, [decision]: "all your cards" may be several combinations).
    An empty hand gives False (there is nothing to lay)."""
    if not hand:
        return False
    V = VALUES
    if sum(map(VALUE_OF, hand)) % FOURTEEN:  # each combination adds up to 14, so must the hand
        return False
    counts = [0] * 14
    for c in hand:
        counts[V[c]] += 1
    return _partitions(tuple(counts))


def whole_hand_combinations(hand: Sequence[int]) -> list[Combine]:
    """The combinations a player who must lay the whole hand may lay next: those of
    :func:`combinations` after which the rest of the hand is empty or can still be laid whole
    (quinze_cli/rules/quatorze.md phase 1 [decision]: such a player must not draw and must lay the whole hand)."""
    out = []
    for comb in combinations(hand):
        rest = list(hand)
        for c in comb.cards:
            rest.remove(c)
        if not rest or can_lay_whole_hand(rest):
            out.append(comb)
    return out


def substitutions(hand: Sequence[int], table: Sequence[Sequence[int]]) -> list[Substitute]:
    """Every distinct substitution possible with ``hand`` and ``table`` (quinze_cli/rules/quatorze.md phase 3):
    hand-for-two, then two-for-one, then between, each in table order. The hand and every
    combination must be in canonical order (:func:`sort_cards`), as a game keeps them. Every combination keeps
    adding up to 14 and keeps at least two cards. (A game keeps the table's index between
    decisions: :mod:`quinze_protocol.games.quatorze_index`.)"""
    return _substitutions(TableIndex(table), hand)


# --------------------------------------------------------------------------- checks


def _holds(pool: Sequence[int], cs: Sequence[int]) -> bool:
    have = Counter(pool)
    have.subtract(Counter(cs))
    return all(n >= 0 for n in have.values())


def check_combine(hand: Sequence[int], action: Combine) -> None:
    """Raise :class:`IllegalAction` unless ``action`` can be laid from ``hand`` (quinze_cli/rules/quatorze.md phase 2).

    Codes: ``card-not-held``, ``not-fourteen``.
    """
    if not _holds(hand, action.cards):
        raise IllegalAction(f"your hand does not hold {_plus(action.cards)}", code="card-not-held")
    total = sum(value(c) for c in action.cards)
    if total != FOURTEEN:
        raise IllegalAction(f"{_plus(action.cards)} add up to {total}, not 14", code="not-fourteen")


def _combination(table: Sequence[Sequence[int]], index: int, name: str) -> Sequence[int]:
    if index >= len(table):
        raise IllegalAction(
            f"there is no combination {index} on the table ({len(table)} combination(s), numbered from 0)",
            code="no-such-combination",
        )
    return table[index]


def _at_least_three(comb: Sequence[int], index: int) -> None:
    if len(comb) < 3:
        raise IllegalAction(
            f"combination {index} has only {len(comb)} cards: taking two of them would leave fewer than two",
            code="combination-too-small",
        )


def check_substitute(hand: Sequence[int], table: Sequence[Sequence[int]], s: Substitute) -> None:
    """Raise :class:`IllegalAction` unless substitution ``s`` is allowed (quinze_cli/rules/quatorze.md phase 3).

    Codes: ``no-such-combination``, ``same-combination``, ``combination-too-small``,
    ``card-not-held``, ``card-not-in-combination``, ``not-fourteen`` (a combination would no
    longer add up to 14: the values on both sides differ).
    """
    comb = _combination(table, s.combination, "combination")
    if s.kind == "hand-for-two":
        _at_least_three(comb, s.combination)
        if not _holds(hand, s.hand):
            raise IllegalAction(f"your hand does not hold {_plus(s.hand)}", code="card-not-held")
        if not _holds(comb, s.cards):
            raise IllegalAction(f"combination {s.combination} does not hold {_plus(s.cards)}", code="card-not-in-combination")
        give, take = value(s.hand[0]), value(s.cards[0]) + value(s.cards[1])
        if give != take:
            raise IllegalAction(
                f"{_plus(s.hand)} is worth {give} but {_plus(s.cards)} add up to {take}: "
                f"combination {s.combination} would add up to {FOURTEEN - take + give}, not 14",
                code="not-fourteen",
            )
    elif s.kind == "two-for-one":
        if not _holds(hand, s.hand):
            raise IllegalAction(f"your hand does not hold {_plus(s.hand)}", code="card-not-held")
        if s.card not in comb:
            raise IllegalAction(f"combination {s.combination} does not hold {card_text(s.card)}", code="card-not-in-combination")
        give, take = value(s.hand[0]) + value(s.hand[1]), value(s.card)
        if give != take:
            raise IllegalAction(
                f"{_plus(s.hand)} add up to {give} but {card_text(s.card)} is worth {take}: "
                f"combination {s.combination} would add up to {FOURTEEN - take + give}, not 14",
                code="not-fourteen",
            )
    else:
        other = _combination(table, s.other, "other")
        if s.other == s.combination:
            raise IllegalAction("a substitution between combinations needs two different combinations", code="same-combination")
        _at_least_three(comb, s.combination)
        if not _holds(comb, s.cards):
            raise IllegalAction(f"combination {s.combination} does not hold {_plus(s.cards)}", code="card-not-in-combination")
        if s.card not in other:
            raise IllegalAction(f"combination {s.other} does not hold {card_text(s.card)}", code="card-not-in-combination")
        pair, one = value(s.cards[0]) + value(s.cards[1]), value(s.card)
        if pair != one:
            raise IllegalAction(
                f"{_plus(s.cards)} add up to {pair} but {card_text(s.card)} is worth {one}: "
                f"combination {s.combination} would add up to {FOURTEEN - pair + one}, not 14",
                code="not-fourteen",
            )


def apply_substitute(hand: list[int], table: list[list[int]], s: Substitute) -> None:
    """Carry out a checked substitution in place (hand and combinations stay canonically sorted)."""
    substitute(hand, table, *s)


def substitute(hand: list[int], table: list[list[int]], kind: str, combination: int, held: tuple[int, ...],
               cards: tuple[int, ...], other: int, card: int) -> None:
    """:func:`apply_substitute` with the substitution's six fields given one by one, in the
    order of :class:`~quinze_protocol.games.quatorze_actions.Substitute` (``held`` is its
    ``hand``): the engine unpacks the action once (a named tuple's field read is a
    descriptor's call, about twice the cost of an item of the unpacking)."""
    order = _order
    comb = table[combination]
    if kind == "hand-for-two":
        hand.remove(held[0])
        for c in cards:
            comb.remove(c)
        hand.extend(cards)
        comb.extend(held)
        hand.sort(key=order)
    elif kind == "two-for-one":
        for c in held:
            hand.remove(c)
        comb.remove(card)
        hand.append(card)
        comb.extend(held)
        hand.sort(key=order)
    else:
        o = table[other]
        for c in cards:
            comb.remove(c)
        o.remove(card)
        comb.append(card)
        o.extend(cards)
        o.sort(key=order)
    comb.sort(key=order)


# --------------------------------------------------------------------------- the refusals of a game


def check_action(game: Any, a: Any) -> None:
    """Raise :class:`IllegalAction` (stable code, reason in words) unless ``a`` is legal now in the
    Le 14 game ``game`` (:meth:`quinze_protocol.games.quatorze.QuatorzeGame.check`, whose codes
    its ``_play`` lists): the phase model of quinze_cli/rules/quatorze.md "Your turn"."""
    if game.phase == "over":
        raise IllegalAction("the game is over", code="game-over")
    seat = game.seat
    assert seat is not None, "somebody acts until the game is over"
    hand = game.hands[seat]
    if isinstance(a, Draw):
        if game.phase != "draw":
            if game.no_draw == "whole-hand":
                raise IllegalAction(
                    "your whole hand can be laid as combinations, so you must not draw (quinze_cli/rules/quatorze.md phase 1)",
                    code="must-not-draw",
                )
            if game.no_draw == "nothing-to-draw":
                raise IllegalAction("the stock and the discard pile are both empty", code="nothing-to-draw")
            raise IllegalAction("you have already drawn this turn", code="wrong-phase")
        if a.from_ == "stock" and not game.stock and len(game.discard) < 2:
            raise IllegalAction("the stock is empty and the discard pile cannot refill it", code="empty-stock")
        if a.from_ == "discard" and not game.discard:
            raise IllegalAction("the discard pile is empty", code="empty-discard")
        return
    if game.phase == "draw":
        raise IllegalAction("draw first, from the stock or the discard pile", code="must-draw")
    if game.no_draw == "whole-hand":
        if not isinstance(a, Combine):
            raise IllegalAction(
                "your whole hand can be laid as combinations, so you must lay it: only combinations this turn",
                code="must-lay-whole-hand",
            )
        check_combine(hand, a)
        rest = list(hand)
        for c in a.cards:
            rest.remove(c)
        if rest and not can_lay_whole_hand(rest):
            raise IllegalAction(
                "this combination leaves cards that cannot all be laid; lay the whole hand", code="must-lay-whole-hand"
            )
        return
    if isinstance(a, Combine):
        if game.phase != "combine":
            raise IllegalAction(
                "combinations are laid before substitutions; after a substitution only substitutions or the discard remain",
                code="wrong-phase",
            )
        check_combine(hand, a)
    elif isinstance(a, Substitute):
        if game.substitutions >= game.options["max_substitutions"]:
            raise IllegalAction(
                f"no more substitutions this turn (max_substitutions = {game.options['max_substitutions']}); discard",
                code="too-many-substitutions",
            )
        check_substitute(hand, game.table, a)
    elif isinstance(a, Discard):
        if a.card not in hand:
            raise IllegalAction(f"your hand does not hold {card_text(a.card)}", code="card-not-held")
    else:
        raise IllegalAction(f"{type(a).__name__} is not a Le 14 action", code="unknown-action")


_caches.register_dict("quatorze_legal._SHAPES", _SHAPES)
_caches.register_dict("quatorze_legal._COMBINES", _COMBINES)
_caches.register_lru("quatorze_legal._partitions", _partitions)
