"""Search players that see hidden cards: yardsticks for the strength ladder, never bots
(docs/bots.md, "Le 14: what information is worth").

An honest player (every built-in bot, ``mcts`` included) sees only its seat's view. To tell how
much of a game's result is luck, the ladder compares it with the same search given more than a
seat may know:

- :class:`Oracle` — a :class:`~quinze_protocol.search.determinize.Determinizer` that starts from
  the real game itself: with ``hide`` empty every iteration plays the true deal (perfect
  information: every hand, every packet, the stock's order and the generator of the reshuffles
  to come); the places named in ``hide`` (Le 14: ``"hands"``, the other seats' hands;
  ``"packets"``, every face-down packet, the seat's own too; ``"stock"``) are dealt again at
  random from the cards they hold together, sizes kept, and the generator is seeded afresh, so
  the search sees only the rest.
- :class:`OracleBot` — the search bot (:class:`~quinze_protocol.search.bots.MctsBot`, the same
  tree, model and playouts) searching over an :class:`Oracle`; its caller hands it the real game
  before each decision (:meth:`OracleBot.see`). It is registered nowhere: it cheats.
- :class:`PimcBot` — perfect-information Monte Carlo (determinized search, Long et al. 2010): an
  honest player that deals ``deals`` determinizations of its view and runs, on each, the search
  as if that deal were the true one (``iterations`` each), then plays the action with the most
  visits summed over the deals.

Le 14 only (the game where the ladder asked for these bounds). Pure: no I/O; every random number
from the :class:`~quinze_protocol.rng.Rng` given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from quinze_protocol.game import Action, Game, GameError
from quinze_protocol.rng import Rng
from quinze_protocol.search.bots import MctsBot
from quinze_protocol.search.determinize import Determinizer, determinizer
from quinze_protocol.search.ismcts import search

__all__ = ["PLACES", "Oracle", "OracleBot", "PimcBot"]

PLACES = ("hands", "packets", "stock")
"""The hidden places of Le 14 an :class:`Oracle` can deal again (quinze_cli/rules/quatorze.md,
"What each player sees")."""


def _key(c: int) -> tuple[int, int]:
    from quinze_protocol.games.quatorze_actions import card_key

    return card_key(c)


class Oracle(Determinizer):
    """The real Le 14 game ``game`` as seen by ``seat``, the places in ``hide`` (a subset of
    :data:`PLACES`) dealt again at each :meth:`sample`. Raises GameError (field ``hide``) for
    an unknown place, or for another game than Le 14 (field ``game``)."""

    def __init__(self, game: Game, seat: int, hide: Iterable[str] = ()) -> None:
        if game.id != "quatorze":
            raise GameError(f"an oracle is made for Le 14 only, not {game.id}", field="game")
        self.game, self.seat, self.hide = game, seat, frozenset(hide)
        bad = self.hide - set(PLACES)
        if bad:
            raise GameError(f"unknown hidden place(s) {sorted(bad)}: choose among {', '.join(PLACES)}", field="hide")

    def sample(self, rng: Rng) -> Game:
        g: Any = self.game.copy()
        if not self.hide:
            return g  # the true deal, the true generator
        n = len(g.hands)
        others = [s for s in range(n) if s != self.seat]
        pool: list[int] = []
        if "hands" in self.hide:
            for s in others:
                pool += g.hands[s]
        if "packets" in self.hide:
            for ps in g.packets:
                for p in ps:
                    pool += p
        if "stock" in self.hide:
            pool += g.stock
        rng.shuffle(pool)
        k = 0
        if "hands" in self.hide:
            for s in others:
                m = len(g.hands[s])
                g.hands[s] = sorted(pool[k:k + m], key=_key)
                k += m
        if "packets" in self.hide:
            for ps in g.packets:
                for i, p in enumerate(ps):
                    ps[i] = sorted(pool[k:k + len(p)], key=_key)
                    k += len(p)
        if "stock" in self.hide:
            g.stock = pool[k:]
        g.rng = Rng(rng.next64())  # the real generator would tell the reshuffles to come
        return g


class OracleBot(MctsBot):
    """The search bot over an :class:`Oracle` of the real game (``hide``: the places it does
    NOT see). Call :meth:`see` with the real game before each :meth:`choose`."""

    def __init__(self, game_id: str, seed: int = 0, iterations: int = 400, hide: Iterable[str] = ()) -> None:
        super().__init__(game_id, seed, iterations)
        self.hide = tuple(hide)
        self.game: Game | None = None

    def see(self, game: Game) -> None:
        """The real game, as it stands at the next decision."""
        self.game = game

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        if self.game is None:
            raise GameError("an oracle bot is shown the game (see) before it chooses", field="game")
        stats: dict[str, Any] = {}
        a = search(Oracle(self.game, view["seat"], self.hide), self.model, self.rng,
                   iterations=self.iterations, stats=stats)
        self.last_stats = stats
        return a


class PimcBot(MctsBot):
    """Perfect-information Monte Carlo over ``deals`` determinizations of the view, ``iterations``
    of the search on each (module docstring). Honest: it sees its seat's view and events only."""

    def __init__(self, game_id: str, seed: int = 0, iterations: int = 40, deals: int = 10) -> None:
        super().__init__(game_id, seed, iterations)
        self.deals = deals

    def choose(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        actions = list(legal)
        if len(actions) == 1:
            return actions[0]
        det = determinizer(view, self._knowledge(view))
        votes: dict[Action, int] = {}
        for _ in range(self.deals):
            g = det.sample(self.rng)
            stats: dict[str, Any] = {}
            search(_Fixed(g), self.model, self.rng, iterations=self.iterations, stats=stats)
            for a, visits in stats["visits"].items():
                votes[a] = votes.get(a, 0) + visits
        return max(votes, key=lambda a: votes[a])  # first of the most voted, in search order


class _Fixed(Determinizer):
    """One deal, played as the true one at every iteration."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def sample(self, rng: Rng) -> Game:
        return self.game.copy()
