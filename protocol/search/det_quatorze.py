"""Determinization of Le 14 (``quatorze``, quinze_cli/rules/quatorze.md): see :mod:`quinze_protocol.search.determinize`.

Unseen: the two decks minus the own hand, the table's combinations and the discard pile. They are
dealt to the other hands, to every face-down packet (the seat's own too: nobody sees a packet
before taking it up, quinze_cli/rules/quatorze.md "Set-up") and to the stock, with the sizes of the view.
:class:`QuatorzeKnowledge` follows, from the public events, the cards known to be in another
hand (taken from the discard pile, or from a combination by a substitution) until that seat plays
them, and after a reshuffle the pile that became the stock; the deal puts the known cards back in
their hands and takes the stock from that pile.

One inference from choices (an opponent model): a seat whose turn ended with a discard, and
that has not taken up a packet since, is dealt a hand holding no combination, as a player who
lays what it can (``greedy``) holds then (cards swapped with the packets' until none is left,
at most 40 swaps).
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

__all__ = ["QuatorzeDeterminizer", "QuatorzeKnowledge"]


def _key(c: int) -> tuple[int, int]:
    from quinze_protocol.games.quatorze_actions import card_key

    return card_key(c)


class QuatorzeKnowledge(Knowledge):
    """Known cards in each hand, the discard pile, and the pile a reshuffle made the stock."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.known: dict[int, list[int]] = {}
        self.discard: list[int] = []
        self.pool: Counter | None = None
        self.settled: set[int] = set()
        """Seats whose turn ended with a discard since they last took up a packet: a player who
        lays what it can (as ``greedy`` does) then holds no combination."""

    def _take(self, seat: int, cards: Any) -> None:
        self.known.setdefault(seat, []).extend(cards)

    def _drop(self, seat: int, cards: Any) -> None:
        mine = self.known.get(seat, [])
        for c in cards:
            if c in mine:
                mine.remove(c)

    def _observe(self, e: Mapping[str, Any]) -> None:
        kind = e["kind"]
        seat: int = e.get("seat", -1)  # -1: events without a seat (setup, reshuffle) do not use it
        if kind == "setup":
            self.known, self.discard, self.pool = {}, [parse_card(e["discard"])], None
            self.settled = set()
            self.complete = True
            return
        if kind == "discard":
            self.settled.add(seat)
        elif kind in ("draw", "take-up"):
            self.settled.discard(seat)
        if kind == "draw":
            if e["from"] == "discard":
                c = parse_card(e["card"])
                if self.discard and self.discard[-1] == c:
                    self.discard.pop()
                else:
                    self.complete = False
                self._take(seat, [c])
            elif "card" in e and self.pool is not None:
                c = parse_card(e["card"])
                if self.pool[c] > 0:
                    self.pool[c] -= 1
        elif kind == "combine":
            self._drop(seat, [parse_card(t) for t in e["cards"]])
        elif kind == "discard":
            c = parse_card(e["card"])
            self._drop(seat, [c])
            self.discard.append(c)
        elif kind == "substitute":
            sub = e["substitution"]
            if sub == "hand-for-two":
                self._drop(seat, [parse_card(e["hand"])])
                self._take(seat, [parse_card(t) for t in e["cards"]])
            elif sub == "two-for-one":
                self._drop(seat, [parse_card(t) for t in e["hand"]])
                self._take(seat, [parse_card(e["card"])])
        elif kind == "take-up":
            self.known[seat] = []
        elif kind == "reshuffle":
            top = parse_card(e["discard"]) if e.get("discard") else None
            if top is not None and self.discard and self.discard[-1] == top:
                self.pool, self.discard = Counter(self.discard[:-1]), [top]
            else:
                self.pool, self.discard = None, [top] if top is not None else []
                self.complete = False
            if self.pool is not None and sum(self.pool.values()) != e["stock"]:
                self.pool = None


