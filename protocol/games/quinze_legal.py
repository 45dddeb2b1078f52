"""Le Quinze: card values and the enumeration of fifteens (quinze_cli/rules/quinze.md "Values", "A fifteen").

Pure functions over card numbers (see :mod:`quinze_protocol.cards`); nothing here knows about turns.

Values (quinze_cli/rules/quinze.md "Values when making fifteen"): 2–10 face value, J 11, Q 12, K 13,
joker −1, ace 1 or 14 chosen freely for each ace. With all aces counted as 1 a set sums to
``s``; it is a fifteen exactly when ``15 − s = 13·k`` for some ``0 <= k <= aces`` (``k`` aces
counted as 14), so one set never needs to say which aces are 14.

The enumeration works on counts per rank, never on subsets of cards: cards of one rank in
one place (hand or table) are interchangeable, so a fifteen is a choice, for every rank, of
how many cards come from the hand and how many from the table. Each such choice is listed
once, naming the lowest-numbered cards of each rank (quinze_cli/rules/quinze.md: identical and equal-valued
cards are interchangeable; listing equivalent fifteens once is this project's choice, not a
rule).

Method: a meet in the middle between the *flexible* ranks (jokers −1, aces 1/14), enumerated
first as a small table ``needed positive sum -> choices``, and the *positive* ranks K..2,
enumerated once by a depth-first search over per-rank (hand count, table count) choices that
is pruned exactly by subset-sum bitsets of the remaining ranks (a branch is entered only if
some needed sum is still reachable), then joined. Ranks present once use precomputed options.
The places of a normal game (up to ``quinze_partitions.SMALL`` cards) take a faster way to the
same list, in the same order: the multisets of ranks adding up to each needed sum, listed once
(:mod:`quinze_protocol.games.quinze_partitions`); the depth-first search keeps the large places.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from gc import disable as _gc_disable
from gc import enable as _gc_enable
from gc import isenabled as _gc_enabled
from itertools import repeat
from operator import add
from typing import Any
from quinze_protocol import caches as _caches
from quinze_protocol.games import quinze_partitions as _partitions

__all__ = [
    "CARD_POINTS",
    "CARD_RANK",
    "ORDER_KEY",
    "after_fifteen",
    "fifteens",
    "is_fifteen",
    "fifteen_problem",
    "hand_points",
]

CARD_RANK: tuple[int, ...] = tuple(i % 13 + 1 for i in range(52)) + (0, 0)
"""Rank of each card number: 1 (ace) .. 13 (king), 0 for the jokers."""

CARD_POINTS: tuple[int, ...] = tuple(10 if r in (0, 11, 12, 13) else r for r in CARD_RANK)
"""Points of each card left in hand at the end of a deal (quinze_cli/rules/quinze.md "Scoring"): J Q K and
jokers 10, aces 1, other cards their face value."""

_ORDER = {r: 13 - r for r in range(2, 14)}
_ORDER[1] = 12
_ORDER[0] = 13
ORDER_KEY: tuple[int, ...] = tuple(_ORDER[CARD_RANK[c]] * 64 + c for c in range(54))
"""Sort key of the cards inside one place of a fifteen, the order :func:`fifteens` produces:
ranks K..2 descending, then aces, then jokers; equal ranks by card number."""

_VALUE1: tuple[int, ...] = tuple(-1 if r == 0 else r for r in CARD_RANK)
"""Value of each card with aces counted as 1."""


def hand_points(cards: Iterable[int]) -> int:
    """Points of the cards left in a hand (quinze_cli/rules/quinze.md "Scoring")."""
    return sum(CARD_POINTS[c] for c in cards)


def fifteen_problem(hand_cards: Sequence[int], table_cards: Sequence[int]) -> tuple[str, str] | None:
    """Why these cards are not a fifteen, as ``(code, reason)``; None when they are one.

    Checks only the set itself (quinze_cli/rules/quinze.md "A fifteen"): at least two cards (``too-few-cards``),
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
_GC_PAUSE = 48
"""Searches with (needed sums x positive ranks) at least this are run with the garbage collector paused."""
_QSHIFT: tuple[int, ...] = tuple(r if r >= 2 else 0 for r in CARD_RANK)
"""Value of each card 2..K for the quick test; 0 for aces and jokers (handled apart)."""
_MASK = (1 << 21) - 1  # subset sums 0..20 of positive ranks are enough (15 + at most 4 jokers)
_FLEX_NONE = {15: [(_EMPTY, _EMPTY, 0, 0)]}
_FLEXR = frozenset((0, 1))
_Opt = tuple[int, int, int, tuple[int, ...], tuple[int, ...]]
"""One search option of a rank: (rank, hand count, count, hand cards, table cards)."""
_NOOPT: list[_Opt] = []
_HOPT: list[list[_Opt]] = [[(CARD_RANK[c], 1, 1, (c,), _EMPTY)] for c in range(54)]
"""Search options of a rank held once in hand: take that card."""
_TOPT: list[list[_Opt]] = [[(CARD_RANK[c], 0, 1, _EMPTY, (c,))] for c in range(54)]
"""Search options of a rank present once on the table: take that card."""


