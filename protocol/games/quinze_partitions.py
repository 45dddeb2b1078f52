"""Le Quinze: the fifteens of a small hand and table, listed from the partitions of each sum needed.

:func:`quinze_protocol.games.quinze_legal.fifteens` calls :func:`search` on the places of a normal
game (up to :data:`SMALL` cards in hand and on the table); it gives exactly the list, in the same
order, that the depth-first search of ``quinze_legal`` gives (tests/test_quinze_partitions.py
compares them), at a fraction of the cost on those places.

The idea: the positive part (ranks 2..K) of a fifteen is a multiset of ranks adding up to a sum
``T``: 15 without aces or jokers, else the sum that a choice of aces (1 or 14) and jokers (-1)
leaves (``quinze_legal._flex``). The multisets of ranks 2..13 adding up to a given ``T`` are few
(40 for 15, 98 for 19) and are listed once (:func:`_partitions`). A place's candidates are
those whose ranks are all present, and present at least twice where a rank is taken twice or
more. Per sum, each candidate is one bit, and four lookups by the absent ranks and by the ranks
present less than twice (2..7 and 8..13, 6 bits each) give the bits of the candidates these cards rule
out (:func:`_tables`): a search walks only multisets that the cards can make, nearly always one
to four, with no cache that grows with the places seen. Each candidate is then split between
hand and table in every way the counts allow, naming the lowest-numbered cards of each rank in
each place (as the depth-first search does).

Order: the depth-first search lists a fifteen's positive part by its sequence of choices over
the ranks, K first, each choice a (count, hand count) pair in increasing order, and two positive
parts of one sum are never prefixes of each other. So the list is sorted by that sequence: each
rank taken is a 12-bit code ``(13 - rank, count, hand count)`` and the codes of a candidate fill
fixed slots of one integer key, highest rank first. With aces or jokers, the answers go by
increasing ``T``, then by the flexible choice in ``_flex``'s order, then by that key, as in
``quinze_legal._join``.
"""

from __future__ import annotations

from typing import Any

from quinze_protocol import caches as _caches

__all__ = ["SMALL", "search"]

SMALL = 16
"""Places with more cards than this in hand and on the table together go to the depth-first
search, which is the faster one on large places (two decks, many low cards)."""

_EMPTY: tuple[int, ...] = ()
_SLOTS = 7
"""Key slots of 12 bits: a multiset of distinct ranks 2.. adding up to at most 34 has at most 6
ranks (2 + 3 + ... + 7 = 27), and a small place's ``T`` is at most 15 + 16 jokers."""
_ONE: tuple[tuple[int, ...], ...] = tuple((c,) for c in range(54))

Candidate = tuple[tuple[tuple[int, int, int, int], ...], tuple[tuple[int, int], ...], int, int, int]
"""One multiset of ranks: ((rank, count, key code at its slot, one hand card at its slot) for
each rank, highest first; (rank, count) of the ranks taken three times or more, whose counts
the lookup key does not check; total count; bit ``1 << rank`` of each rank; the key when every
card comes from the hand)."""


