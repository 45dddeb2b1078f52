"""Determinization of Le Quinze classique (``quinze-classique``, quinze_cli/rules/quinze-classique.md): see
:mod:`quinze_protocol.search.determinize`.

The deck in play is one colour (52 cards). Seen: the own hidden card, every face-up card, hidden
cards shown by rule (burnt) and, since the deck was last changed, every card seen in earlier
coups (hits, burnt or shown hidden cards, the own hidden cards) — :class:`ClassiqueKnowledge`
keeps those from the events. The unseen cards are dealt to the hidden cards of the others still
holding one, to the talon (its size in the view) and to the part of the put-aside cards nobody
saw (what makes the 52).

Inferences from choices are made (an opponent model, docs/bots.md): each seat's choices in
this coup bound its hidden card's value as the built-in ``threshold`` would play — a raise at a
face-up total ``u`` means a total of 14 or 15 then, a hit in the drawing turn a total below 11,
a stand in it (not forced, no raise at that total) 11 to 13. A seat with such bounds is dealt, when one is unseen, a
hidden card within them, four determinizations in five (the fifth ignores them, for opponents
that play otherwise).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quinze_protocol.cards import card_text, parse_card
from quinze_protocol.game import Game, GameError, get_game
from quinze_protocol.rng import Rng
from quinze_protocol.search.clone import clone
from quinze_protocol.search.determinize import Determinizer, Knowledge, multiset_minus, register

__all__ = ["ClassiqueDeterminizer", "ClassiqueKnowledge"]


def _value(c: int) -> int:
    return min(c % 13 + 1, 10)


def _colour_deck(colour: str) -> list[int]:
    from quinze_protocol.games.classique_coup import colour_deck

    return colour_deck(colour)


class ClassiqueKnowledge(Knowledge):
    """Cards seen since the deck in play was shuffled: those of finished coups and this coup's."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.deck: str | None = None
        self.gone: list[int] = []
        """Seen cards of finished coups of this deck (now among the put-aside cards)."""
        self.coup: list[int] = []
        self.up: dict[int, int] = {}
        """Face-up total of each seat this coup (from ``hit`` events)."""
        self.bounds: dict[int, tuple[int, int]] = {}
        """Seats whose choices this coup bound their hidden card's value: (lowest, highest)."""
        self.raised_up: dict[int, int] = {}
        """Seats that raised this coup, with their face-up total at their last raise."""

    def _bound(self, seat: int, lo: int, hi: int) -> None:
        old_lo, old_hi = self.bounds.get(seat, (1, 10))
        new = (max(old_lo, lo), min(old_hi, hi))
        if new[0] <= new[1]:  # contradictory choices (not a threshold player): keep the older
            self.bounds[seat] = new

    def _observe(self, e: Mapping[str, Any]) -> None:
        kind = e["kind"]
        if kind == "deck-change":
            self.deck, self.gone, self.coup = e["deck"], [], []
            self.complete = True
        elif kind == "deal":
            self.up, self.bounds, self.raised_up = {}, {}, {}
            if "card" in e:
                self.coup.append(parse_card(e["card"]))
        elif kind == "hit":
            seat, before = e["seat"], self.up.get(e["seat"], 0)
            self._bound(seat, 1, 10 - before)  # hit in the drawing turn: below 11
            self.coup.append(parse_card(e["card"]))
            self.up[seat] = int(e["face_up_total"])
        elif kind == "stand":
            seat, up = e["seat"], self.up.get(e["seat"], 0)
            if not e.get("forced") and self.raised_up.get(seat) != up:
                self._bound(seat, 11 - up, 13 - up)  # stood on 11 to 13 (it raises with 14)
        elif kind == "raise":
            seat, up = e["seat"], self.up.get(e["seat"], 0)
            self.raised_up[seat] = up
            self._bound(seat, 14 - up, 15 - up)
        elif kind == "burnt":
            self.coup.append(parse_card(e["hidden"]))
        elif kind == "showdown":
            for h in e["hands"]:
                self.coup.append(parse_card(h["hidden"]))
        elif kind == "coup-end":
            self.gone.extend(self.coup)
            self.coup = []


