"""Le 14 (``quatorze``): a turn planner, the first move of the search bot ``mcts`` in Le 14.
Source: quinze_cli/rules/quatorze.md "Your turn" and docs/bots.md ("The planner").

After the draw, the rest of a turn (lay combinations, substitute, discard) depends only on the
seat's own hand and the table, which it sees: no chance, no other seat. The planner searches
that turn exhaustively on card values (suits never matter, "Material and values") and picks the
line that leaves the fewest cards in hand, then the best hand (:func:`hand_score`). The
built-in ``greedy`` only lays combinations and makes two-for-one substitutions one at a time;
the planner also finds the substitutions that shed nothing by themselves but open more
two-for-one substitutions:

- **hand for two** gives one hand card for two cards of a combination: the hand grows by one,
  but the two cards taken may each pair with a hand card for a two-for-one;
- **between** moves a pair from one combination to another, which may give a combination the
  pair a hand card can take by hand for two.

Two-for-one substitutions do not depend on how the table's cards are grouped (any combination
holding a card of the right value), so once no more non-shedding substitution is allowed the
planner works on the table's values only (:func:`_sheds`, cached across decisions). At most
:data:`NON_SHEDDING` non-shedding substitutions are planned per turn (2: on 200 duplicate deals
against ``greedy``, 0 allowed scored 0.502, 1 0.568, 2 0.593, unbounded 0.598; docs/bots.md).

The draw: the discard pile's top card is taken when the turn it allows is better than the mean
turn after a stock draw, each unseen value weighted by how many of its cards are unseen
(:func:`draw_choice`). Pure: no I/O, no randomness (the planner is deterministic).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from quinze_protocol import caches as _caches
from quinze_protocol.cards import parse_card
from quinze_protocol.game import Action, Bot
from quinze_protocol.games.quatorze_legal import shape_combinations

__all__ = ["NON_SHEDDING", "Plan", "PlannerBot", "draw_choice", "game_plan", "hand_score", "plan_turn",
           "planned_action", "unseen_values"]

NON_SHEDDING = 2
"""Non-shedding substitutions (hand for two, between) planned per turn at most."""

NODES = 20_000
"""States of a turn searched at most with non-shedding substitutions; past them only two-for-one
substitutions are planned (a bound on the time of one decision)."""

Values = tuple[int, ...]
Table = tuple[Values, ...]
Step = tuple[Any, ...]
Plan = Step | None
"""A planned first step, on values: ``("C", values)`` lay a combination, ``("T", (a, b), v)``
two-for-one (hand ``a``, ``b`` for a table card worth ``v``), ``("H", v, i, (a, b))`` hand for
two (hand card ``v`` for the pair ``a``, ``b`` of combination ``i`` of the sorted table),
``("B", (a, b), i, j, v)`` between (pair ``a``, ``b`` of combination ``i`` for the card worth
``v`` of combination ``j``), ``("D", v)`` discard a card worth ``v``; None: nothing (an empty hand)."""

_EPS = 1e-6
"""Cost of one step: of two equally good lines the shorter is planned (so replanning after each
step follows the same line, and no substitution is undone and made again)."""


def _minus(t: Values, rem: Sequence[int]) -> Values:
    """``t`` (sorted) less one card of each value of ``rem`` (each in ``t``): still sorted."""
    for x in rem:
        i = t.index(x)
        t = t[:i] + t[i + 1:]
    return t


def _plus(t: Values, add: Values) -> Values:
    return tuple(sorted(t + add))


def _swap(t: Values, out: Sequence[int], inn: Values) -> Values:
    """``t`` (sorted) less one card of each value of ``out`` (each in ``t``), plus ``inn``: sorted."""
    got = list(t)
    for x in out:
        got.remove(x)
    got += inn
    got.sort()
    return tuple(got)


def _replace(table: list[Values], i: int, comb: Values) -> None:
    """Combination ``i`` of ``table`` (a sorted list) replaced by ``comb``, the list kept sorted."""
    del table[i]
    insort(table, comb)


@lru_cache(maxsize=65536)
def _combos(hand: Values) -> tuple[Values, ...]:
    """Every distinct multiset of at least two of ``hand``'s values (sorted) adding up to 14
    (no value reaches 14 alone), in the order of :func:`quatorze_legal.shape_combinations`."""
    distinct: list[tuple[int, int]] = []
    for v in hand:
        if distinct and distinct[-1][0] == v:
            distinct[-1] = (v, distinct[-1][1] + 1)
        else:
            distinct.append((v, 1))
    return tuple(tuple(distinct[j][0] for j in place) for place in shape_combinations(tuple(distinct)))


@lru_cache(maxsize=65536)
def _pairs(vals: Values) -> tuple[tuple[int, int], ...]:
    """Every distinct pair (as a multiset, sorted) of two of ``vals`` (sorted)."""
    d = sorted(set(vals))
    out = []
    for i, a in enumerate(d):
        if vals.count(a) >= 2:
            out.append((a, a))
        for b in d[i + 1:]:
            out.append((a, b))
    return tuple(out)


@lru_cache(maxsize=65536)
def most_laid(hand: Values) -> int:
    """The most cards of ``hand`` (values, sorted) that can be laid at once as disjoint combinations."""
    best = 0
    for cb in _combos(hand):
        best = max(best, len(cb) + most_laid(_minus(hand, cb)))
    return best


def hand_score(hand: Values) -> float:
    """How good a hand is to end a turn with, beyond its size (smaller than the value of one
    card): the cards it could lay at once (laid next turn), then lower values (a low card fits
    more combinations and is a poor target for the other seats' two-for-one substitutions)."""
    return 0.1 * most_laid(hand) - sum(hand) / 1000.0


@lru_cache(maxsize=65536)
def _discard(hand: Values) -> tuple[float, Plan]:
    """The end of a turn by a discard alone: ``(value, ("D", v))``, the best card to discard."""
    best: tuple[float, Plan] | None = None
    n = len(hand)
    for v in sorted(set(hand), reverse=True):
        val = -(n - 1) + hand_score(_minus(hand, (v,)))
        if best is None or val > best[0]:
            best = (val, ("D", v))
    assert best is not None
    return best


@lru_cache(maxsize=65536)
def _flat(table: Table) -> Values:
    """Every value on the table, sorted."""
    return tuple(sorted(v for comb in table for v in comb))


@lru_cache(maxsize=65536)
def _sheds(hand: Values, tvals: Values) -> tuple[float, Plan]:
    """The best end of a turn made of two-for-one substitutions and the discard, on the table's
    values only (``tvals``, sorted): each two-for-one sheds one card, so no line repeats."""
    best = _discard(hand)
    have = set(tvals)
    for a, b in _pairs(hand):
        v = a + b
        if v in have:
            h = _swap(hand, (a, b), (v,))
            t = _swap(tvals, (v,), (a, b))
            val = _sheds(h, t)[0] - _EPS
            if val > best[0] + 1e-12:
                best = (val, ("T", (a, b), v))
    return best


class _Planner:
    """One turn's search over grouped tables (when non-shedding substitutions remain)."""

    def __init__(self, limit: int) -> None:
        self.memo: dict[tuple[Any, ...], tuple[float, Plan]] = {}
        self.limit = limit  # substitutions still allowed this turn (max_substitutions)
        self.nodes = 0  # grouped states searched; past NODES only two-for-one lines are

    def value(self, combine: bool, hand: Values, table: Table, ns: int, subs: int) -> tuple[float, Plan]:
        if not hand:
            return (hand_score(()), None)
        if subs >= self.limit:
            if combine:
                return self._combine_only(hand, table)
            return _discard(hand)
        if self.nodes >= NODES:
            ns = 0
        if ns <= 0 and not combine:
            return _sheds(hand, _flat(table))
        key = (combine, hand, table, ns)
        got = self.memo.get(key)
        if got is not None:
            return got
        self.memo[key] = (-1e9, None)  # a line back to this state is never better
        self.nodes += 1
        best = _discard(hand)
        last = ns == 1  # a hand for two ends the non-shedding ones: only the table's values count after it
        flat: Values = ()
        for m in self._moves(combine, hand, table, ns):
            kind = m[0]
            if last and kind == "H":  # self.value(False, h, t, 0, subs + 1) without grouping t
                _, v, _, pr = m
                h = _swap(hand, (v,), pr)
                if subs + 1 >= self.limit:
                    val = _discard(h)[0]
                else:
                    flat = flat or _flat(table)
                    val = _sheds(h, _swap(flat, pr, (v,)))[0]
            else:
                h, t = _do(m, hand, table)
                if kind == "C":
                    val = self.value(True, h, t, ns, subs)[0]
                else:
                    val = self.value(False, h, t, ns - (kind in "HB"), subs + 1)[0]
            val -= _EPS
            if val > best[0] + 1e-12:
                best = (val, m)
        self.memo[key] = best
        return best

    def _combine_only(self, hand: Values, table: Table) -> tuple[float, Plan]:
        best = _discard(hand)
        for cb in _combos(hand):
            h = _minus(hand, cb)
            val = (self._combine_only(h, table)[0] if h else hand_score(())) - _EPS
            if val > best[0] + 1e-12:
                best = (val, ("C", cb))
        return best

    @staticmethod
    def _moves(combine: bool, hand: Values, table: Table, ns: int) -> list[Step]:
        """The steps from here, in the order they are tried. A step that leads where an earlier one
        does is left out (of two equally good lines the first is planned, so it is never
        chosen): a two-for-one is listed once (:func:`_do` takes the card from the first
        combination holding it), a between once per combination it gives the card to among
        equal ones, and with one non-shedding substitution left (after which only the table's
        values count) a hand for two once per pair it takes."""
        out: list[Step] = []
        if combine:
            out.extend(("C", cb) for cb in _combos(hand))
        firsts, first_of = _grouped(table)
        sheds: dict[int, list[Step]] = {}  # the two-for-one moves by the combination they take from
        for pr in _pairs(hand):
            i = first_of.get(pr[0] + pr[1])
            if i is not None:
                sheds.setdefault(i, []).append(("T", pr, pr[0] + pr[1]))
        hv = set(hand)
        taken: set[tuple[int, int]] = set()  # hand-for-two pairs listed, with one non-shedding left
        for i, comb in firsts:
            got = sheds.get(i)
            if got is not None:
                out.extend(got)
            if ns > 0 and len(comb) >= 3:
                same = i + 1 < len(table) and table[i + 1] == comb
                for pr in _pairs(comb):
                    s = pr[0] + pr[1]
                    if s in hv and (ns > 1 or pr not in taken):
                        taken.add(pr)
                        out.append(("H", s, i, pr))
                    if ns > 1:  # a between pays only if a hand for two follows
                        for j, other in firsts:
                            if s in other:
                                if j == i:
                                    if not same:
                                        continue
                                    j = i + 1
                                out.append(("B", pr, i, j, s))
        return out


@lru_cache(maxsize=65536)
def _grouped(table: Table) -> tuple[tuple[tuple[int, Values], ...], dict[int, int]]:
    """The first of each group of equal combinations of ``table`` (sorted), ``(index,
    combination)``, and by value the index of the first combination holding one."""
    firsts = tuple((j, c) for j, c in enumerate(table) if j == 0 or c != table[j - 1])
    first_of: dict[int, int] = {}
    for j, c in firsts:
        for v in c:
            first_of.setdefault(v, j)
    return firsts, first_of


def _do(m: Step, hand: Values, table: Table) -> tuple[Values, Table]:
    """The hand and the table (sorted) after the step ``m``."""
    kind = m[0]
    t = list(table)
    if kind == "C":
        insort(t, m[1])
        return _minus(hand, m[1]), tuple(t)
    if kind == "T":
        _, pr, v = m
        for i, comb in enumerate(t):
            if v in comb:
                _replace(t, i, _swap(comb, (v,), pr))
                break
        return _swap(hand, pr, (v,)), tuple(t)
    if kind == "H":
        _, v, i, pr = m
        _replace(t, i, _swap(t[i], pr, (v,)))
        return _swap(hand, (v,), pr), tuple(t)
    _, pr, i, j, v = m
    ci, cj = _swap(t[i], pr, (v,)), _swap(t[j], (v,), pr)
    del t[max(i, j)]
    del t[min(i, j)]
    insort(t, ci)
    insort(t, cj)
    return hand, tuple(t)


def plan_turn(hand: Values, table: Table, *, combine: bool = True, substitutions: int = 0,
              max_substitutions: int = 20, non_shedding: int = NON_SHEDDING) -> tuple[float, Plan]:
    """The best rest of a turn from here: ``(value, first step)`` (:data:`Plan`). ``hand``: the
    hand's values, sorted; ``table``: each combination's values, sorted, the combinations sorted;
    ``combine``: combinations may still be laid (no substitution made yet this turn);
    ``substitutions``: made so far this turn, of ``max_substitutions``. The value is minus the
    cards left in hand after the turn, plus :func:`hand_score` (a hand emptied: 0 plus the
    score of an empty hand)."""
    p = _Planner(max_substitutions)
    return p.value(combine, hand, table, non_shedding, substitutions)


def draw_choice(hand: Values, table: Table, top: int, unseen: Mapping[int, int]) -> str:
    """``"discard"`` when the turn after taking the discard pile's top card (worth ``top``) is
    planned better than the mean planned turn after a stock draw (each value ``v`` drawn with
    weight ``unseen[v]``), else ``"stock"``."""
    take = plan_turn(_plus(hand, (top,)), table)[0]
    total = sum(unseen.values())
    if total <= 0:
        return "discard"
    mean = sum(n * plan_turn(_plus(hand, (v,)), table)[0] for v, n in unseen.items() if n > 0) / total
    return "discard" if take > mean else "stock"


def _vals(cards: Sequence[int]) -> Values:
    from quinze_protocol.games.quatorze_actions import VALUES

    return tuple(sorted(VALUES[c] for c in cards))


def unseen_values(view: Mapping[str, Any]) -> dict[int, int]:
    """Per value, how many of its 8 cards (two decks) the seat of ``view`` does not see: not in
    its hand, on the table or in the discard pile."""
    from quinze_protocol.games.quatorze_actions import VALUES

    left = {v: 8 for v in range(1, 14)}
    for t in view["hand"]:
        left[VALUES[parse_card(t)]] -= 1
    for comb in view["table"]:
        for t in comb:
            left[VALUES[parse_card(t)]] -= 1
    for t in view["discard"]:
        left[VALUES[parse_card(t)]] -= 1
    return {v: n for v, n in left.items() if n > 0}


def _matches(a: Action, m: Step, tv: list[Values], st: Table) -> bool:
    from quinze_protocol.games.quatorze_actions import VALUES, Combine, Discard, Substitute

    kind = m[0]
    if kind == "D":
        return isinstance(a, Discard) and VALUES[a.card] == m[1]
    if kind == "C":
        return isinstance(a, Combine) and _vals(a.cards) == m[1]
    if not isinstance(a, Substitute):
        return False
    if kind == "T":
        v = m[2]
        first = next(comb for comb in st if v in comb)
        return (a.kind == "two-for-one" and _vals(a.hand) == m[1] and VALUES[a.card] == v
                and tv[a.combination] == first)
    if kind == "H":
        return (a.kind == "hand-for-two" and VALUES[a.hand[0]] == m[1] and tv[a.combination] == st[m[2]]
                and _vals(a.cards) == m[3])
    return (a.kind == "between" and _vals(a.cards) == m[1] and tv[a.combination] == st[m[2]]
            and tv[a.other] == st[m[3]] and VALUES[a.card] == m[4])


def planned_action(view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
    """The planner's choice among ``legal`` for the seat of ``view`` (module docstring)."""
    from quinze_protocol.games.quatorze_actions import VALUES, Draw, Substitute

    if len(legal) == 1:
        return legal[0]
    hand = _vals([parse_card(t) for t in view["hand"]])
    tv = [_vals([parse_card(t) for t in comb]) for comb in view["table"]]
    st = tuple(sorted(tv))
    phase = view["phase"]
    if phase == "draw":
        if not any(isinstance(a, Draw) and a.from_ == "discard" for a in legal):
            return legal[0]
        if not any(isinstance(a, Draw) and a.from_ == "stock" for a in legal):
            return next(a for a in legal if isinstance(a, Draw))
        top = VALUES[parse_card(view["discard"][-1])]
        return Draw(draw_choice(hand, st, top, unseen_values(view)))
    if view.get("no_draw") == "whole-hand":
        return legal[0]  # every legal combination leaves a hand that can still be laid whole
    limit = view["options"]["max_substitutions"]
    done = view.get("substitutions", 0) if phase == "substitute" else 0
    if not any(isinstance(a, Substitute) for a in legal):
        done = limit  # none left this turn
    _, m = plan_turn(hand, st, combine=phase == "combine", substitutions=done, max_substitutions=limit)
    if m is not None:
        for a in legal:
            if _matches(a, m, tv, st):
                return a
    return legal[-1]  # not reached: every planned step is legal


class PlannerBot(Bot):
    """Plays Le 14 by :func:`planned_action` (module docstring). Deterministic."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        """The planned action among ``legal``."""
        return planned_action(view, legal)


for _name, _f in (("plan_quatorze._combos", _combos), ("plan_quatorze._pairs", _pairs),
                  ("plan_quatorze.most_laid", most_laid), ("plan_quatorze._sheds", _sheds)):
    _caches.register_lru(_name, _f)
_caches.register_lru("plan_quatorze._flat", _flat)
_caches.register_lru("plan_quatorze._grouped", _grouped)
_caches.register_lru("plan_quatorze._discard", _discard)


@lru_cache(maxsize=16384)
def _cached_plan(hand: Values, table: Table, combine: bool, substitutions: int, limit: int) -> Plan:
    return plan_turn(hand, table, combine=combine, substitutions=substitutions, max_substitutions=limit)[1]


@lru_cache(maxsize=16384)
def _cached_draw(hand: Values, table: Table, top: int, unseen: tuple[tuple[int, int], ...]) -> str:
    return draw_choice(hand, table, top, dict(unseen))


_PLANNED: dict[tuple[Any, ...], Action | None] = {}
""":func:`game_plan` by what decides it (the seat's cards, the table, the phase...): the search
asks it again at every iteration, with the same hand and table at the root."""
_PLANNED_MAX = 20_000


def game_plan(g: Any) -> Action | None:
    """The planner's action for the seat to act of the Le 14 game ``g``, from what that seat
    sees only (its hand, the table, the discard pile; used by the search on its
    determinizations, :class:`quinze_protocol.search.models.QuatorzeModel`); None when it has
    none to give (a decision with one legal action, or a hand that must be laid whole)."""
    phase = g.phase
    key = (tuple(g.hands[g.seat]), tuple(map(tuple, g.table)), phase, g.substitutions, g.no_draw,
           (tuple(g.discard), bool(g.stock)) if phase == "draw" else None, g.options["max_substitutions"])
    try:
        return _PLANNED[key]
    except KeyError:
        pass
    if len(_PLANNED) >= _PLANNED_MAX:
        _PLANNED.clear()
    a = _PLANNED[key] = _game_plan(g)
    return a


def _game_plan(g: Any) -> Action | None:
    from quinze_protocol.games.quatorze_actions import VALUES, Draw

    seat = g.seat
    hand = _vals(g.hands[seat])
    if g.phase == "draw":
        if not g.discard or not (g.stock or len(g.discard) >= 2):
            return None
        left = [8] * 14
        for c in g.hands[seat]:
            left[VALUES[c]] -= 1
        for comb in g.table:
            for c in comb:
                left[VALUES[c]] -= 1
        for c in g.discard:
            left[VALUES[c]] -= 1
        st = tuple(sorted(_vals(comb) for comb in g.table))
        unseen = tuple((v, left[v]) for v in range(1, 14) if left[v] > 0)
        return Draw(_cached_draw(hand, st, VALUES[g.discard[-1]], unseen))
    if g.no_draw == "whole-hand":
        return None
    tv = [_vals(comb) for comb in g.table]
    st = tuple(sorted(tv))
    limit = g.options["max_substitutions"]
    m = _cached_plan(hand, st, g.phase == "combine", g.substitutions, limit)
    if m is None:
        return None
    for a in g.legal_actions():
        if _matches(a, m, tv, st):
            return a
    return None


_caches.register_lru("plan_quatorze._cached_plan", _cached_plan)
_caches.register_lru("plan_quatorze._cached_draw", _cached_draw)
_caches.register_dict("plan_quatorze._PLANNED", _PLANNED)
