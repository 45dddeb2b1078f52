"""Le 14 (``quatorze``): the substitutions of a hand against a table, from an index of the table
that the engine keeps between decisions. Source: quinze_cli/rules/quatorze.md phase 3.

:func:`quinze_protocol.games.quatorze_legal.substitutions` defines the list (every distinct
substitution: hand-for-two, then two-for-one, then between, each in table order);
:func:`substitutions` here computes the same list, in the same order, faster:

* :class:`TableIndex` holds what the table alone decides: per combination its :data:`Info`
  (distinct pairs with their sums for combinations of 3 cards or more, distinct cards with
  their values, bit masks of both), per value a bit mask of where on the table cards of that
  value lie, and the whole list of substitutions between combinations. A combination's info is
  cached by its cards (most actions leave a combination as it was). An index never changes once
  built: the engine builds a new one when the table has changed, and copies of a game share it.
* :func:`substitutions` joins an index with a hand: the bit masks skip every combination that
  no hand card (hand-for-two) or hand pair (two-for-one) can match.

Substitutions are named tuples, built afresh for each list (one ``tuple.__new__`` call each).
Keeping every substitution ever listed for reuse, as before, kept about a hundred thousand
objects alive after a few seconds of self-play, which the garbage collector's full passes walked
again and again: that cost more than building them (issue 13 §4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quinze_protocol import caches as _caches
from quinze_protocol.games.quatorze_actions import VALUES, Discard, Substitute

__all__ = ["DISCARDS", "Info", "TableIndex", "info", "listing", "substitutions"]

_Pairs = tuple[tuple[tuple[int, int], int], ...]
_Cards = tuple[tuple[int, int], ...]
_Where = tuple[tuple[int, int], ...]
_Info = tuple[_Pairs, _Cards, int, int, _Where, int, int, int, int, int]
Info = _Info
"""One combination: distinct pairs ``(pair, sum)`` in pair order (none under 3 cards), distinct
cards ``(card, value)`` in canonical order, the mask of the pair sums (bit ``sum``), the mask of
the card values (bit ``value``), per value present ``(value, suits)``, ``suits`` having bit
``suit`` (0..3, S H D C) for each suit of that value the combination holds; then, for counting
(:mod:`quinze_protocol.games.quatorze_pick`): how many of its own distinct cards are worth one
of its pair sums (each pair counted), and three counts per value packed in one int, ``X``
bits a value (:data:`X`): its pairs per sum (at ``X * sum``), its distinct cards per value (at
``X * value``) and the same reversed (at ``X * (13 - value)``); last, its suits per value in one
int, the ``suits`` of value ``v`` at ``4 * v``."""
X = 16
"""Bits per value in the packed counts of :data:`Info`: no count on a table or in a hand of
104 cards, nor any sum of products of them that counting forms, reaches ``2 ** 16`` (the
largest: 14 values x 106 pairs of hand cards of one sum x 8 table cards of one value)."""
_X = X

_INFO: dict[tuple[int, ...], _Info] = {}
""":func:`info` by combination (canonical order); cleared when large. Tuples of ints only."""
_INFO_MAX = 50_000
_tnew = tuple.__new__
_CARD = tuple(tuple(s * 13 + v - 1 for s in range(4)) if v else () for v in range(14))
"""``_CARD[value][suit]``: the card number (quinze_protocol.cards: ``suit * 13 + value - 1``)."""
DISCARDS = tuple(Discard(c) for c in range(54))
"""Actions are immutable values: the legal lists reuse these instead of building new ones."""
_ONE = tuple((c,) for c in range(54))
"""``_ONE[c]`` is ``(c,)``: the ``hand`` field of a hand-for-two, made once."""


def info(comb: tuple[int, ...]) -> _Info:
    """The :data:`Info` of a combination (its cards in canonical order, a tuple), cached."""
    got = _INFO.get(comb)
    if got is not None:
        return got
    V = VALUES
    cards: list[tuple[int, int]] = []
    twice: set[int] = set()
    last = -1
    for c in comb:
        if c == last:
            twice.add(c)
        else:
            cards.append((c, V[c]))
            last = c
    pairs: list[tuple[tuple[int, int], int]] = []
    if len(comb) >= 3:
        for k, (a, va) in enumerate(cards):
            if a in twice:
                pairs.append(((a, a), va + va))
            for b, vb in cards[k + 1 :]:
                pairs.append(((a, b), va + vb))
    pmask = vmask = 0
    for _, s in pairs:
        pmask |= 1 << s
    suits: dict[int, int] = {}
    for c, v in cards:
        vmask |= 1 << v
        suits[v] = suits.get(v, 0) | 1 << (c // 13)
    own = tp = cp = cr = 0
    for _, s in pairs:
        tp += 1 << _X * s
        if s in suits:
            own += suits[s].bit_count()
    for _, v in cards:
        cp += 1 << _X * v
        cr += 1 << _X * (13 - v)
    if len(_INFO) > _INFO_MAX:
        _INFO.clear()
    vs = 0
    for v, su in suits.items():
        vs |= su << 4 * v
    got = _INFO[comb] = (tuple(pairs), tuple(cards), pmask, vmask, tuple(suits.items()), own, tp, cp, cr, vs)
    return got


class TableIndex:
    """What the substitutions need from the table alone (module docstring). Read only.

    Made from the table's combinations, or from their :func:`info` when the caller keeps them
    (``infos``, in table order: the engine keeps one per combination and makes a new one only
    for a combination that changed, which spares a tuple and a look-up per combination).

    With ``prev``, the index of the same table before the combinations at ``changed`` were
    changed or laid (their infos are in ``infos``), the new index reuses what they left as it
    was: the masks of the values they do not hold, and the substitutions between combinations
    from each source that is not among them and has no pair worth a value whose cards moved.

    ``infos``: per combination, :data:`Info`; ``sources``: ``(combination, pairs, mask of
    sums)`` of the combinations with pairs; ``between``: the substitutions between
    combinations, in order; ``pmask``, ``vmask``: all pair sums, all card values; ``where``:
    per value, bit ``4 * combination + suit`` for each card of that value on the table;
    ``segs``: per source, its part of ``between``."""

    __slots__ = ("infos", "sources", "between", "pmask", "vmask", "where", "segs")
    infos: tuple[_Info, ...]
    where: list[int]
    segs: dict[int, list[Any]]

    def __init__(self, table: Sequence[Sequence[int]] = (), infos: Sequence[_Info] | None = None,
                 prev: TableIndex | None = None, changed: Sequence[int] = ()) -> None:
        infos = tuple([info(tuple(c)) for c in table]) if infos is None else tuple(infos)
        pm = vm = 0
        sources = []
        touched = -1  # values whose cards moved (all, without a previous index)
        if prev is None:
            where = [0] * 14  # per value: bit 4 * combination + suit for each card of that value on the table
            shift = 0
            for i, inf in enumerate(infos):
                vm |= inf[3]
                if inf[2]:
                    pm |= inf[2]
                    sources.append((i, inf[0], inf[2]))
                for v, suits in inf[4]:
                    where[v] |= suits << shift
                shift += 4
        else:  # the previous index's masks, with the changed combinations' cards moved
            where = prev.where[:]
            old = prev.infos
            touched = 0
            for k in changed:
                shift = 4 * k
                if k < len(old):
                    for v, suits in old[k][4]:
                        where[v] &= ~(suits << shift)
                        touched |= 1 << v
                for v, suits in infos[k][4]:
                    where[v] |= suits << shift
                    touched |= 1 << v
            for i, inf in enumerate(infos):
                vm |= inf[3]
                if inf[2]:
                    pm |= inf[2]
                    sources.append((i, inf[0], inf[2]))
        between: list[Any] = []
        segs: dict[int, list[Any]] = {}
        if pm & vm:
            tnew, S, card = _tnew, Substitute, _CARD
            kept = prev.segs if prev is not None else segs
            for i, ps, p in sources:
                seg = kept.get(i)
                if seg is None or p & touched or i in changed:
                    seg = []  # this source's pairs, each for the cards worth its sum elsewhere on the table
                    if p & vm:
                        others = ~(15 << 4 * i)
                        for pair, s in ps:
                            m = where[s] & others
                            while m:  # the cards worth s, in table order, then by suit (canonical order)
                                low = m & -m
                                b = low.bit_length() - 1
                                seg.append(tnew(S, ("between", i, (), pair, b >> 2, card[s][b & 3])))
                                m ^= low
                segs[i] = seg
                between += seg
        self.infos = infos
        self.sources = sources
        self.between = between
        self.pmask = pm
        self.vmask = vm
        self.where = where
        self.segs = segs


def substitutions(index: TableIndex, hand: Sequence[int]) -> list[Substitute]:
    """Every distinct substitution of ``hand`` (canonical order, as a game keeps it) against the
    table of ``index``: the list of :func:`quinze_protocol.games.quatorze_legal.substitutions`, a new one."""
    return listing(index, hand, [], False)


def listing(index: TableIndex, hand: Sequence[int], out: list[Any], discards: bool = True) -> list[Any]:
    """``out`` (a new list: the combinations a game lists first, or empty) extended by
    :func:`substitutions` of ``hand`` and, with ``discards``, the discard of each distinct hand
    card in hand order: the legal list of a game's ``combine`` and ``substitute`` phases
    (:meth:`quinze_protocol.games.quatorze.QuatorzeGame.legal_actions`), from one pass over the hand."""
    V = VALUES
    D = DISCARDS
    cards: list[tuple[int, int]] = []  # distinct hand cards (card, value), canonical order
    drop: list[Any] = []
    twice: set[int] = set()
    last = -1
    hv = 0
    for c in hand:
        if c == last:
            twice.add(c)
        else:
            v = V[c]
            cards.append((c, v))
            drop.append(D[c])
            hv |= 1 << v
            last = c
    tnew, S = _tnew, Substitute
    if hv & index.pmask:  # hand-for-two: a hand card worth a pair of a combination
        by_value: dict[int, list[int]] = {}
        for c, v in cards:
            same = by_value.get(v)
            if same is None:
                by_value[v] = [c]
            else:
                same.append(c)
        one = _ONE
        for i, ps, pm in index.sources:
            if pm & hv:
                for p, s in ps:
                    hs = by_value.get(s)
                    if hs is not None:
                        for h in hs:
                            out.append(tnew(S, ("hand-for-two", i, one[h], p, -1, -1)))
    vm = index.vmask
    if len(cards) >= 2 or twice:  # two-for-one: a pair of hand cards worth one card of a combination
        hand_pairs: dict[int, list[tuple[int, int]]] = {}
        hp = 0
        for k, (a_, va) in enumerate(cards):
            if a_ in twice:
                s = va + va
                if vm >> s & 1:
                    hp |= 1 << s
                    hl = hand_pairs.get(s)
                    if hl is None:
                        hand_pairs[s] = [(a_, a_)]
                    else:
                        hl.append((a_, a_))
            for b, vb in cards[k + 1 :]:
                s = va + vb
                if vm >> s & 1:
                    hp |= 1 << s
                    hl = hand_pairs.get(s)
                    if hl is None:
                        hand_pairs[s] = [(a_, b)]
                    else:
                        hl.append((a_, b))
        if hp:
            for i, inf in enumerate(index.infos):
                if inf[3] & hp:
                    for c, v in inf[1]:
                        hps = hand_pairs.get(v)
                        if hps is not None:
                            for p in hps:
                                out.append(tnew(S, ("two-for-one", i, p, (), -1, c)))
    out += index.between
    if discards:
        out += drop
    return out


_caches.register_dict("quatorze_index._INFO", _INFO)