class ClassiqueDeterminizer(Determinizer):
    """Deals a classique view (see the module docstring)."""

    def __init__(self, view: Mapping[str, Any], know: Knowledge) -> None:
        try:
            self.seat = view["seat"]
            options = dict(view["options"])
            n = options["players"]
            hidden = [None if h is None else parse_card(h) for h in view["hidden"]]
            face_up = [[parse_card(t) for t in cs] for cs in view["face_up"]]
            status = list(view["status"])
            in_match = list(view["in_match"])
            phase = view["phase"]
            self.talon_size = int(view["talon"])
            deck = view["deck"]
            awaiting = list(view.get("awaiting") or [])
            in_coup = [p for p in range(n) if status[p] in ("stand", "hit")]
            acted = [p for p in in_coup if p not in awaiting] if phase == "raise" else []
            self.base: dict[str, Any] = {
                "game": "quinze-classique", "format": 1, "options": options, "rng": 0,
                "caves": list(view["caves"]), "chips": list(view["chips"]), "in_match": in_match,
                "pot": view["pot"], "stakes": list(view["stakes"]), "first_dealer": view["first_dealer"],
                "dealer": view["dealer"], "rounds": view["rounds"], "coup": view["coup"], "deck": deck,
                "phase": phase, "to_act": view["to_act"], "status": status,
                "face_up": [[card_text(c) for c in cs] for cs in face_up],
                "opener": view["opener"], "high": view["high"], "raised": view["raised"], "acted": acted,
                "round_of": "drawing" if phase == "draw" or any(face_up) else "opening",
                "end_reason": None, "shares": [0] * n,
            }
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise GameError(f"not a classique seat view ({type(err).__name__}: {err})", field="view") from None
        if phase == "over":
            raise GameError("the match is over: nothing to deal", field="phase")
        self.hidden = hidden
        # seats holding a hidden card this seat cannot see
        self.blind = [p for p in range(n) if in_match[p] and hidden[p] is None]
        on_table = [c for c in hidden if c is not None] + [c for cs in face_up for c in cs]
        ok = isinstance(know, ClassiqueKnowledge) and know.complete and know.deck == deck
        gone = list(know.gone) if ok else []  # type: ignore[attr-defined]
        deck_cards = _colour_deck(deck)
        unseen = multiset_minus(deck_cards, on_table + gone)
        aside = 52 - self.talon_size - len(on_table) - len(self.blind)  # every put-aside card
        if len(gone) > aside or len(unseen) != self.talon_size + len(self.blind) + aside - len(gone):
            gone = []  # the events were not all followed: trust the view alone
            unseen = multiset_minus(deck_cards, on_table)
        if aside < 0 or len(unseen) != self.talon_size + len(self.blind) + aside - len(gone):
            raise GameError("the view does not add up: talon, cards held and put aside are not 52", field="view")
        self.gone = gone
        self.unseen = unseen
        # the opponent model: bounds on the hidden card from the seat's choices (docs/bots.md)
        self.bounds = {p: know.bounds[p] for p in self.blind  # type: ignore[attr-defined]
                       if ok and p in know.bounds}  # type: ignore[attr-defined]
        self.cls = get_game("quinze-classique")
        self.template: Game = self._load(Rng(0))

    def _deal(self, rng: Rng) -> tuple[list[int | None], list[int], list[int]]:
        cards = list(self.unseen)
        rng.shuffle(cards)
        hidden = list(self.hidden)
        k = len(self.blind)
        bounds = self.bounds if self.bounds and rng.below(5) else {}
        for i, p in enumerate(self.blind):
            b = bounds.get(p)
            if b is not None:  # the first card (in shuffled order) within the bounds, if any
                lo, hi = b
                for j in range(i, len(cards)):
                    if lo <= _value(cards[j]) <= hi:
                        cards[i], cards[j] = cards[j], cards[i]
                        break
            hidden[p] = cards[i]
        talon = cards[k:k + self.talon_size]
        discards = self.gone + cards[k + self.talon_size:]
        return hidden, talon, discards

    def _load(self, rng: Rng) -> Game:
        hidden, talon, discards = self._deal(rng)
        pos = dict(self.base, rng=rng.next64(), hidden=[None if c is None else card_text(c) for c in hidden],
                   talon=[card_text(c) for c in talon], discards=[card_text(c) for c in discards])
        return self.cls.from_position(pos)

    def sample(self, rng: Rng) -> Game:
        g = clone(self.template)
        hidden, talon, discards = self._deal(rng)
        g.hidden, g.talon, g.discards = hidden, talon, discards
        g.rng = Rng(rng.next64())
        return g


register("quinze-classique", ClassiqueKnowledge, ClassiqueDeterminizer)