class QuatorzeDeterminizer(Determinizer):
    """Deals a Le 14 view (see the module docstring)."""

    def __init__(self, view: Mapping[str, Any], know: Knowledge) -> None:
        try:
            self.seat = seat = view["seat"]
            options = dict(view["options"])
            n = options["players"]
            self.hand = [parse_card(t) for t in view["hand"]]
            table = [[parse_card(t) for t in comb] for comb in view["table"]]
            discard = [parse_card(t) for t in view["discard"]]
            self.sizes = [int(x) for x in view["hand_sizes"]]
            self.packets = [[int(x) for x in ps] for ps in view["packets"]]
            self.stock_size = int(view["stock"])
            self.to_act = view["to_act"]
            phase = view["phase"]
            self.base: dict[str, Any] = {
                "game": "quatorze", "format": 1, "options": options, "rng": 0,
                "to_act": view["to_act"], "phase": phase, "no_draw": view.get("no_draw"),
                "turns": view["turns"],
                "substitutions": view.get("substitutions", 0) if phase == "substitute" else 0,
                "table": [[card_text(c) for c in comb] for comb in table],
                "discard": [card_text(c) for c in discard],
                "winners": [], "end_reason": None,
            }
            if len(self.sizes) != n or len(self.packets) != n:
                raise ValueError("hand_sizes and packets need one entry per seat")
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise GameError(f"not a Le 14 seat view ({type(err).__name__}: {err})", field="view") from None
        seen = self.hand + [c for comb in table for c in comb] + discard
        self.unseen = multiset_minus([c for c in range(52)] * 2, seen)
        want = self.stock_size + sum(self.sizes) - len(self.hand) + sum(map(sum, self.packets))
        if len(self.unseen) != want:
            raise GameError(f"the view does not add up: {len(self.unseen)} unseen cards for {want} places", field="view")
        followed = know if isinstance(know, QuatorzeKnowledge) and know.complete else None
        self.pool = followed.pool if followed is not None else None
        # cards known in other hands, as far as they are still unseen and fit the hand sizes
        left = Counter(self.unseen)
        self.known: dict[int, list[int]] = {}
        if followed is not None:
            for s, cards in followed.known.items():
                if s == seat or not 0 <= s < n:
                    continue
                mine: list[int] = []
                for c in cards:
                    if left[c] > 0 and len(mine) < self.sizes[s]:
                        left[c] -= 1
                        mine.append(c)
                self.known[s] = mine
        self.free = sorted(left.elements())
        self.settled = sorted(s for s in followed.settled if s != seat) if followed is not None else []
        self.cls = get_game("quatorze")
        self.template: Game | None = self._load(Rng(0)) if self.to_act == seat else None

    def _deal(self, rng: Rng) -> tuple[list[list[int]], list[list[list[int]]], list[int]]:
        stock, rest = split_pool(self.free, self.pool, self.stock_size, rng)
        k = 0
        hands: list[list[int]] = []
        for s, size in enumerate(self.sizes):
            if s == self.seat:
                hands.append(list(self.hand))
                continue
            known = self.known.get(s, [])
            need = size - len(known)
            if s in self.settled and need > 0:
                self._settle(known, rest, k, need, rng)
            hands.append(sorted(known + rest[k:k + need], key=_key))
            k += need
        packets: list[list[list[int]]] = []
        for sizes in self.packets:
            ps = []
            for size in sizes:
                ps.append(sorted(rest[k:k + size], key=_key))
                k += size
            packets.append(ps)
        return hands, packets, stock

    def _settle(self, known: list[int], rest: list[int], k: int, need: int, rng: Rng) -> None:
        """Swap the dealt part ``rest[k:k+need]`` of a settled hand with cards further on in
        ``rest`` (later hands, packets) until the hand holds no combination (at most 40 swaps)."""
        from quinze_protocol.games.quatorze_actions import VALUES

        spare = len(rest) - (k + need)
        for _ in range(40):
            bits = 1
            for c in known:
                bits = (bits | bits << VALUES[c]) & 0x7FFF
            for c in rest[k:k + need]:
                bits = (bits | bits << VALUES[c]) & 0x7FFF
            if not (bits >> 14) & 1 or spare <= 0:
                return
            i = k + rng.below(need)
            j = k + need + rng.below(spare)
            rest[i], rest[j] = rest[j], rest[i]

    def _load(self, rng: Rng) -> Game:
        hands, packets, stock = self._deal(rng)
        pos = dict(self.base, rng=rng.next64(), hands=[[card_text(c) for c in h] for h in hands],
                   packets=[[[card_text(c) for c in p] for p in ps] for ps in packets],
                   stock=[card_text(c) for c in stock])
        return self.cls.from_position(pos)

    def sample(self, rng: Rng) -> Game:
        if self.template is None:  # another seat is to act: its phase may depend on its cards
            for _ in range(200):
                try:
                    return self._load(rng)
                except PositionError:
                    continue
            raise GameError("no deal of the unseen cards matches the view's phase", field="phase")
        g: Any = clone(self.template)  # the engine's own fields (hands, packets, stock, rng), not in Game
        hands, packets, stock = self._deal(rng)
        g.hands, g.packets, g.stock = hands, packets, stock[::-1]  # the engine keeps the top last
        g.rng = Rng(rng.next64())
        return g


register("quatorze", QuatorzeKnowledge, QuatorzeDeterminizer)