_BIT = tuple(1 << r for r in range(14))
_DESC: tuple[tuple[int, ...], ...] = tuple(
    tuple(r for r in range(13, 1, -1) if m >> (r - 2) & 1) for m in range(1 << 12))
"""Positive ranks present, descending, by bitmask of ranks 2..13 (bit r-2)."""
_RANK_CACHE: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[list[Any], tuple[int, ...]]] = {}
"""Search options of one rank by (its hand cards, its table cards): a few thousand keys."""


def _rank_options(r: int, h: tuple[int, ...], t: tuple[int, ...]) -> tuple[list[Any], tuple[int, ...]]:
    """``([(value, hand count, count, hand cards, table cards)] sorted, shifts)``: every non-empty
    choice of how many cards of rank ``r`` to take from hand and table (lowest-numbered first),
    and the sums they add (for the subset-sum bitsets)."""
    o = []
    for kh in range(len(h) + 1):
        for kt in range(len(t) + 1):
            if kh or kt:
                o.append(((kh + kt) * r, kh, kh + kt, h[:kh], t[:kt]))
    o.sort()
    return o, tuple(k * r for k in range(1, len(h) + len(t) + 1))


_FLEX_CACHE: dict[tuple[tuple[int, ...], ...], tuple[dict[int, list[Any]], int, int]] = {}
"""Flexible parts by (hand aces, table aces, hand jokers, table jokers): a few hundred keys."""
_FLEX_BY_CARDS: dict[tuple[tuple[int, ...], int], tuple[dict[int, list[Any]], int, int]] = {}
"""The same by (the aces and jokers held then those on the table, by card number; how many are
held), as :func:`fifteens` collects them."""
_P15 = 1 << 15


def _flex_of(fl: list[int], nfh: int) -> tuple[dict[int, list[Any]], int, int]:
    """The flexible part of the aces and jokers ``fl`` (the first ``nfh`` held, the rest on the
    table; each place by card number): :func:`_flex`, shared through :data:`_FLEX_CACHE`."""
    h, t = fl[:nfh], fl[nfh:]
    key = (tuple(c for c in h if c < 52), tuple(c for c in t if c < 52),
           tuple(c for c in h if c >= 52), tuple(c for c in t if c >= 52))
    cached = _FLEX_CACHE.get(key)
    if cached is None:
        cached = _FLEX_CACHE[key] = _flex(*key)
    return cached