def _partitions(total: int) -> list[tuple[tuple[int, int], ...]]:
    """Every multiset of ranks 2..13 adding up to ``total``, as ((rank, count), ...), highest rank first."""
    out: list[tuple[tuple[int, int], ...]] = []
    # Depth first, children in order (an explicit stack: a recursive closure would hold itself,
    # a cycle left for the collector at every call).
    stack: list[tuple[int, int, tuple[tuple[int, int], ...]]] = [(total, 13, ())]
    while stack:
        rest, top, acc = stack.pop()
        if rest == 0:
            out.append(acc)
            continue
        children = [(rest - r * k, r - 1, acc + ((r, k),)) for r in range(min(top, rest), 1, -1) for k in range(1, rest // r + 1)]
        stack.extend(reversed(children))
    return out


def _candidate(parts: tuple[tuple[int, int], ...]) -> Candidate:
    ranks = []
    for i, (r, k) in enumerate(parts):
        sh = 12 * (_SLOTS - 1 - i)
        ranks.append((r, k, (((13 - r) << 8) | (k << 4)) << sh, 1 << sh))
    return (tuple(ranks), tuple((r, k) for r, k in parts if k >= 3), sum(k for _, k in parts),
            sum(1 << r for r, _ in parts), sum(code + k * unit for _, k, code, unit in ranks))


_Tables = tuple[list[Candidate], int, list[int], list[int], list[int], list[int]]
_TABLES: dict[int, _Tables] = {}
"""By sum T: (its candidates; a bit per candidate; by the absent ranks 2..7 and 8..13 (6 bits
each), the candidates that need one of them; by the ranks 2..7 and 8..13 present less than
twice, the candidates that take one of them twice or more)."""
_caches.register_dict("quinze_partitions._TABLES", _TABLES)  # filled while tables play: emptied when none is open


def _tables(t: int) -> _Tables:
    cands = [_candidate(p) for p in _partitions(t)]
    uses = [0] * 14
    twice = [0] * 14
    for i, (ranks, _, _, _, _) in enumerate(cands):
        for r, k, _, _ in ranks:
            uses[r] |= 1 << i
            if k >= 2:
                twice[r] |= 1 << i

    def by_half(per_rank: list[int], first: int) -> list[int]:
        out = []
        for m in range(64):
            u = 0
            for b in range(6):
                if m >> b & 1:
                    u |= per_rank[first + b]
            out.append(u)
        return out

    got = _TABLES[t] = (cands, (1 << len(cands)) - 1, by_half(uses, 2), by_half(uses, 8),
                        by_half(twice, 2), by_half(twice, 8))
    return got


ByRank = list["list[int] | None"]
"""A place's cards by rank: index ``rank`` (0 jokers .. 13), the cards of that rank by card
number, or None when it has none."""


def _positive(t: int, masks: int, hb: ByRank, tb: ByRank | None, hand_ranks: int
              ) -> list[tuple[int, tuple[int, ...], tuple[int, ...], int, int]]:
    """The positive parts adding up to ``t``: ``[(key, hand cards, table cards, hand count,
    count)]`` sorted by key (``hb``, ``tb``: as for :func:`search`). ``hand_ranks``: bits of the
    ranks held; a candidate with none of them is skipped (-1: keep all)."""
    tables = _TABLES.get(t)
    if tables is None:
        tables = _tables(t)
    cands, full, lo1, hi1, lo2, hi2 = tables
    absent = ~masks
    once = absent >> 12
    bits = full & ~(lo1[absent & 63] | hi1[(absent >> 6) & 63] | lo2[once & 63] | hi2[(once >> 6) & 63])
    res = []
    if tb is None:  # every card from the hand (a deal's first turn): one split, its key known
        while bits:
            low = bits & -bits
            bits ^= low
            ranks, big, n, _, hkey = cands[low.bit_length() - 1]
            if big:
                enough = True
                for r, k in big:
                    if len(hb[r]) < k:  # type: ignore[arg-type]  # r is held
                        enough = False
                        break
                if not enough:
                    continue
            ht = _EMPTY
            for r, k, _, _ in ranks:
                h = hb[r]  # held: not None
                ht += _ONE[h[0]] if k == 1 else tuple(h[:k])  # type: ignore[index]
            res.append((hkey, ht, _EMPTY, n, n))
        if len(res) > 1:
            res.sort()
        return res
    while bits:
        low = bits & -bits
        bits ^= low
        ranks, big, n, rbits, _ = cands[low.bit_length() - 1]
        if not rbits & hand_ranks:
            continue
        if big:  # a rank taken three times or more: are there enough?
            enough = True
            for r, k in big:
                if len(hb[r] or _EMPTY) + len(tb[r] or _EMPTY) < k:
                    enough = False
                    break
            if not enough:
                continue
        key = 0
        ht = tt = _EMPTY
        nh = 0
        alts = None
        for r, k, code, unit in ranks:
            h = hb[r]
            tc = tb[r]
            if tc is None:  # held only: h is not None (the rank is present)
                ht += _ONE[h[0]] if k == 1 else tuple(h[:k])  # type: ignore[index]
                key += code + k * unit
                nh += k
            elif h is None:
                tt += _ONE[tc[0]] if k == 1 else tuple(tc[:k])
                key += code
            else:  # in both places: every split the counts allow, fewest hand cards first
                lo = k - len(tc) if k > len(tc) else 0
                hi = k if k < len(h) else len(h)
                if lo == hi:
                    ht += tuple(h[:lo])
                    tt += tuple(tc[:k - lo])
                    key += code + lo * unit
                    nh += lo
                else:
                    if alts is None:
                        alts = []
                    alts.append((len(ht), len(tt), [(code + kh * unit, kh, tuple(h[:kh]), tuple(tc[:k - kh]))
                                                    for kh in range(lo, hi + 1)]))
        if alts is None:
            res.append((key, ht, tt, nh, n))
            continue
        # each split's cards go in at their place (ranks descending) of the cards fixed so far
        combos = [(key, ht, tt, nh, 0, 0)]
        for at_h, at_t, opts in alts:
            nxt = []
            for k0, h0, t0, n0, dh, dt in combos:
                a = at_h + dh
                b = at_t + dt
                for k1, kh, hp, tp in opts:
                    nxt.append((k0 + k1, h0[:a] + hp + h0[a:], t0[:b] + tp + t0[b:], n0 + kh, dh + len(hp), dt + len(tp)))
            combos = nxt
        for k0, h0, t0, n0, _, _ in combos:
            res.append((k0, h0, t0, n0, n))
    if len(res) > 1:
        res.sort()
    return res


def search(hb: ByRank, tb: ByRank | None, masks: int, hand_ranks: int,
           flex: dict[int, list[Any]] | None, make: type | None, sums: int = -1) -> list[Any]:
    """The fifteens, as :func:`quinze_protocol.games.quinze_legal.fifteens` lists them, of the
    places grouped by rank (``hb``, ``tb``: :data:`ByRank`, ``tb`` None for an empty table;
    ``masks``: ranks present twice << 12 | ranks present, bits rank - 2; ``hand_ranks``: bits
    ``1 << rank`` of the ranks held), without aces and jokers (``flex`` None) or with their
    choices (``quinze_legal._flex``). ``sums``: bit ``s`` set when some positive cards (2..K) add
    up to ``s`` (the quick test's bitset); a sum ``flex`` needs that they cannot make is not
    searched (-1: search every one)."""
    new = tuple.__new__
    out: list[Any] = []
    if flex is None:  # no ace, no joker: the positive part is the fifteen, with a hand card
        res = _positive(15, masks, hb, tb, hand_ranks)
        if make is None:
            return [(ht, tt) for _, ht, tt, nh, _ in res if nh]
        # a loop, not a comprehension (a Python call, more than one or two fifteens cost)
        for _, ht, tt, nh, _ in res:
            if nh:
                out.append(new(make, ("fifteen", ht, tt, _EMPTY, _EMPTY)))
        return out
    add = out.append
    for t, items in flex.items():
        if t < 2:
            if t == 0:  # aces and jokers alone
                for fh, ft, fnh, fn in items:
                    if fnh and fn >= 2:
                        add((fh, ft) if make is None else new(make, ("fifteen", _EMPTY, _EMPTY, fh, ft)))
            continue
        if not sums >> t & 1:  # no positive cards add up to t
            continue
        sol = _positive(t, masks, hb, tb, -1)
        if not sol:
            continue
        for fh, ft, fnh, fn in items:
            # with a hand card among the aces and jokers, every positive part completes them;
            # else it must bring a hand card, and two cards in all
            if make is None:
                for _, ht, tt, nh, n in sol:
                    if fnh or (nh and n + fn >= 2):
                        add((ht + fh, tt + ft))
            elif fnh:
                for _, ht, tt, _, _ in sol:
                    add(new(make, ("fifteen", ht, tt, fh, ft)))
            else:
                for _, ht, tt, nh, n in sol:
                    if nh and n + fn >= 2:
                        add(new(make, ("fifteen", ht, tt, fh, ft)))
    return out


