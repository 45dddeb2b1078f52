"""Determinization: from ONE seat's knowledge, a full game dealt at random (docs/bots.md).

A seat knows its view (``Game.view(seat)``: its own cards and everything public) and the events
it was sent (``Event.for_seat(seat)``: the public ones plus its own private fields). A
determinization deals every card that seat cannot see (the other hands, the stock's order, Le
14's face-down packets, classique's hidden cards and talon) at random, consistent with what it
saw, and returns a complete game ready to play (its generator freshly seeded too: the real
generator's state is hidden information).

The functions here never receive the game itself: :class:`Knowledge` is fed event data as the
seat received it, and :func:`determinizer` takes the seat's view and that knowledge. So a
determinization cannot depend on what the seat did not see, by construction
(tests/test_determinize.py checks it on games that differ only in hidden cards).

What "consistent" covers, per game (each game's module says the details):

- counts: every hand, packet, stock or talon gets exactly the number of cards the view shows;
- cards: only cards that are unseen can be dealt (the deck(s) minus own hand, table, discard
  pile and every other card shown);
- places known from public events: a card an opponent took from Le 14's discard pile (or from a
  combination) stays in that hand until it is played; after a reshuffle the stock holds only
  cards of the old discard pile that were not seen again;
- inferences from the opponents' choices, where an opponent model is assumed (each game's module
  says which): classique bounds a hidden card by the seat's hits, stands and raises; Le 14
  deals a seat that ended its turn by a discard a hand holding no combination (a player that
  lays what it can). Otherwise the unseen cards are sampled uniformly over their places, the
  determinization of information-set MCTS (Cowling, Powley & Whitehouse 2012); Le Quinze makes
  no inference (a player who placed a card had no fifteen, not used).

Use::

    know = knowledge_for(game_id, seat)
    for event in events_sent_to_seat: know.observe(event)
    det = determinizer(view, know)       # once per decision
    game = det.sample(rng)               # any number of times: a new full game each time
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from quinze_protocol.game import Game, GameError
from quinze_protocol.rng import Rng

__all__ = [
    "Determinizer",
    "Knowledge",
    "determinize",
    "determinizer",
    "knowledge_for",
    "multiset_minus",
]


class Knowledge:
    """What one seat learned from the event data it was sent (base: nothing beyond the view).

    ``observe(event)`` takes one event as the seat received it (``{"kind": ..., ...}``, the
    shape of :meth:`quinze_protocol.game.Event.for_seat`). Each game's subclass keeps what its
    determinization needs; unknown kinds are ignored.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.complete = True
        """False when some event could not be followed: then only the view is trusted."""

    def observe(self, event: Mapping[str, Any]) -> None:
        """Take one event (see the class docstring). Never raises on odd data: it marks the
        knowledge incomplete instead."""
        try:
            self._observe(event)
        except (KeyError, TypeError, ValueError, GameError):
            self.complete = False

    def _observe(self, event: Mapping[str, Any]) -> None:  # pragma: no cover - overridden
        return None


class Determinizer:
    """Deals the unseen cards of one view again and again. Made by :func:`determinizer`.

    ``sample(rng)`` returns a new full game (a :class:`~quinze_protocol.game.Game`) each call, drawing
    only from ``rng``. Raises :class:`~quinze_protocol.game.GameError` when the view cannot be dealt
    (inconsistent data).
    """

    def sample(self, rng: Rng) -> Game:  # pragma: no cover - overridden
        raise NotImplementedError


_KINDS: dict[str, tuple[Callable[[int], Knowledge], Callable[[Mapping[str, Any], Knowledge], Determinizer]]] = {}


def register(game_id: str, knowledge: Callable[[int], Knowledge],
             make: Callable[[Mapping[str, Any], Knowledge], Determinizer]) -> None:
    """Make ``knowledge_for`` / ``determinizer`` know ``game_id``."""
    _KINDS[game_id] = (knowledge, make)


def _load() -> None:
    from quinze_protocol.search import det_classique, det_quatorze, det_quinze  # noqa: F401


def knowledge_for(game_id: str, seat: int) -> Knowledge:
    """A blank :class:`Knowledge` of ``seat`` for ``game_id``. Raises GameError (``unknown-game``)."""
    _load()
    if game_id not in _KINDS:
        raise GameError(f"no determinization for {game_id!r}", code="unknown-game", field="game")
    return _KINDS[game_id][0](seat)


def determinizer(view: Mapping[str, Any], knowledge: Knowledge | None = None) -> Determinizer:
    """The :class:`Determinizer` of ``view`` (a seat's view, ``view["seat"]`` not None) and that
    seat's ``knowledge`` (None: the view alone). Raises GameError naming the field for a view
    that cannot be dealt."""
    _load()
    game_id = view.get("game")
    if game_id not in _KINDS:
        raise GameError(f"no determinization for {game_id!r}", code="unknown-game", field="game")
    seat = view.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise GameError("a determinization is made from a seat's view (seat is not a number)", field="seat")
    if knowledge is None:
        knowledge = _KINDS[game_id][0](seat)
    return _KINDS[game_id][1](view, knowledge)


def determinize(view: Mapping[str, Any], knowledge: Knowledge | None, rng: Rng) -> Game:
    """One full game dealt from ``view`` and ``knowledge`` with ``rng`` (see the module docstring)."""
    return determinizer(view, knowledge).sample(rng)


def multiset_minus(pool: Iterable[int], remove: Iterable[int]) -> list[int]:
    """``pool`` with one copy of each card of ``remove`` taken out (missing ones ignored), sorted."""
    c = Counter(pool)
    c.subtract(remove)
    return sorted(c.elements())


def split_pool(unseen: list[int], pool: Counter | None, size: int, rng: Rng) -> tuple[list[int], list[int]]:
    """``size`` cards for a place that must come from ``pool`` (when the pool, met with the
    unseen cards, is large enough; else from all of them), and the rest of ``unseen``. Both
    shuffled from ``rng``."""
    if pool is not None:
        inside: list[int] = []
        outside: list[int] = []
        left = Counter(pool)
        for c in unseen:
            if left[c] > 0:
                left[c] -= 1
                inside.append(c)
            else:
                outside.append(c)
        if len(inside) >= size:
            rng.shuffle(inside)
            chosen, rest = inside[:size], inside[size:] + outside
            rng.shuffle(rest)
            return chosen, rest
    cards = list(unseen)
    rng.shuffle(cards)
    return cards[:size], cards[size:]
