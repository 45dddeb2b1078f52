"""Le 14 (``quatorze``): which combinations and substitutions exist, and why one is refused.

Pure functions over a hand (a sequence of card numbers) and the table (a list of combinations,
each a sequence of card numbers). Source: quinze_cli/rules/quatorze.md "Your turn".

Generation works on distinct cards with their counts (two decks: identical cards are the same
number and interchangeable), so identical actions are produced once and no subset of the hand is
ever enumerated twice.

Caches: the results that come back often are cached for the last few inputs only (a turn starts
with the table the previous turn ended with; substitutions change the hand and the table at
every step, so older tables, hands and hand combinations seldom come back). A cache of tens of
thousands of entries kept that many objects alive for the garbage collector to walk again and
again, which cost Le 14 more than the cache saved (``quinze bench``, issue 13 §4).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from quinze_protocol.cards import card_text
from quinze_protocol.game import IllegalAction
from quinze_protocol.games.quatorze_actions import VALUES, Combine, Substitute, card_key, sort_cards, value

__all__ = [
    "FOURTEEN",
    "can_lay_whole_hand",
    "check_combine",
    "check_substitute",
    "combinations",
    "substitutions",
    "whole_hand_combinations",
]

FOURTEEN = 14


def _plus(cs: Sequence[int]) -> str:
    return "+".join(card_text(c) for c in cs)


def _distinct(cs: Sequence[int]) -> list[tuple[int, int]]:
    """(card, count) for each distinct card, in canonical order."""
    cnt: dict[int, int] = {}
    for c in cs:
        cnt[c] = cnt.get(c, 0) + 1
    return sorted(cnt.items(), key=lambda kv: card_key(kv[0]))


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
    list each call (the generation is cached by the hand's sorted cards: actions are immutable
    values)."""
    return list(_combinations(tuple(sorted(hand))))


@lru_cache(maxsize=64)  # the last few hands (module docstring, Caches)
def _combinations(hand: tuple[int, ...]) -> tuple[Combine, ...]:
    d = _distinct(hand)
    out: list[Combine] = []
    chosen: list[int] = []

    def walk(i: int, rest: int) -> None:
        if rest == 0:
            out.append(Combine(tuple(chosen)))
            return
        for j in range(i, len(d)):
            c, n = d[j]
            v = value(c)
            if v > rest:
                break  # d is sorted by value: nothing further fits
            k = 0
            while k < n and (k + 1) * v <= rest:
                k += 1
                chosen.append(c)
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
    counts = [0] * 14
    for c in hand:
        counts[value(c)] += 1
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


@lru_cache(maxsize=16)  # the last few tables (module docstring, Caches)
def _table_index(table: tuple[tuple[int, ...], ...]) -> tuple[Any, Any, tuple[Substitute, ...]]:
    """What substitutions need from the table alone, cached by table contents (the last few): per combination
    its distinct pairs with their sums (only combinations of >= 3 cards), its distinct cards
    with their values, and every substitution between combinations."""
    pairs: list[tuple[tuple[tuple[int, int], int], ...]] = []
    cards: list[tuple[tuple[int, int], ...]] = []
    for comb in table:
        comb_pairs, comb_cards = _comb_index(comb)
        pairs.append(comb_pairs)
        cards.append(comb_cards)
    where: dict[int, list[tuple[int, int]]] = {}  # value -> (combination, card), in table order
    for j, cs in enumerate(cards):
        for c, v in cs:
            where.setdefault(v, []).append((j, c))
    memo = _MEMO
    between = []
    for i, ps in enumerate(pairs):
        for p, s in ps:
            for j, c in where.get(s, ()):
                if j != i:
                    key = ("b", i, p, j, c)
                    a = memo.get(key)
                    if a is None:
                        a = memo[key] = Substitute("between", i, cards=p, other=j, card=c)
                    between.append(a)
    return pairs, cards, tuple(between)


@lru_cache(maxsize=65536)
def _comb_index(comb: tuple[int, ...]) -> tuple[tuple[tuple[tuple[int, int], int], ...], tuple[tuple[int, int], ...]]:
    """One combination's part of :func:`_table_index`: its distinct pairs with their sums (none
    under 3 cards) and its distinct cards with their values."""
    V = VALUES
    pairs = tuple((p, V[p[0]] + V[p[1]]) for p in _pairs(comb)) if len(comb) >= 3 else ()
    return pairs, tuple((c, V[c]) for c, _ in _runs(comb))


def substitutions(hand: Sequence[int], table: Sequence[Sequence[int]]) -> list[Substitute]:
    """Every distinct substitution possible with ``hand`` and ``table`` (quinze_cli/rules/quatorze.md phase 3):
    hand-for-two, then two-for-one, then between, each in table order. The hand and every
    combination must be in canonical order (:func:`sort_cards`), as a game keeps them. Every combination keeps
    adding up to 14 and keeps at least two cards."""
    pairs, cards, between = _table_index(tuple(map(tuple, table)))
    by_value, hand_pairs = _hand_index(tuple(hand))
    out: list[Substitute] = []
    key: tuple[Any, ...]
    memo = _MEMO
    if len(memo) > _MEMO_MAX:
        memo.clear()
    for i, ps in enumerate(pairs):
        for p, s in ps:
            for h in by_value.get(s, ()):
                key = ("h", i, h, p)
                a = memo.get(key)
                if a is None:
                    a = memo[key] = Substitute("hand-for-two", i, hand=(h,), cards=p)
                out.append(a)
    for i, cs in enumerate(cards):
        for c, v in cs:
            for p in hand_pairs.get(v, ()):
                key = ("t", i, p, c)
                a = memo.get(key)
                if a is None:
                    a = memo[key] = Substitute("two-for-one", i, hand=p, card=c)
                out.append(a)
    out.extend(between)
    return out


_MEMO: dict[tuple[Any, ...], Substitute] = {}
"""Substitutions already built, by (combination, hand card(s), table card(s)): actions are
immutable values, so one object serves every list (a frozen dataclass is slow to build)."""
_MEMO_MAX = 200_000


@lru_cache(maxsize=64)  # the last few hands (module docstring, Caches)
def _hand_index(hand: tuple[int, ...]) -> tuple[dict[int, list[int]], dict[int, list[tuple[int, int]]]]:
    """What substitutions need from the hand alone (canonical order), cached by its cards: its
    distinct cards by value, and its distinct pairs by sum. Read only."""
    V = VALUES
    by_value: dict[int, list[int]] = {}
    for c, _ in _runs(hand):
        by_value.setdefault(V[c], []).append(c)
    hand_pairs: dict[int, list[tuple[int, int]]] = {}
    for p in _pairs(hand):
        hand_pairs.setdefault(V[p[0]] + V[p[1]], []).append(p)
    return by_value, hand_pairs


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

    def remove(pool: list[int], cs: Sequence[int]) -> None:
        for c in cs:
            pool.remove(c)

    comb = table[s.combination]
    if s.kind == "hand-for-two":
        remove(hand, s.hand)
        remove(comb, s.cards)
        hand.extend(s.cards)
        comb.extend(s.hand)
    elif s.kind == "two-for-one":
        remove(hand, s.hand)
        remove(comb, (s.card,))
        hand.append(s.card)
        comb.extend(s.hand)
    else:
        other = table[s.other]
        remove(comb, s.cards)
        remove(other, (s.card,))
        comb.append(s.card)
        other.extend(s.cards)
        other[:] = sort_cards(other)
    hand[:] = sort_cards(hand)
    comb[:] = sort_cards(comb)
