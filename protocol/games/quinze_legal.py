"""Le Quinze: card values and the enumeration of fifteens (RULES.md §1 "Values", "A fifteen").

Pure functions over card numbers (see :mod:`protocol.cards`); nothing here knows about turns.

Values (RULES.md §1 "Values when making fifteen"): 2–10 face value, J 11, Q 12, K 13,
joker −1, ace 1 or 14 chosen freely for each ace. With all aces counted as 1 a set sums to
``s``; it is a fifteen exactly when ``15 − s = 13·k`` for some ``0 <= k <= aces`` (``k`` aces
counted as 14), so one set never needs to say which aces are 14.

The enumeration works on counts per rank, never on subsets of cards: cards of one rank in
one place (hand or table) are interchangeable, so a fifteen is a choice, for every rank, of
how many cards come from the hand and how many from the table. Each such choice is listed
once, naming the lowest-numbered cards of each rank (RULES.md §1: identical and equal-valued
cards are interchangeable; the project lists equivalent fifteens once **[decision]**).

Method: a meet in the middle between the *flexible* ranks (jokers −1, aces 1/14), enumerated
first as a small table ``value -> choices``, and the *positive* ranks 2..K, enumerated by a
depth-first search in ascending rank order that stops as soon as the running sum passes the
largest sum still useful (``15 − smallest flexible value``) and prunes branches whose
remaining ranks cannot reach the smallest useful sum.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "CARD_POINTS",
    "CARD_RANK",
    "ORDER_KEY",
    "fifteens",
    "is_fifteen",
    "fifteen_problem",
    "hand_points",
]

CARD_RANK: tuple[int, ...] = tuple(i % 13 + 1 for i in range(52)) + (0, 0)
"""Rank of each card number: 1 (ace) .. 13 (king), 0 for the jokers."""

CARD_POINTS: tuple[int, ...] = tuple(10 if r in (0, 11, 12, 13) else r for r in CARD_RANK)
"""Points of each card left in hand at the end of a deal (RULES.md §1 "Scoring"): J Q K and
jokers 10, aces 1, other cards their face value."""

_ORDER = {r: r - 2 for r in range(2, 14)}
_ORDER[1] = 12
_ORDER[0] = 13
ORDER_KEY: tuple[int, ...] = tuple(_ORDER[CARD_RANK[c]] * 64 + c for c in range(54))
"""Sort key of the cards inside one place of a fifteen, the order :func:`fifteens` produces:
ranks 2..K ascending, then aces, then jokers; equal ranks by card number."""

_VALUE1: tuple[int, ...] = tuple(-1 if r == 0 else r for r in CARD_RANK)
"""Value of each card with aces counted as 1."""


def hand_points(cards: Iterable[int]) -> int:
    """Points of the cards left in a hand (RULES.md §1 "Scoring")."""
    return sum(CARD_POINTS[c] for c in cards)


def fifteen_problem(hand_cards: Sequence[int], table_cards: Sequence[int]) -> tuple[str, str] | None:
    """Why these cards are not a fifteen, as ``(code, reason)``; None when they are one.

    Checks only the set itself (RULES.md §1 "A fifteen"): at least two cards (``too-few-cards``),
    at least one from the hand (``no-hand-card``), values adding up to 15 with each ace 1 or 14
    (``not-fifteen``). Whether the cards are really held or on the table is the caller's job.
    """
    n = len(hand_cards) + len(table_cards)
    if n < 2:
        return "too-few-cards", "a fifteen needs at least two cards"
    if not hand_cards:
        return "no-hand-card", "a fifteen needs at least one card from your hand (table cards alone are not allowed)"
    s = 0
    aces = 0
    for c in hand_cards:
        s += _VALUE1[c]
        aces += CARD_RANK[c] == 1
    for c in table_cards:
        s += _VALUE1[c]
        aces += CARD_RANK[c] == 1
    rest = 15 - s
    if rest < 0 or rest % 13 or rest // 13 > aces:
        if aces:
            lo, hi = s, s + 13 * aces
            return "not-fifteen", f"these cards add up to {lo}..{hi} (aces 1 or 14), never exactly 15"
        return "not-fifteen", f"these cards add up to {s}, not 15"
    return None


def is_fifteen(hand_cards: Sequence[int], table_cards: Sequence[int]) -> bool:
    """True when ``hand_cards`` + ``table_cards`` make a fifteen (see :func:`fifteen_problem`)."""
    return fifteen_problem(hand_cards, table_cards) is None


_EMPTY: tuple[int, ...] = ()


def _prefixes(bucket: list[int]) -> list[tuple[int, ...]]:
    return [tuple(bucket[:k]) for k in range(len(bucket) + 1)]


def fifteens(hand: Iterable[int], table: Iterable[int]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every fifteen the holder of ``hand`` can make with ``table``, once per equivalence class.

    Returns ``[(hand_cards, table_cards)]``: tuples of card numbers in :data:`ORDER_KEY` order,
    the lowest-numbered cards of each rank. Deterministic: the order depends only on the
    multisets ``hand`` and ``table``. RULES.md §1 "A fifteen": >= 2 cards, >= 1 from the hand.
    """
    hb: list[list[int]] = [[] for _ in range(14)]
    tb: list[list[int]] = [[] for _ in range(14)]
    rank = CARD_RANK
    for c in sorted(hand):
        hb[rank[c]].append(c)
    for c in sorted(table):
        tb[rank[c]].append(c)

    # ---- flexible ranks: jokers (-1) and aces (1 or 14)
    jh_, jt_, ah_, at_ = hb[0], tb[0], hb[1], tb[1]
    if jh_ or jt_ or ah_ or at_:
        flex: dict[int, list[tuple[tuple[int, ...], tuple[int, ...], int, int]]] = {}
        for jh in range(len(jh_) + 1):
            for jt in range(len(jt_) + 1):
                for ah in range(len(ah_) + 1):
                    for at in range(len(at_) + 1):
                        a = ah + at
                        fh = tuple(ah_[:ah]) + tuple(jh_[:jh])
                        ft = tuple(at_[:at]) + tuple(jt_[:jt])
                        item = (fh, ft, ah + jh, a + jh + jt)
                        base = a - jh - jt
                        for k in range(a + 1):
                            f = base + 13 * k
                            if f > 15:
                                break
                            lst = flex.get(f)
                            if lst is None:
                                flex[f] = [item]
                            else:
                                lst.append(item)
    else:
        flex = {0: [(_EMPTY, _EMPTY, 0, 0)]}
    hi = 15 - min(flex)  # largest useful sum of positive ranks
    lo = 15 - max(flex)  # smallest useful sum (may be <= 0)

    # ---- positive ranks 2..13, ascending
    ranks: list[int] = []
    hp: list[list[tuple[int, ...]]] = []
    tp: list[list[tuple[int, ...]]] = []
    for r in range(2, 14):
        if r > hi:
            break
        if hb[r] or tb[r]:
            ranks.append(r)
            hp.append(_prefixes(hb[r]))
            tp.append(_prefixes(tb[r]))
    L = len(ranks)
    suffix = [0] * (L + 1)
    for i in range(L - 1, -1, -1):
        suffix[i] = suffix[i + 1] + ranks[i] * (len(hp[i]) + len(tp[i]) - 2)

    out: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    append = out.append

    def emit(s: int, ht: tuple[int, ...], tt: tuple[int, ...], nh: int, n: int) -> None:
        for fh, ft, fnh, fn in flex.get(15 - s, ()):
            if nh + fnh and n + fn >= 2:
                append((ht + fh, tt + ft))

    def rec(start: int, s: int, ht: tuple[int, ...], tt: tuple[int, ...], nh: int, n: int) -> None:
        if s >= lo:
            emit(s, ht, tt, nh, n)
        for i in range(start, L):
            r = ranks[i]
            s1 = s + r
            if s1 > hi:
                return
            if s + suffix[i] < lo:
                return
            hpi = hp[i]
            tpi = tp[i]
            for kh in range(len(hpi)):
                s2 = s + kh * r
                if s2 > hi:
                    break
                hti = ht + hpi[kh] if kh else ht
                for kt in range(len(tpi)):
                    if kh == 0 and kt == 0:
                        continue
                    s3 = s2 + kt * r
                    if s3 > hi:
                        break
                    rec(i + 1, s3, hti, tt + tpi[kt] if kt else tt, nh + kh, n + kh + kt)

    rec(0, 0, _EMPTY, _EMPTY, 0, 0)
    return out
