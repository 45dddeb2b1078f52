"""Le 14 (``quatorze``): the built-in bots, ``random`` and ``greedy``. Source: quinze_cli/rules/quatorze.md.

Both see only what a seat sees over the protocol: its view and the legal actions.

- ``random``: a uniformly random legal action, from its own seeded :class:`~quinze_protocol.rng.Rng`.
- ``greedy``: draws the discard pile's top card when it completes a combination with the hand
  (else the stock); lays combinations so as to lay as many cards as possible in the turn; then
  makes two-for-one substitutions (each leaves one card fewer in the hand; never one that grows the
  hand, so it cannot loop); then discards the highest card that belongs to no combination of the
  hand (the highest card of all when every card belongs to one). Deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from quinze_protocol import caches as _caches
from quinze_protocol.cards import parse_card
from quinze_protocol.game import Action, Bot, register_bot
from quinze_protocol.games.quatorze_actions import Combine, Discard, Draw, Substitute, value
from quinze_protocol.games.quatorze_legal import combinations
from quinze_protocol.rng import DrawsAhead

__all__ = ["GreedyBot", "RandomBot"]


class RandomBot(DrawsAhead, Bot):
    """Uniformly random legal actions (own generator, seeded): ``legal[rng.below(len(legal))]``,
    a draw for every decision (one legal action too), with the same numbers and state as the plain
    generator, rejections included; the outputs are computed a batch at a time
    (:class:`~quinze_protocol.rng.DrawsAhead`). Reading :attr:`rng` gives the generator as after
    the draws made so far."""

    needs_view = False
    picks = True

    def __init__(self, seed: int) -> None:
        self._draws_from(seed)

    pick = DrawsAhead.below
    """``rng.below(n)``'s number: the index :meth:`choose` takes among ``n`` legal actions
    (``game.legal_pick(bot.pick)``; :meth:`DrawsAhead.below`)."""

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        """One of ``legal``, uniformly: ``legal[rng.below(len(legal))]`` (:meth:`pick`)."""
        return legal[self.pick(len(legal))]




@lru_cache(maxsize=65536)
def _most_laid(values: tuple[int, ...]) -> int:
    """The most cards that can be laid as disjoint combinations from these values (sorted tuple)."""
    best = 0
    seen: set[tuple[int, ...]] = set()
    n = len(values)

    def walk(i: int, rest: int, picked: list[int]) -> None:
        nonlocal best
        if rest == 0:
            key = tuple(values[k] for k in picked)
            if key in seen:
                return
            seen.add(key)
            left = list(values)
            for k in reversed(picked):
                del left[k]
            best = max(best, len(picked) + _most_laid(tuple(left)))
            return
        for k in range(i, n):
            if values[k] > rest:
                break
            if k > i and values[k] == values[k - 1]:
                continue
            picked.append(k)
            walk(k + 1, rest - values[k], picked)
            picked.pop()

    walk(0, 14, [])
    return best


def _in_some_combination(hand: list[int]) -> set[int]:
    return {c for comb in combinations(hand) for c in comb.cards}


class GreedyBot(Bot):
    """Lays as many cards as it can, sheds cards by two-for-one substitutions, discards high."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        """The greedy choice among ``legal`` (see the module docstring)."""
        hand = [parse_card(t) for t in view.get("hand", [])]
        draws = [a for a in legal if isinstance(a, Draw)]
        if draws:
            discard = view.get("discard") or []
            if discard and any(a.from_ == "discard" for a in draws):
                top = parse_card(discard[-1])
                if any(top in comb.cards for comb in combinations(hand + [top])):
                    return Draw("discard")
            return draws[0]
        combines = [a for a in legal if isinstance(a, Combine)]
        if combines:

            def laid(a: Combine) -> int:
                left = list(hand)
                for c in a.cards:
                    left.remove(c)
                return len(a.cards) + _most_laid(tuple(sorted(value(c) for c in left)))

            return max(combines, key=lambda a: (laid(a), -len(a.cards)))
        sheds = [a for a in legal if isinstance(a, Substitute) and a.kind == "two-for-one"]
        if sheds:
            return sheds[0]
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:
            useful = _in_some_combination(hand)
            spare = [a for a in discards if a.card not in useful] or discards
            return max(spare, key=lambda a: (value(a.card), a.card))
        return legal[0]


@register_bot("quatorze", "random")
def _random(seed: int) -> Bot:
    return RandomBot(seed)


@register_bot("quatorze", "greedy")
def _greedy(seed: int) -> Bot:
    return GreedyBot(seed)

_caches.register_lru("quatorze_bots._most_laid", _most_laid)