def _flex(ah_: tuple[int, ...], at_: tuple[int, ...], jh_: tuple[int, ...], jt_: tuple[int, ...]
          ) -> tuple[dict[int, list[Any]], int, int]:
    """The flexible part: ``({T: [(hand cards, table cards, hand count, count)]}, need, top)``
    where ``T`` is the positive sum that completes the choice to 15 (each ace 1 or 14, each
    joker -1), ``need`` the bitset of those ``T`` and ``top`` the largest. Keys in increasing
    ``T``: the order of the answers then does not depend on which choices exist, so the list
    left after a fifteen is the old one filtered (see :func:`after_fifteen`)."""
    flex: dict[int, list[Any]] = {}
    for jh in range(len(jh_) + 1):
        for jt in range(len(jt_) + 1):
            for ah in range(len(ah_) + 1):
                for at in range(len(at_) + 1):
                    a = ah + at
                    item = (ah_[:ah] + jh_[:jh], at_[:at] + jt_[:jt], ah + jh, a + jh + jt)
                    t = 15 - a + jh + jt
                    for _ in range(a + 1):
                        if t < 0:
                            break
                        flex.setdefault(t, []).append(item)
                        t -= 13
    need = 0
    for t in flex:
        need |= 1 << t
    return dict(sorted(flex.items())), need, max(flex)


