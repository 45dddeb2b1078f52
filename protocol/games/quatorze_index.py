"""Le 14 (``quatorze``): the substitutions of a hand against a table, from an index of the table
that the engine keeps between decisions. Source: quinze_cli/rules/quatorze.md phase 3.

:func:`quinze_protocol.games.quatorze_legal.substitutions` defines the list (every distinct
substitution: hand-for-two, then two-for-one, then between, each in table order);
:func:`substitutions` here computes the same list, in the same order, faster:

* :class:`TableIndex` holds what the table alone decides: per combination its distinct pairs
  with their sums (combinations of 3 cards or more) and its distinct cards with their values,
  as bit masks too, and the whole list of substitutions between combinations. A combination's
  part is cached by its cards (most actions leave a combination as it was). An index never
  changes once built: the engine builds a new one when the table has changed, and copies of a
  game share it.
* :func:`substitutions` joins an index with a hand: the bit masks skip every combination that
  no hand card (hand-for-two) or hand pair (two-for-one) can match.

Substitutions are immutable values: each one is built once and reused (:data:`_MEMO`, by a
number that names it: hashing a small int costs far less than hashing a tuple of tuples).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quinze_protocol import caches as _caches
from quinze_protocol.games.quatorze_actions import VALUES, Substitute, make_substitute

__all__ = ["Info", "TableIndex", "info", "substitutions"]

_Pairs = tuple[tuple[tuple[int, int], int, int], ...]
_Cards = tuple[tuple[int, int], ...]
_Info = tuple[_Pairs, _Cards, int, int]
Info = _Info
"""One combination: distinct pairs ``(pair, sum, pair number)`` (none under 3 cards), distinct
cards ``(card, value)``, the mask of the pair sums and the mask of the card values."""

_MEMO: dict[int, Substitute] = {}
"""Substitutions already built, by :func:`_key`-style numbers (see the functions); cleared when large."""
_MEMO_MAX = 200_000
_INFO: dict[tuple[int, ...], _Info] = {}
""":func:`_info` by combination (canonical order); cleared when large."""
_INFO_MAX = 50_000
_HF2, _TF1, _BETWEEN = 1 << 40, 2 << 40, 3 << 40
"""Memo numbers: kind << 40 | combination << 24 | other combination << 18 | pair number (a * 54 + b) << 6 | card."""


def _info(comb: tuple[int, ...]) -> _Info:
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
    pairs: list[tuple[tuple[int, int], int, int]] = []
    if len(comb) >= 3:
        for k, (a, va) in enumerate(cards):
            if a in twice:
                pairs.append(((a, a), va + va, a * 54 + a))
            for b, vb in cards[k + 1 :]:
                pairs.append(((a, b), va + vb, a * 54 + b))
    pmask = vmask = 0
    for _, s, _ in pairs:
        pmask |= 1 << s
    for _, v in cards:
        vmask |= 1 << v
    if len(_INFO) > _INFO_MAX:
        _INFO.clear()
    got = _INFO[comb] = (tuple(pairs), tuple(cards), pmask, vmask)
    return got


info = _info


class TableIndex:
    """What the substitutions need from the table alone (module docstring). Read only.

    Made from the table's combinations, or from their :func:`info` when the caller keeps them
    (``infos``, in table order: the engine keeps one per combination and makes a new one only
    for a combination that changed, which spares a tuple and a look-up per combination).

    ``infos``: per combination, :data:`Info`; ``sources``: ``(combination, pairs, mask of
    sums)`` of the combinations with pairs; ``between``: the substitutions between
    combinations, in order; ``pmask``, ``vmask``: all pair sums, all card values."""

    __slots__ = ("infos", "sources", "between", "pmask", "vmask")

    def __init__(self, table: Sequence[Sequence[int]] = (), infos: Sequence[_Info] | None = None) -> None:
        infos = tuple([_info(tuple(c)) for c in table]) if infos is None else tuple(infos)
        pm = vm = 0
        sources = []
        for i, inf in enumerate(infos):
            vm |= inf[3]
            if inf[2]:
                pm |= inf[2]
                sources.append((i, inf[0], inf[2]))
        between: list[Substitute] = []
        if pm & vm:
            where: dict[int, list[tuple[int, int]]] = {}  # value -> (combination, card), in table order
            for j, inf in enumerate(infos):
                if inf[3] & pm:
                    for c, v in inf[1]:
                        w = where.get(v)
                        if w is None:
                            where[v] = [(j, c)]
                        else:
                            w.append((j, c))
            memo = _MEMO
            for i, ps, p in sources:
                if p & vm:
                    base = _BETWEEN | i << 24
                    for pair, s, pk in ps:
                        w = where.get(s)
                        if w is not None:
                            for j, c in w:
                                if j != i:
                                    key = base | j << 18 | pk << 6 | c
                                    a = memo.get(key)
                                    if a is None:
                                        a = memo[key] = make_substitute("between", i, (), pair, j, c)
                                    between.append(a)
        self.infos = infos
        self.sources = sources
        self.between = between
        self.pmask = pm
        self.vmask = vm


def substitutions(index: TableIndex, hand: Sequence[int]) -> list[Substitute]:
    """Every distinct substitution of ``hand`` (canonical order, as a game keeps it) against the
    table of ``index``: the list of :func:`quinze_protocol.games.quatorze_legal.substitutions`, a new one."""
    memo = _MEMO
    if len(memo) > _MEMO_MAX:
        memo.clear()
    V = VALUES
    cards: list[tuple[int, int]] = []  # distinct hand cards (card, value), canonical order
    twice: set[int] = set()
    last = -1
    hv = 0
    for c in hand:
        if c == last:
            twice.add(c)
        else:
            v = V[c]
            cards.append((c, v))
            hv |= 1 << v
            last = c
    out: list[Any] = []
    if hv & index.pmask:  # hand-for-two: a hand card worth a pair of a combination
        by_value: dict[int, list[int]] = {}
        for c, v in cards:
            same = by_value.get(v)
            if same is None:
                by_value[v] = [c]
            else:
                same.append(c)
        for i, ps, pm in index.sources:
            if pm & hv:
                base = _HF2 | i << 24
                for p, s, pk in ps:
                    hs = by_value.get(s)
                    if hs is not None:
                        for h in hs:
                            key = base | pk << 6 | h
                            a = memo.get(key)
                            if a is None:
                                a = memo[key] = make_substitute("hand-for-two", i, (h,), p, -1, -1)
                            out.append(a)
    vm = index.vmask
    if len(cards) >= 2 or twice:  # two-for-one: a pair of hand cards worth one card of a combination
        hand_pairs: dict[int, list[tuple[tuple[int, int], int]]] = {}
        hp = 0
        for k, (a_, va) in enumerate(cards):
            if a_ in twice:
                s = va + va
                if vm >> s & 1:
                    hp |= 1 << s
                    hl = hand_pairs.get(s)
                    if hl is None:
                        hand_pairs[s] = [((a_, a_), a_ * 54 + a_)]
                    else:
                        hl.append(((a_, a_), a_ * 54 + a_))
            for b, vb in cards[k + 1 :]:
                s = va + vb
                if vm >> s & 1:
                    hp |= 1 << s
                    hl = hand_pairs.get(s)
                    if hl is None:
                        hand_pairs[s] = [((a_, b), a_ * 54 + b)]
                    else:
                        hl.append(((a_, b), a_ * 54 + b))
        if hp:
            for i, (_, cs, _, cvm) in enumerate(index.infos):
                if cvm & hp:
                    base = _TF1 | i << 24
                    for c, v in cs:
                        hps = hand_pairs.get(v)
                        if hps is not None:
                            for p, pk in hps:
                                key = base | pk << 6 | c
                                a = memo.get(key)
                                if a is None:
                                    a = memo[key] = make_substitute("two-for-one", i, p, (), -1, c)
                                out.append(a)
    out.extend(index.between)
    return out

_caches.register_dict("quatorze_index._MEMO", _MEMO)
_caches.register_dict("quatorze_index._INFO", _INFO)
