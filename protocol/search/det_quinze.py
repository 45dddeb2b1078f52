"""Determinization of Le Quinze (``quinze``, quinze_cli/rules/quinze.md): see :mod:`quinze_protocol.search.determinize`.

Unseen: the deck(s) in play minus the own hand, the table and the discard pile. They are dealt to
the other hands (their sizes from the view) and to the stock (its size). After a reshuffle the
stock can only hold cards of the discard pile that became it (``reshuffle`` event), less those
seen since (own draws, fifteens and placements): :class:`QuinzeKnowledge` follows that pile from
the public events. ``seat_turns`` (needed for the first-turn −50) follows from ``turns`` and the
seat that played first (the dealer's next).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from quinze_protocol.cards import card_text, parse_card
from quinze_protocol.game import Game, GameError, PositionError, get_game
from quinze_protocol.rng import Rng
from quinze_protocol.search.clone import clone
from quinze_protocol.search.determinize import Determinizer, Knowledge, multiset_minus, register, split_pool

__all__ = ["QuinzeDeterminizer", "QuinzeKnowledge"]


class QuinzeKnowledge(Knowledge):
    """Follows the discard pile and, after a reshuffle, the pile that became the stock."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.deal: int | None = None
        self.discard: list[int] = []
        self.pool: Counter | None = None
        """Cards that may still be in the stock after the last reshuffle (None: no reshuffle)."""

    def _observe(self, e: Mapping[str, Any]) -> None:
        kind = e["kind"]
        if kind == "deal":
            self.deal, self.discard, self.pool = e["deal"], [], None
            self.complete = True
        elif kind == "fifteen":
            cards = [parse_card(t) for t in list(e["hand"]) + list(e["table"])]
            self.discard.extend(cards)
            self._seen(cards)
        elif kind == "place":
            self._seen(parse_card(t) for t in e["cards"])
        elif kind == "draw" and "card" in e:
            self._seen([parse_card(e["card"])])
        elif kind == "reshuffle":
            self.pool, self.discard = Counter(self.discard), []
            if sum(self.pool.values()) != e["stock"]:
                self.complete = False

    def _seen(self, cards: Any) -> None:
        if self.pool is not None:
            for c in cards:
                if self.pool[c] > 0:
                    self.pool[c] -= 1


def _seat_turns(view: Mapping[str, Any], n: int) -> list[int]:
    first = (view["dealer"] + 1) % n
    t = view["turns"]
    return [max(0, (t - ((s - first) % n) + n - 1) // n) for s in range(n)]


class QuinzeDeterminizer(Determinizer):
    """Deals a Le Quinze view (see the module docstring)."""

    def __init__(self, view: Mapping[str, Any], know: Knowledge) -> None:
        try:
            self.seat = seat = view["seat"]
            options = dict(view["options"])
            n = options["players"]
            decks = 1 if n <= 4 else 2
            self.hand = sorted(parse_card(t) for t in view["hand"])
            table = [parse_card(t) for t in view["table"]]
            discard = [parse_card(t) for t in view["discard"]]
            self.sizes = list(view["hand_sizes"])
            self.stock_size = int(view["stock"])
            self.to_act = view["to_act"]
            turn = view.get("turn") or {}
            self.base: dict[str, Any] = {
                "game": "quinze", "format": 1, "options": options, "rng": 0,
                "deal": view["deal"], "dealer": view["dealer"], "to_act": view["to_act"],
                "phase": view["phase"],
                "turn": {"fifteens": turn.get("fifteens", 0), "used_table": turn.get("used_table", False),
                         "actions": list(turn.get("actions", []))},
                "turns": view["turns"], "seat_turns": _seat_turns(view, n),
                "table": [card_text(c) for c in table], "discard": [card_text(c) for c in discard],
                "totals": list(view["totals"]),
            }
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise GameError(f"not a Le Quinze seat view ({type(err).__name__}: {err})", field="view") from None
        self.unseen = multiset_minus(list(range(54)) * decks, self.hand + table + discard)
        if len(self.unseen) != self.stock_size + sum(self.sizes) - len(self.hand):
            raise GameError(f"the view does not add up: {len(self.unseen)} unseen cards for the stock "
                            f"({self.stock_size}) and the other hands", field="view")
        pool = know.pool if isinstance(know, QuinzeKnowledge) and know.complete else None
        self.pool = pool
        self.cls = get_game("quinze")
        self.template: Game | None = None
        if self.to_act == seat:
            self.template = self._load(Rng(0))

    def _deal(self, rng: Rng) -> tuple[list[list[int]], list[int]]:
        stock, rest = split_pool(self.unseen, self.pool, self.stock_size, rng)
        hands: list[list[int]] = []
        k = 0
        for s, size in enumerate(self.sizes):
            if s == self.seat:
                hands.append(list(self.hand))
            else:
                hands.append(sorted(rest[k:k + size]))
                k += size
        return hands, stock

    def _load(self, rng: Rng) -> Game:
        hands, stock = self._deal(rng)
        pos = dict(self.base, rng=rng.next64(), hands=[[card_text(c) for c in h] for h in hands],
                   stock=[card_text(c) for c in stock])
        return self.cls.from_position(pos)

    def sample(self, rng: Rng) -> Game:
        if self.template is None:  # another seat is to act: its phase depends on its cards
            for _ in range(200):
                try:
                    return self._load(rng)
                except PositionError:
                    continue
            raise GameError("no deal of the unseen cards matches the view's phase", field="phase")
        g: Any = clone(self.template)  # the engine's own fields (hands, stock, rng), not in Game
        hands, stock = self._deal(rng)
        g.hands = hands
        g.stock = stock[::-1]  # the engine keeps the top last
        g.rng = Rng(rng.next64())
        return g


register("quinze", QuinzeKnowledge, QuinzeDeterminizer)