def fifteens(hand: Sequence[int], table: Sequence[int], make: type | None = None) -> list[Any]:
    """Every fifteen the holder of ``hand`` can make with ``table``, once per equivalence class.

    Returns ``[(hand_cards, table_cards)]`` (with ``make``, a tuple subclass such as the
    ``Fifteen`` action, ``[make(("fifteen", hand 2..K, table 2..K, hand A/jokers, table
    A/jokers))]``, built directly without joining the parts): tuples of card numbers in :data:`ORDER_KEY` order,
    the lowest-numbered cards of each rank when ``hand`` and ``table`` are sorted by card number
    (the engine keeps them so). Deterministic. quinze_cli/rules/quinze.md "A fifteen": >= 2 cards, >= 1 from
    the hand, values adding to 15 (aces 1 or 14, jokers -1).

    Method: group by rank; enumerate the flexible part (jokers, aces with each choice of how
    many count 14) as ``needed positive sum -> choices``; then a depth-first search over the
    positive ranks K..2 that is pruned *exactly* by subset-sum bitsets of the remaining ranks
    (``reach[i]``: the sums reachable with ranks i..), so it only walks paths that end in a
    needed sum; the hand-card and two-card conditions are checked when joining.
    """
    # ---- quick exact test: no subset of the cards adds up to 15 (aces 1 or 14, jokers -1),
    # so there is no fifteen; about half the turns of a game start like this. The sums of the
    # positive cards (2..K) are one bitset; aces and jokers are set aside, and their choices
    # (the flexible part, cached) say which positive sums complete a fifteen.
    p = 1  # bit s: some positive cards add up to s
    fl: list[int] = []  # the aces and jokers held, then those on the table
    qs = _QSHIFT
    for c in hand:
        v = qs[c]
        if v:
            p |= p << v
        else:
            fl.append(c)
    nfh = len(fl)
    for c in table:
        v = qs[c]
        if v:
            p |= p << v
        else:
            fl.append(c)
    # ---- flexible part: needed positive sum T -> [(hand cards, table cards, hand count, count)]
    if fl:
        fkey = (tuple(fl), nfh)
        cached = _FLEX_BY_CARDS.get(fkey)
        if cached is None:
            cached = _FLEX_BY_CARDS[fkey] = _flex_of(fl, nfh)
        flex, need, top = cached
        if not p & need:
            return []
    else:
        if not p & _P15:
            return []
        flex = _FLEX_NONE
        need = 1 << 15
        top = 15

    rank = CARD_RANK
    # the cards by rank, lists indexed by rank (None: none of that rank), read by index
    hb: list[list[int] | None] = [None] * 14
    tb: list[list[int] | None] = [None] * 14
    hm = 0  # bit r set when rank r is held
    m = 0  # bit r set when rank r is on the table (then: present)
    m2 = 0  # bit r set when rank r is present twice or more
    for c in hand:
        r = rank[c]
        cur = hb[r]
        if cur is None:
            hb[r] = [c]
            hm |= _BIT[r]
        else:
            cur.append(c)
            m2 |= _BIT[r]
    for c in table:
        r = rank[c]
        cur = tb[r]
        if cur is None:
            tb[r] = [c]
            m |= _BIT[r]
        else:
            cur.append(c)
            m2 |= _BIT[r]
    m2 |= m & hm
    m |= hm

    if len(hand) + len(table) <= _partitions.SMALL:  # a normal place: the partitions (same list)
        return _partitions.search(hb, tb if table else None, (m2 >> 2) << 12 | m >> 2, hm,
                                  None if flex is _FLEX_NONE else flex, make, p)

    # ---- positive ranks, descending, with exact subset-sum pruning
    ranks = _DESC[m >> 2]
    L = len(ranks)
    reach = [1] * (L + 1)
    opts: list[list[_Opt]] = [_NOOPT] * L
    a = 1
    for i in range(L - 1, -1, -1):
        r = ranks[i]
        h = hb[r]
        tc = tb[r]
        # r is present, so h and tc are never both None (no assert in this loop: it is the hot path)
        if tc is None and len(h) == 1:  # type: ignore[arg-type]  # tc None: h is not
            a = (a | (a << r)) & _MASK
            opts[i] = _HOPT[h[0]]  # type: ignore[index]  # tc None: h is not
        elif h is None and len(tc) == 1:  # type: ignore[arg-type]  # h None: tc is not
            a = (a | (a << r)) & _MASK
            opts[i] = _TOPT[tc[0]]  # type: ignore[index]  # h None: tc is not
        else:
            k2 = (tuple(h) if h else _EMPTY, tuple(tc) if tc else _EMPTY)
            got = _RANK_CACHE.get(k2)
            if got is None:
                got = _RANK_CACHE[k2] = _rank_options(r, *k2)
            o, shifts = got
            sa = a
            for sh in shifts:
                sa |= a << sh
            a = sa & _MASK
            opts[i] = o
        reach[i] = a

    out: list[Any] = []
    if not reach[0] & need:
        return out
    if flex is _FLEX_NONE:
        return _search15(L, reach, opts, make)
    sols: dict[int, list[tuple[tuple[int, ...], tuple[int, ...], int, int]]] = {}

    def dfs(i: int, s: int, ht: tuple[int, ...], tt: tuple[int, ...], nh: int, n: int) -> None:
        # invariant: some needed sum is s + a sum reachable with ranks i..
        for j in range(i, L):
            if not (reach[j] << s) & need:
                return
            nxt = reach[j + 1]
            for dv, kh, k, hp, tp in opts[j]:
                s2 = s + dv
                if s2 > top:
                    break
                if (need >> s2) & 1:
                    h2 = ht + hp
                    t2 = tt + tp
                    lst = sols.get(s2)
                    if lst is None:
                        sols[s2] = [(h2, t2, nh + kh, n + k)]
                    else:
                        lst.append((h2, t2, nh + kh, n + k))
                    if (nxt << s2) & need:
                        dfs(j + 1, s2, h2, t2, nh + kh, n + k)
                elif (nxt << s2) & need:
                    dfs(j + 1, s2, ht + hp, tt + tp, nh + kh, n + k)

    # A large search builds thousands of partial answers and actions, each a new object
    # tracked by the cyclic garbage collector, which would then run several times over the
    # whole heap (about a third of the time of the largest lists). None of them can be part of
    # a cycle: the collector is paused meanwhile (state restored after; values unchanged).
    pause = len(flex) * L >= _GC_PAUSE and _gc_enabled()
    if pause:
        _gc_disable()
    try:
        dfs(0, 0, _EMPTY, _EMPTY, 0, 0)
        del dfs  # break the closure's reference to itself: freed at once, no work for the GC
        return _join(flex, sols, make, pause)
    finally:
        if pause:
            _gc_enable()


def _join(flex: dict[int, list[Any]], sols: dict[int, list[Any]], make: type | None, big: bool) -> list[Any]:
    """Join each flexible choice with the partial answers of the positive sum it needs
    (``sols``: sum -> partial answers found by the search of :func:`fifteens`).
    ``big``: build the actions in bulk (:func:`_join_big`, same list)."""
    out: list[Any] = []
    if make is None:
        for t, items in flex.items():
            if t == 0:
                out.extend([(fh, ft) for fh, ft, fnh, fn in items if fnh and fn >= 2])
                continue
            sol = sols.get(t, ())
            for fh, ft, fnh, fn in items:
                if fnh:
                    if fn:
                        out.extend([(ht + fh, tt + ft) for ht, tt, nh, n in sol])
                    else:
                        out.extend([(ht, tt) for ht, tt, nh, n in sol if n >= 2])
                else:
                    out.extend([(ht + fh, tt + ft) for ht, tt, nh, n in sol if nh and n + fn >= 2])
        return out
    if big:
        return _join_big(flex, sols, make)
    new = tuple.__new__
    for t, items in flex.items():
        if t == 0:
            out.extend([new(make, ("fifteen", _EMPTY, _EMPTY, fh, ft)) for fh, ft, fnh, fn in items if fnh and fn >= 2])
            continue
        sol = sols.get(t, ())
        for fh, ft, fnh, fn in items:
            if fnh:
                if fn:
                    out.extend([new(make, ("fifteen", ht, tt, fh, ft)) for ht, tt, nh, n in sol])
                else:
                    out.extend([new(make, ("fifteen", ht, tt, fh, ft)) for ht, tt, nh, n in sol if n >= 2])
            else:
                out.extend([new(make, ("fifteen", ht, tt, fh, ft)) for ht, tt, nh, n in sol if nh and n + fn >= 2])
    return out


def _join_big(flex: dict[int, list[Any]], sols: dict[int, list[Any]], make: type) -> list[Any]:
    """The join of :func:`_join` for large lists: the same actions in the same order, built by
    ``map`` over ``("fifteen", hand 2..K, table 2..K)`` prefixes (filtered once per sum and
    condition) so that no Python code runs per action."""
    out: list[Any] = []
    new = tuple.__new__
    for t, items in flex.items():
        if t == 0:
            out.extend([new(make, ("fifteen", _EMPTY, _EMPTY, fh, ft)) for fh, ft, fnh, fn in items if fnh and fn >= 2])
            continue
        sol = sols.get(t)
        if not sol:
            continue
        pre: dict[int, list[tuple[Any, ...]]] = {}
        for fh, ft, fnh, fn in items:
            # which partial answers complete this choice: 0 all, 1 two cards or more, 2 with a
            # hand card, 3 with a hand card and two cards or more (see the small join)
            cond = (0 if fn else 1) if fnh else (2 if fn else 3)
            p = pre.get(cond)
            if p is None:
                if cond == 0:
                    p = [("fifteen", ht, tt) for ht, tt, nh, n in sol]
                elif cond == 1:
                    p = [("fifteen", ht, tt) for ht, tt, nh, n in sol if n >= 2]
                elif cond == 2:
                    p = [("fifteen", ht, tt) for ht, tt, nh, n in sol if nh]
                else:
                    p = [("fifteen", ht, tt) for ht, tt, nh, n in sol if nh and n >= 2]
                pre[cond] = p
            k = len(p)
            out.extend(map(new, repeat(make, k), map(add, p, repeat((fh, ft), k))))
    return out


def _search15(L: int, reach: list[int], opts: list[list[Any]], make: type | None) -> list[Any]:
    """The search without aces or jokers: positive ranks adding up to exactly 15, with at least
    one hand card (two cards at least follow: no single positive card is worth 15). Same walk
    and order as the general search, building the answers directly."""
    out: list[Any] = []
    add = out.append
    new = tuple.__new__

    def dfs(i: int, t: int, ht: tuple[int, ...], tt: tuple[int, ...], nh: int) -> None:
        # invariant: t > 0 is a sum reachable with ranks i..
        for j in range(i, L):
            if not (reach[j] >> t) & 1:
                return
            nxt = reach[j + 1]
            for dv, kh, _, hp, tp in opts[j]:
                t2 = t - dv
                if t2 < 0:
                    break
                if t2 == 0:
                    if nh or kh:
                        add(new(make, ("fifteen", ht + hp, tt + tp, _EMPTY, _EMPTY)) if make is not None
                            else (ht + hp, tt + tp))
                elif (nxt >> t2) & 1:
                    dfs(j + 1, t2, ht + hp, tt + tp, nh + kh)

    dfs(0, 15, _EMPTY, _EMPTY, 0)
    del dfs  # no reference cycle left behind
    return out

_caches.register_dict("quinze_legal._RANK_CACHE", _RANK_CACHE)
_caches.register_dict("quinze_legal._FLEX_CACHE", _FLEX_CACHE)
_caches.register_dict("quinze_legal._FLEX_BY_CARDS", _FLEX_BY_CARDS)


_SAME_RANK = tuple(frozenset(d for d in range(54) if CARD_RANK[d] == CARD_RANK[c]) for c in range(54))
"""The card numbers of each card's rank (a frozenset's ``isdisjoint`` walks a place in C)."""


def after_fifteen(listed: list[Any], table: Sequence[int], hc: tuple[int, ...], tc: tuple[int, ...],
                  hand: list[int], make: type) -> list[Any]:
    """The fifteens left after one was made (``hc`` from the hand, ``tc`` from the table; ``hand``
    and ``table`` the cards left; ``listed`` the fifteens listed before it, built by ``make``):
    the old list filtered when that is exact, else generated again by :func:`fifteens`.

    Filtering is exact (same list, same order as :func:`fifteens` would give) when no card of
    a removed card's rank remains in the same place, so that no fifteen changes the cards it
    names: the search tree of the new cards is the old one with branches cut, walked in the
    same order, and the ace/joker choices are joined in increasing order of the sum they need
    (checked against a fresh search at every decision by tests/test_quinze_after_fifteen.py).
    """
    same = _SAME_RANK
    for c in hc:
        if not same[c].isdisjoint(hand):  # a card of c's rank is left in hand
            if len(listed) == 1 and not _again(table, hc, tc, [CARD_RANK[d] for d in hand]):
                return []
            return fifteens(hand, table, make)
    if len(listed) == 1:
        # the only fifteen listed was made (or an equivalent one) and no card of its hand
        # ranks is left in hand: it cannot be made again, and a fifteen of fewer cards would
        # have been listed before, so none is left
        return []
    if tc:
        for c in tc:
            if not same[c].isdisjoint(table):  # a card of c's rank is left on the table
                return fifteens(hand, table, make)
        rh = frozenset(hc).isdisjoint
        rt = frozenset(tc).isdisjoint
        return [f for f in listed if rh(f[1]) and rh(f[3]) and rt(f[2]) and rt(f[4])]
    rh = frozenset(hc).isdisjoint
    return [f for f in listed if rh(f[1]) and rh(f[3])]

def _again(table: Sequence[int], hc: tuple[int, ...], tc: tuple[int, ...], hr: list[int]) -> bool:
    """Whether the fifteen just made, the only one listed before (``hc`` from the hand, ranks
    ``hr`` left there; ``tc`` from the table), can be made again with the cards left: as many
    of each of its ranks in each place. Removing cards makes no new fifteen, so when it
    cannot, none is left."""
    rank = CARD_RANK
    used = [rank[c] for c in hc]
    for r in used:
        if hr.count(r) < used.count(r):
            return False
    if tc:
        tr = [rank[d] for d in table]
        used = [rank[c] for c in tc]
        for r in used:
            if tr.count(r) < used.count(r):
                return False
    return True
